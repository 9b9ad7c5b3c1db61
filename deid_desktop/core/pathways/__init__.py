"""Pathways: functions from (extract, project) to a Release held in memory.

``build_release`` dispatches on ``project.pathway``. Each pathway lives in its own
module, imported only when used. The gate's checks are not declared here: each check in
``core.verify`` lists the pathways it applies to, and no pathway imports the gate.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import Extract, Pathway, Project, Release
from deid_desktop.core.progress import CancelToken, ProgressFn

#: Pathway -> (module under deid_desktop.core.pathways, builder function name).
PATHWAY_MODULES: dict[Pathway, tuple[str, str]] = {
    Pathway.SAFE_HARBOR: ("safe_harbor", "build_safe_harbor"),
    Pathway.LINKABLE: ("linkable", "build_linkable"),
    Pathway.LIMITED_DATA_SET: ("limited", "build_limited"),
}


def pathway_module(pathway: Pathway) -> ModuleType:
    """The module that implements ``pathway`` (imported lazily)."""
    try:
        module, _ = PATHWAY_MODULES[Pathway(pathway)]
    except (KeyError, ValueError) as exc:
        raise UsageError(
            "The project names a pathway this version does not know",
            hint="Choose Safe Harbor, linkable or limited data set.",
        ) from exc
    try:
        return importlib.import_module(f"{__name__}.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{module}":
            raise
        raise UsageError(
            f"The {Pathway(pathway).value} pathway is not available in this build",
            hint="Choose another pathway.",
        ) from exc


def build_release(
    extract: Extract,
    project: Project,
    *,
    salt: bytes | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> Release:
    """Build the release of ``project.pathway`` in memory. Nothing is written.

    ``salt`` is passed only to the linkable pathway (the keyed hash); Safe Harbor and
    the limited data set never see it.
    """
    builder = getattr(pathway_module(project.pathway), PATHWAY_MODULES[project.pathway][1])
    if project.pathway == Pathway.LINKABLE:
        return builder(extract, project, salt=salt, progress=progress, cancel=cancel)
    return builder(extract, project, progress=progress, cancel=cancel)
