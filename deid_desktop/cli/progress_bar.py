"""A progress bar with percentage and ETA on stderr, only when a person is watching (a
terminal); nothing when piped, logged or with --json. No dependency: one line redrawn
with a carriage return, at most ten times a second. Not a subcommand module.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from deid_desktop.core.progress import ProgressFn

WIDTH = 24


class ProgressBar:
    """One bar over a whole command; ``span(start, end)`` gives the callback of one stage
    (load, review, export) mapped onto its share, so the bar and the ETA only grow."""

    def __init__(self, stream: TextIO, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.last_draw = -1.0
        self.done = 0.0
        self.width = 0

    def span(self, start: float, end: float) -> ProgressFn:
        def progress(fraction: float, stage: str) -> None:
            f = min(max(fraction, 0.0), 1.0)
            self.update(start + (end - start) * f, stage)

        return progress

    def line(self, fraction: float, stage: str) -> str:
        filled = int(WIDTH * fraction)
        elapsed = self.clock() - self.started
        eta = ""
        if 0.02 < fraction < 1.0 and elapsed > 1.0:
            left = int(elapsed * (1.0 - fraction) / fraction)
            eta = f"  ETA {left // 60}:{left % 60:02d}"
        bar = "#" * filled + "." * (WIDTH - filled)
        return f"  [{bar}] {fraction:4.0%}{eta}  {stage}"

    def update(self, fraction: float, stage: str) -> None:
        self.done = max(self.done, fraction)
        now = self.clock()
        if now - self.last_draw < 0.1 and self.done < 1.0:
            return
        self.last_draw = now
        text = self.line(self.done, stage)
        pad = " " * max(self.width - len(text), 0)
        self.width = len(text)
        self.stream.write("\r" + text + pad)
        self.stream.flush()

    def finish(self) -> None:
        if self.width:
            self.stream.write("\n")
            self.stream.flush()
            self.width = 0


def progress_bar(*, quiet: bool = False, stream: TextIO | None = None) -> ProgressBar | None:
    """A bar on ``stream`` (stderr) when it is a terminal and not ``quiet`` (--json)."""
    stream = sys.stderr if stream is None else stream
    if quiet or not stream.isatty():
        return None
    return ProgressBar(stream)
