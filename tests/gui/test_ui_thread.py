"""What the UI thread is spared at a million rows: work on the data of a review is done
in its job (or its child process), and the page only shows what came back."""

from __future__ import annotations

import threading

import pytest

from deid_desktop.core.steps import Step
from deid_desktop.gui import backend
from deid_desktop.gui.main_window import MainWindow
from tests.gui.test_flow import WAIT, open_demo, wait_review


def on_ui_thread(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[bool]:
    """Each later call of ``module.name``: was it made on the UI thread?"""
    calls: list[bool] = []
    real = getattr(module, name)

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_the_lone_records_are_made_with_the_review_not_on_the_ui_thread(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    on_ui = on_ui_thread(monkeypatch, backend, "lone_records")
    open_demo(qtbot, window)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    s, page = window.session, window.review_page
    assert on_ui == [False]  # once, in the review's job
    assert page.lone_model.rowCount() == s.review.risk.lone > 0
    assert page.lone_model.frame.columns[0] == s.review.release.id_column

    # the intruder test brings a new review object with the same risk: nothing is redone
    page.tabs.setCurrentWidget(page.intruder)
    qtbot.waitUntil(lambda: s.review.intruder is not None, timeout=WAIT)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=WAIT)
    assert on_ui == [False]
    assert page.lone_model.rowCount() == s.review.risk.lone


def test_a_large_extract_gets_its_previews_one_table_per_turn(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Each preview of a million-row table costs the UI thread ~10 ms: the window
    repaints between them. Each is masked before it can be painted."""
    from deid_desktop.gui.models import MASK
    from deid_desktop.gui.pages import load

    monkeypatch.setattr(load, "SLICE_ROWS", 1)  # the demo counts as large
    page = window.load_page
    at_once: list[int] = []
    window.session.extractLoaded.connect(lambda: at_once.append(page.preview_tabs.count()))
    open_demo(qtbot, window)
    assert at_once == [1]  # the first table when the extract arrived, the others after
    qtbot.waitUntil(lambda: page.preview_tabs.count() == 3, timeout=WAIT)
    for _name, model in page._models:
        direct = [
            i for i, c in enumerate(model.frame.columns) if c in ("first_name", "mrn", "phone")
        ]
        for column in direct:
            assert model.data(model.index(0, column)) == MASK
    assert sum(bool(model._masked) for _n, model in page._models) >= 1
