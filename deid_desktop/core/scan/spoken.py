"""Numbers said in words: seven digits or more read out one by one ("eight five eight,
five five five, oh one five seven"), as a phone, an SSN or a record number is taken down
from a call. Over the words of one batch (``words.Words``), in numpy: each word's hash is
looked up among those of the words of the ten digits ("oh" for zero), and runs of them
with nothing but spaces, commas, full stops or hyphens between are found. "one or two"
and "two to three times" are no run.
"""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.rules import CODE
from deid_desktop.core.scan.screen import register
from deid_desktop.core.scan.words import Words

C_SPOKEN = CODE[("ID", "pattern:spoken-digits")]
#: The fewest digits in a row that make a number worth hiding (a local phone number).
MIN_SAID = 7
_SAID = ("zero oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
#: Each word said for a digit ("oh" for zero, as a number is read out) -> the digit.
DIGIT_WORDS = {w: str(d) for d, ws in enumerate(_SAID) for w in ws.split()}


def _hashes(words: tuple[str, ...]) -> np.ndarray:
    """``lexicon.word_hash`` of each word, sorted (the words' own hashes, as ``Words``
    carries them for the lexicon look-up)."""
    buf = b"".join(w.encode() for w in words) + bytes(16)
    length = np.array([len(w) for w in words], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(length)[:-1])).astype(np.int64)
    return np.sort(lx.word_hash(buf, starts, length))


_HASHES = _hashes(tuple(DIGIT_WORDS))
#: The digit words' bit in the batch's word screen: a word without it is no digit word.
_SCREEN = register(_HASHES)


def find_spoken(w: Words, out: list[tuple[np.ndarray, np.ndarray, int]]) -> None:
    """Append the spans of runs of ``MIN_SAID`` digit words or more to ``out``."""
    n = w.size
    if n < MIN_SAID or w.hashes.size < n:
        return
    h = w.hashes[:n]
    maybe = w.screen(_SCREEN)  # few words pass
    if maybe.size < MIN_SAID:
        return
    at = np.minimum(np.searchsorted(_HASHES, h[maybe]), _HASHES.size - 1)
    members = maybe[_HASHES[at] == h[maybe]]  # the digit words, in order
    if members.size < MIN_SAID:
        return
    # word i continues a run from word i - 1: both digit words, a short gap of separators
    # (read among the digit words only, not over every word of the batch)
    joined = np.flatnonzero(members[1:] == members[:-1] + 1) + 1
    if joined.size < MIN_SAID - 1:
        return
    pairs = members[joined]
    head = np.ones(members.size, dtype=bool)  # a run starts at a digit word not joined
    head[joined[(w.gaps.length[pairs] <= 3) & _separators_only(w, pairs)]] = False
    size = np.bincount(np.cumsum(head) - 1)
    first = members[head]
    long = size >= MIN_SAID
    if long.any():
        out.append((w.start[first[long]], w.end[first[long] + size[long] - 1], C_SPOKEN))


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
