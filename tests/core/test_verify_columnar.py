"""The gate's columnar helpers agree with plain Python references on random small frames:
the released-ID join (``positions_in``), the year parser, the subject-ID key tests,
the direct-value dictionary (with the event keys left out when they are person keys) and
the direct-value search restricted to what the released cells may hold."""

from __future__ import annotations

import re
from dataclasses import replace

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deid_desktop.core.facts.fold import fold_text
from deid_desktop.core.facts.persons import positions_in
from deid_desktop.core.facts.text import char_lengths
from deid_desktop.core.facts.years import year_numbers
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import VerifyContext
from deid_desktop.core.verify.direct import _Cells, _direct_dictionary, direct_values_finding
from deid_desktop.core.verify.safe_harbor import _containing_own_key, _equal_to_a_key
from tests.core.test_safe_harbor_support import make_case, people

TEXT = pd.StringDtype("pyarrow")
#: IDs of one width (binary search), of mixed widths and with missing cells (hashing).
_CODES = st.sampled_from(["S01", "S02", "S03", "S10", "S11", "S1", "S1\x00", "S100", "", "s01"])
_IDS = st.lists(st.one_of(st.none(), _CODES), max_size=10)


def _reference_positions(ids: list[str | None], column: list[str | None]) -> list[int]:
    first: dict[str, int] = {}
    for i, v in enumerate(ids):
        if v is not None and v not in first:
            first[v] = i
    return [first.get(v, -1) if v is not None else -1 for v in column]


@settings(max_examples=300, deadline=None)
@given(
    _IDS,
    st.lists(st.lists(st.one_of(st.none(), _CODES), max_size=12), max_size=3),
    st.booleans(),
    st.booleans(),
)
@example(["S1", "S2"], [["S1\x00", "S2\x00"]], True, False)  # one byte more is no match
def test_positions_in_agrees_with_a_dictionary(
    ids: list[str | None], columns: list[list[str | None]], in_order: bool, runs: bool
) -> None:
    if in_order:  # a release in ID order: unique, rising, no missing
        ids = sorted({i for i in ids if i is not None})
    if runs:  # event rows grouped by ID
        columns = [sorted(c, key=lambda v: (v is None, v or "")) for c in columns]
    columns = [*columns, list(ids)]  # the person table itself
    arrays = [pa.array(c, type=pa.string()) for c in columns]
    found = positions_in(pa.array(ids, type=pa.string()), arrays)
    assert [f.tolist() for f in found] == [_reference_positions(ids, c) for c in columns]


_YEARISH = st.text(alphabet="0123456789 \t-+a.", max_size=7)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), _YEARISH, st.sampled_from(["2024", " 1930 ", "0000"]))))
def test_year_numbers_agree_with_a_regular_expression(values: list[str | None]) -> None:
    got = year_numbers(pd.Series(values, dtype=TEXT))
    for value, number in zip(values, got.tolist(), strict=True):
        text = None if value is None else value.strip(" \t")
        if text is not None and re.fullmatch(r"[0-9]{4}", text):
            assert number == float(text)
        else:
            assert number != number  # NaN


_KEYS = st.sampled_from(["0001", "001", "01", "12", "A12", "1234", "", "9"])
_SUBS = st.sampled_from(["S0001", "S0012", "S1234", "X12", "S001", "A12", "S0009"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), _SUBS), st.one_of(st.none(), _KEYS)), max_size=10))
def test_subject_id_key_tests_agree_with_python(pairs: list[tuple[str | None, str | None]]) -> None:
    subs = pd.Series([s for s, _ in pairs], dtype=TEXT)
    keys = pd.Series([k for _, k in pairs], dtype=TEXT)
    containing = sum(
        1 for s, k in pairs if len(k or "") >= 3 and (k or "") in (s or "")
    )  # missing read as empty, keys of 3 or more characters
    assert _containing_own_key(subs, keys) == containing
    key_set = {k for k in keys.dropna()}
    assert _equal_to_a_key(subs, keys) == sum(1 for s in subs.dropna() if s in key_set)


_NAMES = st.sampled_from(["Ann", "Bo", "José", "Lee", "Ann ", "ANN", "Smith-Jones"])
_MRNS = st.sampled_from(["SYN-1234567", "ab", "12345", "1234567", "MRN 99", "x-1", ""])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_NAMES, _MRNS, _MRNS), min_size=6, max_size=6))
def test_direct_dictionary_leaves_out_event_keys_with_the_same_result(
    rows: list[tuple[str, str, str]],
) -> None:
    frame = people(6)
    frame["first_name"] = pd.array([r[0] for r in rows], dtype=TEXT)
    frame["mrn"] = pd.array([r[1] for r in rows], dtype=TEXT)
    frame["phone"] = pd.array([r[2] for r in rows], dtype=TEXT)
    extract, project = make_case(n=6, people_frame=frame)
    full = _direct_dictionary(extract, project)
    short = _direct_dictionary(extract, project, VerifyContext(extract, project))
    for part in ("ids", "names", "numbers"):
        assert sorted(getattr(full, part).to_pylist()) == sorted(getattr(short, part).to_pylist())
    # the reference: every direct value, lower-cased and trimmed, sorted by the rules
    words: set[str] = set()
    ids: set[str] = set()
    held: list[str] = []  # every value as often as the extract holds it
    for column in ("first_name", "last_name", "city"):
        held += [fold_text(v).strip().lower() for v in frame[column].dropna()]
        words |= {fold_text(v).strip().lower() for v in frame[column].dropna()}
    for column in ("pid", "mrn", "phone"):
        for value in frame[column].dropna():
            text = fold_text(value).strip().lower()
            ids.add(text)
            held.append(text)
            digits = re.sub(r"\D", "", text)
            if column != "pid" and len(digits) >= 7 and digits != text:
                ids.add(digits)
                held.append(digits)
    numeric = [v.isdigit() and v.isascii() for v in held]
    too_short = sum(len(v) < 3 for v in held)
    small = sum(n and 3 <= len(v) < 6 for v, n in zip(held, numeric, strict=True))
    assert (short.size, short.skipped_short, short.skipped_numbers) == (
        len(held) - too_short - small,
        too_short,
        small,
    )
    numbers = {v for v in ids | words if v.isdigit() and v.isascii() and len(v) >= 6}
    texts = {v for v in ids if not (v.isdigit() and v.isascii()) and len(v) >= 3}
    names = {v for v in words if not (v.isdigit() and v.isascii()) and len(v) >= 3}
    names = (names | {v for v in texts if len(v) < 6}) - {v for v in texts if len(v) >= 6}
    assert set(short.ids.to_pylist()) == {v for v in texts if len(v) >= 6}
    assert set(short.names.to_pylist()) == names
    assert set(short.numbers.to_pylist()) == numbers


#: Released cells: direct values of ``people(6)`` as they are, inside other text, in
#: other case, as digits only, cut short; numbers, words, missing cells.
_CELL_PARTS = st.sampled_from(
    ["Elena", "PATEL", "fox", "José", "Peña", "SYN-8298957", "syn-7150553", "8298957",
     "P-1003", "p-1004", "P-10", "Underwood", "Under", "555", "1234567", "12345678",
     "(858) 555-0101", "8585550101", "White", "x", "", " ", "-", "1", "Ann"]
)  # fmt: skip
_CELLS = st.lists(
    st.one_of(st.none(), _CELL_PARTS, st.lists(_CELL_PARTS, max_size=3).map(" ".join)),
    min_size=1,
    max_size=12,
)


@settings(max_examples=80, deadline=None)
@given(_CELLS, st.sampled_from(["(858) 555-0101", "858.555.0101", None, "12"]))
def test_direct_values_searched_only_where_the_cells_may_hold_them_find_the_same(
    cells: list[str | None], phone: str | None
) -> None:
    """The check searches only the direct values the released cells may hold; it finds
    exactly what searching every direct value finds (verdict, rows, columns, labels)."""
    frame = people(6)
    frame["phone"] = pd.array([phone, *[None] * 5], dtype=TEXT)
    extract, project = make_case(n=6, people_frame=frame)
    clean = build_safe_harbor(extract, project)
    visits = clean.tables["visits"].copy()
    repeat = (cells * (len(visits) // len(cells) + 1))[: len(visits)]
    visits["comment"] = pd.array(repeat, dtype=TEXT)
    release = replace(clean, tables={**clean.tables, "visits": visits})
    fast = direct_values_finding(extract, release, project, VerifyContext(extract, project))
    whole = direct_values_finding(
        extract, release, project, VerifyContext(extract, project), restrict=False
    )
    assert fast == whole


_TEXT_BITS = st.sampled_from(["ab", "abc", "ABC", "x", "", " ", "é", "Peña", "syn-", "12"])
#: Searched values: three characters or more (``MIN_VALUE_LENGTH``).
_VALUES = st.lists(
    st.lists(_TEXT_BITS, max_size=3).map("".join).filter(lambda v: len(v) >= 3), max_size=12
)


@settings(max_examples=300, deadline=None)
@given(_VALUES, st.lists(st.one_of(_TEXT_BITS, _VALUES.map("".join)), max_size=6))
def test_values_kept_when_their_first_three_characters_are_in_the_cells(
    values: list[str], cells: list[str]
) -> None:
    """An ASCII array's first three bytes looked up in a table, any other array through
    Arrow's strings (``é`` among the values): the values whose first three characters
    are a run of the cells, sliced arrays too; ``char_lengths`` counts as Arrow does."""
    haystack = "\x00".join(cells)
    runs = {haystack[i : i + 3] for i in range(len(haystack) - 2)}
    found = _Cells.of(haystack)
    for arr in (pa.array(values, pa.large_string()), pa.array(values, pa.large_string())[1:]):
        want = [v for v in arr.to_pylist() if v[:3] in runs]
        assert found.may_hold_text(arr).to_pylist() == want
        lengths = pc.utf8_length(arr).to_numpy(zero_copy_only=False).tolist()
        assert char_lengths(arr).tolist() == lengths
