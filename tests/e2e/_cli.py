"""Ways to run `deid` from the end-to-end tests: a fresh process, or the entry point in
this process (so an in-memory keyring or a monkeypatched environment applies)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from deid_desktop.cli import main


def run_deid(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m deid_desktop ARGS` in a fresh process; `env` is added to this one's."""
    return subprocess.run(
        [sys.executable, "-m", "deid_desktop", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, **env} if env is not None else None,
        timeout=300,
        check=False,
    )


def main_captured(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """The `deid` entry point in this process: exit code, stdout, stderr."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err
