"""The packaged app's read-ahead at start-up: which files, in which order, and when."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from deid_desktop.gui import prefetch


def make_bundle(root: Path) -> None:
    for rel in (
        "pyarrow/libarrow.so.2600",
        "PySide6/Qt/lib/libQt6Core.so.6",
        "libpython3.11.so.1.0",
        "base_library.zip",
        "resources/demo/notes.csv",
        "numpy.libs/libopenblas.so",
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"\0" * 64)


def test_libraries_are_listed_with_what_the_window_needs_first(tmp_path: Path) -> None:
    make_bundle(tmp_path)
    names = [str(p.relative_to(tmp_path)) for p in prefetch.bundle_files(tmp_path)]
    assert names == [
        "PySide6/Qt/lib/libQt6Core.so.6",
        "base_library.zip",
        "libpython3.11.so.1.0",
        "numpy.libs/libopenblas.so",
        "pyarrow/libarrow.so.2600",
    ]  # data files (resources) are not read ahead


def test_on_linux_a_frozen_app_advises_every_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_bundle(tmp_path)
    advised: list[list[Path]] = []
    real = prefetch.advise
    monkeypatch.setattr(prefetch, "advise", lambda files: advised.append(files) or real(files))
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    thread = prefetch.start()
    assert thread is not None
    thread.join(10)
    (files,) = advised
    assert files[0] == Path(sys.executable) and len(files) == 6
    assert real(files[1:]) == 5


def test_from_source_nothing_is_read_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(sys, "frozen", raising=False)
    assert prefetch.start() is None


def test_other_systems_are_left_to_their_own_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    for platform in ("win32", "darwin"):
        monkeypatch.setattr(sys, "platform", platform)
        assert prefetch.start() is None
