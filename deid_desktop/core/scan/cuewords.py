"""Cue words of the note finders (``context_notes``, ``context_places``).

The rare ones are flagged by the lexicon and so are among a batch's anchor words
(``Cues.at``); any word's group is read from its hash where a finder asks (``Cues.group``),
so no pass runs over every word of the batch.
"""

from __future__ import annotations

import functools

import numpy as np

from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.cuegroups import GROUPS
from deid_desktop.core.scan.fold import ascii_projection
from deid_desktop.core.scan.lexicon import word_hash
from deid_desktop.core.scan.words import Words

_WORDS = [(w, g) for g, ws in GROUPS.items() for w in ws]
_SEEN: dict[str, int] = {}
for _w, _g in _WORDS:
    _SEEN.setdefault(_w, _g)  # a word of two groups keeps its first ("ste": a saint)
_KEYS = list(_SEEN)
_HASH = word_hash(
    b"".join(k.encode().ljust(16, b" ") for k in _KEYS) + bytes(16),
    np.arange(len(_KEYS), dtype=np.int64) * 16,
    np.array([len(k) for k in _KEYS], dtype=np.int64),
)
#: Per group, the sorted hashes of all its words (a word may be in two groups).
_MEMBERS = {grp: np.sort(_HASH[[_KEYS.index(w) for w in words]]) for grp, words in GROUPS.items()}
_ORDER = np.argsort(_HASH)
_SORTED = _HASH[_ORDER]
_GROUP = np.array([_SEEN[k] for k in _KEYS], dtype=np.int8)[_ORDER]


#: The anchor flags the finders start from that few words carry.
_RARE = (
    lx.TITLE | lx.RELATION | lx.CREDENTIAL | lx.MONTH | lx.SEASON | lx.STATE | lx.STREET
    | lx.FACILITY | lx.NOTE_CUE
)  # fmt: skip


class Cues:
    """The cue groups of a batch's words: where the flagged groups' words are, and the
    group of any word asked about (its hash looked up in the groups' table)."""

    def __init__(self, w: Words, folded: str, hashes: np.ndarray | None) -> None:
        self.w = w
        self.folded = folded
        self.hashes = hashes
        self._fb: bytes | None = None
        anchors, af = w.anchors, w.anchor_flags
        rare = (af & _RARE) != 0
        self._rare, self._rare_f = anchors[rare], af[rare]
        self._anchors, self._af = anchors, af
        self._at = self.flagged(lx.NOTE_CUE)
        self._group = self.group(self._at)

    @functools.cached_property
    def places(self) -> np.ndarray:
        """The anchors that are gazetteer places or the first word of one (many)."""
        return self._anchors[(self._af & (lx.PLACE | lx.PLACE_HEAD)) != 0]

    def flagged(self, flag: int) -> np.ndarray:
        """The batch's words with one of the (rare) lexicon flags ``flag``."""
        return self._rare[(self._rare_f & flag) != 0]

    def at(self, group: int) -> np.ndarray:
        """The indices of the words of a flagged group."""
        return self._at[self._group == group]

    def hashes_at(self, i: np.ndarray) -> np.ndarray:
        """The hashes of the words at ``i`` (real words only)."""
        if self.hashes is not None:
            return self.hashes[i]
        if self._fb is None:
            self._fb = ascii_projection(self.folded) + bytes(16)
        return word_hash(self._fb, self.w.start[i], self.w.lengths[i])

    def group(self, i: np.ndarray) -> np.ndarray:
        """The group of the words at ``i`` (0: none; a sentinel index is none)."""
        n = self.w.size
        if i.size == 0 or n == 0:
            return np.zeros(i.size, dtype=np.int8)
        h = self.hashes_at(np.minimum(np.maximum(i, 0), n - 1))
        k = np.minimum(np.searchsorted(_SORTED, h), _SORTED.size - 1)
        return np.where((_SORTED[k] == h) & (i >= 0) & (i < n), _GROUP[k], 0).astype(np.int8)

    def member(self, i: np.ndarray, group: int) -> np.ndarray:
        """Whether the words at ``i`` are words of ``group`` (also of another)."""
        n = self.w.size
        if i.size == 0 or n == 0:
            return np.zeros(i.size, dtype=bool)
        h = self.hashes_at(np.minimum(np.maximum(i, 0), n - 1))
        table = _MEMBERS[group]
        k = np.minimum(np.searchsorted(table, h), table.size - 1)
        return (table[k] == h) & (i >= 0) & (i < n)

    def english(self, i: np.ndarray) -> np.ndarray:
        """Whether the (real) words at ``i`` are English words of the bundled list."""
        if i.size == 0:
            return np.zeros(0, dtype=bool)
        return lx.in_set(self.hashes_at(i), _english())

    def wordlike(self, i: np.ndarray) -> np.ndarray:
        """Whether the (real) words at ``i`` are English words of the bundled list, or
        such a word inflected (``inflected``: "pressures", "requesting"), or clinical
        words."""
        if i.size == 0:
            return np.zeros(0, dtype=bool)
        found = self.english(i) | ((self.w.f(i) & lx.CLINICAL) != 0)
        rest = np.flatnonzero(~found)
        if rest.size:
            found[rest] = inflected(self.w, i[rest])
        return found


#: Suffixes an inflected English word ends in, each with the lengths its stem may have
#: (counted back from the word's end): "pressures" -> "pressure", "requested" ->
#: "request", "encouraged" -> "encourage", "stopped" -> "stop", "running" -> "run",
#: "boxes" -> "box". (Not "-ly": surnames end so, "Lavely".)
_SUFFIXES = ((b"s", (1,)), (b"es", (2,)), (b"ed", (1, 2, 3)), (b"ing", (3, 4)))
_SPAN = 16  # at most this many letters of a word are read (``lexicon.MAX_LEN``)


def inflected(w: Words, i: np.ndarray) -> np.ndarray:
    """Whether the (real) words at ``i`` are an English word of the bundled list with
    one of ``_SUFFIXES`` added (the list has no inflected forms): only words of more
    than four letters, and a stem of three letters or more."""
    out = np.zeros(i.size, dtype=bool)
    n = w.lengths[i]
    cand = np.flatnonzero((n > 4) & (n <= _SPAN) & ~w.digits[i])
    if cand.size == 0:
        return out
    at, length = i[cand], n[cand]
    # the candidates' letters, lower case, one row of _SPAN bytes each
    idx = np.minimum(w.start[at][:, None] + np.arange(_SPAN), w.raw.size - 1)
    letters = w.raw[idx] * (np.arange(_SPAN) < length[:, None])
    letters = letters | ((letters >= 65) & (letters <= 90)).astype(np.uint8) * 32
    buf = letters.astype(np.uint8).tobytes() + bytes(16)
    starts = np.arange(cand.size, dtype=np.int64) * _SPAN
    rows = np.arange(cand.size)
    table = _english()
    found = np.zeros(cand.size, dtype=bool)
    # "-es" after s, x, z or h only ("boxes", "pushes"; not "sparkes": "spark")
    before_es = letters[rows, np.maximum(length - 3, 0)]
    sibilant = np.isin(before_es, np.frombuffer(b"sxzh", dtype=np.uint8))
    for suffix, cuts in _SUFFIXES:
        k = len(suffix)
        tail = letters[rows[:, None], length[:, None] - k + np.arange(k)]
        ends = (tail == np.frombuffer(suffix, dtype=np.uint8)).all(axis=1) & ~found
        if suffix == b"es":
            ends &= sibilant
        for cut in cuts:
            todo = np.flatnonzero(ends & (length - cut >= 3))
            if todo.size:
                hit = lx.in_set(word_hash(buf, starts[todo], length[todo] - cut), table)
                found[todo[hit]] = True
                ends[todo[hit]] = False
    out[cand] = found
    return out


def english_at(w: Words, i: np.ndarray) -> np.ndarray:
    """Whether the (real) words at ``i`` are English words of the bundled list (from the
    words' own hashes, without a ``Cues``)."""
    if i.size == 0 or w.size == 0:
        return np.zeros(i.size, dtype=bool)
    return lx.in_set(w.hashes[np.clip(i, 0, w.size - 1)], _english()) & (i >= 0) & (i < w.size)


@functools.cache
def _english() -> np.ndarray:
    """The sorted hashes of the bundled English words (web2), read once (1.7 MB): the
    file's words (ASCII, one a line) cut and hashed in numpy, not word by word."""
    raw = np.frombuffer(lx.resource("words", "english_web2.txt").read_bytes(), dtype=np.uint8)
    raw = raw[raw != 13]  # a copy with CRLF line ends reads the same
    ends = np.flatnonzero(raw == 10)
    starts = np.concatenate(([0], ends[:-1] + 1))
    if raw.size and raw[-1] != 10:  # a last word without a line end
        starts = np.append(starts, ends[-1] + 1 if ends.size else 0)
        ends = np.append(ends, raw.size)
    length = ends - starts
    keep = (length > 0) & (length <= 16)
    starts, length = starts[keep], length[keep]
    at = np.minimum(starts[:, None] + np.arange(16), raw.size - 1)
    rows = np.where(np.arange(16) < length[:, None], raw[at], 0).astype(np.uint8)
    buf = rows.tobytes() + bytes(16)
    return np.sort(word_hash(buf, np.arange(length.size, dtype=np.int64) * 16, length))
