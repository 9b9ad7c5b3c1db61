"""Run core callables off the UI thread, with throttled progress and a Cancel button.

A job is any callable taking keyword-only ``progress`` and ``cancel`` (the core
convention). It runs on the global QThreadPool; results, errors and progress come
back to the UI thread through queued signals. Core guarantees atomic writes, so a
cancelled job leaves nothing half-written; the GUI only has to stop waiting.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot
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
    """One call of ``fn(progress, cancel)`` on a pool thread."""

    def __init__(self, fn: JobFn, name: str) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the Python side owns it until finished
        self.fn = fn
        self.name = name
        self.token = CancelToken()
        self.signals = JobSignals()
        self.done = False

    def run(self) -> None:
        throttle = Throttle(self.signals.progress.emit)
        try:
            self.token.raise_if_cancelled()
            result = self.fn(throttle, self.token)
            self.token.raise_if_cancelled()
        except Cancelled:
            log.info("job %s cancelled", self.name)
            self.signals.cancelled.emit()
        except BaseException as exc:  # shown by the page; logged by type only
            log.info("job %s failed: %s", self.name, type(exc).__name__)
            self.signals.failed.emit(exc)
        else:
            self.signals.succeeded.emit(result)
        finally:
            self.done = True
            self.signals.finished.emit()

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

    @Slot()
    def _finished(self, job: Job) -> None:
        if job in self._jobs:
            self._jobs.remove(job)
        if not self._jobs:
            self.busyChanged.emit(False)


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
