"""The optimal generalization: search the lattice of hierarchy levels for the node that
reaches k within a suppression limit with the least information loss. (A lattice of
more than ``NODE_LIMIT`` nodes gets a greedy best effort instead, marked incomplete.)

A node gives one level per quasi-identifier; its successors generalize one column one
level more. Two facts make the search fast (the Flash / OLA family, Kohlmayer et al.
2012, El Emam et al. 2009):

- monotonicity: generalizing only merges classes, so the records in classes below k
  never grow. If a node reaches k within the limit, so does every successor; if it does
  not, no predecessor does (predictive tagging, held in ``status``);
- bounds: each figure minus its suppression part depends on one column at a time, so a
  lower bound of every node is known before its classes are counted. Nodes are visited
  in increasing bound; once the bound exceeds the best loss found, the search is over,
  and the result is the optimum.

Classes are counted without strings: each column is coded once per level (numpy), the
data are reduced once to their distinct combinations with a count, and a node's classes
are rolled up from an already counted finer node (codes mapped one level up, combined
into one int64 key, counted with bincount). The result is deterministic: ties go to
fewer suppressed records, then the lower node, then the lexicographically smaller one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from deid_desktop.core.errors import UsageError
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.core.risk.loss import METRICS, Figures
from deid_desktop.core.risk.prepared import Prepared

if TYPE_CHECKING:
    from deid_desktop.core.risk.persons import PersonPrepared

#: Lattices larger than this are not enumerated (choose fewer columns or levels).
NODE_LIMIT = 2_000_000
#: Class tables of counted nodes kept for roll-ups, in bytes.
CACHE_BYTES = 256 << 20
#: Nodes decided in the first round (each next round doubles).
_FIRST_ROUND = 64


@dataclass(frozen=True)
class SearchResult:
    """The optimum and every candidate node that reached k within the limit."""

    columns: tuple[str, ...]
    k: int
    max_suppression: float
    metric: str
    best: Figures | None
    candidates: tuple[Figures, ...]
    lattice_size: int
    evaluated: int
    complete: bool  # False when the time limit stopped the search (best effort)
    seconds: float
    heights: tuple[int, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """Counts, names and figures only: safe for logs, --json and the record."""
        out: dict[str, Any] = {
            "k": self.k,
            "max_suppression": self.max_suppression,
            "metric": self.metric,
            "quasi_identifiers": list(self.columns),
            "lattice_size": self.lattice_size,
            "evaluated": self.evaluated,
            "candidates": len(self.candidates),
            "complete": self.complete,
            "seconds": round(self.seconds, 3),
            "found": self.best is not None,
        }
        if self.best is not None:
            out.update(self.best.to_dict(self.columns))
        return out


def all_nodes(heights: Sequence[int]) -> np.ndarray:
    """Every node of the lattice, one row each (levels per column), in row-major order."""
    size = math.prod(heights)
    if size > NODE_LIMIT:
        raise UsageError(
            f"The generalization lattice has {size:,} nodes, more than {NODE_LIMIT:,}.",
            hint="Choose fewer quasi-identifiers or hierarchies with fewer levels.",
        )
    grids = np.indices(tuple(heights), dtype=np.int16).reshape(len(heights), -1)
    return grids.T.copy()


def search(
    prepared: Prepared | PersonPrepared,
    *,
    k: int = 5,
    max_suppression: float = 0.05,
    metric: str = "loss",
    time_limit: float | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> SearchResult:
    """The node with the least ``metric`` among those where at most ``max_suppression``
    of the records sit in classes smaller than ``k`` (they are suppressed). With a
    ``time_limit`` (seconds) the search may stop early: ``complete`` says so and the
    best node found so far is returned."""
    if k < 1:
        raise UsageError("The k target must be 1 or more.", hint="A usual target is 5.")
    if not 0.0 <= max_suppression <= 1.0:
        raise UsageError(
            "The suppression limit must be between 0 and 1.", hint="For 5 % write 0.05."
        )
    if metric not in METRICS:
        raise UsageError(f"Unknown metric '{metric}'.", hint="Choose " + ", ".join(METRICS))
    started = time.process_time()
    wall = time.monotonic()
    rep = Reporter(progress, cancel)
    if math.prod(prepared.heights) > NODE_LIMIT:
        return _greedy(prepared, k, max_suppression, metric, rep, started)
    nodes = all_nodes(prepared.heights)
    size = len(nodes)
    tables = prepared.tables
    bounds = np.round(tables.bounds(metric, nodes, k), 12)
    level_sum = nodes.sum(axis=1, dtype=np.int64)
    lex = [nodes[:, i] for i in range(nodes.shape[1] - 1, -1, -1)]
    by_bound = np.lexsort((*lex, level_sum, bounds))
    status = np.zeros(size, dtype=np.int8)  # 1 reaches k within the limit, -1 does not
    limit_rows = math.floor(max_suppression * prepared.units + 1e-9)
    state = _State(prepared, k, metric)
    complete = True
    round_size = _FIRST_ROUND
    done_upto = 0  # by_bound[:done_upto] have been considered
    while done_upto < size:
        upto = min(size, max(round_size, done_upto + 1))
        threshold = bounds[by_bound[upto - 1]]
        while upto < size and bounds[by_bound[upto]] == threshold:
            upto += 1  # a round takes every node of its threshold bound
        inside = by_bound[:upto]
        todo = by_bound[done_upto:upto]
        # top-down: a node that misses k tags all its predecessors (they lie inside)
        todo = todo[
            np.lexsort(
                (*[nodes[todo, i] for i in range(nodes.shape[1] - 1, -1, -1)], -level_sum[todo])
            )
        ]
        inside_nodes = nodes[inside]
        for idx in todo.tolist():
            if status[idx] < 0:
                continue
            if state.evaluated % 32 == 0:
                rep.step(min(0.99, done_upto / size), "Searching generalizations")
                if time_limit is not None and time.monotonic() - wall > time_limit:
                    complete = False
                    break
            levels = tuple(int(v) for v in nodes[idx])
            if state.visit(levels, limit_rows):
                status[idx] = 1
            else:
                status[inside[np.all(inside_nodes <= nodes[idx], axis=1)]] = -1
        if not complete:
            break
        done_upto = upto
        if state.best_key is not None and state.best_key[0] <= threshold:
            break  # every node with a lower bound has been decided
        round_size *= 2
    rep.step(1.0, "Search finished")
    return SearchResult(
        columns=prepared.columns,
        k=k,
        max_suppression=max_suppression,
        metric=metric,
        best=state.best,
        candidates=tuple(state.candidates),
        lattice_size=size,
        evaluated=state.evaluated,
        complete=complete,
        seconds=time.process_time() - started,
        heights=prepared.heights,
    )


def _greedy(
    prepared: Prepared | PersonPrepared,
    k: int,
    max_suppression: float,
    metric: str,
    rep: Reporter,
    started: float,
) -> SearchResult:
    """Best effort for a lattice too large to enumerate: from the top node, step down to
    the finer neighbour with the least ``metric`` that still reaches k within the
    limit, until none does. Deterministic; ``complete`` is False (not proven optimal)."""
    limit_rows = math.floor(max_suppression * prepared.units + 1e-9)
    state = _State(prepared, k, metric)
    current: tuple[int, ...] | None = tuple(h - 1 for h in prepared.heights)
    assert current is not None
    seen: dict[tuple[int, ...], Figures | None] = {}
    if not state.visit(current, limit_rows):
        current = None
    steps = 0
    while current is not None:
        steps += 1
        rep.step(min(0.99, steps / max(sum(prepared.heights), 1)), "Searching generalizations")
        best_next: tuple[tuple[float, int, int, tuple[int, ...]], tuple[int, ...]] | None = None
        for i, lv in enumerate(current):
            if lv == 0:
                continue
            node = (*current[:i], lv - 1, *current[i + 1 :])
            if node not in seen:
                before = len(state.candidates)
                seen[node] = state.candidates[-1] if state.visit(node, limit_rows) else None
                assert len(state.candidates) >= before
            fig = seen[node]
            if fig is not None:
                key = (round(fig.metric(metric), 12), fig.suppressed, sum(node), node)
                if best_next is None or key < best_next[0]:
                    best_next = (key, node)
        current = best_next[1] if best_next is not None else None
    return SearchResult(
        columns=prepared.columns,
        k=k,
        max_suppression=max_suppression,
        metric=metric,
        best=state.best,
        candidates=tuple(state.candidates),
        lattice_size=math.prod(prepared.heights),
        evaluated=state.evaluated,
        complete=False,
        seconds=time.process_time() - started,
        heights=prepared.heights,
    )


class _State:
    """Counted nodes (a byte-bounded cache for roll-ups, oldest dropped first),
    candidates and the best so far."""

    def __init__(self, prepared: Prepared | PersonPrepared, k: int, metric: str) -> None:
        self.prepared = prepared
        self.k = k
        self.metric = metric
        self.best: Figures | None = None
        self.best_key: tuple[float, int, int, tuple[int, ...]] | None = None
        self.candidates: list[Figures] = []
        self.evaluated = 0
        m = len(prepared.columns)
        self._levels = np.zeros((64, m), dtype=np.int16)
        self._sizes = np.zeros(64, dtype=np.int64)
        self._alive = np.zeros(64, dtype=bool)
        self._entries: list[tuple[np.ndarray, np.ndarray] | None] = []
        self._oldest = 0
        self._bytes = 0

    def visit(self, levels: tuple[int, ...], limit_rows: int) -> bool:
        """Count the node's classes; True when it reaches k within the limit."""
        if not isinstance(self.prepared, Prepared):  # persons as the unit: no roll-ups
            self.evaluated += 1
            got = self.prepared.assess(levels, self.k, limit_rows)
            return got is not None and self._consider(got)
        codes, counts = self.prepared.classes(levels, self._source(levels))
        self.evaluated += 1
        self._remember(levels, codes, counts)
        if int(counts[counts < self.k].sum()) > limit_rows:
            return False
        return self._consider(self.prepared.tables.figures(levels, codes, counts, self.k))

    def _consider(self, fig: Figures) -> bool:
        levels = fig.levels
        self.candidates.append(fig)
        suppressed = fig.suppressed if fig.persons_suppressed is None else fig.persons_suppressed
        key = (round(fig.metric(self.metric), 12), suppressed, sum(levels), levels)
        if self.best_key is None or key < self.best_key:
            self.best, self.best_key = fig, key
        return True

    def _remember(self, levels: tuple[int, ...], codes: np.ndarray, counts: np.ndarray) -> None:
        nbytes = codes.nbytes + counts.nbytes
        if nbytes > CACHE_BYTES // 4:
            return
        i = len(self._entries)
        if i == len(self._sizes):
            self._levels = np.concatenate([self._levels, np.zeros_like(self._levels)])
            self._sizes = np.concatenate([self._sizes, np.zeros_like(self._sizes)])
            self._alive = np.concatenate([self._alive, np.zeros_like(self._alive)])
        self._levels[i] = levels
        self._sizes[i] = len(counts)
        self._alive[i] = True
        self._entries.append((codes, counts))
        self._bytes += nbytes
        while self._bytes > CACHE_BYTES and self._oldest < i:
            old = self._entries[self._oldest]
            if old is not None:
                self._bytes -= old[0].nbytes + old[1].nbytes
                self._entries[self._oldest] = None
                self._alive[self._oldest] = False
            self._oldest += 1

    def _source(
        self, levels: tuple[int, ...]
    ) -> tuple[tuple[int, ...], np.ndarray, np.ndarray] | None:
        """The counted node below ``levels`` with the fewest classes, or None (base)."""
        used = len(self._entries)
        if not used:
            return None
        target = np.asarray(levels, dtype=np.int16)
        below = self._alive[:used] & np.all(self._levels[:used] <= target, axis=1)
        if not below.any():
            return None
        where = np.flatnonzero(below)
        pick = int(where[np.argmin(self._sizes[where])])
        entry = self._entries[pick]
        assert entry is not None
        return tuple(int(v) for v in self._levels[pick]), entry[0], entry[1]


def evaluate(prepared: Prepared, levels: Sequence[int], *, k: int) -> Figures:
    """Every figure of one node (for a chosen or a reference solution)."""
    lv = tuple(int(v) for v in levels)
    if len(lv) != len(prepared.columns) or any(
        not 0 <= v < h for v, h in zip(lv, prepared.heights, strict=True)
    ):
        raise UsageError(
            "A level is outside its hierarchy.",
            hint="Levels run from 0 to the hierarchy's number of columns minus 1.",
        )
    codes, counts = prepared.classes(lv, None)
    return prepared.tables.figures(lv, codes, counts, k)
