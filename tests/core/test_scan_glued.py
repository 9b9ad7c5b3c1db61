"""A dictionary name glued to digits (``SCOTT9573``): found, and redacted whole, so that
no part of the word is left beside ``[NAME]``."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from deid_desktop.core.scan import redact_text
from deid_desktop.core.scan.dictionary import build_dictionary_from_values
from deid_desktop.core.scan.engine import scan_texts


class _Span(NamedTuple):
    start: int
    end: int
    kind: str


NAMES = build_dictionary_from_values({"name": ["Scott", "Mark", "Will", "Kowalczyk"]})


def _found(text: str) -> list[tuple[str, str]]:
    return [(text[s:e], rule) for _, s, e, _kind, rule in scan_texts([text], NAMES)]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("SCOTT9573 labs ok", "SCOTT9573"),
        ("user Kowalczyk12 logged", "Kowalczyk12"),
        ("ref 4471Scott.", "4471Scott"),
        ("per Mark2Scott", "Mark2Scott"),
    ],
)
def test_a_capitalised_name_glued_to_digits_is_the_whole_word(text: str, word: str) -> None:
    assert _found(text) == [(word, "dictionary:name-glued")]
    spans = [_Span(s, e, kind) for _, s, e, kind, _rule in scan_texts([text], NAMES)]
    assert redact_text(text, spans) == text.replace(word, "[NAME]")


@pytest.mark.parametrize(
    "text",
    ["HbA1c 7.2, 100mg bid, q6h, 2x daily", "will2 go", "marked2 mark2 x", "scott9573 lower"],
)
def test_units_lower_case_and_longer_words_are_not(text: str) -> None:
    assert [f for f in _found(text) if f[1] == "dictionary:name-glued"] == []
