"""Small cells in event tables: a value held by one or two persons is a person.

"A count of 1 in a cross-tab is a person. Suppress or merge cells below your threshold in
every table, not only in the main file." For each released column of an event table
(a diagnosis code in a visits table), count the *persons* (not rows) who hold each value;
a value held by fewer than k persons is a small cell. A missing value is not a cell.

``SmallCells.values`` keeps the values for the screen (the Review page lists them so the
user can merge or suppress them); ``to_dict`` carries counts only, for logs and records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd


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
    person_codes, _ = pd.factorize(frame[person], use_na_sentinel=True)
    for column in columns:
        codes, uniques = pd.factorize(frame[column], use_na_sentinel=True)
        keep = (codes >= 0) & (person_codes >= 0)
        v, p = codes[keep].astype(np.int64), person_codes[keep].astype(np.int64)
        n_values = len(uniques)
        if n_values == 0:
            out.append(SmallCells(table, column, k, 0, 0, 0))
            continue
        pairs = np.unique(v * (int(person_codes.max()) + 1) + p)
        pair_value = pairs // (int(person_codes.max()) + 1)
        holders = np.bincount(pair_value, minlength=n_values)
        small = np.flatnonzero((holders > 0) & (holders < k))
        in_small = np.isin(pair_value, small)
        persons = int(np.unique((pairs % (int(person_codes.max()) + 1))[in_small]).size)
        listed = tuple(
            sorted(((str(uniques[i]), int(holders[i])) for i in small), key=lambda t: t[1])
        )
        out.append(
            SmallCells(table, column, k, int((holders > 0).sum()), small.size, persons, listed)
        )
    return tuple(out)


__all__ = ["SmallCells", "small_cells"]
