"""The note-hit index: a scan's hits grouped per note (one free-text cell), as arrays.

The review screen lists the notes with hits and highlights each hit; a 1M-row scan has
~10^5 notes and ~10^6 hits, so no Python object is made per hit or per note until one
note is shown. Built off the UI thread from a ``ScanReport``. Positions only, never text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from deid_desktop.core.scan.report import ColumnSpans, ScanReport

NoteKey = tuple[str, int, str]  # (table, 0-based row, column)


class NoteHit(NamedTuple):
    """One hit of the note on screen (made on demand, one note at a time)."""

    start: int
    end: int
    kind: str
    rule: str


@dataclass(frozen=True, eq=False)
class NoteBlock:
    """The hits of one column, sorted by row then position, with per-note offsets."""

    table: str
    column: str
    rows: np.ndarray  # the notes (rows) with hits, ascending
    offsets: np.ndarray  # len(rows) + 1 offsets into the arrays below
    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray
    rule: np.ndarray

    @classmethod
    def of(cls, spans: ColumnSpans) -> NoteBlock:
        row, start, end = (
            np.asarray(a, dtype=np.int64) for a in (spans.row, spans.start, spans.end)
        )
        order = np.lexsort((start, row))
        row = row[order]
        rows, first = np.unique(row, return_index=True)
        offsets = np.append(first, row.size)
        return cls(
            spans.table, spans.column, rows, offsets, start[order], end[order],
            np.asarray(spans.kind, dtype=object)[order],
            np.asarray(spans.rule, dtype=object)[order],
        )  # fmt: skip


@dataclass(frozen=True, eq=False)
class NoteIndex:
    """Hits grouped per note; ``note(i)`` gives the i-th note with hits and its hits."""

    blocks: tuple[NoteBlock, ...] = ()
    counts: tuple[tuple[str, str, int], ...] = ()  # (table.column, kind, hits)
    total: int = 0

    def __post_init__(self) -> None:
        sizes = [len(b.rows) for b in self.blocks]
        object.__setattr__(self, "_cum", np.concatenate(([0], np.cumsum(sizes))).astype(int))

    def __len__(self) -> int:
        return int(self._cum[-1])  # type: ignore[attr-defined]

    def hit_count(self, i: int) -> int:
        block, j = self._locate(i)
        return int(block.offsets[j + 1] - block.offsets[j])

    def _locate(self, i: int) -> tuple[NoteBlock, int]:
        b = int(np.searchsorted(self._cum, i, side="right")) - 1  # type: ignore[attr-defined]
        return self.blocks[b], i - int(self._cum[b])  # type: ignore[attr-defined]

    def note(self, i: int) -> tuple[NoteKey, list[NoteHit]]:
        block, j = self._locate(i)
        lo, hi = int(block.offsets[j]), int(block.offsets[j + 1])
        hits = [
            NoteHit(int(a), int(z), str(k), str(r))
            for a, z, k, r in zip(
                block.start[lo:hi], block.end[lo:hi], block.kind[lo:hi], block.rule[lo:hi],
                strict=True,
            )
        ]  # fmt: skip
        return (block.table, int(block.rows[j]), block.column), hits


def index_notes(scan: ScanReport | None) -> NoteIndex:
    """The note-hit index of ``scan`` (empty without a scan)."""
    if scan is None:
        return NoteIndex()
    blocks = tuple(NoteBlock.of(sp) for sp in scan.spans if sp.row.size)
    counts: list[tuple[str, str, int]] = []
    for b in blocks:
        kinds, n = np.unique(b.kind.astype(str), return_counts=True)
        counts += [(f"{b.table}.{b.column}", str(k), int(c)) for k, c in zip(kinds, n, strict=True)]
    return NoteIndex(blocks, tuple(counts), sum(int(b.start.size) for b in blocks))
