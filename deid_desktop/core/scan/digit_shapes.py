"""The matches of the digit pattern (``patterns._DIGITS``) in a batch's digit regions,
read once per region *shape* rather than once per match.

The pattern tells characters apart only as an ASCII letter, a digit, the literal 1 of a
phone's leading "1", and the punctuation it names (NUL it never reads). So a region
written as its shape - every letter as 'a', every digit as '0' but a '1' that no digit
precedes (only such a 1 can start a match: the pattern starts where no letter or digit
stands before) - has the same matches at the same offsets as the region itself:
"MRN6516766" and "MRN2824842" are both "aaa0000000". Notes repeat few shapes (an MRN,
a phone, a date in a sentence), so the regex runs once per new shape, its matches kept
across batches, and each region takes its shape's matches offset by where it starts.

The regions are cut at every NUL: no match holds one, and the pattern reads the start or
the end of a string as it reads a NUL around a match (neither a letter nor a digit).
"""

from __future__ import annotations

import re

import numpy as np

#: Matches (start, end, group number) per shape, relative to the shape; at most
#: ``_MAX_SHAPES`` kept (then forgotten all at once).
_SHAPES: dict[str, np.ndarray] = {}
_MAX_SHAPES = 1 << 14
_SHAPE = np.arange(256, dtype=np.uint8)
_SHAPE[ord("A") : ord("Z") + 1] = ord("a")
_SHAPE[ord("a") : ord("z") + 1] = ord("a")
_SHAPE[ord("0") : ord("9") + 1] = ord("0")
_NONE = np.empty((0, 3), dtype=np.int64)


def shape_of(buf: np.ndarray) -> np.ndarray:
    """The shape (see the module) of each byte of the ASCII regions ``buf``."""
    shape = _SHAPE[buf.astype(np.intp)]
    digit = (buf >= 48) & (buf <= 57)
    one = buf == 49
    one[1:] &= ~digit[:-1]  # a 1 right after a digit cannot start a match
    shape[one] = 49
    return shape


def digit_matches(pattern: re.Pattern[str], buf: np.ndarray) -> np.ndarray:
    """(start, end, ``Match.lastindex``) of every match of ``pattern`` in the regions
    ``buf`` (ASCII bytes, NUL between regions), in the order ``pattern.finditer`` gives
    them, as an array of 3 columns."""
    pieces = shape_of(buf).tobytes().decode("ascii").split("\x00")
    starts = np.concatenate(([0], np.flatnonzero(buf == 0) + 1))  # where each piece starts
    ids = {shape: k for k, shape in enumerate(dict.fromkeys(pieces))}  # few
    piece_id = np.fromiter(map(ids.__getitem__, pieces), dtype=np.int64, count=len(pieces))
    if len(_SHAPES) + len(ids) > _MAX_SHAPES:
        _SHAPES.clear()
    per_shape = [_SHAPES.get(s) for s in ids]
    for k, (s, found) in enumerate(zip(ids, per_shape, strict=True)):
        if found is None:
            found = _SHAPES[s] = _matches(pattern, s)
            per_shape[k] = found
    counts = np.fromiter((a.shape[0] for a in per_shape), dtype=np.int64, count=len(ids))
    if not counts.any():
        return _NONE
    table = np.concatenate(per_shape)
    first = np.cumsum(counts) - counts  # each shape's first row of ``table``
    n = counts[piece_id]  # matches per piece
    total = int(n.sum())
    rows = np.repeat(first[piece_id] - (np.cumsum(n) - n), n) + np.arange(total)
    out = table[rows]
    out[:, :2] += np.repeat(starts, n)[:, None]
    return out


def _matches(pattern: re.Pattern[str], shape: str) -> np.ndarray:
    found = [(m.start(), m.end(), m.lastindex or 0) for m in pattern.finditer(shape)]
    return np.asarray(found, dtype=np.int64).reshape(-1, 3) if found else _NONE
