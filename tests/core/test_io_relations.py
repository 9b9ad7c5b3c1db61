"""Relations between the person table and event tables; loading a project's extract."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import Cancelled, InputError, ProjectError
from deid_desktop.core.io import check_relations, load_extract, prepare_extract, sha256_file
from deid_desktop.core.io.relations import relation_problems
from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    Extract,
    LoadedTable,
    Project,
    Role,
    TableSpec,
)
from deid_desktop.core.progress import CancelToken
from tests.core.support import loaded, text_frame

SECRET_KEYS = ("MRN-7731", "MRN-0042", "MRN-9999")


def table(name: str, frame: dict[str, list[str | None]]) -> LoadedTable:
    return loaded(name, text_frame(frame))


def relation_error(person: LoadedTable, events: list[tuple[LoadedTable, str]]) -> InputError:
    with pytest.raises(InputError) as info:
        check_relations(person, "mrn", events)
    for key in SECRET_KEYS:
        assert key not in str(info.value), "a key value leaked into the message"
    return info.value


def test_clean_relations_pass() -> None:
    person = table("people", {"mrn": ["MRN-7731", "MRN-0042"]})
    visits = table("visits", {"mrn": ["MRN-7731", "MRN-7731", "MRN-0042"]})
    check_relations(person, "mrn", [(visits, "mrn")])


def test_duplicate_person_key_names_file_column_and_rows() -> None:
    person = table("people", {"mrn": ["MRN-7731", "MRN-0042", "MRN-7731", "MRN-9999"]})
    err = relation_error(person, [])
    assert err.file == "people.csv" and err.column == "mrn"
    assert "2 rows" in err.message and "1 key(s) repeated" in err.message


def test_missing_person_key_is_counted() -> None:
    person = table("people", {"mrn": ["MRN-7731", None, None]})
    err = relation_error(person, [])
    assert "2 rows of the person table have no person key" in err.message


def test_unmatched_and_keyless_event_rows_are_counted() -> None:
    person = table("people", {"mrn": ["MRN-7731", "MRN-0042"]})
    visits = table("visits", {"pid": ["MRN-7731", "MRN-9999", "MRN-9999", None]})
    err = relation_error(person, [(visits, "pid")])
    assert "2 rows of table 'visits' have a person key that is not in the person table" in (
        err.message
    )
    assert "1 row of table 'visits' have no person key" in err.message
    assert "visits.csv" in err.message and "'pid'" in err.message


def test_repeats_counted_per_key_and_per_row() -> None:
    person = table(
        "people", {"mrn": ["MRN-7731", "MRN-0042", "MRN-7731", "MRN-0042", "MRN-0042", None]}
    )
    err = relation_error(person, [])
    assert "5 rows of the person table share a person key" in err.message
    assert "2 key(s) repeated" in err.message
    assert "1 row of the person table have no person key" in err.message


def test_keys_of_other_storage_types_still_link() -> None:
    """Frames built outside the loader (object / plain string storage) compare by text."""
    person = table("people", {"mrn": ["MRN-7731", "MRN-0042"]})
    person.frame["mrn"] = person.frame["mrn"].astype(object)
    visits = table("visits", {"mrn": ["MRN-7731", "MRN-0042", "MRN-9999"]})
    labs = table("labs", {"mrn": ["MRN-0042", "MRN-9999"]})
    labs.frame["mrn"] = labs.frame["mrn"].astype(pd.StringDtype("python"))
    err = relation_error(person, [(visits, "mrn"), (labs, "mrn")])
    assert "1 row of table 'visits' have a person key that is not in the person table" in (
        err.message
    )
    assert "1 row of table 'labs' have a person key that is not in the person table" in (
        err.message
    )
    check_relations(person, "mrn", [(table("notes", {"mrn": ["MRN-0042"]}), "mrn")])


def test_key_column_absent_is_an_error() -> None:
    person = table("people", {"id": ["MRN-7731"]})
    with pytest.raises(InputError, match="'mrn' is not in table 'people'"):
        check_relations(person, "mrn", [])


# -- load_extract ------------------------------------------------------------------------

PEOPLE = (
    b"patient_id,zip,dob,notes\n"
    b"P1,2139,03/07/1950,x\n"
    b"P2,10001,12/25/1990,y\n"
    b"P3,501,01/02/1980,\n"
    b"P4,abc,,\n"
)
VISITS = b"patient_id,visit_date\nP1,2024-01-31\nP1,2024-02-01\nP3,2024-03-05\n"


def spec(name: str, path: str, data_path: Path, *, person: bool, tags: tuple[ColumnTag, ...]):
    return TableSpec(
        name=name,
        path=path,
        sha256=sha256_file(data_path),
        key="patient_id",
        is_person=person,
        columns=tags,
    )


PEOPLE_TAGS = (
    ColumnTag("patient_id", ColumnClass.DIRECT, Role.PERSON_KEY),
    ColumnTag("zip", ColumnClass.QUASI, Role.ZIP),
    ColumnTag("dob", ColumnClass.DATE, Role.BIRTH_DATE),
    ColumnTag("notes", ColumnClass.FREE_TEXT),
)
VISIT_TAGS = (
    ColumnTag("patient_id", ColumnClass.DIRECT, Role.PERSON_KEY),
    ColumnTag("visit_date", ColumnClass.DATE),
)


@pytest.fixture
def project_dir(tmp_path: Path) -> tuple[Path, Project]:
    data = tmp_path / "data"
    data.mkdir()
    (data / "people.csv").write_bytes(PEOPLE)
    (data / "visits.csv").write_bytes(VISITS)
    project = Project(
        project_id="0" * 32,
        name="t",
        tables=(
            spec("people", "data/people.csv", data / "people.csv", person=True, tags=PEOPLE_TAGS),
            spec("visits", "data/visits.csv", data / "visits.csv", person=False, tags=VISIT_TAGS),
        ),
    )
    return tmp_path, project


def test_load_extract_reads_relates_and_restores_zips(project_dir: tuple[Path, Project]) -> None:
    base, project = project_dir
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (base / "data").iterdir()}
    stages: list[str] = []
    extract = load_extract(project, base, progress=lambda f, s: stages.append(s))
    assert extract.person.name == "people" and [t.name for t in extract.events] == ["visits"]
    people = extract.person
    assert people.frame["zip"].tolist() == ["02139", "10001", "00501", "abc"]
    assert people.report.warnings == (
        "2 ZIP codes in column 'zip' had lost their leading zero (as spreadsheets do) and "
        "were restored to 5 digits.",
        "1 value in column 'zip' is not a US ZIP code (5 digits or ZIP+4); a release "
        "treats it as unknown (000).",
    )
    assert people.report.file == "people.csv" and people.sha256 == project.tables[0].sha256
    assert stages and all("P1" not in s for s in stages)
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (base / "data").iterdir()}
    assert after == before  # source files never written


def test_absolute_paths_are_kept(project_dir: tuple[Path, Project], tmp_path: Path) -> None:
    base, project = project_dir
    for spec_ in project.tables:
        project = project.with_table(replace(spec_, path=str(base / spec_.path)))
    extract = load_extract(project, tmp_path / "elsewhere")
    assert extract.person.report.rows == 4


def test_changed_file_is_a_project_error(project_dir: tuple[Path, Project]) -> None:
    base, project = project_dir
    (base / "data" / "visits.csv").write_bytes(VISITS + b"P2,2024-04-01\n")
    with pytest.raises(ProjectError) as info:
        load_extract(project, base)
    assert "visits.csv has changed since the project was saved (SHA-256 differs)" in (
        info.value.message
    )
    assert "Re-point" in info.value.hint


def test_moved_file_is_a_project_error(project_dir: tuple[Path, Project]) -> None:
    base, project = project_dir
    os.rename(base / "data" / "people.csv", base / "people-old.csv")
    with pytest.raises(ProjectError, match="moved or deleted"):
        load_extract(project, base)


def test_lost_column_is_a_project_error(project_dir: tuple[Path, Project]) -> None:
    base, project = project_dir
    data = base / "data" / "visits.csv"
    data.write_bytes(VISITS.replace(b"visit_date", b"seen_on"))
    project = project.with_table(replace(project.table("visits"), sha256=sha256_file(data)))
    with pytest.raises(ProjectError) as info:
        load_extract(project, base)
    assert info.value.column == "visit_date" and "no longer in the file" in info.value.message


def test_unmatched_event_rows_fail_the_load(project_dir: tuple[Path, Project]) -> None:
    base, project = project_dir
    data = base / "data" / "visits.csv"
    data.write_bytes(VISITS + b"P9,2024-04-01\n")
    visits = project.table("visits")
    project = project.with_table(replace(visits, sha256=sha256_file(data)))
    with pytest.raises(InputError) as info:
        load_extract(project, base)
    assert "1 row of table 'visits'" in info.value.message and info.value.file == "visits.csv"


def test_ambiguous_date_column_fails_unless_its_format_is_chosen(
    project_dir: tuple[Path, Project],
) -> None:
    base, project = project_dir
    data = base / "data" / "visits.csv"
    data.write_bytes(b"patient_id,visit_date\nP1,01/02/2024\nP3,03/04/2024\n")
    visits = project.table("visits")
    visits = replace(visits, sha256=sha256_file(data))
    with pytest.raises(InputError, match="month/day or day/month"):
        load_extract(project.with_table(visits), base)
    chosen = visits.with_column(ColumnTag("visit_date", ColumnClass.DATE, date_format="%d/%m/%Y"))
    extract = load_extract(project.with_table(chosen), base)
    assert extract.table("visits").frame["visit_date"].tolist() == ["01/02/2024", "03/04/2024"]


def test_prepare_extract_is_idempotent(project_dir: tuple[Path, Project]) -> None:
    base, project = project_dir
    extract = load_extract(project, base)
    again = prepare_extract(extract, project)
    assert again.person.frame["zip"].tolist() == extract.person.frame["zip"].tolist()
    assert again.person.report.warnings == extract.person.report.warnings


def test_prepare_extract_on_tables_read_for_a_new_project() -> None:
    person = table("people", {"patient_id": ["P1"], "zip": ["2139"]})
    project = Project(
        project_id="1" * 32,
        name="n",
        tables=(
            TableSpec(
                "people",
                "people.csv",
                "0" * 64,
                "patient_id",
                True,
                (ColumnTag("zip", ColumnClass.QUASI, Role.ZIP),),
            ),
        ),
    )
    prepared = prepare_extract(Extract(person=person), project)
    assert prepared.person.frame["zip"].tolist() == ["02139"]
    assert person.frame["zip"].tolist() == ["2139"]  # the input is not mutated


def test_cancel_stops_the_load(project_dir: tuple[Path, Project]) -> None:
    base, project = project_dir
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        load_extract(project, base, cancel=token)


def test_xlsx_zip_numbers_are_restored_when_tagged_zip(tmp_path: Path) -> None:
    path = tmp_path / "people.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Demographics"
    for row in (["patient_id", "zip"], ["P1", 2139], ["P2", 501], ["P3", 10001]):
        ws.append(row)
    wb.save(path)
    tags = (
        ColumnTag("patient_id", ColumnClass.DIRECT, Role.PERSON_KEY),
        ColumnTag("zip", ColumnClass.QUASI, Role.ZIP),
    )
    project = Project(
        project_id="2" * 32,
        name="x",
        tables=(
            TableSpec(
                "people",
                "people.xlsx",
                sha256_file(path),
                "patient_id",
                True,
                tags,
                sheet="Demographics",
            ),
        ),
    )
    person = load_extract(project, tmp_path).person
    assert person.frame["zip"].tolist() == ["02139", "00501", "10001"]
    assert person.report.sheet == "Demographics"
    assert person.report.warnings[0].startswith("2 ZIP codes in column 'zip' had lost")


KEYS = st.one_of(st.none(), st.sampled_from(["A1", "A2", "B7", "é9", ""]))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(KEYS, max_size=10),
    st.lists(st.lists(st.one_of(KEYS, st.just("Z0")), max_size=10), max_size=3),
)
def test_one_encoding_pass_counts_what_value_counts_and_isin_count(
    person_keys: list[str | None], events: list[list[str | None]]
) -> None:
    from deid_desktop.core.io.relations import _problems_by_sets, relation_problems

    person = table("people", {"mrn": person_keys})
    tables = [(table(f"ev{i}", {"mrn": keys}), "mrn") for i, keys in enumerate(events)]
    fast = relation_problems(person, "mrn", tables)
    plain = [p for p in fast if "no person key" in p.message and p.file == "people.csv"]
    slow = _problems_by_sets(
        plain, person, "mrn", person.frame["mrn"], [(t, k, t.frame[k]) for t, k in tables]
    )
    assert [(p.message, p.file, p.column) for p in fast] == [
        (p.message, p.file, p.column) for p in slow
    ]


def test_keys_of_different_types_are_compared_as_text() -> None:
    person = loaded("people", pd.DataFrame({"mrn": pd.Series([1, 2, 3], dtype="int64")}))
    visits = table("visits", {"mrn": ["1", "3", "4"]})
    problems = relation_problems(person, "mrn", [(visits, "mrn")])
    assert [p.message for p in problems] == [
        "1 row of table 'visits' have a person key that is not in the person table ('people')"
    ]


WIDE = st.sampled_from(["HF01", "HF02", "HF10", "HG00", "hf01", "ZZ99", "HF0\x00"])


@settings(max_examples=150, deadline=None)
@given(
    st.sets(WIDE, min_size=1),
    st.lists(st.lists(st.one_of(WIDE, st.just("XX00"), st.just("A1")), max_size=12), max_size=3),
    st.booleans(),
)
def test_sorted_keys_of_one_width_link_as_the_hash_pass_links_them(
    person_keys: set[str], events: list[list[str]], grouped: bool
) -> None:
    """Person keys of one width in rising order are found by binary search, no hashing:
    the same problems and the same person positions as the hash pass."""
    from unittest import mock

    from deid_desktop.core.io import relations

    person = table("people", {"mrn": sorted(person_keys, key=lambda k: k.encode())})
    tables = [
        (table(f"ev{i}", {"mrn": sorted(keys) if grouped else keys}), "mrn")
        for i, keys in enumerate(events)
    ]
    fast_positions: dict[str, object] = {}
    fast = relation_problems(person, "mrn", tables, fast_positions)
    sorted_pass = relations._encode_sorted(person.frame["mrn"], [t.frame["mrn"] for t, _ in tables])
    if all(len(k) == 4 for keys in events for k in keys):  # one width: no hashing
        assert sorted_pass is not None
    with mock.patch.object(relations, "_encode_sorted", return_value=None):
        slow_positions: dict[str, object] = {}
        slow = relation_problems(person, "mrn", tables, slow_positions)
    assert [(p.message, p.file, p.column) for p in fast] == [
        (p.message, p.file, p.column) for p in slow
    ]
    assert fast_positions.keys() == slow_positions.keys()
    for name, where in fast_positions.items():
        assert list(where) == list(slow_positions[name])  # type: ignore[call-overload]
