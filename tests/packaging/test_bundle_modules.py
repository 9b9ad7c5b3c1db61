"""The packaged app leaves modules out to stay small (build.spec's EXCLUDES, and the pyarrow
modules scripts/bundle_trim.py prunes). A module of the app that imports one of them works
from a checkout and fails only in the bundle, with ModuleNotFoundError - as a `deid run`
writing the held-back quasi-identifier file as Parquet once did. This test reads every
import in deid_desktop/ (at module level and inside functions) and holds it to the list."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: excluded by build.spec for reasons of its own, never imported by the app's code paths
#: that run in the bundle (tests import pytest; the GUI's CLI-free build drops these)
_NOT_APP = {"deid_desktop.gui", "PySide6", "shiboken6"}


def _bundle_trim():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "bundle_trim", ROOT / "scripts" / "bundle_trim.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spec_excludes() -> set[str]:
    """The module names in build.spec's ``EXCLUDES = [...] + [...]`` assignment."""
    tree = ast.parse((ROOT / "build.spec").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "EXCLUDES" for t in node.targets
        ):
            names = {
                c.value
                for c in ast.walk(node.value)
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and "{" not in c.value
            }
            qt = {f"PySide6.{m}" for m in _qt_excluded(tree)}
            return names | qt
    raise AssertionError("build.spec has no EXCLUDES list")


def _qt_excluded(tree: ast.Module) -> set[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "QT_EXCLUDED" for t in node.targets
        ):
            return {c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
    return set()


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _under(name: str, excluded: set[str]) -> str | None:
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        if ".".join(parts[:i]) in excluded:
            return ".".join(parts[:i])
    return None


def test_the_spec_excludes_what_it_says() -> None:
    excluded = _spec_excludes()
    assert {"pyarrow.feather", "sqlite3", "PySide6.QtNetwork"} <= excluded
    assert "pyarrow.parquet" in _bundle_trim().ARROW_UNUSED_MODULES


def test_no_module_of_the_app_imports_what_the_bundle_leaves_out() -> None:
    excluded = (_spec_excludes() | set(_bundle_trim().ARROW_UNUSED_MODULES)) - _NOT_APP
    offenders = []
    for path in sorted((ROOT / "deid_desktop").rglob("*.py")):
        for name in sorted(_imports(path)):
            hit = _under(name, excluded)
            if hit:
                offenders.append(f"{path.relative_to(ROOT)} imports {name} (left out: {hit})")
    assert not offenders, "\n".join(offenders)
