"""`deid init` on real Synthea extracts, whose tables name the person key differently
(patients.csv: Id; encounters, conditions, medications, immunizations: PATIENT), then
`deid pathway` / `deid salt create` / `deid check` as a user runs them.

The public files in tests/data are copied into tmp_path first; nothing is written there.

One step a user takes on Synthea, and why: Synthea has no index date and no age
column, so ages (for "90+") are taken at a fixed reference date:
`deid pathway ... --age-reference 2023-12-31`. INCOME stays tagged quasi (83 of the
111 incomes are 5-digit numbers; the "No 5-digit ZIP" check reads only ZIP columns).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from deid_desktop.core.project import load_project
from tests.e2e._cli import main_captured, run_deid
from tests.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401

UNMC = ("patients", "encounters", "conditions", "medications")
DS4BIOMED = ("patients", "conditions", "immunizations")
AGE_REFERENCE = "2023-12-31"


deid = main_captured  # in this process, so the in-memory keyring applies


def _copy(src: Path, dst: Path, names: tuple[str, ...]) -> Path:
    """Byte-for-byte copies of the public files (nothing is written into tests/data)."""
    dst.mkdir(parents=True)
    for name in names:
        shutil.copyfile(src / f"{name}.csv", dst / f"{name}.csv")
    return dst


@pytest.fixture
def unmc(public_data: Path, tmp_path: Path) -> Path:
    return _copy(public_data / "synthea" / "unmc_crane_2023", tmp_path / "unmc", UNMC)


def _init(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    folder: Path,
    names: tuple[str, ...],
    *extra: str,
) -> Path:
    monkeypatch.chdir(folder)
    (folder / "out").mkdir()
    project = folder / "out" / "synthea.deid.json"
    code, out, err = deid(
        capsys, "init", *(f"{n}.csv" for n in names), "-o", "out/synthea.deid.json", *extra
    )
    assert code == 0, err
    assert "Wrote out/synthea.deid.json (person key: Id)" in out
    return project


def _keys(project: Path) -> dict[str, str]:
    return {t.name: t.key for t in load_project(project).tables}


def _check(capsys: pytest.CaptureFixture[str], project: Path) -> dict:
    code, out, err = deid(capsys, "check", project, "--json")
    doc = json.loads(out) if out.strip() else {}
    failed = [c["id"] for c in doc.get("checks", []) if not c["passed"]]
    assert code == 0, f"exit {code}; failed checks {failed}; {err}"
    assert doc["passed"] is True
    return doc


# ----------------------------------------------------------------------------- deid init


def test_init_finds_each_tables_person_key(unmc: Path) -> None:
    """The command exactly as a user types it, in a fresh process."""
    (unmc / "tmp").mkdir()
    done = run_deid("init", *(f"{n}.csv" for n in UNMC), "-o", "tmp/synthea.deid.json", cwd=unmc)
    assert done.returncode == 0, done.stderr
    project = unmc / "tmp" / "synthea.deid.json"
    assert _keys(project) == {
        "patients": "Id",
        "encounters": "PATIENT",
        "conditions": "PATIENT",
        "medications": "PATIENT",
    }
    assert done.stdout.count("person key: PATIENT (named like a person key; 100.0%") == 3
    loaded = load_project(project)
    for spec in loaded.tables:
        key = spec.column(spec.key)
        assert key.cls.value == "direct" and key.role is not None
        assert key.role.value == "person_key"
    assert loaded.table("encounters").column("Id").role is None  # the encounter's own ID


def test_init_with_keys_named_on_the_command_line(
    unmc: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _init(
        capsys, monkeypatch, unmc, UNMC, "--key", "Id", "--key", "encounters=PATIENT",
        "--key", "conditions.csv=PATIENT",
    )  # fmt: skip
    assert set(_keys(project).values()) == {"Id", "PATIENT"}
    spec = load_project(project).table("encounters")
    assert "person key: chosen by the user" in spec.column("PATIENT").evidence


def test_init_key_mistakes_exit_2_with_a_hint(
    unmc: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(unmc)
    args = ("init", "patients.csv", "encounters.csv", "-o", "p.deid.json")
    code, _, err = deid(capsys, *args, "--key", "encounters=PATENT")
    assert code == 2 and "'PATENT' chosen for table 'encounters'" in err
    assert "PATIENT" in err  # the columns are listed
    code, _, err = deid(capsys, *args, "--key", "visits=PATIENT")
    assert code == 2 and "no input table 'visits'" in err and "patients, encounters" in err
    code, _, err = deid(capsys, *args, "--key", "encounters=PATIENT", "--key", "encounters=Id")
    assert code == 2 and "twice for table 'encounters'" in err
    assert not (unmc / "p.deid.json").exists()


def test_init_without_a_linking_column_names_table_and_candidates(
    unmc: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(unmc)
    text = (unmc / "conditions.csv").read_text(encoding="utf-8")
    lines = text.splitlines()
    # a diagnoses table with the person column dropped (START,STOP,ENCOUNTER,CODE,...)
    cut = "\n".join(",".join(p for i, p in enumerate(ln.split(",")) if i != 2) for ln in lines)
    (unmc / "diagnoses.csv").write_text(cut + "\n", encoding="utf-8")
    code, out, err = deid(capsys, "init", "patients.csv", "diagnoses.csv", "-o", "p.deid.json")
    assert code == 2, out
    assert "No column of table 'diagnoses' (diagnoses.csv) holds the person key" in err
    assert "--key diagnoses=COLUMN" in err
    assert "START, STOP, ENCOUNTER, CODE, DESCRIPTION" in err
    assert not (unmc / "p.deid.json").exists()


# ---------------------------------------------------------------- pathways through deid check


def test_synthea_safe_harbor_check_passes(
    unmc: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _init(capsys, monkeypatch, unmc, UNMC)
    code, _, err = deid(capsys, "pathway", project, "safe-harbor", "--age-reference", AGE_REFERENCE)
    assert code == 0, err
    assert load_project(project).person_table.column("INCOME").cls == "quasi"
    doc = _check(capsys, project)
    assert doc["pathway"] == "safe_harbor"
    assert {c["id"] for c in doc["checks"]} >= {"no_zip5", "no_direct_values", "no_full_dates"}


def test_synthea_linkable_check_passes(
    memory_keyring: MemoryKeyring,  # noqa: F811
    unmc: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = _init(capsys, monkeypatch, unmc, UNMC)
    code, _, err = deid(capsys, "pathway", project, "linkable", "--age-reference", AGE_REFERENCE)
    assert code == 0, err
    code, _, err = deid(capsys, "salt", "create", project)
    assert code == 0, err
    assert memory_keyring.store  # the salt went to the (in-memory) keyring
    doc = _check(capsys, project)
    assert doc["pathway"] == "linkable"
    ids = {c["id"] for c in doc["checks"]}
    assert {"events_link_to_persons", "intervals_preserved", "link_keys_unique"} <= ids


def test_ds4biomed_safe_harbor_check_passes(
    public_data: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    src = public_data / "synthea" / "ds4biomed_apr2020"
    folder = _copy(src, tmp_path / "ds4biomed", DS4BIOMED)
    project = _init(capsys, monkeypatch, folder, DS4BIOMED)
    assert _keys(project) == {"patients": "Id", "conditions": "PATIENT", "immunizations": "PATIENT"}
    code, _, err = deid(capsys, "pathway", project, "safe-harbor", "--age-reference", "2020-04-30")
    assert code == 0, err
    doc = _check(capsys, project)
    rows = doc["rows"]["immunizations"]
    assert rows["released"] == rows["input"] == 15_478
