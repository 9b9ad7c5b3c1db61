"""Ages are ages by their values (issue 16 item 3): a released column whose name or
values say age is read for ages over 89 in every table, whatever its tag; the Safe Harbor
pathway pools as '90+' the columns it knows are ages (the role, or a name that says age)
and the gate fails any released age over 89 it finds."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pandas as pd
import pytest

from deid_desktop.core.facts.ages import names_an_age
from deid_desktop.core.model import Role
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import verify_release
from tests.core.support import CL, TEXT, Q
from tests.core.test_safe_harbor_support import (
    PEOPLE_TAGS,
    VISITS_TAGS,
    make_case,
    replace_frame,
    tag,
    with_tag,
)


@pytest.mark.parametrize(
    "name",
    ["age", "AGE", "age_at_visit", "PatientAge", "age_yrs", "edad", "âge", "Alter", "età",
     "idade", "leeftijd", "yrs", "years", "years_old", "Edad_paciente"],
)  # fmt: skip
def test_names_that_say_age(name: str) -> None:
    assert names_an_age(name)


@pytest.mark.parametrize(
    "name",
    ["stage", "dosage", "page", "average", "years_of_education", "yrs_smoking", "year",
     "visit_year", "message", "lvef"],
)  # fmt: skip
def test_names_that_do_not_say_age(name: str) -> None:
    assert not names_an_age(name)


def _age(born: str, on: str) -> int:
    b, d = dt.date.fromisoformat(born), dt.date.fromisoformat(on)
    return d.year - b.year - ((d.month, d.day) < (b.month, b.day))


def _visits_with(extract, column: str, ages: bool = True):  # type: ignore[no-untyped-def]
    """The visits table with ``column`` holding each person's age at the visit."""
    people = extract.person.frame.set_index("pid")["dob"]
    visits = extract.table("visits").frame.copy()
    values = [
        str(_age(people[p], d)) for p, d in zip(visits["pid"], visits["visit_date"], strict=True)
    ]
    visits[column] = pd.array(values, dtype=TEXT)
    return replace_frame(extract, "visits", visits)


def _case(column: str, cls=CL, table: str = "visits", n: int = 24):  # type: ignore[no-untyped-def]
    extract, project = make_case(n)
    if table == "visits":
        extract = _visits_with(extract, column)
        spec = project.table("visits")
        spec = replace(spec, columns=(*VISITS_TAGS, tag(column, cls)))
        project = replace(
            project, tables=tuple(spec if t.name == "visits" else t for t in project.tables)
        )
    else:  # the person table's age column renamed and tagged without the role
        people = extract.person.frame.rename(columns={"age": column})
        extract = replace_frame(extract, "people", people)
        tags = tuple(tag(column, cls) if t.name == "age" else t for t in PEOPLE_TAGS)
        spec = replace(project.table("people"), columns=tags)
        project = replace(
            project, tables=tuple(spec if t.name == "people" else t for t in project.tables)
        )
    return extract, project


def _raw(release, extract, table: str, column: str):  # type: ignore[no-untyped-def]
    """The release with ``column`` put back as the input had it (a faulty pathway)."""
    cw = release.crosswalk.set_index("pid")["subject_id"]
    src = extract.table(table).frame
    frame = release.tables[table].copy()
    by_id = dict(zip(src["pid"].map(cw), src[column], strict=True))
    if table == "people":
        frame[column] = frame["subject_id"].map(by_id).astype(TEXT)
    else:  # visits: the same person's rows, in release order
        ordered = src.assign(sid=src["pid"].map(cw)).sort_values("sid", kind="stable")
        frame[column] = pd.array(ordered[column].tolist(), dtype=TEXT)
    return replace(release, tables={**release.tables, table: frame})


@pytest.mark.parametrize(
    ("column", "cls", "table"),
    [
        ("age_at_visit", CL, "visits"),
        ("age", Q, "people"),
        ("yrs", CL, "people"),
        ("edad", Q, "people"),
    ],
)
def test_an_age_column_without_the_role_is_pooled_and_checked(column, cls, table) -> None:  # type: ignore[no-untyped-def]
    extract, project = _case(column, cls, table)
    over = int((pd.to_numeric(extract.table(table).frame[column]) > 89).sum())
    assert over >= 2
    release = build_safe_harbor(extract, project)
    out = release.tables[table][column]
    assert (out == "90+").sum() == over
    assert not (pd.to_numeric(out, errors="coerce") > 89).any()
    verification = verify_release(extract, release, project)
    assert verification.passed, [o.check.id for o in verification.blocking_failures]
    # a release that kept the raw ages fails, naming the column and the count
    outcome = verify_release(extract, _raw(release, extract, table, column), project).outcome(
        "ages_pooled"
    )
    assert not outcome.passed
    assert outcome.count == over
    assert outcome.detail["cells_by_column"] == {f"{table}.{column}": over}
    (message,) = outcome.detail["messages"]
    assert f"{table}.{column}" in message and f"{over:,} ages over 89" in message


def test_an_age_at_visit_column_removes_the_years_of_persons_over_89() -> None:
    extract, project = _case("age_at_visit")
    release = build_safe_harbor(extract, project)
    visits = release.tables["visits"]
    old = set(visits.loc[visits["age_at_visit"] == "90+", "subject_id"])
    assert old
    for frame in release.tables.values():
        rows = frame["subject_id"].isin(old)
        for col in (c for c in frame.columns if c.endswith("_year")):
            assert frame.loc[rows, col].isna().all(), col


def test_ages_found_by_their_values_fail_the_gate_whatever_the_name() -> None:
    """A clinical column named ``v7`` that holds each person's age at the visit: the
    pathway cannot know, the gate reads the values against the birth dates."""
    extract, project = _case("v7")
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("ages_pooled")
    assert not outcome.passed
    assert outcome.detail["columns_read_as_ages"] == {"people.age": "role", "visits.v7": "values"}
    assert "agree with the birth dates" in outcome.detail["messages"][0]


def test_ages_taken_at_another_date_fail_the_gate_whatever_the_name() -> None:
    """Ages in months taken 18 months after each visit (a referral's date) under a
    clinical ``v7`` passed: they were more than a year off the age at the visit, so too
    few rows agreed. Two years of slack still tells ages from other numbers."""
    extract, project = make_case(24)
    people = extract.person.frame.set_index("pid")["dob"]
    visits = extract.table("visits").frame.copy()
    later = [
        (dt.date.fromisoformat(d) + dt.timedelta(days=548)).isoformat()
        for d in visits["visit_date"]
    ]
    months = [str(12 * _age(people[p], on) + 6) for p, on in zip(visits["pid"], later, strict=True)]
    visits["v7"] = pd.array(months, dtype=TEXT)
    extract = replace_frame(extract, "visits", visits)
    spec = replace(project.table("visits"), columns=(*VISITS_TAGS, tag("v7", CL)))
    project = replace(
        project, tables=tuple(spec if t.name == "visits" else t for t in project.tables)
    )
    outcome = verify_release(extract, build_safe_harbor(extract, project), project).outcome(
        "ages_pooled"
    )
    assert outcome.detail["columns_read_as_ages"].get("visits.v7") == "values"
    assert not outcome.passed


def test_whole_numbers_that_are_not_ages_pass() -> None:
    """Heart rates from 60 to 119 next to birth dates are not ages."""
    extract, project = _case("heart_rate")
    visits = extract.table("visits").frame.copy()
    visits["heart_rate"] = pd.array([str(60 + (i * 7) % 60) for i in range(len(visits))], TEXT)
    extract = replace_frame(extract, "visits", visits)
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("ages_pooled")
    assert outcome.passed
    assert "visits.heart_rate" not in outcome.detail["columns_read_as_ages"]


def test_the_age_role_column_stays_read_with_its_role() -> None:
    extract, project = make_case(6)
    project = replace(
        project,
        tables=tuple(
            replace(t, columns=with_tag(PEOPLE_TAGS, tag("age", Q, role=Role.AGE)))
            if t.is_person
            else t
            for t in project.tables
        ),
    )
    release = build_safe_harbor(extract, project)
    assert verify_release(extract, release, project).outcome("ages_pooled").passed


def _people_with(extract, project, column: str, write):  # type: ignore[no-untyped-def]
    """The person table with a clinical ``column``: ``write(age)`` for each person's age
    (the case's own age column)."""
    people = extract.person.frame.copy()
    people[column] = pd.array([write(int(a)) for a in people["age"]], dtype=TEXT)
    extract = replace_frame(extract, "people", people)
    spec = replace(project.table("people"), columns=(*PEOPLE_TAGS, tag(column, CL)))
    project = replace(project, tables=tuple(spec if t.is_person else t for t in project.tables))
    return extract, project


@pytest.mark.parametrize(
    ("column", "write"),
    [
        ("age_glued", lambda a: f"{a}y"),
        ("pt_age_txt", lambda a: f"{a} yrs"),
        ("agegrp", lambda a: f"{a // 5 * 5}-{a // 5 * 5 + 4}"),
        ("AgeBand", lambda a: f"{a // 10 * 10} to {a // 10 * 10 + 9}"),
        ("age_txt", lambda a: f"{a * 12} mo"),
        ("v_span", lambda a: f"{a * 12:,} months"),
        ("v_days", lambda a: f"{round(a * 365.25 + 100):,} days"),
    ],
)
def test_ages_written_with_a_unit_or_as_bands_fail_when_over_89(column: str, write) -> None:  # type: ignore[no-untyped-def]
    """``94y``, ``94 yrs`` and the band ``90-94`` under a clinical tag were released."""
    extract, project = make_case(24)
    extract, project = _people_with(extract, project, column, write)
    over = int((pd.to_numeric(extract.person.frame["age"]) > 89).sum())
    assert over >= 2
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("ages_pooled")
    assert not outcome.passed
    assert outcome.detail["cells_by_column"][f"people.{column}"] == over
    message = next(m for m in outcome.detail["messages"] if f"people.{column}" in m)
    assert "with a unit or as bands" in message


def test_decimal_ages_under_any_name_fail_by_their_values() -> None:
    """A person table with no date but the birth date: ages with a fraction, under a
    neutral name, agree with the ages at the reference date."""
    extract, project = make_case(24)
    extract, project = _people_with(extract, project, "v_metric", lambda a: f"{a}.{a % 7}")
    over = int((pd.to_numeric(extract.person.frame["age"]) > 89).sum())
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("ages_pooled")
    assert not outcome.passed
    assert outcome.detail["columns_read_as_ages"]["people.v_metric"] == "values"
    assert outcome.detail["cells_by_column"]["people.v_metric"] == over


def test_decimal_measurements_and_89_and_a_fraction_pass() -> None:
    """Creatinine-like decimals are not ages; 89.6 years is 89, not over 89."""
    extract, project = make_case(24)
    extract, project = _people_with(extract, project, "creatinine", lambda a: f"{a % 3}.{a % 9}")
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("ages_pooled")
    assert "people.creatinine" not in outcome.detail["cells_by_column"]
    extract, project = make_case(24)
    extract, project = _people_with(extract, project, "age_y", lambda a: f"{min(a, 89)}.6")
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("ages_pooled")
    assert "people.age_y" not in outcome.detail["cells_by_column"]


def test_ages_in_months_with_their_unit_under_90_years_pass() -> None:
    """``900 mo`` is 75 years: a cell that gives its unit is read in it (it counted as
    900 years before, or was not read as an age at all)."""
    extract, project = make_case(24)
    extract, project = _people_with(extract, project, "age_txt", lambda a: f"{min(a, 89) * 12} mo")
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("ages_pooled")
    assert outcome.detail["columns_read_as_ages"]["people.age_txt"] == "name"
    assert "people.age_txt" not in outcome.detail["cells_by_column"]


def _visits_column(values_of, name: str = "v8"):  # type: ignore[no-untyped-def]
    """The case with a clinical visits column ``name``: ``values_of(age at the visit,
    row number)`` per row."""
    extract, project = make_case(24)
    people = extract.person.frame.set_index("pid")["dob"]
    visits = extract.table("visits").frame.copy()
    ages = [_age(people[p], d) for p, d in zip(visits["pid"], visits["visit_date"], strict=True)]
    visits[name] = pd.array([values_of(a, i) for i, a in enumerate(ages)], dtype=TEXT)
    extract = replace_frame(extract, "visits", visits)
    spec = replace(project.table("visits"), columns=(*VISITS_TAGS, tag(name, CL)))
    project = replace(
        project, tables=tuple(spec if t.name == "visits" else t for t in project.tables)
    )
    release = build_safe_harbor(extract, project)
    return verify_release(extract, release, project).outcome("ages_pooled")


def test_ages_taken_years_apart_fail_the_gate_whatever_the_name() -> None:
    """The age at a follow-up five years on (or at death), under a clinical ``v8``:
    every row five years off the age at the visit passed; the same shift for nearly
    every row says ages, and those over 89 fail."""
    outcome = _visits_column(lambda age, i: str(age + 5))
    assert outcome.detail["columns_read_as_ages"].get("visits.v8") == "values"
    assert not outcome.passed


def test_a_measurement_that_grows_with_age_is_no_age() -> None:
    """A systolic pressure of 90 plus half the age, give or take: the shift from the age
    changes with the age, so it is not read as ages."""
    outcome = _visits_column(lambda age, i: str(90 + age // 2 + i % 5))
    assert "visits.v8" not in outcome.detail["columns_read_as_ages"]
