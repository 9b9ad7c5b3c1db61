"""A released number that is its own person's date written as a number.

The date-shape checks (``verify.dates``) read a column's values alone: a column of Unix
times after 2001, of ``YYYYMMDD`` numbers, of Excel serial days where the name says
date. A birth date kept as a number of another form slips past them: Unix seconds of
1947 (negative), days since 1970, an Excel serial under a neutral name, the day of the
year (``243``), ``831`` for 31 August. No shape tells such numbers from a count or a
measurement, but a copy sits in the row of the person it dates, so it is found by
pairing: each released row's whole number is held against the numeric forms of its own
person's dates (every date of the person table: birth, index, death...), through the
held-back crosswalk. A column is flagged when half its filled rows (and at least
``MIN_ROWS``) agree. An even sample of rows is read first; only a column that agrees in
a good share of the sample is read whole, so the cost of a column of measurements is
the sample's. Counts and column names only, never a value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.dates import is_person_date
from deid_desktop.core.facts.persons import spec_for
from deid_desktop.core.facts.text import arrow_text
from deid_desktop.core.model import Extract, Project, Release
from deid_desktop.core.verify.base import VerifyContext, released_columns
from deid_desktop.core.verify.own_values import row_persons, source_persons

#: A column is flagged when this share of its filled rows hold their own person's date...
SHARE = 0.5
#: ...and at least this many rows do.
MIN_ROWS = 3
#: Rows read first; a column goes on to be read whole when half this share agree.
SAMPLE = 20_000
_INTEGER = r"^\s*[+-]?\d{1,14}\s*$"
_DAY = 86_400
#: days from the Excel serial day 0 to 1970-01-01, in the 1900 and the 1904 systems
_EXCEL_1900, _EXCEL_1904 = 25_569, 24_107
#: what the check says the column holds
KIND = "its own person's date written as a number"


#: what no date form is (and no cell: ``_NOT_A_NUMBER``)
_NO_DATE = np.iinfo(np.int64).min // 4
_NOT_A_NUMBER = np.iinfo(np.int64).min // 2


def _forms(days: np.ndarray) -> list[np.ndarray]:
    """Numbers a date (days since 1970) is written as, other than Unix times: Excel
    serial days (1900, 1904), days since 1970, the day of the year, MMDD, DDMM and
    YYYYMMDD."""
    dates = days.astype("datetime64[D]")
    year = dates.astype("datetime64[Y]")
    month = dates.astype("datetime64[M]")
    y = year.astype(np.int64) + 1970
    m = month.astype(np.int64) % 12 + 1
    d = (dates - month).astype(np.int64) + 1
    doy = (dates - year).astype(np.int64) + 1
    return [days + _EXCEL_1900, days + _EXCEL_1904, days, doy, m * 100 + d, d * 100 + m,
            (y * 100 + m) * 100 + d]  # fmt: skip


class _PersonDates:
    """Per person, each date of the person table as days since 1970 (``_NO_DATE``
    where the person has none); its forms are computed for the rows read only."""

    def __init__(self, extract: Extract, project: Project, ctx: VerifyContext) -> None:
        spec = spec_for(project, extract.person)
        self.days: list[np.ndarray] = []
        for tag in spec.columns:
            if tag.name not in extract.person.frame.columns or not is_person_date(tag):
                continue
            parsed = pd.to_datetime(ctx.dates.get(extract.person.name, tag), errors="coerce")
            days = parsed.to_numpy(dtype="datetime64[D]", na_value=np.datetime64("NaT"))
            known = ~np.isnat(days)
            if known.any():
                as_int = np.full(len(days), _NO_DATE, dtype=np.int64)
                as_int[known] = days[known].astype(np.int64)
                self.days.append(as_int)

    def agreeing(self, cells: np.ndarray, person: np.ndarray) -> np.ndarray:
        """Per row: is its whole number (``cells``; its person's row ``person``, -1:
        none) one of the forms of a date of its own person? A Unix time in seconds or
        milliseconds counts for the day it falls on, or the day before (a local
        midnight east of UTC)."""
        at = np.maximum(person, 0)
        agree = np.zeros(len(cells), dtype=bool)
        for days in self.days:
            mine = days[at]
            known = mine != _NO_DATE
            for form in _forms(np.where(known, mine, 0)):
                agree |= known & (cells == form)
            for unit in (_DAY, _DAY * 1000):
                day = np.floor_divide(cells, unit)
                agree |= known & ((day == mine) | (day == mine - 1))
        return agree & (person >= 0) & (cells != _NOT_A_NUMBER)


def whole_numbers(values: pd.Series, cells: pa.Array, numbers: np.ndarray) -> np.ndarray:
    """Each row's whole number (``_NOT_A_NUMBER`` where its cell is none), from the
    column's distinct ``cells`` of which ``numbers`` are whole numbers."""
    as_int = np.full(len(cells) + 1, _NOT_A_NUMBER, dtype=np.int64)
    as_int[:-1][numbers] = pc.cast(pc.utf8_trim_whitespace(cells.filter(numbers)), pa.int64())
    code = pc.index_in(arrow_text(values), value_set=cells)
    return as_int[code.fill_null(len(cells)).to_numpy(zero_copy_only=False)]


def own_date_columns(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> dict[str, int]:
    """Released columns ("table.column") half of whose filled rows hold a date of their
    own person as a number -> the rows that do."""
    dates: _PersonDates | None = None
    source: np.ndarray | None = None
    flagged: dict[str, int] = {}
    for t, c, values in released_columns(release):
        uniq = ctx.uniques(t, c, values)
        filled = int(uniq.sum())
        if filled < MIN_ROWS:
            continue
        cells = arrow_text(uniq.index)
        numbers = pc.match_substring_regex(cells, _INTEGER).to_numpy(zero_copy_only=False)
        counts = uniq.to_numpy()
        if counts[numbers].sum() < max(MIN_ROWS, SHARE * filled):
            continue  # not a column of whole numbers
        if dates is None:
            dates = _PersonDates(extract, project, ctx)
            source = source_persons(extract, project, release, ctx) if dates.days else None
        _ids, positions = ctx.released_positions(release, extract.person.name)
        where = positions.get(t)
        if source is None or where is None:
            continue
        step = max(1, len(values) // SAMPLE)  # an even sample first
        rows = np.arange(0, len(values), step)
        sample = values.iloc[rows] if step > 1 else values
        person = row_persons(where[rows], source)
        agree = dates.agreeing(whole_numbers(sample, cells, numbers), person)
        if not agree.size or agree.mean() < SHARE / 2:
            continue
        if step > 1:
            person = row_persons(where, source)
            agree = dates.agreeing(whole_numbers(values, cells, numbers), person)
        n = int(np.count_nonzero(agree))
        if n >= max(MIN_ROWS, SHARE * filled):
            flagged[f"{t}.{c}"] = n
    return flagged
