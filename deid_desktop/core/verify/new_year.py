"""Short events that cross New Year (a warning, Safe Harbor): an encounter from
31 December to 1 January released as two years (2023, 2024) tells that it lay within
days of New Year - two years of one short event pin its dates more than a year does.

For every pair of date columns of one table released as years (start and stop,
admission and discharge), the rows whose two dates lie in different years and at most
``SHORT_DAYS`` apart are counted, leaving out persons whose years are removed. The
release is not refused; the count is shown so the user can decide (remove one of the
two years, or accept). Vectorised with numpy; the detail holds columns and counts.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from deid_desktop.core.facts.persons import spec_for
from deid_desktop.core.model import Extract, Project, Release
from deid_desktop.core.pathways.common import Treatment, column_treatments
from deid_desktop.core.verify.base import SAFE_HARBOR, WARNING, Check, Finding, VerifyContext

#: Two dates this many days apart or fewer, in two years, pin an event to New Year.
SHORT_DAYS = 7


def check_new_year_events(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    withheld = ctx.ages.years_withheld
    per_pair: dict[str, int] = {}
    persons: set[int] = set()
    for table in extract.tables:
        if table.name not in release.tables:
            continue
        spec = spec_for(project, table)
        dated = [
            c
            for c, t in column_treatments(spec, table.frame.columns).items()
            if t == Treatment.DATE
        ]
        kept = ~withheld[ctx.positions[table.name]]
        for a, b in combinations(dated, 2):
            first = ctx.dates.get(table.name, spec.column(a)).to_numpy(dtype="datetime64[ns]")
            second = ctx.dates.get(table.name, spec.column(b)).to_numpy(dtype="datetime64[ns]")
            both = ~np.isnat(first) & ~np.isnat(second) & kept
            apart = np.abs((second - first).astype("timedelta64[D]").astype(np.int64))
            years_differ = first.astype("datetime64[Y]") != second.astype("datetime64[Y]")
            hit = both & years_differ & (apart <= SHORT_DAYS)
            if hit.any():
                per_pair[f"{table.name}.{a} and {table.name}.{b}"] = int(hit.sum())
                persons.update(np.unique(ctx.positions[table.name][hit]).tolist())
    count = sum(per_pair.values())
    messages = [
        f"{n:,} event{'s' if n != 1 else ''} in {pair} span New Year within "
        f"{SHORT_DAYS} days, so their two released years place them within days of "
        "31 December; remove one of the two years if that matters."
        for pair, n in sorted(per_pair.items())
    ]
    detail: dict[str, object] = {
        "events_by_column_pair": per_pair,
        "persons": len(persons),
        "short_days": SHORT_DAYS,
        "messages": messages,
    }
    return Finding(count == 0, count, detail)


CHECKS: tuple[Check, ...] = (
    Check(
        "new_year_events",
        "No short event pinned to New Year by its two years",
        "45 CFR 164.514(b)(2)(i)(C)",
        WARNING,
        f"Counts the events whose two released years (start and stop, admission and "
        f"discharge) differ while their dates lie {SHORT_DAYS} days apart or fewer: the "
        "years then place the event within days of 31 December. A warning: the release "
        "is not refused.",
        check_new_year_events,
        SAFE_HARBOR,
    ),
)
