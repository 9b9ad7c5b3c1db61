"""Identifiers kept under another name and tag fail the gate by their values: a birth year
kept as a clinical ``yob`` beside the pooled age, the ZIP copied into a clinical
``loc_code`` (both leaked in a release that passed every check before)."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.facts.years import years_by_values
from deid_desktop.core.pathways.linkable import LINK_KEY, build_linkable
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import verify_release
from tests.core.linkable_fixtures import SALT, extract_and_project, person_frame, visit_frame
from tests.core.support import CL, TEXT
from tests.core.test_safe_harbor_support import PEOPLE_TAGS, make_case, replace_frame, tag

N = 12


def _with_people_column(name: str, values: list[str | None]):  # type: ignore[no-untyped-def]
    """The three-table case with a clinical column ``name`` added to the person table."""
    extract, project = make_case(N)
    people = extract.person.frame.copy()
    people[name] = pd.array(values, dtype=TEXT)
    extract = replace_frame(extract, "people", people)
    spec = replace(project.table("people"), columns=(*PEOPLE_TAGS, tag(name, CL)))
    project = replace(project, tables=tuple(spec if t.is_person else t for t in project.tables))
    return extract, project


def _old_persons(extract) -> int:  # type: ignore[no-untyped-def]
    return int((pd.to_numeric(extract.person.frame["age"]) > 89).sum())


def test_a_birth_year_kept_as_a_clinical_column_fails_for_the_persons_over_89() -> None:
    extract, project = make_case(N)
    years = [d[:4] for d in extract.person.frame["dob"]]
    extract, project = _with_people_column("yob", years)
    old = _old_persons(extract)
    assert old >= 2  # the case has persons of 94
    release = build_safe_harbor(extract, project)
    assert release.tables["people"]["dob_year"].isna().sum() >= old  # the pathway's own year
    outcome = verify_release(extract, release, project).outcome("no_age_revealing_year")
    assert not outcome.passed
    assert outcome.detail["cells_by_column"] == {"people.yob": old}


def test_years_that_are_not_birth_years_still_pass() -> None:
    """A clinical column of years for persons under 90 (year of diagnosis) passes."""
    extract, project = make_case(N)
    young = pd.to_numeric(extract.person.frame["age"]) <= 89
    values = ["2019" if y else None for y in young]
    extract, project = _with_people_column("dx_yr_first", values)
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_age_revealing_year")
    assert outcome.passed, outcome.detail


def test_the_zip_copied_into_a_clinical_code_column_fails_the_zip_check() -> None:
    extract, project = make_case(N)
    zips = extract.person.frame["zip"]
    extract, project = _with_people_column("loc_code", zips.tolist())
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_zip5")
    # ZIP and ZIP+4 cells, and "1234": the ZIP 01234 that lost its leading zero
    five = int(zips.str.contains(r"\d{5}|^\d{4}$").fillna(False).sum())
    assert five >= N // 2
    assert not outcome.passed
    assert outcome.detail["cells_by_column"] == {"people.loc_code": five}
    assert "people.loc_code" in outcome.detail["columns_checked"]


def test_five_digit_codes_that_are_not_the_persons_zips_pass() -> None:
    """CPT-style 5-digit procedure codes are not ZIPs of the extract: not read as ZIPs."""
    extract, project = _with_people_column("cpt", ["99213", "99214", "93000"] * (N // 3))
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_zip5")
    assert outcome.passed
    assert "people.cpt" not in outcome.detail["columns_checked"]


def _with_zips_and_column(zips: list[str], name: str, values: list[str]):  # type: ignore[no-untyped-def]
    extract, project = _with_people_column(name, values)
    people = extract.person.frame.copy()
    people["zip"] = pd.array(zips, dtype=TEXT)
    return replace_frame(extract, "people", people), project


#: New England ZIPs, whose leading zero a spreadsheet drops ("02134" -> 2134).
ZERO_ZIPS = ["02134", "02138", "01701", "02446", "01852", "02019"] * (N // 6)


def test_zips_that_lost_their_leading_zero_in_a_clinical_column_fail() -> None:
    extract, project = _with_zips_and_column(ZERO_ZIPS, "loc", [z[1:] for z in ZERO_ZIPS])
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_zip5")
    assert not outcome.passed
    assert outcome.detail["cells_by_column"] == {"people.loc": N}


def test_zips_inside_a_text_cell_fail() -> None:
    values = [f"Area {z}" if i % 2 else "n/a" for i, z in enumerate(ZERO_ZIPS)]
    extract, project = _with_zips_and_column(ZERO_ZIPS, "area", values)
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_zip5")
    assert not outcome.passed
    assert outcome.detail["cells_by_column"] == {"people.area": N // 2}


def test_years_that_equal_zips_without_their_zero_pass() -> None:
    """2019 is also Bellingham's 02019 without its zero: a column of years is no ZIP."""
    years = ["2019", "2021", "2019", "2020", "2022", "2019"] * (N // 6)
    zips = ["02019", "02021", "02019", "02020", "02022", "02019"] * (N // 6)
    extract, project = _with_zips_and_column(zips, "dx_yr_first", years)
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_zip5")
    assert outcome.passed, outcome.detail
    assert "people.dx_yr_first" not in outcome.detail["columns_checked"]


@pytest.mark.parametrize("spread", [lambda z: f"{z[:3]}-{z[3:]}", lambda z: " ".join(z)])
def test_the_persons_own_zips_written_with_spaces_or_hyphens_fail(spread) -> None:  # type: ignore[no-untyped-def]
    values = [spread(z) for z in ZERO_ZIPS]  # "021-34", "0 2 1 3 4"
    extract, project = _with_zips_and_column(ZERO_ZIPS, "area_ref", values)
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_zip5")
    assert not outcome.passed
    assert outcome.detail["cells_by_column"] == {"people.area_ref": N}


def test_numbers_written_like_spread_zips_of_other_persons_pass() -> None:
    """Every cell is some person's ZIP written "021-34", but not its own row's: a code
    list that happens to look like ZIPs is not read as the persons' ZIPs."""
    shifted = ZERO_ZIPS[1:] + ZERO_ZIPS[:1]
    values = [f"{z[:3]}-{z[3:]}" for z in shifted]
    extract, project = _with_zips_and_column(ZERO_ZIPS, "kit_lot", values)
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_zip5")
    assert outcome.passed, outcome.detail


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1850, 2100), min_size=1, max_size=30),
    st.lists(st.integers(0, 1849) | st.integers(2101, 99999), max_size=2),
)
def test_years_by_values_reads_columns_that_are_nine_in_ten_years(
    years: list[int], others: list[int]
) -> None:
    cells = [str(y) for y in years] + [str(o) for o in others]
    uniq = pd.Series(cells, dtype=TEXT).value_counts()
    distinct_years = len(set(years))
    share = distinct_years / (distinct_years + len(set(others) - set(years)))
    assert years_by_values(uniq) == (share >= 0.9)


# --------------------------------------------------------------------- linkable releases


def _linkable_with(table: str, column: str, values_by_key):  # type: ignore[no-untyped-def]
    """A correct linkable release with ``column`` added to ``table``: per row, the value
    ``values_by_key`` gives for the row's input person key."""
    extract, project = extract_and_project()
    release = build_linkable(extract, project, salt=SALT)
    by_link = {v: k for k, v in release.crosswalk.set_index("patient_id")[LINK_KEY].items()}
    frame = release.tables[table].copy()
    frame[column] = pd.array([values_by_key(by_link[k]) for k in frame[LINK_KEY]], dtype=TEXT)
    release = replace(release, tables={**release.tables, table: frame})
    return verify_release(extract, release, project)


def test_a_linkable_release_keeping_a_birth_year_of_a_person_over_89_fails() -> None:
    born = dict(zip(person_frame()["patient_id"], person_frame()["dob"].str[:4], strict=True))
    outcome = _linkable_with("patients", "yob", born.get).outcome("linkable_birth_dates_over_89")
    assert not outcome.passed
    assert outcome.detail["birth_years_by_column"] == {"patients.yob": 1}  # P002, aged 91
    # the same column without the 91-year-old's year passes
    young = {k: v for k, v in born.items() if k != "P002"}
    assert (
        _linkable_with("patients", "yob", young.get).outcome("linkable_birth_dates_over_89").passed
    )


def test_a_linkable_release_keeping_unshifted_months_fails() -> None:
    """Unshifted year-months beside the shifted dates tell each person's offset."""
    outcome = _linkable_with("visits", "visit_month", lambda _key: "2022-08").outcome(
        "linkable_no_unshifted_dates"
    )
    assert not outcome.passed
    assert outcome.detail["cells_by_column"] == {"visits.visit_month": len(visit_frame())}
    assert "unshifted parts of dates" in outcome.detail["messages"][0]
