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
import pyarrow as pa

#: Keys with a range up to this (or 4x the rows) are compacted with bincount, not hashing.
_BINCOUNT_LIMIT = 1 << 24
_KEY_LIMIT = 1 << 62


def factorize_column(series: pd.Series) -> tuple[np.ndarray, int]:
    """Integer codes for a column (missing values form their own code) and their count."""
    if isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow":
        # pd.factorize's own pass, without pandas' wrapping: one Arrow dictionary encode
        arr = pa.array(series.array)
        encoded = (
            arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
        ).dictionary_encode(null_encoding="encode")
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        return codes, len(encoded.dictionary)
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


def rescued_counts(
    codes: Sequence[tuple[np.ndarray, int]], rows: int, lone_pos: np.ndarray
) -> list[int]:
    """For each quasi-identifier in turn: how many of the lone records (rows
    ``lone_pos``) share their class with another record once that quasi-identifier is
    left out. The key without column i is prefix(0..i-1) * card(i+1..) + suffix(i+1..),
    each prefix and suffix built once, and counted with bincount when its range is small
    enough; otherwise the other columns are combined as ``combine`` does."""
    cards = [max(n, 1) for _, n in codes]
    # suffix keys: suffix[i] is the mixed-radix key of columns i.., suffix_card[i] its range
    suffix: list[np.ndarray | None] = [None] * (len(codes) + 1)
    suffix_card = [1] * (len(codes) + 1)
    suffix[len(codes)] = np.zeros(rows, dtype=np.int64)
    for i in range(len(codes) - 1, -1, -1):
        card = cards[i] * suffix_card[i + 1]
        if card >= _KEY_LIMIT or suffix[i + 1] is None:
            break
        suffix[i] = codes[i][0] * suffix_card[i + 1] + suffix[i + 1]
        suffix_card[i] = card
    limit = max(_BINCOUNT_LIMIT, 4 * rows)
    out: list[int] = []
    prefix: np.ndarray | None = np.zeros(rows, dtype=np.int64)
    prefix_card = 1
    for i in range(len(codes)):
        after = suffix[i + 1]
        card = prefix_card * suffix_card[i + 1]
        if prefix is not None and after is not None and card <= limit:
            key = prefix * suffix_card[i + 1] + after
            counts = np.bincount(key, minlength=card)
            out.append(int((counts[key[lone_pos]] > 1).sum()))
        else:
            r_ids, r_n = combine([*codes[:i], *codes[i + 1 :]], rows)
            r_sizes = np.bincount(r_ids, minlength=r_n)
            out.append(int((r_sizes[r_ids[lone_pos]] > 1).sum()))
        if prefix is not None and prefix_card * cards[i] < _KEY_LIMIT:
            prefix = prefix * cards[i] + codes[i][0]
            prefix_card *= cards[i]
        else:
            prefix = None
    return out
