"""The scan dictionary of a project, cut to the notes a scan reads.

``build_dictionary`` enters every direct value of the extract (at a million persons some
millions of entries, each a Python string, and a word index over them), while the
notes hold a few hundred of them. ``notes_dictionary`` makes the dictionary of only the
values that may be found in the notes (``candidates``, as the read-back of a release
does with ``DirectValues``): the scan finds exactly what it finds with the whole
dictionary. Only name values whose words stand in the notes get owner entries (a hit
word is a word of the notes, so each pair that can decide a hit's owner is kept), and
one more pair when none does, since a scan is person-aware only with some.

``NotesValues.entry_count`` counts the entries of the whole dictionary without making it
(Arrow, no Python string per value): the record states that count, as before. Each
kind's values are read once for both: hashed to distinct values first when they repeat
(a name in two columns, a phone shared by many), else left as they are (a key, an MRN:
at a million values hashing them costs more than the filter of the notes' candidates
over all of them, and the few values it keeps are made distinct then).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pandas.util import hash_array

from deid_desktop.core.facts.shared import event_keys_linked, facts_for
from deid_desktop.core.facts.text import trim, value_bytes
from deid_desktop.core.gc_pause import gc_paused
from deid_desktop.core.model import Extract, Project
from deid_desktop.core.scan.candidates import TextCandidates, may_occur
from deid_desktop.core.scan.dictionary import (
    _MIN_ID,
    _MIN_NAME,
    _MIN_PHONE,
    _NAME_STOP,
    _SPACES,
    DictionarySource,
    ScanDictionary,
    _digits_of,
    _distinct_text,
    _folded_arrow,
    _from_distinct,
    _is_digit,
    _owner_table,
    owner_codes,
)
from deid_desktop.core.scan.direct_values import _DIGIT_KINDS

_STOP = pa.array(sorted(_NAME_STOP), type=pa.large_string())
#: How many first values of a column tell whether its values repeat (``_kind_values``).
_SAMPLE = 4096
#: ``np.uint64`` masks of a value's first 0 to 8 bytes; a mixing multiplier.
_MASK = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)


class NotesValues:
    """The stripped values of each kind of a ``DictionarySource`` (read once), for
    ``dictionary_for`` and ``entry_count``: distinct ones, but for the kinds in
    ``repeated`` (``_kind_values``)."""

    def __init__(
        self,
        source: DictionarySource,
        persons: pa.Array | None = None,
        noted: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        """``persons``: the person keys (as text) of every note to be scanned, if known:
        only their owner entries can decide a hit (``ScanDictionary.owns``). ``noted``:
        the same told by row (``noted_rows``), which spares hashing every name's key."""
        self.source = source
        self.persons = persons
        self.noted = noted
        self.values: dict[str, pa.Array] = {}
        self.repeated: set[str] = set()  # kinds whose values may repeat
        for kind, cols in source.columns.items():
            self.values[kind], distinct = _kind_values(cols)
            if not distinct:
                self.repeated.add(kind)

    def dictionary_for(self, calls: Sequence[Sequence[str]]) -> ScanDictionary:
        """The dictionary of the values that may be found in the texts of ``calls``
        (each: the texts one ``scan_text_arrays`` call is given), with the owner entries
        of the name values kept."""
        with gc_paused():
            found = TextCandidates(calls)
            kept: dict[str, pa.Array] = {}
            for kind, values in self.values.items():
                keep = may_occur(values, found, words=kind == "name", phone=kind in _DIGIT_KINDS)
                kept[kind] = values if keep.all() else values.filter(pa.array(keep))
                if kind in self.repeated:  # in order of first place, as ``_distinct_text``
                    kept[kind] = pc.unique(kept[kind])
            out = _from_distinct(kept)
            own = self._owners(kept.get("name"))
        return self.source.finish(out, own)

    def _owners(self, names: pa.Array | None) -> np.ndarray:
        """The owner table of the (person, name) pairs whose name is one of ``names``."""
        pairs_of = self.source.name_pairs
        if names is None or not len(names) or not pairs_of:
            return _first_owner(pairs_of)
        if not all(isinstance(p.iloc[:, 1].dtype, pd.StringDtype) for p in pairs_of):
            return self._owners_listed(names)
        # names as Arrow codes, each person's key hashed once for all its names
        found: list[pa.Array] = []
        hashed: list[np.ndarray] = []
        tables = self.source.name_tables
        last: tuple[str, np.ndarray, np.ndarray] | None = None  # (table, rows, hashes)
        for at, pairs in enumerate(pairs_of):
            text, keep = self._kept(at, pairs, names)
            rows = pairs.index.to_numpy()[keep]
            table = tables[at] if at < len(tables) else None
            # the same rows of the same table (its next name column): the same persons
            if (
                last is None
                or table is None
                or last[0] != table
                or not np.array_equal(last[1], rows)
            ):
                keys = pairs.iloc[:, 0][keep].astype(str).to_numpy(dtype=object)
                last = (table or "", rows, hash_array(keys, categorize=False))
            found.append(text.filter(pa.array(keep)))
            hashed.append(last[2])
        encoded = pc.dictionary_encode(pa.concat_arrays(found))
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        persons = np.concatenate(hashed)
        own = owner_codes(codes, encoded.dictionary.to_pylist(), lambda pair: persons[pair])
        return own if own.size else _first_owner(pairs_of)

    def _kept(self, at: int, pairs: pd.DataFrame, names: pa.Array) -> tuple[pa.Array, np.ndarray]:
        """The names of ``pairs`` (the ``at``-th) as Arrow text, and which pairs are kept:
        their name is among ``names``, their person has a note (by row, else by key)."""
        text = pa.array(pairs.iloc[:, 1].astype("string[pyarrow]"), type=pa.large_string())
        if isinstance(text, pa.ChunkedArray):
            text = text.combine_chunks()
        keep = np.asarray(
            pc.is_in(trim(text, _SPACES), value_set=names).to_numpy(zero_copy_only=False),
            dtype=bool,
        )
        tables = self.source.name_tables
        noted = self.noted.get(tables[at]) if self.noted and at < len(tables) else None
        if noted is not None:  # the rows whose person has a note, by position
            keep &= noted[pairs.index.to_numpy()]
        elif self.persons is not None:
            at_keep = np.flatnonzero(keep)
            keys = pairs.iloc[at_keep, 0].astype(str)
            mine = pc.is_in(pa.array(keys, type=pa.large_string()), value_set=self.persons)
            keep[at_keep] = np.asarray(mine.to_numpy(zero_copy_only=False), dtype=bool)
        return text, keep

    def _owners_listed(self, names: pa.Array) -> np.ndarray:
        """``_owners`` of names that are not all text (each pair as Python values)."""
        persons: list[str] = []
        found: list[object] = []
        for at, pairs in enumerate(self.source.name_pairs):
            _text, keep = self._kept(at, pairs, names)
            kept = pairs[keep]
            persons += kept.iloc[:, 0].astype(str).tolist()  # each key made text once
            found += kept.iloc[:, 1].tolist()
        own = _owner_table(persons, found)
        if own.size == 0:  # the whole table may still hold some: keep one of its entries
            own = _first_owner(self.source.name_pairs)
        return own

    def entry_count(self) -> int:
        """``len(dictionary_from_columns(source.columns))``, counted without making the
        dictionary: the distinct terms and the distinct digit strings of every kind."""
        terms: list[pa.Array] = []
        digits: list[pa.Array] = []
        for kind, values in self.values.items():
            if len(values) == 0:
                continue
            if kind == "name":
                terms.append(_name_words(values))
            elif kind in _DIGIT_KINDS:
                found = pa.array(_digits_of(values, kind), type=pa.large_string())
                digits.append(found.filter(pc.greater_equal(pc.utf8_length(found), _MIN_PHONE)))
            else:
                folded = _folded_arrow(values)
                long = pc.greater_equal(pc.utf8_length(folded), _MIN_ID)
                terms.append(folded.filter(long))
                digits.append(values.filter(pc.and_(long, _is_digit(values))))
        return _distinct_count(terms) + _distinct_count(digits)


def _kind_values(columns: list[pd.Series]) -> tuple[pa.Array, bool]:
    """The stripped, non-blank values of a kind's columns in order, and whether they are
    made distinct (``_distinct_text``): they are unless the kind is one column whose
    first ``_SAMPLE`` values do not repeat (IDs), which are left as they are."""
    if len(columns) != 1:
        return _distinct_text(columns), True
    arrow = pa.array(columns[0].astype("string[pyarrow]"), type=pa.large_string())
    if isinstance(arrow, pa.ChunkedArray):
        arrow = arrow.combine_chunks()
    text = trim(arrow, _SPACES)
    text = text.filter(pc.greater(pc.utf8_length(text), 0))
    sample = text.slice(0, _SAMPLE)
    if 2 * len(pc.unique(sample)) <= len(sample):
        return pc.unique(text), True
    return text, False


def _first_owner(name_pairs: list[pd.DataFrame], step: int = 4096) -> np.ndarray:
    """The owner entries of the first pairs that make any: a scan is person-aware only
    when the owner table is not empty, so it must be empty only when the whole one is
    (an entry of no word of the notes decides no hit)."""
    for pairs in name_pairs:
        for at in range(0, len(pairs), step):
            part = pairs.iloc[at : at + step]
            own = _owner_table(part.iloc[:, 0].astype(str).tolist(), part.iloc[:, 1].tolist())
            if own.size:
                return own
    return np.empty(0, dtype=np.int64)


def notes_dictionary(source: DictionarySource, calls: Sequence[Sequence[str]]) -> ScanDictionary:
    """``NotesValues(source).dictionary_for(calls)``."""
    return NotesValues(source).dictionary_for(calls)


def entry_count(columns: Mapping[str, list[pd.Series]]) -> int:
    """``len(dictionary_from_columns(columns))``, counted without making it."""
    return NotesValues(DictionarySource(dict(columns), [], frozenset())).entry_count()


def _name_words(values: pa.Array) -> pa.Array:
    """The entries of names: each folded word of at least ``_MIN_NAME`` characters, not
    all digits, no title (``dictionary._name_tokens``)."""
    words = pc.list_flatten(pc.split_pattern(_folded_arrow(values), " "))
    words = words.filter(pc.greater_equal(pc.utf8_length(words), _MIN_NAME))
    if len(words) == 0:
        return words
    keep = pc.and_(pc.invert(_is_digit(words)), pc.invert(pc.is_in(words, value_set=_STOP)))
    return words.filter(keep)


def _distinct_count(parts: list[pa.Array]) -> int:
    """``len(pc.unique(...))`` of the values of ``parts`` together (no nulls). Values of
    different lengths differ, so each length is counted apart: a value of up to 8 bytes
    (most IDs) read as one 64-bit number, the numbers sorted (unless they are in order
    already); longer ones hashed from
    their bytes, and counted as many as they are when no two hashes are equal (equal
    values hash equal), else hashed by Arrow."""
    parts = [p.cast(pa.large_string()) for p in parts if len(p)]
    if not parts:
        return 0
    values = pa.concat_arrays(parts)
    found = value_bytes(values)
    assert found is not None
    data, starts, ends = found
    lengths = ends - starts
    padded = np.concatenate((data, np.zeros(8, dtype=np.uint8)))
    view = np.ndarray(shape=(data.size + 1,), dtype="<u8", buffer=padded.data, strides=(1,))
    total = 0
    for size in np.flatnonzero(np.bincount(lengths)).tolist():
        at = np.flatnonzero(lengths == size)
        first = view[starts[at]] & _MASK[min(size, 8)]
        if size <= 8:
            # the first byte most significant: values in order (keys written in order)
            # are numbers in order, and need no sort
            ordered = first.byteswap()
            if not np.all(ordered[1:] >= ordered[:-1]):
                ordered.sort()
            total += _sorted_distinct(ordered)
            continue
        hashed = first
        with np.errstate(over="ignore"):
            for word in range(8, size, 8):
                nxt = view[starts[at] + word] & _MASK[min(size - word, 8)]
                hashed = (hashed ^ (hashed >> np.uint64(29))) * _MIX ^ nxt
        if _sorted_distinct(np.sort(hashed)) == at.size:
            total += at.size
        else:
            total += len(pc.unique(values.take(pa.array(at))))
    return total


def _sorted_distinct(values: np.ndarray) -> int:
    """Number of distinct values of a sorted array."""
    return int(values.size and 1 + np.count_nonzero(values[1:] != values[:-1]))


def note_owners(
    extract: Extract, project: Project, text_columns: Mapping[str, Sequence[str]]
) -> tuple[pa.Array | None, dict[str, np.ndarray] | None]:
    """``NotesValues``' ``persons`` and ``noted`` for the notes of ``text_columns``: the
    rows by position (``noted_rows``) when every table with notes has its person key
    and the positions are known, else the keys (``note_persons``), each made only when
    it is used (``_owners`` reads the keys only without the rows)."""
    for spec in project.tables:
        if spec.name in text_columns and spec.key not in extract.table(spec.name).frame.columns:
            return None, None  # a table without its key: its notes are not person-aware
    noted = noted_rows(extract, project, text_columns)
    if noted is not None:
        return None, noted
    return note_persons(extract, project, text_columns), None


def note_persons(
    extract: Extract, project: Project, text_columns: Mapping[str, Sequence[str]]
) -> pa.Array | None:
    """The distinct person keys (as text, as ``scan_frames`` reads them) of the rows
    with a note in ``text_columns``; None when a table has no person key (its notes are
    not person-aware, so no owner entry is left out)."""
    keys: list[pa.Array | pa.ChunkedArray] = []
    for spec in project.tables:
        if spec.name not in text_columns:
            continue
        frame = extract.table(spec.name).frame
        if spec.key not in frame.columns:
            return None
        written = frame[list(text_columns[spec.name])].notna().any(axis=1)
        persons = frame[spec.key][written.to_numpy()].astype(str)
        keys.append(pa.array(persons, type=pa.large_string()))
    if not keys:
        return None
    return pc.unique(pa.chunked_array(keys, type=pa.large_string()))


def noted_rows(
    extract: Extract, project: Project, text_columns: Mapping[str, Sequence[str]]
) -> dict[str, np.ndarray] | None:
    """Table name -> per row, whether its person has a note in ``text_columns`` (what
    ``note_persons`` tells by key, told by the rows' person positions); None unless
    every event key is a person key and every table is indexed by row position."""
    if not event_keys_linked(extract, project):
        return None
    if not all(isinstance(t.frame.index, pd.RangeIndex) for t in extract.tables):
        return None
    if any(t.frame.index.start != 0 or t.frame.index.step != 1 for t in extract.tables):
        return None
    positions = facts_for(extract, project).positions
    noted = np.zeros(len(extract.person.frame), dtype=bool)
    for spec in project.tables:
        if spec.name in text_columns:
            frame = extract.table(spec.name).frame
            written = frame[list(text_columns[spec.name])].notna().any(axis=1).to_numpy()
            noted[positions[spec.name][written]] = True
    return {name: noted[at] for name, at in positions.items()}
