"""The shared pathway building blocks that the fast paths replaced: person positions
in one hash pass, row order, Arrow takes, and the digit helpers of the direct-value
check give what the plain computations give."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import InputError
from deid_desktop.core.facts.dates import earliest_per_person
from deid_desktop.core.facts.digits import all_digits, digits_and_counts, only_digits
from deid_desktop.core.facts.persons import all_positions
from deid_desktop.core.pathways.common import row_order, take_rows
from deid_desktop.core.pathways.subject_ids import _contains_own_key, _equals_an_id, _format_ids
from deid_desktop.core.verify.safe_harbor import _not_among, _repeats
from tests.core.test_safe_harbor_support import make_case, people, replace_frame

TEXT = pd.StringDtype("pyarrow")


def _expected_positions(extract, key: str = "pid") -> dict[str, list[int]]:
    where = {k: i for i, k in enumerate(extract.person.frame[key].tolist())}
    return {t.name: [where[k] for k in t.frame[key].tolist()] for t in extract.tables}


def test_positions_are_each_rows_person_whatever_the_event_order() -> None:
    extract, project = make_case(n=12)
    visits = extract.table("visits").frame
    shuffled = visits.iloc[np.random.default_rng(3).permutation(len(visits))]
    extract = replace_frame(extract, "visits", shuffled.reset_index(drop=True))
    found = all_positions(extract, project)
    expected = _expected_positions(extract)
    assert {k: v.tolist() for k, v in found.items()} == expected


def test_a_missing_event_key_is_a_person_not_found_with_its_line() -> None:
    extract, project = make_case()
    visits = extract.table("visits").frame.copy()
    visits.loc[2, "pid"] = None
    extract = replace_frame(extract, "visits", visits)
    with pytest.raises(InputError) as info:
        all_positions(extract, project)
    assert info.value.row == 4 and info.value.file == "visits.csv"
    assert "1 rows have a person key not found" in str(info.value)


def test_a_missing_person_key_takes_the_plain_path_with_the_same_positions() -> None:
    data = people()
    data.loc[5, "pid"] = None
    extract, project = make_case(people_frame=data)
    keep = extract.table("visits").frame
    keep = keep[keep["pid"].notna()].reset_index(drop=True)
    stays = extract.table("stays").frame
    stays = stays[stays["pid"].notna()].reset_index(drop=True)
    extract = replace_frame(replace_frame(extract, "visits", keep), "stays", stays)
    found = all_positions(extract, project)
    assert found["visits"].tolist() == _expected_positions(extract)["visits"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=8), max_size=40))
def test_row_order_is_the_stable_sort(numbers: list[int]) -> None:
    values = np.asarray(numbers, dtype=np.int64)
    assert row_order(values).tolist() == np.argsort(values, kind="stable").tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=60), st.integers(1, 4)), max_size=30))
def test_row_order_of_rows_in_runs_is_the_stable_sort(
    runs: list[tuple[int, int]],
) -> None:
    """An event table grouped by person (each number's rows in a run, or a number
    coming back): the order of its persons' numbers is the stable sort."""
    values = np.asarray([number for number, size in runs for _ in range(size)], dtype=np.int64)
    assert row_order(values).tolist() == np.argsort(values, kind="stable").tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([1 << 8, 1 << 20, 1 << 40]).flatmap(
        lambda top: st.lists(st.integers(min_value=-top, max_value=top), max_size=60)
    )
)
def test_row_order_of_numbers_of_any_span_is_the_stable_sort(numbers: list[int]) -> None:
    """Numbers spanning under 2**16, under 2**32 (the radix sort on two 16-bit halves)
    and wider: the stable sort each time."""
    values = np.asarray(numbers + numbers[:5], dtype=np.int64)  # some numbers twice
    assert row_order(values).tolist() == np.argsort(values, kind="stable").tolist()


@settings(max_examples=50, deadline=None)
@given(st.permutations(list(range(1, 30))))
def test_row_order_of_a_permutation_is_its_inverse(numbers: list[int]) -> None:
    values = np.asarray(numbers, dtype=np.int64)
    order = row_order(values)
    assert order.tolist() == np.argsort(values, kind="stable").tolist()
    assert values[order].tolist() == list(range(1, 30))


def test_take_rows_equals_pandas_on_chunked_text_with_gaps_and_on_numbers() -> None:
    chunks = pa.chunked_array([["a", None, "ccc"], ["", "é", None, "g"]], type=pa.large_string())
    text = pd.Series(TEXT.__from_arrow__(chunks), name="x")
    order = np.array([6, 0, 1, 5, 3, 2, 4])
    taken = take_rows(text, order)
    assert taken.tolist() == text.iloc[order].tolist()
    assert taken.dtype == text.dtype and taken.name == "x"
    assert list(taken.index) == list(range(7))
    numbers = pd.Series([1, 2, None], dtype="Int64")
    assert take_rows(numbers, np.array([2, 0, 1])).tolist() == [pd.NA, 1, 2]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="0123456789 -()+.\n\té٣x১", max_size=10), min_size=1))
def test_digit_helpers_match_the_regular_expressions(values: list[str]) -> None:
    arr = pa.array(values, type=pa.large_string())
    for part in (arr, arr.slice(1)):
        assert (
            only_digits(part).to_pylist() == pc.replace_substring_regex(part, r"\D", "").to_pylist()
        )
        expected = pc.match_substring_regex(part, r"^\d+$").to_numpy(zero_copy_only=False)
        assert all_digits(part).tolist() == expected.tolist()
        digits, counts, numeric = digits_and_counts(part)
        assert digits.to_pylist() == only_digits(part).to_pylist()
        assert counts.tolist() == [len(d) for d in digits.to_pylist()]
        assert numeric.tolist() == expected.tolist()


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.sampled_from(["S01", "S02", "S03", ""])), max_size=12),
    st.lists(
        st.lists(st.one_of(st.none(), st.sampled_from(["S01", "S02", "S04"])), max_size=8),
        max_size=3,
    ),
)
def test_subject_id_counts_match_pandas(ids: list[str | None], events: list[list]) -> None:
    person = pd.Series(ids, dtype=TEXT)
    columns = [pd.Series(e, dtype=TEXT) for e in events]
    assert _repeats(person) == int(person.duplicated().sum())
    known = person.dropna().unique()
    expected = sum(int((~c.isin(known) | c.isna()).sum()) for c in columns)
    assert _not_among(columns, person) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.from_regex(r"[ST][0-9]{3,6}", fullmatch=True),
            st.sampled_from(["S0000", "S٠٠٠١", "S000a", "", "s0001", "S+001", " S0001"]),
        ),
        max_size=10,
    ),
    st.integers(min_value=1, max_value=40),
    st.sampled_from("ST"),
)
def test_a_key_equal_to_an_id_is_found_without_writing_the_ids(
    keys: list[str], n: int, prefix: str
) -> None:
    width = max(4, len(str(n)))
    written = _format_ids(np.arange(1, n + 1), prefix, width).to_pylist()
    expected = any(k in set(written) for k in keys)
    assert _equals_an_id(pa.array(keys, type=pa.large_string()), prefix, width, n) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=0, max_value=6),
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=5),
            st.one_of(st.none(), st.integers(min_value=-50_000, max_value=50_000)),
        ),
        max_size=15,
    ),
    st.booleans(),
)
def test_earliest_per_person_is_the_group_minimum(
    n: int, rows: list[tuple[int, int | None]], own_rows: bool
) -> None:
    if own_rows:  # the person table: each person its own row
        rows = [(i, rows[i][1] if i < len(rows) else None) for i in range(n)]
    rows = [(p, d) for p, d in rows if p < n]
    positions = np.array([p for p, _ in rows], dtype=np.int64)
    days = [
        pd.NaT if d is None else pd.Timestamp("2000-01-01") + pd.Timedelta(days=d) for _, d in rows
    ]
    dates = pd.Series(pd.to_datetime(pd.Series(days, dtype="datetime64[ns]")))
    expected = pd.Series(dates.to_numpy(), index=positions).groupby(level=0).min().reindex(range(n))
    found = earliest_per_person(dates, positions, n)
    assert found.dtype == expected.dtype
    assert found.tolist() == expected.tolist() or (
        found.isna().tolist() == expected.isna().tolist()
        and found.dropna().tolist() == expected.dropna().tolist()
    )
    assert list(found.index) == list(range(n))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["S01", "S02", "S03", "S10", "T1", "é"]), max_size=8))
def test_repeats_of_sorted_and_unsorted_ids_match_pandas(ids: list[str]) -> None:
    for values in (ids, sorted(ids), sorted(set(ids))):
        series = pd.Series(values, dtype=TEXT)
        assert _repeats(series) == int(series.duplicated().sum())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="0123S7\x00é", min_size=3, max_size=6), min_size=1, max_size=12),
    st.sampled_from("ST"),
    st.randoms(use_true_random=False),
)
def test_ids_containing_their_own_key_are_found_as_python_finds_them(
    keys: list[str], prefix: str, rnd: object
) -> None:
    n = len(keys)
    width = max(4, len(str(n)))
    numbers = np.arange(1, n + 1, dtype=np.int64)
    rnd.shuffle(numbers)  # type: ignore[attr-defined]
    ids = _format_ids(numbers, prefix, width).to_pylist()
    assert ids == [f"{prefix}{v:0{width}d}" for v in numbers.tolist()]
    eligible = np.asarray(
        [i for i, k in enumerate(keys) if k.isascii() and len(k) <= 1 + width], dtype=np.int64
    )
    arrow = pa.array([keys[i] for i in eligible.tolist()], type=pa.large_string())
    found = _contains_own_key(numbers, prefix, width, arrow, eligible)
    assert found.tolist() == [i for i in eligible.tolist() if keys[i] in ids[i]]


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=40), st.integers(min_value=0, max_value=2**32))
def test_subject_ids_in_release_order_are_those_taken_row_by_row(n: int, seed: int) -> None:
    """The IDs read forward in number order are take_rows' IDs, value and type."""
    from deid_desktop.core.pathways.subject_ids import random_subject_ids

    keys = pd.Series([f"K{i:03d}" for i in range(n)], dtype=pd.StringDtype("pyarrow"))
    subjects = random_subject_ids(keys, seed)
    rows = np.random.default_rng(seed).integers(0, n, 3 * n)
    rows = rows[row_order(subjects.numbers[rows])]
    got, want = subjects.in_order(rows), take_rows(subjects.ids, rows)
    assert got.tolist() == want.tolist()
    assert got.dtype == want.dtype and got.name == want.name
    assert got.index.equals(want.index)
    assert pa.array(got.array).type == pa.array(want.array).type
