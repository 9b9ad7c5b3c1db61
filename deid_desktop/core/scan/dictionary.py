"""The scan dictionary: identifier values taken from the extract's own direct columns.

``build_dictionary_from_values`` takes ``{kind: values}`` and knows nothing of projects;
``build_dictionary`` collects the direct-tagged columns of a project's extract by their
identifier category. Entries are stored folded (lower case, no accents), never logged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from itertools import repeat
from types import MappingProxyType

import ahocorasick
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pandas.util import hash_array

from deid_desktop.core.constants import DICT_KINDS
from deid_desktop.core.errors import UsageError
from deid_desktop.core.facts.shared import event_keys_linked
from deid_desktop.core.gc_pause import CHUNK, gc_paused, map_array
from deid_desktop.core.model import ColumnClass, Extract, IdentifierCategory, Project, TableSpec
from deid_desktop.core.scan.fold import fold
from deid_desktop.core.scan.regions import WordIndex
from deid_desktop.core.scan.rules import CUE_WORDS, MONTH_WORDS, dict_code

CATEGORY_KINDS: Mapping[IdentifierCategory, str] = MappingProxyType(
    {
        IdentifierCategory.A: "name",
        IdentifierCategory.H: "mrn",
        IdentifierCategory.D: "phone",
        IdentifierCategory.E: "phone",
        IdentifierCategory.F: "email",
        IdentifierCategory.G: "ssn",
    }
)

#: Words that are parts of name values but are not names.
_NAME_STOP = frozenset(
    {"mr", "mrs", "ms", "miss", "dr", "jr", "sr", "ii", "iii", "iv", "md", "phd"}
)
#: Words a URL starts with (https:// and http:// fold to them, www. to "www ").
URL_WORDS = ("http", "https", "www")
#: The rule of a URL word's entry: not a hit, a place to try the URL pattern.
URL_START = "url-start"
_MIN_NAME = 2
_MIN_ID = 3
#: The fewest digits of a phone's or an SSN's entry.
_MIN_PHONE = 7
_NON_DIGIT = re.compile(r"\D+")
#: Digits of the longest entry looked up as a number (``10 ** 18 + value`` fits int64).
_MAX_DIGITS = 18


_H1 = np.uint64(0x9E3779B97F4A7C15)


def owner_hashes(persons: Sequence[str], words: Sequence[str]) -> np.ndarray:
    """Hashes of (person key, folded name word) pairs, for ``ScanDictionary.owners``:
    pandas' fixed-key string hash of each side, combined (the same in every process)."""
    if not len(words):
        return np.empty(0, dtype=np.int64)
    hp = hash_array(np.asarray(persons, dtype=object))
    hw = hash_array(np.asarray(words, dtype=object))
    with np.errstate(over="ignore"):
        return ((hp * _H1) ^ hw).view(np.int64)


def phone_digits(value: str) -> str:
    digits = _NON_DIGIT.sub("", value)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    return digits


@dataclass(frozen=True, eq=False)
class ScanDictionary:
    """Folded whole-word terms -> hit kind, and digit strings (phones, SSNs, numeric IDs)
    -> hit kind. ``skipped`` counts values too short to look for safely."""

    terms: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    digits: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    skipped: int = 0
    #: Sorted hashes of (person key, name word): whose own name each word is.
    owners: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    #: Folded name words of the user's word list: high confidence in every note.
    pinned: frozenset[str] = frozenset()

    def owns(self, persons: list[str], words: list[str]) -> np.ndarray:
        """Per pair: is ``words[i]`` (folded) a word of person ``persons[i]``'s own name?"""
        if self.owners.size == 0 or not words:
            return np.zeros(len(words), dtype=bool)
        h = owner_hashes(persons, words)
        at = np.minimum(np.searchsorted(self.owners, h), self.owners.size - 1)
        return self.owners[at] == h

    def __len__(self) -> int:
        return len(self.terms) + len(self.digits)

    def counts(self) -> dict[str, int]:
        """Entries per kind (no values)."""
        out: dict[str, int] = {}
        for kind in (*self.terms.values(), *self.digits.values()):
            out[kind] = out.get(kind, 0) + 1
        return dict(sorted(out.items()))

    @cached_property
    def digit_lengths(self) -> np.ndarray:
        """The distinct lengths of the digit entries."""
        return np.unique(np.fromiter(map(len, self.digits), dtype=np.int64, count=len(self.digits)))

    @cached_property
    def digit_table(self) -> tuple[np.ndarray, np.ndarray, dict[str, str]]:
        """The digit entries as numbers, for looking many up at once: the sorted keys
        ``10 ** n + value`` of the entries of n <= 18 ASCII digits and each one's rule
        code, and the longer entries (a Python dict). Entries with other digits than
        0-9 are left out: the digit patterns match ASCII digits only."""
        short = [k for k in self.digits if len(k) <= _MAX_DIGITS and k.isascii() and k.isdigit()]
        longer = {k: v for k, v in self.digits.items() if len(k) > _MAX_DIGITS}
        raw = np.array(short, dtype=f"S{_MAX_DIGITS}").view(np.uint8)
        chars = raw.reshape(len(short), _MAX_DIGITS).astype(np.int64)
        keys = np.ones(len(short), dtype=np.int64)  # the leading 1 of 10 ** n
        for k in range(_MAX_DIGITS):  # padding bytes (0) end each key
            inside = chars[:, k] > 0
            keys[inside] = keys[inside] * 10 + chars[inside, k] - 48
        codes = {kind: dict_code(kind) for kind in set(self.digits.values())}
        code = np.fromiter((codes[self.digits[k]] for k in short), np.int64, len(short))
        order = np.argsort(keys)
        return keys[order], code[order], longer

    @cached_property
    def matcher(self) -> WordMatcher:
        """The Aho-Corasick matcher of the terms, cue words and month words (built once)."""
        with gc_paused():
            return WordMatcher.build(self.terms)


@dataclass(frozen=True, eq=False)
class WordMatcher:
    """Whole-word matching of " term " (folded and space-padded, so every match is a
    whole word). ASCII words are found by the word index (``regions``); the automaton
    ``other`` holds only the words with other characters (None when there are none), so
    a dictionary of millions of names is never one automaton built in a single call.
    The value of a word is its number ``i``: ``lengths[i]`` is the padded length,
    ``codes[i]`` the rule code of a plain dictionary term, or -1 for a word that needs a
    look at its context (cue, month and URL words), whose entries are ``special[i]``."""

    words: tuple[str, ...]
    other: ahocorasick.Automaton | None
    lengths: np.ndarray
    codes: np.ndarray
    special: dict[int, tuple[tuple[str, str], ...]]
    index: WordIndex

    @classmethod
    def build(cls, terms: Mapping[str, str]) -> WordMatcher:
        # the context words (few) with every entry; the terms (millions) only as arrays
        context: dict[str, list[tuple[str, str]]] = {}
        for word in CUE_WORDS:
            context.setdefault(word, []).append(("NAME", f"cue:{word}"))
        for word in MONTH_WORDS:
            context.setdefault(word, []).append(("DATE", "month"))
        for word in URL_WORDS:  # where a URL may start; the kind says which word
            context.setdefault(word, []).append((word, URL_START))
        words = (*terms, *(w for w in context if w not in terms))
        lengths = map_array(len, words, np.int64) + 2
        kinds = sorted(set(terms.values()))
        code_of = np.array([dict_code(k) for k in kinds] + [-1], dtype=np.int64)
        kind_no = {k: n for n, k in enumerate(kinds)}
        number = map_array(kind_no.__getitem__, list(terms.values()), np.int64)
        codes = code_of[np.concatenate((number, np.full(len(words) - len(terms), -1)))]
        special: dict[int, tuple[tuple[str, str], ...]] = {}
        for i in range(len(terms), len(words)):
            special[i] = tuple(context[words[i]])
        # a term that is also a context word (few): both entries; found from the context
        # words, in the order of the terms, never by a pass over millions of terms
        both = sorted(words.index(word) for word in context if word in terms)
        for i in both:
            kind = terms[words[i]]
            special[i] = ((kind, f"dictionary:{kind.lower()}"), *context[words[i]])
            codes[i] = -1
        other = None
        if not _all_ascii(words):
            at = np.flatnonzero(~map_array(str.isascii, words, np.bool_))
            other = _automaton((i, words[i]) for i in at.tolist())
        return cls(words, other, lengths, codes, special, WordIndex.build(words))

    @cached_property
    def automaton(self) -> ahocorasick.Automaton:
        """One automaton of every word: what the index and ``other`` together find, in
        the same order (the reference of the tests; the scan does not build it)."""
        full = _automaton(enumerate(self.words))
        assert full is not None  # the cue, month and URL words are always there
        return full


def _all_ascii(words: Sequence[str]) -> bool:
    """Are all the words ASCII (one C-level join and test a chunk at a time)?"""
    return all("".join(words[at : at + CHUNK]).isascii() for at in range(0, len(words), CHUNK))


def _automaton(words: Iterable[tuple[int, str]]) -> ahocorasick.Automaton | None:
    auto = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for i, word in words:
        auto.add_word(f" {word} ", i)
    if len(auto) == 0:
        return None
    auto.make_automaton()
    return auto


def _name_tokens(folded: str) -> list[str]:
    return [
        t for t in folded.split() if len(t) >= _MIN_NAME and not t.isdigit() and t not in _NAME_STOP
    ]


def build_dictionary_from_values(
    values_by_kind: Mapping[str, Iterable[object]],
    owners: Iterable[tuple[object, object]] = (),
) -> ScanDictionary:
    """A dictionary from ``{kind: values}``; kinds: name, mrn, phone, email, ssn, id, site
    (the user's own hospital, unit and ward names, found as LOCATION).

    Names become their whole words (initials and titles dropped); phones and SSNs their
    digits; e-mails, MRNs, IDs and sites their whole folded value. Missing values are
    ignored; values too short to look for without flooding the notes are counted in
    ``skipped``. ``owners``: (person key, name) pairs, so that a person's own name in
    that person's notes is told from another person's (``ScanDictionary.owns``)."""
    unknown = [k for k in values_by_kind if k not in DICT_KINDS]
    if unknown:
        raise UsageError(
            f"Unknown dictionary kind(s): {', '.join(sorted(unknown))}.",
            hint="Use name, mrn, phone, email, ssn or id.",
        )
    with gc_paused():
        out = _from_values(values_by_kind)
        persons: list[str] = []
        names: list[object] = []
        for person, name in owners:
            if person is not None:
                persons.append(str(person))
                names.append(name)
        own = _owner_table(persons, names)
    if own.size == 0:
        return out
    return ScanDictionary(out.terms, out.digits, out.skipped, own)


def _owner_table(persons: Sequence[str], names: Sequence[object]) -> np.ndarray:
    """Sorted distinct ``owner_hashes`` of each person with each word of their name: the
    distinct names are cut into words once, each person key and each distinct word is
    hashed once, and the pairs are combined from those hashes (as ``owner_hashes`` does,
    value by value)."""
    if not len(names):
        return np.empty(0, dtype=np.int64)
    codes, uniques = pd.factorize(pd.Series(names, dtype=object), use_na_sentinel=True)
    return owner_codes(
        codes,
        uniques,
        lambda pair: hash_array(np.asarray(persons, dtype=object)[pair], categorize=False),
    )


def owner_codes(
    codes: np.ndarray, uniques: Sequence[object], person_hashes: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """``_owner_table`` of pairs whose names are given as ``codes`` into ``uniques`` (-1:
    missing), and ``person_hashes(positions)``: the hashes of those pairs' persons."""
    per_name = [_name_tokens(fold(n)) if isinstance(n, str) else [] for n in uniques]
    count = np.fromiter(map(len, per_name), dtype=np.int64, count=len(per_name))
    first = np.concatenate(([0], np.cumsum(count)[:-1])) if count.size else count
    flat = [t for tokens in per_name for t in tokens]
    if not flat:
        return np.empty(0, dtype=np.int64)
    valid = codes >= 0
    pair = np.flatnonzero(valid)
    n = count[codes[pair]]
    rows = np.repeat(pair, n)
    j = np.arange(rows.size) - np.repeat(np.cumsum(n) - n, n)
    token = first[codes[rows]] + j
    if rows.size == 0:
        return np.empty(0, dtype=np.int64)
    # hash_array of an object array is elementwise: hash each person and word once
    hp = person_hashes(pair)
    hw = hash_array(np.asarray(flat, dtype=object))
    with np.errstate(over="ignore"):
        h = ((np.repeat(hp, n) * _H1) ^ hw[token]).view(np.int64)
    h = np.sort(h)
    return h[np.concatenate(([True], h[1:] != h[:-1]))]


def _present(values: Iterable[object]) -> list[str]:
    """The values as stripped text, missing and blank ones left out, in order."""
    out = [
        str(raw).strip()
        for raw in values
        if not (raw is None or raw is pd.NA or (isinstance(raw, float) and raw != raw))
    ]
    return [v for v in out if v]


def _fold_all(values: list[str]) -> list[str]:
    """``fold`` of each value, in one pass over the values joined (fold keeps lengths)."""
    if not values:
        return []
    joined = fold("\n".join(values))
    length = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    starts = np.cumsum(length + 1) - (length + 1)
    return [joined[a:b] for a, b in zip(starts.tolist(), (starts + length).tolist(), strict=True)]


def _from_values(values_by_kind: Mapping[str, Iterable[object]]) -> ScanDictionary:
    """Whole values, deduplicated, folded in one pass per kind, and entered with C-level
    dict passes (the first kind given for a term wins)."""
    return _from_distinct(
        {kind: list(dict.fromkeys(_present(values))) for kind, values in values_by_kind.items()}
    )


def _from_distinct(values_by_kind: Mapping[str, list[str] | pa.Array]) -> ScanDictionary:
    """``_from_values`` of distinct, stripped, non-blank values per kind (a list, or an
    Arrow string array whose ASCII values are folded by Arrow). ``skipped`` counts the
    distinct values too short to look for."""
    terms: dict[str, str] = {}
    digits: dict[str, str] = {}
    skipped = 0
    for kind, values in values_by_kind.items():
        hit_kind = DICT_KINDS[kind]
        if kind == "name":
            names = values.to_pylist() if isinstance(values, pa.Array) else values
            for tokens in map(_name_tokens, _fold_all(names)):
                skipped += not tokens
                _enter(terms, tokens, hit_kind)
        elif kind in ("phone", "ssn"):
            found = _digits_of(values, kind)
            skipped += len(found)
            found = [d for d in found if len(d) >= _MIN_PHONE]
            skipped -= len(found)
            _enter(digits, found, hit_kind)
        elif isinstance(values, pa.Array):  # filtered in Arrow: a Python string per entry
            folded = _folded_arrow(values)
            long = pc.greater_equal(pc.utf8_length(folded), _MIN_ID)
            kept = folded.filter(long).to_pylist()
            skipped += len(folded) - len(kept)
            _enter(terms, kept, hit_kind)
            _enter(digits, values.filter(pc.and_(long, _is_digit(values))).to_pylist(), hit_kind)
        else:
            texts, folded_list = _folded(values)
            kept = [f for f in folded_list if len(f) >= _MIN_ID]
            skipped += len(folded_list) - len(kept)
            _enter(terms, kept, hit_kind)
            numbers = [
                v
                for v, f in zip(texts, folded_list, strict=True)
                if len(f) >= _MIN_ID and v.isdigit()
            ]
            _enter(digits, numbers, hit_kind)
    return ScanDictionary(MappingProxyType(terms), MappingProxyType(digits), skipped)


def _split_ascii(values: pa.Array) -> tuple[np.ndarray, pa.Array, list[str]]:
    """Which values are ASCII, those values (Arrow), and the others (Python)."""
    ascii_mask = pc.string_is_ascii(values).to_numpy(zero_copy_only=False)
    others = pc.filter(values, pa.array(~ascii_mask)).to_pylist()
    return ascii_mask, pc.filter(values, pa.array(ascii_mask)), others


def _merge(ascii_mask: np.ndarray, ascii_part: list[str], others: list[str]) -> list[str]:
    """The two parts back in the order of the values."""
    if not others:
        return ascii_part
    out = np.empty(ascii_mask.size, dtype=object)
    out[ascii_mask] = ascii_part
    out[~ascii_mask] = others
    return out.tolist()


def _folded(values: list[str] | pa.Array) -> tuple[list[str], list[str]]:
    """The values and each one folded and stripped (``fold(v).strip()``)."""
    if not isinstance(values, pa.Array):
        return values, [f.strip() for f in _fold_all(values)]
    ascii_mask, plain, others = _split_ascii(values)
    # ASCII: lower case, every character but a letter or digit a space, spaces stripped
    folded = pc.replace_substring_regex(pc.utf8_lower(plain), "[^a-z0-9]", " ")
    folded = pc.utf8_trim(folded, " ")
    return values.to_pylist(), _merge(
        ascii_mask, folded.to_pylist(), [f.strip() for f in _fold_all(others)]
    )


#: ``fold.fold`` of each ASCII byte (``fold._ASCII_TABLE``).
_FOLD_BYTES = bytes(
    (c + 32 if 65 <= c <= 90 else c) if chr(c).isalnum() else 32 for c in range(128)
) + bytes(range(128, 256))


def _folded_arrow(values: pa.Array) -> pa.Array:
    """``fold(v).strip()`` of each value, in order (Arrow): ASCII values folded by one
    translation of their bytes, the others by ``fold``."""
    values = values.cast(pa.large_string())
    ascii_mask = pc.string_is_ascii(values).to_numpy(zero_copy_only=False)
    plain = values if ascii_mask.all() else values.filter(pa.array(ascii_mask))
    n = len(plain)
    bufs = plain.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[plain.offset : plain.offset + n + 1]
    lo, hi = (int(offsets[0]), int(offsets[-1])) if n else (0, 0)
    data = b"" if bufs[2] is None else bufs[2].to_pybytes()[lo:hi]
    folded = pa.LargeStringArray.from_buffers(
        n, pa.py_buffer((offsets - lo).tobytes()), pa.py_buffer(data.translate(_FOLD_BYTES))
    )
    folded = pc.utf8_trim(folded, " ")
    if ascii_mask.all():
        return folded
    others = values.filter(pa.array(~ascii_mask)).to_pylist()
    rest = pa.array([f.strip() for f in _fold_all(others)], type=pa.large_string())
    order = np.concatenate((np.flatnonzero(ascii_mask), np.flatnonzero(~ascii_mask)))
    return pa.concat_arrays([folded, rest]).take(pa.array(np.argsort(order, kind="stable")))


def _is_digit(values: pa.Array) -> pa.Array:
    """``str.isdigit`` of each value (Arrow's test for ASCII values, Python's else)."""
    out = pc.ascii_is_decimal(values).to_numpy(zero_copy_only=False).copy()
    other = np.flatnonzero(~pc.string_is_ascii(values).to_numpy(zero_copy_only=False))
    if other.size:
        out[other] = [v.isdigit() for v in values.take(pa.array(other)).to_pylist()]
    return pa.array(out)


def _digits_of(values: list[str] | pa.Array, kind: str) -> list[str]:
    """The digits of each phone number (a leading 1 of 11 dropped) or SSN."""
    one = phone_digits if kind == "phone" else (lambda v: _NON_DIGIT.sub("", v))
    if not isinstance(values, pa.Array):
        return list(map(one, values))
    ascii_mask, plain, others = _split_ascii(values)
    found = pc.replace_substring_regex(plain, "[^0-9]+", "")
    if kind == "phone":
        lead = pc.and_(pc.equal(pc.utf8_length(found), 11), pc.starts_with(found, "1"))
        found = pc.if_else(lead, pc.utf8_slice_codeunits(found, 1), found)
    return _merge(ascii_mask, found.to_pylist(), list(map(one, others)))


#: What ``str.strip`` removes: every character that ``str.isspace`` holds.
_SPACES = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
    "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _distinct_text(columns: list[pd.Series]) -> pa.Array:
    """The distinct stripped, non-blank values of the columns, in order (Arrow)."""
    chunks: list[pa.Array] = []
    for column in columns:
        arrow = pa.array(column.astype("string[pyarrow]"), type=pa.large_string())
        chunks += arrow.chunks if isinstance(arrow, pa.ChunkedArray) else [arrow]
    values = pa.chunked_array(chunks, type=pa.large_string())
    if len(columns) > 1:  # a person key in every table: trim each distinct value once
        values = pc.unique(values)  # (each trimmed value keeps its first place)
    text = pc.utf8_trim(values, _SPACES)
    text = pc.filter(text, pc.greater(pc.utf8_length(text), 0))
    return pc.unique(text)


def _enter(table: dict[str, str], keys: Iterable[str], kind: str) -> None:
    """``table.setdefault(key, kind)`` for every key, in one C-level pass."""
    for _ in map(table.setdefault, keys, repeat(kind)):
        pass


def dictionary_kind(tag_category: IdentifierCategory | None) -> str:
    """The dictionary kind of a direct column from its identifier category."""
    return CATEGORY_KINDS.get(tag_category, "id") if tag_category is not None else "id"


def build_dictionary(
    extract: Extract,
    project: Project,
    sites: Iterable[str] = (),
    words: Mapping[str, Sequence[str]] | None = None,
) -> ScanDictionary:
    """A dictionary from every direct-tagged column of every table of the extract, the
    user's ``sites`` and the project word list's ``words`` (dictionary kind -> terms, see
    ``wordlist.WordList.by_dictionary_kind``). Name columns also record whose name each
    word is (by the table's person key); a word list name is nobody's own but is found
    with high confidence in every note (``pinned``)."""
    source = dictionary_source(extract, project, sites, words)
    persons: list[str] = []
    names: list[object] = []
    for pairs in source.name_pairs:  # every pair: the owner table keeps each hash once
        persons += pairs.iloc[:, 0].astype(str).tolist()
        names += pairs.iloc[:, 1].tolist()
    with gc_paused():
        out = dictionary_from_columns(source.columns)
        own = _owner_table(persons, names)
    return source.finish(out, own)


@dataclass(frozen=True, eq=False)
class DictionarySource:
    """What a project's dictionary is made of: the columns of each dictionary kind (in
    the order they are entered), the (person key, name) frames of the name columns, and
    the word list's folded name words (``pinned``)."""

    columns: dict[str, list[pd.Series]]
    name_pairs: list[pd.DataFrame]
    pinned: frozenset[str]
    #: The table of each of ``name_pairs`` (its rows' index labels are row positions).
    name_tables: tuple[str, ...] = ()

    def finish(self, out: ScanDictionary, own: np.ndarray) -> ScanDictionary:
        """``out`` with the owner table ``own`` and the pinned words."""
        if not own.size and not self.pinned:
            return out
        return ScanDictionary(out.terms, out.digits, out.skipped, own, self.pinned)


def direct_columns(
    extract: Extract, project: Project, leave_out: Callable[[str, str], bool] | None = None
) -> Iterator[tuple[TableSpec, str, str]]:
    """(table spec, column, dictionary kind) of every direct column of the extract, in
    the project's order, but those ``leave_out(table, column)`` leaves out; an event
    table's key is left out when the person table's key went to the same kind and each
    event key value is a person key (``facts.shared.event_keys_linked``): it adds no
    value, only millions of rows to hash again."""
    person_kind = None  # the kind the person table's key went to, if it did
    linked = cache(lambda: event_keys_linked(extract, project))
    for spec in project.tables:
        try:
            frame = extract.table(spec.name).frame
        except KeyError:
            continue
        is_person = spec.name == extract.person.name
        for tag in spec.by_class(ColumnClass.DIRECT):
            if tag.name not in frame.columns or (leave_out and leave_out(spec.name, tag.name)):
                continue
            kind = dictionary_kind(tag.category)
            if is_person and tag.name == spec.key:
                person_kind = kind
            elif tag.name == spec.key and kind == person_kind and linked():
                continue
            yield spec, tag.name, kind


def dictionary_source(
    extract: Extract,
    project: Project,
    sites: Iterable[str] = (),
    words: Mapping[str, Sequence[str]] | None = None,
) -> DictionarySource:
    """The columns ``build_dictionary`` makes its dictionary of."""
    columns: dict[str, list[pd.Series]] = {}
    name_pairs: list[pd.DataFrame] = []
    name_tables: list[str] = []
    for spec, column, kind in direct_columns(extract, project):
        frame = extract.table(spec.name).frame
        columns.setdefault(kind, []).append(frame[column].dropna())
        if kind == "name" and spec.key in frame.columns and spec.key != column:
            name_pairs.append(frame[[spec.key, column]].dropna())
            name_tables.append(spec.name)
    sites = list(sites)
    if sites:
        columns.setdefault("site", []).append(pd.Series(sites, dtype=object))
    for kind, terms in (words or {}).items():
        if terms:
            columns.setdefault(kind, []).append(pd.Series(list(terms), dtype=object))
    pinned = frozenset(
        w
        for tokens in map(_name_tokens, _fold_all(list((words or {}).get("name", ()))))
        for w in tokens
    )
    return DictionarySource(columns, name_pairs, pinned, tuple(name_tables))


def dictionary_from_columns(columns_by_kind: Mapping[str, list[pd.Series]]) -> ScanDictionary:
    """``build_dictionary_from_values`` of whole columns (no owners): their distinct
    values taken with Arrow, so that no Python object is made per row."""
    unknown = [k for k in columns_by_kind if k not in DICT_KINDS]
    if unknown:
        raise UsageError(
            f"Unknown dictionary kind(s): {', '.join(sorted(unknown))}.",
            hint="Use name, mrn, phone, email, ssn or id.",
        )
    with gc_paused():
        return _from_distinct({k: _distinct_text(cols) for k, cols in columns_by_kind.items()})
