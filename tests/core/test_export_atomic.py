"""Atomic writes: a failure or a cancel at any point leaves nothing new behind."""

from __future__ import annotations

import datetime as dt
import errno
import os
from pathlib import Path

import pytest

from deid_desktop.core import atomic, transaction
from deid_desktop.core.atomic import (
    StagedDirectory,
    atomic_write_bytes,
    atomic_write_text,
    staged_directories,
)
from deid_desktop.core.errors import Cancelled, DeidError, UsageError
from deid_desktop.core.export import release as export_mod
from deid_desktop.core.progress import CancelToken
from tests.core import test_export_support as sup
from tests.core.test_export import run_export


def test_atomic_write_replaces_whole_file_and_leaves_no_temp(tmp_path: Path) -> None:
    p = tmp_path / "project.deid"
    atomic_write_text(p, "one\n")
    atomic_write_bytes(p, b"two\n")
    assert p.read_bytes() == b"two\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["project.deid"]


def test_atomic_write_failure_keeps_the_old_file(tmp_path: Path, monkeypatch) -> None:
    p = tmp_path / "project.deid"
    atomic_write_text(p, "old\n")

    def boom(*_a: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_text(p, "new\n")
    assert p.read_text() == "old\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["project.deid"]


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_atomic_write_keeps_permissions_or_uses_the_umask(tmp_path: Path) -> None:
    new = tmp_path / "new.txt"
    atomic_write_text(new, "x")
    umask = os.umask(0o022)
    os.umask(umask)
    assert new.stat().st_mode & 0o777 == 0o666 & ~umask
    kept = tmp_path / "kept.txt"
    kept.write_text("old")
    kept.chmod(0o640)
    atomic_write_text(kept, "new")
    assert kept.stat().st_mode & 0o777 == 0o640


def test_text_keeps_lf_line_endings(tmp_path: Path) -> None:
    atomic_write_text(tmp_path / "a.txt", "x\ny\n")
    assert (tmp_path / "a.txt").read_bytes() == b"x\ny\n"


def test_staged_directory_appears_only_on_success(tmp_path: Path) -> None:
    target = tmp_path / "new" / "deeper" / "out"
    with pytest.raises(RuntimeError), StagedDirectory(target) as st:
        st.write_text("a.txt", "a")
        assert not target.exists()
        raise RuntimeError("stop")
    assert sup.tree(tmp_path) == set()  # created parents removed again
    with StagedDirectory(target) as st:
        st.write_text("a.txt", "a")
        st.write_bytes("b.bin", b"b")
        assert st.path.name.startswith(".deid-staging-")
    assert sorted(p.name for p in target.iterdir()) == ["a.txt", "b.bin"]
    assert sorted(p.name for p in target.parent.iterdir()) == ["out"]


def test_staged_directory_rejects_paths_that_leave_the_folder(tmp_path: Path) -> None:
    with StagedDirectory(tmp_path / "out") as st:
        for bad in ("../x", "a/b", "", ".."):
            with pytest.raises(ValueError):
                st.file(bad)


def test_group_rolls_back_the_first_folder_when_the_second_fails(
    tmp_path: Path, monkeypatch
) -> None:
    real_swap = StagedDirectory.swap

    def swap(self: StagedDirectory) -> None:
        if self.target.name == "b":
            raise OSError("rename failed")
        real_swap(self)

    monkeypatch.setattr(StagedDirectory, "swap", swap)
    with (
        pytest.raises(OSError),
        staged_directories([tmp_path / "a", tmp_path / "b"]) as (a, b),
    ):
        a.write_text("x", "1")
        b.write_text("y", "2")
    assert sup.tree(tmp_path) == set()


def test_group_refuses_every_target_before_creating_any(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "keep").write_text("k")
    with pytest.raises(UsageError), staged_directories([tmp_path / "a", tmp_path / "b"]):
        pass
    assert sup.tree(tmp_path) == {"b", "b/keep"}


# -- export_release under failure and cancel ------------------------------------------


def test_failure_while_writing_a_table_leaves_nothing(tmp_path: Path, monkeypatch) -> None:
    calls = {"n": 0}
    real = export_mod.write_csv

    def failing(frame, path, reporter=None):
        calls["n"] += 1
        if calls["n"] == 2:
            path.write_bytes(b"half a table")
            raise OSError("disk full")
        return real(frame, path, reporter)

    monkeypatch.setattr(export_mod, "write_csv", failing)
    before = sup.tree(tmp_path)
    with pytest.raises(DeidError, match=r"could not be written to .*release \(disk full\)") as err:
        run_export(tmp_path)
    assert "Nothing was written" in str(err.value) and err.value.exit_code == 4
    assert sup.tree(tmp_path) == before


def test_failure_moving_the_crosswalk_into_place_undoes_the_release(
    tmp_path: Path, monkeypatch
) -> None:
    real_rename = os.rename

    def rename(src: object, dst: object) -> None:
        if Path(str(dst)).name == "crosswalk":
            raise OSError(errno.EIO, "rename failed", str(src))
        real_rename(src, dst)

    monkeypatch.setattr(transaction.os, "rename", rename)
    with pytest.raises(DeidError, match=r"could not be written to .*crosswalk") as err:
        run_export(tmp_path)
    assert err.value.exit_code == 4
    assert sup.tree(tmp_path) == set()


def test_register_failure_undoes_both_folders(tmp_path: Path, monkeypatch) -> None:
    def boom(*_a: object) -> None:
        raise PermissionError("register is read-only")

    monkeypatch.setattr(transaction, "append_line", boom)
    with pytest.raises(DeidError, match="register is read-only"):
        run_export(tmp_path)
    assert sup.tree(tmp_path) == set()


def test_failed_overwrite_keeps_the_earlier_release_intact(tmp_path: Path, monkeypatch) -> None:
    run_export(tmp_path)
    snapshot = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}

    def boom(*_a: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(transaction, "append_line", boom)
    with pytest.raises(DeidError):
        run_export(tmp_path, overwrite=True, now=dt.datetime(2027, 1, 1, tzinfo=dt.UTC))
    after = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == snapshot


def test_cancel_mid_export_leaves_nothing(tmp_path: Path) -> None:
    token = CancelToken()
    stages: list[str] = []

    def progress(fraction: float, stage: str) -> None:
        stages.append(stage)
        if "visits" in stage:
            token.cancel()

    before = sup.tree(tmp_path)
    with pytest.raises(Cancelled):
        run_export(tmp_path, progress=progress, cancel=token)
    assert any("demographics" in s for s in stages)  # it was well under way
    assert sup.tree(tmp_path) == before


def test_cancel_before_start_leaves_nothing(tmp_path: Path) -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        run_export(tmp_path, cancel=token)
    assert sup.tree(tmp_path) == set()


def test_progress_reaches_the_end(tmp_path: Path) -> None:
    seen: list[float] = []
    run_export(tmp_path, progress=lambda f, _s: seen.append(f))
    assert seen == sorted(seen) and seen[-1] == 1.0


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_crosswalk_folder_is_private_to_its_owner(tmp_path: Path) -> None:
    run_export(tmp_path)
    assert ((tmp_path / "crosswalk").stat().st_mode & 0o077) == 0
