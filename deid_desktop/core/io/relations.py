"""The person table and its event tables: one row per person, every event linked."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import InputError, Problem
from deid_desktop.core.facts.text import one_array
from deid_desktop.core.model import LoadedTable


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def require_person_rows(person: LoadedTable) -> None:
    """Refuse a person table with a header but no data row: there is no one to release
    (and every event table would seem to hold no person key)."""
    if len(person.frame) == 0:
        raise InputError(
            f"The person table '{person.name}' has no rows: it holds only a header",
            file=person.report.file,
            hint="Choose the file that holds one row per person (the person table first).",
        )


def _key_column(table: LoadedTable, key: str) -> pd.Series:
    if key not in table.frame.columns:
        raise InputError(
            f"The person key column '{key}' is not in table '{table.name}'",
            file=table.report.file,
            column=key,
            hint="Choose the column that holds the person key for this table.",
        )
    return table.frame[key]


def _arrow(values: pd.Series) -> pa.Array | pa.ChunkedArray:
    """The column as Arrow (no copy for string[pyarrow]; NaN/None become null)."""
    return pa.array(values, from_pandas=True)


def _common(
    values: pa.Array | pa.ChunkedArray, value_set: pa.Array
) -> tuple[pa.Array | pa.ChunkedArray, pa.Array]:
    """Both sides of a membership test in one type (text keys of another width or kind)."""
    if values.type == value_set.type:
        return values, value_set
    return values.cast(pa.large_string()), value_set.cast(pa.large_string())


def relation_problems(
    person: LoadedTable,
    person_key: str,
    events: Sequence[tuple[LoadedTable, str]],
    positions: dict[str, np.ndarray] | None = None,
) -> list[Problem]:
    """Every relationship problem, counted (never the key values). ``positions``, when
    given and nothing is wrong, receives each table's rows as person row positions (the
    same hash pass: ``facts.persons.all_positions`` need not encode the keys again)."""
    problems: list[Problem] = []
    keys = _key_column(person, person_key)
    file = person.report.file
    missing = int(keys.isna().sum())
    if missing:
        problems.append(
            Problem(
                f"{_rows(missing)} of the person table have no person key",
                file=file,
                column=person_key,
                severity="error",
            )
        )
    event_keys = [(table, key, _key_column(table, key)) for table, key in events]
    encoded = _encode_sorted(keys, [values for _, _, values in event_keys])
    if encoded is None:
        encoded = _encode(keys, [values for _, _, values in event_keys])
    if encoded is None:
        return _problems_by_sets(problems, person, person_key, keys, event_keys)
    # One hash pass over every key (pyarrow; pandas' isin/duplicated on Arrow strings
    # build Python sets): the person keys come first, so codes 0..distinct-1 are them.
    person_codes, event_codes = encoded
    per_key = np.bincount(person_codes)
    distinct = len(per_key)
    repeated = per_key > 1
    n_keys = int(repeated.sum())
    if n_keys:
        n_rows = int(per_key[repeated].sum())
        problems.append(_repeated_problem(n_rows, n_keys, file, person_key))
    for (table, key, values), codes in zip(event_keys, event_codes, strict=True):
        absent = int(values.isna().sum())
        linked = int(((codes >= 0) & (codes < distinct)).sum())
        _event_problems(problems, table, key, person, absent, len(values) - absent - linked)
    if positions is not None and not problems and len(person_codes) == len(keys):
        # unique, present person keys: codes 0..n-1 in row order, an event's code is
        # its person's row
        positions[person.name] = np.arange(len(keys), dtype=np.int64)
        for (table, _key, _values), codes in zip(event_keys, event_codes, strict=True):
            positions[table.name] = codes.astype(np.int64)
    return problems


def _encode(
    keys: pd.Series, event_keys: Sequence[pd.Series]
) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """Dictionary codes of the present person keys and of every event key (-1 where
    missing), all encoded together as text; None if a column cannot be read as text."""
    try:
        parts = [pc.drop_null(_arrow(keys)).cast(pa.large_string())]
        parts += [_arrow(values).cast(pa.large_string()) for values in event_keys]
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    chunks = [c if isinstance(c, pa.ChunkedArray) else pa.chunked_array([c]) for c in parts]
    every = pa.chunked_array([a for c in chunks for a in c.chunks], type=pa.large_string())
    encoded = every.dictionary_encode()
    codes = pa.chunked_array([c.indices for c in encoded.chunks], type=pa.int32())
    flat = codes.combine_chunks().fill_null(-1).to_numpy(zero_copy_only=False)
    sizes = np.cumsum([0, *(len(c) for c in chunks)])
    pieces = [flat[a:b] for a, b in pairwise(sizes)]
    return pieces[0], pieces[1:]


def _fixed_width(values: pd.Series) -> np.ndarray | None:
    """The keys as a numpy array of byte strings of one width (no copy), or None when
    they are not all text of one width, or some are missing."""
    try:
        arr = _arrow(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    arr = one_array(arr)
    if (
        arr.null_count
        or len(arr) == 0
        or not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type))
    ):
        return None
    bufs = arr.buffers()
    width_type = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(bufs[1], dtype=width_type)[arr.offset : arr.offset + len(arr) + 1]
    width = int(offsets[1] - offsets[0])
    if width == 0 or not np.all(np.diff(offsets) == width):
        return None
    data = np.frombuffer(bufs[2], dtype=np.uint8)[int(offsets[0]) : int(offsets[-1])]
    return data.view(f"S{width}")


def _encode_sorted(
    keys: pd.Series, event_keys: Sequence[pd.Series]
) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """``_encode`` without hashing, for person keys of one width that rise strictly (so
    each is unique and no key is missing; an extract sorted by its key): each event
    key is binary-searched among them, once per run of equal keys (event rows grouped
    by person), as fixed-width bytes (equal widths compare as the bytes do). An event
    key not found gets -1. None when the keys are not so (the hash pass decides)."""
    person = _fixed_width(keys)
    if person is None or not bool(np.all(person[1:] > person[:-1])):
        return None
    n = len(person)
    out: list[np.ndarray] = []
    for values in event_keys:
        if len(values) == 0:
            out.append(np.empty(0, dtype=np.int64))
            continue
        found = _fixed_width(values)
        if found is None or found.dtype != person.dtype:
            return None
        if len(found) == n and np.array_equal(found, person):  # one row per person
            out.append(np.arange(n, dtype=np.int64))
            continue
        starts = np.concatenate(([0], np.flatnonzero(found[1:] != found[:-1]) + 1))
        runs = found[starts]
        at = np.minimum(np.searchsorted(person, runs), n - 1)
        codes = np.where(person[at] == runs, at, -1).astype(np.int64)
        out.append(np.repeat(codes, np.diff(np.append(starts, len(found)))))
    return np.arange(n, dtype=np.int64), out


def _repeated_problem(n_rows: int, n_keys: int, file: str, person_key: str) -> Problem:
    return Problem(
        f"{_rows(n_rows)} of the person table share a person key with "
        f"another row ({n_keys} key(s) repeated); the person table needs one row "
        "per person",
        file=file,
        column=person_key,
        severity="error",
    )


def _event_problems(
    problems: list[Problem],
    table: LoadedTable,
    key: str,
    person: LoadedTable,
    absent: int,
    unmatched: int,
) -> None:
    efile = table.report.file
    if absent:
        problems.append(
            Problem(
                f"{_rows(absent)} of table '{table.name}' have no person key",
                file=efile,
                column=key,
                severity="error",
            )
        )
    if unmatched:
        problems.append(
            Problem(
                f"{_rows(unmatched)} of table '{table.name}' have a person key that is "
                f"not in the person table ('{person.name}')",
                file=efile,
                column=key,
                severity="error",
            )
        )


def _problems_by_sets(
    problems: list[Problem],
    person: LoadedTable,
    person_key: str,
    keys: pd.Series,
    event_keys: Sequence[tuple[LoadedTable, str, pd.Series]],
) -> list[Problem]:
    """The same counts by a value count and a membership test per event table (for key
    columns that cannot be encoded together as text)."""
    file = person.report.file
    counts = pc.value_counts(pc.drop_null(_arrow(keys)))
    present = counts.field("values")
    repeated = pc.greater(counts.field("counts"), 1)
    n_keys = int(pc.sum(repeated).as_py() or 0)
    if n_keys:
        n_rows = int(pc.sum(pc.filter(counts.field("counts"), repeated)).as_py() or 0)
        problems.append(_repeated_problem(n_rows, n_keys, file, person_key))
    for table, _key, event_keys_values in event_keys:
        absent = int(event_keys_values.isna().sum())
        values, value_set = _common(_arrow(event_keys_values), present)
        # The value set holds no null, so a key-less row is never "linked": it is
        # counted above, not here.
        linked = int(pc.sum(pc.is_in(values, value_set=value_set)).as_py() or 0)
        unmatched = len(values) - values.null_count - linked
        _event_problems(problems, table, _key, person, absent, unmatched)
    return problems


def check_relations(
    person: LoadedTable, person_key: str, events: Sequence[tuple[LoadedTable, str]]
) -> dict[str, np.ndarray] | None:
    """Raise one ``InputError`` listing every problem: missing or repeated person keys,
    event rows without a key or whose key is not in the person table. Counts only.
    When the tables link up: each table's rows as person row positions, if the keys
    were encoded together as text (else None)."""
    positions: dict[str, np.ndarray] = {}
    problems = relation_problems(person, person_key, events, positions)
    if not problems:
        return positions or None
    hint = (
        "Fix the keys in the source files (or choose the right key columns) and load "
        "the extract again."
    )
    if len(problems) == 1:
        p = problems[0]
        raise InputError(p.message, file=p.file, column=p.column, hint=hint)
    lines = [f"- {p.message} (file {p.file}, column '{p.column}')" for p in problems]
    raise InputError("The tables do not link up as they should:\n" + "\n".join(lines), hint=hint)
