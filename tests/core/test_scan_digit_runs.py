"""Readings of a batch moved to shared or anchor-based passes (scan speed) give what
each read before: the runs of digits (``Words.digit_runs``), read once for the glued
words and the digit patterns; the state codes after a town, read from the place anchors."""

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


def test_state_codes_after_a_town_read_from_the_place_anchors() -> None:
    """State codes are read from the words after a town or a two-word place's head (the
    anchors), not from every word's flags: the same codes are found."""
    from deid_desktop.core.scan import build_dictionary_from_values, scan_texts

    d = build_dictionary_from_values({"name": ["Zed"]})
    texts = [
        "Lives in Omaha, NE with wife",
        "moved from North Andover NH last year",
        "pt from weymouth ky",
        "home in Weymouth KY.",
        "IN BED OR CHAIR, ME TOO",
    ]
    states = [
        (i, t[s:e])
        for i, s, e, _k, r in scan_texts(texts, d)
        if r == "gazetteer:state"
        for t in [texts[i]]
    ]
    assert states == [(0, "NE"), (1, "NH"), (2, "ky"), (3, "KY")]


def _spoken_reference(text: str) -> list[tuple[int, int]]:
    """Runs of digit words read over every word of the batch (the reading before)."""
    from deid_desktop.core.scan import spoken

    w = cut_words(text, fold(text))
    n = w.size
    digit = np.zeros(n + 1, dtype=bool)
    digit[:n] = np.isin(w.hashes[:n], spoken._HASHES)
    pairs = np.flatnonzero(digit[1:n] & digit[: n - 1]) + 1
    pairs = pairs[(w.gaps.length[pairs] <= 3) & spoken._separators_only(w, pairs)]
    members = np.flatnonzero(digit[:n])
    cont = np.zeros(n, dtype=bool)
    cont[pairs] = True
    head = ~cont[members]
    if members.size == 0:
        return []
    size = np.bincount(np.cumsum(head) - 1)
    first = members[head]
    long = size >= spoken.MIN_SAID
    return list(
        zip(
            w.start[first[long]].tolist(),
            w.end[first[long] + size[long] - 1].tolist(),
            strict=True,
        )
    )


said = st.lists(
    st.sampled_from(["one", "two", "oh", "five", "NINE", "x", "the", "12"]), max_size=40
).flatmap(
    lambda ws: st.lists(
        st.sampled_from([" ", ", ", "-", " . ", "; "]), min_size=len(ws), max_size=len(ws)
    ).map(lambda gaps: "".join(a + b for a, b in zip(ws, gaps, strict=True)))
)


@settings(max_examples=150, deadline=None)
@given(said)
def test_spoken_runs_read_among_the_digit_words_only(text: str) -> None:
    from deid_desktop.core.scan import spoken

    w = cut_words(text, fold(text))
    out: list[tuple[np.ndarray, np.ndarray, int]] = []
    spoken.find_spoken(w, out)
    got = [(s, e) for a, b, _ in out for s, e in zip(a.tolist(), b.tolist(), strict=True)]
    assert got == _spoken_reference(text)
