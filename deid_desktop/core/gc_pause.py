"""Cyclic garbage collection held off while a step builds millions of Python objects.

A full collection walks every tracked object, and CPython starts one each time the
tracked objects have grown by a quarter: building a dictionary of two million terms ran
a dozen of them, the last ones 0.2-0.6 s each, all with the GIL held - the window froze
while a worker built it. The objects made there hold no reference cycles, so nothing is
lost by collecting once, afterwards, at the usual pace.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block (nestable, from any thread); it is
    enabled again when the last block ends, if it was enabled before the first."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
