"""Who each row belongs to: the table spec of a loaded table, person positions of every
row, the person keys, and the IDs a release gives its persons.

Vectorised (a million persons must take seconds); errors name files, columns, lines and
counts, never a key.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import InputError, ProjectError
from deid_desktop.core.facts.text import STRING, arrow_text
from deid_desktop.core.model import Extract, LoadedTable, Project, Release, TableSpec

#: Person keys shorter than this are not tested for containment in a subject ID (a key
#: of one or two characters is inside almost any code by chance).
MIN_KEY_LENGTH = 3


def spec_for(project: Project, table: LoadedTable) -> TableSpec:
    try:
        return project.table(table.name)
    except KeyError as exc:
        raise ProjectError(
            "A loaded table is not described in the project",
            file=table.path.name,
            hint="Reload the project so that every table is tagged.",
        ) from exc


def unique_keys(person_keys: pd.Series, *, column: str) -> pa.Array:
    """The person keys as text, refused if one appears twice (each person one row)."""
    keys = arrow_text(person_keys)
    distinct = pc.count_distinct(keys, mode="all").as_py()
    if distinct != len(keys):
        raise InputError(
            f"{len(keys) - distinct} person keys appear more than once in the person table",
            column=column,
            hint="Each person must have exactly one row in the person table.",
        )
    return keys


def person_positions(
    person_keys: pa.Array, event_keys: pd.Series, *, table: LoadedTable, column: str
) -> np.ndarray:
    """For each event row, the row position of its person (``person_keys`` from
    :func:`unique_keys`). An event whose person is missing is an InputError."""
    found = pc.index_in(arrow_text(event_keys), value_set=person_keys, skip_nulls=True)
    _refuse_unmatched(found.is_null().to_numpy(zero_copy_only=False), table, column)
    return found.to_numpy(zero_copy_only=False).astype(np.int64)


def _refuse_unmatched(unmatched: np.ndarray, table: LoadedTable, column: str) -> None:
    """InputError when an event row's person key is not in the person table (the
    count and the first such line, never the key)."""
    if unmatched.any():
        raise InputError(
            f"{int(unmatched.sum())} rows have a person key not found in the person table",
            file=table.path.name,
            column=column,
            row=int(np.flatnonzero(unmatched)[0]) + 2,
            hint="Every event row must belong to a person of the person table.",
        )


def all_positions(extract: Extract, project: Project) -> dict[str, np.ndarray]:
    """Table name -> person row position of each of its rows (person table: 0..n-1)."""
    person = extract.person
    key = spec_for(project, person).key
    person_keys = arrow_text(person.frame[key])
    if person_keys.null_count == 0:
        found = _positions_by_encoding(extract, project, person_keys)
        if found is not None:
            return found
    keys = unique_keys(person.frame[key], column=key)
    out = {person.name: np.arange(len(person.frame))}
    for ev in extract.events:
        ev_key = spec_for(project, ev).key
        out[ev.name] = person_positions(keys, ev.frame[ev_key], table=ev, column=ev_key)
    return out


def _positions_by_encoding(
    extract: Extract, project: Project, person_keys: pa.Array
) -> dict[str, np.ndarray] | None:
    """``all_positions`` in one hash pass: the person keys and every event key
    dictionary-encoded together. Unique person keys come first, so they are codes
    0..n-1 and an event row's code is its person's position; a code past n (or a
    missing key) is a person not found. None when the person keys repeat (the caller
    then raises the usual error)."""
    n = len(person_keys)
    events = [(ev, spec_for(project, ev).key) for ev in extract.events]
    parts = [person_keys, *(arrow_text(ev.frame[k]) for ev, k in events)]
    encoded = pa.chunked_array(parts, type=pa.large_string()).dictionary_encode()
    codes = pa.chunked_array([c.indices for c in encoded.chunks], type=pa.int32()).combine_chunks()
    if not np.array_equal(codes.slice(0, n).to_numpy(zero_copy_only=False), np.arange(n)):
        return None
    out = {extract.person.name: np.arange(n)}
    start = n
    for (ev, ev_key), part in zip(events, parts[1:], strict=True):
        found = codes.slice(start, len(part))
        start += len(part)
        positions = found.fill_null(n).to_numpy(zero_copy_only=False).astype(np.int64)
        _refuse_unmatched(positions >= n, ev, ev_key)
        out[ev.name] = positions
    return out


def person_keys(extract: Extract, project: Project) -> pd.Series:
    """The person table's key column as text."""
    return extract.person.frame[spec_for(project, extract.person).key].astype(STRING)


def released_ids(extract: Extract, release: Release) -> pd.Series | None:
    """The released person table's ID column (subject ID or link key) as text; None
    when the person table or its ID column is missing from the release."""
    person = release.tables.get(extract.person.name)
    if person is None or release.id_column not in person.columns:
        return None
    return person[release.id_column].astype(STRING)
