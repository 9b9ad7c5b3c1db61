"""Text as a reader sees it: what the gate compares, not the code points written.

A value can look like another to a person and still differ in its characters: a name
with a zero-width space between its letters (``S\\u200bcott``), digits in full width
(``８５８``), letters from a mathematical or circled alphabet, a surname with accents
added or dropped (``Müller``, ``Muller``), or Latin letters swapped for the Cyrillic or
Greek ones drawn the same (``Ѕсоtt``: Cyrillic S, s, o). Each of these reads as the
identifier it copies, so the gate folds both sides before it compares them:

- compatibility forms become the plain ones (Unicode NFKC: full width, ligatures,
  mathematical and circled letters, no-break spaces);
- marks on letters are dropped (NFKD, then the combining marks: ``é`` -> ``e``);
- invisible format characters are removed (category Cf: zero-width spaces and joiners,
  soft hyphens, direction marks, the byte-order mark);
- Cyrillic and Greek letters drawn like a Latin letter become that letter
  (``CONFUSABLE``: the letters Unicode's confusables list, UTS #39, maps to one Latin
  letter, case kept).

Text that is all ASCII is returned as it is, untouched and uncopied: only values with a
byte of 0x80 or more are folded, each distinct one once in Python (few in a clinical
extract: a column of names repeats the same few accented ones).
"""

from __future__ import annotations

import re
import unicodedata
import weakref

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.text import arrow_data, arrow_text, lower, value_bytes

#: Cyrillic and Greek letters drawn like one Latin letter (case kept): from Unicode's
#: confusables data (Unicode Technical Standard #39), the letters of these two
#: scripts whose skeleton is a single Latin letter.
CONFUSABLE: dict[str, str] = {
    # Cyrillic capitals
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y", "Ѕ": "S", "І": "I", "Ј": "J",
    "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I",
    # Cyrillic small letters
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s",
    "і": "i", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ү": "y", "ӏ": "l",
    # Greek capitals
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Greek small letters
    "α": "a", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "υ": "u", "χ": "x",
    # Latin letters outside ASCII that NFKC leaves
    "ı": "i", "ȷ": "j",
}  # fmt: skip
_TABLE = str.maketrans(CONFUSABLE)
#: categories of the characters dropped: combining marks, and invisible format ones
_DROPPED = frozenset({"Mn", "Me", "Cf"})


def fold_text(text: str) -> str:
    """One value folded (see the module)."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in _DROPPED)
    return unicodedata.normalize("NFC", kept).translate(_TABLE)


def _wide_cells(values: pa.Array) -> np.ndarray:
    """Positions of the cells of ``values`` (large_string) holding a byte of 0x80 or
    more, ascending: read from where those bytes are, so ASCII text costs one pass."""
    found = value_bytes(values)
    if found is None or found[0].size == 0:
        return np.zeros(0, dtype=np.int64)
    data, starts, _ends = found
    high = np.flatnonzero(data >= 0x80)
    if not len(high):
        return np.zeros(0, dtype=np.int64)
    cells = np.searchsorted(starts, high, side="right") - 1  # ascending, as ``high`` is
    return cells[np.r_[True, cells[1:] != cells[:-1]]]


def _replaced(values: pa.Array, at: np.ndarray, new: list[str] | pa.Array) -> pa.Array:
    """``values`` with the cells at positions ``at`` replaced by ``new``."""
    mask = np.zeros(len(values), dtype=bool)
    mask[at] = True
    return pc.replace_with_mask(values, pa.array(mask), pa.array(new, pa.large_string()))


def folded(values: pa.Array) -> pa.Array:
    """``values`` (text) with each value folded (see the module): the same array when
    no value holds a byte of 0x80 or more; nulls stay null."""
    values = arrow_text(values)
    at = _wide_cells(values)
    if not len(at):
        return values
    wide = pc.dictionary_encode(values.take(pa.array(at)))
    new = pa.array([fold_text(v) for v in wide.dictionary.to_pylist()], pa.large_string())
    return _replaced(values, at, new.take(wide.indices))


#: id of a column's Arrow data -> (that data, weakly; the column lower-cased and folded)
_LOWER_FOLDED: dict[int, tuple[weakref.ref[object], pa.Array]] = {}


def lower_folded(values: pd.Series | pa.Array) -> pa.Array:
    """``lower(folded(arrow_text(values)))``, nulls kept; of an Arrow column, made once
    while its data lives: the gate reads each name column so twice (the direct values,
    then the persons' own names), a million cells each."""
    data = arrow_data(values) if isinstance(values, pd.Series) else None
    found = _LOWER_FOLDED.get(id(data)) if data is not None else None
    if found is not None and found[0]() is data:
        return found[1]
    out = lower(folded(arrow_text(values)))
    if data is not None:
        key = id(data)
        _LOWER_FOLDED[key] = (weakref.ref(data), out)
        weakref.finalize(data, _LOWER_FOLDED.pop, key, None)
    return out


# --------------------------------------------------------------------------- plain notes

#: A character that disguises text in a note: invisible format characters, full-width
#: ASCII forms, mathematical alphanumerics, and Cyrillic or Greek letters drawn like a
#: Latin one (RE2 syntax; which cells ``plain_notes`` rewrites).
DISGUISE = (
    r"[\p{Cf}\x{FF01}-\x{FF5E}\x{1D400}-\x{1D7FF}"
    + "".join(sorted(c for c in CONFUSABLE if not c.isascii() and ord(c) >= 0x370))
    + "]"
)
_LETTERS = re.compile(r"[^\W\d_]+")
#: a word of this many letters, each a Cyrillic or Greek one drawn like a Latin letter,
#: is taken for a disguised Latin word (shorter: ``α`` of ``TNF-α`` is a Greek letter)
_LOOKALIKE_WORD = 3


def _plain_char(c: str) -> str:
    code = ord(c)
    if 0xFF01 <= code <= 0xFF5E:  # full-width ASCII
        return chr(code - 0xFEE0)
    if 0x1D400 <= code <= 0x1D7FF:  # mathematical letters and digits
        return unicodedata.normalize("NFKC", c)
    return "" if unicodedata.category(c) == "Cf" else c


def _plain_word(match: re.Match[str]) -> str:
    word = match.group(0)
    greek_cyrillic = [c for c in word if 0x370 <= ord(c) <= 0x52F]
    if not greek_cyrillic or any(c not in CONFUSABLE for c in greek_cyrillic):
        return word  # no lookalike, or a word of those scripts
    if len(greek_cyrillic) == len(word) and len(word) < _LOOKALIKE_WORD:
        return word
    return word.translate(_TABLE)


def plain_note(text: str) -> str:
    """A note as a person reads it, for the scan: invisible characters dropped, full-
    width and mathematical forms made plain, and in a word drawn in Latin letters the
    Cyrillic or Greek lookalikes made Latin (``Ѕсоtt`` -> ``Scott``). Accents and words
    of other scripts are kept: what the note says is unchanged."""
    plain = "".join(_plain_char(c) if not c.isascii() else c for c in text)
    return _LETTERS.sub(_plain_word, plain)


def plain_notes(values: pa.Array) -> tuple[pa.Array, int]:
    """``values`` (text) with each cell holding a ``DISGUISE`` character made plain
    (``plain_note``), and how many cells changed; the same array when none does."""
    values = arrow_text(values)
    wide = _wide_cells(values)
    if not len(wide):
        return values, 0
    marked = pc.match_substring_regex(values.take(pa.array(wide)), DISGUISE)
    at = wide[marked.to_numpy(zero_copy_only=False)]
    if not len(at):
        return values, 0
    before = values.take(pa.array(at)).to_pylist()
    after = [plain_note(v) for v in before]
    changed = sum(a != b for a, b in zip(after, before, strict=True))
    return _replaced(values, at, after), changed
