"""Equivalence classes without grouping over strings: factorize, mixed radix, sort.

Every quasi-identifier column is factorized once (missing values get their own code:
a missing value is a value). The codes are combined into one int64 key per record by
mixed radix; when the product of cardinalities would overflow, the key built so far is
first compacted to dense class numbers (at most one per row), so the key never overflows.

``combine`` gives each record a dense class number (bincount over the key's range);
``equivalence_classes`` sorts the keys once and keeps the records grouped class by
class (``Classes``), which the risk report reuses for everything: class sizes, lone
records, the rescue analysis (``rescued_counts``, from the classes' keys) and the
(class, sensitive value) counts of l-diversity and t-closeness (``Groups.pair_counts``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa

from deid_desktop.core.facts.text import one_array

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
        arr = one_array(arr)
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
        self, values: np.ndarray, n_values: int, remap: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(class, value, count) of every pair present, sorted by class then value, for
        ``values`` (one code a record, in the table's order; ``remap[code]`` when given)
        in [0, n_values)."""
        picked = values[self.order]
        pairs = self.cls * n_values
        pairs += picked if remap is None else remap[picked]
        del picked
        cardinality = self.n * n_values
        if cardinality <= max(_BINCOUNT_LIMIT, 4 * pairs.size):  # one counting pass
            all_counts = np.bincount(pairs, minlength=cardinality)
            uniq = np.flatnonzero(all_counts)
            counts = all_counts[uniq]
        else:  # one sort: the pairs are sorted by class already (``order`` goes class by
            # class), so only each class's few values are out of order, and a merge sort
            # of such runs is several times quicker than quicksort
            pairs.sort(kind="stable")
            new = np.empty(pairs.size, dtype=bool)
            new[:1] = True
            np.not_equal(pairs[1:], pairs[:-1], out=new[1:])
            starts = np.flatnonzero(new)
            uniq = pairs[starts]
            counts = _run_lengths(starts, pairs.size)
        cls = uniq // n_values  # (a division by a constant; divmod would be slower)
        uniq -= cls * n_values
        return cls, uniq, counts


@dataclass(frozen=True)
class Classes:
    """The equivalence classes of a table's records, numbered in ascending key order.

    ``order`` lists the record positions class by class (class 0's records first, each
    class's in the table's order), ``starts`` says where each class begins in ``order``
    and ``sizes`` how many records it holds. ``keys`` is each class's mixed-radix key
    over ``cards`` (None when the product of the cardinalities would overflow and the
    key was compacted on the way)."""

    order: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray
    keys: np.ndarray | None
    cards: tuple[int, ...]

    @property
    def n(self) -> int:
        return len(self.sizes)

    @property
    def rows(self) -> int:
        return len(self.order)

    @cached_property
    def alone_rows(self) -> np.ndarray:
        """The positions of the records alone in their class (in class order)."""
        return self.order[self.starts[self.sizes == 1]]

    @cached_property
    def shared(self) -> Groups:
        """The classes of two or more records, renumbered 0..m-1 in the same order."""
        many = self.sizes > 1
        sizes = self.sizes[many]
        cls = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
        if sizes.size == self.n:
            return Groups(self.order, cls, sizes)
        return Groups(self.order[np.repeat(many, self.sizes)], cls, sizes)


def equivalence_classes(codes: Sequence[tuple[np.ndarray, int]], rows: int) -> Classes:
    """The classes of records sharing every code: the codes combined into one int64 key
    by mixed radix (compacted first should the key overflow), the keys sorted once.

    When the key and the row number fit together in 63 bits, one sort of
    ``key << bits | row`` gives both the order and the sorted keys (several times
    cheaper than an argsort)."""
    cards = tuple(max(n, 1) for _, n in codes)
    total = 1
    for n in cards:
        total *= n
    if total < _KEY_LIMIT:
        key = np.zeros(rows, dtype=np.int64) if not codes else codes[0][0].astype(np.int64)
        for (column_codes_, _), n in zip(codes[1:], cards[1:], strict=True):
            key *= n
            key += column_codes_
        radix = True
    else:
        key, total = combine(codes, rows)
        radix = False
    row_bits = max(rows - 1, 0).bit_length()
    if (max(total - 1, 0).bit_length() + row_bits) < 63:
        key <<= row_bits
        key |= np.arange(rows, dtype=np.int64)
        key.sort()
        order = key & ((1 << row_bits) - 1)
        key >>= row_bits
        sorted_key = key
    else:
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
    del key
    new = np.empty(rows, dtype=bool)
    new[:1] = True
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    del new
    keys = sorted_key[starts] if radix else None
    sizes = _run_lengths(starts, rows)
    return Classes(order, starts, sizes, keys, cards)


def _run_lengths(starts: np.ndarray, total: int) -> np.ndarray:
    """The length of each run, from the runs' starts (ascending) and the total length."""
    lengths = np.empty(starts.size, dtype=np.int64)
    np.subtract(starts[1:], starts[:-1], out=lengths[:-1])
    lengths[-1:] = total - starts[-1:]
    return lengths


def rescued_counts(classes: Classes, codes: Sequence[tuple[np.ndarray, int]]) -> list[int]:
    """For each quasi-identifier in turn: how many lone records (classes of one) share
    their class with another record once that quasi-identifier is left out.

    Counted over the classes, not the records: a lone record is rescued when another
    class has its values on the other quasi-identifiers. The key without column j is
    ``(key // (stride_j * card_j)) * stride_j + key % stride_j``, counted with bincount
    (for the last column the keys without it stay sorted: neighbours are compared); when
    the key had to be compacted, the other columns' codes of each class are combined as
    ``combine`` does."""
    lone = np.flatnonzero(classes.sizes == 1)
    cards = classes.cards
    keys = classes.keys
    out: list[int] = []
    if keys is None:
        rep = classes.order[classes.starts]
        class_codes = [(c[rep], n) for c, n in codes]
    for j in range(len(cards)):
        if keys is not None:
            stride = 1
            for n in cards[j + 1 :]:
                stride *= n
            if stride == 1:
                # the last column: the keys without it are sorted, so the classes that
                # share one are neighbours
                key = keys // cards[j]
                same = np.zeros(key.size + 1, dtype=bool)
                np.equal(key[1:], key[:-1], out=same[1:-1])
                out.append(int(np.count_nonzero(same[lone] | same[lone + 1])))
                continue
            # (floor division by a constant is fast; a remainder is not)
            high = keys // stride
            key = high // cards[j]
            key *= stride
            high *= stride
            key -= high
            key += keys
            cardinality = 1
            for i, n in enumerate(cards):
                if i != j:
                    cardinality *= n
        else:
            key, cardinality = combine([*class_codes[:j], *class_codes[j + 1 :]], classes.n)
        if cardinality <= max(_BINCOUNT_LIMIT, 4 * key.size):
            shared = np.bincount(key, minlength=cardinality) > 1
            out.append(int(np.count_nonzero(shared[key[lone]])))
        else:
            _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
            out.append(int(np.count_nonzero(counts[inverse[lone]] > 1)))
    return out
