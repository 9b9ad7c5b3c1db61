"""Ages are ages by their values (45 CFR 164.514(b)(2)(i)(C)): every released column that
holds ages, whatever its tag and in every table, shows no age above 89 but as '90+'.

A released column is read as ages when:

* it has the AGE role;
* its name says age, in one of several languages (``age_at_visit``, ``edad``, ``âge``,
  ``Alter``, ``età``, ``idade``, ``leeftijd``, or ``yrs``/``years`` alone:
  ``facts.ages.names_an_age``) and nine in ten of its distinct values are numbers (or
  pooled tops such as "90+") - a quasi column tagged without the role included;
* or its values are whole numbers that agree with the birth dates: for nine in ten of at
  least ten rows with both, within two years of the person's age at the row's own date (an
  event table's first date column) or at the reference date (the person table), read
  in years (0 to 120), or in months, weeks or days (``days_since_birth`` holding 33,000
  is 90 years). Without a birth date, values alone never make a column ages (heart
  rates and scores are whole numbers from 0 to 120 too).

Vectorised: distinct cells first (computed once per column by the context), numpy for
the agreement. The detail names columns and counts, never a value.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.ages import (
    AGE_UNITS,
    DAYS,
    DAYS_PER_YEAR,
    MAX_AGE,
    MONTHS,
    WEEKS,
    age_unit,
    names_an_age,
)
from deid_desktop.core.facts.dates import earliest_per_person, is_person_date
from deid_desktop.core.facts.persons import spec_for
from deid_desktop.core.facts.text import STRING
from deid_desktop.core.io.dates import read_dates
from deid_desktop.core.model import ColumnTag, Extract, Project, Release, Role
from deid_desktop.core.verify.base import Finding, VerifyContext, distinct_cells, released_columns

_TOP_CODE = re.compile(r"^\s*(\d+)\s*\+\s*$")
#: Share of distinct values (named columns) or of rows (values) that must agree.
AGREE = 0.9
#: Years an age may lie from the person's age at the row's date (or the reference date)
#: and still agree: an age taken at another date (a referral, the extract's day) is a
#: year or two off, and nine rows in ten must still agree.
SLACK_YEARS = 2
#: Ages taken this many years before or after the person's (a follow-up, a death) are
#: read as ages too when the shift is the same, give or take ``SLACK_YEARS``, in nine
#: rows in ten (an age is a year of birth away from a date; a measurement is not).
MAX_SHIFT_YEARS = 30
#: Rows with a birth date and a value needed before values alone say "ages".
MIN_AGREEING_ROWS = 10
#: Rows read for the agreement with the birth dates (an even sample).
SAMPLE_ROWS = 20_000


def age_over_89(values: pd.Series) -> int:
    """Cells stating an age above 89 other than the pooled "90+" (bands included)."""
    uniq = distinct_cells(values)
    return over_89_in(uniq)


def over_89_in(uniq: pd.Series, per_year: float = 1.0) -> int:
    """``age_over_89`` from a column's distinct cells (-> rows holding each); ``per_year``:
    the column's unit per year (12 for ages in months: 1,080 months is 90 years)."""
    if uniq.empty:
        return 0
    text = pd.Series(uniq.index, dtype=STRING)
    top = text.str.extract(_TOP_CODE, expand=False)
    pooled = (pd.to_numeric(top, errors="coerce") <= MAX_AGE + 1).fillna(False).to_numpy(bool)
    biggest = (
        text.str.extractall(r"(\d+(?:\.\d+)?)")[0].astype(float).groupby(level=0).max()
    ).reindex(range(len(text)))
    years = biggest.to_numpy(dtype=np.float64, na_value=np.nan) / per_year
    # a cell that gives its own unit ("1,080 mo") is read in it, whatever the column's
    _low, high, unit = _bounds(text)
    own = unit != 1.0
    years[own] = high[own]
    over = np.floor(np.nan_to_num(years, nan=0.0)) > MAX_AGE  # 89.6 years is 89
    if per_year == 1.0:
        over &= ~pooled
    return int(uniq.to_numpy()[over].sum())


#: An age as people write it: a number, with a unit (``94y``, ``94 yrs``, ``94yo``,
#: ``94 y/o``; or months, weeks, days: ``1,080 mo``, ``40 wks``), as a pooled top
#: (``90+``) or a band (``90-94``, ``90 to 94``).
_YEARS = r"y|yr|yrs|year|years|yo|y/o|y\.o\.?"
_UNIT = rf"(?:{_YEARS}|{'|'.join(sorted(AGE_UNITS, key=len, reverse=True))})"
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,6}(?:\.\d+)?"
AGE_VALUE = (
    rf"(?i)^\s*[<>]?\s*({_NUMBER})\s*(?:\+|({_UNIT})\.?)?"
    rf"(?:\s*(?:-|–|to)\s*({_NUMBER})\s*(?:({_UNIT})\.?)?)?\s*$"
)
_PLAIN = r"^\s*\d{1,6}(?:\.\d+)?\s*$"


def _age_value_share(uniq: pd.Series) -> float:
    """Share of distinct cells written as an age (``AGE_VALUE``)."""
    if uniq.empty:
        return 0.0
    text = pa.array(pd.Series(uniq.index, dtype=STRING))
    ok = pc.match_substring_regex(text, AGE_VALUE)
    return float(pc.mean(pc.cast(ok, pa.int8())).as_py() or 0.0)


def _all_plain(uniq: pd.Series) -> bool:
    """Whether every distinct cell is a plain number (no unit, band or top code)."""
    text = pa.array(pd.Series(uniq.index, dtype=STRING))
    return bool(pc.all(pc.match_substring_regex(text, _PLAIN)).as_py())


def _bounds(values: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cell's age as (lowest, highest) numbers: the same for one age, the band's
    ends for a band (NaN when the cell is not written as an age); in years when the
    cell gives a unit of months, weeks, days or hours (``1,080 mo`` is 90), and the
    third array is that unit per year (1.0: years, or no unit given). Each distinct
    cell is read once (the regex runs in Python per value), then spread to the rows."""
    codes, distinct = pd.factorize(values.astype(STRING), use_na_sentinel=True)
    low, high, unit = _distinct_bounds(pd.Series(distinct, dtype=STRING))
    # code -1 (a missing cell) takes the appended last: no age, no unit
    return (
        np.append(low, np.nan)[codes],
        np.append(high, np.nan)[codes],
        np.append(unit, 1.0)[codes],
    )


def _distinct_bounds(values: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_bounds`` of values read one by one."""
    parts = values.str.extract(AGE_VALUE)

    def number(i: int) -> np.ndarray:
        text = parts[i].str.replace(",", "", regex=False)
        return pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)

    said = parts[3].fillna(parts[1]).str.lower().str.rstrip(".")
    per_year = said.map(lambda u: AGE_UNITS.get(u, ("years", 1.0))[1], na_action="ignore")
    unit = per_year.to_numpy(dtype=np.float64, na_value=1.0)
    low, high = number(0) / unit, number(2) / unit
    return low, np.where(np.isnan(high), low, high), unit


#: Units ages are read in by their values: (unit, units per year), years first.
VALUE_UNITS: tuple[tuple[str, float], ...] = (("years", 1.0), MONTHS, WEEKS, DAYS)
_MAX_YEARS = 120


def _largest_age(uniq: pd.Series) -> float | None:
    """The largest number of the distinct cells when every one is written as an age
    (a number, a number with a unit, a band; None otherwise or when there is none)."""
    if uniq.empty or _age_value_share(uniq) < 1.0:
        return None
    _low, high, _unit = _bounds(_near_the_largest(pd.Series(uniq.index, dtype=STRING)))
    return float(np.nanmax(high)) if not np.isnan(high).all() else None


def _near_the_largest(values: pd.Series) -> pd.Series:
    """The cells that may hold the largest age when every cell is a plain number (read
    as such by ``_bounds``: the number itself): those within a hair of the largest as
    Arrow reads them, which the reading of ``_bounds`` then tells apart. A column of
    thousands of distinct measurements is then read in Python for a handful of cells,
    not each one. Other cells are all kept."""
    text = pa.array(values, type=pa.large_string())
    if (
        len(text) < 2
        or text.null_count
        or not pc.all(pc.match_substring_regex(text, _PLAIN)).as_py()
    ):
        return values
    numbers = pc.cast(pc.utf8_trim_whitespace(text), pa.float64()).to_numpy(zero_copy_only=False)
    top = float(numbers.max())
    near = numbers >= top - abs(top) * 1e-9  # the two readings differ by an ulp at most
    return values[near].reset_index(drop=True)


def birth_per_person(extract: Extract, project: Project, ctx: VerifyContext) -> np.ndarray | None:
    """Birth date per person row (datetime64[ns], NaT unknown); None: no birth date."""
    cached = ctx.__dict__.get("_birth_per_person", False)
    if cached is not False:
        return cached
    found = None
    for table in extract.tables:
        tag = spec_for(project, table).by_role(Role.BIRTH_DATE)
        if tag is not None and tag.name in table.frame.columns:
            parsed = ctx.dates.get(table.name, tag)
            found = earliest_per_person(
                parsed, ctx.positions[table.name], len(extract.person.frame)
            ).to_numpy(dtype="datetime64[ns]")
            break
    ctx.__dict__["_birth_per_person"] = found
    return found


def _row_date_tag(extract: Extract, project: Project, table: str) -> ColumnTag | None:
    """The date column each row of an input table is about: its first date column
    other than the birth date (None: the table has none)."""
    loaded = extract.table(table)
    for tag in spec_for(project, loaded).columns:
        if tag.name in loaded.frame.columns and is_person_date(tag) and tag.role != Role.BIRTH_DATE:
            return tag
    return None


def _sampled_ages(
    extract: Extract, project: Project, ctx: VerifyContext, table: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """(the sampled row positions of an input table, each row's person's age in whole
    years at the row's date, NaN when unknown), computed once per table; None when the
    table has no row date or the extract no birth date."""
    cache: dict[str, tuple[np.ndarray, np.ndarray] | None] = ctx.__dict__.setdefault(
        "_sampled_ages", {}
    )
    if table in cache:
        return cache[table]
    cache[table] = None
    born = birth_per_person(extract, project, ctx)
    loaded = extract.table(table) if table in {t.name for t in extract.tables} else None
    tag = _row_date_tag(extract, project, table) if loaded is not None else None
    if loaded is not None and tag is None and loaded is extract.person:
        cache[table] = _ages_at_reference(ctx, len(loaded.frame))
        return cache[table]
    if born is None or loaded is None or tag is None:
        return None
    rows = len(loaded.frame)
    sample = np.unique(np.linspace(0, rows - 1, min(rows, SAMPLE_ROWS)).astype(np.int64))
    _fmt, parsed = read_dates(
        loaded.frame[tag.name].iloc[sample].reset_index(drop=True),
        tag.date_format or ctx.dates.formats.get(f"{table}.{tag.name}"),
        file=loaded.path.name,
        column=tag.name,
    )
    when = parsed.to_numpy(dtype="datetime64[ns]")
    birth = born[ctx.positions[table][sample]]
    days = (when - birth).astype("timedelta64[D]").astype(np.float64)
    days[np.isnat(when) | np.isnat(birth)] = np.nan  # NaT would cast to a huge number
    cache[table] = (sample, np.floor(days / DAYS_PER_YEAR))
    return cache[table]


def _ages_at_reference(ctx: VerifyContext, rows: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(sampled person rows, each person's age in whole years at the reference date) for
    a person table with no date of its own; None without a birth date or a reference."""
    try:
        computed = ctx.ages.computed
    except Exception:  # no reference date: nothing to compare with
        return None
    if computed is None or rows == 0:
        return None
    sample = np.unique(np.linspace(0, rows - 1, min(rows, SAMPLE_ROWS)).astype(np.int64))
    age = pd.to_numeric(computed.iloc[sample], errors="coerce").to_numpy(
        np.float64, na_value=np.nan
    )
    return sample, age


def agrees_with_birth_dates(
    extract: Extract,
    project: Project,
    ctx: VerifyContext,
    table: str,
    column: str,
    largest: float = _MAX_YEARS,
) -> tuple[str, float] | None:
    """The unit (of ``VALUE_UNITS``) in which an input column's whole numbers are, row by
    row, the person's age (read on an even sample of at most ``SAMPLE_ROWS`` rows); None
    when they are not ages. ``largest``: the column's largest value (a unit is tried
    only when it allows it: 120 years)."""
    units = [u for u in VALUE_UNITS if largest <= _MAX_YEARS * u[1]]
    sampled = _sampled_ages(extract, project, ctx, table) if units else None
    if sampled is None or column not in extract.table(table).frame.columns:
        return None
    sample, age = sampled
    low, high, _unit = _bounds(extract.table(table).frame[column].iloc[sample])
    both = ~np.isnan(low) & ~np.isnan(age)
    if int(both.sum()) < MIN_AGREEING_ROWS:
        return None
    low, high, age = low[both], high[both], age[both]
    for unit in units:
        lo, hi = np.floor(low / unit[1]) - SLACK_YEARS, np.floor(high / unit[1]) + SLACK_YEARS
        inside = (lo <= age) & (age <= hi)
        if float(inside.mean()) >= AGREE:
            return unit
        # ages taken some years apart from the person's (at a follow-up, at death): the
        # same offset for nearly every row, where a measurement's varies with the age
        off = np.floor((low + high) / 2 / unit[1]) - age
        shift = float(np.median(off))
        if (
            abs(shift) <= MAX_SHIFT_YEARS
            and float((np.abs(off - shift) <= SLACK_YEARS).mean()) >= AGREE
        ):
            return unit
    return None


def age_columns(
    extract: Extract,
    release: Release,
    project: Project,
    ctx: VerifyContext,
    units: dict[str, tuple[str, float]] | None = None,
) -> dict[str, str]:
    """Released columns read as ages ("table.column" -> why: role, name or values).
    ``units`` (filled when given): "table.column" -> (unit, per year) for the columns
    whose ages are in another unit than years, by their name or their values."""
    found_units: dict[str, tuple[str, float]] = {} if units is None else units
    out: dict[str, str] = {}
    for t, c, values in released_columns(release):
        try:
            tag = project.table(t).column(c)
        except KeyError:
            tag = None
        if tag is not None and tag.role == Role.AGE:
            out[f"{t}.{c}"] = "role"
            continue
        uniq = ctx.uniques(t, c, values)
        if names_an_age(c) and _age_value_share(uniq) >= AGREE:
            out[f"{t}.{c}"] = "name"
            named_unit = age_unit(c)
            if named_unit is not None:
                found_units[f"{t}.{c}"] = named_unit
            continue
        largest = _largest_age(uniq)
        if largest is None:
            continue
        unit = agrees_with_birth_dates(extract, project, ctx, t, c, largest)
        if unit is not None:
            out[f"{t}.{c}"] = "values"
            if unit[1] != 1.0:
                found_units[f"{t}.{c}"] = unit
    return out


_WHY = {
    "role": "tagged with the age role",
    "name": "its name says age",
    "values": "its values agree with the birth dates",
}


def check_ages(extract: Extract, release: Release, project: Project, ctx: VerifyContext) -> Finding:
    """No released age above 89 but the pooled '90+', in any column read as ages."""
    units: dict[str, tuple[str, float]] = {}
    columns = age_columns(extract, release, project, ctx, units)
    per_column: dict[str, int] = {}
    messages: list[str] = []
    for where, why in sorted(columns.items()):
        t, c = where.split(".", 1)
        unit = units.get(where)
        uniq = ctx.uniques(t, c, release.tables[t][c])
        n = over_89_in(uniq, unit[1] if unit else 1.0)
        if n:
            per_column[where] = n
            said = f"{_WHY[why]} in {unit[0]}" if unit else _WHY[why]
            if not _all_plain(uniq) and why != "role":
                fix = (
                    "they are written with a unit or as bands, which cannot be pooled: write "
                    "them as whole years in the extract and tag the column with the age role "
                    "(pooled as '90+'), or tag it as a direct identifier so that it is removed"
                )
            elif unit:
                fix = (
                    f"ages in {unit[0]} cannot be pooled as '90+' years: convert the column "
                    "to years in the extract and tag it with the age role, or tag it as a "
                    "direct identifier so that it is removed"
                )
            elif why != "role":
                fix = "tag it with the age role so that they are pooled as '90+'"
            else:
                fix = "check the age column's tag and values"
            what = "age" if n == 1 else "ages"
            messages.append(f"Column {where} ({said}) holds {n:,} {what} over 89 years; {fix}.")
    count = sum(per_column.values())
    detail: dict[str, object] = {
        "cells_by_column": per_column,
        "columns_read_as_ages": dict(sorted(columns.items())),
        "messages": messages,
    }
    return Finding(count == 0, count, detail)
