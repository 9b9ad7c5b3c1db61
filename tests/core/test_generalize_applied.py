"""The released generalization is what the search measured: at any levels, the records
the figures count as suppressed are exactly those in classes below k after the levels
are applied, and every class left has at least k records."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import InputError
from deid_desktop.core.model import Generalization, GeneralizedColumn
from deid_desktop.core.risk import suppress_below_k
from deid_desktop.core.risk.applied import generalize_person

ages = st.integers(0, 104).map(str) | st.none()
sexes = st.sampled_from(["F", "M"]) | st.none()


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(ages, sexes), min_size=1, max_size=60).filter(
        lambda rs: all(any(r[i] is not None for r in rs) for i in (0, 1))
    ),  # a built-in is built for the values present: a column of blanks has none
    age_level=st.integers(0, 4),
    sex_level=st.integers(0, 1),
    k=st.integers(1, 6),
)
def test_suppressed_records_are_those_the_figures_count(
    rows: list[tuple[str | None, str | None]], age_level: int, sex_level: int, k: int
) -> None:
    frame = pd.DataFrame(rows, columns=["age", "sex"], dtype="string[pyarrow]")
    chosen = Generalization(
        (
            GeneralizedColumn("age", age_level, builtin="age"),
            GeneralizedColumn("sex", sex_level, builtin="sex"),
        ),
        k=k,
    )
    done = generalize_person(frame, chosen, {})
    kept, removed, _ = suppress_below_k(done.frame, done.columns, k)
    assert removed == done.figures.suppressed
    if len(kept):
        sizes = kept.groupby(["age", "sex"], dropna=False).size()
        assert int(sizes.min()) >= k
        assert len(sizes) == done.figures.classes
    if age_level:
        assert set(done.frame["age"].dropna()) <= {
            r[age_level] for r in done.hierarchies["age"].rows
        }


def test_an_unknown_built_in_is_an_input_error_naming_the_column() -> None:
    frame = pd.DataFrame({"age": ["30", "31"]}, dtype="string[pyarrow]")
    chosen = Generalization((GeneralizedColumn("age", 1, builtin="shoe-size"),))
    with pytest.raises(InputError, match="'age'") as caught:
        generalize_person(frame, chosen, {})
    assert caught.value.exit_code == 4
