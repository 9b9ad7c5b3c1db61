"""`deid generalize PROJECT --apply` then `deid run`: the release holds exactly the
generalization the search chose (levels, suppressed persons, figures), the same project
releases the same bytes twice, and a hierarchy file that is gone or changed stops the
release (exit 4) with its name."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core.demo import write_demo
from deid_desktop.core.project import check_inputs, load_project
from tests.core.support import sha
from tests.e2e._cli import main_captured

GENERALIZED = ("dob_year", "age", "sex", "race", "ethnicity", "zip3")


@pytest.fixture()
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEID_REGISTER", str(tmp_path / "register.jsonl"))
    return write_demo(tmp_path / "demo", rows=600)


def _apply(capsys: pytest.CaptureFixture[str], project: Path, *extra: str | Path) -> dict:
    code, out, err = main_captured(capsys, "generalize", project, "--apply", "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def _run(capsys: pytest.CaptureFixture[str], project: Path, out: Path) -> tuple[int, str]:
    code, _, err = main_captured(
        capsys, "run", project, "--out", out, "--crosswalk-out", out.with_name(out.name + "_cw")
    )
    return code, err


def test_apply_then_run_releases_the_chosen_levels(
    capsys: pytest.CaptureFixture[str], demo: Path, tmp_path: Path
) -> None:
    before = pd.read_csv(demo.parent / "demographics.csv", dtype=str)
    chosen = _apply(capsys, demo)
    assert chosen["applied"] == demo.name and set(chosen["levels"]) == set(GENERALIZED)
    assert chosen["levels"]["age"] >= 1  # the demo's ages need a band to reach k = 5
    saved = load_project(demo).generalization
    assert saved is not None
    assert {c.name: c.level for c in saved.columns} == chosen["levels"]
    assert all(c.builtin for c in saved.columns) and saved.k == 5

    code, out, err = main_captured(capsys, "risk", demo, "--json")
    assert code == 0, err
    risk = json.loads(out)
    assert risk["k"] >= risk["k_target"] == 5
    assert risk["rows"] == chosen["rows"] - chosen["suppressed"]
    assert risk["classes"] == chosen["classes"]

    assert _run(capsys, demo, tmp_path / "rel1")[0] == 0
    person = pd.read_csv(tmp_path / "rel1" / "demographics.csv", dtype=str)
    assert len(person) == len(before) - chosen["suppressed"]
    ages = set(person["age"].dropna())
    assert ages and all("-" in a or a == "90+" for a in ages)  # bands, no single year
    readme = (tmp_path / "rel1" / "README.txt").read_text(encoding="utf-8")
    assert f"age level {chosen['levels']['age']} of 4 (built-in age)" in readme
    assert f"Suppressed {chosen['suppressed']:,} of {chosen['rows']:,} persons" in readme
    assert f"Information loss (ARX): {chosen['loss']:.3f}." in readme
    assert "Discernibility:" in readme and "Average group size (AECS):" in readme
    record = json.loads((tmp_path / "rel1" / "export_record.json").read_text(encoding="utf-8"))
    assert any(t.startswith("Generalized the person table") for t in record["transformations"])
    assert record["rows_suppressed"] >= chosen["suppressed"]

    assert _run(capsys, demo, tmp_path / "rel2")[0] == 0
    for name in ("demographics.csv", "baseline.csv", "visits.csv", "data_dictionary.csv"):
        assert sha(tmp_path / "rel1" / name) == sha(tmp_path / "rel2" / name), name

    again = _apply(capsys, demo)  # searched on the release before the generalization
    assert again["levels"] == chosen["levels"] and again["suppressed"] == chosen["suppressed"]


def test_hierarchy_files_are_hashed_and_checked(
    capsys: pytest.CaptureFixture[str], demo: Path, tmp_path: Path
) -> None:
    folder = demo.parent / "hierarchies"
    code, _, err = main_captured(capsys, "generalize", demo, "--export-hierarchies", folder)
    assert code == 0, err
    chosen = _apply(capsys, demo, "--hierarchies", folder)
    saved = load_project(demo).generalization
    assert saved is not None
    ages = next(c for c in saved.columns if c.name == "age")
    assert ages.path == "hierarchies/age.csv" and ages.sha256 == sha(folder / "age.csv")
    assert _run(capsys, demo, tmp_path / "rel")[0] == 0
    person = pd.read_csv(tmp_path / "rel" / "demographics.csv", dtype=str)
    assert len(person) == chosen["rows"] - chosen["suppressed"]

    text = (folder / "age.csv").read_text(encoding="utf-8")
    (folder / "age.csv").write_text(text + "\n", encoding="utf-8")
    code, err = _run(capsys, demo, tmp_path / "changed")
    assert code == 4 and "age.csv" in err and "changed" in err
    assert not (tmp_path / "changed").exists()
    problems = check_inputs(load_project(demo), demo)
    assert [(p.kind, Path(p.file or "").name) for p in problems] == [
        ("hierarchy_changed", "age.csv")
    ]

    (folder / "age.csv").unlink()
    code, err = _run(capsys, demo, tmp_path / "gone")
    assert code == 4 and "age.csv" in err and "missing" in err


def test_apply_needs_a_project(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("age,sex\n30,F\n31,M\n", encoding="utf-8")
    code, _, err = main_captured(capsys, "generalize", table, "--qi", "age,sex", "--apply")
    assert code == 2 and "project" in err
