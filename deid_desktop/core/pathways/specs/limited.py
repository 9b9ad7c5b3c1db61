"""The spec of the limited data set (45 CFR 164.514(e)): what the GUI, the CLI, export and the
salt store know of it. Light (no pandas); the builder, in ``core.pathways.limited``, is
imported when a release is built.
"""

from __future__ import annotations

from deid_desktop.core.errors import Problem
from deid_desktop.core.model import Pathway, Project
from deid_desktop.core.pathways.registry import PathwaySpec, ReleaseWording


def dua_missing(project: Project) -> list[Problem]:
    """A limited data set is released only under a data use agreement (164.514(e)(4))."""
    if project.export.dua.strip():
        return []
    return [Problem("A limited data set needs the data use agreement reference.", severity="error")]


SPEC = PathwaySpec(
    id=Pathway.LIMITED_DATA_SET,
    label="limited data set - data use agreement required (45 CFR 164.514(e))",
    title="Limited data set",
    help="Keeps dates, town, state, 5-digit ZIP and ages; removes the other direct "
    "identifiers. Requires a data use agreement.",
    kind="limited",
    cli_name="limited-data-set",
    needs_salt=False,
    builder="deid_desktop.core.pathways.limited:build_limited",
    wording=ReleaseWording(
        dates="kept (limited data set)",
        identifier="random subject ID replacing the person key; the crosswalk is held back "
        "by the sender",
        zip="kept (limited data set)",
    ),
    preconditions=dua_missing,
)
