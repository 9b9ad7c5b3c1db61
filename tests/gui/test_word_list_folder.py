"""The GUI keeps the project word list where `deid run` reads it: in the crosswalk folder
chosen on the Export step (else the default one beside the project). A word added in the
sample review is found by the next review and redacted at export; a crosswalk folder
holding another word list than the review's blocks the export until the review runs
again."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog, QPushButton

from deid_desktop.core.demo import write_demo
from deid_desktop.core.model import FreeTextAction
from deid_desktop.core.project import load_project, save_project
from deid_desktop.core.steps import Step
from deid_desktop.gui.main_window import MainWindow
from deid_desktop.gui.scan_panel import SampleReviewPanel
from tests.gui.test_flow import WAIT, export_in_window, idle, wait_review

pytestmark = pytest.mark.slow
TERM = "furosemide"  # in 147 demo notes; no identifier shape, not in the dictionary


def _demo_redacting_notes(folder: Path) -> Path:
    path = write_demo(folder)
    project = load_project(path)
    free_text = {"demographics.notes": FreeTextAction.REDACT}
    transform = dataclasses.replace(project.transform, free_text=free_text)
    save_project(dataclasses.replace(project, transform=transform), path)
    return path


def _add_missed_word_in_sample_review(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Open the sample review from the Review step, mark a note holding TERM as missed
    with TERM as the missed words, close the dialog."""
    done: list[bool] = []

    def act() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QDialog):
            QTimer.singleShot(20, act)
            return
        panel = dialog.findChild(SampleReviewPanel)
        at = next(i for i, n in enumerate(panel.review.sample) if TERM in panel._notes[n])
        panel.go(at)
        panel.miss_kind.setCurrentText("OTHER")
        qtbot.keyClicks(panel.word_term, TERM)
        panel.missed_button.click()
        done.append(panel.words_added == 1)
        dialog.reject()

    QTimer.singleShot(0, act)
    button = window.review_page.text.findChild(QPushButton, "sample_review")
    button.click()  # modal: returns when act() closed it
    assert done == [True]


def _ids_in_notes(window: MainWindow) -> int:
    review = window.session.review
    assert review is not None and review.scan is not None
    scanned = {(c.table, c.column): c for c in review.scan.columns}
    return scanned[("demographics", "notes")].hits_by_kind.get("ID", 0)


def test_a_word_added_in_the_sample_review_goes_to_the_chosen_crosswalk_folder(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    demo = _demo_redacting_notes(tmp_path / "demo")
    assert window.open_project(demo)
    qtbot.waitUntil(lambda: window.session.extract is not None, timeout=WAIT)
    idle(qtbot, window)
    s = window.session
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    before = _ids_in_notes(window)
    # the user picks their own crosswalk folder first (its word list is empty, as the
    # default one is: the review stays valid)
    mine, out = tmp_path / "my crosswalk", tmp_path / "release"
    assert window.go_to(Step.EXPORT)
    window.export_page.crosswalk_dir.set_path(mine)
    assert window.export_page.export_button.isEnabled(), window.export_page.export_reason.text()
    assert window.go_to(Step.REVIEW)

    _add_missed_word_in_sample_review(qtbot, window)
    assert (mine / "word-list.txt").read_text(encoding="utf-8") == f"OTHER\t{TERM}\n"
    assert not (demo.parent / "crosswalk" / "word-list.txt").exists()  # not the default
    assert TERM not in demo.read_text(encoding="utf-8")  # nor the project file
    # the word list changed: the review runs again and finds the word in every note
    wait_review(qtbot, window)
    assert s.review is not None and s.review.word_list == {"terms": 1, "by_kind": {"OTHER": 1}}
    assert _ids_in_notes(window) >= before + 147  # an OTHER term is flagged as an ID

    export_in_window(qtbot, window, out, mine)
    record = json.loads((out / "export_record.json").read_text(encoding="utf-8"))
    assert record["word_list"] == {"terms": 1, "by_kind": {"OTHER": 1}}
    for path in out.iterdir():
        assert TERM not in path.read_bytes().decode("utf-8", "replace").lower(), path.name


def test_a_crosswalk_folder_with_another_word_list_blocks_export_until_reviewed(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    demo = _demo_redacting_notes(tmp_path / "demo")
    other = tmp_path / "other crosswalk"
    other.mkdir()
    (other / "word-list.txt").write_text(f"OTHER\t{TERM}\n", encoding="utf-8")
    assert window.open_project(demo)
    qtbot.waitUntil(lambda: window.session.extract is not None, timeout=WAIT)
    idle(qtbot, window)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    assert window.session.review.word_list == {"terms": 0, "by_kind": {}}
    assert window.go_to(Step.EXPORT)
    export = window.export_page
    export.release_dir.set_path(tmp_path / "release")
    export.crosswalk_dir.set_path(other)
    assert not export.export_button.isEnabled()
    assert "another word list" in export.export_reason.text()
    shots = Path(os.environ.get("DEID_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    export.scroll.ensureWidgetVisible(export.export_button)
    assert export.grab().save(str(shots / "export_word_list_changed.png"))
    # reviewing again reads that folder's list; then the export is open
    assert window.go_to(Step.REVIEW)
    window.review_page.rerun_button.click()
    wait_review(qtbot, window)
    assert window.session.review.word_list == {"terms": 1, "by_kind": {"OTHER": 1}}
    assert window.go_to(Step.EXPORT)
    assert export.export_button.isEnabled(), export.export_reason.text()
