"""Age over 89 judged from the data (issue 9 item 2): a person over 89 at the data's
cut-off (the latest date in the extract) loses every year that states their age, in
every table, whatever age reference the user chose; and the gate fails a release that
keeps one, from the release alone.

Both Synthea sets, every age-reference mode: a fixed date before the cut-off, a fixed
date after it, and an index date that lives in an event table."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from deid_desktop.core.facts.ages import MAX_AGE, age_between
from deid_desktop.core.facts.dates import DateCache
from deid_desktop.core.facts.persons import all_positions
from deid_desktop.core.model import Pathway, Release
from deid_desktop.core.pathways import build_release
from deid_desktop.core.verify import verify_release
from tests.core.synthea_cases import SETS, synthea

SALT = bytes(range(32))
REFERENCES = ("index", "2000-01-01", "2030-06-30")


def _old_at_cutoff(name: str) -> set[str]:
    """Person keys over 89 at the extract's latest date (computed here, independently)."""
    extract, _project = synthea(name)
    latest = max(
        pd.to_datetime(t.frame[c], errors="coerce", utc=True).max().tz_localize(None)
        for t in extract.tables
        for c in t.frame.columns
        if c in ("BIRTHDATE", "DEATHDATE", "START", "STOP", "DATE")
    )
    born = pd.to_datetime(extract.person.frame["BIRTHDATE"])
    age = age_between(born, pd.Series(latest, index=born.index))
    return set(extract.person.frame["Id"][(age > MAX_AGE).fillna(False).to_numpy(dtype=bool)])


def _years_of(release: Release, keys: set[str], person: str) -> int:
    """Year cells released for the persons with these keys, in every table."""
    cw = release.crosswalk
    key_col = next(c for c in cw.columns if c != release.id_column)
    ids = set(cw.loc[cw[key_col].isin(keys), release.id_column])
    cells = 0
    for frame in release.tables.values():
        rows = frame[release.id_column].isin(ids).to_numpy(dtype=bool)
        for col in frame.columns:
            if col.endswith("_year") or col in ("BIRTHDATE", "DEATHDATE", "START", "STOP", "DATE"):
                cells += int(frame.loc[rows, col].notna().sum())
    return cells


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("name", sorted(SETS))
def test_no_year_of_a_person_over_89_at_the_cutoff(name: str, reference: str) -> None:
    old = _old_at_cutoff(name)
    # ds4biomed holds living persons over 89 at its cut-off (unmc's oldest is 88)
    assert len(old) >= 20 if name == "ds4biomed_apr2020" else not old
    extract, project = synthea(name, reference=reference)
    release = build_release(extract, project)
    assert _years_of(release, old, extract.person.name) == 0
    verification = verify_release(extract, release, project)
    assert verification.passed, [o.check.id for o in verification.blocking_failures]
    if old and reference != "2030-06-30":  # a reference after the cut-off finds them all
        assert any("cut-off" in s for s in release.transformations)


@pytest.mark.parametrize("name", sorted(SETS))
def test_linkable_releases_no_birth_date_of_a_person_over_89_at_the_cutoff(name: str) -> None:
    old = _old_at_cutoff(name)
    extract, project = synthea(name, Pathway.LINKABLE, reference="index")
    release = build_release(extract, project, salt=SALT)
    cw = release.crosswalk
    ids = set(cw.loc[cw["Id"].isin(old), release.id_column])
    person = release.tables["patients"]
    assert person.loc[person[release.id_column].isin(ids), "BIRTHDATE"].isna().all()
    assert verify_release(extract, release, project).passed


def _restore_birth_year(release: Release, key: str) -> Release:
    """The release with one old person's birth year written back (1930), as a faulty
    pathway would."""
    cw = release.crosswalk
    sid = cw.loc[cw["Id"] == key, release.id_column].iloc[0]
    frame = release.tables["patients"].copy()
    column = next(c for c in frame.columns if c.startswith("BIRTH"))
    frame[column] = frame[column].astype("string")
    frame.loc[frame[release.id_column] == sid, column] = "1930"
    return replace(release, tables={**release.tables, "patients": frame})


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_gate_fails_a_birth_year_of_a_person_over_89_at_the_cutoff(name: str) -> None:
    extract, project = synthea(name, reference="index")
    release = build_release(extract, project)
    old = sorted(_old_at_cutoff(name)) or sorted(extract.person.frame["Id"])
    forced = _restore_birth_year(release, old[0])
    outcome = verify_release(extract, forced, project).outcome("no_age_revealing_year")
    assert not outcome.passed and outcome.count >= 1


def test_the_gate_judges_the_release_alone_whatever_the_reference() -> None:
    """A release whose crosswalk says nothing (a hand-made one), judged by its years: a
    birth year 91 or more before the latest released year fails."""
    extract, project = synthea("ds4biomed_apr2020", reference="index")
    release = build_release(extract, project)
    forced = _restore_birth_year(release, sorted(_old_at_cutoff("ds4biomed_apr2020"))[0])
    empty = forced.crosswalk.iloc[0:0]
    alone = replace(forced, crosswalk=empty)
    outcome = verify_release(extract, alone, project).outcome("no_age_revealing_year")
    assert not outcome.passed
    assert outcome.detail["persons_over_89_at_the_release_cutoff"] >= 1


def test_the_cutoff_is_the_latest_date_in_the_extract() -> None:
    from deid_desktop.core.facts.ages import cutoff_date

    extract, project = synthea("ds4biomed_apr2020")
    dates = DateCache(extract)
    latest = cutoff_date(extract, project, dates)
    all_positions(extract, project)
    expected = max(
        pd.to_datetime(t.frame[c], errors="coerce", utc=True).max().tz_localize(None)
        for t in extract.tables
        for c in ("BIRTHDATE", "DEATHDATE", "START", "STOP", "DATE")
        if c in t.frame.columns
    )
    assert latest == expected
    assert isinstance(np.datetime64(latest), np.datetime64)


def test_the_linkable_gate_reads_a_birth_date_against_the_latest_date_alone() -> None:
    """A hand-made linkable release (its crosswalk says nothing) with a shifted birth
    date far before the latest shifted date fails; the release as built passes."""
    extract, project = synthea("ds4biomed_apr2020", Pathway.LINKABLE, reference="index")
    release = build_release(extract, project, salt=SALT)
    frame = release.tables["patients"].copy()
    frame["BIRTHDATE"] = frame["BIRTHDATE"].astype("string")
    frame.loc[0, "BIRTHDATE"] = "1925-06-01"
    forced = replace(
        release,
        tables={**release.tables, "patients": frame},
        crosswalk=release.crosswalk.iloc[0:0],
    )
    outcome = verify_release(extract, forced, project).outcome("linkable_birth_dates_over_89")
    assert not outcome.passed and outcome.count == 1
    alone = replace(release, crosswalk=release.crosswalk.iloc[0:0])
    assert verify_release(extract, alone, project).outcome("linkable_birth_dates_over_89").passed
