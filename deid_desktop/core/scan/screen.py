"""One screen of a batch's words for the finders that start from a small set of words
(``context_staff``'s cue words, ``spoken``'s digit words, ``shapes_more``'s cues).

Each such finder registers its words' hashes (``register``) when its module is loaded
and gets a bit; a table by the top 16 bits of a hash holds, per slot, the bits of the
sets that have a word there. A batch's words are read through it once (``Words.screen``:
one gather and one search over every word), and each finder searches only the few
words its bit lets through in its own sorted hashes: a word of a set has the set's
bit (its hash is the word's own), so the finder finds every word it found before.
"""

from __future__ import annotations

import sys

import numpy as np

_SHIFT = np.uint64(48)
#: Per slot (the top 16 bits of a word's hash), the bits of the sets with a word there.
TABLE = np.zeros(1 << 16, dtype=np.uint8)
_LITTLE = sys.byteorder == "little"
_bits = 0


def register(hashes: np.ndarray) -> int:
    """Mark the slots of ``hashes`` (``lexicon.word_hash`` of a finder's words, at
    import time) with a new bit, and return the bit."""
    global _bits
    if _bits >= 8:  # pragma: no cover - a ninth set needs a wider table
        raise RuntimeError("the word screen holds eight sets")
    bit = 1 << _bits
    _bits += 1
    TABLE[(np.asarray(hashes, dtype=np.uint64) >> _SHIFT).astype(np.intp)] |= bit
    return bit


def screen(hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The indices of the words (of ``hashes``) whose slot holds any set's bit, and
    their bits."""
    if _LITTLE and hashes.flags.c_contiguous and hashes.dtype == np.uint64:
        top = hashes.view(np.uint16)[3::4]  # the top 16 bits, no copy
    else:
        top = (hashes >> _SHIFT).astype(np.intp)
    bits = np.take(TABLE, top)
    at = np.flatnonzero(bits)
    return at, bits[at]
