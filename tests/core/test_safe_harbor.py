"""The Safe Harbor pathway on small hand-built extracts: what a reviewer would check."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pandas as pd
import pytest

from deid_desktop.core.errors import Cancelled, InputError, ProjectError
from deid_desktop.core.model import (
    FreeTextAction,
    Pathway,
    RiskSettings,
    TransformOptions,
)
from deid_desktop.core.pathways import build_release
from deid_desktop.core.pathways.common import random_subject_ids, year_column_name
from deid_desktop.core.pathways.registry import pathway_spec
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.progress import CancelToken
from deid_desktop.core.verify import verify_release
from tests.core.support import CL, DT
from tests.core.test_safe_harbor_support import (
    PEOPLE_TAGS,
    allowed_prefix,
    make_case,
    people,
    replace_frame,
    tag,
    without,
)


def _by_key(release, extract, table: str) -> pd.DataFrame:
    """The released table with the original person key joined back (via the crosswalk)."""
    cw = release.crosswalk
    return release.tables[table].merge(cw, on="subject_id", how="left")


def test_release_shape_label_and_direct_columns_gone() -> None:
    extract, project = make_case()
    release = build_release(extract, project)
    assert release.pathway == Pathway.SAFE_HARBOR
    assert release.label == pathway_spec(Pathway.SAFE_HARBOR).label
    assert list(release.tables["people"].columns) == [
        "subject_id",
        "dob_year",
        "age",
        "sex",
        "zip3",
    ]
    assert list(release.tables["stays"].columns) == [
        "subject_id",
        "admit_year",
        "discharge_year",
        "los",
    ]
    assert list(release.tables["visits"].columns) == ["subject_id", "visit_year", "sbp", "comment"]
    assert release.transformations[0] == (
        "Removed 5 direct-identifier columns: people.mrn, people.first_name, "
        "people.last_name, people.city, people.phone."
    )
    assert "Removed 1 free-text column: people.notes." in release.transformations
    assert verify_release(extract, release, project).passed


def test_subject_ids_random_seeded_and_crosswalk_held_back() -> None:
    extract, project = make_case()
    release = build_safe_harbor(extract, project)
    ids = release.tables["people"]["subject_id"]
    assert ids.str.fullmatch(r"S\d{4}").all()
    assert ids.is_unique and ids.is_monotonic_increasing  # rows ordered by subject ID
    cw = release.crosswalk
    assert list(cw.columns) == ["subject_id", "pid"]
    assert sorted(cw["pid"]) == sorted(extract.person.frame["pid"])
    assert "pid" not in release.tables["people"].columns
    # Another seed, other IDs; the same seed, the same IDs.
    other = build_safe_harbor(extract, replace(project, seed=7)).crosswalk
    assert not other.equals(cw)
    assert build_safe_harbor(extract, project).crosswalk.equals(cw)


def test_subject_ids_are_not_derived_from_the_key() -> None:
    extract, project = make_case()
    renamed = extract.person.frame.copy()
    renamed["pid"] = pd.array([f"Q-{i}{i}{i}" for i in range(len(renamed))], dtype="string")
    other = random_subject_ids(renamed["pid"], project.seed).ids
    assert (
        other.tolist() == random_subject_ids(extract.person.frame["pid"], project.seed).ids.tolist()
    )


def test_subject_id_never_contains_its_own_key_nor_equals_a_key() -> None:
    keys = pd.Series([f"{i:04d}" for i in range(1, 3001)], dtype="string")
    moved = 0
    for seed in range(1, 6):
        ids = random_subject_ids(keys, seed)
        assert not any(k in s for k, s in zip(keys, ids.ids, strict=True))
        moved += ids.reassigned
    assert moved > 0  # the coincidences happened and were swapped away
    s_keys = pd.Series([f"S{i:04d}" for i in range(1, 101)], dtype="string")
    ids2 = random_subject_ids(s_keys, 1).ids
    assert not ids2.isin(s_keys).any() and ids2.str[0].ne("S").all()


def test_event_tables_follow_the_same_subject_ids_in_subject_order() -> None:
    extract, project = make_case()
    release = build_safe_harbor(extract, project)
    visits = _by_key(release, extract, "visits")
    original = extract.table("visits").frame
    # Every visit kept its person and its values; rows grouped by subject, stable inside.
    merged = visits.merge(
        original.assign(visit_year=original["visit_date"].str[:4]),
        on=["pid", "sbp"],
        suffixes=("", "_in"),
    )
    assert len(merged) == len(original)
    assert (merged["visit_year"] == merged["visit_year_in"]).sum() == len(original) - 2
    assert visits["subject_id"].is_monotonic_increasing
    assert set(visits["subject_id"]) == set(release.tables["people"]["subject_id"])


def test_dates_become_years_and_the_over_89_person_loses_every_year() -> None:
    extract, project = make_case()
    release = build_safe_harbor(extract, project)
    p = _by_key(release, extract, "people").set_index("pid")
    assert p.loc["P-1002", "age"] == "90+"
    assert pd.isna(p.loc["P-1002", "dob_year"])
    assert p.loc["P-1001", "age"] == "77" and p.loc["P-1001", "dob_year"] == "1946"
    for table, col in (
        ("stays", "admit_year"),
        ("stays", "discharge_year"),
        ("visits", "visit_year"),
    ):
        t = _by_key(release, extract, table)
        assert t.loc[t["pid"] == "P-1002", col].isna().all()
        assert (t.loc[t["pid"] != "P-1002", col] == "2024").all()
    assert any("Pooled 1 person over 89 as '90+'" in s for s in release.transformations)
    assert release.parameters["persons_over_89"] == 1


def test_age_from_birth_date_at_the_index_date_in_an_event_table() -> None:
    tags = without(PEOPLE_TAGS, "age")
    data = people().drop(columns=["age"])
    extract, project = make_case(people_frame=data, people_tags=tags)
    release = build_safe_harbor(extract, project)
    p = _by_key(release, extract, "people").set_index("pid")
    assert "age" not in p.columns
    assert pd.isna(p.loc["P-1002", "dob_year"])  # 93 at discharge 2024-02-01
    assert release.parameters["age_reference_used"] == "index date 'stays.discharge_date'"


def test_age_at_an_iso_reference_date_and_its_boundary() -> None:
    tags = without(PEOPLE_TAGS, "age")
    data = people().drop(columns=["age"])
    data.loc[0, "dob"] = "1936-06-15"
    # On 2026-06-14 this person is 89; on 2026-06-15 they turn 90.
    for reference, over in (("2026-06-14", False), ("2026-06-15", True)):
        opts = TransformOptions(age_reference=reference)
        extract, project = make_case(people_frame=data, people_tags=tags, options=opts)
        p = _by_key(build_safe_harbor(extract, project), extract, "people").set_index("pid")
        assert pd.isna(p.loc["P-1001", "dob_year"]) is over


def test_age_and_birth_date_disagreeing_is_a_warning_with_lines_only() -> None:
    data = people()
    data.loc[2, "age"] = "40"  # born 1961: 62 at discharge
    extract, project = make_case(people_frame=data)
    release = build_safe_harbor(extract, project)
    (warning,) = release.warnings
    assert "1 persons have an age that differs by more than a year" in warning
    assert "people.csv lines 4" in warning
    assert "40" not in warning.replace("lines 4", "")


def test_birth_date_without_reference_and_without_age_is_refused() -> None:
    extract, project = make_case(
        people_frame=people().drop(columns=["age"]), people_tags=without(PEOPLE_TAGS, "age")
    )
    stays_spec = project.table("stays")
    stays_spec = stays_spec.with_column(tag("discharge_date", DT))
    project = project.with_table(stays_spec)
    with pytest.raises(ProjectError, match="reference date"):
        build_safe_harbor(extract, project)


def test_zip_cut_to_allowed_zip3_else_000() -> None:
    extract, project = make_case()
    release = build_safe_harbor(extract, project)
    p = _by_key(release, extract, "people").set_index("pid")
    assert p.loc["P-1001", "zip3"] == allowed_prefix()
    assert p.loc["P-1006", "zip3"] == allowed_prefix()  # ZIP+4
    for pid in ("P-1003", "P-1004", "P-1005"):  # missing, malformed, restricted
        assert p.loc[pid, "zip3"] == "000"
    assert any(
        s.startswith("Cut ZIP to 3 digits; 3 set to 000 (2020 Census DHC P1 table")
        for s in release.transformations
    )
    assert release.parameters["zip3_vintage"] == "2020 Census DHC P1"


def test_user_loaded_census_file_is_used_and_recorded(tmp_path) -> None:
    census = tmp_path / "newer.csv"
    census.write_text(f"zcta,population\n{allowed_prefix()}23,25000\n")
    extract, project = make_case(options=TransformOptions(zip3_table=str(census)))
    release = build_safe_harbor(extract, project)
    p = _by_key(release, extract, "people").set_index("pid")
    assert p.loc["P-1001", "zip3"] == allowed_prefix()
    assert p.loc["P-1002", "zip3"] == "000"  # not in the user's table
    assert release.parameters["zip3_vintage"] == "user file newer.csv"
    assert verify_release(extract, release, project).passed


def test_free_text_redacted_on_explicit_choice() -> None:
    opts = TransformOptions(free_text={"people.notes": FreeTextAction.REDACT})
    extract, project = make_case(options=opts)
    release = build_safe_harbor(extract, project)
    notes = release.tables["people"]["notes"]
    assert notes.str.contains(r"\[NAME\]").all()
    assert notes.str.contains(r"\[PHONE\]").all()
    assert not notes.str.contains("Elena").any()
    assert any("people.notes" in s and "[KIND]" in s for s in release.transformations)
    assert release.parameters["free_text"] == {"people.notes": "redact"}
    assert verify_release(extract, release, project).passed


def test_untagged_column_is_left_out_with_a_warning() -> None:
    data = people().assign(extra=pd.array(["x"] * 6, dtype="string"))
    extract, project = make_case(people_frame=data)
    release = build_safe_harbor(extract, project)
    assert "extra" not in release.tables["people"].columns
    assert any("people.extra" in w for w in release.warnings)


def test_risk_settings_bands_drop_zip3_and_suppression() -> None:
    extract, project = make_case(n=30)
    project = replace(
        project,
        risk=RiskSettings(age_bands=(0, 50, 70, 90), drop_zip3=True, suppress_below_k=True,
                          k_target=6, quasi_identifiers=("age", "sex")),
    )  # fmt: skip
    release = build_safe_harbor(extract, project)
    p = release.tables["people"]
    assert "zip3" not in p.columns
    assert set(p["age"].dropna()) <= {"0-49", "50-69", "70-89", "90+"}
    removed = release.suppressed_rows["people"]
    assert removed == 20 and len(p) == 10  # only (50-69, F) has 6 or more
    assert release.suppressed_rows["visits"] == 2 * removed
    assert set(release.tables["visits"]["subject_id"]) == set(p["subject_id"])
    assert verify_release(extract, release, project).passed


def test_cancel_stops_the_build() -> None:
    extract, project = make_case()
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        build_safe_harbor(extract, project, cancel=token)


def test_progress_is_reported_in_order() -> None:
    extract, project = make_case()
    seen: list[float] = []
    build_safe_harbor(extract, project, progress=lambda f, _s: seen.append(f))
    assert seen == sorted(seen) and seen[-1] == 1.0


def test_same_project_input_and_seed_give_identical_frames() -> None:
    extract, project = make_case(n=40)
    a, b = build_safe_harbor(extract, project), build_safe_harbor(extract, project)
    for name in a.tables:
        pd.testing.assert_frame_equal(a.tables[name], b.tables[name])
    pd.testing.assert_frame_equal(a.crosswalk, b.crosswalk)
    assert a.transformations == b.transformations and a.parameters == b.parameters


_TWIN = """
import hashlib, io
from tests.core.test_safe_harbor_support import make_case
from deid_desktop.core.pathways import build_release
extract, project = make_case(n=40)
release = build_release(extract, project)
h = hashlib.sha256()
for name in sorted(release.tables):
    buf = io.StringIO()
    release.tables[name].to_csv(buf, index=False, lineterminator="\\n")
    h.update(buf.getvalue().encode())
print(h.hexdigest())
"""


def test_two_fresh_processes_give_byte_identical_release_csv() -> None:
    runs = [
        subprocess.run(
            [sys.executable, "-c", _TWIN], capture_output=True, text=True, check=True
        ).stdout.strip()
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and len(runs[0]) == 64


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("discharge_date", "discharge_year"),
        ("VisitDate", "Visit_year"),
        ("dob", "dob_year"),
        ("admit_dt", "admit_year"),
        ("date", "date_year"),
    ],
)
def test_year_column_names(name: str, expected: str) -> None:
    assert year_column_name(name, ()) == expected


def test_year_column_name_never_collides() -> None:
    assert year_column_name("visit_date", ["visit_year"]) == "visit_date_year"


def test_event_row_of_an_unknown_person_is_refused_with_its_line() -> None:
    extract, project = make_case()
    visits = extract.table("visits").frame.copy()
    visits.loc[3, "pid"] = "P-9999"
    extract = replace_frame(extract, "visits", visits)
    with pytest.raises(InputError) as info:
        build_safe_harbor(extract, project)
    assert info.value.row == 5 and info.value.file == "visits.csv"
    assert "P-9999" not in str(info.value)


def test_duplicate_person_keys_are_refused() -> None:
    data = people()
    data.loc[1, "pid"] = data.loc[0, "pid"]
    extract, project = make_case(people_frame=data)
    with pytest.raises(InputError, match="appear more than once"):
        build_safe_harbor(extract, project)


def test_age_that_is_not_a_number_is_refused_with_its_line() -> None:
    data = people()
    data.loc[4, "age"] = "about sixty"
    extract, project = make_case(people_frame=data)
    with pytest.raises(InputError) as info:
        build_safe_harbor(extract, project)
    assert info.value.row == 6 and "sixty" not in str(info.value)


def test_without_a_reference_an_age_column_suffices_unless_an_age_is_missing() -> None:
    stays_tags = (tag("discharge_date", DT),)
    extract, project = make_case()
    project = project.with_table(project.table("stays").with_column(stays_tags[0]))
    release = build_safe_harbor(extract, project)
    assert any("not cross-checked" in w for w in release.warnings)
    data = people()
    data.loc[0, "age"] = None  # born 1946: their age would be unknown
    extract, _ = make_case(people_frame=data)
    with pytest.raises(ProjectError, match="1 persons have a birth date but no age"):
        build_safe_harbor(extract, project)


def test_a_kept_column_named_like_the_subject_id_is_refused() -> None:
    data = people().assign(subject_id=pd.array(["x"] * 6, dtype="string"))
    tags = (*PEOPLE_TAGS, tag("subject_id", CL))
    extract, project = make_case(people_frame=data, people_tags=tags)
    with pytest.raises(ProjectError, match="already uses"):
        build_safe_harbor(extract, project)
