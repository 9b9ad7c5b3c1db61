"""Loading a project's extract: every table read, verified, related and prepared."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from deid_desktop.core.errors import InputError, ProjectError
from deid_desktop.core.facts.fold import plain_notes
from deid_desktop.core.facts.text import STRING, arrow_text
from deid_desktop.core.io.dates import infer_date_format, parse_dates
from deid_desktop.core.io.relations import check_relations, require_person_rows
from deid_desktop.core.io.tables import read_table
from deid_desktop.core.io.zips import count_not_zip_like, restore_zip_zeros
from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    Extract,
    LoadedTable,
    Project,
    Role,
    TableSpec,
)
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter

DATE_ROLES = frozenset({Role.BIRTH_DATE, Role.INDEX_DATE})


def resolve_input(spec: TableSpec, base_dir: Path) -> Path:
    """The table's file: ``spec.path`` relative to ``base_dir`` unless absolute."""
    path = Path(spec.path).expanduser()
    return path if path.is_absolute() else Path(base_dir) / path


def _read(spec: TableSpec, base_dir: Path, reporter: Reporter) -> LoadedTable:
    path = resolve_input(spec, base_dir)
    if not path.is_file():
        raise ProjectError(
            f"The file of table '{spec.name}' was moved or deleted",
            file=path.name,
            hint="Re-point the table to where the file is now.",
        )
    table = read_table(
        path,
        name=spec.name,
        sheet=spec.sheet,
        expected_sha256=spec.sha256 or None,
        progress=reporter.step,  # the file's 0..1 mapped onto this table's slice
        cancel=reporter.cancel,
    )
    lost = [tag.name for tag in spec.columns if tag.name not in table.frame.columns]
    if lost:
        shown = ", ".join(f"'{name}'" for name in lost)
        raise ProjectError(
            f"Tagged column(s) {shown} of table '{spec.name}' are no longer in the file",
            file=path.name,
            column=lost[0],
            hint="Re-point the table to the right file, or re-tag it.",
        )
    return table


def load_extract(
    project: Project,
    base_dir: Path,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> Extract:
    """Read every table of ``project`` (paths relative to ``base_dir``), check each file's
    SHA-256 and tagged columns, check the relations, then ``prepare_extract``."""
    reporter = Reporter(progress, cancel)
    specs = (project.person_table, *project.event_tables)
    share = 0.85 / len(specs)
    tables = [
        _read(spec, base_dir, reporter.sub(i * share, (i + 1) * share))
        for i, spec in enumerate(specs)
    ]
    person, events = tables[0], tables[1:]
    require_person_rows(person)
    reporter.step(0.86, "Checking how the tables link")
    positions = check_relations(
        person, specs[0].key, [(t, spec.key) for t, spec in zip(events, specs[1:], strict=True)]
    )
    extract = Extract(person=person, events=tuple(events))
    prepared = prepare_extract(extract, project, reporter=reporter.sub(0.9, 1.0))
    if positions is not None:
        from deid_desktop.core.facts.shared import facts_for

        facts_for(prepared, project).seed_positions(positions)
    return prepared


def _restored_warning(count: int, column: str) -> str:
    if count == 1:
        return (
            f"1 ZIP code in column '{column}' had lost its leading zero (as spreadsheets do) "
            "and was restored to 5 digits."
        )
    return (
        f"{count} ZIP codes in column '{column}' had lost their leading zero (as spreadsheets "
        "do) and were restored to 5 digits."
    )


def _not_zip_warning(count: int, column: str) -> str:
    what = "1 value" if count == 1 else f"{count} values"
    verb = "is not a US ZIP code" if count == 1 else "are not US ZIP codes"
    return (
        f"{what} in column '{column}' {verb} (5 digits or ZIP+4); a release treats "
        f"{'it' if count == 1 else 'them'} as unknown (000)."
    )


def _plain_warning(count: int, column: str) -> str:
    what = "1 note" if count == 1 else f"{count} notes"
    return (
        f"{what} in column '{column}' held characters that disguise text (invisible "
        "characters, full-width letters or digits, Cyrillic or Greek letters drawn like "
        "Latin ones inside Latin words); they were written plainly, so that the scan and "
        "the release read the notes as a person does."
    )


def _role_hint(tag: ColumnTag, table: str) -> str:
    role = tag.role.value.replace("_", " ") if tag.role else ""
    change = f"{table}.{tag.name}={tag.cls.value}:none"
    change = f"'{change}'" if " " in change else change
    return (
        f"The column is tagged {tag.cls.value.replace('_', ' ')} but keeps the role "
        f"'{role}', which reads it as a date. If it holds no dates, remove the role (in the "
        f"Tag step choose no role, or `deid tag PROJECT {change}`). "
    )


def _is_date(tag: ColumnTag) -> bool:
    return tag.cls == ColumnClass.DATE or tag.role in DATE_ROLES


def _prepare_table(
    table: LoadedTable, spec: TableSpec
) -> tuple[LoadedTable, dict[str, tuple[str, pd.Series]]]:
    """The prepared table, and its date columns as parsed: column -> (format, dates)."""
    frame = table.frame
    dates: dict[str, tuple[str, pd.Series]] = {}
    file = table.report.file
    warnings: list[str] = []
    changed = False
    for tag in spec.columns:
        if tag.name not in frame.columns:
            continue
        if tag.role == Role.ZIP:
            restored, count = restore_zip_zeros(frame[tag.name])
            if count:
                if not changed:
                    frame, changed = frame.copy(deep=False), True
                frame[tag.name] = restored
                warnings.append(_restored_warning(count, tag.name))
            odd = count_not_zip_like(restored)
            if odd:
                warnings.append(_not_zip_warning(odd, tag.name))
        if tag.cls == ColumnClass.FREE_TEXT:
            plain, count = plain_notes(arrow_text(frame[tag.name]))
            if count:
                if not changed:
                    frame, changed = frame.copy(deep=False), True
                frame[tag.name] = pd.Series(
                    pd.arrays.ArrowStringArray(plain), index=frame.index, name=tag.name
                ).astype(STRING)
                warnings.append(_plain_warning(count, tag.name))
        if _is_date(tag):
            values = frame[tag.name]
            try:
                fmt = tag.date_format or infer_date_format(values, file=file, column=tag.name)
                # every value a real date; kept for the release (``facts.shared``)
                dates[tag.name] = (fmt, parse_dates(values, fmt, file=file, column=tag.name))
            except InputError as err:
                if tag.cls is not ColumnClass.DATE:  # a date by its role alone
                    err.hint = _role_hint(tag, spec.name) + err.hint
                raise
    fresh = [w for w in warnings if w not in table.report.warnings]  # prepare twice: once
    if not fresh and not changed:
        return table, dates
    report = replace(table.report, warnings=(*table.report.warnings, *fresh))
    return replace(table, frame=frame, report=report), dates


def prepare_extract(
    extract: Extract, project: Project, *, reporter: Reporter | None = None
) -> Extract:
    """Tag-driven preparation: ZIP-role columns restored to 5 digits (counted in the
    table's report), date columns checked against their format (or one inferred)."""
    reporter = reporter or Reporter()
    prepared: list[LoadedTable] = []
    parsed: dict[str, dict[str, tuple[str, pd.Series]]] = {}
    for i, table in enumerate(extract.tables):
        reporter.step(i / len(extract.tables), f"Preparing {table.report.file}")
        try:
            spec = project.table(table.name)
        except KeyError:
            prepared.append(table)
            continue
        ready, parsed[table.name] = _prepare_table(table, spec)
        prepared.append(ready)
    reporter.step(1.0, "Extract ready")
    out = Extract(person=prepared[0], events=tuple(prepared[1:]))
    from deid_desktop.core.facts.shared import facts_for

    dates = facts_for(out, project).dates
    for table_name, columns in parsed.items():
        for column, (fmt, values) in columns.items():
            dates.seed(table_name, column, fmt, values)
    return out
