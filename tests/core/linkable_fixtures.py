"""Small hand-built extracts for the linkable and limited-data-set tests (no files)."""

from __future__ import annotations

import uuid
from dataclasses import replace

import pandas as pd

from deid_desktop.core.model import (
    ColumnTag,
    Extract,
    IdentifierCategory,
    LinkableOptions,
    OffsetMode,
    Pathway,
    Project,
    Role,
    TableSpec,
)
from tests.core.support import CL, DT, FT, D, Q, loaded

SALT = bytes(range(100, 132))
#: the gate checks of a linkable release that pass with a count of 0 on a correct one
LINKABLE_CHECKS = (
    "linkable_label",
    "link_keys_unique",
    "events_link_to_persons",
    "intervals_preserved",
    "no_true_dates",
    "offsets_per_person",
    "no_direct_columns",
    "linkable_no_zip5",
    "linkable_zip3_allowed",
    "linkable_ages_pooled",
    "linkable_birth_dates_over_89",
    "row_counts",
)
C = IdentifierCategory


def _s(values: list[str | None]) -> pd.Series:
    return pd.Series(values, dtype="string[pyarrow]")


PERSON_COLUMNS = (
    ColumnTag("patient_id", D, Role.PERSON_KEY, C.R),
    ColumnTag("mrn", D, None, C.H),
    ColumnTag("first_name", D, None, C.A),
    ColumnTag("street", D, None, C.B),
    ColumnTag("city", D, None, C.B),
    ColumnTag("state", Q),
    ColumnTag("zip", Q, Role.ZIP),
    ColumnTag("phone", D, None, C.D),
    ColumnTag("dob", DT, Role.BIRTH_DATE, date_format="%Y-%m-%d"),
    ColumnTag("age", Q, Role.AGE),
    ColumnTag("sex", Q, Role.SEX),
    ColumnTag("discharge", DT, Role.INDEX_DATE, date_format="%m/%d/%Y"),
    ColumnTag("notes", FT),
    ColumnTag("ef", CL),
)
VISIT_COLUMNS = (
    ColumnTag("patient_id", D, Role.PERSON_KEY, C.R),
    ColumnTag("visit_at", DT, date_format="%Y-%m-%d %H:%M:%S"),
    ColumnTag("kind", CL),
    ColumnTag("sbp", CL),
)


def person_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "patient_id": _s(["P001", "P002", "P003", "P004", "P005"]),
            "mrn": _s(["MRN-10001", "MRN-10002", "MRN-10003", "mrn-10004", "MRN-10005"]),
            "first_name": _s(["Ana", "Bob", "Chloé", "Dmitri", "Eve"]),
            "street": _s(["1 Elm St", "2 Oak Ave", "3 Pine Rd", None, "5 Ash Ln"]),
            "city": _s(["Omaha", "Lincoln", "Omaha", "Boston", None]),
            "state": _s(["NE", "NE", "NE", "MA", "NE"]),
            "zip": _s(["68504", "68114", "03601", "02139", None]),
            "phone": _s(["402-555-0101", "402-555-0102", None, "617-555-0104", "402-555-0105"]),
            "dob": _s(["1950-03-01", "1931-07-15", "1980-12-31", "2000-02-29", None]),
            "age": _s(["72", "91", "42", "22", "60"]),
            "sex": _s(["F", "M", "F", "M", "F"]),
            "discharge": _s(["03/02/2022", "08/01/2022", "01/15/2023", None, "06/30/2022"]),
            "notes": _s(["Ana called from 402-555-0101", None, "ok", "fine", "Eve's daughter"]),
            "ef": _s(["35", "40", None, "55", "25"]),
        }
    )


def visit_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "patient_id": _s(["P002", "P001", "P001", "P003", "P002", "P005", "P001"]),
            "visit_at": _s(
                [
                    "2022-08-10 09:30:00",
                    "2022-03-20 14:00:00",
                    "2022-04-20 08:15:00",
                    "2023-02-01 00:00:00",
                    None,
                    "2022-07-30 23:59:59",
                    "2021-12-31 12:00:00",
                ]
            ),
            "kind": _s(["clinic", "phone", "clinic", "clinic", "clinic", "er", "clinic"]),
            "sbp": _s(["120", "130", "125", None, "118", "140", "135"]),
        }
    )


def extract_and_project(
    *,
    mode: OffsetMode = OffsetMode.KEYED,
    days: int = 180,
    pathway: Pathway = Pathway.LINKABLE,
    person: pd.DataFrame | None = None,
    visits: pd.DataFrame | None = None,
) -> tuple[Extract, Project]:
    pframe = person_frame() if person is None else person
    vframe = visit_frame() if visits is None else visits
    extract = Extract(loaded("patients", pframe), (loaded("visits", vframe),))
    project = Project(
        project_id=uuid.uuid4().hex,
        name="test",
        tables=(
            TableSpec("patients", "patients.csv", "0" * 64, "patient_id", True, PERSON_COLUMNS),
            TableSpec("visits", "visits.csv", "0" * 64, "patient_id", False, VISIT_COLUMNS),
        ),
        pathway=pathway,
        linkable=LinkableOptions(offset_days=days, offset_mode=mode),
    )
    return extract, project


def with_linkable(project: Project, **changes: object) -> Project:
    return replace(project, linkable=replace(project.linkable, **changes))
