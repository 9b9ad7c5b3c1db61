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

_EMPTY = np.empty(0, dtype=np.int64)
_SPACE = 32
_NAME = dict_code("NAME")
C_GLUED = CODE[("NAME", "dictionary:name-glued")]
Found = tuple[np.ndarray, np.ndarray, np.ndarray]


def _glued_words(padded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) in ``padded`` of each word where a letter meets a digit."""
    digit = (padded >= 48) & (padded <= 57)
    letter = (padded >= 97) & (padded <= 122)
    meet = np.flatnonzero((letter[:-1] & digit[1:]) | (digit[:-1] & letter[1:]))
    if meet.size == 0:
        return _EMPTY, _EMPTY
    space = np.flatnonzero(padded == _SPACE)  # the first and last bytes are spaces
    w_start = np.unique(space[np.searchsorted(space, meet, side="right") - 1] + 1)
    return w_start, space[np.searchsorted(space, w_start, side="right")]


def glued_names(matcher: WordMatcher, padded: bytes, original: bytes) -> Found:
    """Hits (start, end in the batch, rule code) of the words glued to digits that hold a
    dictionary name written with a capital. ``padded``: the folded ASCII batch with a
    space at each end; ``original``: the batch's ASCII projection (its case)."""
    raw = np.frombuffer(padded, dtype=np.uint8)
    w_start, w_end = _glued_words(raw)
    if w_start.size == 0:
        return _EMPTY, _EMPTY, _EMPTY
    length = w_end - w_start
    at = np.cumsum(length + 1) - length  # each word's start in the copy, after a space
    copy = np.full(int(at[-1] + length[-1] + 1), _SPACE, dtype=np.uint8)
    owner = np.repeat(np.arange(length.size), length)
    offset = np.arange(owner.size) - np.repeat(np.cumsum(length) - length, length)
    copy[at[owner] + offset] = raw[w_start[owner] + offset]
    copy[(copy >= 48) & (copy <= 57)] = _SPACE
    last, ids = matcher.index.matches(copy.tobytes())
    if last.size == 0:
        return _EMPTY, _EMPTY, _EMPTY
    first = last - matcher.lengths[ids] + 2  # the term's first character (" term ")
    word = np.searchsorted(at, first, side="right") - 1
    inside = (np.searchsorted(at, last, side="right") - 1 == word) & (matcher.codes[ids] == _NAME)
    text = np.frombuffer(original, dtype=np.uint8)
    head = text[np.minimum(first - at[word] + w_start[word] - 1, len(text) - 1)]
    found = np.unique(word[inside & (head >= 65) & (head <= 90)])  # A-Z
    start = w_start[found] - 1  # the padded text's leading space: offsets in the batch
    return start, w_end[found] - 1, np.full(found.size, C_GLUED, dtype=np.int64)
