"""'Redact hits': each hit's span replaced by [KIND]; overlapping spans merged.

A whole column is redacted from its hits as arrays (``redact_spans``): the spans are
filtered, sorted and merged with numpy, and each note with hits is rebuilt once from
its merged spans (an Arrow column's notes as bytes, in numpy: ``_spliced``);
``redact_text`` is the one-note reference.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.text import arrow_text, value_bytes

if TYPE_CHECKING:
    from deid_desktop.core.scan.report import ColumnSpans


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


class Redacted(NamedTuple):
    """A redacted column, the hits redacted in it and the notes they were in, and the
    hits left as written (below the redaction level)."""

    series: pd.Series
    hits: int
    notes: int
    left: int = 0


def redact_column(
    series: pd.Series, hits_for_column: Iterable[_RowHit], *, level: str = "all"
) -> pd.Series:
    """A copy of ``series`` with the hits of each row (0-based position) redacted: only
    those whose confidence ``level`` covers ("high", "high_medium" or "medium" = high and
    medium, "all")."""
    hits = list(hits_for_column)
    conf = np.asarray([getattr(h, "confidence", "high") for h in hits], dtype=object)
    return _redact(
        series,
        np.fromiter((h.row for h in hits), np.int64, len(hits)),
        np.fromiter((h.start for h in hits), np.int64, len(hits)),
        np.fromiter((h.end for h in hits), np.int64, len(hits)),
        np.asarray([h.kind for h in hits], dtype=object),
        np.isin(conf, REDACT_LEVELS[level]) if hits else np.zeros(0, dtype=bool),
    ).series


def redact_spans(
    series: pd.Series, spans: Iterable[ColumnSpans], *, level: str = "all"
) -> Redacted:
    """``redact_column`` of a column's hits as arrays (``ScanReport.spans_for``): the
    redacted copy, the number of hits of ``level`` redacted and of notes they were in."""
    parts = list(spans)
    if not parts:
        return Redacted(series.copy(), 0, 0)
    row, start, end = (
        np.concatenate([np.asarray(getattr(sp, f), dtype=np.int64) for sp in parts])
        for f in ("row", "start", "end")
    )
    kind = np.concatenate([np.asarray(sp.kind, dtype=object) for sp in parts])
    wanted = REDACT_LEVELS[level]
    keep = np.concatenate(
        [
            np.full(sp.row.size, "high" in wanted, dtype=bool)
            if sp.confidence is None
            else np.isin(np.asarray(sp.confidence, dtype=object), wanted)
            for sp in parts
        ]
    )
    out = _redact(series, row, start, end, kind, keep)
    counted = np.sort(row[keep])  # sorted, not np.unique: numpy 2.4 hashes ints to
    # their distinct values, ~15 times slower than a sort at 250k rows of notes
    notes = int(counted.size and 1 + np.count_nonzero(counted[1:] != counted[:-1]))
    left = int(row.size - counted.size)
    return Redacted(out.series, int(counted.size), notes, left)


def _redact(
    series: pd.Series,
    row: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    kind: np.ndarray,
    keep: np.ndarray,
) -> Redacted:
    """``series`` with the spans where ``keep`` redacted, as ``redact_text`` does per
    note: the spans of a row sorted by (start, end, kind) and merged where one starts
    before the reach of those before it (a merged span keeps its first kind)."""
    out = series.copy()
    keep = keep & (end > start)
    if not keep.any():
        return Redacted(out, 0, 0)
    row, start, end, kind = row[keep], start[keep], end[keep], kind[keep]
    names, kind_rank = np.unique(kind.astype(str), return_inverse=True)  # sorted as str
    order = np.lexsort((kind_rank, end, start, row))
    row, start, end, kind_rank = row[order], start[order], end[order], kind_rank[order]
    # the reach of the spans before each one in its row (rows ascending, so a row's
    # offset keeps an earlier row's ends below its own)
    width = int(end.max()) + 1
    reach = np.maximum.accumulate(row * width + end) - row * width
    head = np.ones(row.size, dtype=bool)
    head[1:] = (row[1:] != row[:-1]) | (start[1:] >= reach[:-1])
    first = np.flatnonzero(head)
    m_start = start[first]
    m_end = np.maximum.reduceat(end, first)
    m_row = row[first]
    rows, at = np.unique(m_row, return_index=True)
    if isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow":
        spliced = _spliced(series, rows, at, m_start, m_end, kind_rank[first], names.tolist())
        return Redacted(spliced, int(row.size), int(rows.size))
    labels = np.asarray([f"[{k}]" for k in names.tolist()], dtype=object)[kind_rank[first]]
    bounds = np.append(at, m_row.size).tolist()
    values = series.iloc[rows].tolist()
    s_list, e_list, l_list = m_start.tolist(), m_end.tolist(), labels.tolist()
    new: list[str] = []
    for k, text in enumerate(values):
        parts: list[str] = []
        pos = 0
        for j in range(bounds[k], bounds[k + 1]):
            parts.append(text[pos : s_list[j]])
            parts.append(l_list[j])
            pos = e_list[j]
        parts.append(text[pos:])
        new.append("".join(parts))
    out.iloc[rows] = new
    return Redacted(out, int(row.size), int(rows.size))


def _spliced(
    series: pd.Series,
    rows: np.ndarray,
    at: np.ndarray,
    m_start: np.ndarray,
    m_end: np.ndarray,
    label: np.ndarray,
    names: list[str],
) -> pd.Series:
    """``series`` (Arrow text) with the merged spans of each note in ``rows`` (spans
    ``at[k]`` up to ``at[k + 1]`` of ``m_start``/``m_end``, character offsets, sorted and
    apart) replaced by ``[names[label]]``, as the Python loop of ``_redact`` does: the
    notes' bytes are cut into pieces (text between spans, labels, the text after the
    last span) and gathered in one numpy pass. Offsets past a note's end read as its
    end, as Python's slicing does."""
    text = arrow_text(series)
    picked = text.take(pa.array(rows))
    found = value_bytes(picked)
    assert found is not None
    data, starts, ends = found
    n_sp, n_rows = m_start.size, rows.size
    owner = np.repeat(np.arange(n_rows), np.diff(np.append(at, n_sp)))
    size_of = (ends - starts)[owner]
    wide = np.zeros(n_rows, dtype=bool)  # notes holding a character beyond ASCII
    wide[np.searchsorted(starts, np.flatnonzero(data >= 0x80), side="right") - 1] = True

    prev_end = np.empty(n_sp, dtype=np.int64)
    prev_end[1:] = m_end[:-1]
    prev_end[at] = 0
    # a character is a byte in an ASCII note; in the others its byte is counted
    b_pos, b_start, b_end = (np.minimum(c, size_of) for c in (prev_end, m_start, m_end))
    for j in np.flatnonzero(wide[owner]).tolist():
        k = int(owner[j])
        note = data[starts[k] : ends[k]].tobytes().decode("utf-8")
        for b, c in ((b_pos, prev_end), (b_start, m_start), (b_end, m_end)):
            b[j] = len(note[: int(c[j])].encode("utf-8"))
    encoded = [f"[{n}]".encode() for n in names]
    lab_len = np.asarray([len(e) for e in encoded], dtype=np.int64)
    lab_off = np.cumsum(lab_len) - lab_len + data.size  # after the notes' bytes
    source = np.concatenate([data, np.frombuffer(b"".join(encoded), dtype=np.uint8)])
    # pieces in output order: per span its gap and label, per note then its tail
    src = np.empty(2 * n_sp + n_rows, dtype=np.int64)
    size = np.empty(2 * n_sp + n_rows, dtype=np.int64)
    gap = 2 * np.arange(n_sp, dtype=np.int64) + owner
    src[gap], size[gap] = starts[owner] + b_pos, np.maximum(b_start - b_pos, 0)
    src[gap + 1], size[gap + 1] = lab_off[label], lab_len[label]
    last = np.append(at[1:], n_sp) - 1
    tail = 2 * (last + 1) + np.arange(n_rows, dtype=np.int64)
    src[tail] = starts + b_end[last]
    size[tail] = ends - src[tail]
    reach = np.cumsum(size)
    index = np.int32 if source.size < 2**31 else np.int64
    gather = np.repeat((src - (reach - size)).astype(index), size)
    gather += np.arange(int(reach[-1]), dtype=index)
    new = pa.LargeStringArray.from_buffers(
        n_rows,
        pa.py_buffer(np.concatenate([[0], reach[tail]]).astype(np.int64)),
        pa.py_buffer(source[gather]),
    )
    mask = np.zeros(len(text), dtype=bool)
    mask[rows] = True
    out = pc.replace_with_mask(text, pa.array(mask), new)
    return pd.Series(
        series.dtype.__from_arrow__(pa.chunked_array([out])),
        index=series.index,
        name=series.name,
        copy=False,
    )
