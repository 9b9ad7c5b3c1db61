"""Columns the pathway makes from integer codes (years, pooled ages, categories taken
through their dictionary) are counted by the gate from the codes: the distinct cells,
their counts and their order are exactly what pandas' ``value_counts`` gives, on random
small columns with missing values (and their years read through the codes too); a
changed or copied column is counted afresh."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.facts.text import STRING, known_cells
from deid_desktop.core.facts.years import year_numbers
from deid_desktop.core.pathways.common import take_coded
from deid_desktop.core.pathways.number_text import int_text, pool_ages
from deid_desktop.core.verify.base import distinct_cells


def _value_counts(values: pd.Series) -> pd.Series:
    counts = values.astype(STRING).value_counts(dropna=True, sort=False)
    return counts[counts.index.notna()]


def _same(found: pd.Series | None, values: pd.Series) -> None:
    expected = _value_counts(values)
    assert found is not None
    assert found.index.tolist() == expected.index.tolist()  # order of first appearance
    assert found.tolist() == expected.tolist()
    assert found.dtype == expected.dtype and found.index.dtype == expected.index.dtype
    assert (found.name, found.index.name) == (expected.name, expected.index.name)


_CATEGORY = st.one_of(st.none(), st.sampled_from(["White", "Asian", "", " ", "é", "90+"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(_CATEGORY, min_size=1, max_size=30), st.randoms(use_true_random=False))
def test_a_category_taken_through_its_codes_is_counted_as_pandas_counts(
    cells: list[str | None], rnd: object
) -> None:
    values = pd.Series(cells * 3, dtype=STRING, name="race")  # few distinct: coded
    order = np.arange(len(values))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    taken = take_coded(values, order)
    assert taken.tolist() == values.iloc[order].tolist()
    _same(known_cells(taken), taken)
    frame = pd.DataFrame({"subject_id": taken.astype(STRING), "race": taken}, copy=False)
    _same(known_cells(frame["race"]), frame["race"])  # a frame holding it shares the codes
    assert distinct_cells(frame["race"]).tolist() == _value_counts(taken).tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(min_value=-3, max_value=130), st.booleans()), min_size=1),
    st.booleans(),
)
def test_years_and_pooled_ages_are_counted_as_pandas_counts(
    rows: list[tuple[int, bool]], ages: bool
) -> None:
    numbers = np.asarray([n for n, _ in rows], dtype=np.int64)
    missing = np.asarray([m for _, m in rows], dtype=bool)
    if ages:
        series = pd.Series(pd.array(np.where(missing, None, numbers), dtype="Int64"), name="age")
        text = pool_ages(series)
    else:
        text = int_text(numbers, missing)
    if not missing.all():  # a column of missing cells only is not made from codes
        _same(known_cells(text), text)
    assert distinct_cells(text).tolist() == _value_counts(text).tolist()
    plain = pd.Series(text.tolist(), dtype=STRING)  # the same cells, not made from codes
    assert np.array_equal(year_numbers(text), year_numbers(plain), equal_nan=True)


def test_a_changed_or_new_column_is_not_read_from_old_codes() -> None:
    values = pd.Series(["a", "b", "a", None] * 3, dtype=STRING)
    taken = take_coded(values, np.arange(len(values))[::-1].copy())
    changed = taken.copy()
    changed.iloc[0] = "z"  # new data: not the codes' any more
    assert known_cells(changed) is None
    assert distinct_cells(changed).to_dict() == _value_counts(changed).to_dict()
    assert known_cells(pd.Series(["a"], dtype=STRING)) is None


def test_one_chunk_is_used_as_it_is_and_several_are_joined() -> None:
    # Arrow's combine_chunks copies even a single chunk: one_array (and arrow_text, the
    # CSV writer and the pathways' take through it) hands that chunk on instead.
    from deid_desktop.core.facts.text import arrow_text, one_array

    chunk = pa.array(["a", "bb", None, "ccc"], type=pa.large_string())
    single = pa.chunked_array([chunk])
    assert one_array(single).buffers()[2].address == chunk.buffers()[2].address
    assert arrow_text(single).buffers()[2].address == chunk.buffers()[2].address
    joined = one_array(pa.chunked_array([chunk, chunk.slice(1, 2)]))
    assert joined.to_pylist() == ["a", "bb", None, "ccc", "bb", None]
    assert one_array(chunk) is chunk
