"""A column whose notes repeat (templated notes) is scanned once per distinct text, and
each text's hits are copied to every note holding it, before the person-aware step
reads each note's own person (``engine.repeated_texts``, ``scan_text_arrays(repeats=)``):
the same hits, in the same order, as scanning every note."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from deid_desktop.core.scan import build_dictionary_from_values, engine, scan_frames
from deid_desktop.core.scan.engine import ScanOptions, repeated_texts, scan_text_arrays
from tests.scan_eval.generate import generate


def _repeated(
    notes: list[str], persons: list[str], seed: int, most: int = 3
) -> tuple[list[str], list[str]]:
    """Each note one to ``most`` times, in a shuffled order (its person with it)."""
    rng = random.Random(seed)
    rows = [i for i in range(len(notes)) for _ in range(rng.randint(1, most))]
    rng.shuffle(rows)
    return [notes[i] for i in rows], [persons[i] for i in rows]


@pytest.mark.parametrize(
    ("split", "size", "most", "high_recall"),
    [("heldout", 800, 5, False), ("heldout", 800, 5, True), ("dev", 2400, 9, False)],
)
def test_distinct_texts_scanned_once_find_every_notes_hits(
    split: str, size: int, most: int, high_recall: bool
) -> None:
    """Each note's hits are its own (no finder reads the note before or after it in
    the batch), so a text scanned once gives every copy of it the same hits."""
    corpus = generate(split, size)
    values = corpus.dictionary_values()
    values["site"] = corpus.sites
    owners = [(p.key, f"{p.first} {p.last}") for p in corpus.people]
    dictionary = build_dictionary_from_values(values, owners)
    texts, persons = _repeated(corpus.notes, corpus.persons, seed=3, most=most)
    repeats = repeated_texts(texts)
    assert repeats is not None and len(repeats[1]) == len(set(corpus.notes)) < len(texts)
    options = ScanOptions(high_recall=high_recall)
    for who in (persons, None):
        every = scan_text_arrays(texts, dictionary, persons=who, options=options)
        once = scan_text_arrays(texts, dictionary, persons=who, options=options, repeats=repeats)
        assert every.note.size > 1000
        for a, b in zip(once, every, strict=True):
            np.testing.assert_array_equal(a, b)


def test_notes_that_repeat_are_told_from_their_first_ones() -> None:
    distinct = [f"note {i}" for i in range(5000)]
    assert repeated_texts(distinct) is None
    assert repeated_texts(["a"]) is None
    templated = ["seen today", "Ann called", "seen today", "no show"] * 3000
    found = repeated_texts(templated)
    assert found is not None
    codes, texts = found
    assert texts == ["seen today", "Ann called", "no show"]
    assert [texts[c] for c in codes.tolist()] == templated
    # the first notes distinct, the rest one text: read as distinct (only speed differs)
    assert repeated_texts(distinct[:4096] + ["x"] * 100_000) is None


def test_a_frame_of_templated_notes_reports_what_every_note_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    corpus = generate("heldout", 300)
    texts, persons = _repeated(corpus.notes, corpus.persons, seed=5, most=5)
    frame = pd.DataFrame({"pid": persons, "note": texts})
    frame.loc[::7, "note"] = None  # missing notes keep their rows
    assert repeated_texts(frame["note"].dropna().tolist()) is not None
    owners = [(p.key, f"{p.first} {p.last}") for p in corpus.people]
    dictionary = build_dictionary_from_values(corpus.dictionary_values(), owners)
    args = ({"t": frame}, {"t": ["note"]}, dictionary)
    once = scan_frames(*args, person_keys={"t": "pid"})
    monkeypatch.setattr(engine, "repeated_texts", lambda texts: None)
    every = scan_frames(*args, person_keys={"t": "pid"})
    assert once.columns == every.columns and once.total_hits > 500
    for field in ("row", "start", "end", "kind", "rule", "confidence"):
        np.testing.assert_array_equal(getattr(once.spans[0], field), getattr(every.spans[0], field))
