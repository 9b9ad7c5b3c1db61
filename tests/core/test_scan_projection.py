"""The scan's readings of a batch without its code points give what the code points gave:
the cue reader's bytes, the e-mail reader's characters, the non-ASCII characters found
through UTF-16 (and UTF-32 past the Basic Multilingual Plane), and the lexicon's flags
found in its probed table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.scan import cues, patterns
from deid_desktop.core.scan import fold as fold_module
from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.fold import fold, forget, non_ascii, non_ascii_points

#: Text of note-like characters: ASCII with the e-mail's and the cue reader's
#: punctuation, typographic characters, letters with accents, and some beyond the BMP.
_CHARS = st.sampled_from(
    [*"aZ9 .@_+-,:'\n\t?", "\u2044", "\u2082", "é", "Ñ", "ß", "\u00a0", "😀", "\U0001f3e5"]
)
TEXTS = st.lists(_CHARS, max_size=80).map("".join)


def _points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_non_ascii_characters_and_their_code_points(text: str) -> None:
    forget()
    points = _points(text)
    other = np.flatnonzero(points > 127)
    assert non_ascii(text).tolist() == other.tolist()
    assert non_ascii_points(text).tolist() == points[other].tolist()
    expected = bytes(63 if p > 127 else int(p) for p in points.tolist())
    assert fold_module.ascii_projection(text) == expected
    forget()


def test_a_lone_surrogate_is_one_character() -> None:
    forget()
    text = "a\ud800b\udc00"
    assert non_ascii(text).tolist() == [1, 3]
    assert non_ascii_points(text).tolist() == [0xD800, 0xDC00]
    forget()


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_cue_projection_reads_a_non_ascii_character_as_128(text: str) -> None:
    forget()
    got = cues.projection(text)
    n = len(text)
    assert got[:n].tolist() == np.minimum(_points(text), 128).tolist()
    assert got.size >= n + cues.WINDOW + 1 and not got[n:].any()
    forget()


def _codes_from_points(text: str) -> np.ndarray:
    """The e-mail reader's characters as code points (its reading before the projection)."""
    return (
        np.frombuffer(fold_module.ascii_projection(text), dtype=np.uint8)
        if text.isascii()
        else (_points(text))
    )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["ann", "j.o", "x@y.org", "@", "é", "😀", " ", ".", "_-", "a@b"]),
        max_size=12,
    )
)
def test_email_reader_finds_the_same_with_the_projection(
    parts: list[str],
) -> None:
    text = "".join(parts)
    empty = np.empty(0, dtype=np.int64)
    forget()
    got = patterns.find_emails_urls(text, fold(text), empty)
    forget()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(patterns, "_codes", _codes_from_points)
        expected = patterns.find_emails_urls(text, fold(text), empty)
    forget()
    for a, b in zip(got, expected, strict=True):
        assert a.tolist() == b.tolist()


def test_lexicon_flags_of_every_word_and_of_unknown_ones() -> None:
    lexicon = lx.load_lexicon()
    table, _ = lexicon._table
    rng = np.random.default_rng(7)
    unknown = rng.integers(0, 2**63, 50_000, dtype=np.int64).view(np.uint64) * np.uint64(2) + (
        np.uint64(1)
    )
    h = np.concatenate((lexicon.hashes, unknown, lexicon.hashes[::-1]))
    length = np.full(h.size, 5, dtype=np.int64)
    got = lexicon.lookup_hashes(h, length)
    at = np.minimum(np.searchsorted(lexicon.hashes, h), lexicon.hashes.size - 1)
    expected = np.where(lexicon.hashes[at] == h, lexicon.flags[at], 0)
    assert (np.asarray(table[:, 1] >> np.uint64(32)) > 1).any()  # some words were probed for
    assert got.tolist() == expected.tolist()
    length[::3] = lx.MAX_LEN + 1  # a word longer than the table's: unknown
    assert not lexicon.lookup_hashes(h, length)[::3].any()
