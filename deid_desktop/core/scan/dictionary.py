"""The scan dictionary: identifier values taken from the extract's own direct columns.

``build_dictionary_from_values`` takes ``{kind: values}`` and knows nothing of projects;
``build_dictionary`` collects the direct-tagged columns of a project's extract by their
identifier category. Entries are stored folded (lower case, no accents), never logged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

import ahocorasick
import numpy as np
import pandas as pd

from deid_desktop.core.constants import DICT_KINDS
from deid_desktop.core.errors import UsageError
from deid_desktop.core.gc_pause import gc_paused, map_array
from deid_desktop.core.model import ColumnClass, Extract, IdentifierCategory, Project
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
_NON_DIGIT = re.compile(r"\D+")


def owner_hash(person: object, word: str) -> int:
    """A hash of (person key, folded name word), for ``ScanDictionary.owners``."""
    return hash((str(person), word))


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

    def owns(self, persons: list[str], words: list[str]) -> np.ndarray:
        """Per pair: is ``words[i]`` (folded) a word of person ``persons[i]``'s own name?"""
        if self.owners.size == 0 or not words:
            return np.zeros(len(words), dtype=bool)
        h = np.fromiter(map(owner_hash, persons, words), dtype=np.int64, count=len(words))
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
        for i, word in enumerate(terms):
            if word in context:  # a term that is also a context word: both entries
                kind = terms[word]
                special[i] = ((kind, f"dictionary:{kind.lower()}"), *context[word])
                codes[i] = -1
        other = _automaton((i, w) for i, w in enumerate(words) if not w.isascii())
        return cls(words, other, lengths, codes, special, WordIndex.build(words))

    @cached_property
    def automaton(self) -> ahocorasick.Automaton:
        """One automaton of every word: what the index and ``other`` together find, in
        the same order (the reference of the tests; the scan does not build it)."""
        full = _automaton(enumerate(self.words))
        assert full is not None  # the cue, month and URL words are always there
        return full


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
        pairs = {
            owner_hash(person, t)
            for person, name in owners
            if person is not None and isinstance(name, str)
            for t in _name_tokens(fold(name))
        }
    if not pairs:
        return out
    own = np.sort(np.fromiter(pairs, dtype=np.int64, count=len(pairs)))
    return ScanDictionary(out.terms, out.digits, out.skipped, own)


def _from_values(values_by_kind: Mapping[str, Iterable[object]]) -> ScanDictionary:
    terms: dict[str, str] = {}
    digits: dict[str, str] = {}
    skipped = 0
    for kind, values in values_by_kind.items():
        hit_kind = DICT_KINDS[kind]
        for raw in values:
            if raw is None or raw is pd.NA or (isinstance(raw, float) and raw != raw):
                continue
            value = str(raw).strip()
            if not value:
                continue
            if kind == "name":
                tokens = _name_tokens(fold(value))
                skipped += not tokens
                for t in tokens:
                    terms.setdefault(t, hit_kind)
            elif kind in ("phone", "ssn"):
                d = phone_digits(value) if kind == "phone" else _NON_DIGIT.sub("", value)
                if len(d) >= 7:
                    digits.setdefault(d, hit_kind)
                else:
                    skipped += 1
            else:
                folded = fold(value).strip()
                if len(folded) < _MIN_ID:
                    skipped += 1
                    continue
                terms.setdefault(folded, hit_kind)
                if value.isdigit():
                    digits.setdefault(value, hit_kind)
    return ScanDictionary(MappingProxyType(terms), MappingProxyType(digits), skipped)


def dictionary_kind(tag_category: IdentifierCategory | None) -> str:
    """The dictionary kind of a direct column from its identifier category."""
    return CATEGORY_KINDS.get(tag_category, "id") if tag_category is not None else "id"


def build_dictionary(
    extract: Extract, project: Project, sites: Iterable[str] = ()
) -> ScanDictionary:
    """A dictionary from every direct-tagged column of every table of the extract, and
    the user's ``sites`` (see ``sites.load_site_list``). Name columns also record whose
    name each word is (by the table's person key)."""
    values: dict[str, list[pd.Series]] = {}
    owners: list[pd.DataFrame] = []
    for spec in project.tables:
        try:
            frame = extract.table(spec.name).frame
        except KeyError:
            continue
        for tag in spec.by_class(ColumnClass.DIRECT):
            if tag.name not in frame.columns:
                continue
            column = frame[tag.name].dropna()
            kind = dictionary_kind(tag.category)
            values.setdefault(kind, []).append(column.unique())
            if kind == "name" and spec.key in frame.columns and spec.key != tag.name:
                owners.append(frame[[spec.key, tag.name]].dropna().drop_duplicates())
    sites = list(sites)
    if sites:
        values.setdefault("site", []).append(np.asarray(sites, dtype=object))
    pairs = (
        (p, n)
        for part in owners
        for p, n in zip(part.iloc[:, 0].astype(str).tolist(), part.iloc[:, 1].tolist(), strict=True)
    )
    return build_dictionary_from_values(
        {kind: (v for chunk in chunks for v in chunk) for kind, chunks in values.items()},
        pairs,
    )
