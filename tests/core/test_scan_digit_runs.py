"""The batch's runs of digits (``Words.digit_runs``), read once for the glued words and
the digit patterns, give what each read from the bytes itself before: the words where
a letter meets a digit, and the digit regions."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.scan.fold import NOTE_SEP, fold
from deid_desktop.core.scan.glued import _glued_words
from deid_desktop.core.scan.patterns import digit_regions
from deid_desktop.core.scan.words import DIGIT, LOWER, UPPER, cut_words

texts = st.lists(
    st.text(alphabet="aZ09 5-/.\u00e9\u2082\t", max_size=30), min_size=1, max_size=4
).map(NOTE_SEP.join)


def _pairs_reference(text: str) -> tuple[list[int], list[int]]:
    """The glued words read from every pair of bytes (the reading before the runs)."""
    w = cut_words(text, fold(text))
    kind = w.cls & (UPPER | LOWER | DIGIT)
    letter = (kind & (UPPER | LOWER)) != 0
    digit = (kind & DIGIT) != 0
    meet = np.flatnonzero((letter[:-1] & digit[1:]) | (digit[:-1] & letter[1:]))
    at = np.searchsorted(w.start[: w.size], meet, side="right") - 1
    at = at[np.concatenate(([True], at[1:] != at[:-1]))] if at.size else at
    return w.start[at].tolist(), w.end[at].tolist()


@settings(max_examples=150, deadline=None)
@given(texts)
def test_glued_words_as_read_from_byte_pairs(text: str) -> None:
    w = cut_words(text, fold(text))
    start, end = _glued_words(w)
    assert (start.tolist(), end.tolist()) == _pairs_reference(text)


@settings(max_examples=150, deadline=None)
@given(texts)
def test_digit_regions_from_the_words_runs(text: str) -> None:
    w = cut_words(text, fold(text))
    got, orig = digit_regions(text, w.digit_runs)
    want, want_orig = digit_regions(text)
    assert got == want
    assert orig.tolist() == want_orig.tolist()


def test_glued_words_examples() -> None:
    text = "SCOTT9573 x 12ab 9 ab12cd MR 55"
    start, end = _glued_words(cut_words(text, fold(text)))
    assert [text[s:e] for s, e in zip(start.tolist(), end.tolist(), strict=True)] == [
        "SCOTT9573",
        "12ab",
        "ab12cd",
    ]
