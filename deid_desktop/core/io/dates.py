"""Date columns: find the one format a column is written in, then parse it on purpose.

Every non-missing value is checked (vectorised with pyarrow compute and numpy, so a
million values take well under a second). A column whose values fit two formats
(month/day or day/month), mix formats, or hold a value that is not a real date is an
error naming the column and the first offending line - never a silent guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import InputError
from deid_desktop.core.facts.text import one_array
from deid_desktop.core.io.datetokens import Tokens, tokenize


@dataclass(frozen=True)
class _Shape:
    order: str  # "ymd", "mdy" or "dmy"
    sep: str  # between date parts
    time: str  # "", " %H:%M:%S", "T%H:%M:%S", " %H:%M", "T%H:%M"

    @property
    def fmt(self) -> str:
        parts = {"y": "%Y", "m": "%m", "d": "%d"}
        return self.sep.join(parts[c] for c in self.order) + self.time

    @property
    def date_shape(self) -> _Shape:
        return _Shape(self.order, self.sep, "")


_TIMES_ISO = ("", " %H:%M:%S", "T%H:%M:%S", " %H:%M", "T%H:%M", "T%H:%M:%SZ")
_TIMES = ("", " %H:%M:%S", " %H:%M")
_SHAPES: tuple[_Shape, ...] = (
    *(_Shape("ymd", "-", t) for t in _TIMES_ISO),
    *(_Shape("ymd", "/", t) for t in _TIMES),
    *(_Shape(o, s, t) for s in ("/", "-", ".") for o in ("mdy", "dmy") for t in _TIMES),
)
_BY_FMT = {shape.fmt: shape for shape in _SHAPES}

_ORDER_NAMES = {"ymd": "year-month-day", "mdy": "US month/day/year", "dmy": "day/month/year"}
_EXAMPLE = datetime(2024, 1, 31, 14, 5, 0)


def _label(shape: _Shape) -> str:
    iso = shape.order == "ymd" and shape.sep == "-"
    name = "ISO" if iso else _ORDER_NAMES[shape.order]
    if shape.time:
        name += " date and time"
    if shape.time.endswith("Z"):
        name += " in UTC"
    return f"{name} ({_EXAMPLE.strftime(shape.fmt)})"


#: strptime format -> how it is shown to the user, e.g. "%Y-%m-%d" -> "ISO (2024-01-31)".
DATE_FORMAT_LABELS: dict[str, str] = {shape.fmt: _label(shape) for shape in _SHAPES}

_TIME_RE = {
    "": "",
    " %H:%M:%S": r" \d{1,2}:\d{2}:\d{2}",
    "T%H:%M:%S": r"T\d{1,2}:\d{2}:\d{2}",
    " %H:%M": r" \d{1,2}:\d{2}",
    "T%H:%M": r"T\d{1,2}:\d{2}",
    "T%H:%M:%SZ": r"T\d{1,2}:\d{2}:\d{2}Z",  # UTC, as Synthea and many APIs write it
}
#: The format of a column with no value (nothing to infer from).
DEFAULT_FORMAT = "%Y-%m-%d"
_KNOWN = "ISO 2024-01-31, 01/31/2024, 31/01/2024, 31-01-2024, 31.01.2024 or 2024/01/31"


@dataclass(frozen=True)
class _Pattern:
    """A written layout: year first or last, a separator, a time part."""

    year_first: bool
    sep: str
    time: str

    @property
    def regex(self) -> str:
        s = "\\" + self.sep
        head = (
            rf"\d{{4}}{s}\d{{1,2}}{s}\d{{1,2}}"
            if self.year_first
            else (rf"\d{{1,2}}{s}\d{{1,2}}{s}\d{{4}}")
        )
        return f"^{head}{_TIME_RE[self.time]}$"

    def shapes(self) -> tuple[_Shape, ...]:
        orders = ("ymd",) if self.year_first else ("mdy", "dmy")
        return tuple(_Shape(o, self.sep, self.time) for o in orders)


_PATTERNS: tuple[_Pattern, ...] = (
    _Pattern(True, "-", ""),
    _Pattern(False, "/", ""),
    *(_Pattern(True, "-", t) for t in _TIMES_ISO[1:]),
    *(_Pattern(False, "/", t) for t in _TIMES[1:]),
    *(_Pattern(True, "/", t) for t in _TIMES),
    *(_Pattern(False, s, t) for s in ("-", ".") for t in _TIMES),
)


_COMPILED = tuple(re.compile(p.regex) for p in _PATTERNS)
_DATE_ONLY = np.array([_PATTERNS.index(_Pattern(p.year_first, p.sep, "")) for p in _PATTERNS])


def _line(position: int) -> int:
    """File line of the 0-based data row ``position`` (header = line 1)."""
    return int(position) + 2


def _present(values: pd.Series) -> tuple[pa.Array, np.ndarray]:
    """The non-missing values (one Arrow large_string array) and their row positions."""
    arr = pa.chunked_array(pa.array(values.astype("string[pyarrow]").array))
    if arr.type != pa.large_string():
        arr = arr.cast(pa.large_string())
    if not arr.null_count:
        return one_array(arr), np.arange(len(arr))
    valid = pc.is_valid(arr)
    positions = np.flatnonzero(valid.to_numpy(zero_copy_only=False))
    return one_array(arr.filter(valid)), positions


def _classify(arr: pa.Array, tokens: Tokens) -> np.ndarray:
    """Index into ``_PATTERNS`` for every value, -1 for a value in no known layout."""
    shapes = tokens.shape
    if len(shapes) and (shapes == shapes[0]).all():  # one shape (the usual column)
        kinds, inverse = shapes[:1], None
    else:
        kinds, inverse = np.unique(shapes, return_inverse=True)
    lookup = np.full(len(kinds), -1, dtype=np.int64)
    for i, kind in enumerate(kinds):
        if kind < 0:
            continue
        text = arr[tokens.representative[int(kind)]].as_py()
        for k, regex in enumerate(_COMPILED):
            if regex.fullmatch(text):
                lookup[i] = k
                break
    if inverse is None:
        return np.full(len(shapes), lookup[0], dtype=np.int64)
    return lookup[inverse.reshape(-1)]


def _not_dates(
    arr: pa.Array, bad: np.ndarray, positions: np.ndarray, *, file: str, column: str
) -> InputError:
    same = pc.count_distinct(arr.take(pa.array(bad[:10_000]))).as_py() == 1
    noun = "value is" if len(bad) == 1 else "values are"
    hint = f"Known date formats: {_KNOWN}, with or without a time. "
    if same and len(bad) > 1:
        hint += "Those cells all hold the same text - perhaps a code for 'unknown'. "
    hint += "Fix or clear those cells, or tag the column as something other than a date."
    return InputError(
        f"{len(bad)} {noun} not a date in a known format; the first one is at",
        file=file,
        column=column,
        row=_line(positions[bad[0]]),
        hint=hint,
    )


def _mixed(labels: list[str], position: int, *, file: str, column: str) -> InputError:
    return InputError(
        f"Dates are written in more than one format: {'; '.join(labels)}. The first that "
        "differs from the most common one is at",
        file=file,
        column=column,
        row=_line(position),
        hint="Make the column use one format in the source, then load it again.",
    )


def _pattern_label(pattern: _Pattern) -> str:
    return " or ".join(DATE_FORMAT_LABELS[s.fmt] for s in pattern.shapes())


def infer_date_format(values: pd.Series, *, file: str, column: str) -> str:
    """The one strptime format every non-missing value is written in.

    Every value is checked. A column may mix bare dates with dates that carry a time of
    day in the same layout (Excel writes midnight as a bare date); the format with the
    time is returned then. Raises ``InputError`` for a value in no known format, for
    mixed formats, for month/day vs day/month ambiguity and for impossible dates.
    """
    arr, positions = _present(values)
    if not len(arr):
        return DEFAULT_FORMAT
    tokens = tokenize(arr)
    shape = _infer_shape(arr, tokens, positions, file=file, column=column)
    _to_datetimes(tokens, shape, positions, file=file, column=column)  # real dates only
    return shape.fmt


#: A column of at least this many rows with at most a quarter as many distinct values
#: is read by its distinct values (a million visit dates hold a few thousand days).
_DISTINCT_FROM = 4096


def read_dates(
    values: pd.Series, fmt: str | None = None, *, file: str = "", column: str = ""
) -> tuple[str, pd.Series]:
    """The column's format and its values parsed: ``parse_dates(values, fmt)``, or when
    ``fmt`` is None ``infer_date_format`` then ``parse_dates`` - reading the values once.
    Same results and errors as those two.

    A long column of few distinct values is read by those values, each once: the format
    is inferred from which layouts occur (never from how often), and each value is read
    alone, so the result is the same. On an error the whole column is read again, so
    that the message names the same first line and counts as before."""
    distinct = _distinct(values)
    if distinct is not None:
        texts, index = distinct
        try:
            found, parsed = _read_dates(texts, fmt, file=file, column=column)
        except InputError:
            pass  # the column read in full raises it with its own line numbers
        else:
            return found, _spread(parsed, index, values)
    return _read_dates(values, fmt, file=file, column=column)


def _spread(parsed: pd.Series, index: np.ndarray, values: pd.Series) -> pd.Series:
    """The dates of the distinct values put back on every row of ``values``."""
    stamps = np.append(parsed.to_numpy(dtype="datetime64[ns]"), np.datetime64("NaT"))
    return pd.Series(stamps[index], index=values.index, name=values.name)


def _distinct(values: pd.Series) -> tuple[pd.Series, np.ndarray] | None:
    """The distinct filled values of a long column with few of them, and each row's
    position among them (the last position + 1 for a missing value); else None."""
    if len(values) < _DISTINCT_FROM:
        return None
    arr = one_array(pa.array(values.astype("string[pyarrow]").array))
    encoded = pc.dictionary_encode(arr)
    if 4 * len(encoded.dictionary) > len(values):
        return None
    n = len(encoded.dictionary)
    index = pc.fill_null(encoded.indices, n).to_numpy(zero_copy_only=False).astype(np.int64)
    texts = pd.Series(pd.arrays.ArrowStringArray(encoded.dictionary.cast(pa.large_string())))
    return texts, index


def _read_dates(
    values: pd.Series, fmt: str | None, *, file: str, column: str
) -> tuple[str, pd.Series]:
    if fmt is not None:
        return fmt, parse_dates(values, fmt, file=file, column=column)
    arr, positions = _present(values)
    if not len(arr):
        return DEFAULT_FORMAT, parse_dates(values, DEFAULT_FORMAT, file=file, column=column)
    tokens = tokenize(arr)
    shape = _infer_shape(arr, tokens, positions, file=file, column=column)
    stamps = _to_datetimes(tokens, shape, positions, file=file, column=column)
    return shape.fmt, _series(stamps, positions, values)


def _series(stamps: np.ndarray, positions: np.ndarray, values: pd.Series) -> pd.Series:
    """``stamps`` of the values at ``positions`` as a Series like ``values`` (NaT else)."""
    if len(positions) == len(values):
        out = stamps
    else:
        out = np.full(len(values), np.datetime64("NaT"), dtype="datetime64[ns]")
        out[positions] = stamps
    return pd.Series(out, index=values.index, name=values.name)


def _infer_shape(
    arr: pa.Array, tokens: Tokens, positions: np.ndarray, *, file: str, column: str
) -> _Shape:
    """The one shape all values fit (see ``infer_date_format``); dates not yet checked."""
    codes = _classify(arr, tokens)
    if (codes < 0).any():
        raise _not_dates(arr, np.flatnonzero(codes < 0), positions, file=file, column=column)
    # 1. One date layout (year first or last, separator) for the whole column.
    layout = _DATE_ONLY[codes]
    kinds, counts = np.unique(layout, return_counts=True)
    main = int(kinds[np.argmax(counts)])
    if len(kinds) > 1:
        labels = [_pattern_label(_PATTERNS[int(k)]) for k in kinds]
        first = positions[np.flatnonzero(layout != main)[0]]
        raise _mixed(labels, first, file=file, column=column)
    # 2. At most one time-of-day form besides bare dates.
    timed = np.unique(codes[codes != main])
    if len(timed) > 1:
        labels = [_pattern_label(_PATTERNS[int(k)]) for k in timed]
        first = positions[np.flatnonzero((codes != main) & (codes != timed[0]))[0]]
        raise _mixed(labels, first, file=file, column=column)
    pattern = _PATTERNS[int(timed[0])] if len(timed) else _PATTERNS[main]
    shapes = pattern.shapes()
    if len(shapes) == 1:
        return shapes[0]
    return _resolve_order(tokens, positions, pattern, file=file, column=column)


def _resolve_order(
    tokens: Tokens, positions: np.ndarray, pattern: _Pattern, *, file: str, column: str
) -> _Shape:
    """Month/day or day/month, from values whose first or second number exceeds 12."""
    first, second = tokens.numbers[:, 0], tokens.numbers[:, 1]
    mdy, dmy = pattern.shapes()
    day_first = first > 12
    month_first = second > 12
    if day_first.any() and month_first.any():
        minority = day_first if day_first.sum() <= month_first.sum() else month_first
        raise _mixed(
            [DATE_FORMAT_LABELS[mdy.fmt], DATE_FORMAT_LABELS[dmy.fmt]],
            positions[np.flatnonzero(minority)[0]],
            file=file,
            column=column,
        )
    if day_first.any():
        return dmy
    if month_first.any():
        return mdy
    if not (first != second).any():  # day == month everywhere: both read the same
        return mdy if pattern.sep == "/" else dmy
    raise InputError(
        "Dates could be month/day or day/month: no day in the column is above 12, so both "
        f"{DATE_FORMAT_LABELS[mdy.fmt]} and {DATE_FORMAT_LABELS[dmy.fmt]} fit",
        file=file,
        column=column,
        hint="Choose the format for this column when tagging it (its date format).",
    )


#: Years a datetime64[ns] holds in full; outside them a value is refused.
_FIRST_YEAR, _LAST_YEAR = 1678, 2261
_YEARS = np.arange(_FIRST_YEAR, _LAST_YEAR + 1)
_LEAP = ((_YEARS % 4 == 0) & ((_YEARS % 100 != 0) | (_YEARS % 400 == 0))).astype(np.int64)
#: Days from 1970-01-01 to 1 January of each year.
_YEAR_START = (_YEARS - 1970).astype("datetime64[Y]").astype("datetime64[D]").astype(np.int64)
_MONTH_DAYS = np.array(
    [
        [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
        [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
    ],
    dtype=np.int64,
)
#: [leap][month] -> days in the year before that month's first day.
_MONTH_START = np.concatenate(
    [np.zeros((2, 1), np.int64), np.cumsum(_MONTH_DAYS, axis=1)[:, :-1]], axis=1
)


def _to_datetimes(
    tokens: Tokens, shape: _Shape, positions: np.ndarray, *, file: str, column: str
) -> np.ndarray:
    """datetime64[ns] from the numbers; raises for an impossible date or time.

    Table look-ups by year and month (no calendar arithmetic per value).
    """
    where = {c: i for i, c in enumerate(shape.order)}
    numbers = tokens.numbers
    year, month, day = (numbers[:, where[c]] for c in "ymd")
    hour, minute, second = numbers[:, 3], numbers[:, 4], numbers[:, 5]
    ok = (year >= _FIRST_YEAR) & (year <= _LAST_YEAR) & (month >= 1) & (month <= 12)
    ok &= day >= 1
    ok &= (hour < 24) & (minute < 60) & (second < 60)
    row = np.where(ok, year - _FIRST_YEAR, 0)
    known_month = np.where(ok, month, 1)
    leap = _LEAP[row]
    ok &= day <= _MONTH_DAYS[leap, known_month]
    if not ok.all():
        bad = np.flatnonzero(~ok)
        noun = "value is" if len(bad) == 1 else "values are"
        raise InputError(
            f"{len(bad)} {noun} not a real date or time (such as 30 February, month 13, "
            "hour 25, or a year before 1678 or after 2261); the first one is at",
            file=file,
            column=column,
            row=_line(positions[bad[0]]),
            hint="Fix those cells in the source, then load it again.",
        )
    seconds = (_YEAR_START[row] + _MONTH_START[leap, known_month] + (day - 1)) * 86400
    if shape.time:
        seconds += hour * 3600 + minute * 60 + second
    return (seconds * 1_000_000_000).view("datetime64[ns]")


def parse_dates(values: pd.Series, fmt: str, *, file: str = "", column: str = "") -> pd.Series:
    """``values`` as datetime64[ns] (NaT where missing), read with ``fmt``.

    A value that does not follow ``fmt`` or is not a real date raises ``InputError``;
    nothing is silently turned into NaT. A format with a time also reads bare dates.
    A long column of few distinct values is read by those values (as ``read_dates``).
    """
    distinct = _distinct(values)
    if distinct is not None:
        texts, index = distinct
        try:
            parsed = _parse_dates(texts, fmt, file=file, column=column)
        except InputError:
            pass  # the column read in full raises it with its own line numbers
        else:
            return _spread(parsed, index, values)
    return _parse_dates(values, fmt, file=file, column=column)


def _parse_dates(values: pd.Series, fmt: str, *, file: str, column: str) -> pd.Series:
    shape = _BY_FMT.get(fmt)
    if shape is None:
        raise InputError(
            f"Unknown date format {fmt!r}",
            file=file or None,
            column=column or None,
            hint="Use one of: " + ", ".join(DATE_FORMAT_LABELS.values()),
        )
    arr, positions = _present(values)
    if not len(arr):
        return _series(np.empty(0, dtype="datetime64[ns]"), positions, values)
    tokens = tokenize(arr)
    codes = _classify(arr, tokens)
    allowed = [
        k
        for k, p in enumerate(_PATTERNS)
        if p.year_first == (shape.order == "ymd")
        and p.sep == shape.sep
        and p.time in ("", shape.time)
    ]
    fits = np.isin(codes, allowed)
    if not fits.all():
        bad = np.flatnonzero(~fits)
        noun = "value does" if len(bad) == 1 else "values do"
        raise InputError(
            f"{len(bad)} {noun} not follow the column's date format, "
            f"{DATE_FORMAT_LABELS[shape.fmt]}; the first one is at",
            file=file or None,
            column=column or None,
            row=_line(positions[bad[0]]),
            hint="Fix those cells, or choose another date format for the column.",
        )
    stamps = _to_datetimes(tokens, shape, positions, file=file, column=column)
    return _series(stamps, positions, values)
