"""A note's hits are its own: the scan reads notes in batches, and no finder may read
the next note's first word as part of this one's (a date "12/17." at a note's end was
dropped when the next note began with "Strength", read as the date's unit). Scanning
each distinct note once and sharing its hits with its copies relies on it."""

from __future__ import annotations

import random

from deid_desktop.core.scan import build_dictionary_from_values, scan_texts
from tests.scan_eval.generate import generate


def _hits_of_first(notes: list[str]) -> list[tuple[int, int, str]]:
    d = build_dictionary_from_values({"name": ["Zz Qq"]})
    return sorted((s, e, r) for n, s, e, _, r in scan_texts(notes, d) if n == 0)


def test_a_date_at_a_notes_end_does_not_read_the_next_notes_first_word() -> None:
    note = "Pt doing well. Seen in clinic 12/17."
    alone = _hits_of_first([note])
    assert alone == [(30, 35, "date:no-year")]
    assert _hits_of_first([note, "Strength 5/5 in all extremities."]) == alone


def test_each_notes_hits_do_not_depend_on_the_note_after_it() -> None:
    corpus = generate("dev", 1200)
    rng = random.Random(3)
    d = build_dictionary_from_values({"name": ["Zz Qq"]})
    notes = corpus.notes
    alone = [sorted((s, e, r) for _, s, e, _, r in scan_texts([n], d)) for n in notes]
    shuffled = list(range(len(notes)))
    rng.shuffle(shuffled)
    batch = [notes[i] for i in shuffled]
    together: dict[int, list[tuple[int, int, str]]] = {}
    for n, s, e, _, r in scan_texts(batch, d):
        together.setdefault(shuffled[n], []).append((s, e, r))
    differ = [i for i in range(len(notes)) if sorted(together.get(i, [])) != alone[i]]
    assert differ == []
