"""`deid generalize` end to end: ARX's adult solution from the command line (JSON
contract), text output without values, built-ins and their export, a project, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e._cli import main_captured, run_deid

ADULT = Path(__file__).resolve().parents[1] / "data" / "adult"
QIS = "age,education,marital-status,native-country,workclass,occupation,race,sex"


def test_adult_json_contract_in_a_fresh_process() -> None:
    run = run_deid(
        "generalize",
        ADULT / "adult.csv",
        "--qi",
        QIS,
        "--k",
        "5",
        "--max-suppression",
        "0.05",
        "--hierarchies",
        ADULT,
        "--json",
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    for key in (
        "k",
        "classes",
        "suppressed",
        "rows",
        "levels",
        "loss",
        "discernibility",
        "seconds",
    ):
        assert key in out
    assert out["k"] == 5 and out["rows"] == 30162
    assert out["suppressed"] <= 1458 and out["loss"] <= 0.252
    assert out["levels"] == {
        "age": 3,
        "education": 1,
        "marital-status": 0,
        "native-country": 1,
        "workclass": 1,
        "occupation": 2,
        "race": 0,
        "sex": 0,
    }
    assert out["classes"] == 399 and out["complete"] is True


def test_text_output_names_levels_and_figures_never_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = main_captured(
        capsys, "generalize", ADULT / "adult.csv", "--qi", QIS, "--hierarchies", ADULT
    )
    assert code == 0
    assert "age             level 3 of 4" in out and "Rows suppressed:  1,458" in out
    assert "Loss (ARX):       0.252" in out
    for value in ("Bachelors", "United-States", "Married-civ-spouse", "20-39", "Undergraduate"):
        assert value not in out


def test_builtins_by_name_and_their_export(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = main_captured(
        capsys,
        "generalize",
        ADULT / "adult.csv",
        "--qi",
        "age,sex,race,education",
        "--builtin",
        "race=race",
        "--metric",
        "discernibility",
        "--export-hierarchies",
        tmp_path / "h",
        "--sep",
        ",",
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["hierarchies"]["age"] == "built-in: ages" and data["metric"] == "discernibility"
    assert data["suppressed"] <= 0.05 * data["rows"]
    age_rows = (tmp_path / "h" / "age.csv").read_text(encoding="utf-8").splitlines()
    assert "39,35-39,30-39,20-39,*" in age_rows
    # the exported files are read back as a hierarchy folder: same answer
    code2, out2, _ = main_captured(
        capsys,
        "generalize",
        ADULT / "adult.csv",
        "--qi",
        "age,sex,race,education",
        "--hierarchies",
        tmp_path / "h",
        "--sep",
        ",",
        "--metric",
        "discernibility",
        "--json",
    )
    assert code2 == 0 and json.loads(out2)["levels"] == data["levels"]


def test_project_uses_its_release_and_quasi_identifiers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from deid_desktop.core.demo import write_demo

    project = write_demo(tmp_path / "demo", rows=600)
    code, out, err = main_captured(capsys, "generalize", project, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data["levels"]) == {"dob_year", "age", "sex", "race", "ethnicity", "zip3"}
    assert data["min_class"] >= 5 and data["suppressed"] <= 0.05 * data["rows"]


def test_usage_and_unreachable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    adult = ADULT / "adult.csv"
    assert main_captured(capsys, "generalize", adult)[0] == 2  # no --qi
    code, _, err = main_captured(capsys, "generalize", adult, "--qi", "occupation")
    assert code == 2 and "No hierarchy for column(s) 'occupation'" in err
    assert (
        main_captured(capsys, "generalize", adult, "--qi", "nope", "--hierarchies", ADULT)[0] == 2
    )
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "sex.csv").write_text("Male;*\n", encoding="utf-8")  # Female missing
    code, _, err = main_captured(capsys, "generalize", adult, "--qi", "sex", "--hierarchies", bad)
    assert code == 4 and "not in the column's hierarchy" in err and "Female" not in err
    small = tmp_path / "small.csv"
    small.write_text("sex\nF\nM\n", encoding="utf-8")
    code, _, err = main_captured(
        capsys, "generalize", small, "--qi", "sex", "--k", "5", "--max-suppression", "0"
    )
    assert code == 3 and "No generalization reaches k = 5" in err


def test_local_suppression_and_persons_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = main_captured(
        capsys,
        "generalize",
        ADULT / "adult.csv",
        "--qi",
        QIS,
        "--hierarchies",
        ADULT,
        "--local-suppression",
        "--priority",
        "native-country,race",
        "--json",
    )
    assert code == 0, err
    local = json.loads(out)["local_suppression"]
    assert local["rows_suppressed"] == 0 and local["rows_touched"] <= 1458
    assert local["cells_blanked_by_column"]["native-country"] > 0
    visits = tmp_path / "visits.csv"
    visits.write_text("pid,dx\n1,E11.9\n1,I10\n2,E11.9\n2,I10\n3,E11.9\n4,I10\n", encoding="utf-8")
    code, out, err = main_captured(
        capsys,
        "generalize",
        visits,
        "--qi",
        "dx",
        "--person",
        "pid",
        "--k",
        "2",
        "--max-suppression",
        "0",
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    # by person: {E11, I10} twice, {E11} and {I10} once: the codes must go to chapter level
    assert data["unit"] == "persons" and data["persons"] == 4 and data["persons_suppressed"] == 0
    assert data["levels"] == {"dx": 4}
