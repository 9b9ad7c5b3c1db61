"""House style is enforced, not hoped for: ruff lint and format are clean on the tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]])
def test_ruff_is_clean(args: list[str]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1000:]
