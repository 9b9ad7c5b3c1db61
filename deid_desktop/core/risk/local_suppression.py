"""Local suppression: blank cells, not rows, until every record shares its combination
of quasi-identifiers with at least k - 1 others.

Greedy and deterministic, in the user's priority of columns. First one cell: for each
column in turn, the records still in a class smaller than k that reach k when just that
cell is blanked (``*``) get it blanked. Then the rest: their cells are blanked column
after column, in priority order, until they reach k. A blanked cell is a value of its
own (``*``): records blanked in the same columns with the same remaining values form a
class, and a class that was already large enough is never touched, so no released
class ever shrinks. A record still alone after every column is blanked cannot be saved
by blanking and is suppressed (its row removed), as the report says. The blanks are
then undone where they are not needed: a record gets a cell back, last priority
first, when both the class it would join and the class it would leave keep at least k
records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from deid_desktop.core.errors import UsageError
from deid_desktop.core.risk.classes import class_sizes, combine, factorize_column

BLANK = "*"


@dataclass(frozen=True, eq=False)
class LocalSuppression:
    """The frame with cells blanked (rows that could not be saved removed), and counts."""

    frame: pd.DataFrame
    cells_blanked: int
    rows_touched: int  # rows with at least one blank
    rows_suppressed: int  # rows removed: still below k with every cell blanked
    by_column: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "cells_blanked": self.cells_blanked,
            "rows_touched": self.rows_touched,
            "rows_suppressed": self.rows_suppressed,
            "cells_blanked_by_column": dict(self.by_column),
        }


def _sizes(codes: np.ndarray, cards: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    ids, n = combine([(codes[:, i].astype(np.int64), c) for i, c in enumerate(cards)], len(codes))
    _, per_record = class_sizes(ids, n)
    return ids, per_record


def suppress_cells(
    frame: pd.DataFrame,
    columns: Sequence[str],
    k: int,
    *,
    priority: Sequence[str] = (),
) -> LocalSuppression:
    """Blank the fewest cells the greedy order finds so that every class has k records.
    ``priority`` lists the columns to blank first; the others follow in ``columns`` order."""
    cols = list(dict.fromkeys(columns))
    unknown = [c for c in [*cols, *priority] if c not in frame.columns]
    if unknown:
        raise UsageError(
            "Column(s) " + ", ".join(repr(c) for c in unknown) + " are not in the table.",
            hint="Choose among: " + ", ".join(str(c) for c in frame.columns),
        )
    if k < 1:
        raise UsageError("The k target must be 1 or more.", hint="A usual target is 5.")
    order = [c for c in priority if c in cols] + [c for c in cols if c not in priority]
    order = list(dict.fromkeys(order))
    rows = len(frame)
    factors = [factorize_column(frame[c]) for c in cols]
    codes = np.stack([f[0] for f in factors], axis=1) if cols else np.zeros((rows, 0), np.int64)
    cards = [n + 1 for _, n in factors]  # code n = blank
    blank_code = np.array([n for _, n in factors], dtype=np.int64)
    blanked = np.zeros((rows, len(cols)), dtype=bool)
    true_codes = codes.copy()
    _, per = _sizes(codes, cards)
    unsafe = per < k
    # 1. one cell: per column in priority order, the largest set of records still below
    #    k that all reach k when that one cell of theirs is blanked
    for col in order:
        if not unsafe.any():
            break
        i = cols.index(col)
        saved = _saved_by(codes, cards, unsafe, i, blank_code[i], k)
        codes[saved, i] = blank_code[i]
        blanked[saved, i] = True
        unsafe &= ~saved
    # 2. the rest: blank column after column, in priority order, until they reach k
    for col in order:
        if not unsafe.any():
            break
        i = cols.index(col)
        blanked[unsafe, i] = True
        codes[unsafe, i] = blank_code[i]
        _, per = _sizes(codes, cards)
        unsafe = per < k
    removed = unsafe.copy()
    _restore(codes, true_codes, blanked, k, removed, [cols.index(c) for c in order])
    out = frame.copy()
    for i, col in enumerate(cols):
        mask = blanked[:, i] & ~removed
        if mask.any():
            values = out[col].astype("string").copy()
            values[mask] = BLANK
            out[col] = values
    out = out.loc[~removed].copy()
    kept_blanks = blanked & ~removed[:, None]
    return LocalSuppression(
        frame=out,
        cells_blanked=int(kept_blanks.sum()),
        rows_touched=int(kept_blanks.any(axis=1).sum()),
        rows_suppressed=int(removed.sum()),
        by_column={c: int(kept_blanks[:, i].sum()) for i, c in enumerate(cols)},
    )


def _saved_by(
    codes: np.ndarray,
    cards: Sequence[int],
    candidates: np.ndarray,
    i: int,
    blank: int,
    k: int,
) -> np.ndarray:
    """The greatest subset of ``candidates`` whose records all sit in classes of k or
    more once their cell in column i is blanked (shrunk until it holds)."""
    chosen = candidates.copy()
    while chosen.any():
        trial = codes.copy()
        trial[chosen, i] = blank
        _, per = _sizes(trial, cards)
        keep = chosen & (per >= k)
        if (keep == chosen).all():
            break
        chosen = keep
    return chosen


def _restore(
    codes: np.ndarray,
    true_codes: np.ndarray,
    blanked: np.ndarray,
    k: int,
    removed: np.ndarray,
    order: Sequence[int],
) -> None:
    """Give blanked cells back, last priority first, where both the class left and the
    class joined keep k records (or the class left empties). Removed rows take no part."""
    todo = np.flatnonzero(blanked.any(axis=1) & ~removed)
    if not len(todo):
        return
    sizes: dict[tuple[int, ...], int] = {}
    for tup in map(tuple, codes[~removed].tolist()):
        sizes[tup] = sizes.get(tup, 0) + 1
    for i in reversed(list(order)):
        for r in todo.tolist():
            if not blanked[r, i]:
                continue
            cur = tuple(codes[r].tolist())
            new = (*cur[:i], int(true_codes[r, i]), *cur[i + 1 :])
            left = sizes[cur] - 1
            joined = sizes.get(new, 0) + 1
            if joined >= k and (left == 0 or left >= k):
                if left:
                    sizes[cur] = left
                else:
                    del sizes[cur]
                sizes[new] = joined
                codes[r, i] = true_codes[r, i]
                blanked[r, i] = False
