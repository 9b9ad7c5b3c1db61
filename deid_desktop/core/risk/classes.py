"""Equivalence classes without grouping over strings: factorize, mixed radix, bincount.

Every quasi-identifier column is factorized once (missing values get their own code:
a missing value is a value). The codes are combined into one int64 key per record by
mixed radix; when the product of cardinalities would overflow, the key built so far is
first compacted to dense class numbers (at most one per row), so the key never overflows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa

#: Keys with a range up to this (or 4x the rows) are compacted with bincount, not hashing.
_BINCOUNT_LIMIT = 1 << 24
_KEY_LIMIT = 1 << 62


def factorize_column(series: pd.Series) -> tuple[np.ndarray, int]:
    """Integer codes for a column (missing values form their own code) and their count."""
    codes, n, _ = column_codes(series)
    return codes.astype(np.int64), n


def column_codes(series: pd.Series) -> tuple[np.ndarray, int, int]:
    """Integer codes of a column (int32 or int64; a missing value is a value: it has a
    code of its own), how many codes there are, and how many values are missing."""
    if isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow":
        # pd.factorize's own pass, without pandas' wrapping: one Arrow dictionary encode
        arr = pa.array(series.array)
        arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
        encoded = arr.dictionary_encode(null_encoding="encode")
        codes = encoded.indices.to_numpy(zero_copy_only=False)
        return codes, len(encoded.dictionary), arr.null_count
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    return np.asarray(codes, dtype=np.int64), len(uniques), int(series.isna().sum())


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


@dataclass(frozen=True)
class Groups:
    """Records grouped by class: ``order`` lists record positions class by class,
    ``cls`` the class number (0..n-1) at each position, ``sizes`` each class's records."""

    order: np.ndarray
    cls: np.ndarray
    sizes: np.ndarray

    @property
    def n(self) -> int:
        return len(self.sizes)

    def pair_counts(
        self, values: np.ndarray, n_values: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(class, value, count) of every pair present, sorted by class then value, for
        ``values`` (one code in [0, n_values) a record, in the table's order)."""
        pairs = self.cls * n_values
        pairs += values[self.order]
        cardinality = self.n * n_values
        if cardinality <= max(_BINCOUNT_LIMIT, 4 * pairs.size):  # one counting pass
            all_counts = np.bincount(pairs, minlength=cardinality)
            uniq = np.flatnonzero(all_counts)
            counts = all_counts[uniq]
        else:
            pairs.sort()
            new = np.empty(pairs.size, dtype=bool)
            new[:1] = True
            np.not_equal(pairs[1:], pairs[:-1], out=new[1:])
            starts = np.flatnonzero(new)
            uniq = pairs[starts]
            counts = np.diff(starts, append=pairs.size)
        return uniq // n_values, uniq % n_values, counts.astype(np.int64)


@dataclass(frozen=True)
class Classes(Groups):
    """The equivalence classes of a table's records, numbered in ascending key order.

    ``starts`` says where each class begins in ``order``. ``keys`` is each class's
    mixed-radix key over ``cards`` (None when the product of the cardinalities would
    overflow and the key was compacted on the way)."""

    starts: np.ndarray
    keys: np.ndarray | None
    cards: tuple[int, ...]

    @property
    def rows(self) -> int:
        return len(self.order)

    @cached_property
    def alone_rows(self) -> np.ndarray:
        """The positions of the records alone in their class (not sorted)."""
        return self.order[self.starts[self.sizes == 1]]

    @cached_property
    def shared(self) -> Groups:
        """The classes of two or more records, renumbered 0..m-1 in the same order."""
        many = self.sizes > 1
        if many.all():
            return Groups(self.order, self.cls, self.sizes)
        keep = np.repeat(many, self.sizes)
        sizes = self.sizes[many]
        cls = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
        return Groups(self.order[keep], cls, sizes)


def equivalence_classes(codes: Sequence[tuple[np.ndarray, int]], rows: int) -> Classes:
    """The classes of records sharing every code: the codes combined into one int64 key
    by mixed radix (compacted first should the key overflow), the keys sorted once."""
    cards = tuple(max(n, 1) for _, n in codes)
    total = 1
    for n in cards:
        total *= n
    if total < _KEY_LIMIT:
        key = np.zeros(rows, dtype=np.int64)
        for column_codes_, n in zip((c for c, _ in codes), cards, strict=True):
            key *= n
            key += column_codes_
        radix = True
    else:
        key, _ = combine(codes, rows)
        radix = False
    order = np.argsort(key)
    sorted_key = key[order]
    del key
    new = np.empty(rows, dtype=bool)
    new[:1] = True
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    keys = sorted_key[starts] if radix else None
    del sorted_key
    cls = np.cumsum(new, dtype=np.int64)
    cls -= 1
    sizes = np.diff(starts, append=rows)
    return Classes(order, cls, sizes, starts, keys, cards)


def rescued_counts(classes: Classes, codes: Sequence[tuple[np.ndarray, int]]) -> list[int]:
    """For each quasi-identifier in turn: how many lone records (classes of one) share
    their class with another record once that quasi-identifier is left out.

    Counted over the classes, not the records: a lone record is rescued when another
    class has its values on the other quasi-identifiers. The key without column j is
    ``(key // (stride_j * card_j)) * stride_j + key % stride_j``; when the key had to be
    compacted, the other columns' codes of each class are combined as ``combine`` does."""
    lone = classes.sizes == 1
    cards = classes.cards
    out: list[int] = []
    if classes.keys is None:
        rep = classes.order[classes.starts]
        class_codes = [(c[rep], n) for c, n in codes]
    for j in range(len(cards)):
        if classes.keys is not None:
            stride = 1
            for n in cards[j + 1 :]:
                stride *= n
            high, low = np.divmod(classes.keys, stride)
            key = high // cards[j]
            key *= stride
            key += low
            cardinality = 1
            for i, n in enumerate(cards):
                if i != j:
                    cardinality *= n
        else:
            key, cardinality = combine([*class_codes[:j], *class_codes[j + 1 :]], classes.n)
        if cardinality <= max(_BINCOUNT_LIMIT, 4 * key.size):
            counts = np.bincount(key, minlength=cardinality)
            out.append(int((counts[key[lone]] > 1).sum()))
        else:
            _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
            out.append(int((counts[inverse[lone]] > 1).sum()))
    return out
