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
    by_words = _positions_by_words(person_keys, parts[1:])  # short keys in key order
    if by_words is not None:
        out = {extract.person.name: np.arange(n)}
        for (ev, ev_key), positions in zip(events, by_words, strict=True):
            _refuse_unmatched(positions < 0, ev, ev_key)
            out[ev.name] = positions
        return out
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


def _strictly_increasing(arr: pa.Array) -> bool:
    """Whether text values (no missing) rise strictly, byte by byte: then they are unique."""
    if len(arr) < 2:
        return True
    return bool(pc.all(pc.greater(arr.slice(1), arr.slice(0, len(arr) - 1))).as_py())


def _run_starts(arr: pa.Array) -> np.ndarray | None:
    """Where each run of equal adjacent values starts (no missing value), or None when
    runs would not shorten the column by half (then it is hashed whole)."""
    if len(arr) < 2:
        return np.arange(len(arr))
    change = pc.not_equal(arr.slice(1), arr.slice(0, len(arr) - 1))
    changes = change.true_count
    if changes + 1 > len(arr) // 2:
        return None
    return np.concatenate(([0], np.flatnonzero(change.to_numpy(zero_copy_only=False)) + 1))


def _as_words(arr: pa.Array, width: int | None = None) -> np.ndarray | None:
    """Values of one byte width of 8 or less (no missing) as big-endian 64-bit words,
    zero-padded: equal words are equal values, and words order as the bytes do. None
    when the values are not all so (or not all ``width`` bytes, when given)."""
    if arr.null_count or not len(arr):
        return None
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    first = int(offsets[1] - offsets[0])
    if width is not None and first != width:
        return None
    width = first
    if not 0 < width <= 8 or not np.all(np.diff(offsets) == width):
        return None
    data = np.frombuffer(bufs[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    padded = np.zeros((len(arr), 8), dtype=np.uint8)
    padded[:, :width] = data.reshape(len(arr), width)
    return padded.view(">u8").ravel()


def _positions_by_words(ids: pa.Array, columns: list[pa.Array]) -> list[np.ndarray] | None:
    """``positions_in`` without hashing, for IDs of one width of 8 bytes or less that
    rise strictly (a release ordered by ID): a binary search of each column's words
    among the IDs'. None when the IDs or a column are not so."""
    words = _as_words(ids)
    if words is None or not np.all(words[1:] > words[:-1]):
        return None
    width = int(pc.binary_length(ids[0]).as_py())  # every ID's width (a word each)
    out: list[np.ndarray] = []
    for col in columns:
        if len(col) == 0:
            out.append(np.empty(0, dtype=np.int64))
            continue
        same = _as_words(col, width) if len(col) == len(words) else None
        if same is not None and np.array_equal(same, words):  # one row per person
            out.append(np.arange(len(words), dtype=np.int64))
            continue
        starts = _run_starts(col) if col.null_count == 0 else None
        found = _as_words(col if starts is None else col.take(pa.array(starts)), width)
        if found is None:
            return None
        at = np.minimum(np.searchsorted(words, found), len(words) - 1)
        where = np.where(words[at] == found, at, -1).astype(np.int64)
        if starts is not None:
            where = np.repeat(where, np.diff(np.append(starts, len(col))))
        out.append(where)
    return out


def positions_in(ids: pa.Array, columns: list[pa.Array]) -> list[np.ndarray]:
    """For each cell of each column, the position in ``ids`` of the first equal value
    (-1: missing, or not among ``ids``): a hash join on distinct values, all columns in
    one pass.

    What it hashes is kept small, with the same result: a column equal to ``ids`` cell
    for cell needs no hashing (a one-row-per-person table), and a column whose equal
    values sit in runs (a release ordered by ID) is hashed once per run. Unique IDs
    that rise strictly (a release in ID order) are not deduplicated again; when they
    are also short codes of one width (``S0000001``), each column is binary-searched
    among them as 64-bit words, with no hashing at all.
    """
    ids = arrow_text(ids)
    columns = [arrow_text(c) for c in columns]
    by_words = _positions_by_words(ids, columns)
    if by_words is not None:
        return by_words
    clean = ids.null_count == 0
    if clean and _strictly_increasing(ids):
        known, position = ids, np.arange(len(ids), dtype=np.int64)
    else:
        known = pc.unique(ids.drop_null()) if len(ids) else ids
        position = (
            pc.index_in(known, value_set=ids).to_numpy(zero_copy_only=False).astype(np.int64)
            if len(known)
            else np.empty(0, dtype=np.int64)
        )
    out: list[np.ndarray | None] = [None] * len(columns)
    hashed: list[tuple[int, pa.Array, np.ndarray | None]] = []  # column, values, run starts
    for i, col in enumerate(columns):
        if (
            clean
            and col.null_count == 0
            and len(col) == len(ids)
            and len(col)
            and pc.all(pc.equal(col, ids)).as_py()
            and len(known) == len(ids)
        ):
            out[i] = position.copy()
            continue
        starts = _run_starts(col) if col.null_count == 0 else None
        if starts is None:
            hashed.append((i, col, None))
        else:
            hashed.append((i, col.take(pa.array(starts)), starts))
    if hashed:
        parts = [known, *(values for _i, values, _s in hashed)]
        encoded = pa.chunked_array(parts, type=pa.large_string()).dictionary_encode()
        codes = pa.chunked_array(
            [c.indices for c in encoded.chunks], type=pa.int32()
        ).combine_chunks()
        lookup = np.append(position, -1)
        start = len(known)
        for i, values, starts in hashed:
            found = codes.slice(start, len(values)).fill_null(len(known))
            start += len(values)
            raw = found.to_numpy(zero_copy_only=False).astype(np.int64)
            where = lookup[np.minimum(raw, len(known))]
            if starts is not None:
                where = np.repeat(where, np.diff(np.append(starts, len(columns[i]))))
            out[i] = where
    return [o if o is not None else np.empty(0, dtype=np.int64) for o in out]
