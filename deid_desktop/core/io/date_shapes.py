"""Date shapes: which values of a column are dates (or parts of dates) finer than a year.

Safe Harbor removes every element of a date except the year. A value such as ``2024-03``,
``March 2024``, ``12 Mar``, ``12-Mar-24``, ``20240312 1015`` or ``2024-W11`` states a
month, a day or a week, so it is a date element whatever the column is called. This
module recognises those shapes so the gate (and tagging) can treat them as dates.

Everything is vectorised: each shape is one anchored regular expression run by pyarrow
over the whole column (no Python per value). Shapes are written to avoid false
positives on values that are not dates: plain numbers, versions (``1.2.3``), ratios
(``10.1/4.72``), blood pressures (``120/80``), lab values (``5.4``), ranges (``12-15``).
Years must lie in 1800-2099 (four digits) or be two digits after a month name or in a
day-month-year with two-digit day and month.

A column whose values are nearly all Unix times - 10-digit seconds or 13-digit
milliseconds since 1970 that fall in 2001-2029 (``1611975491``, ``1644796800000``) - holds
dates whatever its name (``UNIX_TIME``): no phone number (area codes start at 2) and no
9-digit SSN has that shape, and provider NPIs (10 digits, Luhn-checked) are told apart.

Two shapes are only dates in a column whose *name* says date (``date``, ``dob``,
``admitted_on``...): Excel serial day numbers (1900 and 1904 date systems) and bare
eight-digit ``YYYYMMDD`` numbers; elsewhere they are just numbers.

Entry points: ``date_shape_of`` (a label per value), ``finer_than_year`` (a boolean mask)
and ``count_finer_than_year``.
"""

from __future__ import annotations

import re
from datetime import date

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

_MON = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_Y4 = r"(?:1[89]\d\d|20\d\d)"
_YY = r"(?:'?\d\d)"
_MM = r"(?:0?[1-9]|1[0-2])"
_MM2 = r"(?:0[1-9]|1[0-2])"
_DD = r"(?:0?[1-9]|[12]\d|3[01])"
_DD2 = r"(?:0[1-9]|[12]\d|3[01])"
_ORD = r"(?:st|nd|rd|th)?"
_HHMM = r"(?:[01]\d|2[0-3])[0-5]\d(?:[0-5]\d)?"
#: An optional time after a date: `` 10:15``, ``T10:15:00Z``, `` 10:15 pm``, ``+01:00``.
_TIME = r"(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[ap]\.?m\.?)?(?:z|[+-]\d{2}:?\d{2})?)?"

_SEPS = ("-", "/", r"\.")
#: Shape label -> anchored pattern (matched case-insensitively on the stripped value).
#: Order matters only for the label a value gets; the mask is their union.
SHAPES: dict[str, str] = {
    "full date (year first)": "|".join(rf"{_Y4}{s}{_MM}{s}{_DD}{_TIME}" for s in _SEPS),
    "full date (year last)": "|".join(rf"{_DD}{s}{_DD}{s}{_Y4}{_TIME}" for s in _SEPS),
    "full date (two-digit year)": rf"(?:{_DD2}-{_DD2}-\d\d|{_DD2}/{_DD2}/\d\d"
    rf"|{_DD2}\.{_MM2}\.\d\d){_TIME}",
    "day month-name year": rf"{_DD}{_ORD}[\s\-/.]*{_MON}[\s\-/.,]*(?:{_Y4}|{_YY}){_TIME}",
    "month-name year": rf"{_MON}[\s\-/.,']*{_Y4}|{_Y4}[\s\-/.,]*{_MON}",
    "month-name day year": rf"{_MON}\s*{_DD}{_ORD}(?:,\s*|[\s\-/.]+)(?:{_Y4}|{_YY}){_TIME}",
    "year month-name day": rf"{_Y4}[\s\-/.]*{_MON}[\s\-/.]*{_DD}{_TIME}",
    "year-month": rf"{_Y4}[-/]{_MM}",
    "month-year": rf"{_MM}[-/]{_Y4}",
    "month-name two-digit year": rf"{_MON}[\s\-/.]*'\d\d|{_MON}-\d\d",
    "day month-name": rf"{_DD}{_ORD}[\s\-/.]*{_MON}",
    "month-name day": rf"{_MON}[\s\-.]*{_DD}{_ORD}",
    "compact date-time": rf"{_Y4}{_MM2}{_DD2}[ T]?{_HHMM}",
    "ISO week": rf"{_Y4}-?w(?:0[1-9]|[1-4]\d|5[0-3])(?:-?[1-7])?",
    "ISO ordinal date": rf"{_Y4}-(?:00[1-9]|0[1-9]\d|[12]\d\d|3[0-5]\d|36[0-6])",
    "quarter": rf"{_Y4}[\s\-]?q[1-4]|q[1-4][\s\-/]?{_Y4}",
}
#: Only in a column whose name says date.
COMPACT_DATE = "compact date (YYYYMMDD)"
EXCEL_SERIAL = "Excel serial day number"
_COMPACT = rf"{_Y4}{_MM2}{_DD2}"
_SERIAL = r"\d{1,5}(?:\.\d+)?"

#: A column of compact year-months (YYYYMM) or dates (YYYYMMDD), whatever its name, when
#: this share of its values have one of the two shapes: 6- and 8-digit counts and codes
#: are seldom nearly all a valid year (1800-2099) and month (and day).
COMPACT_YEAR_MONTH = "compact year-month (YYYYMM)"
COMPACT_SHARE = 0.9
#: ...and it holds at least this many values (one or two numbers are not a column).
COMPACT_MIN = 3
COMPACT_PATTERN = rf"{_Y4}{_MM2}(?:{_DD2})?"

#: A column of days of the year written as two numbers, month and day or day and month
#: (``8/31``, ``31/8``, ``08-31``: a birthday without its year), when this share of its
#: values have the shape and are valid both ways round at least one way. Fractions,
#: scores and ratios have the shape too (``1/2``, ``3/10``, ``2/6``) but few different
#: denominators: outside a date-named column the day side must take at least
#: ``MONTH_DAY_DAYS`` values, one above 12, and the month side ``MONTH_DAY_MONTHS``.
MONTH_DAY = "month and day as numbers (8/31)"
MONTH_DAY_SHARE = 0.9
MONTH_DAY_DAYS = 8
MONTH_DAY_MONTHS = 3
_MONTH_DAY = r"\d{1,2}[/-]\d{1,2}"
#: A column of month names alone (``August``, ``Aug``), nine in ten of its values and
#: three different months at least: a month of birth or of a visit is an element of a
#: date. Not read in a row of headers (a pivot table's months are column names).
MONTH_NAME = "month name alone"

#: Excel serials of 1900-01-01..2099-12-31 (1900 system; the 1904 system's serial of a
#: given day is 1462 lower, so its range lies inside this one).
SERIAL_MIN, SERIAL_MAX = 1, 73050
#: A date column of serials: most values from 1920 on (1900 system: 7306; 1904: 5844).
SERIAL_TYPICAL = 5844
SERIAL_SHARE = 0.8
EPOCH_1900 = date(1899, 12, 30)  # serial 1 = 1900-01-01, past Excel's phantom 1900-02-29
EPOCH_1904 = date(1904, 1, 1)

#: A column of Unix times (seconds or milliseconds since 1970-01-01 UTC, 2001-09-09 to
#: 2029-12-31): whatever its name, when this share of its values have the shape.
UNIX_TIME = "Unix time (seconds or milliseconds since 1970)"
UNIX_SHARE = 0.8
#: One value's shape (the tagger's value pattern too); the range is checked after.
UNIX_PATTERN = r"1[0-8]\d{8}(?:\.\d{1,6})?|1[0-8]\d{11}"
_UNIX = UNIX_PATTERN
UNIX_SECONDS_MAX = 1_893_455_999  # 2029-12-31 23:59:59 UTC
#: NPIs: 10 digits whose Luhn check with the prefix 80840 holds; random Unix times pass
#: it one time in ten, a column of NPIs every time. Told apart from at least this many
#: distinct values.
NPI_SHARE = 0.9
NPI_MIN = 5

_DATE_WORDS = frozenset(
    {"dob", "dod", "dt", "dttm", "date", "dates", "datetime", "timestamp", "time", "day"}
    | {"birth", "birthday", "bday", "fecha", "datum"}
)
_NOT_DATES = frozenset({"update", "candidate", "validate", "mandate", "accommodate"})
_LAST_WORDS = frozenset({"on", "at", "when"})
_TEXT = pa.large_string()
_MAX_LEN = 48  # no date shape is longer


def name_says_date(column: str | None) -> bool:
    """True when a column name reads as a date (``visit_date``, ``DOB``, ``admitted_on``)."""
    if not column:
        return False
    spaced = re.sub(r"([a-z])([A-Z])", r"\1_\2", column)
    words = [w for w in re.split(r"[^a-z]+", spaced.lower()) if w]
    if not words:
        return False
    if words[-1] in _LAST_WORDS or any(w in _DATE_WORDS for w in words):
        return True
    return any((w.endswith("date") or w.endswith("dt")) and w not in _NOT_DATES for w in words)


def _arrow(values: pd.Series) -> pa.ChunkedArray:
    arr = values.array
    if hasattr(arr, "__arrow_array__"):
        col = pa.chunked_array(arr.__arrow_array__())
    else:
        col = pa.chunked_array([pa.array(values.astype(object).where(values.notna(), None))])
    if not pa.types.is_string(col.type) and not pa.types.is_large_string(col.type):
        col = pc.cast(col, pa.string()) if pa.types.is_integer(col.type) else col
        if not pa.types.is_string(col.type) and not pa.types.is_large_string(col.type):
            col = pc.cast(col, pa.string())
    return pc.utf8_trim_whitespace(col)


def _match(col: pa.ChunkedArray, pattern: str) -> np.ndarray:
    hit = pc.match_substring_regex(col, f"^(?:{pattern})$", ignore_case=True)
    return pc.fill_null(hit, False).to_numpy(zero_copy_only=False)


def _candidates(col: pa.ChunkedArray) -> np.ndarray:
    """Values worth testing: short, holding a digit (every date shape has one)."""
    short = pc.less_equal(pc.utf8_length(col), _MAX_LEN)
    digit = pc.match_substring_regex(col, r"\d")
    both = pc.and_(short, digit)
    return pc.fill_null(both, False).to_numpy(zero_copy_only=False)


def _serial_mask(col: pa.ChunkedArray, candidates: np.ndarray) -> np.ndarray:
    """Values of a serial-number date column; all False unless most values are serials."""
    numeric = _match(col, _SERIAL) & candidates
    present = int(pc.sum(pc.is_valid(col)).as_py() or 0)
    if not numeric.any() or present == 0:
        return np.zeros(len(col), dtype=bool)
    idx = np.flatnonzero(numeric)
    taken = pc.take(col, pa.array(idx)).combine_chunks()
    numbers = pc.cast(taken, pa.float64()).to_numpy(zero_copy_only=False)
    in_range = (numbers >= SERIAL_MIN) & (numbers <= SERIAL_MAX)
    typical = in_range & (numbers >= SERIAL_TYPICAL)
    if typical.sum() < SERIAL_SHARE * present:
        return np.zeros(len(col), dtype=bool)
    mask = np.zeros(len(col), dtype=bool)
    mask[idx[in_range]] = True
    return mask


def _npi_valid(digits: np.ndarray) -> np.ndarray:
    """Which 10-digit numbers (int64) pass the NPI check digit (Luhn over 80840 + 9 digits)."""
    body = digits // 10
    check = digits % 10
    total = np.full(len(digits), 24, dtype=np.int64)  # the prefix 80840's Luhn sum
    for position in range(9):  # rightmost body digit doubled first
        d = (body // 10**position) % 10
        if position % 2 == 0:
            d = d * 2
            d = np.where(d > 9, d - 9, d)
        total += d
    return (10 - total % 10) % 10 == check


def _unix_mask(col: pa.ChunkedArray, candidates: np.ndarray) -> np.ndarray:
    """Values of a column of Unix times; all False unless most values are (and they are
    not mostly NPIs)."""
    hit = _match(col, _UNIX) & candidates
    present = int(pc.sum(pc.is_valid(col)).as_py() or 0)
    if present == 0 or hit.sum() < UNIX_SHARE * present:
        return np.zeros(len(col), dtype=bool)
    idx = np.flatnonzero(hit)
    taken = pc.take(col, pa.array(idx)).combine_chunks()
    seconds = pc.cast(taken, pa.float64()).to_numpy(zero_copy_only=False)
    seconds = np.where(seconds > 1e11, seconds / 1000.0, seconds)
    in_range = seconds <= UNIX_SECONDS_MAX
    if in_range.sum() < UNIX_SHARE * present:
        return np.zeros(len(col), dtype=bool)
    whole = np.floor(seconds).astype(np.int64)
    # distinct values: one Unix time repeated is as likely to pass the check as any other
    ten = np.unique(whole[(seconds == whole) & (whole < 10**10)])
    if len(ten) >= NPI_MIN and _npi_valid(ten).mean() >= NPI_SHARE:
        return np.zeros(len(col), dtype=bool)
    mask = np.zeros(len(col), dtype=bool)
    mask[idx[in_range]] = True
    return mask


def _compact_mask(col: pa.ChunkedArray, candidates: np.ndarray) -> np.ndarray:
    """Values of a column of compact year-months or dates; all False unless nearly all
    its values are."""
    hit = _match(col, COMPACT_PATTERN) & candidates
    present = int(pc.sum(pc.is_valid(col)).as_py() or 0)
    if present < COMPACT_MIN or hit.sum() < COMPACT_SHARE * present:
        return np.zeros(len(col), dtype=bool)
    return hit


def _month_day_mask(col: pa.ChunkedArray, candidates: np.ndarray, named: bool) -> np.ndarray:
    """Values of a column of month-and-day numbers (``MONTH_DAY``); all False unless
    nearly all its values are, with the spread of days a calendar has."""
    none = np.zeros(len(col), dtype=bool)
    hit = _match(col, _MONTH_DAY) & candidates
    present = int(pc.sum(pc.is_valid(col)).as_py() or 0)
    if present < COMPACT_MIN or hit.sum() < (0.5 if named else MONTH_DAY_SHARE) * present:
        return none
    idx = np.flatnonzero(hit)
    parts = pc.extract_regex(pc.take(col, pa.array(idx)), r"^(?P<a>\d{1,2})[/-](?P<b>\d{1,2})$")
    a = pc.cast(pc.struct_field(parts, "a"), pa.int16()).to_numpy(zero_copy_only=False)
    b = pc.cast(pc.struct_field(parts, "b"), pa.int16()).to_numpy(zero_copy_only=False)
    month_first = (a >= 1) & (a <= 12) & (b >= 1) & (b <= 31)
    day_first = (b >= 1) & (b <= 12) & (a >= 1) & (a <= 31)
    # one order for the whole column: the one more of its values are valid in
    month, day, ok = (
        (a, b, month_first) if month_first.sum() >= day_first.sum() else (b, a, day_first)
    )
    if ok.sum() < (0.5 if named else MONTH_DAY_SHARE) * present:
        return none
    days, months = np.unique(day[ok]), np.unique(month[ok])
    if not named and (
        len(days) < MONTH_DAY_DAYS or days.max() <= 12 or len(months) < MONTH_DAY_MONTHS
    ):
        return none
    none[idx[ok]] = True
    return none


def _month_name_mask(col: pa.ChunkedArray) -> np.ndarray:
    """Values of a column of month names alone (``MONTH_NAME``); all False unless nine
    in ten of its values are, three different months at least."""
    none = np.zeros(len(col), dtype=bool)
    present = int(pc.sum(pc.is_valid(col)).as_py() or 0)
    if present < COMPACT_MIN:
        return none
    hit = _match(col, _MON)
    if hit.sum() < COMPACT_SHARE * present:
        return none
    firsts = pc.utf8_slice_codeunits(pc.utf8_lower(pc.filter(col, pa.array(hit))), 0, 3)
    if len(pc.unique(firsts)) < COMPACT_MIN:
        return none
    return hit


def serial_to_date(serial: float, *, system: int = 1900) -> date:
    """The day an Excel serial number stands for (``system`` 1900 or 1904)."""
    from datetime import timedelta

    if system == 1904:
        return EPOCH_1904 + timedelta(days=int(serial))
    if serial < 61:  # before Excel's phantom 1900-02-29
        return date(1899, 12, 31) + timedelta(days=int(serial))
    return EPOCH_1900 + timedelta(days=int(serial))


_ANY_SHAPE = "|".join(f"(?:{pattern})" for pattern in SHAPES.values())


def _masks(values: pd.Series, column: str | None) -> tuple[pa.ChunkedArray, np.ndarray, np.ndarray]:
    """(the column as Arrow, values of a general shape, values of the column-wide shapes:
    Unix times and columns of compact year-months or dates in any column, compact dates
    and serials in a date-named one)."""
    n = len(values)
    none = np.zeros(n, dtype=bool)
    if n == 0:
        return pa.chunked_array([], type=_TEXT), none, none
    col = _arrow(values)
    candidates = _candidates(col)
    if not candidates.any():
        if column is not None and (months := _month_name_mask(col)).any():
            return col, none, months
        return col, none, none
    general = _match(col, _ANY_SHAPE) & candidates
    rest = candidates & ~general
    special = _unix_mask(col, rest) if rest.any() else none
    rest &= ~special
    if rest.any():
        special = special | _compact_mask(col, rest)
        rest &= ~special
    if column is not None and rest.any():
        special = special | _month_day_mask(col, rest, name_says_date(column))
        rest &= ~special
    if name_says_date(column) and rest.any():
        special = special | (_match(col, _COMPACT) & rest) | _serial_mask(col, rest)
    return col, general, special


def date_shape_of(values: pd.Series, *, column: str | None = None) -> pd.Series:
    """For each value, the name of the date shape it has (a key of ``SHAPES``,
    ``UNIX_TIME``, ``COMPACT_DATE`` or ``EXCEL_SERIAL``), or <NA> when it is not a date
    finer than a year.

    ``column`` (the column's name) enables the two shapes that are dates only in a
    date-named column. The shapes are told apart only among the values found to be dates.
    """
    labels = np.full(len(values), None, dtype=object)
    col, general, special = _masks(values, column)
    if general.any():
        where = np.flatnonzero(general)
        sub = pc.take(col, pa.array(where))
        todo = np.ones(len(where), dtype=bool)
        for label, pattern in SHAPES.items():
            hit = _match(sub, pattern) & todo
            labels[where[hit]] = label
            todo &= ~hit
            if not todo.any():
                break
    if special.any():
        unix = _match(col, _UNIX) & special
        compact = _match(col, _COMPACT) & special & ~unix
        year_month = _match(col, rf"{_Y4}{_MM2}") & special & ~unix & ~compact
        month_day = _match(col, _MONTH_DAY) & special & ~unix & ~compact & ~year_month
        month_name = _match(col, _MON) & special
        labels[unix] = UNIX_TIME
        labels[compact] = COMPACT_DATE
        labels[year_month] = COMPACT_YEAR_MONTH
        labels[month_day] = MONTH_DAY
        labels[month_name] = MONTH_NAME
        labels[special & ~compact & ~unix & ~year_month & ~month_day & ~month_name] = EXCEL_SERIAL
    return pd.Series(labels, index=values.index, dtype="string")


def finer_than_year(values: pd.Series, *, column: str | None = None) -> np.ndarray:
    """Boolean mask: which values state a date element finer than the year."""
    _col, general, special = _masks(values, column)
    return general | special


def count_finer_than_year(values: pd.Series, *, column: str | None = None) -> int:
    """How many values state a date element finer than the year."""
    return int(finer_than_year(values, column=column).sum())


def shape_counts(values: pd.Series, *, column: str | None = None) -> dict[str, int]:
    """Shape label -> how many values have it (no value is returned, only counts)."""
    counts = date_shape_of(values, column=column).value_counts(dropna=True)
    return {str(k): int(v) for k, v in counts.items()}
