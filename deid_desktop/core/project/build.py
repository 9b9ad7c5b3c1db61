"""Building a new project from loaded tables: auto-tagged, keyed, with a fresh seed."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

from deid_desktop.core.errors import InputError, UsageError
from deid_desktop.core.model import (
    LoadedTable,
    Project,
    TableSpec,
)
from deid_desktop.core.project.paths import store_path


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
    """
    An auto-tagged project over loaded tables; ``person`` names the person table.

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
    from deid_desktop.core.tagging.retag import keyed_tags  # pandas: load on use

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
