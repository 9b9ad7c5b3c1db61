"""The extract's direct values, kept as Arrow columns until a scan says which texts it
will read: ``DirectValues.dictionary_for(calls)`` is the scan dictionary of every direct
value (``dictionary.dictionary_from_columns``) restricted to the values that may be
found in those texts (``candidates``), so that the read-back of a release - a few
distinct short cells - never builds a dictionary of the extract's millions of values.

The scan of the texts with the restricted dictionary finds exactly what it finds with
the whole one: an entry is in the restricted dictionary whenever the scanner could
match it in the texts (its words stand in a row there, or its digits do), and the entries
of a kept value are made exactly as the whole dictionary makes them (the same kinds in
the same order, the first kind of a term wins).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.constants import DICT_KINDS
from deid_desktop.core.errors import UsageError
from deid_desktop.core.facts.text import trim
from deid_desktop.core.gc_pause import gc_paused
from deid_desktop.core.scan.candidates import TextCandidates, may_occur
from deid_desktop.core.scan.dictionary import _SPACES, ScanDictionary, _from_distinct

#: Kinds whose entries are a value's digits (``dictionary._digits_of``).
_DIGIT_KINDS = frozenset({"phone", "ssn"})


def _text(column: pd.Series) -> list[pa.Array]:
    """A column as large_string Arrow chunks, missing values left out (as
    ``dictionary._distinct_text`` reads it)."""
    arrow = pa.array(column.astype("string[pyarrow]"), type=pa.large_string())
    chunks = arrow.chunks if isinstance(arrow, pa.ChunkedArray) else [arrow]
    return [c.drop_null() if c.null_count else c for c in chunks]


@dataclass(frozen=True, eq=False)
class DirectValues:
    """Dictionary kind -> the columns of that kind (Arrow, no missing values), in the
    order the dictionary is made from them."""

    columns: Mapping[str, tuple[pa.Array, ...]]

    @classmethod
    def from_columns(cls, columns_by_kind: Mapping[str, Sequence[pd.Series]]) -> DirectValues:
        unknown = [k for k in columns_by_kind if k not in DICT_KINDS]
        if unknown:
            raise UsageError(
                f"Unknown dictionary kind(s): {', '.join(sorted(unknown))}.",
                hint="Use name, mrn, phone, email, ssn or id.",
            )
        return cls(
            {
                kind: tuple(chunk for column in cols for chunk in _text(column) if len(chunk))
                for kind, cols in columns_by_kind.items()
            }
        )

    def __len__(self) -> int:
        """Values held (not distinct; for the record nothing is counted from this)."""
        return sum(len(c) for cols in self.columns.values() for c in cols)

    def dictionary_for(self, calls: Sequence[Sequence[str]]) -> ScanDictionary:
        """The dictionary of the values that may be found in the texts of ``calls``
        (each: the texts one ``scan_text_arrays`` call is given)."""
        with gc_paused():
            return self.dictionary_of(TextCandidates(calls))

    def dictionary_of(self, found: TextCandidates) -> ScanDictionary:
        """The dictionary of the values that may be found in the texts of ``found``."""
        arrays = {kind: _joined(cols) for kind, cols in self.columns.items()}
        with gc_paused():
            kept: dict[str, list[str]] = {}
            for kind, raw in arrays.items():
                # trimmed as the dictionary trims them: a value read as a number must be
                # read so here too ("5551234567\t" is found in "15551234567")
                arr = trim(raw, _SPACES)
                keep = may_occur(arr, found, words=kind == "name", phone=kind in _DIGIT_KINDS)
                kept[kind] = _distinct(arr.filter(pa.array(keep)) if not keep.all() else arr)
            return _from_distinct(kept)


def _joined(columns: tuple[pa.Array, ...]) -> pa.Array:
    """The columns of one kind as one array; several columns (a person key repeated in
    every table) hashed to their distinct values first, which is cheaper than reading
    each value's words again."""
    if not columns:
        return pa.array([], type=pa.large_string())
    if len(columns) == 1:
        return columns[0]
    return pc.unique(pa.chunked_array(columns, type=pa.large_string()))


def _distinct(values: pa.Array) -> list[str]:
    """The distinct stripped, non-blank values, in order (``dictionary._distinct_text``)."""
    if len(values) == 0:
        return []
    text = trim(values, _SPACES)
    text = pc.filter(text, pc.greater(pc.utf8_length(text), 0))
    out: list[str] = pc.unique(text).to_pylist()
    return out
