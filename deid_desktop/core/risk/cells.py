"""Small cells in event tables: a value held by one or two persons is a person.

"A count of 1 in a cross-tab is a person. Suppress or merge cells below your threshold in
every table, not only in the main file." For each released column of an event table
(a diagnosis code in a visits table), count the *persons* (not rows) who hold each value;
a value held by fewer than k persons is a small cell. A missing value is not a cell.

``SmallCells.values`` keeps the values for the screen (the Review page lists them so the
user can merge or suppress them); ``to_dict`` carries counts only, for logs and records.

``event_small_cells(project, release)`` picks the columns: in every released event table,
each column tagged quasi-identifier or clinical whose values are not all numbers (codes,
descriptions, categories). Numbers are measurements (a lab value, a day count): every
exact value being rare is what a measurement is, not a cross-tab cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.text import known_codes, one_array
from deid_desktop.core.model import ColumnClass, Project, Release

#: The tag classes whose event-table columns are counted as cells.
CELL_CLASSES = (ColumnClass.QUASI, ColumnClass.CLINICAL)


@dataclass(frozen=True)
class SmallCells:
    """Values of one column held by fewer than ``k`` persons."""

    table: str
    column: str
    k: int
    distinct: int  # distinct filled values in the column
    small: int  # of which held by fewer than k persons
    persons: int  # persons holding at least one small-cell value
    values: tuple[tuple[str, int], ...] = field(default=(), repr=False)  # (value, persons)

    def to_dict(self) -> dict[str, object]:
        return {
            "table": self.table,
            "column": self.column,
            "k": self.k,
            "distinct": self.distinct,
            "small_cells": self.small,
            "persons": self.persons,
        }


def small_cells(
    frame: pd.DataFrame, *, table: str, person: str, columns: Sequence[str], k: int
) -> tuple[SmallCells, ...]:
    """Small cells of each column, counted over distinct persons (``person`` column)."""
    out = []
    person_codes = _person_codes(frame[person])
    n_persons = int(person_codes.max()) + 1 if person_codes.size else 0
    for column in columns:
        known = known_codes(frame[column])
        codes, uniques = _codes(frame[column]) if known is None else known
        keep = (codes >= 0) & (person_codes >= 0)
        v, p = codes[keep].astype(np.int64), person_codes[keep].astype(np.int64)
        n_values = len(uniques)
        if n_values == 0 or v.size == 0:
            out.append(SmallCells(table, column, k, 0, 0, 0))
            continue
        # distinct (person, value) pairs: a sort (numpy's hashed unique is slower here),
        # person first: a release is in person order, so the keys come nearly sorted
        # and the merge sort (adaptive to sorted runs) passes over them almost linearly
        pairs = np.sort(p * n_values + v, kind="stable")
        pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))]
        pair_value = pairs % n_values
        holders = np.bincount(pair_value, minlength=n_values)
        small = np.flatnonzero((holders > 0) & (holders < k))
        is_small = np.zeros(n_values, dtype=bool)
        is_small[small] = True
        held = np.zeros(n_persons, dtype=bool)
        held[(pairs // n_values)[is_small[pair_value]]] = True
        if known is not None:  # the pathway's codes: listed in order of first appearance
            small = _by_first_row(codes, small, is_small)
        picked = uniques.take(small)
        listed_values = picked.to_pylist() if isinstance(picked, pa.Array) else list(picked)
        names = [str(x) for x in listed_values]
        listed = tuple(
            sorted(zip(names, (int(h) for h in holders[small]), strict=True), key=lambda t: t[1])
        )
        out.append(
            SmallCells(
                table, column, k, int((holders > 0).sum()), small.size, int(held.sum()), listed
            )
        )
    return tuple(out)


def _by_first_row(codes: np.ndarray, small: np.ndarray, is_small: np.ndarray) -> np.ndarray:
    """The codes ``small`` in the order their values first appear in the column (as
    ``_codes`` numbers them), read from the (few) rows holding one of them."""
    if len(small) < 2:
        return small
    rows = np.flatnonzero(is_small[np.maximum(codes, 0)] & (codes >= 0))
    found, first = np.unique(codes[rows], return_index=True)
    return found[np.argsort(rows[first], kind="stable")]


def _codes(values: pd.Series) -> tuple[np.ndarray, pa.Array | pd.Index]:
    """``pd.factorize`` (codes in order of first appearance, -1 where missing; and the
    distinct values) by one Arrow hash pass for text columns."""
    if not isinstance(values.dtype, pd.StringDtype) or values.dtype.storage != "pyarrow":
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        return codes, pd.Index(uniques)
    arr = one_array(pa.array(values.array))
    encoded = arr.dictionary_encode()
    codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    return codes, encoded.dictionary


def _person_codes(ids: pd.Series) -> np.ndarray:
    """A code per row for its person (-1: missing), as ``pd.factorize``; a release is in
    ID order, so there the codes are the runs of equal IDs (no hashing)."""
    if isinstance(ids.dtype, pd.StringDtype) and ids.dtype.storage == "pyarrow" and len(ids) > 1:
        arr = one_array(pa.array(ids.array))
        if arr.null_count == 0:
            head, tail = arr.slice(0, len(arr) - 1), arr.slice(1)
            if pc.all(pc.less_equal(head, tail)).as_py():
                change = pc.not_equal(head, tail).to_numpy(zero_copy_only=False)
                return np.concatenate(([0], np.cumsum(change))).astype(np.int64)
    return _codes(ids)[0]


def _all_numbers(values: pd.Series) -> bool:
    """Every filled value is a number (checked on the distinct values only: from the
    codes the pathway noted for the column, else by one Arrow hash pass)."""
    distinct = _distinct_filled(values)
    if len(distinct) == 0:
        return False
    parsed = pd.to_numeric(pd.Series(distinct, dtype=object), errors="coerce")
    return not bool(parsed.isna().any())


def _distinct_filled(values: pd.Series) -> list[object]:
    """The distinct non-missing values of a column, in no particular order."""
    known = known_codes(values)
    if known is not None:
        codes, dictionary = known
        held = np.bincount(codes[codes >= 0], minlength=len(dictionary))
        return dictionary.take(pa.array(np.flatnonzero(held))).to_pylist()
    if isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow":
        return pc.unique(one_array(pa.array(values.array))).drop_null().to_pylist()
    return list(values.dropna().unique())


def cell_columns(project: Project, release: Release) -> dict[str, list[str]]:
    """Per released event table, the columns whose small cells are counted."""
    out: dict[str, list[str]] = {}
    for spec in project.tables:
        frame = release.tables.get(spec.name)
        if spec.is_person or frame is None or release.id_column not in frame.columns:
            continue
        columns = [
            c.name
            for c in spec.columns
            if c.cls in CELL_CLASSES
            and c.name in frame.columns
            and c.name != release.id_column
            and not _all_numbers(frame[c.name])
        ]
        if columns:
            out[spec.name] = columns
    return out


def event_small_cells(project: Project, release: Release, *, k: int) -> tuple[SmallCells, ...]:
    """Small cells (held by fewer than ``k`` persons) of every counted event column."""
    found: list[SmallCells] = []
    for table, columns in cell_columns(project, release).items():
        frame = release.tables[table]
        found += small_cells(frame, table=table, person=release.id_column, columns=columns, k=k)
    return tuple(found)


def cells_summary(cells: tuple[SmallCells, ...]) -> dict[str, object]:
    """For records and JSON: counts per column, never a value."""
    return {
        "columns": [c.to_dict() for c in cells],
        "small_cells": sum(c.small for c in cells),
        "columns_with_small_cells": sum(1 for c in cells if c.small),
    }


__all__ = [
    "CELL_CLASSES",
    "SmallCells",
    "cell_columns",
    "cells_summary",
    "event_small_cells",
    "small_cells",
]
