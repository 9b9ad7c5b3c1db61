"""Builders for the export tests: a small project, its release and a verification.

Built directly (no loading, no pathway) so the export tests stand on their own. The
verification is a stand-in with the same shape as core/verify's (outcomes with a check
name, rule, severity, passed, count; ``blocking_failures``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    IdentifierCategory,
    Pathway,
    Project,
    Release,
    Role,
    TableSpec,
)
from deid_desktop.core.pathways.registry import pathway_spec

S = pd.StringDtype("pyarrow")

#: Identifying values of the fake extract: none may appear in any record or README.
NAMES = ["Zoë Álvarez", "Bartholomew Quist", "Henrietta Vogelsang", "Ignatius Brannock"]
MRNS = ["MRN-884211", "MRN-551093", "MRN-300187", "MRN-771542"]
KEYS = ["P-000917", "P-000233", "P-000548", "P-000871"]
SALT = b"\x8f" * 8 + b"never-in-a-record-0123456789"


def text(values: Iterable[object]) -> pd.Series:
    return pd.Series(list(values), dtype=S)


def extract_frames() -> dict[str, pd.DataFrame]:
    demo = pd.DataFrame(
        {
            "patient_id": text(KEYS),
            "mrn": text(MRNS),
            "name": text(NAMES),
            "dob": text(["1931-02-17", "1975-06-03", "1988-11-30", "1950-01-09"]),
            "sex": text(["F", "M", "F", "M"]),
            "zip": text(["02139", "10027", "94110", "03907"]),
            "lvef": text(["35", "-1.5", '=HYPERLINK("x")', None]),
        }
    )
    visits = pd.DataFrame(
        {
            "patient_id": text([KEYS[0], KEYS[0], KEYS[1], KEYS[2], KEYS[3]]),
            "visit_date": text(
                ["2024-01-05", "2024-02-05", "2024-03-01", "2024-03-02", "2024-05-09"]
            ),
            "visit_type": text(["office", "@phone", "office", "+home", "office"]),
        }
    )
    return {"demographics": demo, "visits": visits}


def project(pathway: Pathway = Pathway.SAFE_HARBOR, name: str = "HF trial") -> Project:
    demo = TableSpec(
        name="demographics",
        path="demographics.csv",
        sha256="a" * 64,
        key="patient_id",
        is_person=True,
        rows=4,
        columns=(
            ColumnTag("patient_id", ColumnClass.DIRECT, Role.PERSON_KEY, IdentifierCategory.R),
            ColumnTag("mrn", ColumnClass.DIRECT, None, IdentifierCategory.H),
            ColumnTag("name", ColumnClass.DIRECT, None, IdentifierCategory.A),
            ColumnTag("dob", ColumnClass.DATE, Role.BIRTH_DATE),
            ColumnTag("sex", ColumnClass.QUASI, Role.SEX),
            ColumnTag("zip", ColumnClass.QUASI, Role.ZIP),
            ColumnTag("lvef", ColumnClass.CLINICAL),
        ),
    )
    visits = TableSpec(
        name="visits",
        path="visits.csv",
        sha256="b" * 64,
        key="patient_id",
        is_person=False,
        rows=5,
        columns=(
            ColumnTag("patient_id", ColumnClass.DIRECT, Role.PERSON_KEY, IdentifierCategory.R),
            ColumnTag("visit_date", ColumnClass.DATE),
            ColumnTag("visit_type", ColumnClass.CLINICAL),
        ),
    )
    return Project(
        project_id="0" * 31 + "1", name=name, tables=(demo, visits), pathway=pathway, seed=7
    )


def release(pathway: Pathway = Pathway.SAFE_HARBOR) -> Release:
    subj = ["S0001", "S0002", "S0003", "S0004"]
    person = pd.DataFrame(
        {
            "subject_id": text(subj),
            "dob_year": text([None, "1975", "1988", "1950"]),
            "sex": text(["F", "M", "F", "M"]),
            "zip3": text(["021", "100", "941", "000"]),
            "lvef": text(["35", "-1.5", '=HYPERLINK("x")', None]),
        }
    )
    visits = pd.DataFrame(
        {
            "subject_id": text(["S0001", "S0001", "S0002", "S0003", "S0004"]),
            "visit_year": text(["2024", "2024", "2024", "2024", "2024"]),
            "visit_type": text(["office", "@phone", "office", "+home", "office"]),
        }
    )
    crosswalk = pd.DataFrame({"subject_id": text(subj), "patient_id": text(KEYS)})
    return Release(
        pathway=pathway,
        label=pathway_spec(pathway).label,
        tables={"demographics": person, "visits": visits},
        crosswalk=crosswalk,
        id_column="subject_id",
        transformations=(
            "Direct identifier columns removed: mrn, name.",
            "Person key replaced by a random subject ID; crosswalk held back.",
            "Every date reduced to its year.",
        ),
        suppressed_rows={"demographics": 0, "visits": 0},
        parameters={
            "seed": 7,
            "zip3_table": {"vintage": "2020 Census DHC P1", "source": "bundled"},
            "salt": SALT,
            "salt_hex": SALT.hex(),
        },
    )


@dataclass(frozen=True)
class FakeCheck:
    id: str
    name: str
    rule: str
    severity: str = "blocking"
    explanation: str = ""


@dataclass(frozen=True)
class FakeOutcome:
    check: FakeCheck
    passed: bool
    count: int = 0
    detail: str = ""


@dataclass(frozen=True)
class FakeVerification:
    outcomes: tuple[FakeOutcome, ...]

    @property
    def blocking_failures(self) -> tuple[FakeOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.passed and o.check.severity == "blocking")

    @property
    def passed(self) -> bool:
        return not self.blocking_failures


def verification(*failed: str) -> FakeVerification:
    checks = [
        FakeCheck("row_counts", "Row counts match", "164.514(b)(2)"),
        FakeCheck("no_direct_columns", "No direct column survives", "164.514(b)(2)(i)"),
        FakeCheck("no_direct_values", "No direct value in any cell", "164.514(b)(2)(i)"),
        FakeCheck("no_full_dates", "No full date", "164.514(b)(2)(i)(C)"),
        FakeCheck("rare_zip", "Only allowed ZIP3", "164.514(b)(2)(i)(B)", "warning"),
    ]
    return FakeVerification(
        tuple(FakeOutcome(c, c.id not in failed, 3 if c.id in failed else 0) for c in checks)
    )


def inputs(base: Path) -> dict[str, tuple[Path, str]]:
    return {
        "demographics": (base / "demographics.csv", "a" * 64),
        "visits": (base / "visits.csv", "b" * 64),
    }


def tree(path: Path) -> set[str]:
    """Every file and folder under ``path`` (relative), hidden ones included."""
    if not path.exists():
        return set()
    return {str(p.relative_to(path)) for p in path.rglob("*")}
