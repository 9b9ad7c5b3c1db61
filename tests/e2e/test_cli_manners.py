"""CLI manners: "did you mean" on a mistyped column, errors naming the flag that fixes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from deid_desktop.cli import main
from deid_desktop.core.demo import write_demo


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return write_demo(tmp_path / "demo")


def test_tag_suggests_the_column_meant(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tag", str(demo), "demographics.phnoe=direct"]) == 2
    err = capsys.readouterr().err
    assert "Did you mean 'phone'?" in err
    assert main(["tag", str(demo), "frist_name=direct"]) == 2
    assert "Did you mean 'first_name'?" in capsys.readouterr().err


def test_risk_qi_suggests_the_column_meant(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv = demo.parent / "demographics.csv"
    assert main(["risk", str(csv), "--qi", "age,sexx"]) == 2
    assert "Did you mean 'sex'?" in capsys.readouterr().err


def test_a_folder_that_is_not_empty_names_overwrite(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "other.txt").write_text("x", encoding="utf-8")
    code = main(["run", str(demo), "--out", str(out), "--crosswalk-out", str(tmp_path / "cw"),
                 "--register", str(tmp_path / "reg.jsonl")])  # fmt: skip
    assert code == 2
    assert "--overwrite" in capsys.readouterr().err
