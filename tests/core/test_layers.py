"""The layer rule: the engine imports no Qt, and the product imports no network module."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "deid_desktop"
FORBIDDEN_IN_CORE = ("PySide6", "PyQt5", "PyQt6", "shiboken6")
NETWORK = ("socket", "requests", "urllib3", "httpx", "aiohttp", "http.client", "urllib.request")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_core_source_never_imports_qt() -> None:
    offenders = [
        str(p.relative_to(PACKAGE))
        for p in (PACKAGE / "core").rglob("*.py")
        if any(n.split(".")[0] in FORBIDDEN_IN_CORE for n in _imports(p))
    ]
    assert offenders == []


def test_importing_core_and_cli_loads_no_qt() -> None:
    code = (
        "import sys, pkgutil, importlib, deid_desktop.core as c, deid_desktop.cli\n"
        "for m in pkgutil.walk_packages(c.__path__, 'deid_desktop.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "deid_desktop.cli.build_parser()\n"
        "print(sorted(k for k in sys.modules if k.startswith(('PySide6', 'shiboken6'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_product_imports_no_network_module() -> None:
    offenders = [
        f"{p.relative_to(PACKAGE)}: {n}"
        for p in PACKAGE.rglob("*.py")
        for n in _imports(p)
        if n in NETWORK or n.split(".")[0] in {"requests", "httpx", "aiohttp", "urllib3"}
    ]
    assert offenders == []
