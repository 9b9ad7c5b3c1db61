"""lexicon.in_set: np.isin for the finders' sorted word sets, by binary search."""

from __future__ import annotations

import numpy as np
import pytest

from deid_desktop.core.scan import context, context_notes, context_places, context_staff
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
    """in_set reads a sorted table: a set joined from two (``_NOT_FACILITY_NAME``) is
    sorted again."""
    sets = [
        context._MEASURES, context.GOING, context._EVENTS, context._UNITS,
        context_notes._AFTER_PA, context_places._UNITS, context_places._NOT_FACILITY_NAME,
        context_places._TO, context_places._LATER, context_staff._PAC,
    ]  # fmt: skip
    for table in sets:
        assert (np.diff(table.astype(object)) >= 0).all()
