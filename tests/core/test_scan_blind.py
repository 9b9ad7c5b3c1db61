"""The scan on the BLIND corpus (tests/scan_blind: other templates, phrasing and name
and place sources than the corpus the scan was tuned on): recall must not fall below the
floors measured when it was written (issue 12), and the corpus keeps its forms."""

from __future__ import annotations

import pytest

from tests.scan_blind.generate import generate
from tests.scan_eval.run import scan_corpus
from tests.scan_eval.score import KindScore, score

#: Measured on the first 1,200 notes (ALL 0.967, NAME 0.978, DATE 0.976, LOCATION 0.880,
#: precision 0.976); the floors sit a little under.
FLOORS = {"ALL": 0.96, "NAME": 0.97, "DATE": 0.965, "LOCATION": 0.87, "PHONE": 0.99, "AGE": 0.99}


@pytest.fixture(scope="module")
def scores() -> dict[str, KindScore]:
    corpus = generate(1200)
    return score(corpus.notes, corpus.spans, scan_corpus(corpus))  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", sorted(FLOORS))
def test_blind_recall_keeps_its_floor(scores: dict[str, KindScore], kind: str) -> None:
    assert scores[kind].recall >= FLOORS[kind], (kind, round(scores[kind].recall, 3))


def test_blind_precision_keeps_its_floor(scores: dict[str, KindScore]) -> None:
    assert scores["ALL"].precision >= 0.96


def test_blind_corpus_is_seeded_and_has_its_forms() -> None:
    a, b = generate(2400), generate(2400)
    assert a.notes == b.notes and a.spans == b.spans
    assert len(a.notes) == 2400 and set(a.styles) == {
        "nursing", "nursing-caps", "nursing-lower", "discharge", "phone"
    }  # fmt: skip
    kinds = {k for spans in a.spans for *_, k in spans}
    assert kinds == {"NAME", "DATE", "AGE", "LOCATION", "PHONE", "ID"}
    text = "\n".join(a.notes)
    for trap in ("10.1/4.72", "7.4/40", "BP 120/80", "5/325", "last Tuesday", "Parkinson's"):
        assert trap in text, trap
    gold = {n[s:e] for n, sp in zip(a.notes, a.spans, strict=True) for s, e, _ in sp}
    for form in ("P.O. Box", "St. Mary's Hospital", ", RN"):
        assert any(form in g for g in gold) or form in text, form
    for i, (note, spans) in enumerate(zip(a.notes, a.spans, strict=True)):
        for s, e, _ in spans:
            assert 0 <= s < e <= len(note) and note[s:e].strip() == note[s:e], (i, s, e)
