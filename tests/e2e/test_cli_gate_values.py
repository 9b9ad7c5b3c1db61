"""The gate judges values, not tags, through `deid run` and `deid check` as a user runs
them on Synthea (tests/data/synthea, copied into tmp_path): places re-tagged clinical
or quasi are refused under Safe Harbor with exit 3 and nothing written, and kept under
the limited data set where the law allows."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e._cli import main_captured

DS4BIOMED = ("patients", "conditions", "immunizations")
deid = main_captured


@pytest.fixture
def project(
    public_data: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    folder = tmp_path / "ds4biomed"
    folder.mkdir()
    for name in DS4BIOMED:
        src = public_data / "synthea" / "ds4biomed_apr2020" / f"{name}.csv"
        shutil.copyfile(src, folder / f"{name}.csv")
    monkeypatch.chdir(folder)
    monkeypatch.setenv("DEID_REGISTER", str(tmp_path / "register.jsonl"))
    code, _, err = deid(capsys, "init", *(f"{n}.csv" for n in DS4BIOMED), "-o", "p.deid.json")
    assert code == 0, err
    return folder / "p.deid.json"


def _run(
    capsys: pytest.CaptureFixture[str], project: Path, out: Path, *extra: str
) -> tuple[int, str]:
    code, _, err = deid(
        capsys, "run", project, "--out", out / "rel", "--crosswalk-out", out / "xw", *extra
    )
    return code, err


@pytest.mark.parametrize(
    "change",
    ["patients.LAT=clinical", "patients.LON=quasi", "patients.CITY=clinical",
     "patients.COUNTY=quasi", "patients.ADDRESS=clinical"],
)  # fmt: skip
def test_places_retagged_are_refused_under_safe_harbor(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    assert deid(capsys, "pathway", project, "safe-harbor", "--age-reference", "2020-04-30")[0] == 0
    assert deid(capsys, "tag", project, change)[0] == 0
    code, out, _ = deid(capsys, "check", project, "--json")
    assert code == 3
    failed = {c["id"] for c in json.loads(out)["checks"] if not c["passed"]}
    assert "no_geography" in failed
    code, err = _run(capsys, project, tmp_path / "out")
    assert code == 3, err
    assert "No place smaller than a state" in err and "Nothing was written" in err
    column = change.split("=")[0]
    assert f"Column {column} holds 1,171 rows of" in err  # the column named, no value
    code, out, _ = deid(capsys, "check", project)
    assert code == 3 and f"Column {column} holds" in out
    assert not (tmp_path / "out").exists()


def test_town_city_and_county_are_kept_in_a_limited_data_set(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = deid(capsys, "pathway", project, "limited-data-set", "--dua", "DUA-1")
    assert code == 0, err
    code, _, err = deid(capsys, "tag", project, "patients.CITY=clinical", "patients.COUNTY=quasi")
    assert code == 0, err
    code, err = _run(capsys, project, tmp_path / "out", "--accept-risk", "places kept under a DUA")
    assert code == 0, err
    header = (tmp_path / "out" / "rel" / "patients.csv").read_text(encoding="utf-8").splitlines()[0]
    assert {"CITY", "COUNTY"} <= set(header.split(","))
