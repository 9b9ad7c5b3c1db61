"""``verify.ages._largest_age`` reads a column of plain numbers through its largest few
cells and gives what reading every cell gives."""

from __future__ import annotations

import numpy as np
import pandas as pd

from deid_desktop.core.facts.text import STRING
from deid_desktop.core.verify.ages import _bounds, _largest_age, _near_the_largest


def _uniq(cells: list[str]) -> pd.Series:
    return pd.Series(np.ones(len(cells), dtype=np.int64), index=pd.Index(cells, dtype=STRING))


def _every_cell(cells: list[str]) -> float:
    _low, high, _unit = _bounds(pd.Series(cells, dtype=STRING))
    return float(np.nanmax(high))


def test_plain_numbers_give_the_largest_as_every_cell_does() -> None:
    rng = np.random.default_rng(7)
    cases = [
        [str(v) for v in rng.integers(0, 999_999, 5_000)],
        [f"{v:.3f}" for v in rng.uniform(0, 120, 5_000)],
        ["89.99999999999999999", "90", "89.999999999999999999999", " 7 ", "0042"],
        ["90.00000000000000001", "90", "90.0", "12"],
        ["0", "0.0", "00"],
    ]
    for cells in cases:
        assert _largest_age(_uniq(cells)) == _every_cell(cells)


def test_only_the_cells_near_the_largest_are_read() -> None:
    cells = pd.Series(["12", "95", "95.0", "94.9", "7"], dtype=STRING)
    assert sorted(_near_the_largest(cells).tolist()) == ["95", "95.0"]
    mixed = pd.Series(["12", "95 y", "3 mo"], dtype=STRING)  # not plain: all read
    assert _near_the_largest(mixed).tolist() == ["12", "95 y", "3 mo"]
    assert _largest_age(_uniq(["12", "95 y", "3 mo"])) == 95.0
