"""A full disk at any write: `deid run` exits 4 with a plain message naming the folder,
and nothing is committed (no release, no crosswalk, no register entry, no leftovers).

Where the machine allows it (root, `unshare`), the outputs go to a real tiny tmpfs in a
private mount namespace, at several sizes so the disk fills at different writes; the
in-process tests (always run) make the register's own write fail with ENOSPC.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deid_desktop.cli import main
from deid_desktop.core import register as register_mod
from deid_desktop.core.demo import write_demo
from deid_desktop.core.register import read_register

ROWS = 150
PAGE = 4096


def _can_mount_tmpfs() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=8k none /mnt"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


SCRIPT = r"""
set -u
mount -t tmpfs -o size="$SIZE" none "$DISK" || exit 99
if [ -n "${PREFILL:-}" ]; then cp -a "$PREFILL"/. "$DISK"/; fi
if [ -n "${FILL:-}" ]; then dd if=/dev/zero of="$DISK/filler" bs=4k 2>/dev/null; fi
"$PY" -m deid_desktop run "$PROJECT" --out "$DISK/out" --crosswalk-out "$DISK/xw" --xlsx \
    >/dev/null 2>"$KEEP/stderr"
echo $? >"$KEEP/rc"
df -B1 --output=used "$DISK" | tail -1 >"$KEEP/used"
rm -f "$DISK/filler"
cp -a "$DISK"/. "$KEEP/disk"/
"""


def _run_on_tmpfs(project: Path, keep: Path, size: int, **extra: str) -> tuple[int, str, Path]:
    """`deid run` with release, crosswalk, register and journal on a tmpfs of ``size``
    bytes; returns exit code, stderr, and a copy of what the disk held afterwards."""
    disk = keep.parent / f"{keep.name}-mnt"
    disk.mkdir(parents=True)
    (keep / "disk").mkdir(parents=True)
    env = {
        **os.environ,
        "SIZE": str(size),
        "DISK": str(disk),
        "KEEP": str(keep),
        "PY": sys.executable,
        "PROJECT": str(project),
        "DEID_REGISTER": str(disk / "reg" / "register.jsonl"),
        "DEID_JOURNAL_DIR": str(disk / "journal"),
        **extra,
    }
    done = subprocess.run(["unshare", "-m", "sh", "-c", SCRIPT], env=env, timeout=300, check=False)
    assert done.returncode == 0
    return (
        int((keep / "rc").read_text()),
        (keep / "stderr").read_text(encoding="utf-8"),
        keep / "disk",
    )


def _nothing_committed(disk: Path, register_before: bytes = b"") -> None:
    names = sorted(str(p.relative_to(disk)) for p in disk.rglob("*"))
    assert not (disk / "out").exists() and not (disk / "xw").exists(), names
    assert not [n for n in names if ".deid-" in n or n.endswith(".json")], names
    reg = disk / "reg" / "register.jsonl"
    assert (reg.read_bytes() if reg.exists() else b"") == register_before


@pytest.mark.slow
@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs root and unshare for a tmpfs")
def test_tiny_tmpfs_at_many_sizes_exits_4_and_commits_nothing(tmp_path: Path) -> None:
    project = write_demo(tmp_path / "demo", rows=ROWS)
    rc, err, _ = _run_on_tmpfs(project, tmp_path / "roomy", 64 << 20)
    assert rc == 0, err
    used = int((tmp_path / "roomy" / "used").read_text())
    pages = used // PAGE
    assert pages > 20
    sizes = sorted({max(1, pages * k // 8) * PAGE for k in (1, 3, 5, 7)} | {used - PAGE})
    folders = set()
    for size in sizes:
        keep = tmp_path / f"s{size}"
        rc, err, disk = _run_on_tmpfs(project, keep, size)
        assert rc == 4, (size, err)
        assert err.startswith("deid: There is no space left on the disk of "), err
        assert "Nothing was written." in err and "Traceback" not in err
        folders.add(err.split("disk of ", 1)[1].split(",", 1)[0].rsplit("/", 1)[-1])
        _nothing_committed(disk)
    assert len(folders) >= 2, folders  # the disk filled at different writes


@pytest.mark.slow
@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs root and unshare for a tmpfs")
def test_full_register_disk_exits_4_and_keeps_the_register(tmp_path: Path) -> None:
    project = write_demo(tmp_path / "demo", rows=ROWS)
    rc, err, first = _run_on_tmpfs(project, tmp_path / "first", 64 << 20)
    assert rc == 0, err
    # the earlier release and its register entry stay; the disk is then filled up
    shutil.rmtree(first / "out")
    shutil.rmtree(first / "xw")
    before = (first / "reg" / "register.jsonl").read_bytes()
    rc, err, disk = _run_on_tmpfs(project, tmp_path / "full", 8 << 20, PREFILL=str(first), FILL="1")
    assert rc == 4, err
    assert "no space left on the disk of" in err and "Nothing was written." in err
    _nothing_committed(disk, before)
    assert len(read_register(disk / "reg" / "register.jsonl")) == 1


# -- in process: the register's write fails with ENOSPC ----------------------------------


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return write_demo(tmp_path / "demo", rows=ROWS)


def _no_space(*_a: object) -> int:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_register_append_without_space_commits_nothing(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    reg = tmp_path / "reg" / "register.jsonl"
    monkeypatch.setenv("DEID_REGISTER", str(reg))
    monkeypatch.setenv("DEID_JOURNAL_DIR", str(tmp_path / "journal"))
    args = ["run", str(demo), "--out", str(tmp_path / "out"), "--crosswalk-out"]
    assert main([*args, str(tmp_path / "xw0")]) == 0
    before = reg.read_bytes()
    capsys.readouterr()
    monkeypatch.setattr(register_mod.os, "write", _no_space)
    assert main([*args, str(tmp_path / "xw1"), "--overwrite"]) == 4
    err = capsys.readouterr().err
    assert f"no space left on the disk of {reg.parent}" in err
    assert "Nothing was written." in err
    assert reg.read_bytes() == before  # no partial line, no new entry
    assert not (tmp_path / "xw1").exists()
    assert len(read_register(reg)) == 1
    leftovers = [p for p in tmp_path.rglob("*") if p.name.startswith(".")]
    assert leftovers == [] and list((tmp_path / "journal").iterdir()) == []


def test_a_partial_register_write_is_cut_back(tmp_path: Path, monkeypatch) -> None:
    reg = tmp_path / "register.jsonl"
    register_mod.append_register(reg, {"n": 1})
    before = reg.read_bytes()
    real = os.write

    def half_then_full(fd: int, data: bytes) -> int:
        if len(data) > 4:
            return real(fd, bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(register_mod.os, "write", half_then_full)
    with pytest.raises(OSError):
        register_mod.append_register(reg, {"n": 2, "pad": "x" * 20})
    assert reg.read_bytes() == before
