"""Synthea extracts (tests/data/synthea) loaded in memory, auto-tagged, for the gate's
value tests: the two public sets, any age-reference mode, any re-tagging."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

from deid_desktop.core.io import read_table
from deid_desktop.core.model import (
    ColumnTag,
    ExportMeta,
    Extract,
    LoadedTable,
    Pathway,
    Project,
    TableSpec,
    TransformOptions,
)
from deid_desktop.core.tagging import suggest_tags
from deid_desktop.core.tagging.retag import keyed_tags

DATA = Path(__file__).resolve().parents[1] / "data" / "synthea"
SETS: dict[str, tuple[tuple[str, str], ...]] = {
    "unmc_crane_2023": (
        ("patients", "Id"),
        ("encounters", "PATIENT"),
        ("conditions", "PATIENT"),
        ("medications", "PATIENT"),
    ),
    "ds4biomed_apr2020": (
        ("patients", "Id"),
        ("conditions", "PATIENT"),
        ("immunizations", "PATIENT"),
    ),
}
#: An event-table date column of each set that can serve as the index date.
INDEX_COLUMNS = {
    "unmc_crane_2023": ("encounters", "START"),
    "ds4biomed_apr2020": ("conditions", "START"),
}


@functools.cache
def _loaded(name: str) -> tuple[tuple[LoadedTable, TableSpec], ...]:
    out = []
    for table, key in SETS[name]:
        loaded = read_table(DATA / name / f"{table}.csv")
        person = table == "patients"
        tags = keyed_tags(suggest_tags(loaded.frame, table=table, is_person=person), key)
        spec = TableSpec(table, f"{table}.csv", loaded.sha256, key, person, tags)
        out.append((loaded, spec))
    return tuple(out)


def synthea(
    name: str,
    pathway: Pathway = Pathway.SAFE_HARBOR,
    *,
    reference: str = "2024-01-01",
    retag: dict[str, ColumnTag] | None = None,
) -> tuple[Extract, Project]:
    """Set ``name`` tagged as the tagger suggests, ``retag`` ("table.column" -> tag)
    applied. ``reference``: "index" makes ``INDEX_COLUMNS[name]`` the index date."""
    from deid_desktop.core.model import Role

    retag = dict(retag or {})
    if reference == "index":
        table, column = INDEX_COLUMNS[name]
        spec = next(s for _t, s in _loaded(name) if s.name == table)
        tag = spec.column(column)
        retag.setdefault(f"{table}.{column}", replace(tag, role=Role.INDEX_DATE))
    tables, specs = [], []
    for loaded, spec in _loaded(name):
        for where, tag in retag.items():
            t, c = where.split(".", 1)
            if t == spec.name:
                spec = spec.with_column(tag) if c in {x.name for x in spec.columns} else spec
        tables.append(loaded)
        specs.append(spec)
    project = Project(
        "0" * 32,
        name,
        tuple(specs),
        pathway=pathway,
        seed=20260423,
        transform=TransformOptions(age_reference=reference),
        export=ExportMeta(dua="DUA-TEST-1"),
    )
    return Extract(tables[0], tuple(tables[1:])), project
