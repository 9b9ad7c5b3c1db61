"""The scan on the generated evaluation corpus (tests/scan_eval): recall and precision
targets of issue 12 on the split it was tuned on and on the held-out split."""

from __future__ import annotations

import pytest

from tests.scan_eval.generate import GOLD_KINDS, MORE_TRAPS, generate
from tests.scan_eval.run import evaluate, scan_corpus
from tests.scan_eval.score import KindScore


@pytest.fixture(scope="module", params=["dev", "heldout"])
def scores(request: pytest.FixtureRequest) -> tuple[str, dict[str, KindScore]]:
    return request.param, evaluate(generate(request.param, 2400))


def test_recall_and_precision_meet_the_targets(scores: tuple[str, dict[str, KindScore]]) -> None:
    split, s = scores
    assert s["ALL"].gold >= 15_000
    assert s["NAME"].recall >= 0.95, split
    assert s["ALL"].recall >= 0.97, split  # 0.989 dev, 0.980 held out
    assert s["ALL"].precision >= 0.5, split
    assert s["DATE"].recall >= 0.98, split
    assert s["LOCATION"].recall >= 0.92, split
    assert s["AGE"].recall >= 0.98, split
    # the forms of shapes_more: spelled e-mails, spaced SSNs, VINs, plates, serials
    assert s["CONTACT"].recall >= 0.98, split
    assert s["ID"].recall >= 0.98, split


def test_corpus_is_large_seeded_and_has_every_kind() -> None:
    a, b = generate("dev", 2000), generate("dev", 2000)
    assert a.notes == b.notes and a.spans == b.spans  # seeded
    held = generate("heldout", 2000)
    assert not set(a.notes) & set(held.notes)
    assert len(a.notes) == 2000
    kinds = {k for spans in a.spans for *_, k in spans}
    assert kinds >= set(GOLD_KINDS) - {"CONTACT"}
    for text in ("Admission Date:", "Phone msg", "WIFE IN TO VISIT", "10.1/4.72", "7.4/40"):
        assert any(text in note for note in a.notes), text
    forms = ("[at]", "[dot]", "License plate", "Tag #", " of ", "Lives on", "in her", "Accession")
    forms_held = ("(at)", "Social security number", "Plate no.", "Device S/N", "Lab ID")
    for split, corpus, wanted in (("dev", a, forms), ("heldout", held, forms_held)):
        gold = [
            note[s:e] for note, sp in zip(corpus.notes, corpus.spans, strict=True) for s, e, _ in sp
        ]
        for text in wanted:
            assert any(text in note for note in corpus.notes), (split, text)
        assert any(g.count(" ") == 2 and g.replace(" ", "").isdigit() for g in gold), split  # SSN
        assert any(len(g) == 17 and g.isalnum() and g.isupper() for g in gold), split  # VIN
        assert any(g.endswith(("90s", "nineties")) for g in gold), split
        assert any(g.startswith(("Apt ", "Suite ", "Unit ")) for g in gold), split


def test_traps_are_not_flagged() -> None:
    corpus = generate("dev", 2400)
    hits = scan_corpus(corpus)
    flagged = {(n, s) for n, s, _, _ in hits}
    traps = ("will call back", "may shower", "10.1/4.72", "7.4/40", "120/80", "Pain 7/10")
    traps += MORE_TRAPS
    checked = 0
    for n, text in enumerate(corpus.notes):
        for trap in traps:
            at = text.find(trap)
            if at >= 0:
                checked += 1
                assert (n, at) not in flagged, (trap, n)
        at = text.find("WIFE IN TO VISIT")
        if at >= 0:
            assert not any(h[0] == n and at <= h[1] < at + 16 for h in hits)
    assert checked > 200
    # no hit starts inside a trap of the forms of real notes, nor on a failed-VIN lab code
    covered: dict[int, list[tuple[int, int]]] = {}
    for n, s, e, _ in hits:
        covered.setdefault(n, []).append((s, e))
    more = 0
    for n, text in enumerate(corpus.notes):
        for trap in (*MORE_TRAPS, "Accession ", "Lab ID "):
            at = text.find(trap)
            if at >= 0:
                more += 1
                end = at + len(trap) + (17 if trap.endswith(" ") else 0)
                assert not any(at <= s < end for s, _ in covered.get(n, [])), (trap, n)
    assert more > 100


def test_high_only_redaction_keeps_less_and_all_finds_most() -> None:
    corpus = generate("heldout", 600)
    high = evaluate(corpus, level="high")["ALL"]
    medium = evaluate(corpus, level="medium")["ALL"]
    every = evaluate(corpus, level="low")["ALL"]
    assert high.hits < medium.hits <= every.hits
    assert high.recall < medium.recall <= every.recall
