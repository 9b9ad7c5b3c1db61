"""`deid check` and `deid run` end to end, in fresh processes, on the demo project."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path

import pytest

from deid_desktop.core.demo import write_demo
from deid_desktop.core.model import ColumnClass
from deid_desktop.core.project import load_project, save_project
from deid_desktop.core.register import read_register
from tests.core.support import sha
from tests.e2e._cli import run_deid


def deid(*args: str | Path, register: Path) -> subprocess.CompletedProcess[str]:
    return run_deid(*args, env={"DEID_REGISTER": str(register)})


def tree(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*")}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo(tmp_path_factory.mktemp("e2e") / "demo")


@pytest.fixture(scope="module")
def leaky(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo with the notes column tagged clinical: names in notes would leak."""
    path = write_demo(tmp_path_factory.mktemp("leaky") / "demo")
    project = load_project(path)
    spec = project.table("demographics")
    tag = dataclasses.replace(spec.column("notes"), cls=ColumnClass.CLINICAL)
    save_project(project.with_table(spec.with_column(tag)), path)
    return path


def test_check_passes_on_the_demo_and_writes_nothing(demo: Path, tmp_path: Path) -> None:
    before = tree(demo.parent)
    res = deid("check", demo, register=tmp_path / "reg.jsonl")
    assert res.returncode == 0, res.stderr
    assert re.search(r"^Checks: \d+ passed, 0 failed$", res.stdout, re.MULTILINE)
    assert "k = " in res.stdout and "cannot prove a note clean" in res.stdout
    assert "Nothing was written." in res.stdout
    assert tree(demo.parent) == before and list(tmp_path.iterdir()) == []


def test_check_json_schema(demo: Path, tmp_path: Path) -> None:
    res = deid("check", demo, "--json", register=tmp_path / "reg.jsonl")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert set(doc) == {
        "schema",
        "project",
        "pathway",
        "label",
        "passed",
        "verdict",
        "risk_acceptance_needed",
        "checks",
        "failures",
        "risk",
        "scan",
        "rows",
        "transformations",
        "warnings",
        "problems",
        "earlier_releases",
        "cross_release",
        "small_cells",
    }
    assert doc["schema"] == 1 and doc["passed"] is True and doc["pathway"] == "safe_harbor"
    assert doc["label"] == "de-identified under HIPAA Safe Harbor (45 CFR 164.514(b)(2))"
    assert all(
        set(c) == {"id", "name", "rule", "severity", "passed", "count"} for c in doc["checks"]
    )
    assert {"k", "classes", "lone", "below_k", "k_target", "prosecutor_max"} <= set(doc["risk"])
    assert doc["risk"]["rows"] == 2432
    assert doc["scan"]["columns_scanned"] == ["demographics.notes"]
    assert doc["rows"]["visits"]["released"] == doc["rows"]["visits"]["input"]
    # the demo's event tables: visit type and NYHA class counted, each value common
    assert doc["small_cells"]["small_cells"] == 0
    assert {(c["table"], c["column"]) for c in doc["small_cells"]["columns"]} >= {
        ("visits", "visit_type")
    }


def test_check_exits_3_when_a_blocking_check_fails(leaky: Path, tmp_path: Path) -> None:
    before = tree(leaky.parent)
    res = deid("check", leaky, "--json", register=tmp_path / "reg.jsonl")
    assert res.returncode == 3, res.stderr
    doc = json.loads(res.stdout)
    assert doc["passed"] is False
    assert doc["checks"][0]["passed"] is False  # failures first
    failed = {c["id"] for c in doc["checks"] if not c["passed"]}
    assert "no_direct_values" in failed
    text = deid("check", leaky, register=tmp_path / "reg.jsonl")
    assert text.returncode == 3 and "FAIL" in text.stdout
    assert tree(leaky.parent) == before and list(tmp_path.iterdir()) == []


def test_run_refuses_a_failing_release_and_writes_nothing(leaky: Path, tmp_path: Path) -> None:
    res = deid(
        "run",
        leaky,
        "--out",
        tmp_path / "out",
        "--crosswalk-out",
        tmp_path / "xw",
        register=tmp_path / "reg.jsonl",
    )
    assert res.returncode == 3
    assert "No direct-identifier value appears in the release" in res.stderr
    assert "Nothing was written" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_run_refuses_a_crosswalk_inside_the_release(demo: Path, tmp_path: Path) -> None:
    res = deid(
        "run",
        demo,
        "--out",
        tmp_path / "out",
        "--crosswalk-out",
        tmp_path / "out" / "xw",
        register=tmp_path / "reg.jsonl",
    )
    assert res.returncode == 3
    assert "164.514(c)" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_run_twice_in_two_processes_gives_identical_release_files(
    demo: Path, tmp_path: Path
) -> None:
    reg = tmp_path / "reg.jsonl"
    outs = []
    for i in (1, 2):
        res = deid(
            "run",
            demo,
            "--out",
            tmp_path / f"out{i}",
            "--crosswalk-out",
            tmp_path / f"xw{i}",
            "--purpose",
            "HF readmission",
            "--recipient",
            "Biostat core",
            "--retention",
            "2 years",
            "--dua",
            "DUA-17",
            register=reg,
        )
        assert res.returncode == 0, res.stderr
        assert "Export record:" in res.stdout
        outs.append(tmp_path / f"out{i}")
    names = sorted(p.name for p in outs[0].iterdir())
    assert names == sorted(p.name for p in outs[1].iterdir())
    csvs = [n for n in names if n.endswith(".csv")]
    assert set(csvs) >= {"demographics.csv", "baseline.csv", "visits.csv", "data_dictionary.csv"}
    for n in [*csvs, "README.txt"]:
        assert sha(outs[0] / n) == sha(outs[1] / n), n
    assert sha(tmp_path / "xw1" / "crosswalk-DO-NOT-DISCLOSE.csv") == sha(
        tmp_path / "xw2" / "crosswalk-DO-NOT-DISCLOSE.csv"
    )
    r1, r2 = (json.loads((o / "export_record.json").read_text()) for o in outs)
    assert r1["outputs"]["files"] == r2["outputs"]["files"]
    assert r1["meta"] == {
        "purpose": "HF readmission",
        "recipient": "Biostat core",
        "retention": "2 years",
        "dua": "DUA-17",
        "formats": ["csv"],
    }
    entries = read_register(reg)
    assert [e["outputs"]["folder"] for e in entries] == [str(o) for o in outs]
    check = deid("check", demo, "--json", register=reg)
    earlier = json.loads(check.stdout)["earlier_releases"]
    assert [e["folder"] for e in earlier] == [str(o) for o in outs]
    assert earlier[0]["recipient"] == "Biostat core" and earlier[0]["k"] == r1["risk"]["k"]
    text = deid("check", demo, register=reg).stdout
    assert "Earlier releases of this project in the register: 2" in text
    for out in outs:
        for p in out.iterdir():
            assert "anonym" not in p.read_text(encoding="utf-8").lower(), p.name


def test_run_json_xlsx_and_overwrite(demo: Path, tmp_path: Path) -> None:
    reg = tmp_path / "reg.jsonl"
    args = ["run", demo, "--out", tmp_path / "out", "--crosswalk-out", tmp_path / "xw"]
    res = deid(*args, "--xlsx", "--json", register=reg)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["record"] == str(tmp_path / "out" / "export_record.json")
    assert str(tmp_path / "out" / "visits.xlsx") in doc["files"]
    assert doc["register"] == str(reg)
    first = sha(tmp_path / "out" / "export_record.json")
    again = deid(*args, register=reg)
    assert again.returncode == 2 and "not empty" in again.stderr
    assert sha(tmp_path / "out" / "export_record.json") == first
    forced = deid(*args, "--overwrite", register=reg)
    assert forced.returncode == 0, forced.stderr
    assert not (tmp_path / "out" / "visits.xlsx").exists()  # replaced whole
    assert len(read_register(reg)) == 2


def test_run_needs_out(demo: Path, tmp_path: Path) -> None:
    res = deid("run", demo, register=tmp_path / "reg.jsonl")
    assert res.returncode == 2 and "--out" in res.stderr


def test_run_keeps_the_seed_and_the_crosswalk_out_of_the_release(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """45 CFR 164.514(c)(2): the subject IDs are drawn from the seed, so the recipient
    gets neither the seed nor where the crosswalk is; the sender keeps both."""
    seed = 987654321
    path = write_demo(tmp_path_factory.mktemp("seeded") / "demo")
    save_project(dataclasses.replace(load_project(path), seed=seed), path)
    reg = tmp_path / "reg.jsonl"
    out, xw = tmp_path / "out", tmp_path / "keep" / "xw"
    res = deid("run", path, "--out", out, "--crosswalk-out", xw, "--xlsx", register=reg)
    assert res.returncode == 0, res.stderr
    for p in out.iterdir():
        text = p.read_bytes().decode("utf-8", errors="replace")
        assert str(seed) not in text, p.name
        assert str(xw) not in text and str(tmp_path / "keep") not in text, p.name
    record = json.loads((out / "export_record.json").read_text())
    assert record["seed"] == "held back with the crosswalk"
    full = json.loads((xw / "export_record_full.json").read_text())
    assert full["seed"] == seed and full["crosswalk"]["folder"] == str(xw)
    assert full["crosswalk"]["sha256"] == sha(xw / "crosswalk-DO-NOT-DISCLOSE.csv")
    assert str(seed) in (xw / "export_record_full.txt").read_text()
    (entry,) = read_register(reg)
    assert entry["seed"] == seed and entry["full_record_path"] == str(
        xw / "export_record_full.json"
    )
    # the free text is only suppressed in the demo: `deid run` did not scan it
    assert record["scan"]["scanned"] is False
    assert "not scanned in this run" in (out / "README.txt").read_text()


def test_check_prints_the_verdict_and_its_json_carries_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from deid_desktop.cli import main

    demo = write_demo(tmp_path / "demo")
    assert main(["check", str(demo)]) == 0
    text = capsys.readouterr().out
    assert "Verdict (red): All Safe Harbor checks passed. Residual risk: high - " in text
    assert main(["check", str(demo), "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)["verdict"]
    assert verdict["colour"] == "red" and verdict["level"] == "high"
    assert verdict["access_model"].startswith("controlled access")


def test_check_says_each_failure_in_the_same_words_as_the_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from deid_desktop.cli import main

    demo = write_demo(tmp_path / "demo")
    project = load_project(demo)
    spec = project.table("demographics")
    phone = dataclasses.replace(spec.column("phone"), cls=ColumnClass.CLINICAL, role=None,
                                category=None)  # fmt: skip
    save_project(project.with_table(spec.with_column(phone)), demo)
    assert main(["check", str(demo), "--json"]) == 3
    failures = json.loads(capsys.readouterr().out)["failures"]
    phone_failures = [f for f in failures if f["column"] == "phone"]
    assert phone_failures and phone_failures[0]["step"] == 2
    assert "demographics.phone" in phone_failures[0]["sentence"]
    # the command line names the command that fixes it, not the window's step
    assert f"`deid tag {demo} demographics.phone=direct`" in phone_failures[0]["sentence"]
    assert not any("step 2" in f["sentence"] for f in failures)
    assert main(["check", str(demo)]) == 3
    text = capsys.readouterr().out
    assert "What failed and how to fix it:" in text
    assert f"  - {phone_failures[0]['sentence']}" in text
