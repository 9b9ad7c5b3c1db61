"""Synthea (unmc_crane_2023): patients + encounters + conditions + medications through the
linkable release, Safe Harbor and the limited data set, with intervals checked by hand.

The four files are copied verbatim (Synthea's UTC times such as ``2022-07-20T07:13:55Z``
included) so the test never writes into tests/data.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from deid_desktop.core import engine
from deid_desktop.core.model import (
    ColumnClass,
    Pathway,
)
from tests.core.linkable_fixtures import LINKABLE_CHECKS
from tests.core.support import SYNTHEA_TABLES as TABLES
from tests.core.support import synthea_project

SALT = bytes(range(7, 39))


@pytest.fixture(scope="module")
def synthea(public_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple:
    src = public_data / "synthea" / "unmc_crane_2023"
    return synthea_project(src, tmp_path_factory.mktemp("synthea"), Pathway.LINKABLE)


def test_tags_give_the_pathway_what_it_needs(synthea) -> None:
    project, _ = synthea
    patients = project.person_table
    assert patients.column("BIRTHDATE").cls == ColumnClass.DATE
    assert patients.column("SSN").cls == ColumnClass.DIRECT
    assert patients.column("INCOME").cls == ColumnClass.QUASI  # 5-digit incomes, not ZIPs
    assert project.table("encounters").column("START").cls == ColumnClass.DATE


def test_linkable_release_of_four_tables_keeps_every_interval(synthea) -> None:
    project, extract = synthea
    result = engine.review(project, extract, salt=SALT)
    release, verdict = result.release, result.verification
    outcomes = {o.check.id: (o.passed, o.count) for o in verdict.outcomes}
    for check in LINKABLE_CHECKS:
        assert outcomes[check] == (True, 0), check
    assert verdict.passed, [o.check.id for o in verdict.blocking_failures]

    assert set(release.tables) == {"patients", "encounters", "conditions", "medications"}
    for name, frame in release.tables.items():
        assert len(frame) == len(extract.table(name).frame)
        assert frame.columns[0] == "link_key"
        assert "PATIENT" not in frame.columns and "Id" not in frame.columns
    for gone in ("SSN", "FIRST", "LAST", "ADDRESS", "CITY", "LAT", "LON", "ZIP"):
        assert gone not in release.tables["patients"].columns

    # by hand: each person's START/STOP/BIRTHDATE moved by one offset across tables
    link = dict(zip(release.crosswalk["Id"], release.crosswalk["link_key"], strict=True))
    deltas = []
    for name, key in TABLES:
        before = extract.table(name).frame.copy()
        after = release.tables[name]
        before["link_key"] = before[key].map(link)
        before = before.sort_values("link_key", kind="stable").reset_index(drop=True)
        assert before["link_key"].tolist() == after["link_key"].tolist()
        for col in ("START", "STOP", "BIRTHDATE", "DEATHDATE"):
            if col not in after.columns:
                continue
            b = pd.to_datetime(before[col], format="ISO8601", utc=True).dt.tz_localize(None)
            a = pd.to_datetime(after[col], format="ISO8601", utc=True).dt.tz_localize(None)
            ok = a.notna() & b.notna()
            assert (a.notna() == b.notna()).all() or col == "BIRTHDATE"
            deltas.append(pd.DataFrame({"k": after["link_key"][ok], "d": (a - b)[ok]}))
    frame = pd.concat(deltas)
    assert len(frame) > 25_000
    assert (frame.groupby("k")["d"].nunique() == 1).all()
    days = frame["d"].dt.total_seconds().to_numpy() / 86_400
    assert (days != 0).all() and (np.abs(days) <= 180).all() and (days % 1 == 0).all()
    assert frame.groupby("k")["d"].first().nunique() > 50
    times = release.tables["encounters"]["START"].dropna()
    assert times.str.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}").all()


def test_safe_harbor_and_limited_data_set_of_the_same_tables(synthea) -> None:
    project, extract = synthea
    sh = engine.review(replace(project, pathway=Pathway.SAFE_HARBOR), extract)
    assert sh.verification.passed, [o.check.id for o in sh.verification.blocking_failures]
    assert "subject_id" in sh.release.tables["encounters"].columns
    assert set(sh.release.tables) == set(dict(TABLES))

    lds_project = replace(project, pathway=Pathway.LIMITED_DATA_SET)
    lds = engine.review(lds_project, extract)
    assert lds.verification.passed, [o.check.id for o in lds.verification.blocking_failures]
    patients = lds.release.tables["patients"]
    for kept in ("CITY", "STATE", "ZIP", "BIRTHDATE"):
        assert kept in patients.columns
    for gone in ("ADDRESS", "COUNTY", "LAT", "LON", "BIRTHPLACE", "SSN", "FIRST", "FIPS"):
        assert gone not in patients.columns
    assert patients["ZIP"].dropna().str.fullmatch(r"\d{5}").all()
