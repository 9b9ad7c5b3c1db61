"""Length-preserving text folding for whole-word, case- and accent-insensitive matching.

Every character maps to exactly one character, so an offset in the folded text is the
same offset in the original: letters and digits lose case and accents ("Peña" ->
"pena"), everything else becomes a space (a word boundary). ASCII text takes a
bytes.translate fast path; other text goes through a per-character cached table.
"""

from __future__ import annotations

import unicodedata

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
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_TABLE).decode("ascii")
    return text.translate(_UNICODE_TABLE)


def ascii_projection(text: str) -> bytes:
    """One byte per character (non-ASCII becomes '?'), for the digit-region search."""
    return text.encode("ascii", errors="replace")
