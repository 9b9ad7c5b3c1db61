"""The spec of Safe Harbor (45 CFR 164.514(b)(2)): what the GUI, the CLI, export and the
salt store know of it. Light (no pandas); the builder, in ``core.pathways.safe_harbor``, is
imported when a release is built.
"""

from __future__ import annotations

from deid_desktop.core.model import Pathway
from deid_desktop.core.pathways.registry import ZIP3_WORDING, PathwaySpec, ReleaseWording

SPEC = PathwaySpec(
    id=Pathway.SAFE_HARBOR,
    label="de-identified under HIPAA Safe Harbor (45 CFR 164.514(b)(2))",
    title="Safe Harbor",
    help="Removes the 18 identifiers of 45 CFR 164.514(b)(2): direct identifiers "
    "suppressed, the person key replaced by a random code, dates reduced to the year, ages "
    "over 89 pooled as 90+, ZIP codes cut to three digits (small areas become 000), free "
    "text suppressed.",
    cli_name="safe-harbor",
    needs_salt=False,
    builder="deid_desktop.core.pathways.safe_harbor:build_safe_harbor",
    wording=ReleaseWording(
        dates="reduced to the year",
        birth_date="reduced to the year; removed for persons aged 90 or over",
        identifier="random subject ID replacing the person key (not derived from any "
        "identifier); the crosswalk is held back by the sender",
        zip=ZIP3_WORDING,
        age="ages over 89 shown as 90+",
    ),
)
