"""The note-hit index (core/scan/notes.py): what the review screen lists and highlights."""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan import ColumnSpans, ScanReport
from deid_desktop.core.scan.notes import index_notes


def test_notes_index_groups_hits_per_note_in_position_order() -> None:
    spans = ColumnSpans(
        "demographics",
        "notes",
        row=np.array([7, 2, 7, 2]),
        start=np.array([30, 12, 4, 0]),
        end=np.array([35, 16, 9, 3]),
        kind=np.array(["PHONE", "NAME", "NAME", "DATE"], dtype=object),
        rule=np.array(["phone", "dict", "dict", "date"], dtype=object),
    )
    index = index_notes(ScanReport(spans=(spans,), columns=(), dictionary_entries=0))
    assert len(index) == 2 and index.total == 4
    key, hits = index.note(0)
    assert key == ("demographics", 2, "notes")
    assert [(h.start, h.kind) for h in hits] == [(0, "DATE"), (12, "NAME")]
    assert index.note(1)[0][1] == 7 and index.hit_count(1) == 2
    assert ("demographics.notes", "NAME", 2) in index.counts


def test_no_scan_is_an_empty_index() -> None:
    index = index_notes(None)
    assert len(index) == 0 and index.total == 0 and index.counts == ()
