"""Upgrades: a project file and a register written by deid-desktop 0.1.0
(tests/data/upgrade, see its PROVENANCE.md) open in the current code, and `deid check`
reads the old register."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from deid_desktop.core.model import Pathway
from deid_desktop.core.project import load_project
from deid_desktop.core.register import earlier_releases, read_register
from tests.e2e._cli import main_captured

DATA = Path(__file__).resolve().parents[1] / "data" / "upgrade"
PROJECT_ID = "c01bc0642f7a576fbc0d4cd6be18d885"


@pytest.fixture
def old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the 0.1.0 files (nothing writes into the repository)."""
    folder = tmp_path / "upgrade"
    shutil.copytree(DATA, folder)
    monkeypatch.setenv("DEID_REGISTER", str(folder / "register.jsonl"))
    return folder


def test_the_committed_files_are_from_version_0_1_0() -> None:
    (entry,) = [json.loads(line) for line in (DATA / "register.jsonl").read_text().splitlines()]
    assert entry["app"] == {"name": "deid-desktop", "version": "0.1.0"}
    assert json.loads((DATA / "demo.deid.json").read_text())["schema_version"] == 1


def test_a_0_1_0_project_file_opens(old: Path) -> None:
    project = load_project(old / "demo.deid.json")
    assert project.project_id == PROJECT_ID
    assert project.name == "HF-HOME demo (synthetic)"
    assert project.pathway == Pathway.SAFE_HARBOR
    assert sorted(t.name for t in project.tables) == ["baseline", "demographics", "visits"]


def test_a_0_1_0_register_is_read(old: Path) -> None:
    (entry,) = read_register(old / "register.jsonl")
    assert entry["project"]["id"] == PROJECT_ID
    (earlier,) = earlier_releases(PROJECT_ID, old / "register.jsonl")
    assert earlier["pathway"] == "safe_harbor"
    assert earlier["recipient"] == "Upgrade test recipient"


def test_deid_check_on_the_old_project_reports_the_old_release(
    old: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = main_captured(capsys, "check", old / "demo.deid.json", "--json")
    assert code == 0, err
    payload = json.loads(out)
    (earlier,) = payload["earlier_releases"]
    assert earlier["recipient"] == "Upgrade test recipient"
    assert "register could not be read" not in err


def test_a_new_export_appends_to_the_old_register(
    old: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = main_captured(
        capsys,
        "run",
        old / "demo.deid.json",
        "--out",
        tmp_path / "release",
        "--crosswalk-out",
        tmp_path / "crosswalk",
    )
    assert code == 0, err
    first, second = read_register(old / "register.jsonl")
    assert first["app"] == {"name": "deid-desktop", "version": "0.1.0"}
    assert second["app"]["commit"] and second["project"]["id"] == PROJECT_ID
    assert len(earlier_releases(PROJECT_ID, old / "register.jsonl")) == 2
