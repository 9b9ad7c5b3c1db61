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


def _columns(
    data: np.ndarray, starts: np.ndarray, rows: np.ndarray | None, length: int
) -> np.ndarray:
    """The bytes of the values ``rows`` (all ``length`` long), position by position:
    a (length, values) array, each position contiguous.

    ``rows=None``: every value has this length and they lie end to end in the buffer.
    """
    if rows is None:
        first = int(starts[0]) if len(starts) else 0
        matrix = data[first : first + len(starts) * length].reshape(len(starts), length)
        return np.ascontiguousarray(matrix.T)
    base = starts[rows]
    out = np.empty((length, len(rows)), dtype=np.uint8)
    for p in range(length):
        out[p] = data[base + p]
    return out


def _shape_codes(classes: np.ndarray, length: int) -> np.ndarray:
    """One code per value from its byte classes ((length, values): 3 bits per position)
    and its length."""
    code = np.zeros(classes.shape[1], dtype=np.int64)
    for p in range(length):
        code = code * 8 + classes[p]
    return code * 32 + int(length)


def _uniform(columns: np.ndarray) -> bool:
    """Whether every value has the byte classes of the first (digits where it has digits,
    its very separators elsewhere): the usual column, checked without a class lookup
    per byte. ``columns``: (length, values) bytes."""
    first = columns[:, 0]
    classes = _CLASS[first]
    if (classes == 7).any():
        return False
    digit = classes == 0
    if not ((columns[digit] - 48) < 10).all():
        return False
    return bool((columns[~digit] == first[~digit, None]).all())


def tokenize(arr: pa.Array) -> Tokens:
    """Shapes and numbers of every value of ``arr`` (a large_string array, no nulls)."""
    n = len(arr)
    data, offsets = _buffers(arr)
    starts = offsets[:-1]
    lengths = np.diff(offsets)
    shape = np.full(n, -1, dtype=np.int64)
    # Stored token by token (each token's numbers contiguous), used as (n, MAX_TOKENS).
    numbers = np.zeros((MAX_TOKENS, n), dtype=np.int64).T
    representative: dict[int, int] = {}
    if n and (lengths == lengths[0]).all():  # one length: a view of the buffer, no copy
        groups: list[tuple[int, np.ndarray | None]] = [(int(lengths[0]), None)]
    else:
        groups = [(int(length), np.flatnonzero(lengths == length)) for length in np.unique(lengths)]
    for length, rows in groups:
        if not MIN_LEN <= length <= MAX_LEN:
            continue
        columns = _columns(data, starts, rows, length)
        count = columns.shape[1]
        if _uniform(columns):
            classes = _CLASS[columns[:, :1]]
            code = np.broadcast_to(_shape_codes(classes, length), (count,))
        else:
            classes = _CLASS[columns]
            code = _shape_codes(classes, length)
        if rows is None:
            shape[:] = code
        else:
            shape[rows] = code
        if (code == code[0]).all():
            kinds, first_index = code[:1], np.zeros(1, dtype=np.int64)
        else:
            kinds, first_index = np.unique(code, return_index=True)
        for kind, first in zip(kinds, first_index, strict=True):
            representative[int(kind)] = int(first if rows is None else rows[first])
            sub = np.flatnonzero(code == kind) if len(kinds) > 1 else None
            target = (
                (slice(None) if rows is None else rows)
                if sub is None
                else (sub if rows is None else rows[sub])
            )
            part = columns if sub is None else columns[:, sub]
            runs = _digit_runs([int(c) for c in classes[:, first]])
            for t, (a, b) in enumerate(runs[:MAX_TOKENS]):
                value = np.zeros(part.shape[1], np.int64)
                for p in range(a, min(b, a + 9)):
                    value = value * 10 + part[p] - 48
                numbers[target, t] = value
    return Tokens(shape=shape, numbers=numbers, representative=representative)
