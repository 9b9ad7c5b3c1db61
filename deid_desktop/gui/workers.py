"""Run core callables off the UI thread, with throttled progress and a Cancel button.

A job is any callable taking keyword-only ``progress`` and ``cancel`` (the core
convention). It runs on the global QThreadPool; results, errors and progress come
back to the UI thread through queued signals. Core guarantees atomic writes, so a
cancelled job leaves nothing half-written; the GUI only has to stop waiting.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import sys
import time
from collections.abc import Callable
from typing import TypeVar

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QWidget,
)

from deid_desktop.core.errors import Cancelled
from deid_desktop.core.progress import CancelToken, ProgressFn

log = logging.getLogger("deid.gui")

#: At most this many progress signals per second reach the UI thread.
MAX_UPDATES_PER_SECOND = 20

T = TypeVar("T")
#: A job: (progress, cancel) -> its result, handed to ``on_success``.
JobFn = Callable[[ProgressFn, CancelToken], object]


def release_free_memory() -> None:
    """Give the heap's free pages back to the system after a job (Linux, glibc).

    A review at a million persons frees gigabytes of intermediate frames that glibc
    keeps for the process: the next job's peak would start from there. Off the UI
    thread (ctypes releases the GIL during the call)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _spent(progress: ProgressFn, cancel: CancelToken) -> None:
    """Stands in for a finished job's callable, so the job holds nothing of its data."""


class JobSignals(QObject):
    progress = Signal(float, str)
    succeeded = Signal(object)
    failed = Signal(object)  # the exception object (shown by the page, never logged)
    cancelled = Signal()
    finished = Signal()  # always last


class Throttle:
    """Forwards progress at most ``rate`` times a second (plus the final 100 %)."""

    def __init__(
        self,
        emit: ProgressFn,
        rate: int = MAX_UPDATES_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._emit = emit
        self._clock = clock
        self._interval = 1.0 / rate
        self._last = -1.0
        self._stage = ""

    def __call__(self, fraction: float, stage: str) -> None:
        now = self._clock()
        if fraction >= 1.0 or stage != self._stage or now - self._last >= self._interval:
            self._last = now
            self._stage = stage
            self._emit(fraction, stage)


class Job(QRunnable):
    """One call of ``fn(progress, cancel)`` on a pool thread.

    If its signals object is gone when it reports (whoever owned it was destroyed while
    the job ran), or its runner was destroyed, the job stops at its next progress report
    and its outcome is dropped: nobody is left to show it. Raising "Signal source has
    been deleted" on the pool thread instead left the runner busy for ever.
    """

    def __init__(self, fn: JobFn, name: str) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the Python side owns it until finished
        self.fn = fn
        self.name = name
        self.token = CancelToken()
        self.signals = JobSignals()
        self.done = False
        self.orphaned = False  # nobody is listening any more: report nothing, stop
        #: called on the pool thread when the job ends without a signals object
        self.on_lost: Callable[[], None] | None = None

    def orphan(self) -> None:
        """Stop the job and drop whatever it would still report."""
        self.orphaned = True
        self.token.cancel()

    def _emit(self, signal: str, *args: object) -> None:
        """Emit one of the job's signals, unless nobody is left to receive it."""
        if self.orphaned:
            return
        try:
            if shiboken6.isValid(self.signals):
                getattr(self.signals, signal).emit(*args)
                return
        except RuntimeError:  # deleted between the check and the emit
            pass
        log.info("job %s: its signals object is gone; stopping", self.name)
        self.orphan()
        if self.on_lost is not None:
            self.on_lost()

    def _progress(self, fraction: float, stage: str) -> None:
        self._emit("progress", fraction, stage)
        if self.orphaned:
            self.token.raise_if_cancelled()

    def run(self) -> None:
        throttle = Throttle(self._progress)
        try:
            self.token.raise_if_cancelled()
            result = self.fn(throttle, self.token)
            self.token.raise_if_cancelled()
        except Cancelled:
            log.info("job %s cancelled", self.name)
            self._emit("cancelled")
        except BaseException as exc:  # shown by the page; logged by type only
            log.info("job %s failed: %s", self.name, type(exc).__name__)
            self._emit("failed", exc)
        else:
            self._emit("succeeded", result)
        finally:
            self.fn = _spent  # what the job's callable held (its frames) is freed now
            release_free_memory()
            self.done = True
            self._emit("finished")

    def cancel(self) -> None:
        self.token.cancel()


class JobRunner(QObject):
    """Starts jobs, keeps them alive until they finish, and tells the UI when busy."""

    busyChanged = Signal(bool)
    progress = Signal(float, str)

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self._pool = pool or QThreadPool.globalInstance()
        self._jobs: list[Job] = []
        # bound to the list, not to self: it runs while the runner is being destroyed
        self.destroyed.connect(lambda _obj=None, jobs=self._jobs: JobRunner._orphan_all(jobs))

    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    @property
    def current(self) -> Job | None:
        return self._jobs[-1] if self._jobs else None

    def run(
        self,
        fn: Callable[[ProgressFn, CancelToken], T],
        *,
        name: str,
        on_success: Callable[[T], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
    ) -> Job:
        job = Job(fn, name)
        s = job.signals
        s.progress.connect(self.progress)
        if on_success is not None:
            s.succeeded.connect(on_success)
        if on_error is not None:
            s.failed.connect(on_error)
        if on_cancel is not None:
            s.cancelled.connect(on_cancel)
        s.finished.connect(lambda j=job: self._finished(j))
        job.on_lost = lambda j=job: self._lost(j)
        was_busy = self.busy
        self._jobs.append(job)
        if not was_busy:
            self.busyChanged.emit(True)
        self._pool.start(job)
        return job

    def cancel_all(self) -> None:
        for job in self._jobs:
            job.cancel()

    def wait(self, msecs: int = -1) -> bool:
        """Block until the pool is idle (used on quit and in tests)."""
        return self._pool.waitForDone(msecs)

    def _finished(self, job: Job) -> None:
        # the pool keeps the runnable: let go of what the job held (its extract, say)
        job.fn = _spent
        job.on_lost = None
        if job in self._jobs:
            self._jobs.remove(job)
            if not self._jobs and shiboken6.isValid(self):
                self.busyChanged.emit(False)

    def _lost(self, job: Job) -> None:
        """(pool thread) The job's signals object was gone: stop waiting for it."""
        if shiboken6.isValid(self):
            QTimer.singleShot(0, self, lambda: self._finished(job))

    @staticmethod
    def _orphan_all(jobs: list[Job]) -> None:
        """The runner is being destroyed: its jobs stop and report nothing more."""
        for job in list(jobs):
            job.orphan()


class ProgressStrip(QWidget):
    """An inline progress bar with the stage and a Cancel button, shown while busy."""

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self.stage = QLabel()
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(True)
        self.bar.setAccessibleName("Progress")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAccessibleName("Cancel the running operation")
        self.cancel_button.setToolTip("Stop the running operation. Nothing half-written is kept.")
        self.cancel_button.clicked.connect(self._cancel)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        lay.addWidget(self.stage, 2)
        lay.addWidget(self.bar, 3)
        lay.addWidget(self.cancel_button)
        runner.progress.connect(self._on_progress)
        runner.busyChanged.connect(self._on_busy)
        self.setVisible(False)

    @Slot(float, str)
    def _on_progress(self, fraction: float, stage: str) -> None:
        self.bar.setValue(int(max(0.0, min(1.0, fraction)) * 1000))
        self.bar.setFormat(f"{fraction * 100:.0f} %")
        self.stage.setText(stage)

    @Slot(bool)
    def _on_busy(self, busy: bool) -> None:
        if busy:
            self.bar.setValue(0)
            self.stage.setText("Working…")
            self.cancel_button.setEnabled(True)
        self.setVisible(busy)

    @Slot()
    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.stage.setText("Cancelling…")
        self._runner.cancel_all()
