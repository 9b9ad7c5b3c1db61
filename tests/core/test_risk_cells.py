"""Small cells in event tables, counted over persons and recomputed by a group-by."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.facts.text import known_codes
from deid_desktop.core.risk.cells import small_cells

S = "string[pyarrow]"


def test_a_code_held_by_one_person_on_many_visits_is_one_small_cell() -> None:
    visits = pd.DataFrame(
        {"subject": ["s1", "s1", "s1", "s2", "s3", "s4"],
         "dx": ["Q87.4", "Q87.4", "I10", "I10", "I10", None]}
    ).astype(S)  # fmt: skip
    (cells,) = small_cells(visits, table="visits", person="subject", columns=["dx"], k=3)
    assert (cells.distinct, cells.small, cells.persons) == (2, 1, 1)
    assert cells.values == (("Q87.4", 1),)
    assert "Q87.4" not in str(cells.to_dict())


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["s1", "s2", "s3", "s4", "s5"]),
            st.one_of(st.none(), st.sampled_from(list("abcdef"))),
        ),
        min_size=1,
        max_size=40,
    ),
    k=st.integers(2, 5),
)
def test_counts_equal_a_group_by_over_persons(rows: list[tuple[str, str | None]], k: int) -> None:
    frame = pd.DataFrame(rows, columns=["subject", "dx"]).astype(S)
    (cells,) = small_cells(frame, table="t", person="subject", columns=["dx"], k=k)
    holders = frame.dropna().groupby("dx")["subject"].nunique()
    small = holders[holders < k]
    assert cells.distinct == len(holders) and cells.small == len(small)
    assert cells.persons == frame[frame["dx"].isin(small.index)]["subject"].nunique()
    assert dict(cells.values) == {str(v): int(n) for v, n in small.items()}


def test_numbers_are_told_from_codes_noted_by_the_pathway_and_from_arrow() -> None:
    # A column taken through its codes (take_coded) is read from its dictionary, any
    # other text column by an Arrow hash pass: the same verdict as pandas' unique.
    from deid_desktop.core.pathways.common import take_coded
    from deid_desktop.core.risk.cells import _all_numbers, _distinct_filled

    for cells, numbers in (
        (["12", None, "7.5", "12", "-3"], True),
        (["12", "E11.9", None, "12"], False),
        ([None, None], False),
    ):
        values = pd.Series(cells * 4, dtype=pd.StringDtype("pyarrow"))
        taken = take_coded(values, np.arange(len(values))[::-1])
        assert known_codes(taken) is not None
        want = sorted(set(values.dropna()))
        assert sorted(map(str, _distinct_filled(values))) == want
        assert sorted(map(str, _distinct_filled(taken))) == want
        assert _all_numbers(values) is numbers and _all_numbers(taken) is numbers


ROW = st.tuples(
    st.sampled_from(["s1", "s2", "s3", "s4", None]),
    st.one_of(st.none(), st.sampled_from(["A", "B", "C", "D", "E"])),
)


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(ROW, max_size=30),
    k=st.integers(min_value=2, max_value=4),
    reverse=st.booleans(),
)
def test_a_column_with_noted_codes_gives_the_cells_of_hashing_it(
    rows: list[tuple[str | None, str | None]], k: int, reverse: bool
) -> None:
    """A column the pathway took through its dictionary (codes noted, the dictionary in
    any order) is counted from its codes, not hashed again: the same cells, values listed
    in the same order (ties in order of first appearance)."""
    import pyarrow as pa

    from deid_desktop.core.facts.text import remember_codes
    from deid_desktop.core.risk import cells as cells_module

    frame = pd.DataFrame({"subject": [r[0] for r in rows], "dx": [r[1] for r in rows]}).astype(S)
    plain = small_cells(frame, table="v", person="subject", columns=["dx"], k=k)
    words = [*sorted({r[1] for r in rows if r[1] is not None}, reverse=reverse), "unused"]
    codes = np.array([-1 if r[1] is None else words.index(r[1]) for r in rows], dtype=np.int32)
    coded = frame.copy()
    dictionary = pa.array(words, pa.large_string())
    coded["dx"] = remember_codes(frame["dx"].copy(deep=True), codes, dictionary)
    hashed: list[object] = []
    original = cells_module._codes
    cells_module._codes = lambda v: hashed.append(v.name) or original(v)  # type: ignore[assignment]
    try:
        got = small_cells(coded, table="v", person="subject", columns=["dx"], k=k)
    finally:
        cells_module._codes = original  # type: ignore[assignment]
    assert got == plain
    assert [c.values for c in got] == [c.values for c in plain]
    assert "dx" not in hashed  # the subject IDs may be hashed, never the coded column
