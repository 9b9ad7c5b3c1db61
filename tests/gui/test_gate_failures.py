"""A failed check is actionable: one plain sentence naming the column with counts in
words, shown in full, and a Go to that opens the step with the column selected."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from deid_desktop.core.model import ColumnClass
from deid_desktop.core.steps import Step
from deid_desktop.gui.main_window import MainWindow
from deid_desktop.gui.models import TagColumn
from tests.gui.test_flow import choose_in_cell, open_demo, wait_review

pytestmark = pytest.mark.slow


def test_a_failed_check_says_which_column_and_goes_there(
    qtbot, window: MainWindow, dialogs
) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    s = window.session
    window.next_button.click()
    # a phone number mistaken for clinical data survives into the release
    dialogs.answer("question", QMessageBox.StandardButton.Yes)  # "less protective?"
    choose_in_cell(qtbot, window, "demographics", "phone", TagColumn.CLASS, "Clinical")
    assert s.project.table("demographics").column("phone").cls == ColumnClass.CLINICAL
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    page = window.review_page
    panel = page.failures
    assert panel.isVisible() and panel.rows
    sentences = [label.text() for _f, label, _b in panel.rows]
    assert any("demographics.phone" in t for t in sentences), sentences
    for _f, label, button in panel.rows:
        assert label.wordWrap() and "; sampled:" not in label.text()  # words, not fields
        assert button.text().startswith("Go to step")
    assert "Fix them in" not in page.gate.message
    failure, _label, button = next(r for r in panel.rows if r[0].column == "phone")
    assert failure.step == Step.TAG and failure.table == "demographics"
    button.click()
    assert window.current_step == Step.TAG
    tag = window.tag_page
    current = tag.proxy.mapToSource(tag.view.currentIndex())
    table, selected = tag.model.tag_at(current.row())
    assert (table, selected.name) == ("demographics", "phone")
