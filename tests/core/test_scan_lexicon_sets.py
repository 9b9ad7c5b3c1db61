"""lexicon.in_set: np.isin for the finders' sorted word sets, by binary search."""

from __future__ import annotations

import numpy as np
import pytest

from deid_desktop.core.scan import (
    context,
    context_notes,
    context_places,
    context_staff,
    place_words,
)
from deid_desktop.core.scan import lexicon as lx


@pytest.mark.parametrize("size", [0, 1, 7, 40])
def test_in_set_is_isin(size: int) -> None:
    rng = np.random.default_rng(size)
    table = np.sort(rng.integers(0, 1 << 63, size, dtype=np.uint64))
    values = rng.integers(0, 1 << 63, 500, dtype=np.uint64)
    values[::3] = table[rng.integers(0, size, values[::3].size)] if size else 0
    values[1] = np.uint64((1 << 64) - 1)  # past the largest entry
    assert (lx.in_set(values, table) == np.isin(values, table)).all()
    assert lx.in_set(values[:0], table).shape == (0,)


def test_the_finders_word_sets_are_sorted() -> None:
    """in_set reads a sorted table: a set joined from others (``NOT_NAME``) or written in
    no order (``_PAIRS``) is sorted once."""
    sets = [
        context._MEASURES, context._EVENTS, context._VIA, context._UNITS, context._FUNCTION,
        context._YEAR_CUES, context._MOVES, context_notes._AFTER_PA,
        place_words.NOT_NAME, place_words.WARDS, place_words.TO, place_words.LATER,
        context_places._HOSPITAL, context_places._LAB, context_places._PREP,
        context_places._JOINERS, context_staff._HEADS, context_staff._PAC, context_staff._PAIRS,
    ]  # fmt: skip
    for table in sets:
        assert (np.diff(table.astype(object)) >= 0).all()
