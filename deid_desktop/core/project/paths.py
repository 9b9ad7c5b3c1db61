"""Where a project's inputs are: how an input path is stored in the project file and
found again.

Relative to the project file's folder (POSIX separators) when the input is in that
folder or below it, so the folder can be moved or copied whole; absolute otherwise, so
the project file can be moved on its own.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path, PurePosixPath, PureWindowsPath

from deid_desktop.core.model import Project

#: The suffix the app offers for project files, e.g. ``trial.deid.json``.


def store_path(input_path: Path, project_path: Path) -> str:
    """How an input path is written into the project file.

    Relative to the project file's folder (POSIX separators) when the input is in that
    folder or below it, so the folder can be moved or copied whole; absolute otherwise,
    so the project file can be moved on its own.
    """
    target = Path(os.path.abspath(input_path))
    base = Path(os.path.abspath(project_path)).parent
    try:
        rel = target.relative_to(base)
    except ValueError:
        return target.as_posix()
    return PurePosixPath(*rel.parts).as_posix()


def _is_absolute(stored: str) -> bool:
    return PurePosixPath(stored).is_absolute() or PureWindowsPath(stored).is_absolute()


def resolve_path(project_path: Path, stored: str) -> Path:
    """The real location of an input stored in the project at ``project_path``."""
    if _is_absolute(stored):
        return Path(stored)
    return Path(os.path.abspath(project_path)).parent.joinpath(*PurePosixPath(stored).parts)


def rebase_paths(project: Project, old_project_path: Path, new_project_path: Path) -> Project:
    """The project with its input paths re-stored for a new project file location
    ("Save As"): each input, and each hierarchy file of the chosen generalization, still
    points at the same file."""
    tables = tuple(
        replace(t, path=store_path(resolve_path(old_project_path, t.path), new_project_path))
        for t in project.tables
    )
    chosen = project.generalization
    if chosen is not None:  # the chosen generalization's hierarchy files, likewise
        chosen = replace(
            chosen,
            columns=tuple(
                c
                if c.path is None
                else replace(
                    c, path=store_path(resolve_path(old_project_path, c.path), new_project_path)
                )
                for c in chosen.columns
            ),
        )
    return replace(project, tables=tables, generalization=chosen)
