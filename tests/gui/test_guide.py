"""Help -> User guide: offline pages per step and the rules; F1 opens the current step's."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from deid_desktop.core.steps import Step
from deid_desktop.gui.guide import PAGES, page_path
from deid_desktop.gui.main_window import MainWindow
from tests.gui.test_flow import open_demo

pytestmark = pytest.mark.slow


def test_every_guide_page_is_shipped_and_the_rules_have_their_glossary() -> None:
    for page, _title in PAGES:
        assert page_path(page).is_file(), page
    rules = page_path("rules").read_text(encoding="utf-8")
    for word in ("164.514", "Expert Determination", "limited data set", "quasi-identifier"):
        assert word.lower() in rules.lower(), word


def test_help_user_guide_and_f1_open_the_current_steps_page(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    help_menu = next(a.menu() for a in window.menuBar().actions() if "Help" in a.text())
    assert "&User guide" in [a.text() for a in help_menu.actions()]
    window.act_guide.trigger()
    guide = window._guide
    assert guide is not None and guide.isVisible() and guide.current_page == "index"
    guide.close()
    open_demo(qtbot, window)
    assert window.go_to(Step.PATHWAY)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_F1)
    assert guide.isVisible() and guide.current_page == "pathway"
    assert "Reference date for ages" in guide.text.toPlainText()
    guide.open_page("rules")
    assert "Glossary" in guide.text.toPlainText() or "glossary" in guide.text.toPlainText()
