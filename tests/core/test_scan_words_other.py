"""Words with characters beyond ASCII (a folded "ß", Greek, CJK) are found by their own
small automaton, the ASCII words by the word index over the text with those characters
read as '?': together the same matches, in the same order, as one automaton of every
word - in notes that mix both."""

from __future__ import annotations

import ahocorasick
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.scan import build_dictionary_from_values, patterns, regions, scan_texts

VALUES = {
    "name": ["Ann Straße", "Ann Lee", "Σοφία Lee", "Peña", "王芳 Wu", "Mary Ann"],
    "id": ["AB-ß12", "x9 y8"],
}
DICT = build_dictionary_from_values(VALUES)
WORDS = [
    "ann", "straße", "strasse", "lee", "σοφία", "σοφια", "pena", "王芳", "王", "wu", "mary",
    "ab", "ß12", "x9", "y8", "dr", "march", "www", "annß", "ßann", "the", "é",
]  # fmt: skip


def full_automaton(padded: str) -> list[tuple[int, int]]:
    return list(DICT.matcher.automaton.iter(padded))


def split_path(padded: str) -> list[tuple[int, int]]:
    last, ids = patterns._automaton_matches(DICT.matcher, padded)
    return list(zip(last.tolist(), ids.tolist(), strict=True))


folded_texts = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from([" ", "  "])), min_size=1, max_size=40
).map(lambda parts: "".join(w + s for w, s in parts))


def test_the_dictionary_has_words_beyond_ascii() -> None:
    assert DICT.matcher.other is not None
    assert any(not w.isascii() for w in DICT.matcher.words)


@settings(max_examples=300, deadline=None)
@given(folded_texts)
def test_index_and_other_words_find_what_one_automaton_finds(text: str) -> None:
    padded = f" {text} "
    assert split_path(padded) == full_automaton(padded)


def test_names_with_and_without_accents_in_one_note() -> None:
    note = "Seen by Ann Straße and Σοφία Lee; Mr 王芳 Wu called. Straßen is no name."
    found = [(note[s:e], kind) for _, s, e, kind, _ in scan_texts([note], DICT)]
    assert ("Straße", "NAME") in found
    assert ("Σοφία", "NAME") in found
    assert ("王芳", "NAME") in found
    assert all(text != "Straßen" for text, _ in found)


@pytest.mark.parametrize("bits", [18, 2])
def test_hard_terms_split_over_many_automatons(monkeypatch: pytest.MonkeyPatch, bits: int) -> None:
    # a dictionary of millions splits its hard terms (several words, long, or sharing a
    # bucket) over automatons of _SHARD_TERMS; here two terms each
    monkeypatch.setattr(regions, "_SHARD_TERMS", 2)
    monkeypatch.setattr(regions, "_BITS", bits)
    monkeypatch.setattr(regions, "_SHIFT", np.uint64(64 - bits))
    words = [w for w in DICT.matcher.words if w.isascii()]
    words += ["ann lee wu", "mary ann lee", "abcdefghijklmnopqrs", "abcdefghijklmnopqrst x9"]
    words += ["lee wu ann", "x9 y8 z7 w6", "wu  lee", "ann x9"]  # "ann x9": a pair
    index = regions.WordIndex.build(words)
    assert len(index.hard) > 2 and max(map(len, index.hard)) >= 2
    # two words of at most 16 characters, one space: found from the word keys instead
    assert words.index("ann x9") in index.pairs.ids.tolist()
    full = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for i, w in enumerate(words):
        full.add_word(f" {w} ", i)
    full.make_automaton()
    for n in range(80):
        text = " " + "  ".join(words[(n * 5 + i * 3) % len(words)] for i in range(n % 11 + 1)) + " "
        last, ids = index.matches(text.encode("ascii"))
        assert list(zip(last.tolist(), ids.tolist(), strict=True)) == list(full.iter(text))
