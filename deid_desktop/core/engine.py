"""The one entry point both front ends call: open, load, review, export.

The GUI and the ``deid`` command line call only these functions, so a saved project
gives the same release whichever runs it:

- ``open_project(project_path)`` -> (Project, problems with its inputs)
- ``load(project, project_path)`` -> Extract (hash-checked, relations checked)
- ``review(project, extract, salt=..., scan=None)`` -> ReviewResult: the release built
  in memory, the residual risk on the released person table (measured first, so the
  gate's checks can read it), its verification (every check) and the free-text scan
  of the extract. Nothing is written. ``scan``: None scans
  only the free-text columns set to "redact hits" (all suppressed: no scan at all, the
  record says so), True scans every free-text column (the review screen, `deid check`),
  False never scans (a column set to redact is then scanned by the pathway itself).
- ``export(project, project_path, review, out_dir=..., crosswalk_dir=...)`` -> ExportRecord:
  refuses when a blocking check failed, else writes release, crosswalk, record and
  register entry atomically.
- ``run(project_path, ...)``: all of the above in one call.

The linkable pathway's salt is a parameter (``salt``): the front ends fetch it from the
OS keyring (``deid_desktop.secrets``); the engine never stores or logs it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid_desktop import __version__
from deid_desktop.core.errors import CheckFailed, Problem, UsageError
from deid_desktop.core.export import (
    ExportRecord,
    export_release,
    scan_skipped_summary,
    scan_summary,
)
from deid_desktop.core.generalize_choice import chosen_generalization, unapplied_person
from deid_desktop.core.model import (
    ExportMeta,
    Extract,
    Project,
    Release,
)
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.core.release_columns import (
    quasi_identifiers_for,
    redact_columns_for,
    released_not_counted_for,
    sensitive_columns_for,
    text_columns_for,
)
from deid_desktop.core.review_verdict import (
    risk_acceptance_needed,
    verdict_for,
)

if TYPE_CHECKING:
    from deid_desktop.core.cross_release import CrossReleaseReport
    from deid_desktop.core.risk import RiskReport
    from deid_desktop.core.risk.cells import SmallCells
    from deid_desktop.core.risk.intruder import IntruderReport
    from deid_desktop.core.risk.verdict import Verdict
    from deid_desktop.core.scan import ScanDictionary, ScanReport, WordList
    from deid_desktop.core.scan.direct_values import DirectValues
    from deid_desktop.core.verify import Verification


@dataclass(frozen=True, eq=False)
class ReviewResult:
    """A release built in memory with everything the user reviews before export."""

    project: Project
    release: Release
    verification: Verification
    risk: RiskReport | None
    scan: ScanReport | None
    quasi_identifiers: tuple[str, ...] = ()
    inputs: dict[str, tuple[Path, str]] = field(default_factory=dict)  # table -> (path, sha)
    input_rows: dict[str, int] = field(default_factory=dict)
    #: free-text columns ("table.column") left unscanned: all suppressed, scan not asked
    not_scanned: tuple[str, ...] = ()
    #: every free-text column ("table.column") and those the release keeps redacted: the
    #: record's scan entry speaks of these alone, whether or not the review scanned more
    text_columns: tuple[str, ...] = ()
    released_text: tuple[str, ...] = ()
    #: the plain verdict (level, headline, access model, next steps); None only when a
    #: caller built the result by hand
    verdict: Verdict | None = None
    #: the values of the direct columns the release does not keep and the word list's
    #: terms, looked for again when the written files are read back before the export
    #: commits (``readback_gate``)
    dictionary: DirectValues | ScanDictionary | None = field(
        default=None, compare=False, repr=False
    )
    #: the combination with earlier releases of the same source in the register (None:
    #: nothing of the same source went out before, or the register could not be read)
    cross_release: CrossReleaseReport | None = None
    #: small cells of the released event tables (``core.risk.cells``), values for screen
    small_cells: tuple[SmallCells, ...] = ()
    #: the motivated-intruder test, once run (``attack.with_intruder``); counts only
    intruder: IntruderReport | None = None
    #: the project word list's counts (``WordList.summary_dict``), never a term; None:
    #: no word list was given
    word_list: dict[str, Any] | None = None

    @property
    def free_text_released(self) -> int:
        """How many free-text columns the release keeps, redacted (the verdict reads it)."""
        return len(self.released_text)

    @property
    def passed(self) -> bool:
        """True when no blocking check failed (the release may be exported)."""
        return not list(self.verification.blocking_failures)

    @property
    def text_hits(self) -> ScanReport | None:
        """What the gate's scan found in released text of columns not tagged free text
        (rows are positions in ``release.tables``): for the Review page to list, and for
        the user to fix the tag or accept the column (``accept_text_column``)."""
        return self.verification.text_scan

    @property
    def risk_acceptance_needed(self) -> str | None:
        """Why exporting asks for an explicit acceptance with a reason (None: it does not).

        A linkable release or a limited data set whose k is below the k target goes out
        only when the sender accepts the residual risk in words; the record keeps them.
        """
        return risk_acceptance_needed(self.project, self.risk)


def _slice(rep: Reporter, start: float, end: float) -> ProgressFn:
    """A progress callback covering [start, end] of ``rep`` (for functions taking one)."""
    part = rep.sub(start, end)

    def progress(fraction: float, stage: str) -> None:
        f = min(max(fraction, 0.0), 1.0)
        part.progress(part.start + (part.end - part.start) * f, stage)

    return progress


class RiskNotAccepted(CheckFailed):
    """A release below its k target needs the sender's accepted reason (exit 3)."""


# -- open and load ----------------------------------------------------------------------


def open_project(project_path: Path, *, hashes: bool = True) -> tuple[Project, list[Problem]]:
    """Read a project file and say what changed about its inputs (hash, moved, columns).
    ``hashes=False``: the inputs with a recorded SHA-256 are left for the load to hash
    (``project.check_inputs``); for a caller that loads them next."""
    from deid_desktop.core.project import check_inputs, load_project

    project = load_project(Path(project_path))
    return project, list(check_inputs(project, Path(project_path), hashes=hashes))


def input_problems(project: Project, project_path: Path) -> list[Problem]:
    """``open_project``'s problems with every input hashed (after a load that failed)."""
    from deid_desktop.core.project import check_inputs

    return list(check_inputs(project, Path(project_path)))


def load(
    project: Project,
    project_path: Path,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> Extract:
    """Read every input table of ``project`` (paths relative to the project file)."""
    from deid_desktop.core.io import load_extract

    base = Path(project_path).absolute().parent
    extract = load_extract(project, base, progress=progress, cancel=cancel)
    if project.generalization is None:
        return extract
    from deid_desktop.core.project import resolve_path
    from deid_desktop.core.risk.applied import read_hierarchy_files

    files = read_hierarchy_files(project, lambda stored: resolve_path(Path(project_path), stored))
    return replace(extract, hierarchies=files)


# -- review -----------------------------------------------------------------------------


def scan_extract(
    project: Project,
    extract: Extract,
    *,
    columns: dict[str, list[str]] | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
    sites: Sequence[str] = (),
    words: WordList | None = None,
) -> ScanReport | None:
    """Scan the extract's free-text columns, or only ``columns`` (None when there are none).

    The dictionary lives only inside this call, so its memory is gone before the
    release is built; it holds only the direct values that may be found in the scanned
    notes (``scan.notes_dictionary``), which finds the same hits as all of them. Each
    table's person key makes the scan person-aware; ``sites``: the user's site list
    (``scan.load_site_list``); ``words``: the project word list (``scan.load_word_list``),
    its terms found in every note.
    """
    from deid_desktop.core.scan import scan_frames
    from deid_desktop.core.scan.dictionary import dictionary_source
    from deid_desktop.core.scan.notes_dictionary import NotesValues, note_owners

    text_columns = text_columns_for(project, extract) if columns is None else columns
    if not text_columns:
        return None
    values = NotesValues(
        dictionary_source(
            extract, project, sites, None if words is None else words.by_dictionary_kind()
        ),
        *note_owners(extract, project, text_columns),
    )
    report = scan_frames(
        {name: extract.table(name).frame for name in text_columns},
        text_columns,
        values.dictionary_for,  # only the values the notes may hold
        progress=progress,
        cancel=cancel,
        person_keys={t.name: t.key for t in project.tables},
    )
    # the record counts the entries of the whole dictionary, as when it was all made
    return replace(report, dictionary_entries=values.entry_count())


def review(
    project: Project,
    extract: Extract,
    *,
    salt: bytes | None = None,
    scan: bool | None = None,
    register_path: Path | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
    words: WordList | None = None,
    readback: bool = True,
) -> ReviewResult:
    """Scan the free text, build the release in memory, measure its risk, verify it.

    ``readback``: False leaves out the export's read-back dictionary (every direct value
    of the extract; ``dictionary`` is None): an app that holds the review while the user
    looks at it builds it when it exports (``gui.backend.with_readback``), not per review.

    ``words``: the project word list (``scan.load_word_list`` of the held-back folder):
    its terms join the scan's dictionary, so the scan and redaction find them in every
    note; the result counts them (``word_list``), never holds them.

    Also: the small cells of the event tables, and the combination with the earlier
    releases of the same source in the register (``register_path``, else the default
    one); the verdict reads both.

    ``scan``: None (default) scans only the free-text columns set to "redact hits" - when
    every one is suppressed the scan would only inform the review screen, so it is
    skipped and ``not_scanned`` lists them; True scans every free-text column (the GUI
    review, `deid check`); False never scans here. The pathway redacts from this same
    scan, so each column is scanned once.

    The scan runs first, while only the extract is in memory: at a million persons that
    keeps the peak of the whole run lower than scanning beside the built release.
    """
    from deid_desktop.core.pathways import build_release
    from deid_desktop.core.pathways.common import prescanned
    from deid_desktop.core.risk import risk_report
    from deid_desktop.core.verify import verify_release

    rep = Reporter(progress, cancel)
    all_text = text_columns_for(project, extract)
    wanted = (
        all_text if scan is True else redact_columns_for(project, extract) if scan is None else {}
    )
    report = None
    if wanted:
        rep.step(0.0, "Scanning the free text")
        report = scan_extract(
            project,
            extract,
            columns=wanted,
            progress=_slice(rep, 0.0, 0.3),
            cancel=cancel,
            words=words,
        )
    redacted = redact_columns_for(project, extract) if scan is False else wanted
    not_scanned = tuple(  # suppressed columns nobody scanned in this review
        f"{t}.{c}"
        for t, cols in all_text.items()
        for c in cols
        if c not in wanted.get(t, ()) and c not in redacted.get(t, ())
    )

    with prescanned(report):
        release = build_release(
            extract, project, salt=salt, progress=_slice(rep, 0.3, 0.6), cancel=cancel
        )
    from deid_desktop.core.export.readback import readback_dictionary

    readback = (
        readback_dictionary(
            extract, project, release, None if words is None else words.by_dictionary_kind()
        )
        if readback
        else None
    )
    # The risk is measured before the gate, so that a check may read it (a k target).
    rep.step(0.6, "Measuring the residual risk")
    qis = quasi_identifiers_for(project, release)
    risk = None
    if qis:
        risk = risk_report(
            release.tables[project.person_table.name],
            qis,
            k_target=project.risk.k_target,
            sensitive=sensitive_columns_for(project, release),
            progress=_slice(rep, 0.6, 0.7),
            cancel=cancel,
        )
        risk = replace(risk, released_not_counted=released_not_counted_for(project, release))
    rep.step(0.7, "Checking the release")
    verification = verify_release(
        extract, release, project, risk=risk, progress=_slice(rep, 0.7, 0.96), cancel=cancel
    )
    inputs = {t.name: (Path(t.path), t.sha256) for t in extract.tables}
    rep.step(0.96, "Combining with earlier releases")
    cross = cross_release_for(project, release, qis, inputs, register_path=register_path)
    from deid_desktop.core.risk.cells import event_small_cells

    cells = event_small_cells(project, release, k=project.risk.k_target)
    rep.step(1.0, "Review ready")
    person = release.tables.get(project.person_table.name)
    released_text = tuple(
        f"{t}.{c}" for t, cols in redact_columns_for(project, extract).items() for c in cols
    )
    free_text_released = len(released_text)
    verdict = verdict_for(
        project,
        verification,
        risk,
        persons=0 if person is None else len(person),
        free_text_released=free_text_released,
        not_counted=released_not_counted_for(project, release),
        cross_release=cross,
    )
    return ReviewResult(
        project=project,
        release=release,
        verification=verification,
        risk=risk,
        scan=report,
        quasi_identifiers=qis,
        inputs=inputs,
        input_rows={t.name: len(t.frame) for t in extract.tables},
        not_scanned=not_scanned,
        text_columns=tuple(f"{t}.{c}" for t, cols in all_text.items() for c in cols),
        released_text=released_text,
        verdict=verdict,
        dictionary=readback,
        cross_release=cross,
        small_cells=cells,
        word_list=None if words is None else words.summary_dict(),
    )


def cross_release_for(
    project: Project,
    release: Release,
    qis: Sequence[str],
    inputs: Mapping[str, tuple[Path, str]],
    *,
    register_path: Path | None = None,
) -> CrossReleaseReport | None:
    """The combination with earlier releases (``core.cross_release.check_review``); None
    when nothing of the same source went out or the register cannot be read (``deid
    check`` warns about the register itself)."""
    from deid_desktop.core.cross_release import check_review
    from deid_desktop.core.errors import DeidError

    try:
        return check_review(project, release, qis, inputs, register_path=register_path)
    except (DeidError, OSError):
        return None


# -- export -----------------------------------------------------------------------------


def export(
    project: Project,
    project_path: Path | None,
    review_result: ReviewResult,
    *,
    out_dir: Path,
    crosswalk_dir: Path | None,
    meta: ExportMeta | None = None,
    register_path: Path | None = None,
    overwrite: bool = False,
    accept_risk: str | None = None,
    now: dt.datetime | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
    sample_review: Mapping[str, Any] | None = None,
) -> ExportRecord:
    """Write the reviewed release. Refuses when the project changed since the review, and
    when the residual risk needs an acceptance (``risk_acceptance_needed``) and
    ``accept_risk`` gives no reason.
    ``sample_review``: the counts of a reviewer's sample of notes, for the record."""
    if review_result.project != project:
        raise UsageError(
            "The project changed after the review; nothing was written.",
            hint="Review the release again, then export.",
        )
    why = review_result.risk_acceptance_needed if review_result.passed else None
    reason = (accept_risk or "").strip()
    if why and not reason:
        raise RiskNotAccepted(
            f"{why} Nothing was written.",
            hint="Accept the residual risk with a reason, or raise k (generalize, suppress).",
        )
    verdict = review_result.verdict
    verdict_record: dict[str, object] | None = None
    if verdict is not None:
        verdict_record = verdict.to_dict()
        if why:
            verdict_record["risk_accepted"] = {"reason": reason, "because": why}
    return export_release(
        review_result.release,
        review_result.verification,
        project=project,
        extract_inputs=review_result.inputs,
        risk=review_result.risk,
        scan=released_scan_summary(review_result),
        dictionary=review_result.dictionary,
        sample_review=sample_review,
        out_dir=out_dir,
        crosswalk_dir=crosswalk_dir,
        meta=meta if meta is not None else project.export,
        register_path=register_path,
        app_version=__version__,
        now=now,
        input_rows=review_result.input_rows,
        overwrite=overwrite,
        project_file=project_path,
        verdict=verdict_record,
        findings=review_findings(review_result),
        progress=progress,
        cancel=cancel,
    )


def released_scan_summary(review_result: ReviewResult) -> dict[str, Any] | None:
    """The record's scan entry: the scan of the free-text columns the release keeps
    (redacted), or "not scanned" when it keeps none. A review that scanned more (the GUI
    scans every free-text column, for its panel) writes the same record as `deid run`."""
    if not review_result.released_text:
        if review_result.text_columns:
            return scan_skipped_summary(review_result.text_columns)
        return scan_summary(review_result.scan)
    return scan_summary(review_result.scan, columns=review_result.released_text)


def review_findings(result: ReviewResult) -> dict[str, Any]:
    """What the review found beyond the checks, for the record (counts only): the
    motivated-intruder test when it ran, the combination with earlier releases when it
    warns (isolates someone, or an earlier file could not be read) and the small cells of
    the event tables. ``export_release`` keeps the sender's part of the
    cross-release report (recipients, folders) out of the release folder."""
    from deid_desktop.core.risk.cells import cells_summary

    out: dict[str, Any] = {"small_cells": cells_summary(result.small_cells)}
    if result.intruder is not None:
        out["intruder"] = result.intruder.to_dict()
    if result.word_list is not None and result.word_list.get("terms"):
        out["word_list"] = dict(result.word_list)  # counts of the user's terms, no term
    if result.cross_release is not None and result.cross_release.warnings:
        # only what the record must say: someone isolated, or a held-back file missing
        # (a rerun of a release already in the register then writes the same record)
        out["cross_release"] = result.cross_release
    return out


def run(
    project_path: Path,
    *,
    out_dir: Path,
    crosswalk_dir: Path | None,
    meta: ExportMeta | None = None,
    salt: bytes | None = None,
    register_path: Path | None = None,
    overwrite: bool = False,
    accept_risk: str | None = None,
    now: dt.datetime | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> ExportRecord:
    """Open, load, review and export in one call (what ``deid run`` does); the scan uses
    the word list of ``crosswalk_dir`` (else of the project's default held-back folder)."""
    from deid_desktop.core.held_back import project_word_list
    from deid_desktop.core.project import load_project

    rep = Reporter(progress, cancel)
    # not ``open_project``: its input report (each file hashed) would go unread here, and
    # the load hashes the bytes it parses and refuses a changed file itself
    project = load_project(Path(project_path))
    extract = load(project, project_path, progress=_slice(rep, 0.0, 0.3), cancel=cancel)
    result = review(
        project,
        extract,
        salt=salt,
        register_path=register_path,
        progress=_slice(rep, 0.3, 0.8),
        cancel=cancel,
        words=project_word_list(project_path, project.name, crosswalk_dir),
    )
    del extract  # the export needs only the review: let the loaded frames go
    return export(
        project,
        project_path,
        result,
        out_dir=out_dir,
        crosswalk_dir=crosswalk_dir,
        meta=meta,
        register_path=register_path,
        overwrite=overwrite,
        accept_risk=accept_risk,
        now=now,
        progress=_slice(rep, 0.8, 1.0),
        cancel=cancel,
    )


def released_rows(result: ReviewResult) -> dict[str, dict[str, int | None]]:
    """Per table: rows in the input, in the release, and suppressed on purpose."""
    return {
        name: {
            "input": result.input_rows.get(name),
            "released": len(frame),
            "suppressed": int(result.release.suppressed_rows.get(name, 0)),
        }
        for name, frame in result.release.tables.items()
    }


__all__ = [
    "ReviewResult",
    "RiskNotAccepted",
    "chosen_generalization",
    "cross_release_for",
    "export",
    "load",
    "open_project",
    "quasi_identifiers_for",
    "redact_columns_for",
    "released_not_counted_for",
    "released_rows",
    "review",
    "review_findings",
    "risk_acceptance_needed",
    "run",
    "scan_extract",
    "text_columns_for",
    "unapplied_person",
    "verdict_for",
]
