"""The app's start finishes or undoes an export a crash interrupted, and says so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from deid_desktop.core.transaction import ReleaseTransaction
from deid_desktop.gui import app as app_mod


def _crashed_export(tmp_path: Path) -> ReleaseTransaction:
    txn = ReleaseTransaction(
        [tmp_path / "rel", tmp_path / "xw"],
        private=[False, True],
        journal_folder=tmp_path / "journal",
    ).begin()
    txn.folders[1].write_text("crosswalk-DO-NOT-DISCLOSE.csv", "id,key\n")
    txn._release_lock()  # killed: nothing tidied
    return txn


def test_app_start_undoes_a_crashed_export(tmp_path: Path) -> None:
    _crashed_export(tmp_path)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".deid-staging-")]
    out = subprocess.run(
        [sys.executable, "-m", "deid_desktop.gui.app", "--selftest"],
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **os.environ,
            "QT_QPA_PLATFORM": "offscreen",
            "DEID_JOURNAL_DIR": str(tmp_path / "journal"),
        },
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "An export interrupted at " in out.stderr and "was undone" in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal"]
    assert list((tmp_path / "journal").iterdir()) == []


def test_the_app_tells_in_a_message_box(monkeypatch: pytest.MonkeyPatch, qapp) -> None:  # type: ignore[no-untyped-def]
    shown: list[str] = []
    monkeypatch.setattr(
        app_mod.QMessageBox, "information", lambda _parent, _title, text: shown.append(text)
    )
    app_mod._tell("An export interrupted at 2026-01-01 00:00:00 UTC was undone.")
    assert shown == ["An export interrupted at 2026-01-01 00:00:00 UTC was undone."]
