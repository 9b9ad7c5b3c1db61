"""What a scan found: hits as positions (never text), counts, and the plain disclaimer."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from typing import Any, NamedTuple

import numpy as np

DISCLAIMER = (
    "This scan looks for identifiers it knows about: the values of the extract's own "
    "identifier columns (names, record numbers, phones, e-mails, SSNs), common patterns "
    "(phone and social security numbers, e-mail and web addresses, dates with or without "
    "a year, ages over 89, record-number-like codes, IP addresses, 5-digit ZIP codes, "
    "street addresses and P.O. boxes), names after cues such as 'Mr.', 'Dr.', 'RN' or "
    "'daughter', common US given names and surnames, US towns and facility names, and "
    "the site list you keep. It cannot prove a note clean. It cannot find a name that is "
    "in no column and in no name list unless a cue happens to precede it, nor "
    "misspellings, nicknames or identifiers written in unusual ways. That is why free "
    "text is suppressed by default and redacting hits is an explicit choice."
)

#: Hit kinds; "redact hits" writes each as [KIND].
KINDS = (
    "NAME", "MRN", "PHONE", "EMAIL", "SSN", "ID", "DATE", "URL", "IP", "ZIP", "AGE", "LOCATION"
)  # fmt: skip


class Hit(NamedTuple):
    """One finding: table, 0-based frame row (position), column, span [start, end) in the
    cell, kind and the rule that fired. The matched text is never stored: slice the cell
    with ``text_in`` to show it on screen."""

    table: str
    row: int
    column: str
    start: int
    end: int
    kind: str
    rule: str
    confidence: str = "high"

    def text_in(self, cell: str) -> str:
        return cell[self.start : self.end]

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "row": self.row,
            "column": self.column,
            "start": self.start,
            "end": self.end,
            "kind": self.kind,
            "rule": self.rule,
            "confidence": self.confidence,
        }


@dataclass(frozen=True)
class ColumnScan:
    """Per scanned column: notes scanned, notes with at least one hit, hits by kind."""

    table: str
    column: str
    notes: int
    notes_with_hits: int
    characters: int
    hits_by_kind: dict[str, int]
    hits_by_confidence: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class ColumnSpans:
    """The hits of one column as parallel arrays (rows are 0-based frame positions)."""

    table: str
    column: str
    row: np.ndarray
    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray  # object array of kind names
    rule: np.ndarray  # object array of rule names
    confidence: np.ndarray | None = None  # object array of levels (None: all high)

    def hits(self) -> list[Hit]:
        new = tuple.__new__
        conf = repeat("high") if self.confidence is None else self.confidence.tolist()
        return [
            new(Hit, t)
            for t in zip(
                repeat(self.table),
                self.row.tolist(),
                repeat(self.column),
                self.start.tolist(),
                self.end.tolist(),
                self.kind.tolist(),
                self.rule.tolist(),
                conf,
                strict=False,
            )
        ]


@dataclass(frozen=True, eq=False)
class ScanReport:
    """What the scan found. Hit objects are made on first use of ``hits``; the spans are
    held as arrays per column (``spans``)."""

    spans: tuple[ColumnSpans, ...]
    columns: tuple[ColumnScan, ...]
    dictionary_entries: int
    disclaimer: str = DISCLAIMER

    @cached_property
    def hits(self) -> tuple[Hit, ...]:
        return tuple(h for s in self.spans for h in s.hits())

    @property
    def total_hits(self) -> int:
        return sum(int(s.row.size) for s in self.spans)

    @property
    def notes_with_hits(self) -> int:
        return sum(c.notes_with_hits for c in self.columns)

    def hits_for(self, table: str, column: str) -> list[Hit]:
        return [h for s in self.spans if (s.table, s.column) == (table, column) for h in s.hits()]

    def spans_for(self, table: str, column: str) -> tuple[ColumnSpans, ...]:
        """The hits of one column as arrays (``redact.redact_spans`` reads them)."""
        return tuple(s for s in self.spans if (s.table, s.column) == (table, column))

    def by_kind(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for c in self.columns:
            total.update(c.hits_by_kind)
        return dict(sorted(total.items()))

    def by_confidence(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for c in self.columns:
            total.update(c.hits_by_confidence)
        return {lv: total[lv] for lv in ("high", "medium", "low") if total[lv]}

    def summary_dict(self) -> dict[str, Any]:
        """Counts only, safe for logs and the export record."""
        return {
            "hits": self.total_hits,
            "by_kind": self.by_kind(),
            "by_confidence": self.by_confidence(),
            "notes_with_hits": self.notes_with_hits,
            "dictionary_entries": self.dictionary_entries,
            "columns": [
                {
                    "table": c.table,
                    "column": c.column,
                    "notes": c.notes,
                    "notes_with_hits": c.notes_with_hits,
                    "characters": c.characters,
                    "hits_by_kind": dict(sorted(c.hits_by_kind.items())),
                    "hits_by_confidence": dict(c.hits_by_confidence),
                }
                for c in self.columns
            ],
            "disclaimer": self.disclaimer,
        }

    def to_dict(self, *, include_hits: bool = True) -> dict[str, Any]:
        """Counts plus every hit as positions; never the matched text."""
        out = self.summary_dict()
        if include_hits:
            out["hit_list"] = [h.as_dict() for h in self.hits]
        return out
