"""A linkable release starts no process: no ldconfig, gcc or ld while finding the keyring,
nothing else either. Every way to start one (subprocess, posix_spawn, exec*, fork,
system) and ``ctypes.util.find_library`` (which spawns ldconfig, gcc and ld on Linux)
is replaced by a recorder that refuses; the release must succeed with none called."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from deid_desktop.cli import main
from tests.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401

ROWS = 120
SPAWNERS = [
    *("posix_spawn", "posix_spawnp", "fork", "forkpty", "system", "popen"),
    *("execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp", "execlpe"),
    *("spawnv", "spawnve", "spawnvp", "spawnvpe"),
]

#: Run in a fresh interpreter (so nothing is imported yet): refuse and record every
#: spawn, then run the `deid` commands given as JSON in argv[1].
CHILD = textwrap.dedent(
    """
    import ctypes.util, json, os, subprocess, sys
    calls = []
    def refuse(name):
        def call(*args, **kwargs):
            calls.append(name)
            raise RuntimeError(name + " at run time")
        return call
    subprocess.Popen = refuse("subprocess.Popen")
    for name in SPAWNERS:
        if hasattr(os, name):
            setattr(os, name, refuse("os." + name))
    ctypes.util.find_library = refuse("ctypes.util.find_library")
    from deid_desktop.cli import main
    codes = [main(argv) for argv in json.loads(sys.argv[1])]
    print("RESULT " + json.dumps({"codes": codes, "calls": calls}))
    """
)


def _child(commands: list[list[str]], env: dict[str, str]) -> dict[str, list]:
    done = subprocess.run(
        [sys.executable, "-c", f"SPAWNERS = {SPAWNERS!r}\n{CHILD}", json.dumps(commands)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, done.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT ") :])


@pytest.fixture
def linkable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    demo = tmp_path / "demo"
    assert main(["demo", "--out", str(demo), "--rows", str(ROWS)]) == 0
    project = demo / "demo.deid.json"
    assert main(["pathway", str(project), "linkable"]) == 0
    capsys.readouterr()
    return project


def _run_args(project: Path, tmp_path: Path) -> list[str]:
    return ["run", str(project), "--out", str(tmp_path / "rel"), "--crosswalk-out",
            str(tmp_path / "cw"), "--register", str(tmp_path / "reg.jsonl"),
            "--accept-risk", "test: the residual risk is not under test"]  # fmt: skip


def test_finding_no_keyring_spawns_nothing(linkable: Path, tmp_path: Path) -> None:
    """No D-Bus session at all: the keyring is looked for by name, found missing, and
    the run stops (exit 4) - without ldconfig, gcc or ld (keyring's discovery ran them)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBUS_", "PYTHON_KEYRING"))}
    env["DEID_JOURNAL_DIR"] = str(tmp_path / "journal")
    got = _child([_run_args(linkable, tmp_path)], env)
    assert got == {"codes": [4], "calls": []}
    assert not (tmp_path / "rel").exists()


@pytest.mark.keyring
@pytest.mark.skipif(
    os.environ.get("DEID_REAL_KEYRING") != "1",
    reason="needs a real Secret Service: run via scripts/test (private D-Bus session)",
)
def test_linkable_release_with_the_real_secret_service_spawns_nothing(
    linkable: Path, tmp_path: Path
) -> None:
    import keyring

    env = {**os.environ, "DEID_JOURNAL_DIR": str(tmp_path / "journal")}
    env.pop("PYTHON_KEYRING_BACKEND", None)
    try:
        got = _child([["salt", "create", str(linkable)], _run_args(linkable, tmp_path)], env)
    finally:
        from deid_desktop import secrets as salts
        from deid_desktop.core.project import load_project

        project_id = load_project(linkable).project_id
        with contextlib.suppress(keyring.errors.PasswordDeleteError):
            keyring.delete_password(salts.SERVICE, project_id)
    assert got == {"codes": [0, 0], "calls": []}
    assert (tmp_path / "rel" / "export_record.json").is_file()
    assert (tmp_path / "cw" / "crosswalk-DO-NOT-DISCLOSE.csv").is_file()


@pytest.fixture
def no_spawning(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    calls: list[str] = []

    def refuse(name: str):  # type: ignore[no-untyped-def]
        def call(*_a: object, **_k: object) -> None:
            calls.append(name)
            raise RuntimeError(f"{name} at run time")

        return call

    import ctypes.util

    monkeypatch.setattr(subprocess, "Popen", refuse("subprocess.Popen"))
    monkeypatch.setattr(ctypes.util, "find_library", refuse("find_library"))
    for name in SPAWNERS:
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse(f"os.{name}"))
    yield calls


def test_linkable_release_in_process_spawns_nothing(
    memory_keyring: MemoryKeyring,  # noqa: F811
    linkable: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    no_spawning: list[str],
) -> None:
    """The in-memory test keyring: nothing else in a linkable run starts a process."""
    monkeypatch.setenv("DEID_JOURNAL_DIR", str(tmp_path / "journal"))
    assert main(["salt", "create", str(linkable)]) == 0
    assert main(_run_args(linkable, tmp_path)) == 0, capsys.readouterr().err
    assert no_spawning == []
    assert (tmp_path / "cw" / "crosswalk-DO-NOT-DISCLOSE.csv").is_file()
