"""Split date-like strings into their numbers, all at once with numpy.

Works on the UTF-8 bytes of an Arrow string array (no Python object per value). Values
are grouped by length; within a group, the character at each position is read for all
values in one vectorised step, giving each value a *shape*: where its digits are and
which separators sit between them. Values of one shape are laid out identically, so a
shape is recognised from one representative value, and its numbers ("1/5/2024 10:30"
-> 1, 5, 2024, 10, 30) are read column by column.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

MAX_TOKENS = 6  # year, month, day, hour, minute, second
MIN_LEN, MAX_LEN = 6, 20  # "1/1/24" .. "2024-01-31T14:05:00Z"
_CLASS = np.full(256, 7, dtype=np.uint8)  # byte -> 0 digit, 1-6 separator, 7 other
_CLASS[ord("0") : ord("9") + 1] = 0
for _code, _char in enumerate("-/. T:", start=1):
    _CLASS[ord(_char)] = _code


@dataclass(frozen=True)
class Tokens:
    """Per value: its shape (-1 when too short or long to be a date) and its numbers."""

    shape: np.ndarray  # int64, one per value
    numbers: np.ndarray  # int64 (n, MAX_TOKENS); 0 where absent
    representative: dict[int, int]  # shape -> index of its first value


def _buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(bytes, value offsets) of a large_string array without nulls."""
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.empty(0, "u1")
    return data, offsets


def _digit_runs(classes: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    start = None
    for pos, cls in enumerate([*classes, -1]):
        if cls == 0 and start is None:
            start = pos
        elif cls != 0 and start is not None:
            runs.append((start, pos))
            start = None
    return runs


def tokenize(arr: pa.Array) -> Tokens:
    """Shapes and numbers of every value of ``arr`` (a large_string array, no nulls)."""
    n = len(arr)
    data, offsets = _buffers(arr)
    starts = offsets[:-1]
    lengths = np.diff(offsets)
    shape = np.full(n, -1, dtype=np.int64)
    numbers = np.zeros((n, MAX_TOKENS), dtype=np.int64)
    representative: dict[int, int] = {}
    for length in np.unique(lengths):
        if not MIN_LEN <= length <= MAX_LEN:
            continue
        rows = np.flatnonzero(lengths == length)
        every = len(rows) == n
        base = starts[rows]
        columns = [data[base + p] for p in range(length)]
        classes = [_CLASS[c] for c in columns]
        code = np.zeros(len(rows), dtype=np.int64)
        for cls in classes:
            code = code * 8 + cls
        code = code * 32 + int(length)
        shape[rows] = code
        kinds, first_index = np.unique(code, return_index=True)
        for kind, first in zip(kinds, first_index, strict=True):
            representative[int(kind)] = int(rows[first])
            sub = np.flatnonzero(code == kind) if len(kinds) > 1 else slice(None)
            target = rows[sub] if not (every and len(kinds) == 1) else slice(None)
            runs = _digit_runs([int(cls[first]) for cls in classes])
            for t, (a, b) in enumerate(runs[:MAX_TOKENS]):
                value = np.zeros(len(rows) if isinstance(sub, slice) else len(sub), np.int64)
                for p in range(a, min(b, a + 9)):
                    value = value * 10 + columns[p][sub] - 48
                numbers[target, t] = value
    return Tokens(shape=shape, numbers=numbers, representative=representative)
