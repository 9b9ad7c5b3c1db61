"""What the pages import on first use is imported in the first job, off the UI thread:
every core module (and pandas) a GUI function imports is in ``FIRST_USE_MODULES``."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import deid_desktop.gui
from deid_desktop.gui.backend import FIRST_USE_MODULES, warm_imports


def imports_inside_functions() -> set[str]:
    found: set[str] = set()
    for path in Path(deid_desktop.gui.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    base = node.module
                    for alias in node.names:  # ``from pkg import module`` imports a module
                        sub = f"{base}.{alias.name}"
                        try:
                            importlib.import_module(sub)
                        except ImportError:
                            continue
                        base_is_pkg = hasattr(importlib.import_module(base), "__path__")
                        if base_is_pkg and sub.startswith("deid_desktop.core"):
                            found.add(sub)
                    found.add(base)
                elif isinstance(node, ast.Import):
                    found.update(alias.name for alias in node.names)
    return {m for m in found if m.startswith("deid_desktop.core") or m == "pandas"}


def test_every_core_module_a_page_imports_on_first_use_is_warmed() -> None:
    lazy = imports_inside_functions()
    assert "deid_desktop.core.scan.notes" in lazy  # the walk finds them
    assert lazy <= set(FIRST_USE_MODULES), sorted(lazy - set(FIRST_USE_MODULES))
    warm_imports()  # every name is a module that imports


def test_the_warm_up_does_not_read_the_sources_of_what_it_imports() -> None:
    """PySide's import hook reads the source of every module imported after it (for its
    ``__feature__`` switches, unused here): not for pandas and core in the warm-up."""
    import subprocess
    import sys

    code = (
        "import linecache\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication(['x'])\n"
        "from deid_desktop.gui import backend\n"
        "backend.warm_imports()\n"
        "import pandas\n"
        "print(sum('pandas' in name for name in linecache.cache))\n"
    )
    env_code = "import os; os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n" + code
    out = subprocess.run(
        [sys.executable, "-c", env_code], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.split()[-1] == "0"


def test_the_warm_up_ends_without_a_collection_of_what_it_made(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """What the warm-up imports is frozen before the collector runs again: no collection
    walks it as the warm-up ends (one walked every object the imports made, 130 ms with
    Python's lock held, the window frozen)."""
    import gc
    import sys

    (tmp_path / "warm_many_objects.py").write_text(
        "KEPT = [{'n': i} for i in range(50_000)]\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("deid_desktop.gui.backend.FIRST_USE_MODULES", ("warm_many_objects",))
    walked: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":  # the young objects this collection walks
            walked.append(gc.get_count()[0])

    gc.collect()
    gc.callbacks.append(seen)
    try:
        warm_imports()
        kept = sys.modules["warm_many_objects"].KEPT  # allocations after the warm-up
        extra = [[i] for i in range(1000)]
    finally:
        gc.callbacks.remove(seen)
        sys.modules.pop("warm_many_objects", None)
        gc.unfreeze()
    assert len(kept) == 50_000 and len(extra) == 1000
    assert all(young < 10_000 for young in walked), walked  # never the imports' 50,000


def test_warm_ups_run_one_at_a_time(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Two jobs warming up at once (the load's and the Pathway step's ZIP3 job at project
    open): the second waits for the first. Side by side, the second kept PySide's source
    reader switched off for good (it put back what it found: the first's stand-in)."""
    import sys
    import threading

    from PySide6.QtWidgets import QApplication  # noqa: F401 - PySide's import hook

    feature = sys.modules.get("PySide6.support.feature")
    if feature is None or not hasattr(feature, "_mod_uses_pyside"):
        pytest.skip("another PySide: nothing is switched off")
    reader = feature._mod_uses_pyside
    (tmp_path / "warm_slowly.py").write_text("import time\ntime.sleep(0.3)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("deid_desktop.gui.backend.FIRST_USE_MODULES", ("warm_slowly",))
    first = threading.Thread(target=warm_imports)
    first.start()
    import time

    time.sleep(0.1)  # the first is importing
    second = threading.Thread(target=warm_imports)
    second.start()
    first.join(5)
    second.join(5)
    sys.modules.pop("warm_slowly", None)
    assert feature._mod_uses_pyside is reader


def test_the_zip3_vintage_is_read_after_the_warm_up(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from deid_desktop.gui import backend

    calls: list[str] = []
    monkeypatch.setattr(backend, "warm_imports", lambda: calls.append("warm"))
    project = type("P", (), {"transform": type("T", (), {"zip3_table": None})()})()
    assert backend.zip3_vintage(project)  # type: ignore[arg-type]
    assert calls == ["warm"]
