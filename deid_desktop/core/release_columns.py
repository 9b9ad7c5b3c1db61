"""Which columns of a release or an extract a step works on: the columns the risk is
counted on (and the released ones left out), the sensitive ones, the free-text ones and
those a release keeps redacted. One place, read by the engine, the GUI and the CLI."""

from __future__ import annotations

from deid_desktop.core.model import ColumnClass, Extract, FreeTextAction, Project, Release, Role


def quasi_identifiers_for(project: Project, release: Release) -> tuple[str, ...]:
    """The columns risk is measured on, as columns of the released person table: the
    project's own choice if set (those still released), else every released column that
    can identify in combination (``pathways.common.default_quasi_identifiers``)."""
    from deid_desktop.core.pathways.common import counted_columns

    frame = release.tables.get(project.person_table.name)
    return () if frame is None else counted_columns(project, frame)


def released_not_counted_for(project: Project, release: Release) -> tuple[str, ...]:
    """Released identifying columns the user left out of the risk count."""
    from deid_desktop.core.pathways.common import released_not_counted

    frame = release.tables.get(project.person_table.name)
    return () if frame is None else released_not_counted(project, frame)


def sensitive_columns_for(project: Project, release: Release) -> tuple[str, ...]:
    frame = release.tables.get(project.person_table.name)
    if frame is None:
        return ()
    names = list(project.risk.sensitive)
    names += [c.name for c in project.person_table.columns if c.role == Role.SENSITIVE]
    return tuple(dict.fromkeys(n for n in names if n in frame.columns))


def text_columns_for(project: Project, extract: Extract) -> dict[str, list[str]]:
    """Free-text-tagged columns of the extract, per table (what the scan reads)."""
    out: dict[str, list[str]] = {}
    for spec in project.tables:
        try:
            frame = extract.table(spec.name).frame
        except KeyError:
            continue
        cols = [c.name for c in spec.by_class(ColumnClass.FREE_TEXT) if c.name in frame.columns]
        if cols:
            out[spec.name] = cols
    return out


def redact_columns_for(project: Project, extract: Extract) -> dict[str, list[str]]:
    """The free-text columns set to "redact hits" (the only ones a release keeps)."""
    chosen = project.transform.free_text
    out: dict[str, list[str]] = {}
    for table, cols in text_columns_for(project, extract).items():
        keep = [c for c in cols if chosen.get(f"{table}.{c}") == FreeTextAction.REDACT]
        if keep:
            out[table] = keep
    return out
