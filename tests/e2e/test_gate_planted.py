"""Issue 16's table, planted in generated extracts (``tests.core.planted_extract``):
each identifier, hidden where real extracts hide it, makes `deid run` refuse the Safe
Harbor release (exit 3, nothing written), with a message that names the column and
counts and holds no planted value.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from deid_desktop.core import engine
from deid_desktop.core.model import FreeTextAction
from deid_desktop.core.project import load_project, save_project
from tests.core.planted_extract import LABEL_DATES, write_extract
from tests.e2e._cli import main_captured

PERSONS = 600


@pytest.fixture(autouse=True)
def _register(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DEID_REGISTER", str(tmp_path / "register.jsonl"))


def project_with(
    folder: Path, capsys: pytest.CaptureFixture[str], plant: dict[str, int], *tags: str
) -> Path:
    """A Safe Harbor project over a planted extract, with ``tags`` applied as a user would."""
    write_extract(folder, persons=PERSONS, plant=plant)
    project = folder / "p.deid.json"
    assert main_captured(capsys, "init", folder / "patients.csv", folder / "visits.csv",
                         "-o", project)[0] == 0  # fmt: skip
    ages = ("pathway", project, "safe-harbor", "--age-reference", "2024-06-30")
    assert main_captured(capsys, *ages)[0] == 0
    if tags:
        assert main_captured(capsys, "tag", project, *tags)[0] == 0
    return project


def run(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, Path]:
    out = project.parent / "release"
    code, _stdout, err = main_captured(
        capsys, "run", project, "--out", out, "--crosswalk-out", project.parent / "xw"
    )
    return code, err, out


def planted_values(folder: Path) -> list[str]:
    """Every planted-looking value of the comments and labels (long digit runs, street
    numbers with their street), to assert none reaches a message."""
    text = (folder / "visits.csv").read_text(encoding="utf-8")
    return re.findall(r"\d{7,}|\d+ [A-Z][a-z]+ (?:Street|Avenue|Road|Drive|Lane)", text)


def assert_refused(code: int, err: str, out: Path, folder: Path, column: str) -> None:
    assert code == 3, err
    assert "Nothing was written" in err
    assert f"'{column}'" in err
    assert not out.exists() and not (folder / "xw").exists()
    for value in planted_values(folder):
        assert value not in err


def test_record_number_of_another_hospital_in_comments_tagged_clinical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_with(tmp_path, capsys, {"other_mrn": 150}, "visits.comments=clinical")
    code, err, out = run(project, capsys)
    assert_refused(code, err, out, tmp_path, "comments")
    assert "150 cells with record numbers" in err


def test_record_number_in_comments_tagged_quasi(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_with(tmp_path, capsys, {"other_mrn": 20}, "visits.comments=quasi")
    code, err, out = run(project, capsys)
    assert_refused(code, err, out, tmp_path, "comments")
    assert "20 cells with record numbers" in err


def test_clean_comments_tagged_clinical_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No false alarm: the comments' weights, doses and plain words are no identifiers."""
    project = project_with(tmp_path, capsys, {}, "visits.comments=clinical")
    code, err, out = run(project, capsys)
    assert code == 0, err
    assert (out / "visits.csv").exists()


def test_a_column_accepted_after_review_no_longer_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_with(tmp_path, capsys, {"other_mrn": 5}, "visits.comments=clinical")
    assert run(project, capsys)[0] == 3
    code, _out, err = main_captured(
        capsys, "set", project, "transform.accepted_text_columns=visits.comments"
    )
    assert code == 0, err
    assert load_project(project).transform.accepted_text_columns == ("visits.comments",)
    code, err, out = run(project, capsys)
    assert code == 0, err
    record = json.loads((out / "export_record.json").read_text(encoding="utf-8"))
    assert record["parameters"]["accepted_text_columns"] == ["visits.comments"]


def test_review_lists_the_hits_by_row_and_span(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project_path = project_with(tmp_path, capsys, {"other_mrn": 12}, "visits.comments=clinical")
    project, _ = engine.open_project(project_path)
    result = engine.review(project, engine.load(project, project_path))
    assert not result.passed
    assert result.text_hits is not None
    hits = result.text_hits.hits_for("visits", "comments")
    assert len(hits) == 12 and {h.kind for h in hits} == {"MRN"}
    cells = result.release.tables["visits"]["comments"]
    for hit in hits:
        found = hit.text_in(str(cells.iloc[hit.row]))
        assert found.isdigit() and len(found) == 8


def test_relatives_names_in_notes_set_to_redact_hits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Notes set to 'redact hits': every relative's name is redacted, or the release is
    refused; a name never reaches the release."""
    project = project_with(tmp_path, capsys, {"relative": 6})
    spec = load_project(project)
    options = dataclasses.replace(
        spec.transform, free_text={"visits.nurse_notes": FreeTextAction.REDACT}
    )
    save_project(dataclasses.replace(spec, transform=options), project)
    code, err, out = run(project, capsys)
    if code == 0:
        notes = (out / "visits.csv").read_text(encoding="utf-8")
        assert "(daughter) phoned" in notes  # the notes were released, redacted
        assert not re.search(r"[A-Z][a-z]+ [A-Z][a-z]+ \(daughter\)", notes)
    else:
        assert_refused(code, err, out, tmp_path, "nurse_notes")


def test_street_address_in_comments_tagged_clinical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_with(tmp_path, capsys, {"street": 40}, "visits.comments=clinical")
    code, err, out = run(project, capsys)
    assert_refused(code, err, out, tmp_path, "comments")
    assert "40 cells with street addresses" in err


def test_carers_full_names_in_comments_tagged_clinical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_with(tmp_path, capsys, {"carer": 30}, "visits.comments=clinical")
    code, err, out = run(project, capsys)
    assert_refused(code, err, out, tmp_path, "comments")
    assert "30 cells with person names" in err


@pytest.mark.parametrize("shape", sorted(LABEL_DATES))
def test_dates_in_a_label_column(
    shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_with(tmp_path, capsys, {f"label:{shape}": 25})
    code, err, out = run(project, capsys)
    assert_refused(code, err, out, tmp_path, "visit_label")
    assert LABEL_DATES[shape] not in err


@pytest.mark.parametrize("system", ["excel_serial", "excel_serial_1904"])
def test_excel_serial_dates_in_a_date_column(
    system: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_with(tmp_path, capsys, {system: 1}, "visits.sample_date=clinical")
    code, err, out = run(project, capsys)
    assert_refused(code, err, out, tmp_path, "sample_date")
