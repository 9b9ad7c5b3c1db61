"""new_project finds each event table's person-key column when tables name it differently:
the user's choice, else the same name as the person key, else the column named like a
person key, else the one column whose values are the person keys; none or several is a
plain error naming the table and its candidates."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core.errors import InputError, UsageError
from deid_desktop.core.event_keys import KEY_MATCH_SHARE, SAMPLE_ROWS
from deid_desktop.core.io import read_table
from deid_desktop.core.model import ColumnClass, LoadedTable, Project, Role
from deid_desktop.core.project import load_project, new_project, save_project

PERSONS = 40


def _ids(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i:05d}" for i in range(n)]


def _write(folder: Path, name: str, columns: dict[str, list[str]]) -> LoadedTable:
    path = folder / f"{name}.csv"
    pd.DataFrame(columns).to_csv(path, index=False)
    return read_table(path, name=name)


def _people(folder: Path, key: str = "Id") -> LoadedTable:
    return _write(
        folder,
        "patients",
        {key: _ids("P", PERSONS), "GENDER": ["F", "M"] * (PERSONS // 2)},
    )


def _events(n: int = 3 * PERSONS) -> list[str]:
    """Person keys for n event rows, every person used."""
    return [f"P{i % PERSONS:05d}" for i in range(n)]


def _build(folder: Path, *events: LoadedTable, key: str = "Id", **kw: object) -> Project:
    tables = [_people(folder, key), *events]
    return new_project(
        tables, person="patients", key=key, project_path=folder / "p.deid.json", **kw
    )  # type: ignore[arg-type]


def _assert_keyed(project: Project, table: str, column: str) -> None:
    spec = project.table(table)
    assert spec.key == column
    tag = spec.column(column)
    assert tag.cls is ColumnClass.DIRECT and tag.role is Role.PERSON_KEY
    assert tag.category is not None and not tag.unsure
    assert [c.name for c in spec.columns if c.role is Role.PERSON_KEY] == [column]


def _key_evidence(project: Project, table: str) -> str:
    spec = project.table(table)
    return next(e for e in spec.column(spec.key).evidence if e.startswith("person key:"))


# ---------------------------------------------------------------------- each resolution rule


def test_explicit_choice_wins_over_every_other_rule(tmp_path: Path) -> None:
    rows = _events()
    visits = _write(
        tmp_path,
        "visits",
        {"Id": rows, "PATIENT": rows, "ref": rows, "day": ["1"] * len(rows)},
    )
    project = _build(tmp_path, visits, keys={"visits": "ref"})
    _assert_keyed(project, "visits", "ref")
    assert _key_evidence(project, "visits") == "person key: chosen by the user"
    assert project.table("visits").column("PATIENT").role is None
    _assert_keyed(project, "patients", "Id")


def test_same_name_as_the_person_key(tmp_path: Path) -> None:
    rows = _events()
    visits = _write(tmp_path, "visits", {"day": ["1"] * len(rows), "Id": rows})
    project = _build(tmp_path, visits)
    _assert_keyed(project, "visits", "Id")
    assert "same name as the person table's key" in _key_evidence(project, "visits")


def test_column_named_like_a_person_key(tmp_path: Path) -> None:
    """Synthea's layout: patients.Id, events.PATIENT; the events' own Id is not the key."""
    rows = _events()
    encounters = _write(
        tmp_path,
        "encounters",
        {"Id": _ids("E", len(rows)), "PATIENT": rows, "CODE": ["1"] * len(rows)},
    )
    project = _build(tmp_path, encounters)
    _assert_keyed(project, "encounters", "PATIENT")
    assert "named like a person key" in _key_evidence(project, "encounters")
    assert "100.0%" in _key_evidence(project, "encounters")
    assert project.table("encounters").column("Id").role is None


def test_column_whose_values_are_the_person_keys(tmp_path: Path) -> None:
    rows = _events()
    labs = _write(
        tmp_path,
        "labs",
        {"sample": _ids("S", len(rows)), "owner": rows, "value": ["7"] * len(rows)},
    )
    project = _build(tmp_path, labs)
    _assert_keyed(project, "labs", "owner")
    assert "its values are the person keys" in _key_evidence(project, "labs")


def test_value_match_tolerates_a_few_missing_keys_and_counts_them(tmp_path: Path) -> None:
    """Missing cells do not count against the share; the relation check counts them."""
    rows: list[str | None] = list(_events(200))
    rows[5] = None
    labs = _write(tmp_path, "labs", {"owner": rows, "value": ["7"] * 200})
    with pytest.raises(InputError, match="1 row of table 'labs' have no person key") as err:
        _build(tmp_path, labs)
    assert err.value.column == "owner"


def test_value_match_on_a_table_larger_than_the_sample(tmp_path: Path) -> None:
    n = SAMPLE_ROWS * 2 + 17
    labs = _write(
        tmp_path,
        "labs",
        {"sample": _ids("S", n), "owner": _events(n), "flag": ["P00001"] * 3 + ["x"] * (n - 3)},
    )
    project = _build(tmp_path, labs)
    _assert_keyed(project, "labs", "owner")


def test_value_match_on_a_frame_held_in_several_arrow_chunks(tmp_path: Path) -> None:
    labs = _write(tmp_path, "labs", {"owner": _events(), "v": ["7"] * 3 * PERSONS})
    halves = [labs.frame.iloc[: PERSONS + 1], labs.frame.iloc[PERSONS + 1 :]]
    chunked = pd.concat(halves, ignore_index=True)
    assert chunked["owner"].array._pa_array.num_chunks == 2  # type: ignore[attr-defined]
    project = _build(tmp_path, replace(labs, frame=chunked))
    _assert_keyed(project, "labs", "owner")


def test_each_table_keeps_its_own_key_and_the_project_round_trips(tmp_path: Path) -> None:
    rows = _events()
    a = _write(tmp_path, "a", {"Id": rows})
    b = _write(tmp_path, "b", {"patient_id": rows})
    c = _write(tmp_path, "c", {"whose": rows, "n": ["1"] * len(rows)})
    d = _write(tmp_path, "d", {"x": rows, "y": rows})
    project = _build(tmp_path, a, b, c, d, keys={"d": "y"})
    assert {t.name: t.key for t in project.tables} == {
        "patients": "Id",
        "a": "Id",
        "b": "patient_id",
        "c": "whose",
        "d": "y",
    }
    save_project(project, tmp_path / "p.deid.json")
    assert load_project(tmp_path / "p.deid.json") == project


# -------------------------------------------------------------- the relation check per table


def test_relations_are_checked_with_each_tables_own_key(tmp_path: Path) -> None:
    """PATIENT found by name, 90% linked: the relation check counts the rest on PATIENT."""
    rows = _events(100)
    rows[:10] = _ids("Z", 10)  # ten rows of persons not in the person table
    encounters = _write(tmp_path, "encounters", {"Id": _ids("E", 100), "PATIENT": rows})
    with pytest.raises(InputError) as err:
        _build(tmp_path, encounters)
    text = str(err.value)
    assert "10 rows of table 'encounters' have a person key that is not in the person table" in (
        text
    )
    assert err.value.column == "PATIENT"
    assert "Z0000" not in text  # counts, never the key values


def test_a_chosen_column_is_checked_like_any_other(tmp_path: Path) -> None:
    rows = _events()
    visits = _write(tmp_path, "visits", {"PATIENT": rows, "day": ["1"] * len(rows)})
    with pytest.raises(InputError, match="not in the person table") as err:
        _build(tmp_path, visits, keys={"visits": "day"})
    assert err.value.column == "day"


# --------------------------------------------------------------------------------- errors


def test_no_linking_column_is_a_usage_error_naming_table_and_candidates(tmp_path: Path) -> None:
    n = 100
    keys = _events(n)
    half = keys[: n // 4] + _ids("Q", n - n // 4)  # a quarter of its values link
    labs = _write(tmp_path, "labs", {"sample": _ids("S", n), "owner": half, "v": ["7"] * n})
    with pytest.raises(UsageError) as err:
        _build(tmp_path, labs)
    text = str(err.value)
    assert "table 'labs' (labs.csv)" in text and "'patients'" in text
    assert "owner (25.0% match)" in text
    assert "--key labs=COLUMN" in err.value.hint
    assert "sample, owner, v" in err.value.hint
    assert "P0000" not in text and "Q0000" not in text and "S0000" not in text


def test_several_linking_columns_is_a_usage_error_listing_them(tmp_path: Path) -> None:
    rows = _events()
    labs = _write(tmp_path, "labs", {"owner": rows, "drawn_for": rows, "v": ["7"] * len(rows)})
    with pytest.raises(UsageError, match="Several columns of table 'labs'") as err:
        _build(tmp_path, labs)
    assert "owner, drawn_for" in str(err.value)
    assert "--key labs=COLUMN" in err.value.hint
    project = _build(tmp_path, labs, keys={"labs": "drawn_for"})
    _assert_keyed(project, "labs", "drawn_for")


def test_a_column_just_under_the_threshold_is_not_taken_by_its_values(tmp_path: Path) -> None:
    n = 1000
    unmatched = int(n * (1 - KEY_MATCH_SHARE)) + 1  # 98.9% linked
    rows = _events(n)
    rows[:unmatched] = _ids("Z", unmatched)
    labs = _write(tmp_path, "labs", {"owner": rows})
    with pytest.raises(UsageError, match=r"98\.9% match"):
        _build(tmp_path, labs)


def test_a_chosen_column_that_does_not_exist(tmp_path: Path) -> None:
    visits = _write(tmp_path, "visits", {"PATIENT": _events()})
    with pytest.raises(UsageError, match="'pid' chosen for table 'visits'") as err:
        _build(tmp_path, visits, keys={"visits": "pid"})
    assert "PATIENT" in err.value.hint


def test_a_choice_for_an_unknown_table(tmp_path: Path) -> None:
    visits = _write(tmp_path, "visits", {"PATIENT": _events()})
    with pytest.raises(UsageError, match="table 'vists'") as err:
        _build(tmp_path, visits, keys={"vists": "PATIENT"})
    assert "patients, visits" in err.value.hint


def test_a_second_key_for_the_person_table(tmp_path: Path) -> None:
    visits = _write(tmp_path, "visits", {"PATIENT": _events()})
    with pytest.raises(UsageError, match="Two key columns"):
        _build(tmp_path, visits, keys={"patients": "GENDER"})
    project = _build(tmp_path, visits, keys={"patients": "Id"})  # the same one is fine
    _assert_keyed(project, "patients", "Id")


def test_person_key_missing_from_the_person_table(tmp_path: Path) -> None:
    people = _people(tmp_path)
    with pytest.raises(InputError, match="has no column 'pid'"):
        new_project([people], person="patients", key="pid", project_path=tmp_path / "p")


# -------------------------------------------------------------------------------- Synthea


def test_synthea_tables_link_by_their_own_key_names(public_data: Path, tmp_path: Path) -> None:
    src = public_data / "synthea" / "unmc_crane_2023"
    names = ("patients", "encounters", "conditions", "medications")
    tables = [read_table(src / f"{n}.csv", name=n) for n in names]  # read only
    project = new_project(tables, person="patients", key="Id", project_path=tmp_path / "s")
    assert {t.name: t.key for t in project.tables} == {
        "patients": "Id",
        "encounters": "PATIENT",
        "conditions": "PATIENT",
        "medications": "PATIENT",
    }
    for name in names:
        _assert_keyed(project, name, project.table(name).key)
    encounter_id = project.table("encounters").column("Id")
    assert encounter_id.role is None and encounter_id.cls is ColumnClass.DIRECT
