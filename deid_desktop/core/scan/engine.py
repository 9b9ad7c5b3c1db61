"""scan_frames: run every finder over the text columns, in batches of joined notes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from deid_desktop.core.errors import UsageError
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.core.scan.dictionary import ScanDictionary
from deid_desktop.core.scan.fold import NOTE_SEP, fold
from deid_desktop.core.scan.patterns import (
    PATTERN,
    Candidate,
    find_digits,
    find_emails_urls,
    find_words,
)
from deid_desktop.core.scan.report import ColumnScan, Hit, ScanReport

#: Characters of note text joined into one batch.
BATCH_CHARS = 4_000_000


def scan_texts(
    texts: Sequence[str], dictionary: ScanDictionary, rep: Reporter | None = None
) -> list[tuple[int, int, int, str, str]]:
    """Hits in a list of notes: (note index, start, end, kind, rule), sorted."""
    ascii_idx = [i for i, t in enumerate(texts) if t.isascii()]
    other_idx = [i for i, t in enumerate(texts) if not t.isascii()]
    total = sum(len(t) for t in texts) or 1
    done = 0
    found: list[tuple[int, int, int, str, str]] = []
    for group in (ascii_idx, other_idx):
        batch: list[int] = []
        size = 0
        for i in [*group, -1]:
            if i >= 0:
                batch.append(i)
                size += len(texts[i]) + 1
                if size < BATCH_CHARS:
                    continue
            if batch:
                found.extend(_scan_batch([texts[j] for j in batch], batch, dictionary))
                done += size
                if rep is not None:
                    rep.step(done / total, "Scanning free text")
            batch, size = [], 0
    if ascii_idx and other_idx:
        found.sort()  # batches are in note order within each group; merge the two groups
    return found


def _scan_batch(
    notes: list[str], note_ids: list[int], dictionary: ScanDictionary
) -> list[tuple[int, int, int, str, str]]:
    text = NOTE_SEP.join(notes)
    folded = fold(text)
    candidates: list[Candidate] = find_words(text, folded, dictionary)
    candidates += find_digits(text, dictionary)
    candidates += find_emails_urls(text, folded)
    if not candidates:
        return []
    lengths = np.fromiter((len(n) for n in notes), dtype=np.int64, count=len(notes))
    starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
    kept = _dedupe(candidates)
    g_start = np.fromiter((c[0] for c in kept), dtype=np.int64, count=len(kept))
    g_end = -np.fromiter((c[1] for c in kept), dtype=np.int64, count=len(kept))
    note = np.searchsorted(starts, g_start, side="right") - 1
    local_start = (g_start - starts[note]).tolist()
    local_end = (g_end - starts[note]).tolist()
    inside = (g_end - starts[note] <= lengths[note]).tolist()
    ids = np.asarray(note_ids, dtype=np.int64)[note].tolist()
    return [
        (n, s, e, c[3], c[4])
        for n, s, e, c, ok in zip(ids, local_start, local_end, kept, inside, strict=True)
        if ok
    ]


def _dedupe(candidates: list[Candidate]) -> list[Candidate]:
    """One hit per span (dictionary beats cue beats pattern), and no pattern hit inside a
    dictionary or cue hit (e.g. the digits of an MRN read as a ZIP)."""
    candidates.sort()  # by start, longest first, then priority
    kept: list[Candidate] = []
    cover_end = -1
    last_start = last_neg_end = None
    for c in candidates:
        start, neg_end, prio = c[0], c[1], c[2]
        if start == last_start and neg_end == last_neg_end:
            continue
        last_start, last_neg_end = start, neg_end
        if prio == PATTERN:
            if -neg_end <= cover_end:
                continue
        elif -neg_end > cover_end:
            cover_end = -neg_end
        kept.append(c)
    return kept


def scan_frames(
    frames: Mapping[str, pd.DataFrame],
    text_columns: Mapping[str, Sequence[str]],
    dictionary: ScanDictionary,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> ScanReport:
    """Scan the given text columns of the given tables. Rows are 0-based positions."""
    jobs = [(t, c) for t, cols in text_columns.items() for c in cols]
    for table, column in jobs:
        if table not in frames:
            raise UsageError(f"There is no table '{table}' to scan.", hint="Check the table name.")
        if column not in frames[table].columns:
            raise UsageError(
                f"The table '{table}' has no column '{column}' to scan.",
                hint="Choose among: " + ", ".join(str(c) for c in frames[table].columns),
            )
    rep = Reporter(progress, cancel)
    hits: list[Hit] = []
    columns: list[ColumnScan] = []
    for j, (table, column) in enumerate(jobs):
        series = frames[table][column]
        present = series.notna().to_numpy(dtype=bool)
        positions = np.flatnonzero(present)
        texts = [str(v) for v in series.iloc[positions].tolist()]
        sub = rep.sub(j / len(jobs), (j + 1) / len(jobs))
        sub.step(0.0, "Scanning free text")
        found = scan_texts(texts, dictionary, sub)
        rows = positions.tolist()
        new = tuple.__new__
        col_hits = [new(Hit, (table, rows[i], column, s, e, k, r)) for i, s, e, k, r in found]
        hits.extend(col_hits)
        columns.append(
            ColumnScan(
                table=table,
                column=column,
                notes=len(texts),
                notes_with_hits=len({h.row for h in col_hits}),
                characters=sum(len(t) for t in texts),
                hits_by_kind=dict(Counter(h.kind for h in col_hits)),
            )
        )
    rep.step(1.0, "Scan finished")
    return ScanReport(hits=tuple(hits), columns=tuple(columns), dictionary_entries=len(dictionary))
