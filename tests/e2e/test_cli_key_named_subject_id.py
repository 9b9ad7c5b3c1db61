"""A person key named like the release's own ID column (MIMIC's ``subject_id``): the
crosswalk once held one column (the key overwrote the subject IDs), and two gate checks
could not run, so the release was refused with "1 problem" and no way to fix it. The
crosswalk now keeps both (the key as ``source_subject_id``) and the release is written."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.e2e._cli import main_captured

deid = main_captured


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture
def mimic_like(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Forty persons keyed ``subject_id`` (8 digits), one or two admissions each."""
    folder = tmp_path / "mimic"
    folder.mkdir()
    persons = [
        {"subject_id": str(10_000_000 + i), "gender": "MF"[i % 2], "anchor_age": str(20 + i)}
        for i in range(40)
    ]
    admissions = [
        {
            "subject_id": p["subject_id"],
            "hadm_id": str(20_000_000 + 2 * i + j),
            "admittime": f"2019-0{1 + (i + j) % 9}-1{j} 08:15:00",
            "dischtime": f"2019-0{1 + (i + j) % 9}-2{j} 10:30:00",
            "insurance": ("Medicare", "Medicaid", "Other")[i % 3],
        }
        for i, p in enumerate(persons)
        for j in range(1 + i % 2)
    ]
    _write(folder / "patients.csv", persons)
    _write(folder / "admissions.csv", admissions)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("DEID_REGISTER", str(tmp_path / "register.jsonl"))
    return folder


def test_a_person_key_named_subject_id_gets_a_whole_crosswalk(
    mimic_like: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = deid(capsys, "init", "patients.csv", "admissions.csv", "-o", "m.deid.json")
    assert code == 0, err
    code, _, err = deid(
        capsys, "run", "m.deid.json", "--out", tmp_path / "rel", "--crosswalk-out", tmp_path / "xw"
    )
    assert code == 0, err
    (crosswalk,) = (tmp_path / "xw").glob("crosswalk*.csv")
    with crosswalk.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["subject_id", "source_subject_id"]
    assert len(rows) == 40
    keys = {r["source_subject_id"] for r in rows}
    assert keys == {str(10_000_000 + i) for i in range(40)}
    ids = [r["subject_id"] for r in rows]
    assert len(set(ids)) == 40 and not keys & set(ids)
    with (tmp_path / "rel" / "patients.csv").open(encoding="utf-8") as fh:
        released = list(csv.DictReader(fh))
    assert {r["subject_id"] for r in released} == set(ids)  # the release's IDs, not keys
