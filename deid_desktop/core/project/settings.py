"""Every release-changing decision of a project by a dotted key: `deid show` and `deid set`.

The keys are the project file's own JSON paths (``seed``, ``risk.k_target``,
``linkable.offset_days``, ``transform.free_text.TABLE.COLUMN``...), walked from the
schema, so a field added to the model is listed and settable with no edit here. Column
tags and the tables are not settings: `deid tags` and `deid tag` own them.

A value is written as text (``KEY=VALUE``): whole numbers, ``true``/``false``, an
enum's value, lists comma-separated (``0,18,65``), an empty value for an empty list,
an empty text or "none" where a field may be null. The new values are validated by the
same schema that reads project files; a bad one is a ``UsageError`` naming the key and
what is allowed, never echoing the value.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, get_args, get_origin

from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import ColumnClass, FreeTextAction, Project, TransformOptions
from deid_desktop.core.project.schema import (
    Field,
    Invalid,
    decode,
    encode,
    fields_of,
    unwrap_optional,
    whole_number,
)

__all__ = ["Change", "Setting", "apply_settings", "parse_assignment", "settings"]

SHOW_HINT = "`deid show PROJECT` lists every setting with its value."


def _free_text_columns(project: Project) -> list[str]:
    return [
        f"{t.name}.{c.name}"
        for t in project.tables
        for c in t.columns
        if c.cls is ColumnClass.FREE_TEXT
    ]


#: Object-valued fields: the entry keys a project offers, and an absent entry's value.
ENTRIES: dict[tuple[type, str], tuple[Callable[[Project], list[str]], Any]] = {
    (TransformOptions, "free_text"): (_free_text_columns, FreeTextAction.SUPPRESS.value),
}


def _census_file(text: str) -> str | None:
    """A Census population file given to `deid set`: checked, stored absolute."""
    if not text:
        return None
    from deid_desktop.core.zip3 import load_census_file

    path = Path(text).expanduser()
    load_census_file(path)  # an InputError names the file and the line
    return Path(os.path.abspath(path)).as_posix()


#: Fields whose typed text is turned into the stored value by more than parsing.
ON_SET: dict[tuple[type, str], Callable[[str], Any]] = {
    (TransformOptions, "zip3_table"): _census_file,
}


@dataclass(frozen=True)
class Setting:
    """One decision: its key, its value (JSON data) and how `deid set` takes it."""

    key: str
    value: Any
    kind: str  # what a value must be, in words
    help: str
    path: tuple[str, ...]  # the JSON path
    field: Field
    owner: type  # the dataclass holding the field
    entry: bool = False  # an entry of an object-valued field (one free-text column)

    @property
    def text(self) -> str:
        return as_text(self.value)


@dataclass(frozen=True)
class Change:
    key: str
    old: str
    new: str


def as_text(value: Any) -> str:
    """A setting's value as `deid set` takes it back."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(as_text(v) for v in value)
    return str(value)


def _kind(hint: Any, f: Field) -> str:
    inner, nullable = unwrap_optional(hint)
    orn = "; empty for none" if nullable else ""
    r = f.rule
    if isinstance(inner, type) and issubclass(inner, StrEnum):
        return "one of " + ", ".join(m.value for m in inner) + orn
    if inner is bool:
        return "true or false"
    if inner is int:
        lo = r.lo if r.edit_lo is None else r.edit_lo
        hi = r.hi if r.edit_hi is None else r.edit_hi
        if lo is not None and hi is not None and hi < 2**62:
            return f"whole number {lo}-{hi}" + orn
        return "whole number" + (f", {lo} or more" if lo is not None else "") + orn
    if get_origin(inner) is tuple:
        item = get_args(inner)[0]
        choices = r.item.choices if r.item else ()
        what = "whole numbers" if item is int else "names"
        return f"comma-separated {what}" + (f" ({', '.join(choices)})" if choices else "")
    if r.choices:
        return "one of " + ", ".join(r.choices)
    return "text" + orn


def settings(project: Project) -> list[Setting]:
    """Every settable decision of ``project``, in the schema's order."""
    out: list[Setting] = []
    _walk(Project, encode(project), (), project, out)
    return out


def _walk(
    cls: type, body: dict[str, Any], path: tuple[str, ...], project: Project, out: list[Setting]
) -> None:
    for f in fields_of(cls):
        if f.rule.internal or not f.rule.settable:
            continue
        inner, _ = unwrap_optional(f.hint)
        here = (*path, f.key)
        if dataclasses.is_dataclass(inner):
            _walk(inner, body[f.key], here, project, out)
        elif get_origin(inner) is dict:
            keys_of, absent = ENTRIES[(cls, f.attr)]
            current = body[f.key]
            value_hint = get_args(inner)[1]
            for k in sorted({*keys_of(project), *current}):
                out.append(
                    Setting(
                        ".".join((*here, k)),
                        current.get(k, absent),
                        _kind(value_hint, f),
                        f.rule.help,
                        (*here, k),
                        f,
                        cls,
                        entry=True,
                    )
                )
        else:
            out.append(
                Setting(".".join(here), body[f.key], _kind(f.hint, f), f.rule.help, here, f, cls)
            )


# ------------------------------------------------------------------------- deid set


def parse_assignment(text: str) -> tuple[str, str]:
    key, eq, value = text.partition("=")
    if not eq or not key.strip():
        raise UsageError(
            f"'{text}' is not a setting",
            hint=f"Write KEY=VALUE, e.g. seed=12345 or risk.k_target=5. {SHOW_HINT}",
        )
    return key.strip(), value.strip()


def _find(key: str, known: Sequence[Setting]) -> Setting:
    for s in known:
        if s.key == key:
            return s
    for s in known:
        stem = ".".join(s.path[:-1])
        if not s.entry and any(
            key == ".".join(filter(None, (stem, a))) for a in s.field.rule.aliases
        ):
            return s
    keys = [s.key for s in known]
    near = difflib.get_close_matches(key, keys, n=3, cutoff=0.6)
    guess = f"Did you mean {' or '.join(near)}? " if near else ""
    raise UsageError(f"There is no setting '{key}'", hint=guess + SHOW_HINT)


def _parse_value(text: str, hint: Any, setting: Setting) -> Any:
    """The JSON value for ``text``; types the schema then checks in full."""
    f = setting.field
    hook = None if setting.entry else ON_SET.get((setting.owner, f.attr))
    if hook is not None:
        return hook(text)
    inner, nullable = unwrap_optional(hint)
    if nullable and text.lower() in ("", "none", "null"):
        return None
    if inner is bool:
        low = text.lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        raise Invalid(setting.key, "must be true or false")
    if inner is int:
        value = _int(text)
        lo = f.rule.lo if f.rule.edit_lo is None else f.rule.edit_lo
        hi = f.rule.hi if f.rule.edit_hi is None else f.rule.edit_hi
        return whole_number(value, setting.key, lo, hi)
    if isinstance(inner, type) and issubclass(inner, StrEnum):
        norm = text.lower().replace("-", "_")
        return next((m.value for m in inner if m.value.lower() == norm), text)
    if get_origin(inner) is tuple:
        item = get_args(inner)[0]
        parts = [p.strip() for p in text.split(",")] if text else []
        return [_int(p) if item is int else p for p in parts]
    return text


def _int(text: str) -> Any:
    try:
        return int(text.replace(",", "").replace("_", ""))
    except ValueError:
        return text  # the schema says what a whole number must be


def _put(body: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = body
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def apply_settings(project: Project, assignments: Sequence[str]) -> tuple[Project, list[Change]]:
    """``project`` with every ``KEY=VALUE`` applied, validated as a whole; nothing is
    changed unless all are valid. ``UsageError``: an unknown key (with the nearest
    keys), a malformed assignment or a bad value (naming the key and what is allowed)."""
    body = encode(project)
    before = {s.key: s for s in settings(project)}
    known = list(before.values())
    touched: list[str] = []
    for text in assignments:
        key, raw = parse_assignment(text)
        setting = _find(key, known)
        value_hint = (
            get_args(unwrap_optional(setting.field.hint)[0])[1]
            if setting.entry
            else setting.field.hint
        )
        try:
            _put(body, setting.path, _parse_value(raw, value_hint, setting))
        except Invalid as exc:
            raise UsageError(f"{exc.path} {exc.problem}", hint=SHOW_HINT) from None
        touched.append(setting.key)
    try:
        changed: Project = decode(body, Project, "")
    except Invalid as exc:
        raise UsageError(f"{exc.path} {exc.problem}", hint=SHOW_HINT) from None
    after = {s.key: s for s in settings(changed)}
    changes = [
        Change(k, before[k].text, after[k].text) for k in dict.fromkeys(touched) if k in after
    ]
    return changed, changes
