"""Whole numbers released as text - years of dates, ages pooled over 89 - put in
release order as numbers and written by lookup among their few distinct values: no
string is formatted per row, and no string column is reordered."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.ages import AGE_POOLED, MAX_AGE
from deid_desktop.core.facts.text import STRING, remember_codes


def int_text(
    numbers: np.ndarray,
    missing: np.ndarray,
    order: np.ndarray | None = None,
    *,
    pooled: np.ndarray | None = None,
) -> pd.Series:
    """Whole numbers as text ("2024", "-3"), missing where ``missing``, "90+" where
    ``pooled``, rows taken in ``order`` (None: as they are). The numbers are put in
    order first and their text is looked up among the few distinct values (years, ages):
    no string is formatted per row and no string column is reordered."""
    numbers = np.asarray(numbers, dtype=np.int64)
    if order is not None:
        numbers, missing = numbers[order], missing[order]
        pooled = None if pooled is None else pooled[order]
    present = numbers[~missing]
    if not len(present):
        return pd.Series(pd.array([pd.NA] * len(numbers), dtype=STRING))
    lo, hi = int(present.min()), int(present.max())
    if hi - lo <= 1 << 16:
        words = [str(v) for v in range(lo, hi + 1)]
        index = numbers - lo
    else:  # a wide spread (bad data): through the distinct values
        distinct, inverse = np.unique(np.where(missing, lo, numbers), return_inverse=True)
        words = [str(v) for v in distinct.tolist()]
        index = inverse.reshape(-1)
    if pooled is not None:
        index = np.where(pooled & ~missing, len(words), index)
        words.append(AGE_POOLED)
    index = np.where(missing, 0, index)
    dictionary = pa.array(words, type=pa.large_string())
    text = pc.take(dictionary, pa.array(index, mask=missing))
    out = pd.Series(STRING.__from_arrow__(pa.chunked_array([text])), copy=False)
    return remember_codes(out, np.where(missing, -1, index).astype(np.int32), dictionary)


def year_text(
    dates: pd.Series | np.ndarray, blank: np.ndarray | None = None, order: np.ndarray | None = None
) -> pd.Series:
    """The year of each date as text ("2024"); missing stays missing, and so does a
    date where ``blank``; rows taken in ``order`` (None: as they are), index reset.
    ``dates``: datetimes, or their years already read (float64, NaN: missing)."""
    if isinstance(dates, np.ndarray) and dates.dtype.kind == "f":
        numbers = dates
    else:
        year = pd.DatetimeIndex(dates.to_numpy(dtype="datetime64[ns]")).year  # NaN: missing
        numbers = year.to_numpy(dtype=np.float64, na_value=np.nan)
    missing = np.isnan(numbers)
    if blank is not None:
        missing = missing | blank
    return int_text(np.where(missing, 0, numbers).astype(np.int64), missing, order)


# --------------------------------------------------------------------------- ages


def pool_ages(
    numbers: pd.Series, force: np.ndarray | None = None, order: np.ndarray | None = None
) -> pd.Series:
    """Ages as text: above 89 (or where ``force``) -> "90+", else the whole number;
    rows taken in ``order`` (None: as they are, index kept)."""
    missing = numbers.isna().to_numpy(dtype=bool)
    values = numbers.to_numpy(dtype=np.int64, na_value=0)
    over = (values > MAX_AGE) & ~missing
    if force is not None:
        over = over | (force & ~missing)
    text = int_text(values, missing, order, pooled=over)
    if order is None:
        text.index = numbers.index
    text.name = numbers.name  # in place: a renamed copy would be a new array
    return text
