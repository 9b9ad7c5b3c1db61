"""The whole wizard on the demo extract, driven as a user drives it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QComboBox, QGroupBox, QLabel, QMessageBox

from deid_desktop.core.model import ColumnClass
from deid_desktop.core.steps import Step
from deid_desktop.gui.main_window import MainWindow
from deid_desktop.gui.models import TagColumn

pytestmark = pytest.mark.slow
WAIT = 60_000


def idle(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=WAIT)


def open_demo(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    assert window.open_demo()
    qtbot.waitUntil(lambda: window.session.extract is not None, timeout=WAIT)
    idle(qtbot, window)


def wait_review(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    page = window.review_page
    qtbot.waitUntil(
        lambda: window.session.review is not None or bool(page.banner.message), timeout=WAIT
    )
    idle(qtbot, window)
    assert window.session.review is not None, page.banner.message


def export_in_window(qtbot, window: MainWindow, out: Path, crosswalk: Path) -> None:  # type: ignore[no-untyped-def]
    """Step 5 as a user does it: go to Export, set both folders, press Export, wait."""
    assert window.go_to(Step.EXPORT)
    export = window.export_page
    export.release_dir.set_path(out)
    export.crosswalk_dir.set_path(crosswalk)
    assert export.export_button.isEnabled(), export.export_reason.text()
    with qtbot.waitSignal(window.session.exportDone, timeout=WAIT):
        export.export_button.click()
    idle(qtbot, window)


def choose_in_cell(
    qtbot, window: MainWindow, table: str, column: str, field: int, label: str
) -> None:  # type: ignore[no-untyped-def]
    """Open the drop-down of one cell of the tag table and pick ``label``, as a user does."""
    page = window.tag_page
    index = page.index_of(table, column, field)
    page.view.setCurrentIndex(index)
    page.view.edit(index)
    editor = page.view.indexWidget(index)
    assert isinstance(editor, QComboBox)
    i = editor.findText(label)
    assert i >= 0, label
    editor.setCurrentIndex(i)
    editor.activated.emit(i)


def test_whole_flow_on_the_demo_writes_the_release(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    s = window.session
    # 1 Load: the preview and the report
    assert window.current_step == Step.LOAD
    assert window.load_page.preview_tabs.count() == 3
    assert "2,432 rows" in window.load_page.report_text()
    window.next_button.click()

    # 2 Tag: accept every suggestion, change one tag, undo it
    assert window.current_step == Step.TAG
    page = window.tag_page
    assert page.model.rowCount() == sum(len(t.columns) for t in s.project.tables)
    page.accept_button.click()
    assert all(c.cls is not None for t in s.project.tables for c in t.columns)
    before = s.project.table("baseline").column("lvef")
    choose_in_cell(qtbot, window, "baseline", "lvef", TagColumn.CLASS, "Quasi-identifier")
    assert s.project.table("baseline").column("lvef").cls == ColumnClass.QUASI
    assert s.dirty and window.isWindowModified()
    window.act_undo.trigger()
    assert s.project.table("baseline").column("lvef") == before
    window.act_redo.trigger()
    window.act_undo.trigger()
    window.next_button.click()

    # 3 Pathway: Safe Harbor with its options
    assert window.current_step == Step.PATHWAY
    assert window.pathway_page.pathway_buttons[
        next(iter(window.pathway_page.pathway_buttons))
    ].isChecked()
    assert "2020" in window.pathway_page.zip3_label.text()
    window.next_button.click()

    # 4 Review: runs on entry; every blocking check passes
    assert window.current_step == Step.REVIEW
    wait_review(qtbot, window)
    review = window.review_page
    assert review.checks.topLevelItemCount() == len(s.review.verification.outcomes)
    assert all(
        review.checks.topLevelItem(i).text(0) == "Pass"
        for i in range(review.checks.topLevelItemCount())
    )
    assert review.figure_labels["k"].text() == str(s.review.risk.k)
    assert review.lone_model.rowCount() == s.review.risk.lone
    assert review.text.notes_model.rowCount() > 0  # the demo's notes mention people
    review.text.step_hit(1)
    assert review.text.note_view.extraSelections()
    assert "cannot" in review.text.text_warning.message
    assert window.next_button.isEnabled()
    window.next_button.click()

    # 5 Export to two separate folders
    assert window.current_step == Step.EXPORT
    export = window.export_page
    out, cw = tmp_path / "release", tmp_path / "crosswalk"
    export.release_dir.set_path(out)
    export.crosswalk_dir.set_path(cw)
    export.purpose.setText("HF-HOME secondary analysis")
    export.recipient.setText("Biostatistics core")
    export.retention.setText("5 years")
    export.dua.setText("DUA-2026-014")
    export._meta_changed()
    # the sample review panel's result (driven in test_scan_panel) travels to the record
    from deid_desktop.core.scan.sample import SampleReview

    s.sample_review = SampleReview(sample=[2, 7], reviewer="R. Viewer")
    s.sample_review.mark_clean(2)
    s.sample_review.mark_missed(7, "LOCATION")
    assert export.export_button.isEnabled(), export.export_reason.text()
    with qtbot.waitSignal(s.exportDone, timeout=WAIT):
        export.export_button.click()
    idle(qtbot, window)
    record = json.loads((out / "export_record.json").read_text(encoding="utf-8"))
    assert record["sample_review"] == {
        "notes_in_sample": 2,
        "notes_reviewed": 2,
        "notes_with_misses": 1,
        "misses_by_kind": {"LOCATION": 1},
        "reviewer": "R. Viewer",
    }
    assert record["written_scan"]["hits"] == 0
    written = {p.name for p in out.iterdir()}
    assert {"demographics.csv", "baseline.csv", "visits.csv", "README.txt"} <= written
    assert "export_record.json" in written
    assert any(cw.iterdir()) and not (set(p.name for p in cw.iterdir()) & written - {"README.txt"})
    assert export.result_box.isVisible()
    assert export.files.rowCount() == len(list(out.iterdir())) + len(list(cw.iterdir()))
    assert "HF-HOME secondary analysis" in (out / "export_record.json").read_text()


def test_the_gate_blocks_export_when_a_check_fails(qtbot, window: MainWindow, dialogs) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    s = window.session
    window.next_button.click()
    # a date of birth mistaken for clinical data would survive whole into the release
    dialogs.answer("question", QMessageBox.StandardButton.Yes)  # "less protective?"
    choose_in_cell(qtbot, window, "demographics", "dob", TagColumn.CLASS, "Clinical")
    choose_in_cell(qtbot, window, "demographics", "dob", TagColumn.ROLE, "—")
    dob = s.project.table("demographics").column("dob")
    assert (dob.cls, dob.role) == (ColumnClass.CLINICAL, None)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    first = window.review_page.checks.topLevelItem(0)
    assert first.text(0) == "FAIL"  # failed checks are listed first
    assert "Export is blocked" in window.review_page.gate.message
    assert not window.next_button.isEnabled()
    assert "blocking check" in window.next_reason.text()
    assert not window.go_to(Step.EXPORT) and window.current_step == Step.REVIEW
    assert "blocking" in window.steps.item(4).toolTip()
    assert not window.export_page.export_button.isEnabled()
    # putting the tag back (undo twice) re-runs the review and opens the gate
    window.act_undo.trigger()
    window.act_undo.trigger()
    qtbot.waitUntil(lambda: s.review is not None and not window.runner.busy, timeout=WAIT)
    assert window.go_to(Step.EXPORT)


def test_cancelling_the_review_leaves_no_result(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    window.go_to(Step.TAG)
    window.go_to(Step.PATHWAY)
    window.review_page.run_review()
    window.progress.cancel_button.click()
    idle(qtbot, window)
    assert window.session.review is None
    assert "cancelled" in window.review_page.gate.message.lower()


def test_a_ragged_csv_shows_file_and_line_and_no_traceback(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "ragged.csv"
    bad.write_text("patient_id,age,sex\nP1,50,F\nP2,61\nP3,70,M\n", encoding="utf-8")
    window.new_project([bad])
    idle(qtbot, window)
    text = window.load_page.banner.message
    assert "ragged.csv" in text and "line 3" in text
    assert "Traceback" not in text and "P2" not in text
    assert not window.load_page.create_button.isEnabled()


def test_new_project_from_a_table_save_and_reopen(
    qtbot, window: MainWindow, dialogs, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from deid_desktop.core.demo import write_demo

    src = write_demo(tmp_path / "extract").parent
    dialogs.answer("getOpenFileName", (str(src / "demographics.csv"), ""))
    window.new_project()
    window.load_page.person_button.click()
    idle(qtbot, window)
    dialogs.answer("getOpenFileNames", ([str(src / "visits.csv")], ""))
    window.load_page.event_button.click()
    idle(qtbot, window)
    assert window.load_page.create_button.isEnabled()
    window.load_page.create_button.click()
    s = window.session
    assert s.project is not None and s.extract is not None and s.dirty
    assert [t.name for t in s.project.tables] == ["demographics", "visits"]
    target = tmp_path / "mine.deid.json"
    dialogs.answer("getSaveFileName", (str(target), ""))
    window.act_save.trigger()
    assert target.exists() and not s.dirty
    assert window.recent_files()[0] == str(target.resolve())
    # closing with unsaved changes asks; Cancel keeps the project open
    window.tag_page.accept_all()
    s.update(seed=99)
    dialogs.answer("question", QMessageBox.StandardButton.Cancel)
    window.act_close.trigger()
    assert s.project is not None
    dialogs.answer("question", QMessageBox.StandardButton.Discard)
    window.act_close.trigger()
    assert s.project is None and window.stack.currentWidget() is window.start
    assert window.open_project(target)
    idle(qtbot, window)
    assert s.extract is not None, window.load_page.banner.message
    assert s.project.seed != 99


def test_keyboard_users_reach_every_control(window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Every interactive control has an accessible name and takes keyboard focus."""
    from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QLineEdit, QSpinBox

    window.new_project()
    missing = []
    for page in window.pages:
        for w in (
            page.findChildren(QAbstractButton)
            + page.findChildren(QLineEdit)
            + page.findChildren(QSpinBox)
            + page.findChildren(QComboBox)
            + page.findChildren(QAbstractItemView)
        ):
            if w.window() is not window:  # combo-box pop-ups
                continue
            if isinstance(w, QLineEdit) and isinstance(w.parent(), QSpinBox | QComboBox):
                continue
            if w.parent() is not None and w.parent().inherits("QAbstractSpinBox"):
                continue
            if type(w).__name__ == "QHeaderView" or w.objectName().startswith("qt_"):
                continue
            if not w.accessibleName() and not (isinstance(w, QAbstractButton) and w.text()):
                missing.append(f"{page.title}: {type(w).__name__} {w.objectName()}")
            if w.focusPolicy() == Qt.FocusPolicy.NoFocus:
                missing.append(f"{page.title}: {type(w).__name__} takes no focus")
    assert missing == []


def test_raising_k_from_the_review_page_is_saved_in_the_project(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    s = window.session
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    page = window.review_page
    before = s.review.risk
    # the rows suppression would remove are shown before the user commits
    assert f"{before.below_k:,} of {before.rows:,} rows" in page.suppress_preview.text()
    page.age_bands_on.setChecked(True)
    page.suppress.setChecked(True)
    page.apply_button.click()
    assert s.project.risk.age_bands == (0, 18, 30, 45, 65, 75, 90)
    assert s.project.risk.suppress_below_k and s.dirty
    wait_review(qtbot, window)
    after = s.review.risk
    assert after.k is not None and after.k >= s.project.risk.k_target
    assert sum(s.review.release.suppressed_rows.values()) > 0
    assert page.figure_labels["lone"].text() == "0"


def test_choosing_to_redact_a_free_text_column_is_recorded(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    from deid_desktop.core.model import FreeTextAction

    open_demo(qtbot, window)
    s = window.session
    assert window.go_to(Step.PATHWAY)
    combo = window.pathway_page.free_text.cellWidget(0, 1)
    assert isinstance(combo, QComboBox)
    combo.setCurrentIndex(combo.findData(FreeTextAction.REDACT.value))
    assert s.project.transform.free_text == {"demographics.notes": FreeTextAction.REDACT}
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    released = s.review.release.tables["demographics"]
    assert "notes" in released.columns  # kept, with every scan hit replaced by [KIND]
    assert released["notes"].str.contains(r"\[NAME\]", regex=True).any()


def test_risk_figures_are_not_clipped_nor_overlap_the_controls(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.resize(1200, 780)  # the default window size
    open_demo(qtbot, window)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    page = window.review_page
    page.tabs.setCurrentIndex(1)
    qtbot.wait(50)
    (controls,) = [g for g in page.findChildren(QGroupBox) if g.title().startswith("Raise k")]
    box = QRect(controls.mapTo(window, QPoint(0, 0)), controls.size())
    # the group title is drawn just above the frame; a figure must also not touch it:
    # keep a visible gap of 12 px around the box
    box.adjust(-12, -controls.fontMetrics().height() - 12, 12, 12)
    labels = [lbl for lbl in page.findChildren(QLabel) if lbl.toolTip()]
    figures = [lbl for lbl in labels if lbl in page.figure_labels.values()] + [
        lbl for lbl in labels if lbl.text() == "Prosecutor risk (max / mean)"
    ]
    assert len(figures) == 6
    for label in figures:
        rect = QRect(label.mapTo(window, QPoint(0, 0)), label.size())
        assert label.width() >= label.sizeHint().width(), label.text()  # not clipped
        assert not rect.intersects(box), label.text()
