"""Identifiers taken down from a call: digits read out as words, and an e-mail address
spelled with "dot" and "at" whose local part is two words."""

from __future__ import annotations

import pytest

from deid_desktop.core.scan.dictionary import build_dictionary_from_values
from deid_desktop.core.scan.engine import scan_texts

NONE = build_dictionary_from_values({"name": ["Zed Quux"]})


def _found(text: str) -> list[tuple[str, str, str]]:
    return [(text[s:e], kind, rule) for _, s, e, kind, rule in scan_texts([text], NONE)]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("cb number eight five eight five five five zero one nine seven today",
         "eight five eight five five five zero one nine seven"),
        ("call eight five eight, five five five, oh one five seven.",
         "eight five eight, five five five, oh one five seven"),
        ("SSN ONE TWO THREE-FOUR FIVE-SIX SEVEN EIGHT NINE",
         "ONE TWO THREE-FOUR FIVE-SIX SEVEN EIGHT NINE"),
    ],
)  # fmt: skip
def test_seven_digits_or_more_said_in_words_are_found(text: str, said: str) -> None:
    assert _found(text) == [(said, "ID", "pattern:spoken-digits")]


@pytest.mark.parametrize(
    "text",
    [
        "one or two times a day, two to three days",
        "one two three four five six",  # six digits: a count, not a number to hide
        "seven, eight; nine. ten one two three four",  # ";" and "ten" break the run
        "ones twos threes fours fives sixes sevens",
    ],
)
def test_counts_and_short_runs_are_not(text: str) -> None:
    assert [f for f in _found(text) if f[2] == "pattern:spoken-digits"] == []


def test_a_spelled_email_with_a_dotted_local_part_is_found_whole() -> None:
    text = "reach her at mark dot scott at gmail dot com after 5"
    assert _found(text) == [("mark dot scott at gmail dot com", "EMAIL", "pattern:email-spelled")]
