"""A table coded once for the generalization search: each quasi-identifier coded at
every level of its hierarchy, and the data reduced to their distinct combinations with a
count (``lattice.search`` and ``persons`` read it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from deid_desktop.core.errors import UsageError
from deid_desktop.core.risk.classes import combine
from deid_desktop.core.risk.hierarchy import EncodedColumn, Hierarchy, check_hierarchies, encode
from deid_desktop.core.risk.loss import LossTables

#: Combined keys stay below this (else they are compacted first).
_KEY_LIMIT = 1 << 62


class Prepared:
    """A table coded once for the search: its distinct combinations and their counts."""

    def __init__(
        self,
        frame: pd.DataFrame,
        columns: Sequence[str],
        hierarchies: Mapping[str, Hierarchy],
    ) -> None:
        cols = tuple(dict.fromkeys(columns))
        if not cols:
            raise UsageError("Choose at least one quasi-identifier.", hint="Use --qi.")
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise UsageError(
                "Column(s) " + ", ".join(repr(c) for c in missing) + " are not in the table.",
                hint="Choose among: " + ", ".join(str(c) for c in frame.columns),
            )
        check_hierarchies(cols, hierarchies)
        self.columns = cols
        self.encoded: tuple[EncodedColumn, ...] = tuple(
            encode(frame[c], hierarchies[c]) for c in cols
        )
        self.rows = len(frame)
        self.heights = tuple(e.levels for e in self.encoded)
        self.cards = tuple(tuple(e.cardinality(lv) for lv in range(e.levels)) for e in self.encoded)
        ids, n = combine([(e.codes.astype(np.int64), e.n_values) for e in self.encoded], self.rows)
        self.base_counts = np.bincount(ids, minlength=n).astype(np.int64)
        first = np.empty(n, dtype=np.int64)
        first[ids[::-1]] = np.arange(self.rows - 1, -1, -1, dtype=np.int64)
        self.base_values = (
            np.stack([e.maps[0][e.codes[first]] for e in self.encoded], axis=1).astype(np.int32)
            if n
            else np.zeros((0, len(cols)), dtype=np.int32)
        )
        value_counts = [
            np.bincount(e.codes, minlength=e.n_values).astype(np.int64) for e in self.encoded
        ]
        self.tables = LossTables(self.encoded, value_counts)
        # label code at level a -> label code at level b (a < b), through a representative
        self._up: dict[tuple[int, int, int], np.ndarray] = {}

    @property
    def units(self) -> int:
        """What k and the suppression limit count: records."""
        return self.rows

    def up(self, i: int, a: int, b: int) -> np.ndarray:
        key = (i, a, b)
        got = self._up.get(key)
        if got is None:
            e = self.encoded[i]
            if e.n_values == 0:  # an empty table: no code is ever looked up
                got = np.zeros(e.cardinality(a), dtype=np.int32)
            else:
                rep = np.zeros(e.cardinality(a), dtype=np.int64)  # a value under each label
                rep[e.maps[a][::-1]] = np.arange(e.n_values - 1, -1, -1)
                got = e.maps[b][rep]
            self._up[key] = got
        return got

    def classes(
        self, levels: Sequence[int], source: tuple[tuple[int, ...], np.ndarray, np.ndarray] | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(label codes per class, records per class) of the node ``levels``, rolled up
        from ``source`` (a finer node's levels, codes, counts) or from the base table."""
        if source is None:
            src_levels: tuple[int, ...] = (0,) * len(self.columns)
            src_codes, src_counts = self.base_values, self.base_counts
        else:
            src_levels, src_codes, src_counts = source
        cols = []
        for i, (a, b) in enumerate(zip(src_levels, levels, strict=True)):
            c = src_codes[:, i]
            cols.append(c if a == b else self.up(i, a, b)[c])
        rows = len(src_counts)
        key = np.zeros(rows, dtype=np.int64)
        card = 1
        for i, c in enumerate(cols):
            n = max(self.cards[i][levels[i]], 1)
            if card * n >= _KEY_LIMIT:
                key = pd.factorize(key)[0].astype(np.int64)
                card = int(key.max()) + 1 if rows else 1
            key = key * n + c
            card *= n
        if card <= max(1 << 16, 2 * rows):
            present = np.bincount(key, minlength=card) > 0
            remap = np.cumsum(present, dtype=np.int64) - 1
            ids = remap[key]
            n_classes = int(present.sum())
        else:
            ids_raw, uniq = pd.factorize(key)
            ids = np.asarray(ids_raw, dtype=np.int64)
            n_classes = len(uniq)
        counts = np.bincount(ids, weights=src_counts, minlength=n_classes).astype(np.int64)
        first = np.empty(n_classes, dtype=np.int64)
        first[ids[::-1]] = np.arange(rows - 1, -1, -1, dtype=np.int64)
        codes = np.stack([c[first] for c in cols], axis=1).astype(np.int32)
        return codes, counts
