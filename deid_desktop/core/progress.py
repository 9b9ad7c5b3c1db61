"""Progress and cancellation, injected into every long core operation.

The GUI passes a callback that emits a Qt signal and a token its Cancel button sets;
the CLI passes nothing (or a quiet printer). Core code calls ``step`` between chunks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from deid_desktop.core.errors import Cancelled

#: ``progress(fraction, stage)``: fraction in [0, 1]; stage is a short plain label
#: (never a data value), e.g. "Reading visits.csv".
ProgressFn = Callable[[float, str], None]


class CancelToken:
    """Thread-safe flag set by the UI thread, polled by the worker."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled("Cancelled by the user")


def noop_progress(fraction: float, stage: str) -> None:
    """Default progress sink."""


class Reporter:
    """Maps a sub-task onto a slice [start, end] of the overall progress bar."""

    def __init__(
        self,
        progress: ProgressFn | None = None,
        cancel: CancelToken | None = None,
        start: float = 0.0,
        end: float = 1.0,
    ) -> None:
        self.progress = progress or noop_progress
        self.cancel = cancel
        self.start = start
        self.end = end

    def step(self, fraction: float, stage: str) -> None:
        """Report progress within this slice and honour a pending cancel."""
        if self.cancel is not None:
            self.cancel.raise_if_cancelled()
        f = min(max(fraction, 0.0), 1.0)
        self.progress(self.start + (self.end - self.start) * f, stage)

    def sub(self, start: float, end: float) -> Reporter:
        """A reporter for the part [start, end] (fractions of this slice)."""
        span = self.end - self.start
        return Reporter(
            self.progress, self.cancel, self.start + span * start, self.start + span * end
        )
