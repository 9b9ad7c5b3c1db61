"""The project file's schema, declared once: the model's dataclass fields plus ``RULES``.

Writing and reading a project are driven by the dataclass fields of ``Project`` and of
the dataclasses it holds: a field's type hint says how its value is written to JSON and
read back (text, whole number, true/false, an enum's value, a list, an object, a nested
record, each possibly null). ``RULES`` adds, per field, only what a type cannot say: a
range, the texts allowed, a check, the JSON key when it differs from the attribute, and
whether `deid set` may change it. Adding a field to the model is one edit (plus a row
here when it needs a limit); the file, `deid show` and `deid set` follow. A field an
older file lacks needs ``Rule(optional=True)`` (its default applies) or a migration.

Every problem is an ``Invalid``: the field's path in the JSON (``risk.k_target``,
``tables[demographics].columns[mrn].class``) and what is wrong in plain words ("must be
a whole number from 1 to 1000000"). The offending value is never repeated: it may be
data pasted in the wrong place.
"""

from __future__ import annotations

import dataclasses
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from functools import cache
from typing import Any, Union, get_args, get_origin, get_type_hints

from deid_desktop.core.constants import MAX_KEY_LENGTH, MAX_OFFSET_DAYS, MIN_KEY_LENGTH
from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    ExportMeta,
    FreeTextAction,
    Generalization,
    GeneralizedColumn,
    IdentifierCategory,
    LinkableOptions,
    OffsetMode,
    Pathway,
    Project,
    RiskSettings,
    Role,
    TableSpec,
    TransformOptions,
)

__all__ = [
    "ENUM_LABELS",
    "RULES",
    "Field",
    "Invalid",
    "Rule",
    "decode",
    "encode",
    "fields_of",
    "short",
    "unwrap_optional",
    "whole_number",
]


class Invalid(Exception):
    """A value that breaks the schema: where (a JSON path) and what is wrong."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or '(top level)'} {problem}")
        self.path = path
        self.problem = problem


@dataclass(frozen=True)
class Rule:
    """What a field's type cannot say. Every part is optional."""

    json: str | None = None  # the JSON key, when it differs from the attribute name
    lo: int | None = None  # whole numbers: the smallest allowed
    hi: int | None = None  # whole numbers: the largest allowed
    choices: tuple[str, ...] = ()  # text: the values allowed
    nonempty: bool = False  # text: must hold more than spaces; list: at least one item
    check: Callable[[Any], str | None] | None = None  # a further test: a problem, or None
    item: Rule | None = None  # lists and objects: the rule of each item or value
    increasing: bool = False  # lists: strictly increasing (sorted, each once)
    unique: str = ""  # lists of records: the problem when two share a name
    optional: bool = False  # an older file may lack it: the model's default applies (a
    # None value is then not written, so a file saved without it reads as before)
    internal: bool = False  # written and read apart from the generic code; never set
    settable: bool = True  # `deid set` may change it
    edit_lo: int | None = None  # `deid set`: a tighter bound than files may hold
    edit_hi: int | None = None
    aliases: tuple[str, ...] = ()  # other names `deid set` accepts (the last path part)
    help: str = ""  # one line for `deid show`


_HEX32 = re.compile(r"[0-9a-f]{32}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _hex(pattern: re.Pattern[str], n: int) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        ok = pattern.fullmatch(value)
        return None if ok else f"must be {n} lower-case hexadecimal characters"

    return check


def _age_reference(value: Any) -> str | None:
    if value == "index":
        return None
    if _ISO_DATE.fullmatch(value):
        try:
            date.fromisoformat(value)
            return None
        except ValueError:
            pass
    return 'must be "index" or a date written YYYY-MM-DD'


def _share(value: Any) -> str | None:
    return None if 0.0 <= value <= 1.0 else "must be a share from 0 to 1 (5 % is 0.05)"


def _one_char(value: Any) -> str | None:
    return None if len(value) == 1 else "must be one character"


#: What ``deid generalize --metric`` may minimise (core.risk.loss.METRICS).
GENERALIZATION_METRICS = ("loss", "discernibility", "aecs", "entropy", "precision", "iyengar")

#: How an enum is named in a complaint ("is not a known column class; expected ...").
ENUM_LABELS: dict[type[StrEnum], str] = {
    ColumnClass: "column class",
    Role: "column role",
    IdentifierCategory: "Safe Harbor category",
    Pathway: "pathway",
    OffsetMode: "date-offset mode",
    FreeTextAction: "free-text action",
}

_TEXT = Rule(nonempty=True)

#: The per-field table: class -> attribute -> rule. Fields not listed take ``Rule()``.
RULES: dict[type, dict[str, Rule]] = {
    Project: dict(
        project_id=Rule(check=_hex(_HEX32, 32), settable=False),
        name=Rule(help="the project's name, written in the export record"),
        tables=Rule(unique="repeats another table's name", settable=False),
        pathway=Rule(help="how the release is made"),
        seed=Rule(lo=0, hi=2**63 - 1, help="draws the subject IDs: same seed, same release"),
        generalization=Rule(optional=True, settable=False),
        schema_version=Rule(internal=True),
    ),
    Generalization: dict(
        columns=Rule(nonempty=True, unique="names a column already listed"),
        k=Rule(lo=1, hi=1_000_000, optional=True),
        max_suppression=Rule(check=_share, optional=True),
        metric=Rule(choices=GENERALIZATION_METRICS, optional=True),
    ),
    GeneralizedColumn: dict(
        name=_TEXT,
        level=Rule(lo=0, hi=1000, optional=True),
        builtin=Rule(nonempty=True, optional=True),
        path=Rule(nonempty=True, optional=True),
        sha256=Rule(check=_hex(_HEX64, 64), optional=True),
        sep=Rule(check=_one_char, optional=True),
    ),
    TableSpec: dict(
        name=_TEXT,
        path=_TEXT,
        sha256=Rule(check=_hex(_HEX64, 64)),
        key=_TEXT,
        columns=Rule(unique="names a column already listed"),
        rows=Rule(lo=0),
    ),
    ColumnTag: dict(name=_TEXT, cls=Rule(json="class")),
    TransformOptions: dict(
        age_reference=Rule(
            nonempty=True,
            check=_age_reference,
            help='age at: "index" (each person\'s index date) or a date YYYY-MM-DD',
        ),
        zip3_table=Rule(help="Census ZCTA population file; none = the bundled table"),
        free_text=Rule(help="per free-text column: suppress or redact"),
        accepted_text_columns=Rule(
            optional=True,
            help="text columns (table.column) accepted after reviewing the gate's scan hits",
        ),
        redact_level=Rule(
            choices=("high", "high_medium", "all"),
            optional=True,
            help="which scan hits 'redact' replaces, by confidence (all = the safest)",
        ),
    ),
    LinkableOptions: dict(
        offset_days=Rule(lo=1, hi=MAX_OFFSET_DAYS, help="dates move by up to this many days"),
        offset_mode=Rule(help="keyed: the same shift in later extracts"),
        key_length=Rule(
            lo=8,
            hi=MAX_KEY_LENGTH,
            edit_lo=MIN_KEY_LENGTH,
            help="link key length in hex characters",
        ),
        zip_rule=Rule(choices=("zip3", "drop"), help="ZIPs in a linkable release"),
    ),
    RiskSettings: dict(
        quasi_identifiers=Rule(help="released columns measured together; empty = quasi-tagged"),
        k_target=Rule(
            lo=1, hi=1_000_000, aliases=("k",), help="the smallest group of alike records aimed at"
        ),
        sensitive=Rule(help="columns measured for l-diversity"),
        age_bands=Rule(item=Rule(lo=0), increasing=True, help="band starts in years, e.g. 0,18,65"),
        drop_zip3=Rule(help="drop ZIP3 from the release"),
        suppress_below_k=Rule(help="remove records in groups smaller than k"),
    ),
    ExportMeta: dict(
        purpose=Rule(help="why the release is made (export record)"),
        recipient=Rule(help="who receives it (export record)"),
        retention=Rule(help="how long it may be kept (export record)"),
        dua=Rule(help="data use agreement reference (limited data set)"),
        formats=Rule(item=Rule(choices=("csv", "xlsx")), nonempty=True, help="the files written"),
    ),
}


@dataclass(frozen=True)
class Field:
    """One dataclass field as the schema sees it."""

    attr: str
    key: str  # JSON key
    hint: Any  # the resolved type hint
    rule: Rule
    default: Any  # dataclasses.MISSING when the field has none


@cache
def fields_of(cls: type) -> tuple[Field, ...]:
    """The schema's view of a model dataclass, in field order."""
    hints = get_type_hints(cls)
    rules = RULES.get(cls, {})
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(rules) - names)
    if unknown:  # a stale row is a programming error: fail loudly at first use
        raise TypeError(f"RULES[{cls.__name__}] names no field {unknown[0]!r}")
    out = []
    for f in dataclasses.fields(cls):
        rule = rules.get(f.name, Rule())
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        out.append(Field(f.name, rule.json or f.name, hints[f.name], rule, default))
    return tuple(out)


def short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def unwrap_optional(hint: Any) -> tuple[Any, bool]:
    """``(inner, True)`` for ``X | None``, else ``(hint, False)``."""
    if get_origin(hint) in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) == 1 and len(get_args(hint)) == 2:
            return args[0], True
    return hint, False


# ------------------------------------------------------------------------------ encode


def encode(value: Any) -> Any:
    """A model value as plain JSON-ready data (records by their fields' JSON keys)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.key: encode(getattr(value, f.attr))
            for f in fields_of(type(value))
            if not f.rule.internal and not (f.rule.optional and getattr(value, f.attr) is None)
        }
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in sorted(value.items())}
    return value


# ------------------------------------------------------------------------------ decode


def decode(data: Any, hint: Any, path: str, rule: Rule = Rule()) -> Any:
    """Read ``data`` as a value of type ``hint``, strictly; ``Invalid`` names the path."""
    inner, nullable = unwrap_optional(hint)
    if data is None and nullable:
        return None
    orn = " or null" if nullable else ""
    if dataclasses.is_dataclass(inner):
        return _record(data, inner, path)
    if isinstance(inner, type) and issubclass(inner, StrEnum):
        choices = [m.value for m in inner]
        if not isinstance(data, str) or data not in choices:
            also = " (or null)" if nullable else ""
            label = ENUM_LABELS.get(inner, "value")
            raise Invalid(
                path, f"is not a known {label}; expected one of {', '.join(choices)}{also}"
            )
        return inner(data)
    if inner is bool:
        if not isinstance(data, bool):
            raise Invalid(path, f"must be true or false{orn}")
        return data
    if inner is int:
        return whole_number(data, path, rule.lo, rule.hi, orn)
    if inner is float:
        if not isinstance(data, int | float) or isinstance(data, bool) or data != data:
            raise Invalid(path, f"must be a number{orn}")
        if rule.check is not None and (problem := rule.check(data)):
            raise Invalid(path, problem)
        return float(data)
    if inner is str:
        return _text(data, path, rule, orn)
    origin = get_origin(inner)
    if origin is tuple:
        return _list(data, get_args(inner)[0], path, rule)
    if origin is dict:
        return _object(data, get_args(inner)[1], path, rule)
    raise TypeError(f"the project schema cannot read {inner!r} at {path}")  # programming error


def whole_number(data: Any, path: str, lo: int | None, hi: int | None, orn: str = "") -> int:
    if lo is None and hi is None:
        rng = ""
    elif hi is None:
        rng = f", {lo} or more"
    else:
        rng = f" from {lo} to {hi}"
    if not isinstance(data, int) or isinstance(data, bool):
        raise Invalid(path, f"must be a whole number{rng}{orn}")
    if (lo is not None and data < lo) or (hi is not None and data > hi):
        raise Invalid(path, f"must be a whole number{rng}")
    return data


def _text(data: Any, path: str, rule: Rule, orn: str = "") -> str:
    if not isinstance(data, str):
        raise Invalid(path, f"must be text{orn}")
    if rule.nonempty and not data.strip():
        raise Invalid(path, "must not be empty")
    if rule.choices and data not in rule.choices:
        raise Invalid(path, f"must be one of {', '.join(rule.choices)}")
    if rule.check is not None and (problem := rule.check(data)):
        raise Invalid(path, problem)
    return data


def _label(item: Any, index: int) -> str:
    name = item.get("name") if isinstance(item, dict) else None
    return short(name) if isinstance(name, str) and name else str(index)


def _list(data: Any, hint: Any, path: str, rule: Rule) -> tuple[Any, ...]:
    if not isinstance(data, list):
        raise Invalid(path, "must be a list")
    records = dataclasses.is_dataclass(hint)
    item_rule = rule.item or Rule()
    out = []
    seen: set[Any] = set()
    for i, item in enumerate(data):
        where = f"{path}[{_label(item, i) if records else i}]"
        value = decode(item, hint, where, item_rule)
        if rule.unique:
            if value.name in seen:
                raise Invalid(f"{path}[{_label(item, i)}].name", rule.unique)
            seen.add(value.name)
        out.append(value)
    if rule.nonempty and not out:
        raise Invalid(path, "must list at least one item")
    if rule.increasing and out != sorted(set(out)):
        raise Invalid(path, "must list its values in increasing order, each once")
    return tuple(out)


def _object(data: Any, hint: Any, path: str, rule: Rule) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise Invalid(path, "must be a JSON object")
    item_rule = rule.item or Rule()
    return {k: decode(v, hint, _at(path, short(str(k))), item_rule) for k, v in data.items()}


def _record(data: Any, cls: type, path: str) -> Any:
    if not isinstance(data, dict):
        raise Invalid(path, "must be a JSON object")
    fields = [f for f in fields_of(cls) if not f.rule.internal]
    extra = sorted(set(data) - {f.key for f in fields})
    if extra:
        raise Invalid(_at(path, short(str(extra[0]))), "is not a known field")
    values = {}
    for f in fields:
        if f.key not in data:
            if f.rule.optional and f.default is not dataclasses.MISSING:
                continue
            raise Invalid(_at(path, f.key), "is missing")
        values[f.attr] = decode(data[f.key], f.hint, _at(path, f.key), f.rule)
    obj = cls(**values)
    for check in CHECKS.get(cls, ()):
        check(obj, path)
    return obj


# --------------------------------------------------------------- checks across fields


def _column_check(tag: ColumnTag, path: str) -> None:
    if tag.category is not None and tag.cls is not ColumnClass.DIRECT:
        raise Invalid(
            _at(path, "category"), "is only allowed for direct identifiers; set it to null"
        )


def _table_check(spec: TableSpec, path: str) -> None:
    if spec.key not in {c.name for c in spec.columns}:
        raise Invalid(_at(path, "key"), "must name one of the table's columns")


def _generalized_check(column: GeneralizedColumn, path: str) -> None:
    if (column.builtin is None) == (column.path is None):
        raise Invalid(path, "must name either a built-in hierarchy or a hierarchy file")
    if column.path is not None and column.sha256 is None:
        raise Invalid(_at(path, "sha256"), "is missing for the hierarchy file")


def _project_check(project: Project, path: str) -> None:
    persons = sum(t.is_person for t in project.tables)
    if persons != 1:
        raise Invalid(
            _at(path, "tables"),
            f"must hold exactly one person table (is_person true); it holds {persons}",
        )


#: Rules that read more than one field, run once a record is built.
CHECKS: dict[type, tuple[Callable[[Any, str], None], ...]] = {
    ColumnTag: (_column_check,),
    TableSpec: (_table_check,),
    GeneralizedColumn: (_generalized_check,),
    Project: (_project_check,),
}
