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
byte of 0x80 or more are folded, one by one in Python (few in a clinical extract).
"""

from __future__ import annotations

import unicodedata

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.text import arrow_text, value_bytes

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


def folded(values: pa.Array) -> pa.Array:
    """``values`` (text) with each value folded (see the module): the same array when
    no value holds a byte of 0x80 or more; nulls stay null."""
    values = arrow_text(values)
    found = value_bytes(values)
    if found is None:
        return values
    data, starts, ends = found
    if data.size == 0 or int(data.max()) < 0x80:
        return values
    high = np.concatenate(([0], np.cumsum(data >= 0x80, dtype=np.int64)))
    wide = high[ends] > high[starts]
    at = np.flatnonzero(wide)
    replaced = [fold_text(v) for v in values.take(pa.array(at)).to_pylist()]
    return pc.replace_with_mask(values, pa.array(wide), pa.array(replaced, pa.large_string()))
