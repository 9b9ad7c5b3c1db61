"""The verification gate: a clean release passes; each crafted leak fails its check
with the right count; outcomes never carry a value."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    Extract,
    Pathway,
    Project,
    Release,
    Role,
)
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import (
    BLOCKING,
    CHECKS,
    WARNING,
    Check,
    Finding,
    Verification,
    VerifyContext,
    checks_for,
    names_a_postal_code,
    run_check,
    verify_release,
)
from tests.core.test_safe_harbor_support import PEOPLE_TAGS, make_case, people, restricted_prefix

EXTRACT, PROJECT = make_case(n=12)
CLEAN = build_safe_harbor(EXTRACT, PROJECT)
SH_IDS = {
    "row_counts",
    "no_direct_columns",
    "no_direct_values",
    "no_full_dates",
    "no_zip5",
    "zip3_allowed",
    "ages_pooled",
    "no_age_revealing_year",
    "subject_ids",
    "no_identifier_values",
    "no_geography",
    "new_year_events",
    "no_identifiers_in_text",
    "no_date_elements",
    "crosswalk_apart",
}


def _tamper(table: str, edit: Callable[[pd.DataFrame], pd.DataFrame], **changes: object) -> Release:
    tables = {k: v.copy() for k, v in CLEAN.tables.items()}
    tables[table] = edit(tables[table])
    return replace(CLEAN, tables=tables, **changes)


def _set(column: str, row: int, value: object) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def edit(frame: pd.DataFrame) -> pd.DataFrame:
        if column not in frame.columns:
            frame[column] = pd.array([None] * len(frame), dtype="string")
        frame.loc[row, column] = value
        return frame

    return edit


def _old_subject() -> str:
    """The subject ID of the person over 89 (the second row of the support data)."""
    cw = CLEAN.crosswalk
    old = EXTRACT.person.frame.loc[1, "pid"]
    return str(cw.loc[cw["pid"] == old, "subject_id"].iloc[0])


def _row_of(table: str, subject: str) -> int:
    frame = CLEAN.tables[table]
    return int(frame.index[frame["subject_id"] == subject][0])


def test_clean_release_passes_every_safe_harbor_check() -> None:
    result = verify_release(EXTRACT, CLEAN, PROJECT)
    assert result.passed and not result.blocking_failures
    assert {o.check.id for o in result.outcomes} == SH_IDS
    assert all(o.passed and o.count == 0 for o in result.outcomes)


MRN = str(EXTRACT.person.frame.loc[3, "mrn"])
PHONE = str(EXTRACT.person.frame.loc[5, "phone"])
LAST = str(EXTRACT.person.frame.loc[1, "last_name"])
ZIP5 = str(EXTRACT.person.frame.loc[0, "zip"])

LEAKS = [
    # (case, table, edit, check id, count)
    ("mrn inside a clinical column", "visits", _set("comment", 0, f"ref {MRN.lower()} ok"),
     "no_direct_values", 1),
    ("phone as a whole cell", "visits", _set("comment", 3, PHONE), "no_direct_values", 1),
    ("phone digits only", "visits", _set("comment", 3, "".join(c for c in PHONE if c.isdigit())),
     "no_direct_values", 1),
    ("surname as a whole word", "visits", _set("comment", 2, f"seen by {LAST} today"),
     "no_direct_values", 1),
    ("direct column kept", "people", _set("mrn", 0, "x"), "no_direct_columns", 1),
    ("person key kept", "stays", _set("pid", 0, "x"), "no_direct_columns", 1),
    ("iso date", "visits", _set("comment", 1, "2024-03-01"), "no_full_dates", 1),
    ("us date", "stays", _set("los", 1, "seen 3/1/24"), "no_full_dates", 1),
    ("month-name date", "visits", _set("comment", 4, "on March 1, 2024"), "no_full_dates", 1),
    ("5-digit zip in zip3", "people", _set("zip3", 0, ZIP5), "no_zip5", 1),
    ("5-digit zip in a postal-code column", "people", _set("PostalCode", 0, ZIP5), "no_zip5", 1),
    ("zip+4 in a postal-code column", "visits", _set("post_code", 2, f"{ZIP5}-1234"), "no_zip5",
     1),
    ("restricted zip3", "people", _set("zip3", 0, restricted_prefix()), "zip3_allowed", 1),
    ("restricted zip3 in a column named for ZIPs", "people",
     _set("home_zip3", 0, restricted_prefix()), "zip3_allowed", 1),
    ("age over 89", "people", _set("age", 0, "95"), "ages_pooled", 1),
    ("age band above 89", "people", _set("age", 0, "85-94"), "ages_pooled", 1),
    ("finer top code", "people", _set("age", 0, "95+"), "ages_pooled", 1),
    ("duplicated subject id", "people", _set("subject_id", 1, str(CLEAN.crosswalk.iloc[0, 0])),
     "subject_ids", 4),  # 1 duplicate, and that person's 1 stay + 2 visits left unlinked
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "table", "edit", "check", "count"), LEAKS, ids=[c[0] for c in LEAKS]
)
def test_each_leak_fails_its_check_with_the_right_count(
    case: str, table: str, edit: Callable, check: str, count: int
) -> None:
    result = verify_release(EXTRACT, _tamper(table, edit), PROJECT)
    outcome = result.outcome(check)
    assert not outcome.passed, case
    assert outcome.count == count, case
    assert not result.passed
    assert check in {o.check.id for o in result.blocking_failures}


def test_masked_zips_under_any_name_are_judged_by_their_zip3() -> None:
    """``036XX`` in a clinical ``region`` column passed: it is a restricted ZIP3 (the
    prefix of fewer than 20,000 people) whatever the column is called."""

    def masked(prefix: str) -> Callable[[pd.DataFrame], pd.DataFrame]:
        def edit(frame: pd.DataFrame) -> pd.DataFrame:
            cells = ["919XX"] * len(frame)
            cells[0] = f"{prefix}XX"
            frame["region"] = pd.array(cells, dtype="string")
            return frame

        return edit

    outcome = verify_release(EXTRACT, _tamper("people", masked(restricted_prefix())), PROJECT)
    assert not outcome.outcome("zip3_allowed").passed
    assert outcome.outcome("zip3_allowed").detail["cells_by_column"] == {"people.region": 1}
    allowed = verify_release(EXTRACT, _tamper("people", masked("919")), PROJECT)
    assert allowed.outcome("zip3_allowed").passed


def test_a_column_of_the_persons_own_zip3s_is_judged_whatever_its_name() -> None:
    """Each person's ZIP3 copied into a clinical ``area`` column (three digits, no
    name that says ZIP) passed beside the ZIP3 column that had blanked the restricted
    prefix: the rows are paired with their persons, and a column of their own ZIP3s is
    read as one. A column of 3-digit measurements is not."""
    person = EXTRACT.person.frame.set_index("pid")["zip"]
    cw = CLEAN.crosswalk.set_index("subject_id")["pid"]

    def copied(frame: pd.DataFrame) -> pd.DataFrame:
        zips = person.reindex(cw.reindex(frame["subject_id"]).to_numpy())
        area = zips.astype("string").str.zfill(5).str[:3]
        frame["area"] = pd.array(area.to_numpy(), dtype="string")
        return frame

    def measured(frame: pd.DataFrame) -> pd.DataFrame:
        cells = [str(110 + 3 * i) for i in range(len(frame))]
        cells[0] = restricted_prefix()
        frame["sbp"] = pd.array(cells, dtype="string")
        return frame

    def others(frame: pd.DataFrame) -> pd.DataFrame:  # a ZIP3 of another person's
        swap = {"227": "036", "036": "227", "228": "012", "012": "228"}
        frame = copied(frame)
        frame["area"] = frame["area"].map(swap, na_action="ignore").astype("string")
        return frame

    outcome = verify_release(EXTRACT, _tamper("people", copied), PROJECT)
    assert not outcome.outcome("zip3_allowed").passed
    assert (
        verify_release(EXTRACT, _tamper("people", others), PROJECT).outcome("zip3_allowed").passed
    )
    restricted = int((person.astype("string").str.zfill(5).str[:3] == restricted_prefix()).sum())
    assert restricted > 0
    assert outcome.outcome("zip3_allowed").detail["cells_by_column"] == {"people.area": restricted}
    assert (
        verify_release(EXTRACT, _tamper("people", measured), PROJECT).outcome("zip3_allowed").passed
    )


def test_names_match_whole_words_only_and_short_values_are_skipped() -> None:
    release = _tamper("visits", _set("comment", 2, f"{LAST}son"))
    assert verify_release(EXTRACT, release, PROJECT).outcome("no_direct_values").passed
    detail = verify_release(EXTRACT, CLEAN, PROJECT).outcome("no_direct_values").detail
    assert detail["skipped_shorter_than_3"] == 0
    assert detail["values_searched"] > 0


def test_a_common_category_equal_to_a_name_is_not_a_leak() -> None:
    def race(frame: pd.DataFrame) -> pd.DataFrame:
        frame["sex"] = pd.array([LAST] * len(frame), dtype="string")  # e.g. race "White"
        return frame

    extract, project = make_case(n=30)
    clean = build_safe_harbor(extract, project)
    tables = dict(clean.tables)
    tables["people"] = race(tables["people"].copy())
    outcome = verify_release(extract, replace(clean, tables=tables), project).outcome(
        "no_direct_values"
    )
    assert outcome.passed
    assert outcome.detail["category_cells_equal_to_a_name"] == 30


def test_year_of_a_person_over_89_fails() -> None:
    old = _old_subject()
    release = _tamper("visits", _set("visit_year", _row_of("visits", old), "2024"))
    outcome = verify_release(EXTRACT, release, PROJECT).outcome("no_age_revealing_year")
    assert not outcome.passed and outcome.count == 1
    assert outcome.detail["cells_by_column"] == {"visits.visit_year": 1}


def test_birth_year_of_a_person_over_89_fails_even_if_age_was_not_pooled() -> None:
    old = _old_subject()
    row = _row_of("people", old)
    release = _tamper("people", lambda f: _set("dob_year", row, "1930")(_set("age", row, "89")(f)))
    outcome = verify_release(EXTRACT, release, PROJECT).outcome("no_age_revealing_year")
    assert not outcome.passed and outcome.count == 1  # known from the input, not the release


def test_date_typed_column_fails() -> None:
    def typed(frame: pd.DataFrame) -> pd.DataFrame:
        frame["visit_year"] = pd.to_datetime(["2024-01-01"] * len(frame))
        return frame

    outcome = verify_release(EXTRACT, _tamper("visits", typed), PROJECT).outcome("no_full_dates")
    assert not outcome.passed
    assert outcome.detail["date_typed_columns"] == ["visits.visit_year"]


def test_subject_id_containing_the_person_key_fails() -> None:
    cw = CLEAN.crosswalk.copy()
    derived = "S-" + cw["pid"]
    mapping = dict(zip(cw["subject_id"], derived, strict=True))
    tables = {k: v.assign(subject_id=v["subject_id"].map(mapping)) for k, v in CLEAN.tables.items()}
    release = replace(CLEAN, tables=tables, crosswalk=cw.assign(subject_id=derived))
    outcome = verify_release(EXTRACT, release, PROJECT).outcome("subject_ids")
    assert not outcome.passed
    assert outcome.count == 12
    assert outcome.detail["ids_containing_their_own_key"] == 12


def test_subject_id_equal_to_a_person_key_fails() -> None:
    key = str(EXTRACT.person.frame.loc[0, "pid"])
    release = _tamper("people", _set("subject_id", 5, key))
    outcome = verify_release(EXTRACT, release, PROJECT).outcome("subject_ids")
    assert not outcome.passed
    assert outcome.detail["ids_equal_to_a_person_key"] == 1


def test_row_counts_must_match_unless_suppression_is_reported() -> None:
    shorter = _tamper("visits", lambda f: f.iloc[:-3])
    outcome = verify_release(EXTRACT, shorter, PROJECT).outcome("row_counts")
    assert not outcome.passed and outcome.count == 1
    reported = replace(shorter, suppressed_rows={"visits": 3})
    assert verify_release(EXTRACT, reported, PROJECT).outcome("row_counts").passed


@pytest.mark.parametrize(
    ("crosswalk", "inside"),
    [("release", True), ("release/crosswalk", True), ("apart", False), ("release/../apart", False)],
)
def test_crosswalk_folder_must_not_be_the_release_folder_or_inside_it(
    tmp_path: Path, crosswalk: str, inside: bool
) -> None:
    out = tmp_path / "release"
    result = verify_release(
        EXTRACT, CLEAN, PROJECT, out_dir=out, crosswalk_dir=tmp_path / crosswalk
    )
    assert result.outcome("crosswalk_apart").passed is not inside


def test_outcomes_never_carry_a_value() -> None:
    release = _tamper("visits", _set("comment", 0, f"ref {MRN} on 2024-03-01 at {ZIP5}"))
    result = verify_release(EXTRACT, release, PROJECT)
    text = json.dumps(result.to_dict())
    for value in (MRN, "2024-03-01", ZIP5, LAST):
        assert value not in text
    assert not result.to_dict()["passed"]


def test_checks_are_declared_as_data_per_pathway() -> None:
    assert {c.id for c in checks_for(Pathway.SAFE_HARBOR)} >= SH_IDS
    linkable = {c.id for c in checks_for(Pathway.LINKABLE)}
    # Full dates and exact ZIP handling are expected in a linkable or limited release.
    assert "no_full_dates" not in linkable and "no_age_revealing_year" not in linkable
    assert "no_full_dates" not in {c.id for c in checks_for(Pathway.LIMITED_DATA_SET)}
    for check in CHECKS:  # every check blocks, but the New Year count (a warning)
        expected = WARNING if check.id == "new_year_events" else BLOCKING
        assert check.severity == expected and check.rule and check.explanation
    assert len({c.id for c in CHECKS}) == len(CHECKS)


def test_a_check_that_cannot_run_fails_instead_of_passing() -> None:
    def broken(*_args: object) -> Finding:
        raise RuntimeError("boom")

    check = Check("broken", "Broken", "test", BLOCKING, "always raises", broken)
    outcome = run_check(check, EXTRACT, CLEAN, PROJECT, VerifyContext(EXTRACT, PROJECT))
    assert not outcome.passed and outcome.detail["could_not_run"] == "RuntimeError"
    assert outcome.detail["at"].startswith("RuntimeError at test_verify.py:")
    assert "boom" not in str(outcome.detail)  # where it happened, never the text
    assert not Verification((outcome,)).passed


def test_numeric_identifiers_match_as_a_whole_run_of_digits() -> None:
    data = EXTRACT.person.frame.copy()
    data["mrn"] = pd.array([f"{7700000 + i}" for i in range(len(data))], dtype="string")
    extract = Extract(replace(EXTRACT.person, frame=data), EXTRACT.events)
    number = str(data.loc[4, "mrn"])
    leak = _tamper("visits", _set("comment", 0, f"mrn {number}."))
    assert verify_release(extract, leak, PROJECT).outcome("no_direct_values").count == 1
    longer = _tamper("visits", _set("comment", 0, f"lot 9{number}9"))
    assert verify_release(extract, longer, PROJECT).outcome("no_direct_values").passed


def _chunked(frame: pd.DataFrame) -> pd.DataFrame:
    """The same frame with every column split into two pyarrow chunks (as a CSV reader
    that reads in blocks leaves them)."""
    out = {}
    for col in frame.columns:
        arr = pa.array(frame[col], from_pandas=True)
        arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
        half = len(arr) // 2
        out[col] = pd.arrays.ArrowStringArray(pa.chunked_array([arr[:half], arr[half:]]))
    return pd.DataFrame(out)


def test_frames_read_in_several_chunks_build_and_verify() -> None:
    tables = [replace(t, frame=_chunked(t.frame)) for t in EXTRACT.tables]
    extract = Extract(tables[0], tuple(tables[1:]))
    release = build_safe_harbor(extract, PROJECT)
    result = verify_release(extract, release, PROJECT)
    assert result.passed, [(o.check.id, o.detail) for o in result.blocking_failures]
    for name, frame in release.tables.items():
        pd.testing.assert_frame_equal(frame, CLEAN.tables[name])
    leak = replace(
        release,
        tables={
            **release.tables,
            "visits": _tamper("visits", _set("comment", 0, MRN)).tables["visits"],
        },
    )
    assert verify_release(extract, leak, PROJECT).outcome("no_direct_values").count == 1


def test_places_and_short_codes_match_as_whole_words() -> None:
    data = EXTRACT.person.frame.copy()
    data.loc[0, "city"] = "Ord"  # a real town whose name sits inside "disorder"
    extract = Extract(replace(EXTRACT.person, frame=data), EXTRACT.events)
    inside = _tamper("visits", _set("comment", 0, "anxiety disorder"))
    assert verify_release(extract, inside, PROJECT).outcome("no_direct_values").passed
    alone = _tamper("visits", _set("comment", 0, "moved to Ord."))
    assert verify_release(extract, alone, PROJECT).outcome("no_direct_values").count == 1


# ------------------------------------------------------------------ what is read as a ZIP


def _people_with(column: str, values: list[str], tag: ColumnTag) -> tuple[Extract, Project]:
    data = people(12)
    data[column] = pd.array(values, dtype=pd.StringDtype("pyarrow"))
    return make_case(n=12, people_frame=data, people_tags=(*PEOPLE_TAGS, tag))


FIVE_DIGITS = [f"{48000 + 731 * i}" for i in range(12)]


def test_five_digit_incomes_in_a_quasi_column_are_not_zips() -> None:
    """Synthea's INCOME is quasi and mostly 5 digits: the ZIP gate must not read it."""
    extract, project = _people_with("INCOME", FIVE_DIGITS, ColumnTag("INCOME", ColumnClass.QUASI))
    release = build_safe_harbor(extract, project)
    assert release.tables["people"]["INCOME"].str.fullmatch(r"\d{5}").all()
    result = verify_release(extract, release, project)
    outcome = result.outcome("no_zip5")
    assert outcome.passed and outcome.count == 0
    assert "people.INCOME" not in outcome.detail["columns_checked"]
    assert "people.zip3" in outcome.detail["columns_checked"]
    assert result.passed, [(o.check.id, o.detail) for o in result.blocking_failures]


def test_postal_code_column_tagged_quasi_fails_with_counts_by_column() -> None:
    extract, project = _people_with(
        "postal_code", FIVE_DIGITS, ColumnTag("postal_code", ColumnClass.QUASI)
    )
    release = build_safe_harbor(extract, project)
    assert "postal_code" in release.tables["people"].columns
    result = verify_release(extract, release, project)
    outcome = result.outcome("no_zip5")
    assert not outcome.passed and outcome.count == 12
    assert outcome.detail["cells_by_column"] == {"people.postal_code": 12}
    assert not result.passed
    for value in FIVE_DIGITS:
        assert value not in json.dumps(result.to_dict())


@pytest.mark.parametrize("value", [ZIP5, f"{ZIP5}-1234", f"{ZIP5}1234"])
def test_the_zip_role_column_fails_whatever_its_name(value: str) -> None:
    """The column tagged ZIP is checked by its role, even under a name that says nothing."""
    data = people(12).rename(columns={"zip": "residence"})
    tags = tuple(replace(t, name="residence") if t.role is Role.ZIP else t for t in PEOPLE_TAGS)
    extract, project = make_case(n=12, people_frame=data, people_tags=tags)
    release = build_safe_harbor(extract, project)
    assert verify_release(extract, release, project).outcome("no_zip5").passed
    tables = dict(release.tables)
    kept = tables["people"].copy()
    kept["residence"] = pd.array([None] * len(kept), dtype="string")
    kept.loc[3, "residence"] = value
    tables["people"] = kept
    outcome = verify_release(extract, replace(release, tables=tables), project).outcome("no_zip5")
    assert not outcome.passed and outcome.count == 1
    assert outcome.detail["cells_by_column"] == {"people.residence": 1}


def test_a_zip_in_a_column_that_is_neither_zip_nor_named_so_is_not_this_checks_job() -> None:
    """Quasi/clinical columns are not read as ZIPs (tagging suggests role ZIP from the
    values, and the direct-value check searches released cells)."""
    release = _tamper("people", _set("sex", 0, ZIP5))
    assert verify_release(EXTRACT, release, PROJECT).outcome("no_zip5").passed


@pytest.mark.parametrize(
    ("name", "is_zip"),
    [
        ("zip", True), ("ZIP5", True), ("zip_code", True), ("ZipCode", True),
        ("PostalCode", True), ("post_code", True), ("POSTCODE", True),
        ("patient-zipcode", True), ("HomeZIP", True), ("Zip Code", True),
        ("INCOME", False), ("zipper", False), ("unzipped", False), ("code", False),
        ("post", False), ("HEALTHCARE_EXPENSES", False),
    ],
)  # fmt: skip
def test_postal_code_names_are_recognised_by_their_words(name: str, is_zip: bool) -> None:
    assert names_a_postal_code(name) is is_zip
