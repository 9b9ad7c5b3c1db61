"""The GUI's only door into core. Thin calls, no rules.

Everything here is a direct call of a core function (mostly ``core.engine``), so the
pages never reach into core modules themselves and the CLI and the GUI share one path.
Long calls take ``progress`` and ``cancel`` and are run by ``workers.JobRunner``.
"""

from __future__ import annotations

import shutil
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from deid_desktop.core.errors import DeidError, Problem
from deid_desktop.core.model import (
    ColumnTag,
    ExportMeta,
    Extract,
    LoadedTable,
    Project,
)
from deid_desktop.core.pathways.registry import PathwaySpec, all_specs
from deid_desktop.core.progress import CancelToken, ProgressFn
from deid_desktop.core.resources import resources_dir

if TYPE_CHECKING:  # the data stack loads with the first job, not with the window
    import pandas as pd

    from deid_desktop.core.engine import ReviewResult
    from deid_desktop.core.export import ExportRecord
    from deid_desktop.core.risk import SuppressionPreview
    from deid_desktop.core.risk.intruder import IntruderReport
    from deid_desktop.core.scan.sample import SampleReview
    from deid_desktop.core.zip3 import Zip3Table


#: What the pages import on first use (to keep start-up light): ``warm_imports`` loads
#: them in the first job, so the UI thread never executes a module's code (seconds for
#: pandas and the core modules, with Python's lock held, the window frozen meanwhile).
FIRST_USE_MODULES = (
    "pandas",
    "deid_desktop.core",
    "deid_desktop.core.atomic",
    "deid_desktop.core.demo",
    "deid_desktop.core.engine",
    "deid_desktop.core.errors",
    "deid_desktop.core.held_back",
    "deid_desktop.core.io",
    "deid_desktop.core.model",
    "deid_desktop.core.project",
    "deid_desktop.core.tagging",
    "deid_desktop.core.scan.report",
    "deid_desktop.core.export",
    "deid_desktop.core.export.readback",
    "deid_desktop.core.gc_pause",
    "deid_desktop.core.attack",
    "deid_desktop.core.cross_release",
    "deid_desktop.core.risk",
    "deid_desktop.core.risk.builtin_hierarchies",
    "deid_desktop.core.risk.cells",
    "deid_desktop.core.risk.hierarchy",
    "deid_desktop.core.risk.intruder",
    "deid_desktop.core.risk.lattice",
    "deid_desktop.core.risk.verdict",
    "deid_desktop.core.scan",
    "deid_desktop.core.scan.notes",
    "deid_desktop.core.scan.sample",
    "deid_desktop.core.scan.wordlist",
    "deid_desktop.core.tagging.protection",
    "deid_desktop.core.tagging.retag",
    "deid_desktop.core.verify",
    "deid_desktop.core.verify.plain",
    "deid_desktop.core.zip3",
    "deid_desktop.gui.scan_panel",
    "deid_desktop.gui.generalize_panel",
    "deid_desktop.gui.hierarchy_editor",
)


@contextmanager
def _no_pyside_source_scan() -> Iterator[None]:
    """PySide reads and tokenizes the whole source of every module imported after it, to
    find the modules that use its ``__feature__`` switches (this app uses none): for
    pandas and core, 550 files (15 MB kept in ``linecache``, 0.2 s of Python with the
    GIL held; on a busy machine the window waited for it). Off while they are imported:
    those modules are marked as not using PySide, which changes nothing here."""
    feature = sys.modules.get("PySide6.support.feature")
    scan = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or scan is None:  # another PySide: it is left as it is
        yield
        return
    feature._mod_uses_pyside = lambda module: False
    try:
        yield
    finally:
        feature._mod_uses_pyside = scan


_warming = threading.Lock()


def warm_imports() -> None:
    """Import ``FIRST_USE_MODULES`` and read the shipped ZIP3 table, which the Pathway
    step shows the vintage of (call it in a job, off the UI thread: half a second).

    One warm-up at a time: a second caller (the Pathway step's ZIP3 job at project open,
    beside the load's) waits for the first, then finds everything imported."""
    import gc
    import importlib

    from deid_desktop.core.gc_pause import gc_paused

    # the modules' objects live as long as the app: no collection walks them while they
    # are made (one took 0.7 s, Python's lock held), and none walks them afterwards: they
    # are frozen before the collector runs again (frozen after, the first allocation
    # past the pause started a collection of all of them: 130 ms, the window held)
    with _warming, gc_paused(), _no_pyside_source_scan():
        for name in FIRST_USE_MODULES:
            importlib.import_module(name)
        from deid_desktop.core import zip3

        zip3.load_bundled_zip3()  # cached
        gc.freeze()


# -- loading -----------------------------------------------------------------------------
def list_sheets(path: Path) -> list[str]:
    from deid_desktop.core.io import list_sheets as _list_sheets

    return list(_list_sheets(path))


def read_table(
    path: Path,
    *,
    sheet: str | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> LoadedTable:
    from deid_desktop.core.io import read_table as _read_table

    return _read_table(path, sheet=sheet, progress=progress, cancel=cancel)


def date_format_label(fmt: str) -> str:
    """A date format as people read it (e.g. "ISO 2024-01-31"), from core."""
    from deid_desktop.core.io import DATE_FORMAT_LABELS

    return DATE_FORMAT_LABELS.get(fmt, fmt)


def suggest_tags(frame: pd.DataFrame, *, table: str, is_person: bool) -> tuple[ColumnTag, ...]:
    from deid_desktop.core.tagging import suggest_tags as _suggest

    return tuple(_suggest(frame, table=table, is_person=is_person))


Suggestions = dict[tuple[str, str], ColumnTag]


def suggestions_for(extract: Extract) -> Suggestions:
    """The suggested tag of every column of every table (run it off the UI thread)."""
    out: Suggestions = {}
    for t in extract.tables:
        is_person = t.name == extract.person.name
        for tag in suggest_tags(t.frame, table=t.name, is_person=is_person):
            out[(t.name, tag.name)] = tag
    return out


def new_project(
    tables: Sequence[LoadedTable],
    *,
    person: str,
    key: str,
    project_path: Path,
    name: str = "",
    keys: Mapping[str, str] | None = None,
) -> Project:
    """``keys``: event table -> the key column the user chose (else core finds it)."""
    from deid_desktop.core.project import new_project as _new

    return _new(tables, person=person, key=key, project_path=project_path, name=name, keys=keys)


def prepare_extract(tables: Sequence[LoadedTable], project: Project) -> Extract:
    """An Extract from tables already read (new project), prepared as core prepares it."""
    from deid_desktop.core.io import prepare_extract as _prepare

    person = next(t for t in tables if t.name == project.person_table.name)
    events = tuple(t for t in tables if t.name != person.name)
    return _prepare(Extract(person=person, events=events), project)


def load_extract(
    project: Project,
    project_path: Path,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> Extract:
    from deid_desktop.core import engine

    return engine.load(project, project_path, progress=progress, cancel=cancel)


# -- project files -----------------------------------------------------------------------
def open_project(path: Path) -> tuple[Project, list[Problem]]:
    """The project and what changed about its inputs (moved, changed, lost columns)."""
    from deid_desktop.core import engine

    project, problems = engine.open_project(path)
    return project, list(problems)


def load_project(path: Path) -> Project:
    from deid_desktop.core.project import load_project as _load

    return _load(path)


def save_project(project: Project, path: Path, base: Path | None = None) -> Project:
    """Save atomically; returns the project as saved.

    ``base`` is the project path the stored input paths are relative to (the old file,
    or where a new project was planned); inputs are re-stored relative to ``path``.
    """
    from deid_desktop.core import project as p

    if base is not None and base.resolve() != path.resolve():
        project = p.rebase_paths(project, base, path)
    p.save_project(project, path)
    return p.load_project(path)


def input_rows(project: Project, project_path: Path, bytes_per_row: int = 60) -> int:
    """The rows the project's inputs hold, before they are read: as recorded in the
    project, else judged from the file's size (the demo's tables run 40-90 bytes a row)."""
    from deid_desktop.core.project import resolve_path as _resolve

    total = 0
    for t in project.tables:
        if t.rows is not None:
            total += t.rows
            continue
        path = _resolve(project_path, t.path)
        total += path.stat().st_size // bytes_per_row if path.is_file() else 0
    return total


def check_inputs(project: Project, project_path: Path) -> list[Problem]:
    from deid_desktop.core.project import check_inputs as _check

    return list(_check(project, project_path))


def repoint_table(project: Project, table: str, new_path: Path, project_path: Path) -> Project:
    from deid_desktop.core.project import repoint_table as _repoint

    return _repoint(project, table, new_path, project_path)


def resolve_path(project_path: Path, stored: str) -> Path:
    from deid_desktop.core.project import resolve_path as _resolve

    return _resolve(project_path, stored)


# -- demo --------------------------------------------------------------------------------


def shipped_demo_dir() -> Path:
    return resources_dir() / "demo"


def install_demo(target: Path) -> Path:
    """Copy the shipped demo (project + extract) to a writable folder; returns the project.

    An existing copy is reused (the user's saved tags survive) unless its files are gone.
    """
    from deid_desktop.core import demo

    src = shipped_demo_dir()
    project = target / demo.PROJECT_FILE
    if project.exists():
        return project
    if (src / demo.PROJECT_FILE).exists():
        target.mkdir(parents=True, exist_ok=True)
        for item in src.iterdir():
            if item.is_file():
                shutil.copy2(item, target / item.name)
        return project
    return demo.write_demo(target)


# -- pathways, review, export ------------------------------------------------------------
def available_pathways() -> tuple[PathwaySpec, ...]:
    """Every pathway the registry knows, in order (``core.pathways.registry``)."""
    return all_specs()


class _Ask:
    """The default of a ``salt`` argument: ask the keyring (``salt_for``)."""


ASK = _Ask()


def salt_for(project: Project) -> bytes | None:
    """The salt from the OS keyring if the project's pathway needs one, else None."""
    from deid_desktop import secrets as store

    return store.salt_for_project(project)


def review(
    extract: Extract,
    project: Project,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
    held_back: Path | None = None,
    salt: bytes | _Ask | None = ASK,
) -> ReviewResult:
    """Build the release in memory, verify it, measure risk, scan free text (core.engine).

    ``salt``: the project's salt when the caller already asked the keyring for it
    (``salt_for``), else it is asked here.

    The review screen shows the scan of every free-text column, suppressed ones too; the
    scan uses the project word list of ``held_back`` (the crosswalk folder).

    The export's read-back dictionary (every direct value of the extract, ~300 MB at a
    million persons) is not built here: the review is held while the user looks at it
    and runs again at each change; ``export`` builds it (``with_readback``)."""
    from deid_desktop.core import engine
    from deid_desktop.core.scan.wordlist import load_word_list

    return engine.review(
        project,
        extract,
        salt=salt_for(project) if isinstance(salt, _Ask) else salt,
        scan=True,
        progress=progress,
        cancel=cancel,
        words=load_word_list(held_back),
        readback=False,
    )


def with_readback(result: ReviewResult, extract: Extract, held_back: Path) -> ReviewResult:
    """``result`` with the read-back dictionary the export checks the written files
    against (built now from ``extract`` when the review left it out), with the project
    word list of ``held_back`` (the crosswalk folder), as ``deid run`` builds it."""
    if result.dictionary is not None:
        return result
    from dataclasses import replace

    from deid_desktop.core.export.readback import readback_dictionary
    from deid_desktop.core.scan.wordlist import load_word_list

    words = load_word_list(held_back).by_dictionary_kind()
    dictionary = readback_dictionary(extract, result.project, result.release, words)
    return replace(result, dictionary=dictionary)


def export(
    project_path: Path | None,
    result: ReviewResult,
    meta: ExportMeta,
    *,
    extract: Extract,
    out_dir: Path,
    crosswalk_dir: Path,
    accept_risk: str | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
    sample_review: SampleReview | None = None,
) -> ExportRecord:
    """Write the reviewed release (core.engine refuses if a blocking check failed, or if
    the residual risk needs an accepted reason and ``accept_risk`` gives none);
    ``sample_review``: the reviewer's sample of notes, its counts go into the record;
    ``extract``: the reviewed extract, whose direct values the written files are read
    back against (``with_readback``)."""
    from deid_desktop.core import engine

    return engine.export(
        result.project,
        project_path,
        with_readback(result, extract, crosswalk_dir),
        out_dir=out_dir,
        crosswalk_dir=crosswalk_dir,
        meta=meta,
        accept_risk=accept_risk,
        progress=progress,
        cancel=cancel,
        sample_review=None if sample_review is None else sample_review.summary_dict(),
    )


def zip3_vintage(project: Project) -> str:
    """The vintage of the project's ZIP3 table (in a job: it reads the table). After the
    warm-up: at project open the load job warms up at the same time, and this job's own
    imports (pandas, core) beside it held Python's lock, the window waiting."""
    warm_imports()
    from deid_desktop.core import zip3

    if project.transform.zip3_table:
        return zip3.load_census_file(Path(project.transform.zip3_table)).vintage
    return zip3.load_bundled_zip3().vintage


def lone_records(review: ReviewResult, person_table: str | None) -> pd.DataFrame:
    """The review's lone records with their subject ID (not a row position) and their
    quasi-identifiers, as the Review page lists them (make it off the UI thread: a
    frame of up to a million rows)."""
    assert review.risk is not None
    lone = review.risk.lone_records
    frame = review.release.tables.get(person_table) if person_table else None
    id_col = review.release.id_column
    if frame is None or id_col not in frame.columns or "row" not in lone.columns:
        return lone
    # only the lone rows: the whole column as Python objects took ~0.5 s at 1M rows
    ids = frame[id_col].iloc[lone["row"].to_numpy(dtype="int64")].to_numpy()
    out = lone.drop(columns=["row"])
    out.insert(0, id_col, ids)
    return out.reset_index(drop=True)


def zip3_vintage_read(project: Project) -> str | None:
    """The vintage of the project's ZIP3 table if it needs no reading (the shipped table,
    already read), else None: ``zip3_vintage`` then reads it (in a job)."""
    if project.transform.zip3_table:
        return None
    zip3 = sys.modules.get("deid_desktop.core.zip3")
    if zip3 is None or not zip3.load_bundled_zip3.cache_info().currsize:
        return None
    return str(zip3.load_bundled_zip3().vintage)


def load_census_table(path: Path) -> Zip3Table:
    from deid_desktop.core import zip3

    return zip3.load_census_file(path)


def salt_status_text(project: Project) -> tuple[str, bool, bool]:
    """A plain line on the linkable pathway's salt (never the salt), whether one exists,
    and whether one can be created here (False: no usable keyring)."""
    from deid_desktop import secrets as store

    try:
        status = store.salt_status(project.project_id)
    except DeidError as exc:  # KeyringUnavailable: a plain message and what to do
        return f"Salt: {exc.message} {exc.hint}".strip(), False, False
    if status.exists:
        return (
            f"Salt: present in the {status.backend_name} keyring, fingerprint "
            f"{status.fingerprint}. Keep the same salt for every release that must link.",
            True,
            False,
        )
    return (
        f"Salt: none yet for this project ({status.backend_name} keyring). "
        "Create one before building a linkable release.",
        False,
        True,
    )


def create_salt(project: Project) -> None:
    from deid_desktop import secrets as store

    store.create_salt(project.project_id)


def preview_suppression(
    frame: pd.DataFrame, quasi_identifiers: Sequence[str], k: int
) -> SuppressionPreview:
    """What suppressing rows below ``k`` would remove (counts), before the user commits."""
    from deid_desktop.core.risk import preview_suppression as _preview

    return _preview(frame, quasi_identifiers, k)


def record_outputs(record: ExportRecord) -> list[tuple[str, int | None, str]]:
    """(file, size in bytes, SHA-256 or what it is) of every file an export wrote."""
    hashes = {
        f.get("name"): f.get("sha256")
        for f in (record.record.get("outputs", {}) or {}).get("files", [])
    }
    out: list[tuple[str, int | None, str]] = []
    for path in (*record.files, *record.crosswalk_files):
        size = path.stat().st_size if path.exists() else None
        if path in record.crosswalk_files:
            what = "crosswalk folder — keep here, never send"
        else:
            what = hashes.get(path.name) or "the export record"
        out.append((str(path), size, str(what)))
    return out


# -- what an intruder could do (Review) ----------------------------------------------------
def intruder(
    review: ReviewResult,
    extract: Extract,
    *,
    on: Sequence[str] = (),
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> ReviewResult:
    """The motivated-intruder test on the reviewed release (``core.attack``): the review
    with its figures (counts only), for the Review page, the verdict and the record."""
    from deid_desktop.core.attack import with_intruder

    report = intruder_report(
        review, extract, on=on, salt=salt_for(review.project), progress=progress, cancel=cancel
    )
    return with_intruder(review, report)


def intruder_report(
    review: ReviewResult,
    extract: Extract,
    *,
    on: Sequence[str] = (),
    salt: bytes | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> IntruderReport:
    """The figures of the motivated-intruder test alone (``intruder`` adds them to the
    review); ``salt``: the project's (``salt_for``)."""
    from deid_desktop.core.attack import motivated_intruder

    return motivated_intruder(
        review.project, extract, review, on=on, salt=salt, progress=progress, cancel=cancel
    )
