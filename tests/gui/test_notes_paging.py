"""The free-text panel's list of notes with hits comes in pages: a scan with thousands
of notes lists the first page, more as the list is scrolled, and the hit navigation
reaches every note (the right note, the right line)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from deid_desktop.core.scan import ColumnSpans, ScanReport
from deid_desktop.core.scan.notes import index_notes
from deid_desktop.gui.pages.review_text import NOTES_PAGE, NotesModel

NOTES = 2 * NOTES_PAGE + 37  # two full pages and a part


def many_notes() -> ScanReport:
    """One hit in each of NOTES notes (rows 0, 3, 6, ...), a second hit in the last one."""
    rows = np.arange(NOTES, dtype=np.int64) * 3
    row = np.append(rows, rows[-1])
    start = np.append(np.zeros(NOTES, dtype=np.int64), 10)
    kind = np.array(["NAME"] * NOTES + ["PHONE"], dtype=object)
    spans = ColumnSpans(
        "demographics", "notes", row=row, start=start, end=start + 4, kind=kind,
        rule=np.array(["dict"] * (NOTES + 1), dtype=object),
    )  # fmt: skip
    return ScanReport(spans=(spans,), columns=(), dictionary_entries=0)


def test_the_list_holds_one_page_and_grows_as_it_is_scrolled(qtbot) -> None:  # type: ignore[no-untyped-def]
    model = NotesModel()
    model.set_index(index_notes(many_notes()))
    assert model.rowCount() == NOTES_PAGE and model.total == NOTES
    assert model.canFetchMore(model.index(-1))
    model.fetchMore(model.index(-1))
    assert model.rowCount() == 2 * NOTES_PAGE
    model.fetchMore(model.index(-1))
    assert model.rowCount() == NOTES and not model.canFetchMore(model.index(-1))
    # every row shows its own note: row i is line 3 i + 2 of the file
    assert model.data(model.index(NOTES_PAGE + 1)) == f"Line {3 * (NOTES_PAGE + 1) + 2}: NAME"
    last = model.index(NOTES - 1)
    assert model.data(last) == f"Line {3 * (NOTES - 1) + 2}: NAME, PHONE"
    assert "2 hit(s)" in model.data(last, Qt.ItemDataRole.ToolTipRole)


def test_previous_hit_from_the_first_note_reaches_the_last_one(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    from types import SimpleNamespace

    panel = window.review_page.text
    scan = many_notes()
    review = SimpleNamespace(scan=scan)
    panel.show_scan(review, index_notes(scan))  # type: ignore[arg-type]
    model = panel.notes_model
    assert model.rowCount() == NOTES_PAGE
    assert panel.hit_label.text() == f"{NOTES + 1:,} hits in {NOTES:,} notes"
    panel.step_hit(-1)  # before the first hit: the last hit of the last note
    assert model.rowCount() == NOTES
    assert panel.notes.currentIndex().row() == NOTES - 1
    assert panel.hit_label.text() == f"Note {NOTES:,} of {NOTES:,}, hit 2 of 2"


def test_scrolling_the_view_to_the_end_fetches_the_next_page(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QListView

    model = NotesModel()
    model.set_index(index_notes(many_notes()))
    view = QListView()
    qtbot.addWidget(view)
    view.setUniformItemSizes(True)
    view.setModel(model)
    view.resize(200, 300)
    view.show()
    qtbot.waitExposed(view)
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: model.rowCount() > NOTES_PAGE, timeout=5000)
