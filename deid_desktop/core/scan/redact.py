"""'Redact hits': each hit's span replaced by [KIND]; overlapping spans merged."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Protocol

import pandas as pd


class _Span(Protocol):
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def kind(self) -> str: ...


def merge_spans(hits: Iterable[_Span]) -> list[tuple[int, int, str]]:
    """Sorted, non-overlapping spans; a merged span keeps the kind of its first hit."""
    spans = sorted((h.start, h.end, h.kind) for h in hits if h.end > h.start)
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in spans:
        if merged and start < merged[-1][1]:
            s, e, k = merged[-1]
            merged[-1] = (s, max(e, end), k)
        else:
            merged.append((start, end, kind))
    return merged


def redact_text(text: str, hits: Iterable[_Span]) -> str:
    """``text`` with each hit span replaced by ``[KIND]``."""
    parts: list[str] = []
    pos = 0
    for start, end, kind in merge_spans(hits):
        parts.append(text[pos:start])
        parts.append(f"[{kind}]")
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


class _RowHit(_Span, Protocol):
    @property
    def row(self) -> int: ...


#: Redaction levels: which confidences each redacts.
REDACT_LEVELS = {
    "high": ("high",),
    "high_medium": ("high", "medium"),
    "medium": ("high", "medium"),  # the same as high_medium
    "all": ("high", "medium", "low"),
}


def redact_column(
    series: pd.Series, hits_for_column: Iterable[_RowHit], *, level: str = "all"
) -> pd.Series:
    """A copy of ``series`` with the hits of each row (0-based position) redacted: only
    those whose confidence ``level`` covers ("high", "high_medium" or "medium" = high and
    medium, "all")."""
    wanted = REDACT_LEVELS[level]
    by_row: dict[int, list[_RowHit]] = defaultdict(list)
    for h in hits_for_column:
        if getattr(h, "confidence", "high") in wanted:
            by_row[h.row].append(h)
    out = series.copy()
    if not by_row:
        return out
    positions = sorted(by_row)
    values = series.iloc[positions].tolist()
    out.iloc[positions] = [
        redact_text(v, by_row[p]) for p, v in zip(positions, values, strict=True)
    ]
    return out
