"""A released number that is its own person's year of birth in two digits (``47`` for
1947), for the persons whose years are withheld (over 89).

The age-revealing-year check reads the years the pathway releases and the columns read
as years; a birth year cut to two digits under a neutral name slips past it, and no
shape tells it from a score or a dose. A copy sits in the row of the person it dates,
so it is found by pairing (``own_values.source_persons``): a column is read as two-digit
birth years when half its filled rows (and at least ``MIN_ROWS``) hold their own
person's; then each row of a person over 89 in it states that person's age. An even
sample of rows is read first. Counts and column names only, never a value.
"""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc

from deid_desktop.core.facts.text import arrow_text
from deid_desktop.core.model import Extract, Project, Release
from deid_desktop.core.verify.ages import birth_per_person
from deid_desktop.core.verify.base import VerifyContext, released_columns
from deid_desktop.core.verify.own_dates import MIN_ROWS, SAMPLE, SHARE, whole_numbers
from deid_desktop.core.verify.own_values import row_persons, source_persons

#: a cell of one or two digits (a year of birth cut to two)
_TWO_DIGITS = r"^\s*\d{1,2}\s*$"


def two_digit_birth_years(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> dict[str, int]:
    """Released columns ("table.column") half of whose filled rows hold their own
    person's year of birth in two digits -> the rows of persons over 89 in them."""
    withheld = ctx.ages.years_withheld
    born = birth_per_person(extract, project, ctx) if withheld.any() else None
    if born is None:
        return {}
    year = born.astype("datetime64[Y]").astype(np.int64) + 1970
    yy = np.append(np.where(np.isnat(born), -1, year % 100), -1)  # one more: no person
    old = np.append(withheld, False)
    source = source_persons(extract, project, release, ctx)
    if source is None:  # no crosswalk: no row is paired with a person
        return {}
    _ids, positions = ctx.released_positions(release, extract.person.name)
    flagged: dict[str, int] = {}
    for t, c, values in released_columns(release):
        where = positions.get(t)
        uniq = ctx.uniques(t, c, values)
        filled = int(uniq.sum())
        if where is None or filled < MIN_ROWS:
            continue
        cells = arrow_text(uniq.index)
        short = pc.match_substring_regex(cells, _TWO_DIGITS).to_numpy(zero_copy_only=False)
        if uniq.to_numpy()[short].sum() < max(MIN_ROWS, SHARE * filled):
            continue  # not a column of one- and two-digit numbers
        rows = np.arange(0, len(values), max(1, len(values) // SAMPLE))  # a sample first
        person = row_persons(where[rows], source)
        if (whole_numbers(values.iloc[rows], cells, short) == yy[person]).mean() < SHARE / 2:
            continue
        person = row_persons(where, source)
        agree = whole_numbers(values, cells, short) == yy[person]
        if int(agree.sum()) >= max(MIN_ROWS, SHARE * filled):
            n = int((agree & old[person]).sum())
            if n:
                flagged[f"{t}.{c}"] = n
    return flagged
