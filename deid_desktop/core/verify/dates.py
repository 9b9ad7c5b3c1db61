"""The gate's date-element check: under Safe Harbor no released value is finer than a
year, in any column and in any format (45 CFR 164.514(b)(2)(i)(C)).

``safe_harbor.check_no_full_dates`` finds full dates inside any cell; this check reads
each released cell as a whole with the loader's date-shape detector
(``core.io.date_shapes``): year-month (``2024-03``, ``03/2024``), month-name and year
(``March 2024``), day and month (``12 Mar``, ``Mar. 12``), two-digit years
(``12-Mar-24``), compact date-times (``20240312 1015``), ISO weeks (``2024-W11``), a
column of days written as two numbers (``8/31``, ``31/8``, ``08-31``: with the spread
of days a calendar has, so fractions and scores are not) or of month names alone, a
column of Unix times (seconds or milliseconds since 1970, whatever its name), and, in a
column whose name says date, Excel serial day numbers (1900 and 1904 systems) and
bare ``YYYYMMDD`` numbers; and, whatever the column, numbers that are their own
person's date in another form (``verify.own_dates``: Unix seconds of 1947, days since
1970, the day of the year). Each column's distinct cells are read once. The outcome
names the columns and the number of cells of each shape; never a value.
"""

from __future__ import annotations

import pandas as pd

from deid_desktop.core.facts.text import STRING
from deid_desktop.core.io.date_shapes import (
    COMPACT_DATE,
    COMPACT_YEAR_MONTH,
    EXCEL_SERIAL,
    MONTH_DAY,
    MONTH_NAME,
    UNIX_TIME,
    date_shape_of,
)
from deid_desktop.core.model import Extract, Project, Release
from deid_desktop.core.verify.base import (
    BLOCKING,
    SAFE_HARBOR,
    Check,
    Finding,
    VerifyContext,
    released_columns,
)
from deid_desktop.core.verify.own_dates import KIND as OWN_DATE
from deid_desktop.core.verify.own_dates import own_date_columns

#: Dates written as numbers, which the loader does not read as dates.
_NUMBER_DATES = frozenset({EXCEL_SERIAL, UNIX_TIME, COMPACT_DATE, COMPACT_YEAR_MONTH, OWN_DATE})
#: Days and months without a year (a birthday ``8/31``, a birth month ``August``).
_WITHOUT_YEAR = frozenset({MONTH_DAY, MONTH_NAME})


def _sentence(where: str, shapes: dict[str, int]) -> str:
    table, _, column = where.partition(".")
    said = ", ".join(
        f"{n:,} cell{'s' if n != 1 else ''} shaped as {shape}"
        for shape, n in sorted(shapes.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    if set(shapes) & _WITHOUT_YEAR:
        fix = (
            "a day or a month without its year cannot be reduced to a year: tag it as a "
            "direct identifier so that it is removed"
        )
    elif set(shapes) & _NUMBER_DATES:
        fix = (
            "the app reads dates written as text, not as numbers: tag it as a direct "
            "identifier so that it is removed, or write it as dates in the extract and tag "
            "it as a date (only the year is kept)"
        )
    else:
        fix = "tag it as a date (only the year is kept) or remove it"
    return f"Column '{column}' of table '{table}' holds dates finer than a year ({said}); {fix}."


def check_no_date_elements(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    per_column: dict[str, int] = {}
    shapes_by_column: dict[str, dict[str, int]] = {}
    for t, c, values in released_columns(release):
        uniq = ctx.uniques(t, c, values)
        if uniq.empty:
            continue
        shapes = date_shape_of(pd.Series(uniq.index, dtype=STRING), column=c)
        found = shapes.notna().to_numpy(dtype=bool)
        if not found.any():
            continue
        rows = uniq.to_numpy()[found]
        where = f"{t}.{c}"
        per_column[where] = int(rows.sum())
        counted = pd.Series(rows, index=shapes[found].astype(str).to_numpy())
        shapes_by_column[where] = {
            str(k): int(v) for k, v in counted.groupby(level=0, sort=True).sum().items()
        }
    for where, rows in own_date_columns(extract, release, project, ctx).items():
        per_column[where] = max(per_column.get(where, 0), rows)
        shapes_by_column.setdefault(where, {})[OWN_DATE] = rows
    count = sum(per_column.values())
    detail = {
        "columns": sorted(per_column),
        "cells_by_column": per_column,
        "cells_by_shape": shapes_by_column,
        "messages": [_sentence(w, shapes_by_column[w]) for w in sorted(per_column)],
    }
    return Finding(count == 0, count, detail)


CHECKS: tuple[Check, ...] = (
    Check(
        "no_date_elements",
        "No date element finer than a year",
        "45 CFR 164.514(b)(2)(i)(C)",
        BLOCKING,
        "No released cell, in any column, is a date or part of a date finer than a year in "
        "any format: year-month, month-name and year, day and month, two-digit years, "
        "compact date-times, ISO weeks, Unix times (seconds or milliseconds since 1970) "
        "and columns of YYYYMM or YYYYMMDD numbers whatever the column's name, columns "
        "of days as two numbers (8/31, 08-31) or of month names alone, and, in a "
        "column whose name says date, Excel serial day numbers (1900 and 1904 systems) "
        "and any YYYYMMDD number; and numbers that are each person's own date in another "
        "form (Unix seconds of any year, days since 1970, Excel serial days, the day of "
        "the year, MMDD), found by pairing each row with its person.",
        check_no_date_elements,
        SAFE_HARBOR,
    ),
)
