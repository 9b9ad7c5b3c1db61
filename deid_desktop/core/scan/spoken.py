"""Numbers said in words: seven digits or more read out one by one ("eight five eight,
five five five, oh one five seven"), as a phone, an SSN or a record number is taken down
from a call. Over the words of one batch (``words.Words``), in numpy: each word of two to
five letters is compared, by a key of its letters, with the words of the ten digits
("oh" for zero), and runs of them with nothing but spaces, commas, full stops or hyphens
between are found. "one or two" and "two to three times" are no run.
"""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan.rules import CODE
from deid_desktop.core.scan.words import _LOW, _UP, Words

C_SPOKEN = CODE[("ID", "pattern:spoken-digits")]
#: The fewest digits in a row that make a number worth hiding (a local phone number).
MIN_SAID = 7
_SAID = ("zero", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_MAX = 5  # the longest digit word


def _key(word: bytes) -> int:
    return sum(b << (8 * k) for k, b in enumerate(word)) | (len(word) << (8 * _MAX))


_KEYS = np.array(sorted(_key(w.encode()) for w in _SAID), dtype=np.uint64)


def find_spoken(w: Words, out: list[tuple[np.ndarray, np.ndarray, int]]) -> None:
    """Append the spans of runs of ``MIN_SAID`` digit words or more to ``out``."""
    n = w.size
    if n < MIN_SAID:
        return
    length = w.lengths[:n]
    cand = np.flatnonzero((length >= 2) & (length <= _MAX) & ((w.c0[:n] & (_UP | _LOW)) != 0))
    if cand.size < MIN_SAID:
        return
    key = (length[cand].astype(np.uint64)) << np.uint64(8 * _MAX)
    starts = w.start[cand]
    for k in range(_MAX):
        inside = k < length[cand]
        byte = w.raw[np.minimum(starts + k, w.raw.size - 1)].astype(np.uint64) | np.uint64(32)
        key |= np.where(inside, byte << np.uint64(8 * k), np.uint64(0))
    at = np.minimum(np.searchsorted(_KEYS, key), _KEYS.size - 1)
    digit = np.zeros(n + 1, dtype=bool)
    digit[cand[_KEYS[at] == key]] = True
    if np.count_nonzero(digit) < MIN_SAID:
        return
    # word i continues a run from word i - 1: both digit words, a short gap of separators
    i = np.arange(1, n)
    gap = w.gap(i)
    joined = digit[i] & digit[i - 1] & (gap.length <= 3) & _separators_only(w, i)
    # runs: a run starts at a digit word not joined to the one before
    cont = np.zeros(n, dtype=bool)
    cont[1:] = joined
    first = np.flatnonzero(digit[:n] & ~cont)
    run_id = np.cumsum(digit[:n] & ~cont) - 1
    members = np.flatnonzero(digit[:n])
    size = np.bincount(run_id[members], minlength=first.size)
    last = first + size - 1
    long = size >= MIN_SAID
    if long.any():
        out.append((w.start[first[long]], w.end[last[long]], C_SPOKEN))


def _separators_only(w: Words, i: np.ndarray) -> np.ndarray:
    """Whether every character between word ``i - 1`` and word ``i`` is a separator."""
    lo, hi = w.end[i - 1], w.start[i]
    ok = np.ones(i.size, dtype=bool)
    for k in range(3):
        at = lo + k
        inside = at < hi
        byte = w.raw[np.minimum(at, w.raw.size - 1)]
        sep = (byte == 32) | (byte == 9) | (byte == 44) | (byte == 46) | (byte == 45)
        ok &= ~inside | sep
    return ok
