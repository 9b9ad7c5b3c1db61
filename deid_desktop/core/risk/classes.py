"""Equivalence classes without grouping over strings: factorize, mixed radix, bincount.

Every quasi-identifier column is factorized once (missing values get their own code:
a missing value is a value). The codes are combined into one int64 key per record by
mixed radix; when the product of cardinalities would overflow, the key built so far is
first compacted to dense class numbers (at most one per row), so the key never overflows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

#: Keys with a range up to this (or 4x the rows) are compacted with bincount, not hashing.
_BINCOUNT_LIMIT = 1 << 24
_KEY_LIMIT = 1 << 62


def factorize_column(series: pd.Series) -> tuple[np.ndarray, int]:
    """Integer codes for a column (missing values form their own code) and their count."""
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    return np.asarray(codes, dtype=np.int64), len(uniques)


def compact(key: np.ndarray, cardinality: int) -> tuple[np.ndarray, int]:
    """Dense class numbers 0..n-1 for int64 keys in [0, cardinality)."""
    if key.size == 0:
        return key.astype(np.int64), 0
    if cardinality <= max(_BINCOUNT_LIMIT, 4 * key.size):
        present = np.bincount(key, minlength=cardinality) > 0
        remap = np.cumsum(present, dtype=np.int64) - 1
        return remap[key], int(present.sum())
    codes, uniques = pd.factorize(key)
    return np.asarray(codes, dtype=np.int64), len(uniques)


def combine(codes: Sequence[tuple[np.ndarray, int]], rows: int) -> tuple[np.ndarray, int]:
    """Dense equivalence-class number of every record, and the number of classes."""
    key = np.zeros(rows, dtype=np.int64)
    cardinality = 1
    for column_codes, n in codes:
        n = max(n, 1)
        if cardinality * n >= _KEY_LIMIT:
            key, cardinality = compact(key, cardinality)
        key = key * n + column_codes
        cardinality *= n
    return compact(key, cardinality)


def class_sizes(ids: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """(size of each class, size of the class of each record)."""
    sizes = np.bincount(ids, minlength=n_classes).astype(np.int64)
    return sizes, sizes[ids]
