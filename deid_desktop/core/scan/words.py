"""The words of a batch of notes as padded numpy arrays (``Words``), for the context
finders (``context``) and the word checks (``wordcheck``): start and end, lexicon flags,
case, number, the note's case and the gap before each word.

The batch is cut into words (runs of letters and digits of the folded text), or takes
the word pass's words (``regions``) with their hashes; every array is made with its
``_PAD`` sentinel words, and the class of a character is read from one translation of
the batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.fold import ascii_projection, padded_projection
from deid_desktop.core.scan.screen import screen as screen_words

_CUE = lx.TITLE | lx.RELATION | lx.CREDENTIAL

_SP, _STOP, _COMMA, _BREAK, _UP, _LOW, _DIG = 1, 2, 4, 8, 16, 32, 64
#: the classes of a letter and a digit (``Words.cls``), for the finders that read bytes
UPPER, LOWER, DIGIT = _UP, _LOW, _DIG
_CLASS = np.zeros(256, dtype=np.uint8)
_CLASS[[32, 9]] = _SP
_CLASS[list(b".!?:;")] = _STOP
_CLASS[list(b"\n\r\x00")] = _STOP | _BREAK
_CLASS[44] = _COMMA
_CLASS[65:91] = _UP
_CLASS[97:123] = _LOW
_CLASS[48:58] = _DIG


_PAD = 3  # sentinel words after the last: index -1, -2 and n..n+2 read as no word
_CLASS_BYTES = _CLASS.tobytes()
#: The flags the finders start from (``_flag_idx``): few words carry one.
_ANCHORS = (
    _CUE | lx.AGE_WORD | lx.MONTH | lx.SEASON | lx.STREET | lx.BOX | lx.FACILITY | lx.PLACE
    | lx.PLACE_HEAD | lx.STATE | lx.NOTE_CUE
)  # fmt: skip


@dataclass(frozen=True, eq=False)
class Words:
    """The words of a batch as arrays padded with ``_PAD`` sentinel words, so that a
    neighbour's index (i - 2 .. i + 2) always reads: a sentinel is no word (False, 0 or
    -1; its gap is a stop). Starts and ends (``start``, ``end``) are offsets in the
    batch; ``size`` counts the real words only."""

    start: np.ndarray
    end: np.ndarray
    flags: np.ndarray
    real: np.ndarray
    title: np.ndarray  # first letter upper, the second lower
    caps: np.ndarray  # upper-case (one letter: an initial)
    lower: np.ndarray  # starts lower-case
    digits: np.ndarray  # digits only
    values: np.ndarray  # the number of a word of 1-4 digits, else -1
    lengths: np.ndarray
    capsnotes: np.ndarray  # the word's note is written in capitals
    c0: np.ndarray  # class of the first character
    raw: np.ndarray  # the batch's ASCII projection, 4 spare bytes
    cls: np.ndarray  # the class (``_CLASS``) of each byte of ``raw``
    gaps: Gap  # per word, the gap before it
    size: int
    hashes: np.ndarray  # per real word, its ``lexicon.word_hash`` (not padded)
    bounds: np.ndarray  # the index of each note's first word, then ``size``

    @cached_property
    def anchors(self) -> np.ndarray:
        """The indices of the words with an ``_ANCHORS`` flag."""
        return np.flatnonzero((self.flags[: self.size] & _ANCHORS) != 0)

    @cached_property
    def anchor_flags(self) -> np.ndarray:
        """The flags of the words at ``anchors``."""
        return self.flags[self.anchors]

    @cached_property
    def screened(self) -> tuple[np.ndarray, np.ndarray]:
        """The words the finders' shared screen lets through, and their bits
        (``screen``)."""
        return screen_words(self.hashes[: self.size])

    def screen(self, bit: int) -> np.ndarray:
        """The indices of the words that may be words of the set of ``bit`` (a
        ``screen.register`` bit): every such word, and a few others."""
        at, bits = self.screened
        return at[(bits & bit) != 0]

    @cached_property
    def number_lengths(self) -> np.ndarray:
        """The lengths of the words at ``numbers`` (read once for the finders)."""
        return self.lengths[self.numbers]

    @cached_property
    def number_values(self) -> np.ndarray:
        """The values (``values``) of the words at ``numbers``."""
        return self.values[self.numbers]

    @cached_property
    def digit_runs(self) -> tuple[np.ndarray, np.ndarray]:
        """The runs of digits of the batch (bytes 0-9 in a row): the offset of each one's
        first digit and one past its last (read once, for the glued words and the digit
        patterns)."""
        digit = np.zeros(self.cls.size + 2, dtype=bool)
        np.not_equal(self.cls & _DIG, 0, out=digit[1:-1])
        edges = np.flatnonzero(digit[1:] != digit[:-1])
        return edges[0::2], edges[1::2]

    @cached_property
    def numbers(self) -> np.ndarray:
        """The indices of the words that start with a digit."""
        return np.flatnonzero((self.c0[: self.size] & _DIG) != 0)

    def valid(self, i: np.ndarray) -> np.ndarray:
        return self.real[i]

    def at(self, i: np.ndarray) -> np.ndarray:
        return i

    def f(self, i: np.ndarray) -> np.ndarray:
        return self.flags[i]

    def has(self, i: np.ndarray, flag: int) -> np.ndarray:
        return (self.flags[i] & flag) != 0

    def length(self, i: np.ndarray) -> np.ndarray:
        return self.lengths[i]

    def case(self, i: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(title, caps, lower, digits) of the words at ``i``."""
        return self.title[i], self.caps[i], self.lower[i], self.digits[i]

    def value(self, i: np.ndarray) -> np.ndarray:
        return self.values[i]

    def capsnote(self, i: np.ndarray) -> np.ndarray:
        return self.capsnotes[i]

    def gap(self, i: np.ndarray) -> GapAt:
        """What lies between word ``i - 1`` and word ``i`` (each field read on use)."""
        return GapAt(self.gaps, i)


class Gap(NamedTuple):
    length: np.ndarray
    space: np.ndarray  # spaces or tabs only
    stop: np.ndarray  # . ! ? : ; line break, note start (or no word)
    comma: np.ndarray
    first: np.ndarray  # its first character
    dot: np.ndarray  # "." or ". " (an abbreviation, an initial)


class GapAt:
    """The ``Gap`` fields of the words at ``i``, each gathered when it is read."""

    __slots__ = ("_g", "_i")

    def __init__(self, gaps: Gap, i: np.ndarray) -> None:
        self._g = gaps
        self._i = i

    @property
    def length(self) -> np.ndarray:
        return self._g.length[self._i]

    @property
    def space(self) -> np.ndarray:
        return self._g.space[self._i]

    @property
    def stop(self) -> np.ndarray:
        return self._g.stop[self._i]

    @property
    def comma(self) -> np.ndarray:
        return self._g.comma[self._i]

    @property
    def first(self) -> np.ndarray:
        return self._g.first[self._i]

    @property
    def dot(self) -> np.ndarray:
        return self._g.dot[self._i]


def _padded(n: int, dtype: type, fill: object) -> np.ndarray:
    """An array of ``n`` words and ``_PAD`` sentinels, the sentinels set to ``fill``."""
    out = np.empty(n + _PAD, dtype=dtype)
    out[n:] = fill
    return out


def cut_words(
    text: str,
    folded: str,
    *,
    full: bool = False,
    tokens: tuple[np.ndarray, ...] | None = None,
) -> Words:
    """The words of the batch; ``tokens``: the word pass's words of `` folded `` (starts,
    ends, keys and hashes, one character to the right), so they are not cut and read
    again.

    Every array is made padded (its ``_PAD`` sentinels set at the end), and the class of
    a character is read from one translation of the batch, not looked up per word."""
    ab = padded_projection(text)  # raw reads up to 3 bytes past a word's end
    raw = np.frombuffer(ab, dtype=np.uint8)
    cls = np.frombuffer(ab.translate(_CLASS_BYTES), dtype=np.uint8)
    lexicon = lx.load_lexicon(full)
    if tokens is not None:
        starts, ends, _, _, hashes = tokens
        n = int(starts.size)
        start = _padded(n, np.int64, 0)
        end = _padded(n, np.int64, 0)
        np.subtract(starts, 1, out=start[:n])
        np.subtract(ends, 1, out=end[:n])
        length = end - start
        flags = _padded(n, np.int64, 0)
        flags[:n] = lexicon.lookup_hashes(hashes, length[:n])
    else:
        fb = ascii_projection(folded)
        f = np.frombuffer(fb, dtype=np.uint8)
        word = np.empty(f.size + 2, dtype=bool)
        word[0] = word[-1] = False
        np.not_equal(f, 32, out=word[1:-1])
        edges = np.flatnonzero(word[1:] != word[:-1])
        n = int(edges.size // 2)
        start = _padded(n, np.int64, 0)
        end = _padded(n, np.int64, 0)
        start[:n] = edges[0::2]
        end[:n] = edges[1::2]
        length = end - start
        flags = _padded(n, np.int64, 0)
        hashes = lx.word_hash(fb + bytes(16), start[:n], length[:n])
        flags[:n] = lexicon.lookup_hashes(hashes, length[:n])
    # np.take: a gather of every word faster than indexing (it wraps -1 as indexing does)
    c0 = np.take(cls, start)
    c1 = np.take(cls, start + 1)
    cl = np.take(cls, end - 1)  # a sentinel's end - 1 is -1: the last spare byte, reset below
    c0[n:] = 0
    one = length == 1
    up = (c0 & _UP) != 0
    title = up & ((c1 & _LOW) != 0) & ~one
    caps = up & (one | (((c1 & _UP) != 0) & ((cl & _UP) != 0)))
    lower = (c0 & _LOW) != 0
    digits = ((c0 & _DIG) != 0) & ((cl & _DIG) != 0) & (one | ((c1 & _DIG) != 0))
    values = np.full(n + _PAD, -1, dtype=np.int64)
    short = np.flatnonzero(digits & (length <= 4))
    if short.size:  # read character by character: the first is a digit (``digits``)
        at = start[short]
        k_len = length[short]
        v = raw[at].astype(np.int64) - 48
        ok = np.ones(short.size, dtype=bool)
        for k in range(1, 4):  # raw has 4 spare bytes: at + 3 always reads
            inside = k_len > k
            c = raw[at + k].astype(np.int64) - 48
            ok &= ~inside | ((c >= 0) & (c <= 9))
            v += inside * (9 * v + c)  # v * 10 + c inside the word (no np.where)
        values[short] = v * ok - ~ok  # -1 where a character is no digit
        digits[short] &= ok
    # notes written in capitals: more words starting upper-case than lower-case (x3)
    seps = np.flatnonzero(raw[: len(text)] == 0)
    bounds = np.concatenate(([0], np.searchsorted(start[:n], seps), [n]))
    score = up[:n].view(np.int8) - 3 * lower[:n].view(np.int8)
    cum = np.concatenate(([0], np.cumsum(score, dtype=np.int32)))
    capsnotes = _padded(n, np.bool_, False)
    capsnotes[:n] = np.repeat(np.diff(cum[bounds]) > 0, np.diff(bounds))
    real = _padded(n, np.bool_, False)
    real[:n] = True
    return Words(
        start=start,
        end=end,
        flags=flags,
        real=real,
        title=title,
        caps=caps,
        lower=lower,
        digits=digits,
        values=values,
        lengths=length,
        capsnotes=capsnotes,
        c0=c0,
        raw=raw,
        cls=cls,
        gaps=_gaps(raw, cls, start, end, n),
        size=n,
        hashes=hashes,
        bounds=bounds,
    )


def _gaps(raw: np.ndarray, cls: np.ndarray, start: np.ndarray, end: np.ndarray, n: int) -> Gap:
    """The gap before each word, read from its first two and its last character (a gap
    of spaces is at most 3 long); ``start`` and ``end`` are padded, and so is the
    result (a sentinel's gap is an empty stop)."""
    lo = np.zeros_like(start)
    if n:
        lo[1:n] = end[: n - 1]
    size = start - lo
    g0 = np.take(cls, lo)  # (np.take: faster than indexing, as in ``cut_words``)
    g1 = np.take(cls, lo + 1) * (size > 1)  # products, not np.where (slow on a random mask)
    gl = np.take(cls, start - 1)  # -1 (word 0 at offset 0, a sentinel): reset below
    if n and size[0] == 0:  # the batch starts with a word: no gap
        g0[0] = gl[0] = 0
    anyc = g0 | g1 | gl
    space = (g0 == _SP) & (gl == _SP) & ((size <= 2) | (g1 == _SP)) & (size <= 3)
    first = np.take(raw, lo) * (size > 0)  # the byte (uint8): compared with characters only
    stop = (anyc & _STOP) != 0
    stop[0] = True
    comma = ((g0 | g1) & _COMMA) != 0
    dot = (first == 46) & (size <= 2) & ((anyc & _BREAK) == 0)
    stop[n:] = True
    for a in (space, comma, dot):
        a[n:] = False
    first[n:] = 0
    return Gap(length=size, space=space, stop=stop, comma=comma, first=first, dot=dot)


#: Credentials that are far more often a clinical abbreviation (pulmonary artery,
#: patient, physical or occupational therapy, social work, centimetres, ditto).
_AMBIGUOUS = frozenset(("pa", "pt", "ot", "sw", "cm", "do"))
_AMBIGUOUS_PAIRS = np.zeros(1 << 16, dtype=bool)  # by the two lower-case bytes
_AMBIGUOUS_PAIRS[[(ord(a) << 8) | ord(b) for a, b in _AMBIGUOUS]] = True


def breaks(w: Words, i: np.ndarray) -> np.ndarray:
    """A line break or a note's start in the gap before word ``i`` (at its first or its
    last character: "VEHICLE.\x00Will" is a note's start)."""
    s = w.end[i - 1]
    e = w.start[i]
    return (w.cls[s] & _BREAK != 0) | (w.cls[np.maximum(e - 1, 0)] & _BREAK != 0) | ~w.valid(i - 1)


def verb_ending(w: Words, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Whether each word ``i`` ends in "ed", and in "ing" (any case)."""
    e = w.end[i]
    r = w.raw
    ed = ((r[e - 2] | 32) == 101) & ((r[e - 1] | 32) == 100)
    ing = ((r[e - 3] | 32) == 105) & ((r[e - 2] | 32) == 110) & ((r[e - 1] | 32) == 103)
    return ed, ing


def first_of_note(w: Words, i: np.ndarray) -> np.ndarray:
    """Whether each word ``i`` is its note's first (no word before it reads as its cue)."""
    b = w.bounds
    return b[np.minimum(np.searchsorted(b, i), b.size - 1)] == i


def ambiguous_cue(w: Words, i: np.ndarray) -> np.ndarray:
    """Whether the words at ``i`` are one of the ``_AMBIGUOUS`` credentials."""
    if i.size == 0:
        return np.zeros(0, dtype=bool)
    s = w.start[i]
    pair = ((w.raw[s] | 32).astype(np.int64) << 8) | (w.raw[s + 1] | 32)
    return (w.lengths[i] == 2) & _AMBIGUOUS_PAIRS[pair]
