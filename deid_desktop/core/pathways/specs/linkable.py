"""The spec of the linkable release (Expert Determination, 45 CFR 164.514(b)(1)): what
the GUI, the CLI, export and the salt store know of it. Light (no pandas); the builder,
in ``core.pathways.linkable``, is imported when a release is built.
"""

from __future__ import annotations

from deid_desktop.core.model import LinkableOptions, Pathway
from deid_desktop.core.pathways.registry import ZIP3_WORDING, PathwaySpec, ReleaseWording

SPEC = PathwaySpec(
    id=Pathway.LINKABLE,
    label="linkable release - requires Expert Determination (45 CFR 164.514(b)(1)); "
    "not Safe Harbor",
    title="Linkable release (Expert Determination)",
    help="Keyed pseudonyms (the salt stays in this computer's keyring) and per-person date "
    "shifts, so later extracts link and intervals are kept. Requires an Expert "
    "Determination; it is not Safe Harbor.",
    kind="linkable",
    cli_name="linkable",
    needs_salt=True,
    builder="deid_desktop.core.pathways.linkable:build_linkable",
    wording=ReleaseWording(
        dates="shifted by the person's own offset (intervals within a person kept)",
        identifier="link key: keyed hash of the person key; the key is held by the sender",
        zip=ZIP3_WORDING,
        age="ages over 89 shown as 90+",
    ),
    options_type=LinkableOptions,
    options_field="linkable",
)
