"""A long date column of few distinct values is read by those values, each once: the
format, the parsed dates and, for a column that is not readable, the error (its first
line and counts) are exactly those of reading every row."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import InputError
from deid_desktop.core.io import dates

DAYS = [
    "2024-01-05", "2023-12-31", "2024-02-29", "2025-06-13", "1931-07-04", "2024-13-01",
    "05/01/2024", "13/01/2024", "01/13/2024", "2024-01-05 10:30", "soon", " 2024-01-05",
]  # fmt: skip


def _outcome(fn: Callable[..., tuple[str, pd.Series]], *args: Any, **kwargs: Any) -> tuple:
    """The format and dates read, or the error's message and hint."""
    try:
        fmt, parsed = fn(*args, **kwargs)
    except InputError as e:
        return ("error", str(e), e.hint)
    return (fmt, parsed.to_numpy(dtype="datetime64[ns]").tolist(), parsed.name, parsed.dtype)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from([*DAYS, None]), min_size=1, max_size=4),
    st.integers(0, 2**31),
    st.sampled_from([None, "%Y-%m-%d", "%m/%d/%Y"]),
)
def test_reading_distinct_values_equals_reading_every_row(
    vocab: list[str | None], seed: int, fmt: str | None
) -> None:
    rng = np.random.default_rng(seed)
    n = dates._DISTINCT_FROM + int(rng.integers(0, 50))
    values = pd.Series(
        np.array(vocab, dtype=object)[rng.integers(0, len(vocab), n)],
        dtype="string[pyarrow]",
        name="visit_date",
    )
    assert dates._distinct(values) is not None
    expected = _outcome(dates._read_dates, values, fmt, file="v.csv", column="visit_date")
    got = _outcome(dates.read_dates, values, fmt, file="v.csv", column="visit_date")
    assert got == expected
    if fmt is not None:
        full = _outcome(_parsed, dates._parse_dates, values, fmt)
        assert _outcome(_parsed, dates.parse_dates, values, fmt) == full


def _parsed(fn: Callable[..., pd.Series], values: pd.Series, fmt: str) -> tuple[str, pd.Series]:
    return fmt, fn(values, fmt, file="v.csv", column="visit_date")


def test_a_bad_value_is_named_by_its_own_line() -> None:
    values = pd.Series(["2024-01-05"] * 5000 + ["soon"], dtype="string[pyarrow]")
    with pytest.raises(InputError) as err:
        dates.read_dates(values, None, file="v.csv", column="d")
    assert err.value.row == 5002  # the header is line 1
    assert str(err.value).startswith("1 value is not a date")
