"""`deid run` hashes each input once, in the load; a changed input is still reported as
it was when the project was opened with every input hashed first."""

from __future__ import annotations

from pathlib import Path

import pytest

import deid_desktop.core.io as io
from deid_desktop.core.demo import write_demo
from tests.e2e._cli import main_captured


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return write_demo(tmp_path / "demo", rows=60)


def _run(capsys: pytest.CaptureFixture[str], demo: Path, tmp: Path) -> tuple[int, str, str]:
    return main_captured(
        capsys, "run", demo, "--out", tmp / "out", "--crosswalk-out", tmp / "xw",
        "--register", tmp / "reg.jsonl",
    )  # fmt: skip


def test_the_run_does_not_hash_the_inputs_before_loading_them(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = {p.resolve() for p in demo.parent.glob("*.csv")}
    hashed: list[Path] = []
    whole_file = io.sha256_file

    def counted(path: Path) -> str:
        hashed.append(Path(path).resolve())
        return whole_file(path)

    monkeypatch.setattr(io, "sha256_file", counted)
    code, _out, err = _run(capsys, demo, tmp_path)
    assert code == 0, err
    assert not [p for p in hashed if p in inputs]


def test_a_changed_input_is_reported_before_the_run_stops(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    visits = demo.parent / "visits.csv"
    visits.write_bytes(visits.read_bytes() + visits.read_bytes().splitlines(keepends=True)[-1])
    code, _out, err = _run(capsys, demo, tmp_path)
    assert code != 0
    assert "error: The input of table 'visits' changed since the project was saved" in err
    assert "has changed since the project was saved (SHA-256 differs)" in err
    assert not (tmp_path / "out").exists()
