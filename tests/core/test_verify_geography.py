"""Geography by values (issue 9 item 3): Synthea's LAT, LON, CITY, COUNTY, ADDRESS and
BIRTHPLACE re-tagged clinical or quasi are refused under Safe Harbor (and the linkable
release), each by what it holds; the limited data set keeps town or city, county and
coordinates but never a street address; common words that equal a town's name pass."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from deid_desktop.core.model import ColumnClass, Pathway
from deid_desktop.core.pathways import build_release
from deid_desktop.core.verify import VerifyContext, verify_release
from deid_desktop.core.verify.geography import (
    check_no_geography,
    names_a_place,
)
from tests.core.support import TEXT
from tests.core.synthea_cases import _loaded, synthea
from tests.core.test_safe_harbor_support import VISITS_TAGS, make_case, replace_frame

SALT = bytes(range(32))
GEO = ("LAT", "LON", "CITY", "COUNTY", "ADDRESS", "BIRTHPLACE")


def _retagged(name: str, columns: tuple[str, ...], cls: ColumnClass) -> dict:
    spec = next(s for _t, s in _loaded(name) if s.name == "patients")
    return {
        f"patients.{c}": replace(spec.column(c), cls=cls, category=None, role=None) for c in columns
    }


@pytest.mark.parametrize("cls", [ColumnClass.CLINICAL, ColumnClass.QUASI])
@pytest.mark.parametrize("column", GEO)
@pytest.mark.parametrize("name", ["ds4biomed_apr2020", "unmc_crane_2023"])
def test_a_place_column_retagged_fails_safe_harbor(name: str, column: str, cls) -> None:  # type: ignore[no-untyped-def]
    extract, project = synthea(name, retag=_retagged(name, (column,), cls))
    release = build_release(extract, project)
    assert column in release.tables["patients"].columns  # released as tagged
    verification = verify_release(extract, release, project)
    outcome = verification.outcome("no_geography")
    assert not outcome.passed
    assert outcome.detail["columns"] == [f"patients.{column}"]
    assert outcome.count == len(extract.person.frame[column].dropna())
    (message,) = outcome.detail["messages"]
    assert f"patients.{column}" in message and "tag it as a direct identifier" in message
    cells = set(extract.person.frame[column].dropna())
    assert not any(v in message for v in cells)  # no value in the message


def _unnamed(name: str, columns: dict[str, str]):  # type: ignore[no-untyped-def]
    """The set with place columns renamed to say nothing (``c1``...), tagged clinical:
    found by their values alone."""
    extract, project = synthea(name)
    frame = extract.person.frame.rename(columns=columns)
    extract = replace_frame(extract, "patients", frame)
    spec = project.table("patients")
    cols = tuple(
        replace(t, name=columns[t.name], cls=ColumnClass.CLINICAL, category=None)
        if t.name in columns
        else t
        for t in spec.columns
    )
    spec = replace(spec, columns=cols)
    return extract, replace(
        project, tables=tuple(spec if t.is_person else t for t in project.tables)
    )


@pytest.mark.parametrize(
    ("columns", "kind"),
    [
        ({"LAT": "c1", "LON": "c2"}, "coordinates in decimal degrees"),
        ({"ADDRESS": "c1"}, "street addresses"),
        ({"CITY": "c1"}, "cities, towns or counties"),
        ({"COUNTY": "c1"}, "cities, towns or counties"),
    ],
)
def test_places_are_found_by_their_values_whatever_the_name(columns, kind) -> None:  # type: ignore[no-untyped-def]
    extract, project = _unnamed("ds4biomed_apr2020", columns)
    release = build_release(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_geography")
    assert not outcome.passed
    assert {f["kind"] for f in outcome.detail["found"].values()} == {kind}
    assert sorted(outcome.detail["columns"]) == sorted(f"patients.{c}" for c in columns.values())


def test_one_coordinate_column_alone_is_not_read_as_a_place() -> None:
    """Decimal numbers with four decimals and no partner column (a lab value) pass."""
    extract, project = _unnamed("ds4biomed_apr2020", {"LAT": "c1"})
    release = build_release(extract, project)
    assert verify_release(extract, release, project).outcome("no_geography").passed


def test_a_pair_in_one_cell_is_a_coordinate() -> None:
    extract, project = make_case(30)
    visits = extract.table("visits").frame.copy()
    visits["comment"] = pd.array(
        [f"{40 + i / 1000:.4f}, {-96 - i / 1000:.4f}" for i in range(len(visits))], dtype=TEXT
    )
    extract = replace_frame(extract, "visits", visits)
    release = build_release(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_geography")
    assert outcome.detail["found"] == {
        "visits.comment": {"kind": "latitude and longitude pairs", "rows": len(visits)}
    }


def test_common_words_that_equal_a_town_pass() -> None:
    """A column of findings where one or two values are also town names ("Normal",
    "Hope") is not geography; nor race ("White")."""
    extract, project = make_case(30)
    visits = extract.table("visits").frame.copy()
    words = ["Normal", "Abnormal", "Hope", "Stable", "Improved", "Worse", "Unchanged"]
    visits["comment"] = pd.array([words[i % len(words)] for i in range(len(visits))], TEXT)
    extract = replace_frame(extract, "visits", visits)
    release = build_release(extract, project)
    assert verify_release(extract, release, project).outcome("no_geography").passed


def test_street_addresses_in_a_comment_column_fail() -> None:
    extract, project = make_case(12)
    visits = extract.table("visits").frame.copy()
    comments = ["stable"] * len(visits)
    comments[3] = "moved to 12 Harbor View Rd last week"
    visits["comment"] = pd.array(comments, dtype=TEXT)
    extract = replace_frame(extract, "visits", visits)
    project = replace(
        project,
        tables=tuple(
            replace(t, columns=VISITS_TAGS) if t.name == "visits" else t for t in project.tables
        ),
    )
    release = build_release(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_geography")
    assert outcome.detail["found"] == {"visits.comment": {"kind": "street addresses", "rows": 1}}


@pytest.mark.parametrize(
    ("column", "says"),
    [("LAT", True), ("home_city", True), ("AddressLine1", True), ("county_fips", True),
     ("STATE", False), ("zip", False), ("lvef", False), ("stage", False)],
)  # fmt: skip
def test_names_that_say_place(column: str, says: bool) -> None:
    assert names_a_place(column) is says


def test_the_limited_data_set_keeps_city_county_and_coordinates_not_street_addresses() -> None:
    name = "ds4biomed_apr2020"
    kept = ("LAT", "LON", "CITY", "COUNTY")
    extract, project = synthea(
        name, Pathway.LIMITED_DATA_SET, retag=_retagged(name, kept, ColumnClass.CLINICAL)
    )
    release = build_release(extract, project)
    verification = verify_release(extract, release, project)
    assert verification.passed, [o.check.id for o in verification.blocking_failures]
    assert set(kept) <= set(release.tables["patients"].columns)
    extract, project = synthea(
        name, Pathway.LIMITED_DATA_SET, retag=_retagged(name, ("ADDRESS",), ColumnClass.QUASI)
    )
    release = build_release(extract, project)
    outcome = verify_release(extract, release, project).outcome("lds_no_street_address")
    assert not outcome.passed and outcome.detail["columns"] == ["patients.ADDRESS"]


def test_linkable_releases_are_read_for_places_too() -> None:
    name = "unmc_crane_2023"
    extract, project = synthea(
        name, Pathway.LINKABLE, retag=_retagged(name, ("CITY",), ColumnClass.QUASI)
    )
    release = build_release(extract, project, salt=SALT)
    outcome = check_no_geography(extract, release, project, VerifyContext(extract, project))
    assert outcome.detail["columns"] == ["patients.CITY"]


@pytest.mark.parametrize("name", ["ds4biomed_apr2020", "unmc_crane_2023"])
def test_the_synthea_sets_as_tagged_pass(name: str) -> None:
    """No false alarm on every event table's descriptions and codes."""
    for pathway in (Pathway.SAFE_HARBOR, Pathway.LINKABLE):
        extract, project = synthea(name, pathway)
        release = build_release(extract, project, salt=SALT)
        outcome = check_no_geography(extract, release, project, VerifyContext(extract, project))
        assert outcome.passed, outcome.detail
