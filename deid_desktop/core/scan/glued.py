"""Names glued to digits: ``SCOTT9573``, ``Kowalczyk12``, ``4471Smith``.

The word pass (``regions``) matches a term only as a whole word of the folded text, and
a letter run that touches a digit is no whole word there. This pass reads those words
again: each word of the batch where a letter meets a digit is copied, with its digits
read as spaces (``scott 9573``), into a short text of such words alone, the word index
runs over it, and a dictionary name found inside one word, written with a capital in
the note, makes the whole word a hit (``dictionary:name-glued``): redacted, nothing of
it is left (``[NAME]``, not ``[NAME]9573``, whose digits would then stand alone).
Clinical notes hold many such words (``100mg``, ``q6h``, ``HbA1c``), but they are a
small share of a batch, and a unit is no dictionary name.
"""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan.dictionary import WordMatcher
from deid_desktop.core.scan.rules import CODE, dict_code
from deid_desktop.core.scan.words import LOWER, UPPER, Words

_EMPTY = np.empty(0, dtype=np.int64)
_SPACE = 32
_NAME = dict_code("NAME")
C_GLUED = CODE[("NAME", "dictionary:name-glued")]
Found = tuple[np.ndarray, np.ndarray, np.ndarray]
_LETTER = UPPER | LOWER


def _glued_words(w: Words) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive, offsets in the batch) of each word of ``w`` where a
    letter meets a digit: a letter just before a run of digits, or just after one
    (``w.digit_runs``; the class of a byte from ``w.cls``)."""
    first, end = w.digit_runs
    before = (first >= 1) & ((w.cls[np.maximum(first - 1, 0)] & _LETTER) != 0)
    after = (w.cls[end] & _LETTER) != 0  # (the batch ends in spare zero bytes)
    # per run the letter before it, then the one after: in order, as the runs are
    meet = np.stack((first - 1, end - 1), axis=1)[np.stack((before, after), axis=1)]
    if meet.size == 0:
        return _EMPTY, _EMPTY
    at = np.searchsorted(w.start[: w.size], meet, side="right") - 1
    at = at[np.concatenate(([True], at[1:] != at[:-1]))]  # sorted: each word once
    return w.start[at], w.end[at]


def glued_names(matcher: WordMatcher, w: Words) -> Found:
    """Hits (start, end in the batch, rule code) of the words glued to digits that hold a
    dictionary name written with a capital; ``w``: the batch's words. The copy is made
    from the batch's ASCII projection (``w.raw``), its capitals made small, as folding
    does to ASCII letters."""
    w_start, w_end = _glued_words(w)
    if w_start.size == 0:
        return _EMPTY, _EMPTY, _EMPTY
    length = w_end - w_start
    at = np.cumsum(length + 1) - length  # each word's start in the copy, after a space
    copy = np.full(int(at[-1] + length[-1] + 1), _SPACE, dtype=np.uint8)
    owner = np.repeat(np.arange(length.size), length)
    offset = np.arange(owner.size) - np.repeat(np.cumsum(length) - length, length)
    copy[at[owner] + offset] = w.raw[w_start[owner] + offset]
    copy[(copy >= 65) & (copy <= 90)] |= 0x20  # A-Z -> a-z
    copy[(copy >= 48) & (copy <= 57)] = _SPACE
    last, ids = matcher.index.matches(copy.tobytes())
    if last.size == 0:
        return _EMPTY, _EMPTY, _EMPTY
    first = last - matcher.lengths[ids] + 2  # the term's first character (" term ")
    word = np.searchsorted(at, first, side="right") - 1
    inside = (np.searchsorted(at, last, side="right") - 1 == word) & (matcher.codes[ids] == _NAME)
    head = w.cls[first - at[word] + w_start[word]]
    found = np.unique(word[inside & (head == UPPER)])  # A-Z
    return w_start[found], w_end[found], np.full(found.size, C_GLUED, dtype=np.int64)
