"""The verification gate: every check declared as data, all run, none skipped.

Each check is a small function ``(extract, release, project, context) -> Finding``
registered with a stable id, a name, the rule it enforces, a ``Severity`` and the set of
pathways it applies to (``base.Check``). ``verify_release`` runs every check that
applies to the release's pathway and collects the outcomes; export refuses to write
anything when a blocking check failed. Outcomes carry counts and column names, never a
value from the data.

The gate owns every check; pathway modules declare none (``core.pathways`` never
imports the gate). The registry, in the order the checks run and are reported:

- ``safe_harbor``: Safe Harbor's rows, some shared with the other pathways;
- ``dates``: no released value finer than a year, in any column and format (Safe Harbor);
- ``values``: no released column looks like an identifier, whatever its tag;
- ``geography``: no place smaller than a state, by names, shapes and the gazetteer;
- ``new_year``: a warning for short events whose two released years pin them to New Year;
- ``text``: the free-text scanner over every released text cell, whatever its tag;
- ``linkable``: the linkable release's rows;
- ``limited``: the limited data set's rows.

``direct`` holds the direct-identifier search the three pathways share; ``base`` the
nouns (``Check``, ``Finding``, ``CheckOutcome``, ``Verification``, ``VerifyContext``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from deid_desktop.core.model import Extract, Pathway, Project, Release
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.core.verify import (
    dates,
    geography,
    limited,
    linkable,
    new_year,
    safe_harbor,
    text,
    values,
)
from deid_desktop.core.verify.base import (
    BLOCKING,
    WARNING,
    Check,
    CheckFn,
    CheckOutcome,
    Finding,
    Severity,
    Verification,
    VerifyContext,
    run_check,
)
from deid_desktop.core.verify.zips import names_a_postal_code
from deid_desktop.core.zip3 import Zip3Table

if TYPE_CHECKING:
    from deid_desktop.core.risk import RiskReport

#: Every check of the gate, each once (ids are unique), in the order they run.
CHECKS: tuple[Check, ...] = (
    *safe_harbor.CHECKS,
    *dates.CHECKS,
    *values.CHECKS,
    *geography.CHECKS,
    *new_year.CHECKS,
    *text.CHECKS,
    *linkable.CHECKS,
    *limited.CHECKS,
)


def _unique_ids(checks: tuple[Check, ...]) -> tuple[Check, ...]:
    seen: set[str] = set()
    for check in checks:
        if check.id in seen:
            raise ValueError(f"Two checks of the gate share the id {check.id!r}")
        seen.add(check.id)
    return checks


_unique_ids(CHECKS)


def checks_for(pathway: Pathway) -> tuple[Check, ...]:
    """The checks that apply to ``pathway``, in registry order."""
    return tuple(c for c in CHECKS if pathway in c.pathways)


def verify_release(
    extract: Extract,
    release: Release,
    project: Project,
    *,
    crosswalk_dir: Path | None = None,
    out_dir: Path | None = None,
    zip3_table: Zip3Table | None = None,
    risk: RiskReport | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> Verification:
    """Run every check that applies to the release's pathway; collect every outcome.

    ``risk``: the residual-risk report measured before the gate, held on the context
    for checks that read it. ``progress`` is told before each check (its name, never a
    value); ``cancel`` is honoured between checks.
    """
    rep = Reporter(progress, cancel)
    ctx = VerifyContext(extract, project, crosswalk_dir, out_dir, zip3_table, risk=risk)
    checks = checks_for(release.pathway)
    outcomes: list[CheckOutcome] = []
    for i, check in enumerate(checks):
        rep.step(i / len(checks), f"Checking: {check.name}")
        outcomes.append(run_check(check, extract, release, project, ctx))
    rep.step(1.0, "Checks done")
    scanned = ctx.memo.get(text.MEMO_KEY)
    return Verification(tuple(outcomes), text_scan=scanned)  # type: ignore[arg-type]


__all__ = [
    "BLOCKING",
    "CHECKS",
    "WARNING",
    "Check",
    "CheckFn",
    "CheckOutcome",
    "Finding",
    "Severity",
    "Verification",
    "VerifyContext",
    "checks_for",
    "names_a_postal_code",
    "run_check",
    "verify_release",
]
