"""`deid show` and `deid set` end to end, in fresh processes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from deid_desktop.core.project import load_project
from deid_desktop.core.resources import resources_dir
from tests.e2e._cli import run_deid


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    shutil.copytree(resources_dir() / "demo", tmp_path, dirs_exist_ok=True)
    return tmp_path / "demo.deid.json"


def show_json(project: Path) -> dict[str, object]:
    out = run_deid("show", project, "--json")
    assert out.returncode == 0, out.stderr
    settings: dict[str, object] = json.loads(out.stdout)["settings"]
    return settings


def test_show_lists_every_decision_with_its_value(demo: Path) -> None:
    out = run_deid("show", demo)
    assert out.returncode == 0, out.stderr
    lines = {line.split()[0]: line.split()[1] for line in out.stdout.splitlines()[1:-1]}
    assert lines["pathway"] == "safe_harbor"
    assert lines["seed"] == "20260423"
    assert lines["risk.k_target"] == "5"
    assert lines["transform.age_reference"] == "index"
    assert lines["transform.free_text.demographics.notes"] == "suppress"
    assert "deid set" in out.stdout.splitlines()[-1]
    settings = show_json(demo)
    assert set(lines) == set(settings)
    assert settings["export.formats"] == ["csv"] and settings["risk.age_bands"] == []


def test_set_saves_every_change_and_show_reads_it_back(demo: Path) -> None:
    out = run_deid(
        "set",
        demo,
        "seed=12345",
        "risk.k=5",
        "risk.k_target=7",
        "risk.age_bands=0,18,65,90",
        "risk.suppress_below_k=true",
        "transform.free_text.demographics.notes=redact",
        "pathway=linkable",
        "linkable.offset_days=30",
        "export.recipient=Cardiology lab",
    )
    assert out.returncode == 0, out.stderr
    assert "seed: 20260423 -> 12345" in out.stdout
    assert "risk.k_target: 5 -> 7" in out.stdout
    settings = show_json(demo)
    assert settings["seed"] == 12345 and settings["risk.k_target"] == 7
    assert settings["risk.age_bands"] == [0, 18, 65, 90]
    assert settings["transform.free_text.demographics.notes"] == "redact"
    assert settings["export.recipient"] == "Cardiology lab"
    p = load_project(demo)  # stamped: a plain load accepts it
    assert p.pathway.value == "linkable" and p.linkable.offset_days == 30
    assert p.risk.suppress_below_k is True


def test_an_unknown_key_exits_2_with_did_you_mean_and_saves_nothing(demo: Path) -> None:
    before = demo.read_bytes()
    out = run_deid("set", demo, "seed=1", "risk.k_targt=5")
    assert out.returncode == 2
    assert "There is no setting 'risk.k_targt'" in out.stderr
    assert "Did you mean risk.k_target?" in out.stderr
    assert "deid show" in out.stderr
    assert "Traceback" not in out.stderr
    assert demo.read_bytes() == before


def test_a_bad_value_exits_2_naming_the_rule_and_saves_nothing(demo: Path) -> None:
    before = demo.read_bytes()
    out = run_deid("set", demo, "seed=1", "risk.k_target=0")
    assert out.returncode == 2
    assert "risk.k_target must be a whole number from 1 to 1000000" in out.stderr
    assert demo.read_bytes() == before
    out = run_deid("set", demo, "transform.age_reference=31/12/2024")
    assert out.returncode == 2
    assert 'transform.age_reference must be "index" or a date written YYYY-MM-DD' in out.stderr
    assert "31/12/2024" not in out.stderr
    assert demo.read_bytes() == before


def test_set_on_a_missing_project_is_a_project_error(tmp_path: Path) -> None:
    out = run_deid("set", tmp_path / "nope.deid.json", "seed=1")
    assert out.returncode == 4
    assert "not found" in out.stderr
