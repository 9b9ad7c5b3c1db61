"""A large review is drawn a tab per turn of the event loop: the tab on screen at once."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from deid_desktop.core.steps import Step
from deid_desktop.gui.main_window import MainWindow
from deid_desktop.gui.pages import review as review_page
from tests.gui.test_flow import WAIT, open_demo, wait_review

pytestmark = pytest.mark.slow


def _reviewed(qtbot, window: MainWindow):  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    page = window.review_page
    assert page.figure_labels["k"].text() != "—"
    return page


def _blank(page) -> None:  # type: ignore[no-untyped-def]
    """Wipe what the three tabs show, to see which a redraw fills."""
    page.checks.clear()
    page.figure_labels["k"].setText("—")
    page.text.hit_counts.setRowCount(0)


def test_a_large_review_draws_the_tab_on_screen_first_and_the_rest_after(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    page = _reviewed(qtbot, window)
    monkeypatch.setattr(review_page, "STEPWISE_ROWS", 1)  # the demo counts as large
    page.tabs.setCurrentIndex(review_page.RISK_TAB)
    _blank(page)
    page._show()
    assert page.figure_labels["k"].text() != "—"  # the tab on screen: drawn at once
    assert page.checks.topLevelItemCount() == 0  # the others: not yet
    assert page.text.hit_counts.rowCount() == 0
    assert page.gate.message  # the gate and the verdict at once too
    qtbot.waitUntil(lambda: page.checks.topLevelItemCount() > 0, timeout=WAIT)
    qtbot.waitUntil(lambda: page.text.hit_counts.rowCount() > 0, timeout=WAIT)


def test_a_small_review_is_drawn_all_at_once(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    page = _reviewed(qtbot, window)
    _blank(page)
    page._show()
    assert page.checks.topLevelItemCount() > 0
    assert page.figure_labels["k"].text() != "—"
    assert page.text.hit_counts.rowCount() > 0


def test_a_failed_review_drops_the_parts_still_queued(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    page = _reviewed(qtbot, window)
    monkeypatch.setattr(review_page, "STEPWISE_ROWS", 1)
    page.tabs.setCurrentIndex(0)
    page._show()
    page._failed(RuntimeError("the review did not finish"))
    for _ in range(5):
        QApplication.processEvents()
    assert page.figure_labels["k"].text() == "—"  # not the older review's figures
