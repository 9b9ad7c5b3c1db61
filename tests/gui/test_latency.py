"""The window's threads ask the kernel for a short time slice; heavy children do not."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from deid_desktop.core.progress import CancelToken
from deid_desktop.gui import app, child_job, latency


def in_a_thread(fn: Callable[[], Any]) -> Any:
    """``fn()`` on a new thread (the test's own thread keeps its slice)."""
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def _supported() -> None:
    if not in_a_thread(latency.short_slice):
        pytest.skip("this kernel has no per-thread time slice (Linux 6.12 and later)")


def _child_slice(progress, cancel) -> int | None:  # type: ignore[no-untyped-def]
    return latency.slice_ns()


def test_threads_started_after_the_ask_inherit_the_short_slice() -> None:
    _supported()

    def ask_then_start() -> tuple[int | None, int | None]:
        latency.short_slice()
        return latency.slice_ns(), in_a_thread(latency.slice_ns)

    assert in_a_thread(ask_then_start) == (latency.SHORT_SLICE_NS, latency.SHORT_SLICE_NS)


def test_a_heavy_child_runs_at_the_default_slice() -> None:
    """A forked child inherits its thread's slice: the job's child gives it back, so
    the batch work does not preempt other programs as the window may."""
    _supported()
    default = in_a_thread(latency.slice_ns)
    assert default != latency.SHORT_SLICE_NS

    def ask_then_fork() -> int | None:
        latency.short_slice()
        return child_job.run(_child_slice, lambda f, s: None, CancelToken())

    assert in_a_thread(ask_then_fork) == default


def test_the_app_asks_for_it_before_qt_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    made: list[list[int]] = []

    class FakeApplication:  # records what was asked when the application is made
        instance = staticmethod(lambda: None)
        setHighDpiScaleFactorRoundingPolicy = staticmethod(lambda policy: None)

        def __init__(self, argv: list[str]) -> None:
            made.append(list(asked))

    monkeypatch.setattr(latency, "short_slice", lambda ns=0: asked.append(1) or True)
    monkeypatch.setattr(app, "QApplication", FakeApplication)
    app.make_app(["deid-desktop"])
    assert made == [[1]]  # asked once, before the application object was made
