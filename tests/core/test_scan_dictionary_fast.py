"""The dictionary's vectorised paths give the same dictionary as folding value by value:
distinct values from Arrow (trim, unique, ASCII folding and phone digits in Arrow
compute) against the plain Python path, and the owners table against the pairs it was
made from."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.scan import build_dictionary_from_values
from deid_desktop.core.scan.dictionary import (
    _distinct_text,
    _fold_all,
    _from_distinct,
    _from_values,
)
from deid_desktop.core.scan.fold import fold

KINDS = ("name", "mrn", "phone", "ssn", "email", "id", "site")
values = st.lists(st.text(alphabet="aZ09 -._@()+\t\x1cÉéñ’王\u2003#/²١", max_size=14), max_size=25)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(KINDS), values, values)
def test_arrow_path_builds_the_same_dictionary(
    kind: str, first: list[str], second: list[str]
) -> None:
    columns = [
        pd.Series(first, dtype="string[pyarrow]"),
        pd.Series(second, dtype="string[pyarrow]"),
    ]
    fast = _from_distinct({kind: _distinct_text(columns)})
    plain = _from_values({kind: [*first, *second]})
    assert list(fast.terms.items()) == list(plain.terms.items())  # same terms, same order
    assert list(fast.digits.items()) == list(plain.digits.items())


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="aB 9.-\nÉ😀", max_size=9), max_size=20))
def test_folding_joined_values_is_folding_each(texts: list[str]) -> None:
    assert _fold_all(texts) == [fold(t) for t in texts]


def test_distinct_values_are_stripped_and_in_first_seen_order() -> None:
    a = pd.Series([" SYN-1 ", "SYN-2", None, "  ", "SYN-1"], dtype="string[pyarrow]")
    b = pd.Series(["SYN-3", "SYN-2\u2003"], dtype="string[pyarrow]")
    assert _distinct_text([a, b]).to_pylist() == ["SYN-1", "SYN-2", "SYN-3"]
    assert isinstance(_distinct_text([a]), pa.Array)


def test_each_person_owns_the_words_of_their_own_name_only() -> None:
    d = build_dictionary_from_values(
        {"name": ["Ann Lee", "Bo Wu"]},
        [("P1", "Ann Lee"), ("P2", "Bo Wu"), ("P3", None), (None, "Ann Lee"), ("P4", "Dr. Ann")],
    )
    persons = ["P1", "P1", "P2", "P1", "P2", "P4", "P4", "P3"]
    words = ["ann", "lee", "wu", "wu", "ann", "ann", "dr", "ann"]
    assert d.owns(persons, words).tolist() == [True, True, True, False, False, True, False, False]
    assert d.owns([], []).size == 0
