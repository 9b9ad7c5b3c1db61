"""Version and provenance: `deid --version`, the build stamp, and git in a checkout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deid_desktop import __version__, buildinfo
from tests.e2e._cli import main_captured, run_deid

ROOT = Path(__file__).resolve().parents[2]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def fresh_commit() -> None:
    buildinfo.commit.cache_clear()
    yield
    buildinfo.commit.cache_clear()


def git_head() -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_a_baked_stamp_is_read_and_a_malformed_one_ignored(tmp_path: Path) -> None:
    (tmp_path / buildinfo.STAMP_FILE).write_text(COMMIT + "\n")
    assert buildinfo.read_stamp(tmp_path) == COMMIT
    (tmp_path / buildinfo.STAMP_FILE).write_text(COMMIT + "+dirty\n")
    assert buildinfo.read_stamp(tmp_path) == COMMIT + "+dirty"
    (tmp_path / buildinfo.STAMP_FILE).write_text("rm -rf /; not a commit\n")
    assert buildinfo.read_stamp(tmp_path) is None
    assert buildinfo.read_stamp(tmp_path / "absent") is None


def test_in_a_checkout_the_commit_is_git_head() -> None:
    assert buildinfo.commit().removesuffix("+dirty") == git_head()


def test_outside_a_checkout_there_is_no_commit(tmp_path: Path) -> None:
    assert buildinfo.git_commit(tmp_path) is None


def test_a_frozen_build_without_its_stamp_says_unknown_and_never_runs_git(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_subprocess(*_a: object, **_k: object) -> None:
        raise AssertionError("the frozen app must not run a subprocess")

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(subprocess, "run", no_subprocess)
    assert buildinfo.commit() == buildinfo.UNKNOWN


def test_the_stamp_wins_over_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(buildinfo, "read_stamp", lambda _folder: COMMIT)
    assert buildinfo.commit() == COMMIT


def test_deid_version_names_the_version_and_the_commit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = main_captured(capsys, "--version")
    assert code == 0
    assert out.strip() == f"deid {__version__} (commit {buildinfo.commit()})"
    assert git_head() in out


def test_deid_version_in_a_fresh_process() -> None:
    done = run_deid("--version")
    assert done.returncode == 0
    assert done.stdout.startswith(f"deid {__version__} (commit {git_head()}")


def test_deid_desktop_version_names_the_commit(capsys: pytest.CaptureFixture[str]) -> None:
    from deid_desktop.gui.app import parse_args

    with pytest.raises(SystemExit) as exc:
        parse_args(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"deid-desktop {__version__} (commit {git_head()}" + (
        "+dirty)" if buildinfo.commit().endswith("+dirty") else ")"
    )
