"""Long GIL holds while building millions of Python objects: cyclic garbage collection
held off (``gc_paused``), and C-level passes cut into chunks (``map_array``).

A full collection walks every tracked object, and CPython starts one each time the
tracked objects have grown by a quarter: building a dictionary of two million terms ran
a dozen of them, the last ones 0.2-0.6 s each, all with the GIL held - the window froze
while a worker built it. The objects made there hold no reference cycles, so nothing is
lost by collecting once, afterwards, at the usual pace.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

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


#: Items per C-level pass in ``map_array``: a few milliseconds of work.
CHUNK = 100_000


def map_array(fn: Callable[[Any], Any], items: Sequence[Any], dtype: Any) -> np.ndarray:
    """``np.fromiter(map(fn, items))`` a chunk at a time. With a built-in ``fn`` the whole
    pass is one C loop that never lets go of the GIL (about 50 ms per million items);
    between chunks the interpreter hands the GIL to a waiting thread (the window)."""
    out = np.empty(len(items), dtype=dtype)
    for at in range(0, len(items), CHUNK):
        part = items[at : at + CHUNK]
        out[at : at + len(part)] = np.fromiter(map(fn, part), dtype=dtype, count=len(part))
    return out


def list_array(items: Sequence[Any], dtype: Any) -> np.ndarray:
    """``np.asarray(items, dtype)`` for a long list, a chunk at a time."""
    out = np.empty(len(items), dtype=dtype)
    for at in range(0, len(items), CHUNK):
        out[at : at + CHUNK] = np.asarray(items[at : at + CHUNK], dtype=dtype)
    return out


def release(*lists: list[Any]) -> None:
    """Empty long lists a chunk at a time (freeing millions of objects at once, as when a
    function returns, is one C loop that holds the GIL)."""
    for items in lists:
        while items:
            del items[-CHUNK:]


def array_list(values: np.ndarray) -> list[Any]:
    """``values.tolist()`` for a long array, a chunk at a time."""
    out: list[Any] = []
    for at in range(0, values.size, CHUNK):
        out.extend(values[at : at + CHUNK].tolist())
    return out
