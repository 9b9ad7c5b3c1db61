"""Tagging is quick to check: the evidence of the selected column in a pane, a filter for
unsure suggestions, keys 1-5 set the class, and a less protective change is confirmed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from deid_desktop.core.model import ColumnClass
from deid_desktop.core.steps import Step
from deid_desktop.core.tagging.protection import less_protective
from deid_desktop.gui.main_window import MainWindow
from deid_desktop.gui.models import TagColumn
from deid_desktop.gui.pages.tag import UNSURE
from tests.gui.test_flow import open_demo

pytestmark = pytest.mark.slow


def test_less_protective_is_direct_or_free_text_toward_kept() -> None:
    C = ColumnClass
    assert less_protective(C.DIRECT, C.QUASI) and less_protective(C.DIRECT, C.CLINICAL)
    assert less_protective(C.FREE_TEXT, C.CLINICAL)
    assert not less_protective(C.CLINICAL, C.DIRECT) and not less_protective(None, C.CLINICAL)


def test_keys_evidence_unsure_filter_and_confirmation(qtbot, window: MainWindow, dialogs) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    assert window.go_to(Step.TAG)
    page, s = window.tag_page, window.session
    page.view.setCurrentIndex(page.index_of("demographics", "phone", TagColumn.CLASS))
    assert page.evidence.text().startswith("demographics.phone: Direct identifier")
    assert len(page.evidence.text().splitlines()) >= 2  # the full reasons, one a line

    # 5 = clinical: less protective, asked first; No keeps the tag
    dialogs.answer("question", QMessageBox.StandardButton.No)
    qtbot.keyClick(page.view, Qt.Key.Key_5)
    assert s.project.table("demographics").column("phone").cls == ColumnClass.DIRECT
    assert "less protective" in " ".join(dialogs.texts("question")).lower()
    dialogs.answer("question", QMessageBox.StandardButton.Yes)
    qtbot.keyClick(page.view, Qt.Key.Key_5)
    assert s.project.table("demographics").column("phone").cls == ColumnClass.CLINICAL
    # 1 = direct: more protective, no question
    asked = len(dialogs.calls)
    qtbot.keyClick(page.view, Qt.Key.Key_1)
    assert s.project.table("demographics").column("phone").cls == ColumnClass.DIRECT
    assert len(dialogs.calls) == asked

    page.filter.setCurrentIndex(page.filter.findData(UNSURE))
    unsure = sum(c.unsure for t in s.project.tables for c in t.columns)
    assert page.proxy.rowCount() == unsure
