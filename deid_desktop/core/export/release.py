"""``export_release``: the only code that writes a release to disk.

Order of work, so that a refusal or a failure leaves nothing behind:

1. Refuse before touching the disk: a failed blocking check (``CheckFailed`` listing
   each failed check and its count), a crosswalk folder that is the release folder or
   inside it (or the other way round), a register inside either folder, a table too
   large for XLSX, an existing non-empty output folder without ``overwrite``.
2. Stage (``core/transaction.py``): a journal naming every folder is written first, then
   every file of the release and of the crosswalk folder goes into hidden staging
   folders beside the targets.
3. Commit: files fsynced, the register line prepared beside the register (a full disk
   fails here), the journal turned to "commit", both folders renamed into place and
   the line appended to the register - together or not at all. A crash at any point is
   finished or undone at the next start (``recover_pending``).

A cancel (``CancelToken``) is honoured between tables and chunks until the commit. Any
failed write (``OSError``: a full disk, no permission) is an ``OutputError`` (exit 4)
naming the folder, with nothing committed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import errno
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from deid_desktop import __version__
from deid_desktop.core.atomic import StagedDirectory
from deid_desktop.core.cross_release import (
    QI_FILE,
    QI_RECORD_KEY,
    released_quasi_identifiers,
    write_quasi_identifiers,
)
from deid_desktop.core.errors import CheckFailed, OutputError, UsageError
from deid_desktop.core.export.cells import neutralise_frame
from deid_desktop.core.export.csvout import write_csv
from deid_desktop.core.export.documents import (
    data_dictionary,
    render_crosswalk_readme,
    render_readme,
)
from deid_desktop.core.export.readback import free_text_columns, readback_gate
from deid_desktop.core.export.record import (
    FULL_RECORD_JSON,
    FULL_RECORD_TXT,
    RECORD_FILES,
    RECORD_JSON,
    RECORD_TXT,
    build_record,
    record_json,
    release_record,
    render_record_text,
    without_seed,
)
from deid_desktop.core.export.summaries import check_rows, risk_summary, scan_summary
from deid_desktop.core.export.tables import check_xlsx_fits, write_xlsx
from deid_desktop.core.faults import fault_point
from deid_desktop.core.io.hashing import sha256_file as sha256_of
from deid_desktop.core.model import ExportMeta, Project, Release
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.core.register import register_line, resolve_register_path
from deid_desktop.core.scan.wordlist import SITE_LIST_NAME, WORD_LIST_NAME
from deid_desktop.core.transaction import ReleaseTransaction, sweep_staging

if TYPE_CHECKING:
    from deid_desktop.core.scan.dictionary import ScanDictionary
    from deid_desktop.core.scan.direct_values import DirectValues
    from deid_desktop.core.verify import Verification

README = "README.txt"
DICTIONARY = "data_dictionary.csv"
CROSSWALK_FILE = "crosswalk-DO-NOT-DISCLOSE.csv"
CROSSWALK_README = "README_CROSSWALK.txt"
FORMATS = ("csv", "xlsx")
_RESERVED = {README, DICTIONARY, *RECORD_FILES}
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class ExportRecord:
    """What an export wrote.

    ``record`` is the content of export_record.json in the release folder (no seed, no
    crosswalk location or hash); ``full_record`` is the full record (seed, crosswalk
    details) written to the crosswalk folder (``full_record_path``, None without a
    crosswalk folder) and appended to the register.
    """

    record: dict[str, Any]
    out_dir: Path
    record_path: Path
    files: tuple[Path, ...]  # every file in the release folder, record included
    crosswalk_dir: Path | None
    crosswalk_files: tuple[Path, ...]  # crosswalk, its README and the full record
    register_path: Path
    full_record: dict[str, Any] = field(default_factory=dict)
    full_record_path: Path | None = None
    #: sentences about leftovers of interrupted exports removed before this one
    recovered: tuple[str, ...] = ()


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or child.is_relative_to(parent)


def _marked_folder(path: Path, marker: str, *, include_self: bool) -> Path | None:
    """The nearest existing folder at or above ``path`` that holds ``marker``."""
    folders = [path, *path.parents] if include_self else list(path.parents)
    return next((f for f in folders if (f / marker).is_file()), None)


def check_placement(out_dir: Path, crosswalk_dir: Path | None) -> None:
    """The crosswalk folder must be apart from every release folder (45 CFR 164.514(c)).

    Refused: the crosswalk folder being the release folder, inside it or containing it;
    a crosswalk folder inside an earlier release folder; a release folder inside an
    earlier crosswalk folder or inside an earlier release folder.
    """
    rel = Path(out_dir).expanduser().resolve()
    hint = (
        "Choose a crosswalk folder outside every release folder (and not containing one), "
        "ideally on storage the recipient never sees."
    )
    why = (
        "The crosswalk links every subject ID back to a person: 45 CFR 164.514(c) allows "
        "such a code only if it is never disclosed, so it must not travel with a release."
    )
    if crosswalk_dir is not None:
        xw = Path(crosswalk_dir).expanduser().resolve()
        if _inside(xw, rel) or _inside(rel, xw):
            where = (
                "is the release folder"
                if xw == rel
                else "is inside the release folder"
                if _inside(xw, rel)
                else "contains the release folder"
            )
            raise CheckFailed(
                f"The crosswalk folder {where}; nothing was written. {why}", hint=hint
            )
        earlier = _marked_folder(xw, RECORD_JSON, include_self=True)
        if earlier is not None:
            raise CheckFailed(
                f"The crosswalk folder is inside an earlier release folder ({earlier}); "
                f"nothing was written. {why}",
                hint=hint,
            )
    holder = _marked_folder(rel, CROSSWALK_README, include_self=False)
    if holder is not None:
        raise CheckFailed(
            f"The release folder is inside a crosswalk folder ({holder}); nothing was "
            f"written. {why}",
            hint="Choose a release folder outside every crosswalk folder.",
        )
    nested = _marked_folder(rel, RECORD_JSON, include_self=False)
    if nested is not None:
        raise UsageError(
            f"The release folder is inside an earlier release folder ({nested}); nothing "
            "was written. That would change a release that may already have gone out.",
            hint="Choose a release folder outside every earlier release.",
        )


def _refuse_failed_checks(verification: Verification) -> None:
    failures = list(verification.blocking_failures)
    if not failures:
        return
    listed = "; ".join(f"{o.check.name} ({int(o.count or 0):,})" for o in failures)
    n = len(failures)
    # checks that explain themselves in plain sentences (column, kinds, counts; no value)
    said = [
        str(m)
        for o in failures
        if isinstance(o.detail, dict)
        for m in o.detail.get("messages", ()) or ()
    ]
    more = "".join(f" {m}" for m in said)
    raise CheckFailed(
        f"{n} blocking release check{'s' if n != 1 else ''} failed: {listed}. Nothing was "
        f"written.{more}",
        hint="Run `deid check PROJECT` (or open the Review page) to see every check, then "
        "fix the column tags or settings and try again.",
    )


def _table_files(names: list[str]) -> dict[str, str]:
    stems: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        stem = _SAFE_NAME.sub("_", name).strip("._") or "table"
        file = f"{stem}.csv"
        if file in _RESERVED or file.lower() in used:
            raise UsageError(
                f"The table name '{name}' clashes with another output file ({file}).",
                hint="Rename the table in the project.",
            )
        used.add(file.lower())
        stems[name] = stem
    return stems


@dataclass
class _Written:
    """What the table-writing step produced (for the README and the record)."""

    neutralised: dict[str, int] = field(default_factory=dict)
    shapes: dict[str, tuple[int, int]] = field(default_factory=dict)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (file, what it is)
    digests: dict[str, str] = field(default_factory=dict)  # file -> SHA-256 while writing
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)  # CSV file -> frame written
    xlsx_removed: dict[str, int] = field(default_factory=dict)  # table -> illegal chars cut


def _failed_folder(exc: OSError, where: Path, txn: ReleaseTransaction) -> Path:
    """The folder a failed write was for: a staging path stands for its target."""
    name = getattr(exc, "filename", None)
    if not name:
        return where
    p = Path(name)
    for f in txn.folders:
        for held in (f.staging_path, f.old_path, f.target):
            if p == held or p.is_relative_to(held):
                return f.target
    return p.parent


@contextlib.contextmanager
def _plain_os_errors(where: dict[str, Path], txn: ReleaseTransaction) -> Iterator[None]:
    """A failed write (full disk, no permission) as a plain message naming the folder
    (exit 4); the transaction has already put everything back."""
    try:
        yield
    except OSError as exc:
        folder = _failed_folder(exc, where["folder"], txn)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise OutputError(
                f"There is no space left on the disk of {folder}, so the release could not "
                "be written. Nothing was written.",
                hint="Free some space on that disk (or choose a folder on another one) and "
                "run again.",
            ) from exc
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise OutputError(
            f"The release could not be written to {folder} ({reason}). Nothing was written.",
            hint="Check that the folder is writable and its disk has space, then try again.",
        ) from exc


def _preflight(
    release: Release,
    verification: Verification,
    out_dir: Path,
    crosswalk_dir: Path | None,
    meta: ExportMeta,
    register: Path,
) -> tuple[str, ...]:
    """Every refusal that must happen before anything touches the disk. Returns formats."""
    _refuse_failed_checks(verification)
    check_placement(out_dir, crosswalk_dir)
    if release.crosswalk is not None and crosswalk_dir is None:
        raise UsageError(
            "This release has a crosswalk; a crosswalk folder is needed. Nothing was written.",
            hint="Choose a folder apart from the release for the crosswalk.",
        )
    formats = tuple(dict.fromkeys(f.lower() for f in ("csv", *meta.formats)))
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise UsageError(f"Unknown export format: {', '.join(unknown)}.", hint="Use csv or xlsx.")
    if "xlsx" in formats:
        check_xlsx_fits(release.tables)
    for folder in (out_dir, crosswalk_dir):
        if folder is not None and _inside(register.resolve(), folder.resolve()):
            raise UsageError(
                "The register file is inside an output folder; nothing was written.",
                hint="Keep the register (DEID_REGISTER) outside the release and crosswalk folders.",
            )
    return formats


def _write_tables(
    rel: StagedDirectory,
    release: Release,
    stems: Mapping[str, str],
    formats: tuple[str, ...],
    reporter: Reporter,
) -> _Written:
    """Each table as CSV (and XLSX), formula-like cells neutralised."""
    done = _Written()
    n_tables = max(len(release.tables), 1)
    for i, (name, frame) in enumerate(release.tables.items()):
        part = reporter.sub(i / n_tables, (i + 1) / n_tables)
        safe, count = neutralise_frame(frame)
        done.neutralised[name] = count
        done.shapes[name] = (len(frame), frame.shape[1])
        csv_name = f"{stems[name]}.csv"
        csv_part = part.sub(0.0, 0.5 if "xlsx" in formats else 1.0)
        done.digests[csv_name] = write_csv(safe, rel.file(csv_name), csv_part)
        done.frames[csv_name] = safe
        fault_point("table written")
        done.notes.append((csv_name, f"table {name}"))
        if "xlsx" in formats:
            xlsx_name = f"{stems[name]}.xlsx"
            removed = write_xlsx(safe, rel.file(xlsx_name), sheet=name, reporter=part.sub(0.5, 1.0))
            fault_point("spreadsheet written")
            if removed:
                done.xlsx_removed[name] = removed
            done.notes.append((xlsx_name, f"table {name} (spreadsheet)"))
    return done


def _write_crosswalk(
    xw: StagedDirectory, crosswalk: pd.DataFrame, crosswalk_dir: Path, out_dir: Path
) -> dict[str, Any]:
    """The held-back crosswalk and its warning, in the crosswalk folder."""
    safe, _ = neutralise_frame(crosswalk)
    digest = write_csv(safe, xw.file(CROSSWALK_FILE))
    fault_point("crosswalk written")
    xw.write_text(
        CROSSWALK_README,
        render_crosswalk_readme(
            crosswalk_file=CROSSWALK_FILE, release_folder=str(out_dir), rows=len(crosswalk)
        ),
    )
    return {
        "folder": str(crosswalk_dir),
        "file": CROSSWALK_FILE,
        "sha256": digest,
        "rows": len(crosswalk),
        "readme": CROSSWALK_README,
    }


def _write_held_quasi_identifiers(
    xw: StagedDirectory, release: Release, project: Project, risk_d: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """Each released person's quasi-identifiers by person key, in the crosswalk folder."""
    qis = list((risk_d or {}).get("quasi_identifiers") or ())
    frame = released_quasi_identifiers(
        release.tables.get(project.person_table.name), release.crosswalk, qis
    )
    if frame is None:
        return None
    info = write_quasi_identifiers(frame, xw.file(QI_FILE))
    fault_point("quasi-identifiers held back")
    return info


def export_release(
    release: Release,
    verification: Verification,
    *,
    project: Project,
    extract_inputs: Mapping[str, tuple[Path, str]],
    out_dir: Path,
    crosswalk_dir: Path | None,
    risk: Any | None = None,
    scan: Any | None = None,
    dictionary: DirectValues | ScanDictionary | None = None,
    sample_review: Mapping[str, Any] | None = None,
    meta: ExportMeta | None = None,
    register_path: Path | None = None,
    app_version: str = __version__,
    now: dt.datetime | None = None,
    input_rows: Mapping[str, int] | None = None,
    overwrite: bool = False,
    project_file: Path | None = None,
    verdict: Mapping[str, Any] | None = None,
    findings: Mapping[str, Any] | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> ExportRecord:
    """Write the release, its crosswalk and its record atomically; see the module doc.

    ``extract_inputs``: table -> (input file, SHA-256); ``risk``/``scan``: the review's
    reports (or their summaries); ``now``: the record's time (injectable for tests);
    ``verdict``: the review's verdict (``Verdict.to_dict()``, plus any accepted risk) for
    the README (headline, access model) and the record.
    ``dictionary``: the extract's direct values, looked for when the staged files are
    read back before the commit (``readback_gate``; None: identifier shapes only);
    ``sample_review``: the reviewer's sample of notes (``SampleReview.summary_dict``:
    counts and the reviewer's name, never note text), written into the record.
    ``findings``: the review's further findings (``engine.review_findings``: counts
    only): ``intruder``, ``small_cells`` and ``cross_release`` (a ``CrossReleaseReport``;
    the full record keeps it whole, the release's record and README only its public
    part, without the earlier recipients and folders).
    """
    reporter = Reporter(progress, cancel)
    out_dir = Path(out_dir).expanduser().absolute()
    crosswalk_dir = None if crosswalk_dir is None else Path(crosswalk_dir).expanduser().absolute()
    meta = meta if meta is not None else project.export
    register = resolve_register_path(register_path).expanduser().absolute()
    formats = _preflight(release, verification, out_dir, crosswalk_dir, meta, register)
    stems = _table_files(list(release.tables))
    checks = check_rows(verification)
    risk_d, scan_d = risk_summary(risk), scan_summary(scan)
    meta_d: dict[str, Any] = {**asdict(meta), "formats": list(formats)}
    when = now if now is not None else dt.datetime.now(dt.UTC)
    found = dict(findings or {})
    cross = found.pop("cross_release", None)
    cross_public = None if cross is None else cross.public_dict()
    # the README says it only when the combination isolates someone (a rerun of the same
    # release, or one with the same quasi-identifiers, leaves the README byte-identical)
    isolates = cross is not None and bool(cross.lone or cross.below_k)
    cross_readme = cross_public if isolates else None
    reporter.step(0.0, "Preparing the export")

    targets = [out_dir] + ([crosswalk_dir] if crosswalk_dir is not None else [])
    full: dict[str, Any] = {}  # the full record: crosswalk folder and register only
    full_path = crosswalk_dir / FULL_RECORD_JSON if crosswalk_dir is not None else None

    txn = ReleaseTransaction(
        targets,
        overwrite=overwrite,
        markers=[RECORD_JSON, CROSSWALK_README][: len(targets)],
        private=[False, True][: len(targets)],  # the crosswalk folder: owner only
        register=register,
        keep=[(), (WORD_LIST_NAME, SITE_LIST_NAME)][: len(targets)],  # the user's lists
    )
    staged = txn.folders
    recovered: list[str] = []
    where: dict[str, Path] = {"folder": txn.journal_folder}

    def _stage() -> tuple[dict[str, Any], tuple[Path, ...], tuple[Path, ...]]:
        """Write every file into the staging folders; the record, files, crosswalk files."""
        rel = staged[0]
        written = _write_tables(rel, release, stems, formats, reporter.sub(0.0, 0.85))
        reporter.step(0.86, "Writing the data dictionary")
        columns_doc = data_dictionary(release, project)
        written.digests[DICTIONARY] = write_csv(columns_doc, rel.file(DICTIONARY))
        written.frames[DICTIONARY] = columns_doc
        fault_point("data dictionary written")
        reporter.step(0.87, "Reading back what was written")
        readback = readback_gate(
            rel.path,
            dictionary,
            free_text_columns(project, release, stems),
            generated=(release.id_column,),
            written={f: (written.digests[f], frame) for f, frame in written.frames.items()},
        )
        written.frames.clear()  # the read-back is done with them
        written.notes += [
            (DICTIONARY, "each released column: class, what was done to it"),
            (README, "this file"),
            (f"{RECORD_JSON}, {RECORD_TXT}", "the export record: hashes, checks, parameters"),
        ]
        crosswalk_info: dict[str, Any] | None = None
        crosswalk_files: tuple[Path, ...] = ()
        if release.crosswalk is not None and crosswalk_dir is not None:
            reporter.step(0.88, "Writing the crosswalk")
            where["folder"] = crosswalk_dir
            crosswalk_info = _write_crosswalk(staged[1], release.crosswalk, crosswalk_dir, out_dir)
            where["folder"] = out_dir
            crosswalk_files = (crosswalk_dir / CROSSWALK_FILE, crosswalk_dir / CROSSWALK_README)
            held = _write_held_quasi_identifiers(staged[1], release, project, risk_d)
            if held is not None:  # for the cross-release check; never in the release folder
                crosswalk_info[QI_RECORD_KEY] = held
                crosswalk_files += (crosswalk_dir / QI_FILE,)

        reporter.step(0.9, "Writing the README")
        # what the recipient reads never names the seed (45 CFR 164.514(c)(2))
        public_release = dataclasses.replace(
            release,
            transformations=tuple(without_seed(t, project.seed) for t in release.transformations),
            warnings=tuple(without_seed(w, project.seed) for w in release.warnings),
        )
        readme = render_readme(
            release=public_release,
            project=project,
            files=written.notes,
            table_shapes=written.shapes,
            checks=checks,
            risk=risk_d,
            scan=scan_d,
            neutralised=written.neutralised,
            meta=meta_d,
            app_version=app_version,
            has_crosswalk=release.crosswalk is not None,
            verdict=verdict,
            cross_release=cross_readme,
        )
        rel.write_text(README, readme)
        fault_point("README written")

        reporter.step(0.93, "Writing the export record")
        outputs = [
            {
                "name": p.name,
                "sha256": written.digests.get(p.name) or sha256_of(p),
                "bytes": p.stat().st_size,
            }
            for p in rel.staged_files()
            if p.name not in RECORD_FILES
        ]
        full.update(
            build_record(
                now=when,
                app_version=app_version,
                project=project,
                release=release,
                checks=checks,
                risk=risk_d,
                scan=scan_d,
                inputs=extract_inputs,
                input_rows=input_rows or {},
                outputs=outputs,
                out_dir=out_dir,
                crosswalk=crosswalk_info,
                meta=meta_d,
                neutralised=written.neutralised,
            )
        )
        if verdict is not None:
            full["verdict"] = dict(verdict)
        full.update(found)
        if cross is not None:
            full["cross_release"] = cross.to_dict()
        full["written_scan"] = readback
        if sample_review is not None:
            full["sample_review"] = dict(sample_review)
        if written.xlsx_removed:  # control characters XML cannot hold (the CSV keeps them)
            full["xlsx_control_characters_removed"] = written.xlsx_removed
        if project_file is not None and Path(project_file).is_file():
            full["project"]["file"] = str(Path(project_file).absolute())
            full["project"]["sha256"] = sha256_of(Path(project_file))
        record = release_record(full, seed=project.seed)
        if cross_public is not None:  # the earlier recipients and folders are the sender's
            record["cross_release"] = cross_public
        rel.write_text(RECORD_JSON, record_json(record))
        fault_point("record written")
        rel.write_text(RECORD_TXT, render_record_text(record))
        fault_point("record text written")
        if len(staged) > 1:  # the full record stays with the crosswalk
            where["folder"] = crosswalk_dir
            staged[1].write_text(FULL_RECORD_JSON, record_json(full))
            fault_point("full record written")
            staged[1].write_text(FULL_RECORD_TXT, render_record_text(full))
            fault_point("full record text written")
            crosswalk_files += tuple(crosswalk_dir / n for n in (FULL_RECORD_JSON, FULL_RECORD_TXT))
        files = tuple(out_dir / p.name for p in rel.staged_files())
        return record, files, crosswalk_files

    with _plain_os_errors(where, txn):
        sweep_staging([t.parent for t in targets], recovered.append, txn.journal_folder)
        txn.begin()
        try:
            where["folder"] = out_dir
            record, files, crosswalk_files = _stage()
            entry = {**full, "record_path": str(out_dir / RECORD_JSON)}
            if full_path is not None:
                entry["full_record_path"] = str(full_path)
            where["folder"] = register.parent
            line = register_line(entry, txn.id)
            reporter.step(0.97, "Moving the release into place")
            txn.commit(line)
        except BaseException:
            txn.abort()
            raise
    reporter.progress(1.0, "Export finished")
    return ExportRecord(
        record=record,
        out_dir=out_dir,
        record_path=out_dir / RECORD_JSON,
        files=files,
        crosswalk_dir=crosswalk_dir,
        crosswalk_files=crosswalk_files,
        register_path=register,
        full_record=full,
        full_record_path=full_path if crosswalk_files else None,
        recovered=tuple(recovered),
    )
