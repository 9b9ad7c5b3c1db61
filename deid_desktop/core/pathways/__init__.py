"""Pathways: functions from (extract, project) to a Release held in memory.

Each pathway has a spec (a ``registry.PathwaySpec``: label, titles, CLI name, salt,
options, builder, export wording, preconditions) in ``core/pathways/specs/``; the registry
finds them. ``build_release`` dispatches on ``project.pathway`` through it, importing the
pathway's module only when used. The gate's checks are not declared here: each check in
``core.verify`` lists the pathways it applies to, and no pathway imports the gate.
"""

from __future__ import annotations

from types import ModuleType

from deid_desktop.core.model import Extract, Pathway, Project, Release
from deid_desktop.core.pathways.registry import pathway_spec
from deid_desktop.core.progress import CancelToken, ProgressFn


def pathway_module(pathway: Pathway) -> ModuleType:
    """The module that implements ``pathway`` (``UsageError`` if it is unknown)."""
    return pathway_spec(pathway).module


def build_release(
    extract: Extract,
    project: Project,
    *,
    salt: bytes | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> Release:
    """Build the release of ``project.pathway`` in memory. Nothing is written.

    ``salt`` reaches only a pathway whose spec ``needs_salt`` (the linkable release's
    keyed hash); Safe Harbor and the limited data set never see it.
    """
    spec = pathway_spec(project.pathway)
    if spec.needs_salt:
        return spec.builder_function(extract, project, salt=salt, progress=progress, cancel=cancel)
    return spec.builder_function(extract, project, progress=progress, cancel=cancel)
