"""`deid demo`, `deid init`, `deid tags`, `deid tag`: make and tag a project, headless.

- ``deid demo --out DIR [--rows N] [--seed S]`` writes the synthetic demo extract and
  its ready project.
- ``deid init EXTRACT [EVENT_TABLES...] -o PROJECT [--key COL] [--key TABLE=COL ...]
  [--sheet S] [--name N]`` loads the person table and the event tables, finds each event
  table's person-key column, checks how they link and writes an auto-tagged project.
- ``deid tags PROJECT [--json]`` prints every column's tag.
- ``deid tag PROJECT COLUMN=CLASS[/CATEGORY][:ROLE] ...`` changes tags and re-saves.
- ``deid repoint PROJECT TABLE FILE`` points a table at a moved or updated input file.

Output names tables, columns and counts - never a value from the data.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deid_desktop.cli.output import print_json, warn_problems
from deid_desktop.core.errors import InputError, UsageError, did_you_mean
from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    IdentifierCategory,
    LoadedTable,
    Project,
    Role,
    TableSpec,
)
from deid_desktop.core.project import load_project, new_project, save_project, tag_to_dict

TAG_SYNTAX = "COLUMN=CLASS[/CATEGORY][:ROLE]"
_CLASSES = [c.value for c in ColumnClass]
_ROLES = [r.value for r in Role]
_CATEGORIES = [c.value for c in IdentifierCategory]


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    demo = subparsers.add_parser(
        "demo",
        help="write the synthetic demo extract and its ready project",
        description="Write a synthetic heart-failure trial extract (demographics.csv, "
        "baseline.csv, visits.csv) and its ready project demo.deid.json into DIR. "
        "The same --rows and --seed always give byte-identical files.",
    )
    demo.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    demo.add_argument("--rows", type=int, default=2432, metavar="N", help="persons (2432)")
    demo.add_argument("--seed", type=int, default=20260423, metavar="S", help="random seed")
    demo.set_defaults(func=run_demo)

    init = subparsers.add_parser(
        "init",
        help="make an auto-tagged project from an extract",
        description="Load the person table (EXTRACT: one row per person) and any event "
        "tables (several rows per person), find the person-key column of each event table, "
        "check that every event row links to a person, suggest a tag for every column, and "
        "save the project. Review the tags with `deid tags` and correct them with "
        "`deid tag`. Tables may name the key differently: e.g. Synthea's patients.csv has "
        "Id and its event tables PATIENT, found on their own or given as "
        "`--key Id --key encounters=PATIENT`.",
    )
    init.add_argument("extract", type=Path, metavar="EXTRACT", help="person table (CSV/XLSX)")
    init.add_argument(
        "events", type=Path, nargs="*", metavar="EVENT_TABLES", help="event tables (CSV/XLSX)"
    )
    init.add_argument(
        "-o", "--out", type=Path, required=True, metavar="PROJECT", help="project file to write"
    )
    init.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="COL|TABLE=COL",
        help="--key COL: the person table's key column (default: the column suggested as "
        "the person key). --key TABLE=COL (repeatable): the column of event table TABLE "
        "(its file name without the extension, e.g. encounters=PATIENT) that holds the "
        "person key. Without it, an event table's key is the column with the same name as "
        "the person table's key, else the one named like a person key (PATIENT, "
        "patient_id, subject...), else the one column whose values are the person keys; "
        "a found column needs 99%% of its filled values among the person keys",
    )
    init.add_argument(
        "--sheet",
        action="append",
        default=[],
        metavar="S",
        help="worksheet to read from XLSX inputs; FILE=S picks it for one input "
        "(repeatable; default: the first sheet)",
    )
    init.add_argument("--name", default="", metavar="N", help="project name (default: EXTRACT's)")
    init.add_argument("--force", action="store_true", help="replace an existing project file")
    init.set_defaults(func=run_init)

    tags = subparsers.add_parser(
        "tags",
        help="list every column's tag",
        description="List every column of every table with its class, role, Safe Harbor "
        "category, whether the suggestion was unsure, and the evidence for it.",
    )
    tags.add_argument("project", type=Path, metavar="PROJECT", help="the project file")
    tags.add_argument("--json", action="store_true", help="machine-readable output")
    tags.set_defaults(func=run_tags)

    tag = subparsers.add_parser(
        "tag",
        help="change column tags",
        description=f"Change tags and re-save the project. Each change is {TAG_SYNTAX}; "
        "a bare COLUMN applies to every table that has it, TABLE.COLUMN to one table. "
        f"CLASS: {', '.join(_CLASSES)}. CATEGORY (direct only): the Safe Harbor letter "
        f"A-R. ROLE: {', '.join(_ROLES)}, or none to remove it; without :ROLE the role "
        "stays. Examples: mrn=direct/H  age=quasi:age  notes=free_text  "
        "visits.visit_day=clinical. All changes are checked before any is saved.",
    )
    tag.add_argument("project", type=Path, metavar="PROJECT", help="the project file")
    tag.add_argument("changes", nargs="+", metavar=TAG_SYNTAX, help="tag changes")
    tag.set_defaults(func=run_tag)

    repoint = subparsers.add_parser(
        "repoint",
        help="point a table at a moved or updated input file",
        description="Point TABLE at FILE (an input that moved, or a new version of it): "
        "records the file's SHA-256, keeps the tags of columns still there, drops those of "
        "columns gone and suggests tags for new columns (review them with `deid tags`).",
    )
    repoint.add_argument("project", type=Path, metavar="PROJECT", help="the project file")
    repoint.add_argument("table", metavar="TABLE", help="the table's name in the project")
    repoint.add_argument("file", type=Path, metavar="FILE", help="the table's input file")
    repoint.set_defaults(func=run_repoint)


# ----------------------------------------------------------------------------- deid demo


def run_demo(args: argparse.Namespace) -> int:
    from deid_desktop.core.demo import TABLE_FILES, write_demo

    out: Path = args.out
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder", hint="Choose a folder.")
    try:
        project_path = write_demo(out, rows=args.rows, seed=args.seed)
    except OSError as exc:
        raise UsageError(
            f"Could not write the demo into {out} ({exc.strerror or type(exc).__name__})",
            hint="Choose a folder you may write to.",
        ) from None
    print(f"Wrote the demo extract ({args.rows:,} persons, seed {args.seed}) to {out}:")
    for file in TABLE_FILES.values():
        print(f"  {file}")
    print(f"  {project_path.name}  (the ready project)")
    print(f"Next: deid tags {project_path}")
    return 0


# ----------------------------------------------------------------------------- deid init


def _sheets(args: argparse.Namespace, inputs: Sequence[Path]) -> list[str | None]:
    """The sheet for each input, in order.

    ``--sheet FILE=S`` picks S for FILE (for a workbook given twice, the first such option
    goes to its first occurrence, the next to the second...); a bare ``--sheet S`` applies
    to every other XLSX input.
    """
    default: str | None = None
    chosen: list[str | None] = [None] * len(inputs)
    for value in args.sheet:
        file, eq, sheet = value.rpartition("=")
        slots = [i for i, p in enumerate(inputs) if str(p) == file and chosen[i] is None]
        if eq and slots:
            chosen[slots[0]] = sheet
        elif eq and any(str(p) == file for p in inputs):
            raise UsageError(f"More --sheet options name {file} than it appears as an input")
        elif default is None:
            default = value
        else:
            raise UsageError(
                "--sheet was given twice without naming a file",
                hint="Use --sheet FILE=SHEET to choose a sheet for one input.",
            )
    return [
        c if c is not None else (default if p.suffix.lower() in (".xlsx", ".xlsm") else None)
        for p, c in zip(inputs, chosen, strict=True)
    ]


def _table_names(inputs: Sequence[Path], sheets: Sequence[str | None]) -> list[str]:
    stems = [p.stem for p in inputs]
    names = [
        str(sheet) if stems.count(stem) > 1 and sheet else stem
        for stem, sheet in zip(stems, sheets, strict=True)
    ]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(
            f"Two inputs would both be named '{dupes[0]}'",
            hint="Give the files different names (or read different sheets of one workbook "
            "with --sheet FILE=SHEET).",
        )
    return names


def _suggested_key(person: LoadedTable) -> str:
    from deid_desktop.core.tagging import suggest_tags

    for tag in suggest_tags(person.frame, table=person.name, is_person=True):
        if tag.role is Role.PERSON_KEY:
            return tag.name
    raise UsageError(
        f"No column of {person.path.name} looks like a person key",
        hint=f"Name it with --key; the columns are: {_listing(person.frame.columns)}.",
    )


def _listing(names: Sequence[Any], limit: int = 30) -> str:
    shown = [str(n) for n in list(names)[:limit]]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" ... and {more} more" if more > 0 else "")


def _parse_keys(
    values: Sequence[str], tables: Sequence[LoadedTable], inputs: Sequence[Path]
) -> tuple[str | None, dict[str, str]]:
    """``--key COL`` (the person table's key) and ``--key TABLE=COL`` (an event table's).

    TABLE is the table's name (its file name without the extension, or its sheet) or the
    input as given on the command line.
    """
    person = tables[0].name
    names = [t.name for t in tables]
    aliases = {str(p): t.name for p, t in zip(inputs, tables, strict=True)}
    aliases.update({p.name: t.name for p, t in zip(inputs, tables, strict=True)})
    aliases.update({n: n for n in names})
    person_key: str | None = None
    event_keys: dict[str, str] = {}
    for value in values:
        table, eq, column = value.partition("=")
        if not eq:
            table, column = person, value
        if not table or not column:
            raise UsageError(
                f"'--key {value}' names no column",
                hint="Write --key COL for the person table, --key TABLE=COL for an event table.",
            )
        name = aliases.get(table)
        if name is None:
            raise UsageError(
                f"'--key {value}' names no input table '{table}'",
                hint=f"The tables are: {_listing(names)} (write --key TABLE=COL).",
            )
        if name == person:
            if person_key is not None and person_key != column:
                raise UsageError(
                    f"--key was given twice for the person table {tables[0].path.name}",
                    hint="Give the person table's key once; event tables as --key TABLE=COL.",
                )
            person_key = column
        elif event_keys.setdefault(name, column) != column:
            raise UsageError(
                f"--key was given twice for table '{name}'", hint="Give each table's key once."
            )
    return person_key, event_keys


def _key_reason(spec: TableSpec) -> str:
    """How an event table's key was found, from the key column's evidence."""
    note = next(
        (e for e in reversed(spec.column(spec.key).evidence) if e.startswith("person key:")),
        "",
    )
    return f"person key: {spec.key} ({note.removeprefix('person key: ') or 'chosen'})"


def run_init(args: argparse.Namespace) -> int:
    from deid_desktop.core.io import read_table
    from deid_desktop.core.io.relations import require_person_rows

    out: Path = args.out
    inputs: list[Path] = [args.extract, *args.events]
    if out.exists() and not args.force:
        raise UsageError(
            f"The project file {out} already exists",
            hint="Choose another name, or add --force to replace it.",
        )
    if not out.parent.is_dir():
        raise UsageError(f"The folder for {out} does not exist", hint="Create it first.")
    for p in inputs:
        if not p.is_file():
            raise InputError("The input file was not found", file=str(p), hint="Check the path.")
        if os.path.abspath(p) == os.path.abspath(out):
            raise UsageError(f"The project file {out} would overwrite an input")
    if len({os.path.abspath(p) for p in inputs}) < len(inputs) and not args.sheet:
        absolute = [os.path.abspath(p) for p in inputs]
        twice = next(p for i, p in enumerate(inputs) if absolute[i] in absolute[:i])
        raise UsageError(
            f"The same input file is given twice: {twice.name}",
            hint="Give each table's file once (the person table first, then event tables).",
        )

    sheets = _sheets(args, inputs)
    names = _table_names(inputs, sheets)
    tables = [
        read_table(p, name=n, sheet=sh) for p, n, sh in zip(inputs, names, sheets, strict=True)
    ]
    person = tables[0]
    require_person_rows(person)
    person_key, event_keys = _parse_keys(args.key, tables, inputs)
    key = person_key or _suggested_key(person)
    if key not in person.frame.columns:
        raise UsageError(
            f"--key {key} is not a column of {person.path.name}",
            hint=f"The columns are: {_listing(person.frame.columns)}.",
        )
    project = new_project(
        tables,
        person=person.name,
        key=key,
        project_path=out,
        name=args.name or person.name,
        keys=event_keys,
    )
    save_project(project, out)

    print(f"Wrote {out} (person key: {key})")
    for spec, loaded in zip(project.tables, tables, strict=True):
        kind = "person table" if spec.is_person else "event table"
        counts = Counter(c.cls.value for c in spec.columns)
        summary = ", ".join(f"{counts[c]} {c}" for c in _CLASSES if counts[c])
        print(f"  {spec.name}: {kind}, {len(loaded.frame):,} rows; {summary}")
        if not spec.is_person:
            print(f"    {_key_reason(spec)}")
        for w in loaded.report.warnings:
            print(f"    warning: {w}")
    unsure = [f"{t.name}.{c.name}" for t in project.tables for c in t.columns if c.unsure]
    if unsure:
        print(f"Unsure, check these: {_listing(unsure)}")
    print(f"Next: deid tags {out}   then   deid tag {out} {TAG_SYNTAX} ...")
    return 0


# ----------------------------------------------------------------------------- deid tags


def _tag_dict(tag: ColumnTag) -> dict[str, Any]:
    """The project file's fields of a tag but its date format (not in `deid tags --json`)."""
    out = tag_to_dict(tag)
    del out["date_format"]
    return out


def tags_json(project: Project) -> dict[str, Any]:
    """The stable `deid tags --json` document."""
    return {
        "project": project.name,
        "tables": [
            {
                "name": t.name,
                "path": t.path,
                "key": t.key,
                "is_person": t.is_person,
                "columns": [_tag_dict(c) for c in t.columns],
            }
            for t in project.tables
        ],
    }


def _table_text(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for r in rows:
        cells = [c.ljust(w) for c, w in zip(r, widths, strict=False)] + [r[-1]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _warn_inputs(project: Project, project_path: Path) -> None:
    """Say on stderr what changed about the inputs (moved, changed, columns lost/new)."""
    from deid_desktop.core.project import check_inputs

    warn_problems(check_inputs(project, project_path))


def run_tags(args: argparse.Namespace) -> int:
    project = load_project(args.project)
    _warn_inputs(project, args.project)
    if args.json:
        print_json(tags_json(project))
        return 0
    print(f"Project: {project.name} (pathway: {project.pathway.value})")
    for t in project.tables:
        kind = "person table" if t.is_person else "event table"
        print(f"  {t.name}: {kind}, key {t.key}, file {t.path}")
    rows = [["TABLE", "COLUMN", "CLASS", "ROLE", "CATEGORY", "UNSURE", "EVIDENCE"]]
    for t in project.tables:
        for c in t.columns:
            rows.append(
                [
                    t.name,
                    c.name,
                    c.cls.value,
                    c.role.value if c.role else "-",
                    c.category.value if c.category else "-",
                    "unsure" if c.unsure else "-",
                    "; ".join(c.evidence) or "-",
                ]
            )
    print()
    print(_table_text(rows))
    return 0


# ------------------------------------------------------------------------------ deid tag


@dataclass(frozen=True)
class TagChange:
    """One parsed ``COLUMN=CLASS[/CATEGORY][:ROLE]``.

    ``set_role`` False keeps the column's role; True sets ``role`` (None removes it).
    """

    table: str | None
    column: str
    cls: ColumnClass
    category: IdentifierCategory | None
    set_role: bool
    role: Role | None


def _choice(value: str, choices: list[str], what: str, change: str) -> str:
    v = value.strip().upper() if what == "category" else value.strip().lower().replace("-", "_")
    if v not in choices:
        raise UsageError(
            f"Unknown {what} '{value}' in '{change}'",
            hint=f"Choose one of: {', '.join(choices)}. Syntax: {TAG_SYNTAX}.",
        )
    return v


def parse_change(text: str, project: Project) -> tuple[TagChange, list[TableSpec]]:
    """Parse one change and find the tables it applies to."""
    lhs, eq, rhs = text.rpartition("=")
    if not eq or not lhs or not rhs:
        raise UsageError(f"'{text}' is not a tag change", hint=f"Syntax: {TAG_SYNTAX}.")
    spec_part, colon, role_part = rhs.partition(":")
    cls_part, slash, cat_part = spec_part.partition("/")
    cls = ColumnClass(_choice(cls_part, _CLASSES, "class", text))
    category = None
    if slash:
        if cls is not ColumnClass.DIRECT:
            raise UsageError(
                f"A Safe Harbor category is only for direct identifiers ('{text}')",
                hint="Write CLASS/CATEGORY only with direct, e.g. mrn=direct/H.",
            )
        category = IdentifierCategory(_choice(cat_part, _CATEGORIES, "category", text))
    role: Role | None = None
    if colon:
        r = _choice(role_part, [*_ROLES, "none"], "role", text)
        role = None if r == "none" else Role(r)
    parsed = (cls, category, bool(colon), role)

    table_name, dot, column = lhs.partition(".")
    names = [t.name for t in project.tables]
    if (
        dot
        and table_name in names
        and column in [c.name for c in project.table(table_name).columns]
    ):
        return TagChange(table_name, column, *parsed), [project.table(table_name)]
    targets = [t for t in project.tables if lhs in [c.name for c in t.columns]]
    if not targets:
        if dot and table_name in names:
            cols = [c.name for c in project.table(table_name).columns]
            raise UsageError(
                f"Table '{table_name}' has no column '{column}'",
                hint=f"{did_you_mean(column, cols)}Its columns are: {_listing(cols)}.",
            )
        every = [f"{t.name}.{c.name}" for t in project.tables for c in t.columns]
        names_only = [c.name for t in project.tables for c in t.columns]
        raise UsageError(
            f"No table has a column '{lhs}'",
            hint=f"{did_you_mean(lhs, [*names_only, *every])}"
            f"The columns are: {_listing(every, 60)}.",
        )
    return TagChange(None, lhs, *parsed), targets


def _describe(tag: ColumnTag) -> str:
    text = tag.cls.value
    if tag.category:
        text += f"/{tag.category.value}"
    if tag.role:
        text += f":{tag.role.value}"
    return text


def apply_change(spec: TableSpec, change: TagChange) -> TableSpec:
    """The table with the change made, under core's re-tag rule (``core.tagging.retag``):
    the person key stays a direct identifier with its role unless another column is
    given the person-key role, which makes that column the key."""
    from deid_desktop.core.tagging.retag import KEEP, retag

    return retag(
        spec,
        change.column,
        cls=change.cls,
        role=change.role if change.set_role else KEEP,
        category=change.category or KEEP,
    )


def run_tag(args: argparse.Namespace) -> int:
    project = load_project(args.project)
    lines = []
    for text in args.changes:  # every change is checked before anything is saved
        change, targets = parse_change(text, project)
        for spec in targets:
            spec = project.table(spec.name)
            old = spec.column(change.column)
            changed = apply_change(spec, change)
            project = project.with_table(changed)
            new = changed.column(change.column)
            note = "" if _describe(old) != _describe(new) else " (unchanged)"
            lines.append(
                f"  {spec.name}.{change.column}: {_describe(old)} -> {_describe(new)}{note}"
            )
            if changed.key != spec.key:
                lines.append(f"  {spec.name}: person key is now {changed.key} (was {spec.key})")
    save_project(project, args.project)
    print(f"Saved {args.project}:")
    print("\n".join(lines))
    return 0


# --------------------------------------------------------------------------- deid repoint


def run_repoint(args: argparse.Namespace) -> int:
    from deid_desktop.core.project import repoint_table

    project = load_project(args.project)
    names = [t.name for t in project.tables]
    if args.table not in names:
        raise UsageError(
            f"The project has no table '{args.table}'", hint=f"Its tables are: {_listing(names)}."
        )
    if not args.file.is_file():
        raise InputError(
            "The input file was not found", file=str(args.file), hint="Check the path."
        )
    old = project.table(args.table)
    fixed = repoint_table(project, args.table, args.file, args.project)
    new = fixed.table(args.table)
    save_project(fixed, args.project)
    before, after = [c.name for c in old.columns], [c.name for c in new.columns]
    print(f"Saved {args.project}: table {args.table} now reads {new.path}")
    print(f"  {sum(c in after for c in before)} column(s) kept with their tags")
    if gone := [c for c in before if c not in after]:
        print(f"  tags dropped (column gone): {_listing(gone)}")
    if added := [c for c in after if c not in before]:
        print(f"  new, tags suggested (check them): {_listing(added)}")
    return 0


__all__ = [
    "TAG_SYNTAX",
    "TagChange",
    "apply_change",
    "parse_change",
    "register",
    "run_repoint",
    "tags_json",
]
