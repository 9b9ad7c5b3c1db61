"""The batch words read the numbers of short digit words character by character: they
must be what ``int`` reads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.scan.fold import NOTE_SEP, fold
from deid_desktop.core.scan.words import cut_words

PIECES = (
    "Dr.", "Smith", "a", "A.", "B,", " ", "  ", "   ", "\t", "\n", ".", ", ", "7/22", "0042",
    "12", "9", "123", "1234", "12345", "1a", "a1", "93", "yo", "St.", "Mary's", "Peña", "(",
    ")", "-", ":", ";", "!", "?", "\x00", "é", "x²", "",
)  # fmt: skip
note = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(note, min_size=1, max_size=5))
def test_short_numbers_are_read_as_int_reads_them(notes: list[str]) -> None:
    text = NOTE_SEP.join(notes)
    w = cut_words(text, fold(text))
    for i in range(w.size):
        word = text[int(w.start[i]) : int(w.end[i])]
        plain = word.isascii() and word.isdigit() and len(word) <= 4
        assert w.values[i] == (int(word) if plain else -1), word
        if len(word) <= 4:  # longer words are read by their first two and last characters
            assert bool(w.digits[i]) == (word.isascii() and word.isdigit()), word
