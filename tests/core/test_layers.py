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


def test_the_run_loads_no_http_or_ssl_module_at_start() -> None:
    """xml.sax.saxutils imported urllib.request, http.client, ssl and email: tens of
    milliseconds of CPU at every start of a run, for one escape function."""
    code = (
        "import sys, deid_desktop.cli, deid_desktop.core.engine, deid_desktop.core.export\n"
        "heavy = ('ssl', 'http.client', 'urllib.request', 'email', 'xml.sax')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- import contracts

ROOT = PACKAGE.parent
#: Layers inside core, lowest first: a module may import its own layer and those below,
#: never one above. Every top-level name under core/ must be listed (a new module
#: is placed on purpose).
CORE_LAYERS: tuple[frozenset[str], ...] = (
    frozenset(
        {
            "__init__",
            "model",
            "errors",
            "progress",
            "constants",
            "resources",
            "gc_pause",
            "heap",
            "atomic",
            "steps",
            "faults",
            "shred",
        }
    ),
    frozenset(
        {
            "io",
            "scan",
            "risk",
            "tagging",
            "zip3",
            "facts",
            "linkage",
            "event_keys",
            "register",
            "transaction",
            "cross_release",
        }
    ),
    frozenset({"pathways", "project", "held_back"}),
    frozenset({"verify"}),
    frozenset({"export"}),
    frozenset(
        {
            "engine",
            "demo",
            "demo_tags",
            "attack",
            "release_columns",
            "review_verdict",
            "generalize_choice",
        }
    ),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module: str, known: dict[str, Path]) -> str | None:
    """The deepest known module ``module`` names (``a.b.c`` -> ``a.b`` if c is a name)."""
    while module and module not in known:
        module = module.rpartition(".")[0]
    return module or None


def import_graph(known: dict[str, Path] | None = None) -> dict[str, set[str]]:
    """Module -> the deid_desktop modules it imports anywhere in its source (top level,
    inside functions, under TYPE_CHECKING); ``from pkg import sub`` counts as ``pkg.sub``
    when ``sub`` is a module."""
    known = _modules() if known is None else known
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                wanted = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                # a name that is a submodule is an edge to it; any other name, to ``base``
                wanted = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
                ]
            else:
                continue
            for w in wanted:
                if w.split(".")[0] == "deid_desktop":
                    found = _resolve(w, known)
                    if found is not None and found != name:
                        targets.add(found)
        graph[name] = targets
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def _core_part(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["deid_desktop", "core"]:
        return None
    return parts[2] if len(parts) > 2 else "__init__"


def _layer(part: str) -> int:
    return next(i for i, names in enumerate(CORE_LAYERS) if part in names)


def test_no_import_cycle_anywhere_in_the_package() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle_and_names_it() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_function_level_and_relative_imports_are_edges(tmp_path: Path) -> None:
    pkg = tmp_path / "deid_desktop"
    (pkg / "core").mkdir(parents=True)
    for f in ("__init__.py", "core/__init__.py"):
        (pkg / f).write_text("")
    (pkg / "core" / "a.py").write_text("def f():\n    from deid_desktop.core import b\n")
    (pkg / "core" / "b.py").write_text("from . import a\n")
    known = {_module_name_in(p, tmp_path): p for p in sorted(pkg.rglob("*.py"))}
    graph = import_graph(known)
    assert graph["deid_desktop.core.a"] == {"deid_desktop.core.b"}
    assert "deid_desktop.core.a" in graph["deid_desktop.core.b"]
    assert find_cycle(graph) is not None


def _module_name_in(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_every_core_module_has_a_layer() -> None:
    listed = set().union(*CORE_LAYERS)
    parts = {_core_part(m) for m in _modules()} - {None}
    assert parts <= listed, f"place these in CORE_LAYERS: {sorted(parts - listed)}"


def test_core_imports_only_its_own_layer_and_those_below() -> None:
    offenders = []
    for module, targets in import_graph().items():
        part = _core_part(module)
        if part is None:
            continue
        for target in targets:
            other = _core_part(target)
            if other is not None and _layer(other) > _layer(part):
                offenders.append(f"{module} -> {target}")
    assert offenders == []


def test_pathways_never_import_the_gate() -> None:
    offenders = [
        f"{m} -> {t}"
        for m, targets in import_graph().items()
        if _core_part(m) in {"pathways", "facts"}
        for t in targets
        if _core_part(t) == "verify"
    ]
    assert offenders == []


def test_gui_and_cli_never_import_each_other_and_core_imports_neither() -> None:
    def top(module: str) -> str:
        return module.split(".")[1] if "." in module else module

    forbidden = {"gui": {"cli"}, "cli": {"gui"}, "core": {"gui", "cli", "secrets"}}
    offenders = [
        f"{m} -> {t}"
        for m, targets in import_graph().items()
        for t in targets
        if top(t) in forbidden.get(top(m), set())
    ]
    assert offenders == []
