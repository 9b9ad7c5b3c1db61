"""Jobs run off the UI thread, report throttled progress, and stop on Cancel."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QThread, QThreadPool
from PySide6.QtWidgets import QWidget

from deid_desktop.core.errors import InputError
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.gui.workers import JobRunner, ProgressStrip, Throttle


def test_throttle_forwards_at_most_twenty_updates_a_second() -> None:
    seen: list[float] = []
    now = [0.0]
    throttle = Throttle(lambda f, _s: seen.append(f), clock=lambda: now[0])
    for i in range(10_000):  # 10,000 calls over 2 simulated seconds
        now[0] = i * 0.0002
        throttle(i / 10_000, "Working")
    throttle(1.0, "Working")
    assert seen[0] == 0.0 and seen[-1] == 1.0  # first and final updates always get through
    assert len(seen) <= 2 * 20 + 2


def test_job_runs_off_the_ui_thread_and_returns_its_result(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    threads: list[object] = []
    results: list[object] = []

    def job(progress: ProgressFn, cancel: CancelToken) -> int:
        threads.append(QThread.currentThread())
        progress(0.5, "Half way")
        return 42

    with qtbot.waitSignal(runner.busyChanged, check_params_cb=lambda b: b is False):
        runner.run(job, name="answer", on_success=results.append)
    assert results == [42]
    assert threads and threads[0] is not QThread.currentThread()


def test_failure_is_delivered_as_the_exception(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    errors: list[BaseException] = []

    def job(progress: ProgressFn, cancel: CancelToken) -> None:
        raise InputError("Ragged row", file="x.csv", row=3)

    with qtbot.waitSignal(runner.busyChanged, check_params_cb=lambda b: b is False):
        runner.run(job, name="bad", on_error=errors.append)
    assert isinstance(errors[0], InputError) and errors[0].row == 3


def test_cancel_stops_a_long_job_and_nothing_is_written(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A long fake job that writes its file only at the end (as core does): Cancel from
    the progress strip stops it mid-way and the file never appears."""
    runner = JobRunner()
    strip = ProgressStrip(runner)
    qtbot.addWidget(strip)
    started = threading.Event()
    steps: list[int] = []
    out = tmp_path / "release.csv"
    outcome: list[str] = []

    def long_job(progress: ProgressFn, cancel: CancelToken) -> None:
        rep = Reporter(progress, cancel)
        for i in range(10_000):
            rep.step(i / 10_000, "Building")
            steps.append(i)
            started.set()
            time.sleep(0.001)
        out.write_text("done")

    runner.run(
        long_job,
        name="long",
        on_success=lambda _r: outcome.append("finished"),
        on_cancel=lambda: outcome.append("cancelled"),
    )
    assert strip.isVisibleTo(strip.parentWidget() or strip)
    assert started.wait(5)
    with qtbot.waitSignal(runner.busyChanged, timeout=10_000):
        strip.cancel_button.click()
    assert outcome == ["cancelled"]
    assert len(steps) < 10_000
    assert not out.exists()
    assert not strip.isVisible()


@pytest.mark.parametrize("fraction", [0.0, 0.37, 1.0])
def test_progress_strip_shows_stage_and_percent(qtbot, fraction: float) -> None:  # type: ignore[no-untyped-def]
    runner = JobRunner()
    strip = ProgressStrip(runner)
    qtbot.addWidget(strip)
    runner.progress.emit(fraction, "Reading visits.csv")
    assert strip.stage.text() == "Reading visits.csv"
    assert strip.bar.value() == int(fraction * 1000)


def _slow_job(started: threading.Event, steps: list[int], out: Path):  # type: ignore[no-untyped-def]
    """A job that reports progress for ~10 s and writes its file only at the end."""

    def job(progress: ProgressFn, cancel: CancelToken) -> None:
        for i in range(10_000):
            progress(i / 10_000, "Building")
            steps.append(i)
            started.set()
            time.sleep(0.001)
        out.write_text("done")

    return job


def test_a_job_whose_signals_object_is_gone_stops_quietly_and_frees_the_runner(
    qtbot,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    """The screenshots script stalled at the review: the job's signals object was gone
    when the job reported, "Signal source has been deleted" was raised on the pool
    thread and the runner stayed busy forever. Now the job stops at its next report,
    its outcome is dropped and the runner is idle again (pytest-qt fails the test on
    any exception raised on the pool thread)."""
    runner = JobRunner()
    started = threading.Event()
    steps: list[int] = []
    out = tmp_path / "release.csv"
    outcome: list[object] = []
    job = runner.run(
        _slow_job(started, steps, out),
        name="orphan",
        on_success=outcome.append,
        on_error=outcome.append,
        on_cancel=lambda: outcome.append("cancelled"),
    )
    assert started.wait(5)
    shiboken6.delete(job.signals)  # its owner is gone while it runs
    qtbot.waitUntil(lambda: not runner.busy, timeout=5_000)
    assert runner.wait(5_000)
    assert job.done and job.orphaned
    assert len(steps) < 10_000 and not out.exists()
    assert outcome == []  # nobody is left to be told


def test_closing_the_window_that_owns_the_runner_stops_its_job(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A worker still running when its window (and runner) are destroyed: no error on
    the pool thread, and the job stops instead of running to the end."""
    window = QWidget()
    runner = JobRunner(window)
    started = threading.Event()
    steps: list[int] = []
    out = tmp_path / "release.csv"
    job = runner.run(_slow_job(started, steps, out), name="late", on_success=print)
    assert started.wait(5)
    shiboken6.delete(window)
    assert QThreadPool.globalInstance().waitForDone(5_000)
    assert job.done and job.orphaned
    assert len(steps) < 10_000 and not out.exists()
