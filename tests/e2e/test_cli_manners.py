"""CLI manners: "did you mean" on a mistyped column, errors naming the flag that fixes them."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from deid_desktop.cli import main
from deid_desktop.cli.progress_bar import ProgressBar, progress_bar
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


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_shows_percent_and_eta_on_a_terminal_only() -> None:
    assert progress_bar(stream=io.StringIO()) is None  # piped: quiet
    assert progress_bar(stream=_Terminal(), quiet=True) is None  # --json: quiet
    now = [0.0]
    screen = _Terminal()
    bar = ProgressBar(screen, clock=lambda: now[0])
    load, export = bar.span(0.0, 0.5), bar.span(0.5, 1.0)
    now[0] = 10.0
    load(0.5, "Reading demographics.csv")
    assert "25%" in screen.getvalue() and "ETA 0:30" in screen.getvalue()
    now[0] = 20.0
    export(0.0, "Writing")
    assert screen.getvalue().rstrip().endswith("Writing") and " 50%" in screen.getvalue()
    load(0.1, "late")  # never goes back
    assert " 5%" not in screen.getvalue().rsplit("\r", 1)[-1]
    bar.finish()
    assert screen.getvalue().endswith("\n")


def test_check_json_prints_no_progress(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(demo), "--json"]) == 0
    assert "ETA" not in capsys.readouterr().err
