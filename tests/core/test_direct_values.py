"""The read-back's dictionary is made of the direct values that may be found in the
texts it scans (``DirectValues.dictionary_for``): the scanner must find exactly what it
finds with the dictionary of every value (``dictionary_from_columns``) - the same hits,
spans, kinds and rules - whatever the values and texts hold: names of several words,
record numbers with prefixes, phones written with a leading 1, numeric IDs, accents,
characters that fold to ASCII digits, text joined across cells."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from deid_desktop.core.scan.candidates import (
    TextCandidates,
    _digit_values,
    _number_hash,
    may_occur,
)
from deid_desktop.core.scan.dictionary import dictionary_from_columns
from deid_desktop.core.scan.direct_values import DirectValues
from deid_desktop.core.scan.engine import scan_text_arrays

KINDS = ("name", "mrn", "phone", "email", "ssn", "id", "site")
#: Pieces of values and texts, with the edge cases of folding and word boundaries.
PIECES = (
    "Ann", "Quigg", "ann", "QUIGG", "Zoë", "Zoe", "José", "Peña", "Øst", "ß", "İz", "May",
    "Will", "dr", "Jr", "de la", "O'Neil", "SYN", "syn-", "MR", "HF", "0042", "778812",
    "8365111", "555", "0133", "(858)", "858", "1", "+1", "617-555-0199", "5551234567",
    "15551234567", "123-45-6789", "12", "2023", "٣٤٥", "３４５", "a@b.org", "x.y",
    "Main St", "Unit 4B", "www", "http", " ", "  ", "-", ", ", "\t", "\n", "\x00", ".",
    "#", "/", "é", "",
)  # fmt: skip
piece = st.sampled_from(PIECES)
value = st.lists(piece, min_size=0, max_size=4).map("".join)
text = st.lists(st.one_of(piece, value), min_size=0, max_size=12).map(" ".join)


def _columns(values: dict[str, list[list[str]]]) -> dict[str, list[pd.Series]]:
    return {kind: [pd.Series(col, dtype=object) for col in cols] for kind, cols in values.items()}


def _same_hits(texts: list[str], columns: dict[str, list[pd.Series]]) -> None:
    whole = dictionary_from_columns(columns)
    small = DirectValues.from_columns(columns).dictionary_for([texts])
    assert set(small.terms.items()) <= set(whole.terms.items())
    assert set(small.digits.items()) <= set(whole.digits.items())
    expected = scan_text_arrays(texts, whole)
    got = scan_text_arrays(texts, small)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(KINDS),
        st.lists(st.lists(value, min_size=0, max_size=6), min_size=1, max_size=2),
        max_size=4,
    ),
    st.lists(text, min_size=0, max_size=6),
    st.data(),
)
@example(
    {"mrn": [["SYN-8365111"]], "phone": [["1 (858) 555-0133"]], "name": [["Ann Quigg"]]},
    ["call 858.555.0133 re SYN 8365111", "Quigg", "ann"],
    None,
)
@example({"id": [["0042"], ["HF", "12"]]}, ["A0042", "HF\x0012", "x 12"], None)
# a value with a tab after it is a number once trimmed (found by this test at random)
@example({"mrn": [["5551234567\t"]]}, ["15551234567"], None)
@example({"mrn": [["5551234567\t"]], "phone": [["5551234567"]]}, ["15551234567"], None)
@example({"name": [["Zoë Øst"]], "id": [["３４５６７８"]]}, ["zoe", "ØST 345678"], None)
# digits at both ends, letters between: no number (found by this test in CI)
@example({"name": [["2023ZoëAnn5551234567"]], "mrn": [["2023ZoëAnn5551234567"]]}, [], None)
def test_the_restricted_dictionary_finds_what_the_whole_one_finds(
    values: dict[str, list[list[str]]], texts: list[str], data: st.DataObject | None
) -> None:
    if data is not None and values:  # some texts made of the values themselves
        pool = [v for cols in values.values() for col in cols for v in col]
        if pool:
            texts = texts + [
                " ".join(data.draw(st.lists(st.sampled_from(pool), max_size=3)))
                for _ in range(data.draw(st.integers(0, 3)))
            ]
    _same_hits(texts, _columns(values))


def test_a_value_is_kept_only_when_the_texts_may_hold_it() -> None:
    values = pa.array(
        ["HF0000001", "SYN-8365111", "Dana", "(858) 555-0133", "1 858 555 0134", "0000123"],
        type=pa.large_string(),
    )
    found = TextCandidates([["hello dana", "(858) 555-0134", "A0000123", "SYN 99"]])
    names = may_occur(values, found, words=True, phone=False)
    assert names.tolist() == [False, True, True, True, True, False]  # any word: syn, 858
    phones = may_occur(values, found, words=False, phone=True)
    assert phones.tolist() == [False, False, False, False, True, True]
    ids = may_occur(values, found, words=False, phone=False)
    assert ids.tolist() == [False, False, True, False, False, True]


def test_the_read_back_dictionary_of_a_million_values_keeps_what_the_cells_hold() -> None:
    keys = pd.Series([f"HF{i:07d}" for i in range(200_000)])
    mrns = pd.Series([f"SYN-{i:07d}" for i in range(200_000)])
    columns = {"id": [keys], "mrn": [mrns]}
    small = DirectValues.from_columns(columns).dictionary_for(
        [["2019", "stable", "HF0000042 seen", "syn 0000007"]]
    )
    assert dict(small.terms) == {"hf0000042": "ID", "syn 0000007": "MRN"}


def _digit_values_reference(
    digits: np.ndarray, first: np.ndarray, count: np.ndarray, is_digit: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """``candidates._digit_values`` as it was written first: a digit position at a time
    over every run, the runs shorter than it left as they are."""
    value = np.zeros(first.size, dtype=np.uint64)
    whole = np.ones(first.size, dtype=bool)
    last = max(digits.size - 1, 0)
    for k in range(int(count.max(initial=0))):
        inside = k < count
        at = np.minimum(first + k, last)
        if is_digit is not None:
            whole &= ~inside | is_digit[at]
        with np.errstate(over="ignore"):
            value = np.where(inside, value * np.uint64(10) + digits[at].astype(np.uint64), value)
    return whole, _number_hash(value, count)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 19), st.integers(0, 40)), max_size=30),
    st.binary(min_size=80, max_size=120),
    st.booleans(),
)
def test_digit_values_read_a_length_at_a_time_are_the_same(
    runs: list[tuple[int, int]], raw: bytes, check: bool
) -> None:
    """Runs of several lengths (none, one, all the same, 19 digits that overflow 64
    bits), over bytes that are digits or not: the same flags and hashes."""
    data = np.frombuffer(raw, dtype=np.uint8)
    digits = data - np.uint8(48)
    is_digit = np.zeros(data.size + 1, dtype=bool)
    is_digit[:-1] = digits < 10
    count = np.array([n for n, _ in runs], dtype=np.int64)
    first = np.array([s for _, s in runs], dtype=np.int64)
    flags = is_digit if check else None
    got = _digit_values(digits, first, count, flags)
    want = _digit_values_reference(digits, first, count, flags)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
