"""A project against its input files: building one (auto-tagged), noticing moved,
changed or reshaped inputs, and re-pointing a table."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core import demo
from deid_desktop.core.errors import InputError, UsageError
from deid_desktop.core.io import read_table, sha256_file
from deid_desktop.core.model import ColumnClass, IdentifierCategory, Project, Role
from deid_desktop.core.project import (
    check_inputs,
    load_project,
    new_project,
    project_to_json,
    repoint_table,
    resolve_path,
    save_project,
)
from tests.core.test_demo import assert_no_data_and_no_salt


def _load(folder: Path, names=("demographics", "baseline", "visits")):
    return [read_table(folder / f"{n}.csv", name=n) for n in names]


@pytest.fixture
def study(tmp_path: Path) -> tuple[Project, Path]:
    """An auto-tagged project over a small demo extract, saved beside it."""
    folder = tmp_path / "study"
    demo.write_demo(folder, rows=300, seed=3)
    project_path = folder / "trial.deid.json"
    project = new_project(
        _load(folder), person="demographics", key="patient_id", project_path=project_path
    )
    save_project(project, project_path)
    return project, project_path


# --------------------------------------------------------------------------- new_project


def test_new_project_is_auto_tagged_and_linked(study: tuple[Project, Path]) -> None:
    project, project_path = study
    assert [t.name for t in project.tables] == ["demographics", "baseline", "visits"]
    assert [t.is_person for t in project.tables] == [True, False, False]
    assert len(project.project_id) == 32 and project.name == "demographics"
    for t in project.tables:
        assert t.key == "patient_id"
        key = t.column("patient_id")
        assert key.cls is ColumnClass.DIRECT and key.role is Role.PERSON_KEY
        assert key.category is not None
        assert [c.name for c in t.columns if c.role is Role.PERSON_KEY] == ["patient_id"]
        assert t.path == f"{t.name}.csv"  # beside the project: stored relative
        assert t.sha256 == sha256_file(resolve_path(project_path, t.path))
    assert project.table("visits").rows == len(read_table(project_path.parent / "visits.csv").frame)
    assert load_project(project_path) == project


def test_new_projects_get_their_own_random_seed(
    study: tuple[Project, Path], tmp_path: Path
) -> None:
    """Not the public default: with it and the input order anyone could rebuild the
    crosswalk. The seed is saved with the project, so its reruns stay identical."""
    project, project_path = study
    folder = project_path.parent
    again = new_project(
        _load(folder), person="demographics", key="patient_id", project_path=project_path
    )
    default = Project(project_id="0" * 32, name="", tables=()).seed
    assert project.seed != default and again.seed != default
    assert project.seed != again.seed  # a 1 in 2**31 chance of a false failure
    assert 0 <= project.seed < 2**31 and 0 <= again.seed < 2**31
    assert load_project(project_path).seed == project.seed
    # the demo keeps its fixed seed (a reproducible demo)
    assert load_project(folder / "demo.deid.json").seed == 3


def test_auto_tags_are_right_on_the_demo(tmp_path: Path) -> None:
    """The suggestion, before any correction, matches the demo's hand-set classes."""
    demo.write_demo(tmp_path)
    project = new_project(
        _load(tmp_path), person="demographics", key="patient_id", project_path=tmp_path / "p.json"
    )
    wrong = [
        f"{t.name}.{c.name}: {c.cls.value}, expected {e.cls.value}"
        for t in project.tables
        for c, e in zip(t.columns, demo.DEMO_TAGS[t.name], strict=True)
        if c.cls is not e.cls
    ]
    assert wrong == []
    person = project.person_table
    assert person.column("mrn").category is IdentifierCategory.H
    assert person.column("zip").role is Role.ZIP


def test_auto_tagged_demo_project_holds_no_data_value_and_no_salt(tmp_path: Path) -> None:
    path = demo.write_demo(tmp_path)
    project = new_project(
        _load(tmp_path), person="demographics", key="patient_id", project_path=path
    )
    frames = demo.make_demo_frames()
    tags = {t.name: demo.DEMO_TAGS[t.name] for t in project.tables}  # the true classes
    assert_no_data_and_no_salt(project_to_json(project), frames, tags)


def test_event_table_without_the_key_is_refused(tmp_path: Path) -> None:
    """Event keys are found by value: a table none of whose columns holds person keys
    (every visit key altered) is refused, naming the table and how to choose its key."""
    demo.write_demo(tmp_path, rows=100, seed=1)
    visits = pd.read_csv(tmp_path / "visits.csv", dtype=str, keep_default_na=False)
    visits["patient_id"] = "X" + visits["patient_id"]
    visits.to_csv(tmp_path / "visits.csv", index=False)
    with pytest.raises(UsageError, match="No column of table 'visits'") as err:
        new_project(
            _load(tmp_path), person="demographics", key="patient_id", project_path=tmp_path / "p"
        )
    assert "visits.csv" in err.value.message
    assert "--key visits=COLUMN" in err.value.hint
    for key in visits["patient_id"].head(20):
        assert key not in str(err.value), "a key value leaked into the message"


def test_unlinked_event_rows_are_refused(tmp_path: Path) -> None:
    demo.write_demo(tmp_path, rows=100, seed=1)
    people = pd.read_csv(tmp_path / "demographics.csv", dtype=str, keep_default_na=False)
    people.iloc[1:].to_csv(tmp_path / "demographics.csv", index=False)  # drop person 0001
    with pytest.raises(InputError) as err:
        new_project(
            _load(tmp_path), person="demographics", key="patient_id", project_path=tmp_path / "p"
        )
    assert "0001" not in str(err.value)  # counts, never the key values


def test_duplicate_table_names_are_refused(tmp_path: Path) -> None:
    demo.write_demo(tmp_path, rows=100, seed=1)
    tables = _load(tmp_path, ("demographics", "visits"))
    tables.append(read_table(tmp_path / "baseline.csv", name="visits"))
    with pytest.raises(InputError, match="both named 'visits'"):
        new_project(tables, person="demographics", key="patient_id", project_path=tmp_path / "p")


def test_inputs_outside_the_project_folder_are_stored_absolute(tmp_path: Path) -> None:
    demo.write_demo(tmp_path / "data", rows=100, seed=1)
    (tmp_path / "projects").mkdir()
    project = new_project(
        _load(tmp_path / "data"),
        person="demographics",
        key="patient_id",
        project_path=tmp_path / "projects" / "p.deid.json",
    )
    assert project.person_table.path == (tmp_path / "data" / "demographics.csv").as_posix()


# -------------------------------------------------------------------------- check_inputs


def test_unchanged_inputs_report_nothing(study: tuple[Project, Path]) -> None:
    project, project_path = study
    assert check_inputs(project, project_path) == []


def test_a_moved_input_is_reported(study: tuple[Project, Path]) -> None:
    project, project_path = study
    folder = project_path.parent
    (folder / "elsewhere").mkdir()
    shutil.move(folder / "visits.csv", folder / "elsewhere" / "visits.csv")
    problems = check_inputs(project, project_path)
    assert [(p.table, p.kind, p.severity) for p in problems] == [("visits", "missing", "error")]
    assert "visits.csv" in problems[0].file
    assert "Re-point" in problems[0].message


def test_a_changed_input_is_reported_by_its_hash(study: tuple[Project, Path]) -> None:
    project, project_path = study
    path = project_path.parent / "baseline.csv"
    with path.open("a", encoding="utf-8") as fh:  # one more person-less row: same columns
        fh.write("0001,2024-01-01,40,1000,120,1.00,II\n")
    problems = check_inputs(project, project_path)
    assert [(p.table, p.kind) for p in problems] == [("baseline", "changed")]
    assert "SHA-256" in problems[0].message


def test_lost_and_new_columns_are_reported(study: tuple[Project, Path]) -> None:
    project, project_path = study
    path = project_path.parent / "demographics.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame = frame.drop(columns=["phone"]).assign(email="")
    frame.to_csv(path, index=False)
    problems = check_inputs(project, project_path)
    found = {(p.kind, p.column, p.severity) for p in problems}
    assert found == {
        ("changed", None, "error"),
        ("column_lost", "phone", "error"),
        ("column_new", "email", "warning"),
    }


def test_an_unreadable_changed_input_is_reported(study: tuple[Project, Path]) -> None:
    project, project_path = study
    (project_path.parent / "visits.csv").write_text("a,b\n1,2,3\n", encoding="utf-8")
    problems = check_inputs(project, project_path)
    assert [(p.table, p.kind) for p in problems] == [
        ("visits", "changed"),
        ("visits", "unreadable"),
    ]


# -------------------------------------------------------------------------- repoint_table


def test_repoint_a_moved_table_keeps_its_tags(study: tuple[Project, Path]) -> None:
    project, project_path = study
    folder = project_path.parent
    (folder / "raw").mkdir()
    shutil.move(folder / "visits.csv", folder / "raw" / "visits_v2.csv")
    fixed = repoint_table(project, "visits", folder / "raw" / "visits_v2.csv", project_path)
    assert fixed.table("visits").path == "raw/visits_v2.csv"
    assert fixed.table("visits").columns == project.table("visits").columns
    assert check_inputs(fixed, project_path) == []
    save_project(fixed, project_path)
    assert load_project(project_path) == fixed


def test_repoint_a_reshaped_table(study: tuple[Project, Path]) -> None:
    project, project_path = study
    path = project_path.parent / "demographics.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.drop(columns=["phone"]).assign(email="x@example.org").to_csv(path, index=False)
    fixed = repoint_table(project, "demographics", path, project_path)
    person = fixed.person_table
    names = [c.name for c in person.columns]
    assert "phone" not in names and names[-1] == "email"
    assert person.column("mrn") == project.person_table.column("mrn")  # kept as it was
    assert person.column("email").cls is ColumnClass.DIRECT  # new column: suggested
    assert any("new column" in e for e in person.column("email").evidence)
    assert person.sha256 == sha256_file(path)
    assert check_inputs(fixed, project_path) == []


def test_repoint_to_a_file_without_the_key_is_refused(study: tuple[Project, Path]) -> None:
    project, project_path = study
    other = project_path.parent / "other.csv"
    other.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(InputError, match="no person-key column 'patient_id'"):
        repoint_table(project, "visits", other, project_path)
    with pytest.raises(InputError, match="no table named"):
        repoint_table(project, "labs", other, project_path)
