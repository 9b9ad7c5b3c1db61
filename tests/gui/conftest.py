"""GUI test set-up: a fresh settings file and demo folder per test, and no real dialogs.

Every QMessageBox/QFileDialog entry point is replaced by a fake that records the call
and fails the test unless the test planned an answer (``dialogs.answer(...)``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

import deid_desktop.gui.main_window as mw
from deid_desktop.gui.main_window import MainWindow


class Dialogs:
    """Planned answers for dialogs, keyed by the static function's name."""

    def __init__(self) -> None:
        self.answers: dict[str, list[Any]] = {}
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def answer(self, name: str, *values: Any) -> None:
        self.answers.setdefault(name, []).extend(values)

    def _fake(self, name: str):  # type: ignore[no-untyped-def]
        def fake(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args))
            queue = self.answers.get(name)
            if not queue:
                raise AssertionError(f"unexpected dialog {name}: {args[1:3]}")
            return queue.pop(0)

        return staticmethod(fake)

    def texts(self, name: str) -> list[str]:
        return [" ".join(str(a) for a in args[1:]) for n, args in self.calls if n == name]


@pytest.fixture(autouse=True)
def dialogs(monkeypatch: pytest.MonkeyPatch) -> Dialogs:
    d = Dialogs()
    for name in ("question", "warning", "critical", "information", "about"):
        monkeypatch.setattr(QMessageBox, name, d._fake(name))
    for name in (
        "getOpenFileName",
        "getOpenFileNames",
        "getSaveFileName",
        "getExistingDirectory",
    ):
        monkeypatch.setattr(QFileDialog, name, d._fake(name))
    return d


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo copy and the export register live in this test's tmp folder."""
    monkeypatch.setattr(mw, "demo_folder", lambda: tmp_path / "user-demo")
    monkeypatch.setenv("DEID_REGISTER", str(tmp_path / "register" / "register.jsonl"))
    return tmp_path


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot, settings: QSettings) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    w = MainWindow(settings)
    w.show()
    yield w
    w.runner.cancel_all()
    w.runner.wait(10_000)
    w.session.close()  # no unsaved-changes prompt on teardown
    w.close()
    w.deleteLater()
