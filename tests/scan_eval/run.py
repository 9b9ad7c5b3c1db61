"""Scan a generated corpus as the app would (the persons' names, MRNs and phones as the
dictionary, each note's person known, the corpus's site list loaded) and score it."""

from __future__ import annotations

from deid_desktop.core.scan import build_dictionary_from_values, scan_texts
from deid_desktop.core.scan.engine import ScanOptions
from tests.scan_eval.generate import Corpus
from tests.scan_eval.score import KindScore, score


def scan_corpus(
    corpus: Corpus, *, level: str = "low", sites: bool = True, high_recall: bool = False
) -> list[tuple[int, int, int, str]]:
    values = corpus.dictionary_values()
    if sites:
        values["site"] = corpus.sites
    owners = [(p.key, f"{p.first} {p.last}") for p in corpus.people]
    dictionary = build_dictionary_from_values(values, owners)
    found = scan_texts(
        corpus.notes,
        dictionary,
        persons=corpus.persons,
        options=ScanOptions(high_recall=high_recall),
        level=level,
    )
    return [(n, s, e, k) for n, s, e, k, _ in found]


def evaluate(corpus: Corpus, **kwargs: object) -> dict[str, KindScore]:
    return score(corpus.notes, corpus.spans, scan_corpus(corpus, **kwargs))  # type: ignore[arg-type]
