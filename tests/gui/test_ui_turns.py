"""At a million persons a signal's redraws are spread over turns of the event loop, and
what a later click needs is built ahead of it: each piece holds the window briefly."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from deid_desktop.core.steps import Step
from deid_desktop.gui import session as session_module
from deid_desktop.gui.main_window import MainWindow
from deid_desktop.gui.pages import review as review_page
from tests.gui.test_flow import WAIT, open_demo, wait_review

pytestmark = pytest.mark.slow


def _turns(n: int = 5) -> None:
    for _ in range(n):
        QApplication.processEvents()


def test_the_sidebar_reads_each_pages_blocker_once(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    calls: dict[int, int] = {}
    for i, page in enumerate(window.pages):
        real = page.blocker

        def counted(i=i, real=real):  # type: ignore[no-untyped-def]
            calls[i] = calls.get(i, 0) + 1
            return real()

        page.blocker = counted  # type: ignore[method-assign]
    window.update_steps()
    assert calls  # the earlier steps' blockers were read
    assert max(calls.values()) == 1, calls  # not once for every later step


def test_a_large_extract_fills_the_tag_page_on_its_own_turn(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    s, tag = window.session, window.tag_page
    assert tag._samples  # filled with the load
    monkeypatch.setattr(session_module, "LARGE_ROWS", 1)  # the demo counts as large
    tag._samples = {}
    s.set_extract(s.extract, s.suggestions)
    assert tag._samples == {}  # not in the load's callback
    qtbot.waitUntil(lambda: bool(tag._samples), timeout=WAIT)


def test_a_small_extract_fills_the_tag_page_at_once(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    s, tag = window.session, window.tag_page
    tag._samples = {}
    s.set_extract(s.extract, s.suggestions)
    assert tag._samples


def _reviewed(qtbot, window: MainWindow):  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    return window.review_page


def test_a_large_review_redraws_the_other_pages_on_their_own_turns(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    page = _reviewed(qtbot, window)
    export, intruder = window.export_page, page.intruder
    monkeypatch.setattr(session_module, "LARGE_ROWS", 1)
    export.summary.setText("")
    intruder.on_list.clear()
    window.session.reviewReady.emit()
    assert export.summary.text() == ""  # not in the review's callback
    assert intruder.on_list.count() == 0
    qtbot.waitUntil(lambda: "Pathway" in export.summary.text(), timeout=WAIT)
    qtbot.waitUntil(lambda: intruder.on_list.count() > 0, timeout=WAIT)


def test_a_large_review_builds_the_search_panel_ahead_of_find(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    page = _reviewed(qtbot, window)
    section = page.generalize
    assert section.panel is None  # a small review: built on first use
    monkeypatch.setattr(review_page, "STEPWISE_ROWS", 1)  # the demo counts as large
    page.tabs.setCurrentIndex(review_page.RISK_TAB)
    page._show()
    assert section.panel is None  # not in the review's own callback
    qtbot.waitUntil(lambda: section.panel is not None, timeout=WAIT)
    _turns()
    # built behind the class sizes: nothing on screen changed
    assert section.stack.currentIndex() == 0
    assert not section.toggle_button.isVisible()
    panel = section.panel
    section.find()
    assert section.panel is panel  # Find uses it, does not build another
    assert section.stack.currentWidget() is panel
    assert section.toggle_button.isVisible()
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=WAIT)


def test_a_hidden_page_is_fitted_when_shown_not_each_time_it_changes(
    qtbot, window: MainWindow
) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    scroll = window.page_stack.widget(Step.EXPORT)
    page = scroll.widget()
    real = page.minimumSizeHint
    asked: list[int] = []

    def counted():  # type: ignore[no-untyped-def]
        asked.append(1)
        return real()

    page.minimumSizeHint = counted  # type: ignore[method-assign]
    assert not scroll.isVisible()
    window.export_page.summary.setText("<br>".join(["a line"] * 40))  # grows, hidden
    _turns()
    assert asked == []  # its minimum is not worked out while another step is on screen
    window.page_stack.setCurrentIndex(Step.EXPORT)
    _turns()
    assert asked  # fitted when shown
    assert page.height() >= page.minimumSizeHint().height()
    assert page.width() >= scroll.viewport().width()


def test_the_search_panel_built_ahead_leaves_the_risk_tab_as_it_was(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    page = _reviewed(qtbot, window)
    section = page.generalize
    page.tabs.setCurrentIndex(review_page.RISK_TAB)
    _turns()
    least = section.stack.minimumSizeHint()
    section.prepare_panel()
    _turns()
    assert section.stack.minimumSizeHint() == least  # its size counts for nothing yet
    section.find()
    _turns()
    assert section.stack.minimumSizeHint() != least  # shown: it counts
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=WAIT)


def test_pieces_queued_for_later_run_one_per_pass_of_the_event_loop(
    qtbot, window: MainWindow
) -> None:  # type: ignore[no-untyped-def]
    import shiboken6
    from PySide6.QtWidgets import QLabel

    s, ran = window.session, []
    gone = QLabel()
    s.later(window, lambda: ran.append("a"))
    s.later(gone, lambda: ran.append("dropped"))
    s.later(window, lambda: ran.append("b"))
    shiboken6.delete(gone)
    QApplication.sendPostedEvents()  # one pass: piece "a" runs, not the next
    assert ran == ["a"]
    QApplication.sendPostedEvents()  # the label's piece is dropped ...
    QApplication.sendPostedEvents()  # ... and "b" runs on a pass of its own
    _turns()
    assert ran == ["a", "b"]


def test_entering_export_checks_the_folders_once_for_both(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    _reviewed(qtbot, window)
    export = window.export_page
    assert export.release_dir.path is None  # the defaults are filled on entering
    real, calls = export.export_blocker, []

    def counted():  # type: ignore[no-untyped-def]
        calls.append(1)
        return real()

    export.export_blocker = counted  # type: ignore[method-assign]
    assert window.go_to(Step.EXPORT)
    assert export.release_dir.path is not None and export.crosswalk_dir.path is not None
    assert window.session.crosswalk_dir == export.crosswalk_dir.path
    assert len(calls) <= 3, len(calls)  # the page's check, the sidebar's two reads
    assert export.export_reason.text() == (export.export_blocker() or "")


def test_a_large_extract_writes_the_load_report_after_the_first_preview(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from deid_desktop.gui.pages import load

    open_demo(qtbot, window)
    page = window.load_page
    report = page.report_text()
    assert report
    monkeypatch.setattr(load, "SLICE_ROWS", 1)
    s = window.session
    s.set_extract(s.extract, s.suggestions)
    assert page.preview_tabs.count() == 1
    assert page.report_text() == ""  # not in the load's callback
    qtbot.waitUntil(lambda: page.report_text() == report, timeout=WAIT)
    qtbot.waitUntil(lambda: page.preview_tabs.count() == len(s.extract.tables), timeout=WAIT)
