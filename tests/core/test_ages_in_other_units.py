"""Ages in months, weeks, days or hours (``age_months``: paediatric and geriatric extracts
carry them). The AGE role pools ages over 89 as '90+' *years*, which such a column cannot
hold: pooling it turned every months value above 89 into '90+' and made every person of
the release "over 89" (all their years removed) under a green verdict. Now such a column
is never pooled: it is kept as written, the gate fails it when it states 90 years or
more, and the AGE role on it is refused with a message naming the file and column."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from deid_desktop.core.errors import InputError
from deid_desktop.core.facts.ages import age_unit
from deid_desktop.core.model import ColumnClass, Role
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.tagging import suggest_tags
from deid_desktop.core.verify import verify_release
from tests.core.support import CL, TEXT, Q
from tests.core.test_safe_harbor_support import PEOPLE_TAGS, make_case, replace_frame, tag


@pytest.mark.parametrize(
    ("name", "unit"),
    [("age_months", "months"), ("AgeInMonths", "months"), ("age_mos", "months"),
     ("age_weeks", "weeks"), ("gest_age_wks", "weeks"), ("age_in_days", "days"),
     ("age_days", "days"), ("age_hours", "hours"), ("age", None), ("age_yrs", None),
     ("months_on_drug", None), ("days_in_icu", None), ("stage_months", None)],
)  # fmt: skip
def test_the_unit_a_name_gives_an_age(name: str, unit: str | None) -> None:
    found = age_unit(name)
    assert (found[0] if found else None) == unit


def _with_months(n: int = 24, *, cls=CL, role: Role | None = None, under_90_only=False):  # type: ignore[no-untyped-def]
    """The person table with ``age_months`` = age in years x 12 + 0..11 (blank for persons
    of 90 or more when ``under_90_only``: a paediatric-like column)."""
    extract, project = make_case(n)
    people = extract.person.frame.copy()
    years = pd.to_numeric(people["age"])
    months = [
        "" if under_90_only and y > 89 else str(int(y) * 12 + i % 12) for i, y in enumerate(years)
    ]
    people["age_months"] = pd.array(months, dtype=TEXT)
    extract = replace_frame(extract, "people", people)
    spec = project.table("people")
    spec = replace(spec, columns=(*PEOPLE_TAGS, tag("age_months", cls, role=role)))
    project = replace(
        project, tables=tuple(spec if t.name == "people" else t for t in project.tables)
    )
    return extract, project, int((years > 89).sum())


@pytest.mark.parametrize("cls", [CL, Q])
def test_ages_in_months_are_kept_as_written_and_fail_at_90_years(cls) -> None:  # type: ignore[no-untyped-def]
    extract, project, over = _with_months(cls=cls)
    assert over >= 2
    release = build_safe_harbor(extract, project)
    released = release.tables["people"]
    # not pooled: no '90+' in a months column, and only the persons over 89 lose years
    assert not (released["age_months"] == "90+").any()
    assert released["dob_year"].isna().sum() == over
    outcome = verify_release(extract, release, project).outcome("ages_pooled")
    assert not outcome.passed
    assert outcome.detail["cells_by_column"] == {"people.age_months": over}
    (message,) = outcome.detail["messages"]
    assert "in months" in message and f"{over:,} ages over 89 years" in message
    assert "direct identifier" in message and "convert" in message


def test_ages_in_months_under_90_years_pass() -> None:
    extract, project, _over = _with_months(under_90_only=True)
    release = build_safe_harbor(extract, project)
    verification = verify_release(extract, release, project)
    assert verification.passed, [o.check.id for o in verification.blocking_failures]
    kept = release.tables["people"]["age_months"].dropna()
    assert (pd.to_numeric(kept[kept != ""]) > 89).any()  # months above 89 are no age over 89


def test_the_age_role_on_ages_in_months_is_refused_naming_file_and_column() -> None:
    extract, project, _over = _with_months(cls=Q, role=Role.AGE)
    project = replace(
        project,
        tables=tuple(
            replace(t, columns=tuple(c for c in t.columns if c.name != "age")) if t.is_person else t
            for t in project.tables
        ),
    )
    with pytest.raises(InputError) as caught:
        build_safe_harbor(extract, project)
    assert caught.value.column == "age_months" and caught.value.file
    assert "months" in str(caught.value) and "years" in str(caught.value)


def test_the_tagger_gives_no_age_role_to_ages_in_months() -> None:
    frame = pd.DataFrame(
        {
            "age": pd.array([str(20 + i) for i in range(40)], dtype=TEXT),
            "age_months": pd.array([str(240 + 13 * i) for i in range(40)], dtype=TEXT),
        }
    )
    years, months = suggest_tags(frame, table="people", is_person=True)
    assert years.role is Role.AGE
    assert months.role is None and months.cls is ColumnClass.QUASI
    assert any("in months" in e for e in months.evidence)


def _visits_with_age_in(extract, column: str, per_year: float):  # type: ignore[no-untyped-def]
    """The visits table with ``column`` holding each person's age at the visit in a unit
    (``per_year`` units a year), a whole number."""
    people = extract.person.frame.set_index("pid")["dob"]
    visits = extract.table("visits").frame.copy()
    born = pd.to_datetime(visits["pid"].map(people))
    days = (pd.to_datetime(visits["visit_date"]) - born).dt.days
    visits[column] = pd.array([str(int(d * per_year / 365.2425)) for d in days], dtype=TEXT)
    return replace_frame(extract, "visits", visits)


@pytest.mark.parametrize(
    ("column", "per_year", "unit"),
    [("days_from_dob", 365.2425, "days"), ("t1", 12.0, "months"), ("wk", 365.2425 / 7, "weeks")],
)
def test_ages_in_another_unit_are_found_by_their_values_whatever_the_name(
    column: str, per_year: float, unit: str
) -> None:
    """A clinical column that counts the days (months, weeks) from birth to the visit
    states the age: 33,000 days is 90 years."""
    extract, project = make_case(24)
    extract = _visits_with_age_in(extract, column, per_year)
    spec = project.table("visits")
    spec = replace(spec, columns=(*spec.columns, tag(column, CL)))
    project = replace(
        project, tables=tuple(spec if t.name == "visits" else t for t in project.tables)
    )
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("ages_pooled")
    assert not outcome.passed
    assert outcome.detail["columns_read_as_ages"][f"visits.{column}"] == "values"
    over = outcome.detail["cells_by_column"][f"visits.{column}"]
    years = pd.to_numeric(extract.table("visits").frame[column]) / per_year
    assert over == int((years // 1 > 89).sum()) > 0
    (message,) = (m for m in outcome.detail["messages"] if column in m)
    assert f"in {unit}" in message


def test_age_bounds_read_each_distinct_cell_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The age regex runs in Python per value: a column of repeated ages is read once per
    # distinct cell and spread to the rows, with the same bounds as row by row.
    from deid_desktop.core.verify import ages

    cells = ["94", "1,080 mo", None, "90-94", "94", "40 wks", None, "n/a", "1,080 mo"] * 50
    values = pd.Series(cells, dtype=pd.StringDtype("pyarrow"))
    expected = ages._distinct_bounds(values)
    read: list[int] = []
    original = ages._distinct_bounds

    def counted(distinct: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        read.append(len(distinct))
        return original(distinct)

    monkeypatch.setattr(ages, "_distinct_bounds", counted)
    got = ages._bounds(values)
    assert read == [5]
    for mine, theirs in zip(got, expected, strict=True):
        np.testing.assert_array_equal(mine, theirs)
