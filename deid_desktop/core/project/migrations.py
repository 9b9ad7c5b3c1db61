"""Older project files, brought up to the current layout in memory, one version at a time.

``MIGRATIONS[v]`` turns a version-``v`` project body into version ``v + 1``. Each step
is frozen in time: it writes the layout of its target version with that version's
defaults spelled out, never the current code's, so an old file keeps opening after the
schema moves on. The result is still validated in full by the schema.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from deid_desktop.core.model import SCHEMA_VERSION

#: Marks a JSON file as a deid-desktop project.
FORMAT = "deid-desktop project"

#: Version 1's option blocks as a version-0 file got them (the defaults of that time).
_V1_DEFAULTS: dict[str, dict[str, Any]] = {
    "safe_harbor": {"age_reference": "index", "zip3_table": None, "free_text": {}},
    "linkable": {"offset_days": 180, "offset_mode": "keyed", "key_length": 16, "zip_rule": "zip3"},
    "export": {"purpose": "", "recipient": "", "retention": "", "dua": "", "formats": ["csv"]},
    "risk": {
        "quasi_identifiers": [],
        "k_target": 5,
        "sensitive": [],
        "age_bands": [],
        "drop_zip3": False,
        "suppress_below_k": False,
    },
}


def _migrate_0_to_1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0, the pre-release draft layout, to version 1.

    Version 0 had no ``format`` marker and no integrity field, named a column's class
    ``tag``, kept ``quasi_identifiers`` and ``k_target`` at the top level, and had no
    pathway option blocks (their defaults apply).
    """
    out = {k: v for k, v in data.items() if k not in ("quasi_identifiers", "k_target")}
    out["format"] = FORMAT
    out["schema_version"] = 1
    tables = data.get("tables")
    if isinstance(tables, list):
        new_tables = []
        for t in tables:
            if isinstance(t, dict):
                t = dict(t)
                t.setdefault("sheet", None)
                t.setdefault("rows", None)
                cols = t.get("columns")
                if isinstance(cols, list):
                    t["columns"] = [_migrate_column_0(c) for c in cols]
            new_tables.append(t)
        out["tables"] = new_tables
    for block in ("safe_harbor", "linkable", "export"):
        out.setdefault(block, copy.deepcopy(_V1_DEFAULTS[block]))
    risk = copy.deepcopy(_V1_DEFAULTS["risk"])
    if "quasi_identifiers" in data:
        risk["quasi_identifiers"] = data["quasi_identifiers"]
    if "k_target" in data:
        risk["k_target"] = data["k_target"]
    out.setdefault("risk", risk)
    return out


def _migrate_column_0(col: Any) -> Any:
    if not isinstance(col, dict):
        return col
    c = dict(col)
    if "tag" in c and "class" not in c:
        c["class"] = c.pop("tag")
    c.setdefault("role", None)
    c.setdefault("category", None)
    c.setdefault("unsure", False)
    c.setdefault("evidence", [])
    c.setdefault("date_format", None)
    return c


def _migrate_1_to_2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 to 2: the options every pathway uses (age reference, ZIP3 table,
    free-text actions) were filed under ``safe_harbor``; they are ``transform`` now."""
    if "transform" in data:  # not a version-1 field: leave both for the schema to refuse
        return {**data, "schema_version": 2}
    out = {("transform" if k == "safe_harbor" else k): v for k, v in data.items()}
    out["schema_version"] = 2
    return out


Migration = Callable[[dict[str, Any]], dict[str, Any]]

#: ``MIGRATIONS[v]`` turns a version-``v`` project body into version ``v + 1``.
#: Applied in order from the file's version up to ``SCHEMA_VERSION``.
MIGRATIONS: dict[int, Migration] = {0: _migrate_0_to_1, 1: _migrate_1_to_2}


def migrate(data: dict[str, Any], version: int) -> dict[str, Any]:
    """``data`` (a version-``version`` body) in the current layout. ``KeyError(version)``
    when no step leads on from a version."""
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise KeyError(version)
        data = step(data)
        version = data["schema_version"]
    return data
