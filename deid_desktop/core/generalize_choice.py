"""The generalization the user chooses, as both front ends reach it through the engine
(``engine.unapplied_person``, ``engine.chosen_generalization``): the released person
table the search receives, and the choice as the project stores it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from deid_desktop.core.model import Extract, Generalization, GeneralizedColumn, Project
from deid_desktop.core.progress import CancelToken, ProgressFn
from deid_desktop.core.release_columns import quasi_identifiers_for

if TYPE_CHECKING:
    import pandas as pd


def unapplied_person(
    project: Project,
    extract: Extract,
    salt: bytes | None,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The released person table as the generalization search receives it (built in
    memory, before any chosen generalization and without "suppress below k") and the
    quasi-identifiers the review counts on it (``deid generalize PROJECT``, the GUI)."""
    from deid_desktop.core.pathways import build_release

    bare = replace(project, generalization=None, risk=replace(project.risk, suppress_below_k=False))
    release = build_release(extract, bare, salt=salt, progress=progress, cancel=cancel)
    return release.tables[project.person_table.name], quasi_identifiers_for(project, release)


def chosen_generalization(
    project_path: Path,
    levels: Mapping[str, int],
    sources: Mapping[str, tuple[str, str | Path]],
    *,
    k: int,
    max_suppression: float,
    metric: str,
) -> Generalization:
    """What ``deid generalize --apply`` (and the GUI's Apply) saves: per column its level
    and hierarchy, ``sources[column]`` = ("builtin", KIND) or (SEP, ARX CSV file path);
    a file is stored relative to the project with its SHA-256."""
    import hashlib

    from deid_desktop.core.project import store_path

    columns = []
    for col, level in levels.items():
        how, what = sources[col]
        if how == "builtin":
            columns.append(GeneralizedColumn(col, int(level), builtin=str(what)))
            continue
        path = Path(what)
        columns.append(
            GeneralizedColumn(
                col,
                int(level),
                path=store_path(path, project_path),
                sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
                sep=how,
            )
        )
    return Generalization(tuple(columns), k=k, max_suppression=max_suppression, metric=metric)
