"""Built-in generalization hierarchies, built for the values a column actually holds.

Each builder returns an ARX-format ``Hierarchy`` with one row per distinct value of the
column (so every value is covered and the hierarchy can be exported, edited in ARX and
read back):

- ``age``: value, 5-year band, 10-year band, 20-year band, ``*``; ages of 90 and over
  (and a top-coded ``90+``) stay one group ``90+`` at every band level.
- ``year``: value, 5-year span, decade, ``*``. ``date``: value, year, 5-year span,
  decade, ``*`` (dates read by ``core/io/dates``: one format per column).
- ``zip``: 5-digit ZIP, ZIP3 (Safe Harbor's: a prefix of 20,000 people or fewer is
  ``000``, from the bundled Census table), ``000``. A column already holding ZIP3s: value, ``000``.
- ``sex``: value, ``*``.
- ``race`` (OMB categories, then pooled), ``ethnicity`` (Hispanic or Latino or not, then
  pooled), ``marital`` (status, married or not, ``*``), ``education`` (ordered levels:
  less than high school ... graduate degree, then college degree or not, ``*``): the
  values are looked up, case- and space-insensitively, in the tables of
  ``resources/hierarchies/`` (provenance there); a value not in the table goes to
  ``Other or unknown`` at every level but the last.
- ``icd10``: code, 3-character category, block, chapter, ``*`` (ICD-10-CM tables of
  resources/hierarchies/icd10cm_categories.csv; codes with or without the dot).
- ``icd9``: code, 3-character category (4 for E codes), chapter, ``*``.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from functools import lru_cache

import pandas as pd

from deid_desktop.core.errors import InputError, UsageError
from deid_desktop.core.resources import resource
from deid_desktop.core.risk.hierarchy import Hierarchy, validate

TOP = "*"
OTHER = "Other or unknown"
UNLISTED = "Not in the code list"
_AGE_TOP = 90
_TOP_CODED = re.compile(r"^\s*(\d+)\s*\+\s*$")


def _distinct(series: pd.Series) -> list[str]:
    values = series.dropna().astype("string").unique()
    return sorted(str(v) for v in values)


def _bad(column: str, count: int, what: str, hint: str) -> InputError:
    return InputError(f"{count} value(s) are not {what}", column=column, hint=hint)


def _band(value: int, width: int) -> str:
    lo = value // width * width
    hi = min(lo + width - 1, _AGE_TOP - 1)
    return f"{lo}-{hi}"


def age_hierarchy(series: pd.Series, column: str = "") -> Hierarchy:
    """Ages in 5-, 10- and 20-year bands, 90 and over pooled as ``90+``."""
    name = column or str(series.name)
    rows = []
    bad = 0
    for value in _distinct(series):
        text = value.strip()
        top = _TOP_CODED.match(text)
        number = int(top.group(1)) if top else (int(text) if text.isdigit() else None)
        if number is None:
            bad += 1
            continue
        if number >= _AGE_TOP or top:
            rows.append((value, "90+", "90+", "90+", TOP))
        else:
            rows.append((value, _band(number, 5), _band(number, 10), _band(number, 20), TOP))
    if bad:
        raise _bad(name, bad, "whole-number ages", "Ages must be whole numbers (or 90+).")
    return Hierarchy(name, validate(rows, name="built-in ages"), source="built-in: ages")


def _year_levels(year: int) -> tuple[str, str]:
    five = year // 5 * 5
    decade = year // 10 * 10
    return f"{five}-{five + 4}", f"{decade}-{decade + 9}"


def year_hierarchy(series: pd.Series, column: str = "") -> Hierarchy:
    """Years, then 5-year spans, then decades."""
    name = column or str(series.name)
    rows = []
    bad = 0
    for value in _distinct(series):
        text = value.strip()
        if not re.fullmatch(r"\d{4}", text):
            bad += 1
            continue
        rows.append((value, *_year_levels(int(text)), TOP))
    if bad:
        raise _bad(name, bad, "4-digit years", "Tag the column as a date if it holds dates.")
    return Hierarchy(name, validate(rows, name="built-in years"), source="built-in: years")


def date_hierarchy(series: pd.Series, column: str = "", fmt: str | None = None) -> Hierarchy:
    """Dates, then the year, 5-year spans and decades."""
    from deid_desktop.core.io.dates import read_dates

    name = column or str(series.name)
    values = _distinct(series)
    _, parsed = read_dates(pd.Series(values, dtype="string"), fmt, column=name)
    years = parsed.dt.year.to_numpy()
    rows = [
        (v, str(int(y)), *_year_levels(int(y)), TOP) for v, y in zip(values, years, strict=True)
    ]
    return Hierarchy(name, validate(rows, name="built-in dates"), source="built-in: dates")


def zip_hierarchy(series: pd.Series, column: str = "") -> Hierarchy:
    """5-digit ZIPs, then Safe Harbor's ZIP3 (restricted prefixes as 000), then 000."""
    from deid_desktop.core.zip3 import load_bundled_zip3, zip3_or_000

    name = column or str(series.name)
    values = _distinct(series)
    if values and all(re.fullmatch(r"\d{3}", v.strip()) for v in values):
        rows = [(v, "000") for v in values]
        return Hierarchy(name, validate(rows, name="built-in ZIP3"), source="built-in: ZIP3")
    zip3 = zip3_or_000(pd.Series(values, dtype="string"), load_bundled_zip3()).tolist()
    rows = [(v, str(z), "000") for v, z in zip(values, zip3, strict=True)]
    return Hierarchy(name, validate(rows, name="built-in ZIP"), source="built-in: ZIP")


def sex_hierarchy(series: pd.Series, column: str = "") -> Hierarchy:
    """Sex, then pooled."""
    name = column or str(series.name)
    rows = [(v, TOP) for v in _distinct(series)]
    return Hierarchy(name, validate(rows, name="built-in sex"), source="built-in: sex")


@lru_cache(maxsize=8)
def _lookup(table: str) -> tuple[dict[str, tuple[str, ...]], int]:
    with resource("hierarchies", table).open(encoding="utf-8", newline="") as fh:
        rows = [row for row in csv.reader(fh, delimiter=";") if row]
    return {_norm(r[0]): tuple(r[1:]) for r in rows}, len(rows[0]) - 1


def _norm(text: str) -> str:
    return " ".join(text.strip().lower().replace("_", " ").split())


def table_hierarchy(series: pd.Series, table: str, column: str = "") -> Hierarchy:
    """A categorical column generalized through a shipped lookup table."""
    name = column or str(series.name)
    lookup, width = _lookup(table)
    other = tuple([OTHER] * (width - 1) + [TOP])
    rows = [(v, *lookup.get(_norm(v), other)) for v in _distinct(series)]
    return Hierarchy(name, validate(rows, name=table), source=f"built-in: {table}")


@lru_cache(maxsize=1)
def _icd10_table() -> dict[str, tuple[str, str]]:
    with resource("hierarchies", "icd10cm_categories.csv").open(encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter=";"))[1:]
    return {r[0]: (r[1], r[2]) for r in rows if r}


def icd10_hierarchy(series: pd.Series, column: str = "") -> Hierarchy:
    """ICD-10 codes: code, 3-character category, block, chapter, pooled."""
    name = column or str(series.name)
    table = _icd10_table()
    rows = []
    for value in _distinct(series):
        code = value.strip().upper().replace(".", "")
        category = code[:3] if len(code) >= 3 else code
        block, chapter = table.get(category, (UNLISTED, UNLISTED))
        rows.append((value, category, block, chapter, TOP))
    return Hierarchy(name, validate(rows, name="built-in ICD-10"), source="built-in: ICD-10-CM")


@lru_cache(maxsize=1)
def _icd9_chapters() -> tuple[tuple[str, str, str], ...]:
    with resource("hierarchies", "icd9cm_chapters.csv").open(encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter=";"))[1:]
    return tuple((r[0], r[1], r[2]) for r in rows if r)


def _icd9_chapter(category: str) -> str:
    for first, last, chapter in _icd9_chapters():
        same_kind = first[0].isdigit() == category[:1].isdigit() and (
            first[0].isdigit() or first[0] == category[:1]
        )
        if same_kind and len(category) == len(first) and first <= category <= last:
            return chapter
    return UNLISTED


def icd9_hierarchy(series: pd.Series, column: str = "") -> Hierarchy:
    """ICD-9-CM codes: code, category (3 characters, 4 for E codes), chapter, pooled."""
    name = column or str(series.name)
    rows = []
    for value in _distinct(series):
        code = value.strip().upper().replace(".", "")
        category = code[:4] if code.startswith("E") else code[:3]
        rows.append((value, category, _icd9_chapter(category), TOP))
    return Hierarchy(name, validate(rows, name="built-in ICD-9"), source="built-in: ICD-9-CM")


BUILDERS: dict[str, Callable[[pd.Series, str], Hierarchy]] = {
    "age": age_hierarchy,
    "year": year_hierarchy,
    "date": date_hierarchy,
    "zip": zip_hierarchy,
    "sex": sex_hierarchy,
    "race": lambda s, c="": table_hierarchy(s, "race.csv", c),
    "ethnicity": lambda s, c="": table_hierarchy(s, "ethnicity.csv", c),
    "marital": lambda s, c="": table_hierarchy(s, "marital_status.csv", c),
    "education": lambda s, c="": table_hierarchy(s, "education.csv", c),
    "icd10": icd10_hierarchy,
    "icd9": icd9_hierarchy,
}

#: Column-name cues for a built-in, in order; the first that matches wins.
_CUES: tuple[tuple[str, str], ...] = (
    (r"icd.?10|diag|(?<![a-z])dx(?![a-z])", "icd10"),
    (r"icd.?9", "icd9"),
    (r"(?<![a-z])age(?![a-z])", "age"),
    (r"zip|postal|postcode", "zip"),
    (r"sex|gender", "sex"),
    (r"ethnic|hispanic", "ethnicity"),
    (r"race", "race"),
    (r"marital|marriage", "marital"),
    (r"educat|school", "education"),
    (r"year|yob", "year"),
    (r"date|dob|birth", "date"),
)


def builtin_kinds() -> tuple[str, ...]:
    return tuple(BUILDERS)


def guess_kind(column: str) -> str | None:
    """The built-in a column's name suggests, or None."""
    low = column.lower()
    for pattern, kind in _CUES:
        if re.search(pattern, low):
            return kind
    return None


def builtin_hierarchy(kind: str, series: pd.Series, column: str = "") -> Hierarchy:
    """The built-in ``kind`` for the values of ``series``."""
    builder = BUILDERS.get(kind)
    if builder is None:
        raise UsageError(
            f"There is no built-in hierarchy '{kind}'.", hint="Choose " + ", ".join(BUILDERS)
        )
    return builder(series, column or str(series.name))
