"""Risk is measured on exactly what leaves: every released identifying column of the
person table counts by default (the birth year too), and a column the user leaves out is
named as "released, not counted" in `deid risk`, `deid check`, the README, the data
dictionary and the record."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.cli import main
from tests.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401

ROWS = 300


def deid(*args: str | Path) -> int:
    return main([str(a) for a in args])


@pytest.fixture
def demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert deid("demo", "--out", tmp_path / "demo", "--rows", ROWS) == 0
    capsys.readouterr()
    return tmp_path / "demo" / "demo.deid.json"


def _risk(demo: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert deid("risk", demo, "--json") == 0
    return json.loads(capsys.readouterr().out)


def test_the_released_birth_year_is_counted_and_raises_the_lone_count(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _risk(demo, capsys)
    assert out["counted_columns"] == ["dob_year", "age", "sex", "race", "ethnicity", "zip3"]
    assert out["released_not_counted"] == []
    assert deid("set", demo, "risk.quasi_identifiers=age,sex,race,ethnicity,zip3") == 0
    capsys.readouterr()
    without = _risk(demo, capsys)
    assert without["released_not_counted"] == ["dob_year"]
    assert out["lone"] >= without["lone"] and out["classes"] >= without["classes"]


def test_an_unticked_column_is_named_in_every_document(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert deid("set", demo, "risk.quasi_identifiers=age,sex") == 0
    capsys.readouterr()
    assert deid("check", demo, "--json") == 0
    report = json.loads(capsys.readouterr().out)
    not_counted = ["dob_year", "race", "ethnicity", "zip3"]
    assert report["risk"]["released_not_counted"] == not_counted
    assert report["verdict"]["headline"].endswith(
        "dob_year, race, ethnicity and zip3 are released but not counted in these figures."
    )
    out, cw = tmp_path / "release", tmp_path / "crosswalk"
    assert deid("run", demo, "--out", out, "--crosswalk-out", cw,
                "--register", tmp_path / "reg.jsonl") == 0  # fmt: skip
    capsys.readouterr()
    readme = (out / "README.txt").read_text(encoding="utf-8")
    assert "Measured on the person table, on the columns: age, sex." in readme
    assert f"Released but not counted (left out by the user): {', '.join(not_counted)}." in readme
    dictionary = pd.read_csv(out / "data_dictionary.csv", dtype=str)
    person = dictionary[dictionary["table"] == "demographics"].set_index("column")
    for column in not_counted:
        assert "released, not counted" in person.loc[column, "transformation"]
    for column in ("age", "sex"):
        assert person.loc[column, "transformation"].endswith("counted in the residual risk")
    record = json.loads((out / "export_record.json").read_text(encoding="utf-8"))
    assert json.dumps(record).count('"released_not_counted"') >= 1
    assert not_counted == _find(record, "released_not_counted")


def _find(obj: object, key: str) -> object:
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        for v in obj.values():
            found = _find(v, key)
            if found is not None:
                return found
    if isinstance(obj, list):
        for v in obj:
            found = _find(v, key)
            if found is not None:
                return found
    return None


def test_linkable_counts_the_shifted_birth_date(
    memory_keyring: MemoryKeyring,  # noqa: F811
    demo: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert deid("pathway", demo, "linkable") == 0
    assert deid("salt", "create", demo) == 0
    capsys.readouterr()
    out = _risk(demo, capsys)
    assert "dob" in out["counted_columns"]  # the shifted date, at the resolution released
    assert "dob_year" not in out["counted_columns"]
