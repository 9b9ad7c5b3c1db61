"""Attack the release with the sender's own data, before it leaves.

``motivated_intruder(project, extract, review)`` plays an intruder who holds the source
extract's own demographics (the strongest list a real intruder could hope for: every
person, with exact values) generalized exactly as the release generalized them, and
links it to the release on the quasi-identifiers counted for risk (or the ones given).

The identified list is the release built once more with the user's suppression turned
off: every person of the source, each with the released form of their values. Both
builds carry their held-back crosswalk, so the true identity of each target is known on
the sender's machine; only counts leave this module (``IntruderReport``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import Extract, Project
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.core.risk.intruder import IntruderReport, simulate_intruder

if TYPE_CHECKING:
    from deid_desktop.core.engine import ReviewResult


def motivated_intruder(
    project: Project,
    extract: Extract,
    review: ReviewResult,
    *,
    on: Sequence[str] = (),
    salt: bytes | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> IntruderReport:
    """Link the reviewed release back to the source's own demographics (counts only)."""
    from deid_desktop.core.pathways import build_release
    from deid_desktop.core.pathways.common import prescanned

    rep = Reporter(progress, cancel)
    release = review.release
    person = project.person_table.name
    columns = tuple(on) or tuple(review.quasi_identifiers)
    if not columns:
        raise UsageError(
            "No quasi-identifier is released, so there is nothing to link on.",
            hint="Tag the demographic columns as quasi-identifiers, or name them with --on.",
        )
    everyone = dataclasses.replace(
        project, risk=dataclasses.replace(project.risk, suppress_below_k=False)
    )
    rep.step(0.0, "Building the intruder's list")
    if everyone == project and review.project == project:
        full = release  # nobody suppressed: the review built this very release (same salt)
    else:
        with prescanned(review.scan):
            full = build_release(
                extract,
                everyone,
                salt=salt,
                progress=lambda f, stage: rep.step(0.8 * f, stage),
                cancel=cancel,
            )
    rep.step(0.8, "Linking the release to the list")
    released, listed = release.tables[person], full.tables[person]
    if release.crosswalk is None or full.crosswalk is None:
        raise UsageError("This release keeps no crosswalk, so true identities are unknown.")
    keys = _identities(released, release.crosswalk, release.id_column)
    list_keys = _identities(listed, full.crosswalk, full.id_column)
    report = simulate_intruder(
        released, listed, columns, release_keys=keys, identified_keys=list_keys
    )
    rep.step(1.0, "Intruder test done")
    return report


def with_intruder(review: ReviewResult, report: IntruderReport) -> ReviewResult:
    """The review with the intruder test's figures: kept for the export record (counts
    only) and read by the verdict's paragraph (persons re-identified with certainty)."""
    from deid_desktop.core.review_verdict import verdict_for

    verdict = review.verdict
    if verdict is not None:
        person = review.release.tables.get(review.project.person_table.name)
        verdict = verdict_for(
            review.project,
            review.verification,
            review.risk,
            persons=0 if person is None else len(person),
            free_text_released=review.free_text_released,
            cross_release=review.cross_release,
            intruder=report,
        )
    return dataclasses.replace(review, intruder=report, verdict=verdict)


def _identities(frame: pd.DataFrame, crosswalk: pd.DataFrame, id_column: str) -> pd.Series:
    """The person key behind each released row, through the held-back crosswalk."""
    key_column = next(c for c in crosswalk.columns if c != id_column)
    lookup = crosswalk.set_index(id_column)[key_column]
    return frame[id_column].map(lookup)


__all__ = ["motivated_intruder", "with_intruder"]
