"""Released years read as numbers: a year column's cells parsed once, in numpy.

A cell is a year when, its surrounding whitespace trimmed, it is exactly four ASCII
digits; anything else (missing, a band, a word, a full date) is NaN.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.text import STRING, arrow_text, known_codes

_DIGITS = (1000, 100, 10, 1)


def _by_distinct(arr: pa.Array) -> np.ndarray:
    """Years of ``arr`` through its distinct values (each read once, then taken per row)."""
    encoded = arr.dictionary_encode()
    text = pc.utf8_trim_whitespace(encoded.dictionary)
    ok = pc.fill_null(pc.match_substring_regex(text, r"^\d{4}$"), False)
    numbers = pc.cast(pc.if_else(ok, text, pa.scalar(None, pa.large_string())), pa.float64())
    lookup = np.append(numbers.to_numpy(zero_copy_only=False), np.nan)
    index = encoded.indices.fill_null(len(text)).to_numpy(zero_copy_only=False)
    return lookup[index]


def year_numbers(values: pd.Series | pa.Array) -> np.ndarray:
    """4-digit years as float64 (NaN: missing or not a year), one per cell.

    A column the pathway made from codes (``facts.text.remember_codes``) is read through
    its distinct values. Cells of exactly four bytes are read straight from the Arrow
    buffers (four ASCII digits, or not a year: trimming cannot make four digits of
    them); only longer cells, which may carry whitespace around a year, are trimmed and
    matched, through their distinct values.
    """
    known = known_codes(values)
    if known is not None:  # made from codes: each distinct value read once
        codes, dictionary = known
        return np.append(year_numbers(dictionary), np.nan)[codes]
    arr = arrow_text(values)
    n = len(arr)
    out = np.full(n, np.nan)
    if n == 0:
        return out
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[arr.offset : arr.offset + n + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.empty(0, "u1")
    size = np.diff(offsets)
    valid = (
        arr.is_valid().to_numpy(zero_copy_only=False) if arr.null_count else np.ones(n, dtype=bool)
    )
    four = np.flatnonzero(valid & (size == 4))
    if len(four):
        starts = offsets[four]
        year = np.zeros(len(four), dtype=np.int32)
        ok = np.ones(len(four), dtype=bool)
        for k, scale in enumerate(_DIGITS):
            digit = data[starts + k] - np.uint8(48)  # a byte below '0' wraps to >= 10
            ok &= digit < 10
            year += digit.astype(np.int32) * scale
        out[four[ok]] = year[ok]
    longer = np.flatnonzero(valid & (size > 4))
    if len(longer):
        out[longer] = _by_distinct(arr.take(pa.array(longer)))
    return out


#: A column is read as years by its values when this share of its distinct filled cells
#: are 4-digit years from ``_FIRST_YEAR`` to ``_LAST_YEAR``.
_YEARS_SHARE = 0.9
_FIRST_YEAR, _LAST_YEAR = 1850, 2100


def years_by_values(uniq: pd.Series) -> bool:
    """Whether a column's distinct filled cells (-> rows holding each) are years: nine in
    ten are 4-digit years from 1850 to 2100 (heart rates, scores and 5-digit codes are
    not)."""
    if uniq.empty:
        return False
    years = year_numbers(pa.array(pd.Series(uniq.index, dtype=STRING)))
    ok = (years >= _FIRST_YEAR) & (years <= _LAST_YEAR)  # NaN compares False
    return float(ok.mean()) >= _YEARS_SHARE
