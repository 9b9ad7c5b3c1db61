"""`deid run` killed (SIGKILL) at every step of the export, then recovered.

The export's test hook ``DEID_FAULT_POINT=N`` (``core/faults.py``) makes the process kill
itself at the N-th step - after each file written into staging, each fsync, the
journal's commit, each folder rename, the register append. After each kill the start-up
recovery runs (as the next `deid` or app start does) and must leave either the whole
release (release folder, crosswalk folder, register entry) or none of it, and no
staging folder; a second run then writes the same bytes as an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from deid_desktop.cli import main
from deid_desktop.core.demo import write_demo
from deid_desktop.core.register import read_register
from deid_desktop.core.transaction import recover_pending

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals"),
]

ROWS = 150
LEFTOVER = re.compile(r"^\.deid-(staging|replaced)-")
TIME = re.compile(rb'("time_utc": "|Time \(UTC\): *)[0-9T:Z-]+')


def _args(project: Path, case: Path) -> list[str]:
    return [
        "run",
        str(project),
        "--out",
        str(case / "out"),
        "--crosswalk-out",
        str(case / "xw"),
        "--xlsx",
    ]


def _env(case: Path) -> dict[str, str]:
    return {
        "DEID_REGISTER": str(case / "reg" / "register.jsonl"),
        "DEID_JOURNAL_DIR": str(case / "journal"),
    }


def _start(project: Path, case: Path, point: str) -> subprocess.Popen[bytes]:
    case.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "deid_desktop", *_args(project, case)],
        env={**os.environ, **_env(case), "DEID_FAULT_POINT": point},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _snapshot(case: Path) -> dict[str, bytes]:
    """Every output file's bytes; the case folder and the record time made neutral."""
    out: dict[str, bytes] = {}
    for folder in ("out", "xw"):
        for p in sorted((case / folder).rglob("*")):
            if p.is_file():
                data = p.read_bytes().replace(str(case).encode(), b"<CASE>")
                out[str(p.relative_to(case))] = TIME.sub(rb"\1<TIME>", data)
    return out


def _state(case: Path) -> tuple[bool, bool, int]:
    """(release folder there, crosswalk folder there, register entries naming it)."""
    entries = read_register(case / "reg" / "register.jsonl")
    assert entries.damaged == ()
    record = str(case / "out" / "export_record.json")
    named = sum(1 for e in entries if e.get("record_path") == record)
    return (case / "out").is_dir(), (case / "xw").is_dir(), named


def test_kill_at_every_step_then_recover_and_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_demo(tmp_path / "demo", rows=ROWS)
    base = tmp_path / "baseline"
    traced = _start(project, base, "trace")
    _, err = traced.communicate(timeout=300)
    assert traced.returncode == 0, err.decode(errors="replace")[-2000:]
    steps = re.findall(rb"^deid-fault-point (\d+) (.+)$", err, re.MULTILINE)
    n = len(steps)
    assert n >= 20, steps
    baseline = _snapshot(base)
    assert "xw/crosswalk-DO-NOT-DISCLOSE.csv" in baseline and "out/visits.xlsx" in baseline

    # every step, two processes at a time
    cases = {i: tmp_path / f"kill{i:02d}" for i in range(1, n + 1)}
    killed: dict[int, int] = {}
    pending = list(cases)
    running: list[tuple[int, subprocess.Popen[bytes]]] = []
    while pending or running:
        while pending and len(running) < 2:
            i = pending.pop(0)
            running.append((i, _start(project, cases[i], str(i))))
        i, proc = running.pop(0)
        proc.communicate(timeout=300)
        killed[i] = proc.returncode

    results: dict[int, str] = {}
    for i, case in cases.items():
        assert killed[i] == -signal.SIGKILL, (i, steps[i - 1])
        told: list[str] = []
        recover_pending(told.append, case / "journal")
        leftovers = [p for p in case.rglob("*") if LEFTOVER.match(p.name)]
        assert leftovers == [], (i, steps[i - 1], leftovers)
        assert list((case / "journal").glob("*.json")) == []
        out, xw, named = _state(case)
        # all or nothing: the release, its crosswalk and its register entry together
        assert (out, xw, named) in {(True, True, 1), (False, False, 0)}, (i, steps[i - 1])
        if out:
            assert _snapshot(case) == baseline, (i, steps[i - 1])
        results[i] = "kept" if out else "undone"
        assert len(told) == (0 if i == n else 1), (i, told)
        if told:
            assert told[0].startswith("An export interrupted at "), told
            assert ("was completed" in told[0]) == out

        # the second run (a new `deid run`, in this process) writes the same bytes
        for key, value in _env(case).items():
            monkeypatch.setenv(key, value)
        assert main([*_args(project, case), "--overwrite"]) == 0, capsys.readouterr().err
        capsys.readouterr()
        assert _snapshot(case) == baseline, (i, steps[i - 1])
        assert _state(case) == (True, True, 1 + named)
        assert not [p for p in case.rglob("*") if LEFTOVER.match(p.name)]

    assert set(results.values()) == {"kept", "undone"}  # both ways were exercised
    print(json.dumps({"steps": n, "kept": sum(v == "kept" for v in results.values())}))


def test_kill_while_overwriting_keeps_the_old_release_or_the_new_one_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_demo(tmp_path / "demo", rows=ROWS)
    new_args = ["--overwrite", "--purpose", "second study"]

    def first_release(case: Path) -> dict[str, bytes]:
        for key, value in _env(case).items():
            monkeypatch.setenv(key, value)
        assert main(_args(project, case)) == 0
        capsys.readouterr()
        return _snapshot(case)

    def start(case: Path, point: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "deid_desktop", *_args(project, case), *new_args],
            env={**os.environ, **_env(case), "DEID_FAULT_POINT": point},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    base = tmp_path / "baseline"
    old = first_release(base)
    traced = start(base, "trace")
    _, err = traced.communicate(timeout=300)
    assert traced.returncode == 0, err.decode(errors="replace")[-2000:]
    steps = re.findall(rb"^deid-fault-point (\d+) (.+)$", err, re.MULTILINE)
    labels = [s[1] for s in steps]
    assert labels.count(b"earlier folder moved aside") == 2, labels
    new = _snapshot(base)
    assert new != old
    # from the prepared register entry to the end: where the earlier release is moved aside
    points = range(labels.index(b"register entry prepared") + 1, len(steps) + 1)
    cases = {i: tmp_path / f"over{i:02d}" for i in points}
    for case in cases.values():
        assert first_release(case) == old
    killed: dict[int, int] = {}
    pending = list(cases)
    while pending:
        batch = [(i, start(cases[i], str(i))) for i in pending[:2]]
        del pending[:2]
        for i, proc in batch:
            proc.communicate(timeout=300)
            killed[i] = proc.returncode
    kept_old = 0
    for i, case in cases.items():
        assert killed[i] == -signal.SIGKILL, (i, labels[i - 1])
        told: list[str] = []
        recover_pending(told.append, case / "journal")
        assert not [p for p in case.rglob("*") if LEFTOVER.match(p.name)], (i, labels[i - 1])
        out, xw, named = _state(case)
        assert out and xw, (i, labels[i - 1])
        assert (named, _snapshot(case)) in [(1, old), (2, new)], (i, labels[i - 1])
        kept_old += named == 1
    assert kept_old == 1  # killed before the commit: the earlier release stays as it was
