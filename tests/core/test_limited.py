"""The limited data set: what it keeps, what it removes, and the DUA gate."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    ExportMeta,
    IdentifierCategory,
    Pathway,
    Release,
)
from deid_desktop.core.pathways import build_release
from deid_desktop.core.pathways.limited import build_limited, lds_keeps, name_words
from deid_desktop.core.pathways.registry import pathway_spec
from deid_desktop.core.verify import verify_release
from tests.core.linkable_fixtures import extract_and_project

DUA = "DUA-2026-017"


@pytest.fixture
def built() -> tuple:
    extract, project = extract_and_project(pathway=Pathway.LIMITED_DATA_SET)
    project = replace(project, export=ExportMeta(dua=DUA))
    return extract, project, build_release(extract, project)


def _by_person(release: Release) -> dict[str, str]:
    cw = release.crosswalk
    assert cw is not None
    return dict(zip(cw["patient_id"], cw["subject_id"], strict=True))


def test_label_says_a_dua_is_required(built) -> None:
    _, _, release = built
    assert release.pathway == Pathway.LIMITED_DATA_SET
    assert release.label == pathway_spec(Pathway.LIMITED_DATA_SET).label
    assert "data use agreement required" in release.label
    assert "anonym" not in release.label.lower()
    assert "Safe Harbor" not in release.label
    assert any(DUA in s for s in release.transformations)


def test_keeps_dates_city_state_zip5_and_ages(built) -> None:
    extract, _, release = built
    person = release.tables["patients"].set_index("subject_id")
    ids = _by_person(release)
    p2 = person.loc[ids["P002"]]
    assert p2["dob"] == "1931-07-15"  # dates as written
    assert p2["discharge"] == "08/01/2022"
    assert p2["age"] == "91"  # ages over 89 may stay in a limited data set
    assert p2["city"] == "Lincoln" and p2["state"] == "NE"
    assert person.loc[ids["P003"], "zip"] == "03601"  # 5 digits, leading zero kept
    visits = release.tables["visits"]
    assert set(visits["visit_at"].dropna()) == set(
        extract.table("visits").frame["visit_at"].dropna()
    )


def test_removes_the_listed_identifiers_and_the_person_key(built) -> None:
    _, _, release = built
    person = release.tables["patients"]
    for gone in ("patient_id", "mrn", "first_name", "street", "phone", "notes"):
        assert gone not in person.columns
    assert "patient_id" not in release.tables["visits"].columns
    assert person["subject_id"].str.fullmatch(r"[A-Z]\d{4}").all()


def test_zip_plus_four_is_cut_to_five_digits() -> None:
    extract, project = extract_and_project(pathway=Pathway.LIMITED_DATA_SET)
    frame = extract.person.frame.copy()
    frame.loc[0, "zip"] = "68504-1234"
    frame.loc[1, "zip"] = "6850"  # malformed
    extract2, _ = extract_and_project(pathway=Pathway.LIMITED_DATA_SET, person=frame)
    release = build_limited(extract2, project)
    zips = release.tables["patients"].set_index("subject_id")["zip"]
    ids = _by_person(release)
    assert zips[ids["P001"]] == "68504"
    assert pd.isna(zips[ids["P002"]])
    assert any("not 5-digit" in w for w in release.warnings)


@pytest.mark.parametrize(
    ("column", "kept"),
    [
        ("CITY", True),
        ("home_city", True),
        ("homeTown", True),
        ("STATE", True),
        ("ADDRESS", False),
        ("address_city", False),
        ("street_line1", False),
        ("COUNTY", False),
        ("LAT", False),
        ("BIRTHPLACE", False),
        ("FIPS", False),
    ],
)
def test_which_geographic_columns_stay(column: str, kept: bool) -> None:
    _, project = extract_and_project()
    tag = ColumnTag(column, ColumnClass.DIRECT, None, IdentifierCategory.B)
    spec = project.person_table
    spec = replace(spec, columns=(*spec.columns, tag))
    project = project.with_table(spec)
    assert lds_keeps(project, "patients", column) is kept


def test_only_category_b_geography_stays() -> None:
    _, project = extract_and_project()
    spec = project.person_table
    spec = replace(
        spec,
        columns=(
            *spec.columns,
            ColumnTag("city_code", ColumnClass.DIRECT, None, IdentifierCategory.R),
        ),
    )
    assert not lds_keeps(project.with_table(spec), "patients", "city_code")
    assert name_words("homeCity_Name2") == {"home", "city", "name2"}


def test_export_gate_refuses_without_a_dua() -> None:
    extract, project = extract_and_project(pathway=Pathway.LIMITED_DATA_SET)
    release = build_limited(extract, project)
    verdict = verify_release(extract, release, project)
    assert not verdict.passed
    assert [o.check.id for o in verdict.blocking_failures] == ["dua_present"]
    assert any("data use agreement" in w for w in release.warnings)


def test_gate_passes_with_a_dua_and_runs_the_lds_checks(built) -> None:
    extract, project, release = built
    verdict = verify_release(extract, release, project)
    ids = {o.check.id: (o.passed, o.count) for o in verdict.outcomes}
    for check in (
        "lds_label",
        "dua_present",
        "lds_no_direct_columns",
        "lds_no_direct_values",
        "lds_subject_ids",
        "row_counts",
    ):
        assert ids[check] == (True, 0), check
    assert "no_full_dates" not in ids and "no_zip5" not in ids


def test_gate_catches_a_removed_identifier_that_came_back(built) -> None:
    extract, project, release = built
    tables = {k: v.copy() for k, v in release.tables.items()}
    tables["visits"].loc[0, "kind"] = "MRN-10003"
    tables["patients"]["phone"] = "402-555-0101"
    verdict = verify_release(extract, replace(release, tables=tables), project)
    failed = {o.check.id: o.count for o in verdict.blocking_failures}
    assert failed["lds_no_direct_columns"] == 1
    assert failed["lds_no_direct_values"] == 1 + len(tables["patients"])
