"""`deid risk` and `deid scan` end to end, in fresh processes: golden figures on the
adult data, counts-only output, usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e._cli import run_deid

ADULT_QIS = "age,sex,race,marital-status,education,native-country,workclass,occupation"


deid = run_deid


def test_risk_adult_json_golden(public_data: Path) -> None:
    run = deid(
        "risk",
        public_data / "adult" / "adult.csv",
        "--qi",
        ADULT_QIS,
        "--sep",
        ";",
        "--k",
        "5",
        "--sensitive",
        "salary-class",
        "--json",
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert (out["rows"], out["classes"], out["k"], out["lone"], out["below_k"]) == (
        30162,
        18109,
        1,
        14021,
        21977,
    )
    assert out["l"] == 1
    # t-closeness of salary-class: a lone '>50K' record against the table's 75.11 % '<=50K'
    assert out["t_closeness"] == pytest.approx(0.7511, abs=5e-5)
    assert out["l_entropy"] == 1.0
    assert out["l_recursive"] == {"c": 4.0, "l": 1}
    assert out["l_diversity"]["salary-class"]["t_distance"] == "equal"
    assert "missing sensitive value adds no diversity" in out["missing_sensitive"]
    assert out["prosecutor_risk_max"] == 1.0
    assert out["prosecutor_risk_mean"] == pytest.approx(18109 / 30162)
    assert out["class_size_distribution"][0] == {"size": 1, "classes": 14021, "records": 14021}
    assert out["best_rescue"]["quasi_identifier"] == "age"
    assert out["missing_is_value"] is True
    # counts only: no value of the data in the output
    assert "Never-married" not in run.stdout and "United-States" not in run.stdout


def test_risk_raw_uci_golden(public_data: Path) -> None:
    run = deid(
        "risk",
        public_data / "adult" / "adult_uci_raw.csv",
        "--qi",
        ADULT_QIS,
        "--sep",
        ",",
        "--strip",
        "--json",
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert (out["rows"], out["lone"], out["below_k"]) == (32561, 15480, 23905)


def test_risk_text_output_and_lone_lines(public_data: Path, tmp_path: Path) -> None:
    csv = tmp_path / "people.csv"
    csv.write_text("age,sex\n30,F\n30,F\n41,M\n,M\n,M\n", encoding="utf-8")
    run = deid("risk", csv, "--qi", "age,sex", "--k", "2", "--sep", ",")
    assert run.returncode == 0, run.stderr
    assert "lone records (class of 1): 1" in run.stdout
    assert "k = 1" in run.stdout
    assert "age 2" in run.stdout  # missing values counted and declared
    listed = deid("risk", csv, "--qi", "age,sex", "--sep", ",", "--json", "--list-lone")
    assert json.loads(listed.stdout)["lone_lines"] == [4]  # header is line 1


def test_risk_usage_errors(tmp_path: Path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("a,b\n1,2\n", encoding="utf-8")
    no_qi = deid("risk", csv, "--sep", ",")
    assert no_qi.returncode == 2 and "--qi" in no_qi.stderr
    bad = deid("risk", csv, "--qi", "a,zz", "--sep", ",")
    assert bad.returncode == 2 and "'zz'" in bad.stderr
    missing = deid("risk", tmp_path / "none.csv", "--qi", "a")
    assert missing.returncode == 4


NOTES = (
    "id,patient_name,mrn,phone,note\n"
    '1,Rosa Peña,MRN77812,555-222-3333,"Rosa seen by Dr. Okafor, call 555.222.3333 on 3/4/2024"\n'
    '2,Tom Baker,MRN55501,555-444-1111,"Daughter Sarah visited. Plan unchanged."\n'
    '3,Li Wei,MRN90001,,"Annual review, nothing to report"\n'
)


def test_scan_file_json_counts_without_text(tmp_path: Path) -> None:
    csv = tmp_path / "notes.csv"
    csv.write_text(NOTES, encoding="utf-8")
    run = deid(
        "scan",
        csv,
        "--text",
        "note",
        "--dict",
        "patient_name,mrn:mrn,phone",
        "--sep",
        ",",
        "--json",
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    (col,) = out["columns"]
    assert (col["table"], col["column"], col["notes"], col["notes_with_hits"]) == (
        "notes",
        "note",
        3,
        2,
    )
    assert col["hits_by_kind"] == {"DATE": 1, "NAME": 3, "PHONE": 1}
    rules = {(h["row"], h["rule"]) for h in out["hit_list"]}
    assert (0, "dictionary:name") in rules
    assert (0, "cue:dr") in rules
    assert (0, "dictionary:phone") in rules
    assert (1, "cue:daughter") in rules
    assert set(out["hit_list"][0]) == {
        "table",
        "row",
        "column",
        "start",
        "end",
        "kind",
        "rule",
        "confidence",
    }
    assert "cannot prove a note clean" in out["disclaimer"]
    for text in ("Rosa", "Okafor", "Sarah", "555", "3/4/2024"):
        assert text not in run.stdout


def test_scan_file_text_output(tmp_path: Path) -> None:
    csv = tmp_path / "notes.csv"
    csv.write_text(NOTES, encoding="utf-8")
    run = deid("scan", csv, "--text", "note", "--dict", "patient_name", "--sep", ",")
    assert run.returncode == 0, run.stderr
    assert "notes.note: 3 notes, 2 with hits" in run.stdout
    assert "cannot prove a note clean" in run.stdout
    assert "Okafor" not in run.stdout and "Sarah" not in run.stdout


def test_scan_needs_text_columns(tmp_path: Path) -> None:
    csv = tmp_path / "notes.csv"
    csv.write_text(NOTES, encoding="utf-8")
    run = deid("scan", csv, "--sep", ",")
    assert run.returncode == 2 and "--text" in run.stderr
    bad_kind = deid("scan", csv, "--text", "note", "--dict", "mrn:zzz", "--sep", ",")
    assert bad_kind.returncode == 2


@pytest.fixture(scope="module")
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    run = deid("demo", "--out", out)
    assert run.returncode == 0, run.stderr
    return out / "demo.deid.json"


def test_risk_on_project_measures_the_released_person_table(demo_project: Path) -> None:
    run = deid("risk", demo_project, "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["rows"] == 2432
    assert out["quasi_identifiers"] == ["dob_year", "age", "sex", "race", "ethnicity", "zip3"]
    assert out["k_target"] == 5
    assert (
        out["lone"] + sum(c["records"] for c in out["class_size_distribution"] if c["size"] > 1)
        == out["rows"]
    )
    chosen = deid("risk", demo_project, "--qi", "sex", "--k", "2", "--json")
    assert json.loads(chosen.stdout)["quasi_identifiers"] == ["sex"]
    assert not list(demo_project.parent.glob("*release*"))  # nothing written


def test_scan_on_project_reads_the_free_text_columns(demo_project: Path) -> None:
    run = deid("scan", demo_project, "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    (col,) = out["columns"]
    assert (col["table"], col["column"]) == ("demographics", "notes")
    assert col["notes_with_hits"] > 0
    assert {"NAME", "PHONE", "DATE"} <= set(col["hits_by_kind"])
    assert any(h["rule"] == "cue:daughter" for h in out["hit_list"])
    assert "Sarah" not in run.stdout


def test_risk_population_models_reproduce_arx_on_adult(public_data: Path) -> None:
    # ARX's US preset (317,238,626 people); sampling fraction = 30,162 / that
    run = deid(
        "risk", public_data / "adult" / "adult.csv", "--qi", ADULT_QIS, "--sep", ";",
        "--population", "317238626", "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert (out["pitman"], out["zayatz"], out["snb"]) == (0.029664, 0.216165, 0.0)
    assert out["dankar"] == 0.029664 and out["dankar_model"] == "pitman"
    assert out["sampling_fraction"] == pytest.approx(30162 / 317238626)


def test_risk_population_defaults_to_the_released_zip3_areas(demo_project: Path) -> None:
    """The demo releases ZIP3: its population is the 2020 Census count of those areas,
    recomputed here from the shipped table by a plain join."""
    import pandas as pd

    run = deid("risk", demo_project, "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert "zip3" in out["quasi_identifiers"]
    table = pd.read_csv(
        Path(__file__).resolve().parents[2] / "resources" / "zip3" / "zip3_population_2020.csv",
        dtype={"zip3": str},
    )
    demo = pd.read_csv(demo_project.parent / "demographics.csv", dtype=str)
    prefixes = set(demo["zip"].dropna().str.zfill(5).str[:3])
    pop = dict(zip(table["zip3"], table["population"], strict=True))
    restricted = {z for z, p in pop.items() if p <= 20_000}
    released = {z for z in prefixes if z in pop and z not in restricted}
    pooled = restricted if prefixes - released else set()
    assert out["population"] == sum(pop[z] for z in released | pooled)
    assert out["sampling_fraction"] == pytest.approx(out["rows"] / out["population"])
    assert out["dankar_model"] in {"pitman", "zayatz"}


def test_risk_sampling_fraction_out_of_range_is_a_usage_error(public_data: Path) -> None:
    run = deid(
        "risk", public_data / "adult" / "adult.csv", "--qi", "sex", "--sep", ";",
        "--sampling-fraction", "1.5",
    )  # fmt: skip
    assert run.returncode == 2 and "--sampling-fraction" in run.stderr


def test_intruder_on_the_demo_equals_a_plain_join_of_the_written_release(
    demo_project: Path, tmp_path: Path
) -> None:
    """The demo suppresses nobody, so the intruder's list (the source's demographics as
    released) is the released person table itself: certain = persons alone on the
    quasi-identifiers, expected matches = the number of classes."""
    import pandas as pd

    out, cw = tmp_path / "release", tmp_path / "crosswalk"
    run = deid("run", demo_project, "--out", out, "--crosswalk-out", cw,
               "--register", tmp_path / "reg.jsonl")  # fmt: skip
    assert run.returncode == 0, run.stderr
    attack = deid("intruder", demo_project, "--json")
    assert attack.returncode == 0, attack.stderr
    got = json.loads(attack.stdout)
    qis = got["on"]
    # every released identifying column of the person table: the birth year too
    assert qis == ["dob_year", "age", "sex", "race", "ethnicity", "zip3"]
    people = pd.read_csv(out / "demographics.csv", dtype=str, keep_default_na=False)
    sizes = people.groupby(qis, dropna=False).size()
    assert got["targets"] == len(people) == 2432
    assert got["certain"] == int((sizes == 1).sum()) == 1433
    assert got["expected_matches"] == pytest.approx(len(sizes))
    assert got["hidden_among"]["1"] == got["certain"] and got["hidden_among"]["0"] == 0
    assert not any(v in attack.stdout for v in people["zip3"].unique() if v not in {"000"})


def test_scan_level_and_high_recall(tmp_path: Path) -> None:
    csv = tmp_path / "notes.csv"
    csv.write_text(
        "id,note\n1,Lives near 02139. Seen by Dr Smith. Later Zorblatt came by.\n",
        encoding="utf-8",
    )
    args = ("scan", csv, "--text", "note", "--sep", ",", "--json")
    every = json.loads(deid(*args).stdout)
    assert every["by_confidence"] == {"high": 1, "medium": 1}  # Dr Smith; a ZIP
    high = deid(*args, "--level", "high")
    assert high.returncode == 0, high.stderr
    assert json.loads(high.stdout)["by_confidence"] == {"high": 1}
    noisy = json.loads(deid(*args, "--high-recall", "--level", "all").stdout)
    assert noisy["by_confidence"] == {"high": 1, "medium": 1, "low": 1}  # Zorblatt
    assert "Zorblatt" not in json.dumps(noisy)
    assert deid(*args, "--level", "some").returncode == 2
