"""Scan a generated corpus as the app would (the persons' names, MRNs and phones as the
dictionary, each note's person known, the corpus's site list loaded) and score it."""

from __future__ import annotations

from deid_desktop.core.scan import build_dictionary_from_values, scan_texts
from tests.scan_eval.generate import Corpus
from tests.scan_eval.score import KindScore, score


def scan_corpus(corpus: Corpus) -> list[tuple[int, int, int, str]]:
    dictionary = build_dictionary_from_values(corpus.dictionary_values())
    return [(n, s, e, k) for n, s, e, k, _ in scan_texts(corpus.notes, dictionary)]


def evaluate(corpus: Corpus) -> dict[str, KindScore]:
    return score(corpus.notes, corpus.spans, scan_corpus(corpus))
