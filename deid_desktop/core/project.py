"""Project files: every choice that changes a release, saved as versioned JSON.

A project file holds input paths (relative to the project file when the input sits in
the project's folder or below it, absolute otherwise; POSIX separators), each input's
SHA-256, the tables and how they link (each table's person-key column; exactly one
person table), every column's tag, the pathway and its parameters, the risk settings,
the seed and the export metadata. It never holds a data value or the salt.

The file carries ``schema_version`` (older files are migrated in memory by
``MIGRATIONS``, oldest first) and ``content_sha256``, the SHA-256 of the canonical JSON
of everything else, so a file changed outside deid-desktop is refused with a plain
message instead of being trusted silently. Every problem with a project file is a
``ProjectError`` naming the file and the field; never a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, NoReturn

from deid_desktop.core.atomic import atomic_write_bytes
from deid_desktop.core.errors import InputError, Problem, ProjectError, UsageError
from deid_desktop.core.model import (
    SCHEMA_VERSION,
    ColumnClass,
    ColumnTag,
    ExportMeta,
    FreeTextAction,
    IdentifierCategory,
    LinkableOptions,
    LoadedTable,
    OffsetMode,
    Pathway,
    Project,
    RiskSettings,
    Role,
    SafeHarborOptions,
    TableSpec,
)

__all__ = [
    "FORMAT",
    "MIGRATIONS",
    "PROJECT_SUFFIX",
    "SCHEMA_VERSION",
    "InputProblem",
    "check_inputs",
    "content_sha256",
    "load_project",
    "new_project",
    "project_from_dict",
    "project_from_json",
    "project_to_dict",
    "project_to_json",
    "rebase_paths",
    "repoint_table",
    "resolve_path",
    "save_project",
    "store_path",
    "tag_to_dict",
]

#: The suffix the app offers for project files, e.g. ``trial.deid.json``.
PROJECT_SUFFIX = ".deid.json"
#: Marks a JSON file as a deid-desktop project.
FORMAT = "deid-desktop project"
#: Larger than any real project; refuse anything bigger before parsing it.
MAX_PROJECT_BYTES = 20 * 1024 * 1024

_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX32 = re.compile(r"[0-9a-f]{32}")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_EXPORT_FORMATS = ("csv", "xlsx")
_ZIP_RULES = ("zip3", "drop")

_REBUILD_HINT = (
    "Restore the project from a trusted copy, or build a fresh one with `deid init` "
    "(or New project in the app) and tag the columns again."
)
_TAMPER_HINT = (
    "deid-desktop refuses a project edited by hand, because a changed tag could release "
    "an identifier. Make changes in the app or with `deid tag`, which re-stamp the file. "
    "Restore the project from a trusted copy, or build a fresh one with `deid init` "
    "(or New project in the app) and tag the columns again."
)


# --------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------


def store_path(input_path: Path, project_path: Path) -> str:
    """How an input path is written into the project file.

    Relative to the project file's folder (POSIX separators) when the input is in that
    folder or below it, so the folder can be moved or copied whole; absolute otherwise,
    so the project file can be moved on its own.
    """
    target = Path(os.path.abspath(input_path))
    base = Path(os.path.abspath(project_path)).parent
    try:
        rel = target.relative_to(base)
    except ValueError:
        return target.as_posix()
    return PurePosixPath(*rel.parts).as_posix()


def _is_absolute(stored: str) -> bool:
    return PurePosixPath(stored).is_absolute() or PureWindowsPath(stored).is_absolute()


def resolve_path(project_path: Path, stored: str) -> Path:
    """The real location of an input stored in the project at ``project_path``."""
    if _is_absolute(stored):
        return Path(stored)
    return Path(os.path.abspath(project_path)).parent.joinpath(*PurePosixPath(stored).parts)


def rebase_paths(project: Project, old_project_path: Path, new_project_path: Path) -> Project:
    """The project with its input paths re-stored for a new project file location
    ("Save As"): each input still points at the same file."""
    tables = tuple(
        replace(t, path=store_path(resolve_path(old_project_path, t.path), new_project_path))
        for t in project.tables
    )
    return replace(project, tables=tables)


# --------------------------------------------------------------------------------------
# Project -> dict / JSON
# --------------------------------------------------------------------------------------


def tag_to_dict(tag: ColumnTag) -> dict[str, Any]:
    """One column's tag as plain JSON-ready data (as stored in the project file)."""
    return {
        "name": tag.name,
        "class": tag.cls.value,
        "role": tag.role.value if tag.role else None,
        "category": tag.category.value if tag.category else None,
        "unsure": tag.unsure,
        "evidence": list(tag.evidence),
        "date_format": tag.date_format,
    }


def _table_to_dict(spec: TableSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "path": spec.path,
        "sha256": spec.sha256,
        "key": spec.key,
        "is_person": spec.is_person,
        "sheet": spec.sheet,
        "rows": spec.rows,
        "columns": [tag_to_dict(c) for c in spec.columns],
    }


def project_to_dict(project: Project) -> dict[str, Any]:
    """The project as plain JSON-ready data (without the integrity field)."""
    sh, ln, rk, ex = project.safe_harbor, project.linkable, project.risk, project.export
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "project_id": project.project_id,
        "name": project.name,
        "pathway": project.pathway.value,
        "seed": project.seed,
        "tables": [_table_to_dict(t) for t in project.tables],
        "safe_harbor": {
            "age_reference": sh.age_reference,
            "zip3_table": sh.zip3_table,
            "free_text": {k: v.value for k, v in sorted(sh.free_text.items())},
        },
        "linkable": {
            "offset_days": ln.offset_days,
            "offset_mode": ln.offset_mode.value,
            "key_length": ln.key_length,
            "zip_rule": ln.zip_rule,
        },
        "risk": {
            "quasi_identifiers": list(rk.quasi_identifiers),
            "k_target": rk.k_target,
            "sensitive": list(rk.sensitive),
            "age_bands": list(rk.age_bands),
            "drop_zip3": rk.drop_zip3,
            "suppress_below_k": rk.suppress_below_k,
        },
        "export": {
            "purpose": ex.purpose,
            "recipient": ex.recipient,
            "retention": ex.retention,
            "dua": ex.dua,
            "formats": list(ex.formats),
        },
    }


def _canonical(body: Mapping[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def content_sha256(body: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a project body (every field but this one)."""
    rest = {k: v for k, v in body.items() if k != "content_sha256"}
    return hashlib.sha256(_canonical(rest)).hexdigest()


def project_to_json(project: Project) -> str:
    """The text of a project file: sorted keys, two-space indent, integrity field."""
    body = project_to_dict(project)
    project_from_dict(body)  # never write a file this version could not read back
    body["content_sha256"] = content_sha256(body)
    return json.dumps(body, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------------------
# Migrations
# --------------------------------------------------------------------------------------


def _migrate_0_to_1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0, the pre-release draft layout, to version 1.

    Version 0 had no ``format`` marker and no integrity field, named a column's class
    ``tag``, kept ``quasi_identifiers`` and ``k_target`` at the top level, and had no
    pathway option blocks (their defaults apply).
    """
    out = {k: v for k, v in data.items() if k not in ("quasi_identifiers", "k_target")}
    out["format"] = FORMAT
    out["schema_version"] = 1
    tables = data.get("tables")
    if isinstance(tables, list):
        new_tables = []
        for t in tables:
            if isinstance(t, dict):
                t = dict(t)
                t.setdefault("sheet", None)
                t.setdefault("rows", None)
                cols = t.get("columns")
                if isinstance(cols, list):
                    t["columns"] = [_migrate_column_0(c) for c in cols]
            new_tables.append(t)
        out["tables"] = new_tables
    defaults = project_to_dict(Project(project_id="0" * 32, name="", tables=()))
    for block in ("safe_harbor", "linkable", "export"):
        out.setdefault(block, defaults[block])
    risk = dict(defaults["risk"])
    if "quasi_identifiers" in data:
        risk["quasi_identifiers"] = data["quasi_identifiers"]
    if "k_target" in data:
        risk["k_target"] = data["k_target"]
    out.setdefault("risk", risk)
    return out


def _migrate_column_0(col: Any) -> Any:
    if not isinstance(col, dict):
        return col
    c = dict(col)
    if "tag" in c and "class" not in c:
        c["class"] = c.pop("tag")
    c.setdefault("role", None)
    c.setdefault("category", None)
    c.setdefault("unsure", False)
    c.setdefault("evidence", [])
    c.setdefault("date_format", None)
    return c


#: ``MIGRATIONS[v]`` turns a version-``v`` project body into version ``v + 1``.
#: Applied in order from the file's version up to ``SCHEMA_VERSION``.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {0: _migrate_0_to_1}


def _migrate(data: dict[str, Any], version: int, file: str | None) -> dict[str, Any]:
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            _fail(file, f"uses project format version {version}, which this version cannot read")
        data = step(data)
        version = data["schema_version"]
    return data


# --------------------------------------------------------------------------------------
# dict -> Project (strict)
# --------------------------------------------------------------------------------------


def _fail(file: str | None, problem: str, hint: str = _REBUILD_HINT) -> NoReturn:
    raise ProjectError(f"The project file {problem}", file=file, hint=hint)


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Fields:
    """Reads one JSON object strictly; every complaint names the field's path."""

    def __init__(self, data: Any, where: str, file: str | None) -> None:
        self.where = where
        self.file = file
        if not isinstance(data, dict):
            self.fail(where, "must be a JSON object")
        self.data: dict[str, Any] = data

    def fail(self, where: str, problem: str) -> NoReturn:
        _fail(self.file, f"is not valid: field {where or '(top level)'} {problem}")

    def at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def only(self, allowed: Sequence[str]) -> None:
        extra = sorted(set(self.data) - set(allowed))
        if extra:
            self.fail(self.at(_short(str(extra[0]))), "is not a known field")

    def get(self, key: str) -> Any:
        if key not in self.data:
            self.fail(self.at(key), "is missing")
        return self.data[key]

    def str_(self, key: str, *, empty: bool = True, nullable: bool = False) -> Any:
        v = self.get(key)
        if v is None and nullable:
            return None
        if not isinstance(v, str):
            self.fail(self.at(key), "must be text" + (" or null" if nullable else ""))
        if not empty and not v.strip():
            self.fail(self.at(key), "must not be empty")
        return v

    def int_(
        self, key: str, *, lo: int | None = None, hi: int | None = None, nullable: bool = False
    ) -> Any:
        v = self.get(key)
        if v is None and nullable:
            return None
        if not isinstance(v, int) or isinstance(v, bool):
            self.fail(self.at(key), "must be a whole number" + (" or null" if nullable else ""))
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = f"from {lo}" if hi is None else f"from {lo} to {hi}"
            self.fail(self.at(key), f"must be {rng}")
        return v

    def bool_(self, key: str) -> bool:
        v = self.get(key)
        if not isinstance(v, bool):
            self.fail(self.at(key), "must be true or false")
        return v

    def enum(self, key: str, kind: type, label: str, *, nullable: bool = False) -> Any:
        v = self.get(key)
        if v is None and nullable:
            return None
        choices = [m.value for m in kind]
        if not isinstance(v, str) or v not in choices:
            also = " (or null)" if nullable else ""
            self.fail(
                self.at(key), f"is not a known {label}; expected one of {', '.join(choices)}{also}"
            )
        return kind(v)

    def list_(self, key: str) -> list[Any]:
        v = self.get(key)
        if not isinstance(v, list):
            self.fail(self.at(key), "must be a list")
        return v

    def str_list(self, key: str) -> tuple[str, ...]:
        items = self.list_(key)
        for i, item in enumerate(items):
            if not isinstance(item, str):
                self.fail(f"{self.at(key)}[{i}]", "must be text")
        return tuple(items)


def _label(value: Any, index: int) -> str:
    return _short(value) if isinstance(value, str) and value else str(index)


_COLUMN_FIELDS = ("name", "class", "role", "category", "unsure", "evidence", "date_format")
_TABLE_FIELDS = ("name", "path", "sha256", "key", "is_person", "sheet", "rows", "columns")
_RISK_FIELDS = (
    "quasi_identifiers",
    "k_target",
    "sensitive",
    "age_bands",
    "drop_zip3",
    "suppress_below_k",
)
_TOP_FIELDS = (
    "format",
    "schema_version",
    "content_sha256",
    "project_id",
    "name",
    "pathway",
    "seed",
    "tables",
    "safe_harbor",
    "linkable",
    "risk",
    "export",
)


def _column_from(data: Any, where: str, file: str | None) -> ColumnTag:
    f = _Fields(data, where, file)
    f.only(_COLUMN_FIELDS)
    name = f.str_("name", empty=False)
    cls = f.enum("class", ColumnClass, "column class")
    role = f.enum("role", Role, "column role", nullable=True)
    category = f.enum("category", IdentifierCategory, "Safe Harbor category", nullable=True)
    if category is not None and cls is not ColumnClass.DIRECT:
        f.fail(f.at("category"), "is only allowed for direct identifiers; set it to null")
    return ColumnTag(
        name=name,
        cls=cls,
        role=role,
        category=category,
        unsure=f.bool_("unsure"),
        evidence=f.str_list("evidence"),
        date_format=f.str_("date_format", nullable=True),
    )


def _table_from(data: Any, where: str, file: str | None) -> TableSpec:
    f = _Fields(data, where, file)
    f.only(_TABLE_FIELDS)
    name = f.str_("name", empty=False)
    sha = f.str_("sha256")
    if not _HEX64.fullmatch(sha):
        f.fail(f.at("sha256"), "must be 64 lower-case hexadecimal characters")
    raw_cols = f.list_("columns")
    cols: list[ColumnTag] = []
    seen: set[str] = set()
    for i, c in enumerate(raw_cols):
        cname = c.get("name") if isinstance(c, dict) else None
        tag = _column_from(c, f"{f.at('columns')}[{_label(cname, i)}]", file)
        if tag.name in seen:
            f.fail(f"{f.at('columns')}[{_label(tag.name, i)}]", "names a column already listed")
        seen.add(tag.name)
        cols.append(tag)
    key = f.str_("key", empty=False)
    if key not in seen:
        f.fail(f.at("key"), "must name one of the table's columns")
    return TableSpec(
        name=name,
        path=f.str_("path", empty=False),
        sha256=sha,
        key=key,
        is_person=f.bool_("is_person"),
        columns=tuple(cols),
        sheet=f.str_("sheet", nullable=True),
        rows=f.int_("rows", lo=0, nullable=True),
    )


def _is_iso_date(text: str) -> bool:
    if not _ISO_DATE.fullmatch(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _safe_harbor_from(data: Any, file: str | None) -> SafeHarborOptions:
    f = _Fields(data, "safe_harbor", file)
    f.only(("age_reference", "zip3_table", "free_text"))
    ref = f.str_("age_reference", empty=False)
    if ref != "index" and not _is_iso_date(ref):
        f.fail(f.at("age_reference"), 'must be "index" or a date written YYYY-MM-DD')
    ft = _Fields(f.get("free_text"), f.at("free_text"), file)
    choices = [m.value for m in FreeTextAction]
    actions: dict[str, FreeTextAction] = {}
    for col, action in ft.data.items():
        if not isinstance(action, str) or action not in choices:
            ft.fail(ft.at(_short(col)), f"must be one of {', '.join(choices)}")
        actions[col] = FreeTextAction(action)
    return SafeHarborOptions(
        age_reference=ref, zip3_table=f.str_("zip3_table", nullable=True), free_text=actions
    )


def _linkable_from(data: Any, file: str | None) -> LinkableOptions:
    f = _Fields(data, "linkable", file)
    f.only(("offset_days", "offset_mode", "key_length", "zip_rule"))
    zip_rule = f.str_("zip_rule")
    if zip_rule not in _ZIP_RULES:
        f.fail(f.at("zip_rule"), f"must be one of {', '.join(_ZIP_RULES)}")
    return LinkableOptions(
        offset_days=f.int_("offset_days", lo=1, hi=3650),
        offset_mode=f.enum("offset_mode", OffsetMode, "date-offset mode"),
        key_length=f.int_("key_length", lo=8, hi=64),
        zip_rule=zip_rule,
    )


def _risk_from(data: Any, file: str | None) -> RiskSettings:
    f = _Fields(data, "risk", file)
    f.only(_RISK_FIELDS)
    bands = f.list_("age_bands")
    for i, b in enumerate(bands):
        if not isinstance(b, int) or isinstance(b, bool) or b < 0:
            f.fail(f"{f.at('age_bands')}[{i}]", "must be a whole number of years, 0 or more")
    if list(bands) != sorted(set(bands)):
        f.fail(f.at("age_bands"), "must list band starts in increasing order, each once")
    return RiskSettings(
        quasi_identifiers=f.str_list("quasi_identifiers"),
        k_target=f.int_("k_target", lo=1, hi=1_000_000),
        sensitive=f.str_list("sensitive"),
        age_bands=tuple(bands),
        drop_zip3=f.bool_("drop_zip3"),
        suppress_below_k=f.bool_("suppress_below_k"),
    )


def _export_from(data: Any, file: str | None) -> ExportMeta:
    f = _Fields(data, "export", file)
    f.only(("purpose", "recipient", "retention", "dua", "formats"))
    formats = f.str_list("formats")
    for i, fmt in enumerate(formats):
        if fmt not in _EXPORT_FORMATS:
            f.fail(f"{f.at('formats')}[{i}]", f"must be one of {', '.join(_EXPORT_FORMATS)}")
    if not formats:
        f.fail(f.at("formats"), "must list at least one format")
    return ExportMeta(
        purpose=f.str_("purpose"),
        recipient=f.str_("recipient"),
        retention=f.str_("retention"),
        dua=f.str_("dua"),
        formats=formats,
    )


def _version_of(data: Any, file: str | None) -> int:
    if not isinstance(data, dict):
        _fail(file, "is not a deid-desktop project (it does not hold a JSON object)")
    if "schema_version" not in data:
        _fail(file, "is not a deid-desktop project (it has no schema_version)")
    v = data["schema_version"]
    if not isinstance(v, int) or isinstance(v, bool):
        _fail(file, "is not valid: field schema_version must be a whole number")
    if v > SCHEMA_VERSION:
        _fail(
            file,
            f"was made by a newer version of deid-desktop (project format {v}; "
            f"this version reads up to {SCHEMA_VERSION})",
            hint="Open it with the newer version of deid-desktop that saved it.",
        )
    if v < 0:
        _fail(file, "is not valid: field schema_version must be 0 or more")
    return v


def project_from_dict(data: Any, *, file: str | None = None) -> Project:
    """Validate (strictly) and build a project from its JSON data.

    Older versions are migrated first. If the data carries ``content_sha256`` it must
    match. Every problem is a ``ProjectError`` naming the field; ``file`` names the
    file in the message.
    """
    version = _version_of(data, file)
    if "content_sha256" in data and data["content_sha256"] != content_sha256(data):
        _fail(file, "was changed outside deid-desktop", hint=_TAMPER_HINT)
    data = _migrate({k: v for k, v in data.items() if k != "content_sha256"}, version, file)

    f = _Fields(data, "", file)
    f.only(_TOP_FIELDS)
    if f.get("format") != FORMAT:
        _fail(file, "is not a deid-desktop project (its format field is not recognised)")
    pid = f.str_("project_id")
    if not _HEX32.fullmatch(pid):
        f.fail("project_id", "must be 32 lower-case hexadecimal characters")

    tables: list[TableSpec] = []
    names: set[str] = set()
    for i, t in enumerate(f.list_("tables")):
        tname = t.get("name") if isinstance(t, dict) else None
        spec = _table_from(t, f"tables[{_label(tname, i)}]", file)
        if spec.name in names:
            f.fail(f"tables[{_label(spec.name, i)}].name", "repeats another table's name")
        names.add(spec.name)
        tables.append(spec)
    persons = sum(t.is_person for t in tables)
    if persons != 1:
        f.fail(
            "tables",
            f"must hold exactly one person table (is_person true); it holds {persons}",
        )

    seed = f.int_("seed", lo=0, hi=2**63 - 1)
    return Project(
        project_id=pid,
        name=f.str_("name"),
        tables=tuple(tables),
        pathway=f.enum("pathway", Pathway, "pathway"),
        seed=seed,
        safe_harbor=_safe_harbor_from(f.get("safe_harbor"), file),
        linkable=_linkable_from(f.get("linkable"), file),
        risk=_risk_from(f.get("risk"), file),
        export=_export_from(f.get("export"), file),
        schema_version=SCHEMA_VERSION,
    )


def project_from_json(text: str, *, file: str | None = None, trust_edits: bool = False) -> Project:
    """Parse a project file's text. The integrity field is required from version 1 on
    unless ``trust_edits`` (the app may offer that after asking the user)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProjectError(
            f"The project file is not valid JSON: {exc.msg} at character {exc.colno}",
            file=file,
            row=exc.lineno,
            hint=_REBUILD_HINT,
        ) from None
    except RecursionError:
        _fail(file, "is not valid: it is nested too deeply")
    version = _version_of(data, file)
    if trust_edits:
        data = {k: v for k, v in data.items() if k != "content_sha256"}
    elif version >= 1 and "content_sha256" not in data:
        _fail(file, "has no integrity field (content_sha256)", hint=_TAMPER_HINT)
    return project_from_dict(data, file=file)


# --------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------


def save_project(project: Project, path: Path) -> None:
    """Save atomically. Refuses (``ProjectError``) a project it could not load back."""
    path = Path(path)
    text = project_to_json(project)
    if not path.parent.is_dir():
        raise ProjectError(
            "The folder for the project file does not exist",
            file=str(path),
            hint="Choose an existing folder.",
        )
    try:
        atomic_write_bytes(path, text.encode("utf-8"))
    except OSError as exc:
        raise ProjectError(
            f"The project file could not be written ({exc.strerror or type(exc).__name__})",
            file=str(path),
            hint="Check that the folder is writable and the disk is not full.",
        ) from None


def load_project(path: Path, *, trust_edits: bool = False) -> Project:
    """Read and validate a project file. Every problem is a ``ProjectError``."""
    path = Path(path)
    name = str(path)
    try:
        size = path.stat().st_size
        if path.is_dir():
            raise IsADirectoryError
        if size > MAX_PROJECT_BYTES:
            _fail(name, "is far too large to be a deid-desktop project")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ProjectError(
            "The project file was not found", file=name, hint="Check the path and try again."
        ) from None
    except IsADirectoryError:
        raise ProjectError(
            "The project path is a folder, not a project file",
            file=name,
            hint="Give the path of the .deid.json file.",
        ) from None
    except OSError as exc:
        raise ProjectError(
            f"The project file could not be read ({exc.strerror or type(exc).__name__})",
            file=name,
            hint="Check that the file exists and you may read it.",
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        _fail(name, "is not UTF-8 text, so it is not a deid-desktop project")
    return project_from_json(text, file=name, trust_edits=trust_edits)


# --------------------------------------------------------------------------------------
# Building a project from loaded tables
# --------------------------------------------------------------------------------------


def _check_chosen_keys(
    keys: Mapping[str, str], names: Sequence[str], *, person: str, key: str
) -> None:
    unknown = [t for t in keys if t not in names]
    if unknown:
        raise UsageError(
            f"A key column was chosen for table '{unknown[0]}', which is not an input table",
            hint=f"Name one of the tables: {', '.join(names)} (as TABLE=COLUMN).",
        )
    if person in keys and keys[person] != key:
        raise UsageError(
            f"Two key columns were given for the person table '{person}' "
            f"('{key}' and '{keys[person]}')",
            hint="Give the person table's key once.",
        )


def new_seed() -> int:
    """A fresh random seed for a new project (below 2**31, so every front end can show it).

    Subject IDs are drawn from the seed: a public default would let anyone who knows the
    input order rebuild the crosswalk (45 CFR 164.514(c)(2)). The demo keeps a fixed seed.
    """
    return secrets.randbelow(2**31)


def new_project(
    tables: Sequence[LoadedTable],
    *,
    person: str,
    key: str,
    project_path: Path,
    name: str = "",
    keys: Mapping[str, str] | None = None,
) -> Project:
    """An auto-tagged project over loaded tables; ``person`` names the person table.

    ``key`` is the person table's key column. Each event table's key column is, in order:
    ``keys[table]`` when given, a column named ``key``, the column the tagger suggests as
    the person key, or the one column whose values are the person keys (rules 2-4 need at
    least 99% of the column's filled values to be person keys; see ``core.event_keys``).
    No column, or several, is a ``UsageError`` naming the table and the candidates.
    Whichever column is chosen is tagged a direct identifier with the person_key role.
    Relations are then checked with each table's own key (duplicate or unmatched keys are
    an ``InputError`` with counts).
    """
    from deid_desktop.core.event_keys import person_key_set, resolve_event_key
    from deid_desktop.core.io import check_relations
    from deid_desktop.core.tagging import suggest_tags
    from deid_desktop.core.tagging.retag import keyed_tags

    chosen = dict(keys or {})
    names = [t.name for t in tables]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(
            f"Two input tables are both named '{dupes[0]}'",
            hint="Give each table its own name (rename a file, or choose another sheet).",
        )
    if person not in names:
        raise InputError(
            f"There is no input table named '{person}' to use as the person table",
            hint=f"Choose one of: {', '.join(names)}.",
        )
    _check_chosen_keys(chosen, names, person=person, key=key)
    person_table = next(t for t in tables if t.name == person)
    if key not in person_table.frame.columns:
        raise InputError(
            f"The person table '{person}' has no column '{key}' to use as the person key",
            file=person_table.path.name,
            column=key,
            hint="Choose one of its columns as the person key.",
        )
    events = [t for t in tables if t.name != person]
    tags = {
        t.name: suggest_tags(t.frame, table=t.name, is_person=t is person_table)
        for t in [person_table, *events]
    }
    person_keys = None  # built once, only when some event table's key must be found
    evidence = {person: "chosen as the person key"}
    event_keys: dict[str, str] = {}
    for t in events:
        if t.name not in chosen and person_keys is None:
            person_keys = person_key_set(person_table, key)
        choice = resolve_event_key(
            t,
            tags[t.name],
            person=person_table,
            person_key=key,
            keys=person_keys,
            chosen=chosen.get(t.name),
        )
        event_keys[t.name] = choice.column
        evidence[t.name] = choice.evidence
    check_relations(person_table, key, [(t, event_keys[t.name]) for t in events])

    specs = []
    for t in [person_table, *events]:
        is_person = t is person_table
        table_key = key if is_person else event_keys[t.name]
        specs.append(
            TableSpec(
                name=t.name,
                path=store_path(t.path, project_path),
                sha256=t.sha256,
                key=table_key,
                is_person=is_person,
                columns=keyed_tags(tags[t.name], table_key, evidence[t.name]),
                sheet=t.report.sheet,
                rows=len(t.frame),
            )
        )
    return Project(
        project_id=uuid.uuid4().hex,
        name=name or person,
        tables=tuple(specs),
        seed=new_seed(),
    )


# --------------------------------------------------------------------------------------
# Checking and re-pointing inputs
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InputProblem(Problem):
    """A problem with one table's input, saying which table and what kind.

    ``kind``: "missing" (file not found: re-point it), "changed" (SHA-256 differs),
    "unreadable", "column_lost" (a tagged column is gone: re-point or re-tag),
    "column_new" (an untagged column appeared: tag it).
    """

    table: str = ""
    kind: str = ""


def _header(spec: TableSpec, path: Path) -> list[str]:
    from deid_desktop.core.io import read_table

    return [str(c) for c in read_table(path, name=spec.name, sheet=spec.sheet).frame.columns]


def _column_problems(spec: TableSpec, columns: Sequence[str], shown: str) -> list[InputProblem]:
    def problem(column: str, says: str, severity: str, kind: str) -> InputProblem:
        return InputProblem(
            f"Column '{column}' of table '{spec.name}' {says}",
            file=shown,
            column=column,
            severity=severity,
            table=spec.name,
            kind=kind,
        )

    tagged = [c.name for c in spec.columns]
    present, known = set(columns), set(tagged)
    lost = [
        problem(c, "is no longer in its input file.", "error", "column_lost")
        for c in tagged
        if c not in present
    ]
    new = [
        problem(c, "is new and not tagged yet.", "warning", "column_new")
        for c in columns
        if c not in known
    ]
    return lost + new


def check_inputs(project: Project, project_path: Path) -> list[InputProblem]:
    """What changed in the inputs since the project was saved.

    Each table's file must exist and have the recorded SHA-256; when the hash differs
    the file's header is read to report columns lost (errors) and new columns left
    untagged (warnings). Nothing is reported for an unchanged input.
    """
    from deid_desktop.core.io import sha256_file

    problems: list[InputProblem] = []
    for spec in project.tables:
        path = resolve_path(project_path, spec.path)
        shown = str(path)
        if not path.is_file():
            problems.append(
                InputProblem(
                    f"The input of table '{spec.name}' was not found; it may have been moved "
                    "or renamed. Re-point the table to the file's new place.",
                    file=shown,
                    severity="error",
                    table=spec.name,
                    kind="missing",
                )
            )
            continue
        try:
            digest = sha256_file(path)
        except (InputError, OSError):
            digest = None
        if digest == spec.sha256:
            continue
        if digest is None:
            problems.append(
                InputProblem(
                    f"The input of table '{spec.name}' could not be read.",
                    file=shown,
                    severity="error",
                    table=spec.name,
                    kind="unreadable",
                )
            )
            continue
        problems.append(
            InputProblem(
                f"The input of table '{spec.name}' changed since the project was saved "
                "(its SHA-256 differs). Check the tags, then re-point the table to accept "
                "the new file.",
                file=shown,
                severity="error",
                table=spec.name,
                kind="changed",
            )
        )
        try:
            columns = _header(spec, path)
        except InputError as exc:
            problems.append(
                InputProblem(
                    f"The changed input of table '{spec.name}' cannot be read: {exc.message}",
                    file=shown,
                    severity="error",
                    table=spec.name,
                    kind="unreadable",
                )
            )
            continue
        problems.extend(_column_problems(spec, columns, shown))
    return problems


def repoint_table(project: Project, table: str, new_path: Path, project_path: Path) -> Project:
    """The project with ``table`` reading ``new_path``: path and SHA-256 updated, tags
    kept for columns still present, tags dropped for columns gone, new columns
    auto-tagged (marked by their evidence). The key column must still be there."""
    from deid_desktop.core.io import read_table
    from deid_desktop.core.tagging import suggest_tags

    try:
        spec = project.table(table)
    except KeyError:
        raise InputError(f"The project has no table named '{table}'") from None
    new_path = Path(new_path)
    loaded = read_table(new_path, name=spec.name, sheet=spec.sheet)
    columns = [str(c) for c in loaded.frame.columns]
    if spec.key not in columns:
        raise InputError(
            f"The new file for table '{table}' has no person-key column '{spec.key}'",
            file=new_path.name,
            column=spec.key,
            hint="Choose the file that holds this table, with its person-key column.",
        )
    old = {c.name: c for c in spec.columns}
    new_names = [c for c in columns if c not in old]
    suggested: dict[str, ColumnTag] = {}
    if new_names:
        tags = suggest_tags(loaded.frame[new_names], table=spec.name, is_person=spec.is_person)
        suggested = {
            t.name: replace(
                t,
                role=None if t.role is Role.PERSON_KEY else t.role,
                evidence=(*t.evidence, "new column: suggested, please check"),
            )
            for t in tags
        }
    tags_out = tuple(old[c] if c in old else suggested[c] for c in columns)
    new_spec = replace(
        spec,
        path=store_path(new_path, project_path),
        sha256=loaded.sha256,
        columns=tags_out,
        rows=len(loaded.frame),
    )
    return project.with_table(new_spec)
