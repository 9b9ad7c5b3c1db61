"""The gate's nouns: a check declared as data, what it finds, what it shares.

A check is a small function ``(extract, release, project, context) -> Finding`` with a
stable id, a name, the rule it enforces, a ``Severity`` and the set of pathways it
applies to. ``VerifyContext`` holds what checks share and compute once: the folders to
compare, the ZIP3 table, parsed dates, person positions, the distinct cells of each
released column, and the residual-risk report measured before the gate (``risk``), so
that a privacy-model check (a k target as a gate) can read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from deid_desktop.core.facts.ages import AgeFacts
from deid_desktop.core.facts.dates import DateCache
from deid_desktop.core.facts.persons import positions_in
from deid_desktop.core.facts.shared import facts_for
from deid_desktop.core.facts.text import STRING, arrow_text, known_cells
from deid_desktop.core.model import PATHWAY_LABELS, Extract, Pathway, Project, Release
from deid_desktop.core.zip3 import Zip3Table, load_table_for

if TYPE_CHECKING:
    from deid_desktop.core.risk import RiskReport
    from deid_desktop.core.scan import ScanReport


class Severity(StrEnum):
    """What a failed check does: a blocking failure stops the export; a warning is shown."""

    BLOCKING = "blocking"
    WARNING = "warning"


BLOCKING = Severity.BLOCKING
WARNING = Severity.WARNING
ALL_PATHWAYS = frozenset(Pathway)
SAFE_HARBOR = frozenset({Pathway.SAFE_HARBOR})
LINKABLE = frozenset({Pathway.LINKABLE})
LIMITED = frozenset({Pathway.LIMITED_DATA_SET})


@dataclass(frozen=True)
class Finding:
    """What a check function returns: passed, how many offending cells/rows/items, and
    a detail dict of counts and column names (never values)."""

    passed: bool
    count: int = 0
    detail: dict[str, object] = field(default_factory=dict)


#: The released IDs of the person table, and each table's rows as positions among them.
ReleasedPositions = tuple[pa.Array, dict[str, np.ndarray]]


@dataclass
class VerifyContext:
    """What checks share: folders to compare, the ZIP3 table, parsed dates, the risk."""

    extract: Extract
    project: Project
    crosswalk_dir: Path | None = None
    out_dir: Path | None = None
    zip3_table: Zip3Table | None = None
    #: the residual risk of the released person table, measured before the gate (None:
    #: not measured, e.g. no quasi-identifier)
    risk: RiskReport | None = None

    @cached_property
    def dates(self) -> DateCache:
        return facts_for(self.extract, self.project).dates

    @cached_property
    def positions(self) -> dict[str, np.ndarray]:
        return facts_for(self.extract, self.project).positions

    _counts: dict[tuple[str, str], pd.Series] = field(default_factory=dict, init=False, repr=False)
    _positions: dict[tuple[int, str | None], tuple[Release, ReleasedPositions]] = field(
        default_factory=dict, init=False, repr=False
    )
    #: what a check leaves for the caller (e.g. the scan of the released text)
    memo: dict[str, object] = field(default_factory=dict, init=False, repr=False)

    def uniques(self, table: str, column: str, values: pd.Series) -> pd.Series:
        """Distinct cells of a released column -> rows holding each (computed once)."""
        key = (table, column)
        if key not in self._counts:
            self._counts[key] = distinct_cells(values)
        return self._counts[key]

    @cached_property
    def ages(self) -> AgeFacts:
        """Who is over 89 (at the reference date, in any age column, at the cut-off),
        decided once for every check that asks."""
        return facts_for(self.extract, self.project).ages(self.project.transform.age_reference)

    def released_positions(self, release: Release, person: str | None) -> ReleasedPositions:
        """The released IDs of table ``person`` (empty: none) and, for every released
        table holding the ID column, each row's position among them (-1: missing or no
        such person). One hash join on distinct IDs, computed once per release."""
        key = (id(release), person)
        cached = self._positions.get(key)
        if cached is not None and cached[0] is release:
            return cached[1]
        frame = release.tables.get(person) if person is not None else None
        ids = (
            arrow_text(frame[release.id_column])
            if frame is not None and release.id_column in frame.columns
            else pa.array([], type=pa.large_string())
        )
        tables = [t for t, f in release.tables.items() if release.id_column in f.columns]
        found = positions_in(ids, [release.tables[t][release.id_column] for t in tables])
        out = (ids, dict(zip(tables, found, strict=True)))
        self._positions[key] = (release, out)
        return out

    def zip_table(self) -> Zip3Table:
        if self.zip3_table is None:
            self.zip3_table = load_table_for(self.project.transform.zip3_table)
        return self.zip3_table


CheckFn = Callable[[Extract, Release, Project, VerifyContext], Finding]


@dataclass(frozen=True)
class Check:
    """A structural check, declared as data. ``run`` is its function."""

    id: str
    name: str
    rule: str  # the rule it enforces, e.g. "45 CFR 164.514(b)(2)(i)(B)"
    severity: Severity
    explanation: str
    run: CheckFn = field(repr=False, compare=False)
    pathways: frozenset[Pathway] = ALL_PATHWAYS

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "rule": self.rule,
            "severity": self.severity,
            "explanation": self.explanation,
        }


@dataclass(frozen=True)
class CheckOutcome:
    check: Check
    passed: bool
    count: int
    detail: dict[str, object]

    def to_dict(self) -> dict[str, object]:
        return {**self.check.to_dict(), "passed": self.passed, "count": self.count,
                "detail": self.detail}  # fmt: skip


@dataclass(frozen=True)
class Verification:
    outcomes: tuple[CheckOutcome, ...]
    #: the hits of the gate's scan of the released text (``verify.text``), rows being
    #: positions in the released frames; None when that check did not run
    text_scan: ScanReport | None = field(default=None, compare=False)

    @property
    def passed(self) -> bool:
        return not self.blocking_failures

    @property
    def blocking_failures(self) -> tuple[CheckOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.passed and o.check.severity == BLOCKING)

    @property
    def warnings(self) -> tuple[CheckOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.passed and o.check.severity == WARNING)

    def outcome(self, check_id: str) -> CheckOutcome:
        for o in self.outcomes:
            if o.check.id == check_id:
                return o
        raise KeyError(check_id)

    def to_dict(self) -> dict[str, object]:
        return {
            "passed": self.passed,
            "blocking_failures": [o.check.id for o in self.blocking_failures],
            "checks": [o.to_dict() for o in self.outcomes],
        }


# --------------------------------------------------------------------------- helpers


def released_columns(release: Release) -> list[tuple[str, str, pd.Series]]:
    """(table, column, values) of every released column except the subject/link key."""
    return [
        (t, c, frame[c])
        for t, frame in release.tables.items()
        for c in frame.columns
        if c != release.id_column
    ]


def distinct_cells(values: pd.Series) -> pd.Series:
    """Distinct non-missing cells as text -> number of rows holding each (in order of
    first appearance; from the codes of a column the pathway made from codes)."""
    known = known_cells(values)
    if known is not None:
        return known
    counts = values.astype(STRING).value_counts(dropna=True, sort=False)
    return counts[counts.index.notna()]


def rows_matching(uniq: pd.Series, pattern: str) -> int:
    """Rows whose cell matches ``pattern``, from the column's distinct cells."""
    if uniq.empty:
        return 0
    hit = pd.Series(uniq.index, dtype=STRING).str.contains(pattern, regex=True)
    return int(uniq.to_numpy()[hit.fillna(False).to_numpy(dtype=bool)].sum())


def check_label(expected: Pathway) -> CheckFn:
    """A check that the release carries ``expected``'s honest label, and never says
    "anonymous" or Safe Harbor (unless it is one)."""

    def run(extract: Extract, release: Release, project: Project, ctx: VerifyContext) -> Finding:
        text = release.label.lower()
        wrong = release.label != PATHWAY_LABELS[expected] or release.pathway != expected
        wrong |= "anonym" in text or "safe harbor" in text.replace("not safe harbor", "")
        return Finding(not wrong, int(wrong), {"label": release.label})

    return run


def run_check(check: Check, extract: Extract, release: Release, project: Project,
              ctx: VerifyContext) -> CheckOutcome:  # fmt: skip
    """Run one check; a check that cannot run has not passed."""
    try:
        found = check.run(extract, release, project, ctx)
    except Exception as exc:  # a check that cannot run has not passed
        from deid_desktop.core.errors import unexpected_error_summary

        where = unexpected_error_summary(exc)  # type and file:line frames, never the text
        return CheckOutcome(check, False, 1, {"could_not_run": type(exc).__name__, "at": where})
    return CheckOutcome(check, bool(found.passed), int(found.count), dict(found.detail))
