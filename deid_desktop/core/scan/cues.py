"""The name after a cue word ("Dr. Smith", "daughter Sarah Jones"), found with numpy: the
same result as the cue patterns of ``patterns``, read from a window of characters after
each cue. A cue whose name runs past the window, or where a non-ASCII character comes
before the name is decided, is left to the regex (the caller gets its index back).

After the cue: an optional '.' (titles) or ',' / ':' (relations), one or more spaces or
tabs, then a capitalised word of letters followed by letters, digits, _ ' or -; then,
if one or more spaces or tabs and a capitalised word follow, that word too.
"""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan.fold import non_ascii, padded_projection

WINDOW = 48  # below ``fold.SPARE``: the cue reader reads WINDOW + 1 bytes past a cue
#: The window read first (``cue_names``).
SHORT = 24
_SPACE, _UPPER, _LOWER, _INNER, _DOT, _COMMA, _FOREIGN = 1, 2, 4, 8, 16, 32, 64
_CLASS = np.zeros(256, dtype=np.uint8)
_CLASS[[ord(" "), ord("\t")]] = _SPACE
_CLASS[ord("A") : ord("Z") + 1] = _UPPER
_CLASS[ord("a") : ord("z") + 1] = _LOWER
_CLASS[[*range(ord("0"), ord("9") + 1), ord("_"), ord("'"), ord("-")]] = _INNER
_CLASS[ord(".")] = _DOT
_CLASS[[ord(","), ord(":")]] = _COMMA
_CLASS[128:] = _FOREIGN  # any non-ASCII character (see ``projection``)
_LETTER = _UPPER | _LOWER
_NAME = _LETTER | _INNER


def projection(text: str) -> np.ndarray:
    """One byte per character of ``text`` (128 for any non-ASCII one), then at least
    WINDOW + 1 zero bytes: what ``cue_names`` reads. Made from the batch's ASCII
    projection (a non-ASCII character read as '?'), its non-ASCII characters then set
    to 128: no pass over the code points of the batch."""
    padded = np.frombuffer(padded_projection(text), dtype=np.uint8)  # (SPARE zero bytes)
    if text.isascii():
        return padded
    out = padded.copy()
    out[non_ascii(text)] = 128
    return out


def _first(mask: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Per row, the first column at or after ``start`` where ``mask`` holds; the last
    column (the window's width: ``_cue_names`` reads one sentinel character past the
    window, which every mask holds) if none before it."""
    return (mask & (np.arange(mask.shape[1]) >= start[:, None])).argmax(axis=1)


def cue_names(
    raw: np.ndarray, ends: np.ndarray, title: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For cue words ending at ``ends`` in ``raw`` (``projection`` of the batch), titles
    where ``title``: which have a name (indices), its start and end, and the indices left
    to the regex (a name past the window, or a non-ASCII character in it). Read first in
    a window of ``SHORT`` characters (most names end there), then in the whole window
    where that one left the name open: a name decided in the short window reads the same
    in the long one."""
    found, start, end, rest = _cue_names(raw, ends, title, SHORT)
    if rest.size:
        more, s, e, rest2 = _cue_names(raw, ends[rest], title[rest], WINDOW)
        found = np.concatenate((found, rest[more]))
        order = np.argsort(found, kind="stable")
        found = found[order]
        start = np.concatenate((start, s))[order]
        end = np.concatenate((end, e))[order]
        rest = rest[rest2]
    return found, start, end, rest


def _cue_names(
    raw: np.ndarray, ends: np.ndarray, title: np.ndarray, window: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``cue_names`` read in a window of ``window`` characters after each cue."""
    # (a table indexed by a uint8 array takes numpy's slow casting path: index by intp);
    # one more column, a sentinel that ends every run (not a space, not of a name, a
    # foreign character): ``_first`` finds it where nothing in the window holds
    cls = _CLASS[raw[ends[:, None] + np.arange(window + 1)].astype(np.intp)]
    cls[:, window] = _FOREIGN
    rows = np.arange(ends.size)
    lead = np.where(title, _DOT, _COMMA).astype(np.uint8)
    p0 = ((cls[:, 0] & lead) != 0).astype(np.int64)
    q1 = _first((cls & _SPACE) == 0, p0)  # first character after the spaces
    g1_end = _first((cls & _NAME) == 0, np.minimum(q1 + 1, window))
    q2 = _first((cls & _SPACE) == 0, g1_end)
    g2_end = _first((cls & _NAME) == 0, np.minimum(q2 + 1, window))
    c1 = cls[rows, np.minimum(q1, window - 1)]
    c2 = cls[rows, np.minimum(q2, window - 1)]
    has_first = (q1 > p0) & (q1 < window) & ((c1 & _LETTER) != 0)
    has_second = (q2 > g1_end) & (q2 < window) & ((c2 & _LETTER) != 0)
    # undecided inside the window: a run of spaces or a word reaching its end
    open_end = (q1 >= window) | (has_first & (g1_end >= window))
    # the regex knows non-ASCII letters: a non-ASCII character among those read
    foreign = _first((cls & _FOREIGN) != 0, np.zeros(rows.size, dtype=np.int64))
    read = np.where(has_first, np.where(has_second, g2_end, q2), q1)
    open_end |= (foreign < window) & (foreign <= read)
    open_end |= has_first & (c1 & _UPPER != 0) & (g1_end < window) & (q2 >= window)
    open_end |= has_first & (c1 & _UPPER != 0) & has_second & (g2_end >= window)
    named = ~open_end & has_first & ((c1 & _UPPER) != 0)
    end = np.where(has_second & ((c2 & _UPPER) != 0), g2_end, g1_end)
    found = np.flatnonzero(named)
    return found, ends[found] + q1[found], ends[found] + end[found], np.flatnonzero(open_end)
