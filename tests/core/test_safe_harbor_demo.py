"""Golden cases on the demo extract (core.demo): the planted hard cases are caught and
the gate passes; the figures are the demo's own, recomputed from its input frames."""

from __future__ import annotations

import pandas as pd
import pytest

from deid_desktop.core.demo import demo_project, make_demo_frames, restricted_prefixes
from deid_desktop.core.model import Extract
from deid_desktop.core.pathways import build_release
from deid_desktop.core.verify import verify_release
from deid_desktop.core.zip3 import load_bundled_zip3
from tests.core.support import loaded


@pytest.fixture(scope="module")
def demo() -> tuple:
    frames = make_demo_frames()
    project = demo_project(frames, dict.fromkeys(frames, "0" * 64), 20260423)
    extract = Extract(
        loaded("demographics", frames["demographics"]),
        (loaded("baseline", frames["baseline"]), loaded("visits", frames["visits"])),
    )
    release = build_release(extract, project)
    return frames, extract, project, release


def test_demo_release_passes_the_gate(demo: tuple) -> None:
    _, extract, project, release = demo
    result = verify_release(extract, release, project)
    assert result.passed, [o.check.id for o in result.blocking_failures]
    assert all(o.count == 0 for o in result.outcomes)


def test_demo_row_counts_and_columns(demo: tuple) -> None:
    frames, _, _, release = demo
    for name, frame in frames.items():
        assert len(release.tables[name]) == len(frame)
    assert list(release.tables["demographics"].columns) == [
        "subject_id", "dob_year", "age", "sex", "race", "ethnicity", "zip3",
    ]  # fmt: skip
    assert list(release.tables["visits"].columns) == [
        "subject_id", "visit_year", "visit_type", "visit_day",
    ]  # fmt: skip


def test_demo_planted_restricted_zips_become_000(demo: tuple) -> None:
    frames, _, _, release = demo
    zips = frames["demographics"]["zip"]
    planted = zips.str[:3].isin(list(restricted_prefixes())).sum()
    assert planted > 0
    table = load_bundled_zip3()
    kept = zips.str.fullmatch(r"\d{5}").fillna(False) & zips.str[:3].map(
        lambda p: table.allowed(p) if isinstance(p, str) else False
    ).fillna(False).astype(bool)
    zip3 = release.tables["demographics"]["zip3"]
    assert (zip3 == "000").sum() == len(zips) - kept.sum()
    assert not zip3.isin(list(restricted_prefixes())).any()
    assert release.parameters["zip3_set_to_000"] == len(zips) - kept.sum()


def test_demo_ages_over_89_pooled_and_their_years_gone(demo: tuple) -> None:
    frames, _, _, release = demo
    demo_people = frames["demographics"]
    ages = pd.to_numeric(demo_people["age"], errors="coerce")
    born = pd.to_datetime(demo_people["dob"], format="%Y-%m-%d")
    discharge = pd.to_datetime(frames["baseline"]["discharge_date"], format="%Y-%m-%d")
    at = dict(zip(frames["baseline"]["patient_id"], discharge, strict=True))
    computed = [
        None if pd.isna(b) else
        at[p].year - b.year - ((at[p].month, at[p].day) < (b.month, b.day))
        for p, b in zip(demo_people["patient_id"], born, strict=True)
    ]  # fmt: skip
    old = (ages > 89).fillna(False) | pd.Series([c is not None and c > 89 for c in computed])
    out = release.tables["demographics"].merge(release.crosswalk, on="subject_id")
    out = out.set_index("patient_id").loc[demo_people["patient_id"]]
    assert int(old.sum()) == release.parameters["persons_over_89"] > 0
    assert (out["age"].to_numpy()[old.to_numpy()] == "90+").all()
    assert out["dob_year"].to_numpy()[old.to_numpy()].tolist() == [pd.NA] * int(old.sum())
    numeric = pd.to_numeric(out["age"], errors="coerce")
    assert (numeric.dropna() <= 89).all()


def test_demo_names_phones_mrns_and_notes_are_gone(demo: tuple) -> None:
    frames, _, _, release = demo
    people = frames["demographics"]
    released = "\n".join(
        release.tables[name].astype(str).to_csv(index=False) for name in release.tables
    )
    for column in ("mrn", "phone"):
        sample = people[column].dropna().iloc[:50]
        assert not any(v in released for v in sample)
    assert "notes" not in release.tables["demographics"].columns
    assert "Removed 1 free-text column: demographics.notes." in release.transformations
