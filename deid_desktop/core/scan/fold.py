"""Length-preserving text folding for whole-word, case- and accent-insensitive matching.

Every character maps to exactly one character, so an offset in the folded text is the
same offset in the original: letters and digits lose case and accents ("Peña" ->
"pena"), everything else becomes a space (a word boundary). ASCII text takes a
bytes.translate fast path; other text is mapped as code points through a table of the
whole Basic Multilingual Plane (numpy), characters beyond it one by one.
"""

from __future__ import annotations

import unicodedata

import numpy as np

#: Separator between notes joined into one batch: not a word character, not whitespace,
#: so no pattern and no cue can run across two notes.
NOTE_SEP = "\x00"


def fold_char(ch: str) -> str:
    """One character folded: lower-case base letter/digit, or a space."""
    if not ch.isalnum():
        return " "
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    base = base.lower()
    if len(base) == 1 and base.isalnum():
        return base
    low = ch.lower()
    return low if len(low) == 1 else ch


class _FoldTable(dict[int, str]):
    def __missing__(self, key: int) -> str:
        value = fold_char(chr(key))
        self[key] = value
        return value


_ASCII_TABLE = bytes(
    (c + 32 if 65 <= c <= 90 else c) if chr(c).isalnum() else 32 for c in range(128)
) + bytes(range(128, 256))
_UNICODE_TABLE = _FoldTable()


def fold(text: str) -> str:
    """``text`` folded, with exactly the same length."""
    return _fold(text)[0]


def fold_batch(text: str) -> str:
    """``fold`` of a batch of notes; when the result is ASCII its bytes are kept, so the
    word pass reads them (``ascii_projection`` of the folded batch) without encoding the
    batch again. (Not for the many small texts folded elsewhere: keeping each would cost
    more than it saves.)"""
    folded, encoded = _fold(text)
    if encoded is not None:
        _remember(folded, (None, None, bytes(encoded)))
    return folded


def _fold(text: str) -> tuple[str, bytes | bytearray | None]:
    """The folded text and, when it is ASCII, its bytes."""
    if text.isascii():
        encoded = text.encode("ascii").translate(_ASCII_TABLE)
        return encoded.decode("ascii"), encoded
    # the ASCII characters through the byte table, the few others through the BMP table
    base = bytearray(ascii_projection(text).translate(_ASCII_TABLE))
    points = non_ascii_points(text)
    other = non_ascii(text)
    folded = _bmp_folded(np.minimum(points, 0xFFFF).astype(np.intp))
    beyond = np.flatnonzero(points > 0xFFFF)  # emoji and other rare characters
    if beyond.size:
        folded[beyond] = [ord(_UNICODE_TABLE[c]) for c in points[beyond].tolist()]
    if folded.max(initial=0) < 128:  # typographic characters: the result is ASCII
        np.frombuffer(base, dtype=np.uint8)[other] = folded
        return base.decode("ascii"), base
    out = np.frombuffer(base, dtype=np.uint8).astype(np.uint32)
    out[other] = folded
    return out.tobytes().decode("utf-32-le", "surrogatepass"), None


def fold_slow(text: str) -> str:
    """``fold`` one character at a time (the reference for tests)."""
    return text.translate(_UNICODE_TABLE)


#: The folded code point of each character of the Basic Multilingual Plane met so far
#: (0: not yet folded; no character folds to code point 0). Filled as characters are met,
#: a few hundred in a run, rather than all 65,536 up front (0.2 s of Python per process).
_BMP = np.zeros(0x10000, dtype=np.uint32)


def _bmp_folded(points: np.ndarray) -> np.ndarray:
    """The folded code points of ``points`` (all in the BMP); each character is folded
    by ``fold_char`` the first time it is met."""
    folded = _BMP[points]
    new = points[folded == 0]
    if new.size:
        for c in np.unique(new).tolist():
            _BMP[c] = ord(fold_char(chr(c)))
        folded = _BMP[points]
    return folded


def ascii_projection(text: str) -> bytes:
    """One byte per character (non-ASCII becomes '?'), made once per text (the word cut,
    the digit regions, the cue windows and the e-mail parts each read it)."""
    for held, derived in _RECENT:
        if held is text:
            return derived[2]
    if text.isascii():
        encoded = text.encode("ascii")
        _remember(text, (None, None, encoded))
        return encoded
    return _derived(text)[2]


#: Zero bytes after ``padded_projection``: what the word cut (4) and the cue reader (48)
#: read past the end of a batch.
SPARE = 64
_PADDED: tuple[tuple[str, bytes], ...] = ()


def padded_projection(text: str) -> bytes:
    """``ascii_projection(text)`` and ``SPARE`` zero bytes, made once per text (the word
    cut and the cue reader each read it)."""
    global _PADDED
    for held, padded in _PADDED:
        if held is text:
            return padded
    padded = ascii_projection(text) + bytes(SPARE)
    _PADDED = ((text, padded), *_PADDED)[:2]
    return padded


def non_ascii_points(text: str) -> np.ndarray:
    """The code points (uint32) of the non-ASCII characters of ``text``, in the order
    of ``non_ascii``; made once per text (with the ASCII projection)."""
    return _derived(text)[0]


def non_ascii(text: str) -> np.ndarray:
    """The offsets of the non-ASCII characters of ``text``."""
    return _derived(text)[1]


#: The few texts whose code points were asked for last, with what was derived from them
#: (held only by identity, so a text is never kept past a few newer batches).
_Derived = tuple[np.ndarray | None, np.ndarray | None, bytes]
_RECENT: tuple[tuple[str, _Derived], ...] = ()
_RECENT_SIZE = 3


def _remember(text: str, derived: _Derived) -> None:
    global _RECENT
    _RECENT = ((text, derived), *(e for e in _RECENT if e[0] is not text))[:_RECENT_SIZE]


def _derived(text: str) -> tuple[np.ndarray, np.ndarray, bytes]:
    """The code points of the non-ASCII characters, their offsets and the ASCII
    projection of ``text``, cached. Read from the text as UTF-16 (two bytes a
    character, half what UTF-32 reads) unless it holds a character beyond the Basic
    Multilingual Plane (two UTF-16 units: offsets would shift), then as UTF-32."""
    for held, (points, other, projection) in _RECENT:
        if held is text and points is not None and other is not None:
            return points, other, projection
    encoded = text.encode("utf-16-le", "surrogatepass")
    units: np.ndarray
    if len(encoded) == 2 * len(text):  # one unit per character
        units = np.frombuffer(encoded, dtype=np.uint16)
    else:
        units = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    other = np.flatnonzero(units > 127)
    codes = units.astype(np.uint8)
    codes[other] = 63  # '?'
    derived = (units[other].astype(np.uint32), other, codes.tobytes())
    _remember(text, derived)
    return derived


def forget() -> None:
    """Drop the cached texts (at the end of a scan)."""
    global _RECENT, _PADDED
    _RECENT = ()
    _PADDED = ()
