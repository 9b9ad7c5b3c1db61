"""The plain verdict on a reviewed release, and when its residual risk must be accepted
with a reason before it is written (``engine.review`` and ``engine.export`` read both)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from deid_desktop.core.model import Project

if TYPE_CHECKING:
    from deid_desktop.core.cross_release import CrossReleaseReport
    from deid_desktop.core.risk import RiskReport
    from deid_desktop.core.risk.intruder import IntruderReport
    from deid_desktop.core.risk.verdict import Verdict
    from deid_desktop.core.verify import Verification


#: Pathway kinds (``PathwaySpec.kind``) whose release below the k target needs an
#: explicit acceptance of the residual risk, with a reason, before it is written.
ACCEPTANCE_KINDS = ("linkable", "limited")
KIND_WORDS = {"linkable": "linkable release", "limited": "limited data set"}


def risk_acceptance_needed(project: Project, risk: RiskReport | None) -> str | None:
    """The sentence that says why the residual risk must be accepted (None: no need)."""
    from deid_desktop.core.pathways.registry import pathway_spec

    spec = pathway_spec(project.pathway)
    if spec.kind not in ACCEPTANCE_KINDS or risk is None or risk.k is None:
        return None
    if risk.k >= risk.k_target:
        return None
    return (
        f"k is {risk.k}, below the target of {risk.k_target}: {risk.lone:,} of "
        f"{risk.rows:,} persons are unique on {', '.join(risk.quasi_identifiers)}. "
        f"A {KIND_WORDS.get(spec.kind, 'release')} below its k target is written only when "
        "you accept the "
        "residual risk and give a reason; the export record keeps it."
    )


def verdict_for(
    project: Project,
    verification: Verification,
    risk: RiskReport | None,
    *,
    persons: int,
    free_text_released: int,
    not_counted: Sequence[str] = (),
    cross_release: CrossReleaseReport | None = None,
    intruder: IntruderReport | None = None,
) -> Verdict:
    """The plain verdict on a reviewed release (``core.risk.verdict``), from its counts."""
    from deid_desktop.core.pathways.registry import pathway_spec
    from deid_desktop.core.risk.verdict import RiskFacts, risk_verdict

    spec = pathway_spec(project.pathway)
    facts = RiskFacts(
        pathway_kind=spec.kind,
        pathway_label=spec.title,
        checks_failed=len(list(verification.blocking_failures)),
        persons=risk.rows if risk is not None else persons,
        k=risk.k if risk is not None else None,
        k_target=risk.k_target if risk is not None else project.risk.k_target,
        lone=risk.lone if risk is not None else 0,
        below_k=risk.below_k if risk is not None else 0,
        counted_columns=risk.quasi_identifiers if risk is not None else (),
        free_text_released=free_text_released,
        not_counted=tuple(not_counted),
        intruder_certain=None if intruder is None else intruder.certain,
        earlier_releases=0 if cross_release is None else cross_release.checked,
        cross_release_lone=0 if cross_release is None else cross_release.lone,
        cross_release_below_k=0 if cross_release is None else cross_release.below_k,
    )
    return risk_verdict(facts)
