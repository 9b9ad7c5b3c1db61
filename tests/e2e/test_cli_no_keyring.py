"""A release that needs no salt does not import the keyring code (cli.release_cmds)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_SALT = """
import sys
sys.path.insert(0, {root!r})
from deid_desktop.cli.release_cmds import _salt
from deid_desktop.core.model import Pathway, Project
salt = _salt(Project("0" * 32, "p", (), pathway=Pathway.{pathway}))
print(salt is None, "keyring" in sys.modules, "deid_desktop.secrets" in sys.modules)
"""


def _run(pathway: str) -> list[str]:
    code = _SALT.format(root=str(ROOT), pathway=pathway)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return out.stdout.split()


def test_safe_harbor_and_limited_runs_leave_the_keyring_alone() -> None:
    assert _run("SAFE_HARBOR") == ["True", "False", "False"]
    assert _run("LIMITED_DATA_SET") == ["True", "False", "False"]
