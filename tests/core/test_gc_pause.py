"""The GIL-friendly helpers give the plain results, a chunk at a time, and the cyclic
collector is back on (or left off) exactly as it was after nested pauses."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from deid_desktop.core import gc_pause
from deid_desktop.core.gc_pause import array_list, gc_paused, list_array, map_array, release


def test_gc_paused_nests_and_restores() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block still runs
    assert gc.isenabled()


def test_gc_paused_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_gc_paused_restores_after_an_error() -> None:
    with pytest.raises(ValueError), gc_paused():
        raise ValueError
    assert gc.isenabled()


@pytest.mark.parametrize("n", [0, 1, 6, 7, 20])
def test_chunked_helpers_match_the_plain_calls(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    monkeypatch.setattr(gc_pause, "CHUNK", 3)
    words = [f"w{'x' * i}é" if i % 2 else f"w{i}" for i in range(n)]
    assert map_array(len, words, np.int64).tolist() == [len(w) for w in words]
    assert map_array(str.isascii, words, bool).tolist() == [w.isascii() for w in words]
    numbers = list(range(5, 5 + n))
    assert list_array(numbers, np.int32).tolist() == numbers
    assert array_list(np.arange(n) * 2) == [2 * i for i in range(n)]
    a, b = list(numbers), list(words)
    release(a, b)
    assert a == [] and b == []
