"""Risk across releases end to end: two releases of the demo counting different
quasi-identifiers, then `deid check --json` names how many persons the combination isolates."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from deid_desktop.core.cross_release import QI_FILE
from deid_desktop.core.demo import write_demo
from tests.e2e._cli import run_deid


def deid(*args: str | Path, register: Path) -> subprocess.CompletedProcess[str]:
    return run_deid(*args, env={"DEID_REGISTER": str(register)})


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return write_demo(tmp_path / "demo", rows=400)


def _set(demo: Path, *changes: str) -> None:
    res = run_deid("set", demo, *changes)
    assert res.returncode == 0, res.stderr


def _release(demo: Path, tmp: Path, name: str, register: Path) -> Path:
    res = deid(
        "run",
        demo,
        "--out",
        tmp / f"out-{name}",
        "--crosswalk-out",
        tmp / f"xw-{name}",
        "--recipient",
        f"Lab {name}",
        register=register,
    )
    assert res.returncode == 0, res.stderr
    return tmp / f"out-{name}"


def test_a_single_release_gives_no_cross_release_warning(demo: Path, tmp_path: Path) -> None:
    register = tmp_path / "reg.jsonl"
    _set(demo, "risk.quasi_identifiers=sex,zip3")
    check = deid("check", demo, "--json", register=register)
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["cross_release"] is None  # nothing released before
    _release(demo, tmp_path, "A", register)
    check = deid("check", demo, "--json", register=register)
    doc = json.loads(check.stdout)["cross_release"]
    assert doc["warnings"] == []  # the same quasi-identifiers again isolate nobody
    assert [(r["lone"], r["below_k"]) for r in doc["releases"]] == [(0, 0)]


def test_zip3_then_age_bands_warns_how_many_persons_the_combination_isolates(
    demo: Path, tmp_path: Path
) -> None:
    register = tmp_path / "reg.jsonl"
    _set(demo, "risk.quasi_identifiers=sex,zip3")
    out = _release(demo, tmp_path, "A", register)
    assert (tmp_path / "xw-A" / QI_FILE).is_file() and not (out / QI_FILE).exists()

    _set(demo, "risk.quasi_identifiers=sex,age", "risk.age_bands=0,30,50,70,90")
    check = deid("check", demo, "--json", register=register)
    assert check.returncode == 0, check.stderr
    payload = json.loads(check.stdout)
    assert payload["risk"]["lone"] == 0  # the new release alone isolates nobody
    cross = payload["cross_release"]
    (earlier,) = cross["releases"]
    assert earlier["status"] == "checked" and earlier["recipient"] == "Lab A"
    assert earlier["persons_in_both"] == 400 and earlier["quasi_identifiers"] == ["sex", "zip3"]
    assert earlier["lone"] > 0
    (warning,) = cross["warnings"]
    assert f"{earlier['lone']} persons become lone" in warning and "Lab A" in warning

    text = deid("check", demo, register=register)
    assert "Warning (across releases): Combined with the release of" in text.stdout

    # a changed held-back file is a warning naming the release, never a crash
    held = tmp_path / "xw-A" / QI_FILE
    held.write_bytes(held.read_bytes()[:-1])
    again = deid("check", demo, "--json", register=register)
    assert again.returncode == 0, again.stderr
    cross = json.loads(again.stdout)["cross_release"]
    assert cross["releases"][0]["status"] == "changed"
    assert "Lab A" in cross["warnings"][0] and "not combined" in cross["warnings"][0]
