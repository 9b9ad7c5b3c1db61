"""Second-reading cases: full dates in forms the gate once let through, and values
that must never be read as dates."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from deid_desktop.core.model import Release
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import verify_release
from tests.core.test_safe_harbor_support import make_case, people, replace_frame

EXTRACT, PROJECT = make_case()
CLEAN = build_safe_harbor(EXTRACT, PROJECT)


def _with_comment(value: str) -> Release:
    tables = {k: v.copy() for k, v in CLEAN.tables.items()}
    visits = tables["visits"]
    visits["comment"] = pd.array([value] * len(visits), dtype="string")
    tables["visits"] = visits
    return replace(CLEAN, tables=tables)


@pytest.mark.parametrize(
    "value",
    [
        "03-Mar-2024",
        "2024-03-03T10:15:00",
        "2024-03-03T10:15:00Z",
        "03Mar2024",
        "2024-Mar-03",
        "Mar-03-2024",
        "20240303T101500",
        "seen 3 March 2024",
        "Sept. 3, 2024",
    ],
)
def test_a_full_date_in_a_clinical_column_fails_whatever_its_form(value: str) -> None:
    outcome = verify_release(EXTRACT, _with_comment(value), PROJECT).outcome("no_full_dates")
    assert not outcome.passed
    assert outcome.detail["cells_by_column"] == {"visits.comment": len(CLEAN.tables["visits"])}


@pytest.mark.parametrize(
    "value", ["2024", "120/80", "decreased 3 units in 2024", "stable", "marks 3 2024", "410429000"]
)
def test_values_that_are_not_full_dates_pass(value: str) -> None:
    outcome = verify_release(EXTRACT, _with_comment(value), PROJECT).outcome("no_full_dates")
    assert outcome.passed, value


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("daughter reachable at 619-555-1234", "phone"),
        ("call (619) 555-1234 after 5", "phone"),
        ("ssn 123-45-6789 on file", "ssn"),
        ("wrote to someone@example.org", "email"),
        ("see https://example.org/p", "url"),
        ("from 10.1.2.3 overnight", "ip"),
    ],
)
def test_an_identifier_of_anyone_inside_a_clinical_cell_fails(value: str, kind: str) -> None:
    """Not in any direct column (a relative's phone), found by its shape."""
    outcome = verify_release(EXTRACT, _with_comment(value), PROJECT).outcome("no_direct_values")
    assert not outcome.passed
    assert outcome.detail["cells_by_identifier_shape"] == {kind: len(CLEAN.tables["visits"])}
    assert outcome.detail["columns"] == ["visits.comment"]


@pytest.mark.parametrize("value", ["120/80", "7.4", "2024", "ICD10 I50.9", "1.2.3", "8302-2"])
def test_clinical_values_are_not_read_as_identifier_shapes(value: str) -> None:
    outcome = verify_release(EXTRACT, _with_comment(value), PROJECT).outcome("no_direct_values")
    assert outcome.passed, value


def _no_role_case() -> tuple:
    """A birth date tagged as a plain date (no birth-date role) and a missing age: no
    age says the person is 94, but 1930 beside 2024 does."""
    from tests.core.support import DT
    from tests.core.test_safe_harbor_support import PEOPLE_TAGS, tag, with_tag

    frame = people(6)
    frame.loc[1, "age"] = None  # the 94-year-old, born 1930
    extract, project = make_case(
        people_frame=frame, people_tags=with_tag(PEOPLE_TAGS, tag("dob", DT))
    )
    return extract, project, build_safe_harbor(extract, project)


def test_safe_harbor_removes_years_91_apart_even_when_no_role_says_birth_date() -> None:
    extract, project, release = _no_role_case()
    assert release.parameters["persons_with_years_91_or_more_apart"] == 1
    assert release.tables["people"]["dob_year"].isna().sum() == 1
    old = release.tables["people"].loc[release.tables["people"]["dob_year"].isna(), "subject_id"]
    for name in ("stays", "visits"):
        frame = release.tables[name]
        rows = frame["subject_id"].isin(set(old))
        year_cols = [c for c in frame.columns if c.endswith("_year")]
        assert rows.any() and frame.loc[rows, year_cols].isna().all().all()
    assert verify_release(extract, release, project).passed


def test_the_gate_fails_years_91_apart_whatever_the_tags() -> None:
    extract, project, release = _no_role_case()
    people_out = release.tables["people"].copy()
    people_out["dob_year"] = people_out["dob_year"].fillna("1930")  # as before the fix
    stays_out = release.tables["stays"].copy()
    stays_out["admit_year"] = stays_out["admit_year"].fillna("2024")
    leaky = replace(release, tables={**release.tables, "people": people_out, "stays": stays_out})
    outcome = verify_release(extract, leaky, project).outcome("no_age_revealing_year")
    assert not outcome.passed
    assert outcome.detail["persons_with_years_91_or_more_apart"] == 1
    assert outcome.detail["cells_by_column"] == {"people.dob_year": 1, "stays.admit_year": 1}


def test_a_visit_91_years_after_birth_removes_the_years_of_a_person_aged_86_at_index() -> None:
    """Born 1933, discharged 2019 (86), seen again in 2024 (91): the years say over 89."""
    frame = people(6)
    frame.loc[0, "dob"] = "1933-01-01"
    frame.loc[0, "age"] = "86"
    extract, project = make_case(people_frame=frame)
    stays = extract.table("stays").frame.copy()
    stays.loc[0, "admit_date"] = "2019-01-05"
    stays.loc[0, "discharge_date"] = "2019-01-09"
    extract = replace_frame(extract, "stays", stays)
    release = build_safe_harbor(extract, project)
    assert release.parameters["persons_over_89"] == 1  # the 94-year-old of the support data
    # 91 at the data's cut-off (2024-03-02, the last visit): removed by the cut-off rule,
    # which the pair of years 91 apart restates
    assert release.parameters["persons_over_89_at_the_cutoff_only"] == 1
    assert any("1 other person over 89 at the data's cut-off" in t for t in release.transformations)
    assert verify_release(extract, release, project).passed


def test_years_90_apart_are_not_read_as_an_age_over_89() -> None:
    """A birth year 1934 and a visit in 2024 may be an 89-year-old: a pair of the
    person's own years 90 apart is not read as over 89. But 2024 is also the data's
    cut-off, and a birth year 90 years before the cut-off's year may state 90 there (the
    gate can only read years): the pathway removes them, the gate agrees."""
    frame = people(6)
    frame.loc[1, "age"] = "89"
    frame.loc[1, "dob"] = "1934-12-30"
    extract, project = make_case(people_frame=frame)
    release = build_safe_harbor(extract, project)
    assert release.parameters["persons_with_years_91_or_more_apart"] == 0
    assert release.parameters["persons_over_89_at_the_cutoff_only"] == 1
    outcome = verify_release(extract, release, project).outcome("no_age_revealing_year")
    assert outcome.passed, outcome.detail


def test_zip_codes_in_a_column_named_for_an_address_and_tagged_quasi_fail() -> None:
    """``residence`` (a name the tagger reads as an address) re-tagged quasi, no role:
    its 5-digit ZIPs were released untouched and no check read them as ZIPs."""
    from tests.core.test_safe_harbor_support import PEOPLE_TAGS, Q, allowed_prefix, tag

    frame = people(30).rename(columns={"zip": "residence"})
    frame["residence"] = pd.array(
        [f"{allowed_prefix(i % 5)}{i % 90 + 10:02d}" for i in range(30)], dtype="string"
    )
    tags = tuple(tag("residence", Q) if t.name == "zip" else t for t in PEOPLE_TAGS)
    extract, project = make_case(people_frame=frame, people_tags=tags)
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_identifier_values")
    assert not outcome.passed
    assert outcome.detail["found"]["people.residence"]["kind"] == "5-digit ZIP codes"
