"""Building blocks the pathways share: what to do with each tagged column, person
positions, date parsing, ages over 89, ZIP3, free text, subject IDs, row order.

Everything here is vectorised (a million persons must take seconds) and carries no
value from the data into a message: files, columns, line numbers and counts only.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import InputError, ProjectError, UsageError
from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    Extract,
    FreeTextAction,
    LoadedTable,
    Project,
    Role,
    TableSpec,
)
from deid_desktop.core.pathways.registry import pathway_spec
from deid_desktop.core.steps import Step
from deid_desktop.core.zip3 import Zip3Table, zip3_or_000

STRING = pd.StringDtype("pyarrow")
#: Column names the pathways give to what they create.
SUBJECT_ID = "subject_id"
ZIP3_COLUMN = "zip3"
#: Ages above this are pooled (45 CFR 164.514(b)(2)(i)(C)).
MAX_AGE = 89
AGE_POOLED = "90+"
#: Person keys shorter than this are not tested for containment in a subject ID (a key
#: of one or two characters is inside almost any code by chance).
MIN_KEY_LENGTH = 3
#: Subject-ID prefixes tried in turn until no ID equals a person key.
_ID_PREFIXES = "SRTUVWXZ"


def in_set(values: pd.Series | pd.Index | np.ndarray, allowed: object) -> np.ndarray:
    """Vectorised membership test on text (a pyarrow hash set); missing -> False.

    pandas' ``isin`` on pyarrow strings walks the candidate values in Python, which
    takes seconds at a million rows; this stays in C.
    """
    if isinstance(allowed, (set, frozenset)):
        allowed = sorted(allowed)
    value_set = arrow_text(allowed)  # type: ignore[arg-type]
    found = pc.is_in(arrow_text(values), value_set=value_set, skip_nulls=True)
    return found.to_numpy(zero_copy_only=False)


# --------------------------------------------------------------------------- columns


class Treatment(StrEnum):
    """What a pathway does with one input column."""

    KEY = "key"  # replaced by the subject ID / link key
    DROP_DIRECT = "drop_direct"
    DROP_FREE_TEXT = "drop_free_text"
    DROP_UNTAGGED = "drop_untagged"
    REDACT = "redact"
    ZIP = "zip"
    DATE = "date"
    AGE = "age"
    KEEP = "keep"


def is_date_tag(tag: ColumnTag) -> bool:
    """A date about the person: DATE class, or a birth/index-date role not tagged direct."""
    if tag.cls == ColumnClass.DATE:
        return True
    return tag.role in (Role.BIRTH_DATE, Role.INDEX_DATE) and tag.cls != ColumnClass.DIRECT


def column_treatments(
    spec: TableSpec,
    columns: Iterable[str],
    *,
    free_text: Mapping[str, FreeTextAction] | None = None,
    keep_direct_roles: Sequence[Role] = (Role.ZIP,),
) -> dict[str, Treatment]:
    """The treatment of each column of a table, in the frame's column order.

    The key is replaced; a ZIP-role column is cut to ZIP3 (whatever its class);
    other direct columns go; free text goes unless ``free_text["table.column"]`` asks
    for redaction; dates and ages are transformed; quasi and clinical columns stay.
    A column without a tag is dropped (the safe side) and the caller warns.
    """
    tags = {c.name: c for c in spec.columns}
    actions = free_text or {}
    out: dict[str, Treatment] = {}
    for name in columns:
        tag = tags.get(name)
        if name == spec.key:
            out[name] = Treatment.KEY
        elif tag is None:
            out[name] = Treatment.DROP_UNTAGGED
        elif tag.role == Role.ZIP and Role.ZIP in keep_direct_roles:
            out[name] = Treatment.ZIP
        elif tag.cls == ColumnClass.DIRECT:
            out[name] = Treatment.DROP_DIRECT
        elif tag.cls == ColumnClass.FREE_TEXT:
            action = actions.get(f"{spec.name}.{name}", FreeTextAction.SUPPRESS)
            out[name] = (
                Treatment.REDACT if action == FreeTextAction.REDACT else Treatment.DROP_FREE_TEXT
            )
        elif is_date_tag(tag):
            out[name] = Treatment.DATE
        elif tag.role == Role.AGE:
            out[name] = Treatment.AGE
        else:
            out[name] = Treatment.KEEP
    return out


def spec_for(project: Project, table: LoadedTable) -> TableSpec:
    try:
        return project.table(table.name)
    except KeyError as exc:
        raise ProjectError(
            "A loaded table is not described in the project",
            file=table.path.name,
            hint="Reload the project so that every table is tagged.",
        ) from exc


def year_column_name(name: str, taken: Iterable[str]) -> str:
    """``discharge_date`` -> ``discharge_year``; ``dob`` -> ``dob_year``; unique."""
    lowered = name.lower()
    stem = name
    for suffix in ("_date", "date", "_dt"):
        if lowered.endswith(suffix) and len(name) > len(suffix):
            stem = name[: -len(suffix)].rstrip("_")
            break
    candidate = f"{stem}_year" if stem else f"{name}_year"
    used = set(taken)
    if candidate in used:
        candidate = f"{name}_year"
    while candidate in used:
        candidate += "_"
    return candidate


# --------------------------------------------------------------------------- persons


def arrow_text(values: pd.Series | pd.Index | np.ndarray | pa.Array) -> pa.Array:
    """Text values as one contiguous pyarrow large_string array (nulls kept)."""
    arr = (
        values
        if isinstance(values, pa.Array | pa.ChunkedArray)
        else pa.array(values, from_pandas=True)
    )
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    return arr.cast(pa.large_string())


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


def row_order(numbers: np.ndarray) -> np.ndarray:
    """Positions that order rows by ``numbers``, stable among equal numbers.

    A permutation of 1..n (the person table) is inverted in one pass instead of sorted.
    """
    n = len(numbers)
    if n and numbers.min() == 1 and numbers.max() == n:
        inverse = np.full(n, -1, dtype=np.int64)
        inverse[numbers - 1] = np.arange(n)
        if (inverse >= 0).all():  # every number once: the stable order is the inverse
            return inverse
    return np.argsort(numbers, kind="stable")


def take_rows(values: pd.Series, order: np.ndarray) -> pd.Series:
    """``values`` at the positions ``order``, index reset (Arrow take on one contiguous
    array for Arrow-backed columns: several times faster than pandas on 1M rows)."""
    array = values.array
    if isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow":
        arrow = pa.array(array)
        if isinstance(arrow, pa.ChunkedArray):
            arrow = arrow.combine_chunks()
        taken = pc.take(arrow, pa.array(order, type=pa.int64()))
        return pd.Series(
            values.dtype.__from_arrow__(pa.chunked_array([taken])), name=values.name, copy=False
        )
    return values.iloc[order].reset_index(drop=True)


def order_rows(frame: pd.DataFrame, numbers: np.ndarray) -> pd.DataFrame:
    """Rows ordered by the person's number, stable within a person; index reset."""
    order = row_order(np.asarray(numbers))
    if not len(frame.columns):
        return frame.iloc[order].reset_index(drop=True)
    return pd.DataFrame({c: take_rows(frame[c], order) for c in frame.columns}, copy=False)


# --------------------------------------------------------------------------- subject IDs


@dataclass(frozen=True)
class SubjectIds:
    """Random subject IDs, one per person row, and their numbers (for ordering)."""

    ids: pd.Series  # string, aligned with the person table's rows
    numbers: np.ndarray  # 1..n, a permutation
    width: int
    prefix: str
    reassigned: int  # IDs moved because they happened to contain the person's own key


def _format_ids(numbers: np.ndarray, prefix: str, width: int) -> pa.Array:
    digits = pc.utf8_lpad(pa.array(numbers).cast(pa.string()), width, "0")
    return pc.binary_join_element_wise(prefix, digits, "")


def _contains_own_key(ids: np.ndarray, keys: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    return eligible & (np.strings.find(ids, keys) >= 0)


def _equals_an_id(keys: pa.Array, prefix: str, width: int, n: int) -> bool:
    """Whether a key equals one of the IDs ``prefix`` + ``width`` zero-padded digits of
    1..n: without writing the n IDs, a key must be the prefix followed by exactly
    ``width`` digits whose number is 1..n."""
    shaped = pc.and_(pc.starts_with(keys, prefix), pc.equal(pc.utf8_length(keys), width + 1))
    digits = pc.utf8_slice_codeunits(pc.filter(keys, shaped), 1)
    digits = pc.filter(digits, pc.match_substring_regex(digits, f"^[0-9]{{{width}}}$"))
    if not len(digits):
        return False
    number = pc.cast(digits, pa.int64())
    inside = pc.and_(pc.greater_equal(number, 1), pc.less_equal(number, n))
    return bool(pc.any(inside).as_py())


def random_subject_ids(person_keys: pd.Series, seed: int) -> SubjectIds:
    """``S`` + zero-padded random number for each person, from ``seed`` only.

    Not derived from any identifier (45 CFR 164.514(c)): numbers are a seeded random
    permutation. No ID equals any person key (the prefix letter changes if one would),
    and no ID contains its own person's key (such a coincidence is swapped away).
    """
    n = len(person_keys)
    rng = np.random.default_rng(seed)
    numbers = rng.permutation(n).astype(np.int64) + 1
    width = max(4, len(str(n)))
    keys = person_keys.astype(STRING).fillna("").to_numpy(dtype=str)
    key_text = arrow_text(keys)
    prefix = next(
        (p for p in _ID_PREFIXES if not _equals_an_id(key_text, p, width, n)),
        _ID_PREFIXES[0],
    )
    eligible = np.strings.str_len(keys) >= MIN_KEY_LENGTH
    ids = np.asarray(_format_ids(numbers, prefix, width).to_numpy(zero_copy_only=False), dtype=str)
    bad = _contains_own_key(ids, keys, eligible)
    reassigned = 0
    for _ in range(50):
        offenders = np.flatnonzero(bad)
        if len(offenders) == 0 or n < 2:
            break
        for i in offenders:  # few: a random coincidence, swapped with another person
            j = int(rng.integers(0, n))
            numbers[i], numbers[j] = numbers[j], numbers[i]
            reassigned += 1
        ids = np.asarray(
            _format_ids(numbers, prefix, width).to_numpy(zero_copy_only=False), dtype=str
        )
        bad = _contains_own_key(ids, keys, eligible)
    series = pd.Series(
        pd.arrays.ArrowStringArray(_format_ids(numbers, prefix, width)),
        index=person_keys.index,
        name=SUBJECT_ID,
    )
    return SubjectIds(series, numbers, width, prefix, reassigned)


# --------------------------------------------------------------------------- dates


class DateCache:
    """Parses each date column once (core.io.dates), honouring a tag's stored format."""

    def __init__(self, extract: Extract) -> None:
        self._extract = extract
        self._cache: dict[tuple[str, str], pd.Series] = {}
        self.formats: dict[str, str] = {}  # "table.column" -> strptime format used

    def get(self, table: str, tag: ColumnTag) -> pd.Series:
        cached = self._cache.get((table, tag.name))
        if cached is not None:
            return cached
        from deid_desktop.core.io.dates import read_dates

        loaded = self._extract.table(table)
        values = loaded.frame[tag.name]
        fmt, parsed = read_dates(
            values, tag.date_format or None, file=loaded.path.name, column=tag.name
        )
        self._cache[(table, tag.name)] = parsed
        self.formats[f"{table}.{tag.name}"] = fmt
        return parsed


def year_text(dates: pd.Series) -> pd.Series:
    """The year of each date as text ("2024"); missing stays missing."""
    return dates.dt.year.astype("Int64").astype(STRING)


# --------------------------------------------------------------------------- ages


def age_numbers(values: pd.Series, *, file: str, column: str) -> pd.Series:
    """Ages as whole numbers (floored); a value that is not a number is an InputError."""
    text = pc.utf8_trim_whitespace(arrow_text(values))
    present = pc.fill_null(pc.greater(pc.utf8_length(text), 0), False)
    valid = pc.fill_null(pc.match_substring_regex(text, r"^\d+(\.\d*)?$"), False)
    bad = present.to_numpy(zero_copy_only=False) & ~valid.to_numpy(zero_copy_only=False)
    if bad.any():
        raise InputError(
            f"{int(bad.sum())} ages are not numbers of years",
            file=file,
            column=column,
            row=int(np.flatnonzero(bad)[0]) + 2,
            hint="Correct the age column, or tag it differently.",
        )
    numbers = pc.floor(pc.cast(pc.if_else(valid, text, None), pa.float64()))
    return pd.Series(
        pd.array(pc.cast(numbers, pa.int64()), dtype="Int64"), index=values.index, name=values.name
    )


def age_between(birth: pd.Series, reference: pd.Series) -> pd.Series:
    """Completed years from ``birth`` to ``reference`` (both datetime); <NA> if either is."""
    years = reference.dt.year - birth.dt.year
    before_birthday = (reference.dt.month < birth.dt.month) | (
        (reference.dt.month == birth.dt.month) & (reference.dt.day < birth.dt.day)
    )
    return (years - before_birthday.astype("Int64")).astype("Int64")


def pool_ages(numbers: pd.Series, force: np.ndarray | None = None) -> pd.Series:
    """Ages as text: above 89 (or where ``force``) -> "90+", else the whole number."""
    over = (numbers > MAX_AGE).fillna(False).to_numpy(dtype=bool)
    if force is not None:
        over = over | (force & numbers.notna().to_numpy(dtype=bool))
    text = numbers.astype(STRING)
    return text.where(~over, AGE_POOLED)


@dataclass(frozen=True)
class AgeFacts:
    """Who is over 89, and how it was decided. Arrays align with the person table."""

    over_89: np.ndarray  # bool per person row
    source: str  # plain words: where the age came from
    reference: str  # "index date 'baseline.discharge_date'", "2026-01-01", or ""
    age_columns: dict[str, str] = field(default_factory=dict)  # table -> AGE column
    age_values: dict[str, pd.Series] = field(default_factory=dict)  # table -> whole years
    birth_column: tuple[str, str] | None = None  # (table, column)
    computed: pd.Series | None = None  # age from birth date, per person row
    warnings: tuple[str, ...] = ()


def earliest_per_person(dates: pd.Series, positions: np.ndarray, n: int) -> pd.Series:
    """Per person row 0..n-1, the earliest of the dates of its rows (``positions``: each
    row's person); NaT for a person with no dated row. A group-by minimum done with
    numpy: one pass, or none when each person has exactly its own row."""
    stamps = dates.to_numpy(dtype="datetime64[ns]")
    if len(positions) == n and np.array_equal(positions, np.arange(n)):
        return pd.Series(stamps.copy(), index=pd.RangeIndex(n))
    nat = np.iinfo(np.int64).min  # NaT's integer
    values = stamps.view(np.int64)
    latest = np.iinfo(np.int64).max
    earliest = np.full(n, latest, dtype=np.int64)
    present = values != nat
    np.minimum.at(earliest, positions[present], values[present])
    earliest[earliest == latest] = nat
    return pd.Series(earliest.view("datetime64[ns]"), index=pd.RangeIndex(n))


def _find_role(extract: Extract, project: Project, role: Role) -> tuple[str, ColumnTag] | None:
    for table in extract.tables:  # the person table first
        tag = spec_for(project, table).by_role(role)
        if tag is not None and tag.name in table.frame.columns:
            return table.name, tag
    return None


def _reference_dates(
    extract: Extract,
    project: Project,
    dates: DateCache,
    positions: Mapping[str, np.ndarray],
    setting: str,
) -> tuple[pd.Series | None, str, int]:
    """Per-person reference date, a label, and how many persons had none of their own."""
    n = len(extract.person.frame)
    if setting and setting != "index":
        try:
            when = dt.date.fromisoformat(setting)
        except ValueError as exc:
            raise UsageError(
                "The age reference must be 'index' or a date written YYYY-MM-DD",
                hint="Change the Safe Harbor age reference in the project.",
            ) from exc
        return pd.Series(pd.Timestamp(when), index=range(n)), when.isoformat(), 0
    found = _find_role(extract, project, Role.INDEX_DATE)
    if found is None:
        return None, "", 0
    table, tag = found
    parsed = dates.get(table, tag)
    per_person = earliest_per_person(parsed, positions[table], n)
    missing = int(per_person.isna().sum())
    if missing and per_person.notna().any():
        per_person = per_person.fillna(per_person.max())  # the latest: the older age
    return per_person, f"index date '{table}.{tag.name}'", missing


def assess_ages(
    extract: Extract,
    project: Project,
    dates: DateCache,
    positions: Mapping[str, np.ndarray],
    reference: str = "index",
) -> AgeFacts:
    """Decide who is over 89: any AGE-role value above 89, or the age computed from
    the birth date at the reference date (per-person index date, or an ISO date)."""
    n = len(extract.person.frame)
    over = np.zeros(n, dtype=bool)
    warnings: list[str] = []
    age_columns: dict[str, str] = {}
    age_values: dict[str, pd.Series] = {}
    person_age: pd.Series | None = None
    for table in extract.tables:
        tag = spec_for(project, table).by_role(Role.AGE)
        if tag is None or tag.name not in table.frame.columns:
            continue
        age_columns[table.name] = tag.name
        numbers = age_numbers(table.frame[tag.name], file=table.path.name, column=tag.name)
        age_values[table.name] = numbers
        hit = (numbers > MAX_AGE).fillna(False).to_numpy(dtype=bool)
        over[positions[table.name][hit]] = True
        if table.name == extract.person.name:
            person_age = numbers
    birth = _find_role(extract, project, Role.BIRTH_DATE)
    computed: pd.Series | None = None
    ref_label = ""
    sources = [f"age column '{t}.{c}'" for t, c in age_columns.items()]
    if birth is not None:
        b_table, b_tag = birth
        ref, ref_label, missing_ref = _reference_dates(
            extract, project, dates, positions, reference
        )
        if ref is None:
            unknown = n
            if person_age is not None:
                born_known = dates.get(b_table, b_tag).notna().to_numpy(dtype=bool)
                has_birth = np.zeros(n, dtype=bool)
                has_birth[positions[b_table][born_known]] = True
                unknown = int((has_birth & person_age.isna().to_numpy(dtype=bool)).sum())
            if unknown:
                raise ProjectError(
                    "Ages cannot be computed: the birth date needs a reference date, and no "
                    "column is tagged as the index date"
                    + (f" ({unknown} persons have a birth date but no age)" if age_columns else ""),
                    column=b_tag.name,
                    hint="Set a fixed reference date for ages (e.g. the extract's data "
                    "cut-off date), or tag a column as the index date (e.g. discharge "
                    "date). Command line: 'deid pathway PROJECT "
                    + pathway_spec(project.pathway).cli_name
                    + " --age-reference YYYY-MM-DD', or 'deid tag PROJECT "
                    f"TABLE.COLUMN=date:index_date'. Desktop app: in {Step.PATHWAY.ref} set "
                    "'Reference date for ages' to a fixed date, or tag the index date in "
                    f"{Step.TAG.ref}.",
                )
            warnings.append(
                "Ages were not cross-checked against the birth date: no index date is "
                "tagged and no reference date is set."
            )
        else:
            parsed = dates.get(b_table, b_tag)
            born = earliest_per_person(parsed, positions[b_table], n)
            computed = age_between(born, ref.reset_index(drop=True))
            over |= (computed > MAX_AGE).fillna(False).to_numpy(dtype=bool)
            sources.append(f"birth date '{b_table}.{b_tag.name}' at the {ref_label}")
            if missing_ref:
                warnings.append(
                    f"{missing_ref} persons have no index date; their age was taken at the "
                    "latest index date in the extract."
                )
            if person_age is not None:
                gap = (person_age.reset_index(drop=True) - computed).abs()
                off = np.flatnonzero((gap > 1).fillna(False).to_numpy(dtype=bool))
                if len(off):
                    lines = ", ".join(str(i + 2) for i in off[:20])
                    more = f" and {len(off) - 20} more" if len(off) > 20 else ""
                    warnings.append(
                        f"{len(off)} persons have an age that differs by more than a year "
                        f"from the age computed from their birth date "
                        f"({extract.person.path.name} lines {lines}{more})."
                    )
    return AgeFacts(
        over_89=over,
        source="; ".join(sources) if sources else "no age or birth date column",
        reference=ref_label,
        age_columns=age_columns,
        age_values=age_values,
        birth_column=(birth[0], birth[1].name) if birth else None,
        computed=computed,
        warnings=tuple(warnings),
    )


# --------------------------------------------------------------------------- ZIP, free text


def zip3_series(values: pd.Series, table: Zip3Table) -> tuple[pd.Series, int]:
    """ZIP cut to three digits by the allow-list; and how many became "000"."""
    out = zip3_or_000(values, table).rename(ZIP3_COLUMN)
    return out, int((out == "000").sum())


@dataclass(frozen=True)
class Redaction:
    """Free-text columns kept with scan hits replaced by [KIND], and what was found."""

    columns: dict[str, dict[str, pd.Series]]  # table -> column -> redacted series
    hits: dict[str, int]  # "table.column" -> hits replaced
    notes_with_hits: dict[str, int]  # "table.column" -> notes with at least one hit


#: A scan of this extract already made by the caller (core.engine), reused by
#: ``redact_free_text`` so each free-text column is scanned once per review.
_PRESCANNED: ContextVar[Any] = ContextVar("deid_prescanned_free_text", default=None)


@contextlib.contextmanager
def prescanned(report: Any) -> Iterator[None]:
    """Within this block, ``redact_free_text`` reuses ``report`` (a ``ScanReport`` of the
    same extract, same project dictionary) for the columns it covers."""
    token = _PRESCANNED.set(report)
    try:
        yield
    finally:
        _PRESCANNED.reset(token)


def _covers(report: Any, chosen: Mapping[str, Sequence[str]]) -> bool:
    if report is None:
        return False
    scanned = {(c.table, c.column) for c in report.columns}
    return all((t, c) in scanned for t, cols in chosen.items() for c in cols)


def redact_free_text(
    extract: Extract,
    project: Project,
    columns: Mapping[str, Sequence[str]],
) -> Redaction:
    """Free-text columns with every scan hit replaced by [KIND] (core.scan).

    ``columns``: table -> column names the user chose to redact. The series returned
    align with the input rows. The scan cannot prove a note clean; the caller says so.
    Inside ``prescanned(report)`` the report's hits are used instead of a second scan.
    """
    chosen = {t: list(c) for t, c in columns.items() if c}
    if not chosen:
        return Redaction({}, {}, {})
    from deid_desktop.core import scan

    frames = {t: extract.table(t).frame for t in chosen}
    report = _PRESCANNED.get()
    if not _covers(report, chosen):
        report = scan.scan_frames(frames, chosen, scan.build_dictionary(extract, project))
    out: dict[str, dict[str, pd.Series]] = {}
    hits: dict[str, int] = {}
    notes: dict[str, int] = {}
    for table, cols in chosen.items():
        out[table] = {}
        for col in cols:
            found = report.hits_for(table, col)
            out[table][col] = scan.redact_column(frames[table][col], found)
            hits[f"{table}.{col}"] = len(found)
            notes[f"{table}.{col}"] = len({h.row for h in found})
    return Redaction(out, hits, notes)


def released_name_of(treatment: Treatment, name: str, taken: Iterable[str]) -> str | None:
    """The released name of an input column under ``treatment`` (None: not released)."""
    if treatment in (Treatment.KEEP, Treatment.AGE, Treatment.REDACT):
        return name
    if treatment == Treatment.ZIP:
        return ZIP3_COLUMN
    if treatment == Treatment.DATE:
        return year_column_name(name, taken)
    return None


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


# --------------------------------------------------------------------------- shared steps


def plan_columns(
    extract: Extract, project: Project
) -> tuple[dict[str, dict[str, Treatment]], Redaction]:
    """Table -> column -> treatment for every table (free text as the project's
    ``safe_harbor.free_text`` asks), and the columns chosen for redaction, redacted."""
    treatments = {
        t.name: column_treatments(
            spec_for(project, t), t.frame.columns, free_text=project.safe_harbor.free_text
        )
        for t in extract.tables
    }
    redacted = redact_free_text(
        extract,
        project,
        {
            name: [c for c, tr in cols.items() if tr == Treatment.REDACT]
            for name, cols in treatments.items()
        },
    )
    return treatments, redacted


def redaction_sentences(redacted: Redaction) -> list[str]:
    """One sentence per redacted free-text column, for the README and the record."""
    return [
        f"Kept free-text column {where} with {plural(count, 'scan hit')} in "
        f"{plural(redacted.notes_with_hits[where], 'note')} replaced by [KIND] (chosen by "
        "the user; a scan cannot prove a note clean)."
        for where, count in sorted(redacted.hits.items())
    ]


def subject_crosswalk(subjects: SubjectIds, person: LoadedTable, key: str) -> pd.DataFrame:
    """The held-back crosswalk (subject ID <-> person key), in subject-ID order."""
    crosswalk = pd.DataFrame(
        {
            SUBJECT_ID: subjects.ids.reset_index(drop=True),
            key: person.frame[key].reset_index(drop=True).astype(STRING),
        }
    )
    return order_rows(crosswalk, subjects.numbers)


# --------------------------------------------------------------------------- risk settings


def default_quasi_identifiers(project: Project, frame: pd.DataFrame) -> tuple[str, ...]:
    """The quasi-tagged columns of the person table as released (ZIP -> zip3 if cut)."""
    names: list[str] = []
    for tag in project.person_table.by_class(ColumnClass.QUASI):
        name = ZIP3_COLUMN if tag.role == Role.ZIP and ZIP3_COLUMN in frame.columns else tag.name
        if name in frame.columns and name not in names:
            names.append(name)
    return tuple(names)


@dataclass(frozen=True)
class RiskApplied:
    """What ``apply_risk_settings`` did; each pathway words the suppression itself."""

    suppressed: dict[str, int]  # table -> rows removed
    notes: list[str]  # age bands and ZIP3 removal, as sentences
    quasi_identifiers: tuple[str, ...] = ()  # suppression ran on these (() = it did not)
    removed: int = 0  # persons removed by the suppression
    share: float = 0.0  # their share of the person rows


def apply_risk_settings(
    tables: dict[str, pd.DataFrame],
    project: Project,
    person: str,
    id_column: str,
    *,
    released_qis_only: bool,
) -> RiskApplied:
    """The user's generalizations and suppression (``project.risk``), in place.

    Age bands on age columns, ZIP3 dropped, and persons in classes below k removed from
    the person table and, through ``id_column``, from every event table.
    ``released_qis_only``: the user's quasi-identifiers not in the released person table
    are passed over (else ``core.risk`` refuses them).
    """
    settings = project.risk
    notes: list[str] = []
    suppressed: dict[str, int] = {}
    if not (settings.age_bands or settings.drop_zip3 or settings.suppress_below_k):
        return RiskApplied(suppressed, notes)
    from deid_desktop.core import risk

    if settings.age_bands:
        for name, frame in tables.items():
            tag = project.table(name).by_role(Role.AGE)
            if tag is not None and tag.name in frame.columns:
                frame[tag.name] = risk.apply_age_bands(
                    frame[tag.name], settings.age_bands, column=tag.name
                ).astype(STRING)
                notes.append(
                    f"Grouped ages in {name}.{tag.name} into bands "
                    + ", ".join(risk.age_band_labels(settings.age_bands))
                    + "."
                )
    if settings.drop_zip3:
        for name, frame in list(tables.items()):
            if ZIP3_COLUMN in frame.columns:
                tables[name] = frame.drop(columns=[ZIP3_COLUMN])
                notes.append(f"Removed {name}.{ZIP3_COLUMN} to raise k.")
    if not settings.suppress_below_k:
        return RiskApplied(suppressed, notes)
    frame = tables[person]
    qis = tuple(settings.quasi_identifiers or default_quasi_identifiers(project, frame))
    if released_qis_only:
        qis = tuple(q for q in qis if q in frame.columns)
    if not qis:
        return RiskApplied(suppressed, notes)
    kept, removed, share = risk.suppress_below_k(frame, qis, settings.k_target)
    if removed:
        gone = frame[id_column][~frame.index.isin(kept.index)]
        tables[person] = kept.reset_index(drop=True)
        suppressed[person] = removed
        for name, other in list(tables.items()):
            if name == person:
                continue
            mask = in_set(other[id_column], gone)
            if mask.any():
                tables[name] = other.loc[~mask].reset_index(drop=True)
                suppressed[name] = int(mask.sum())
    return RiskApplied(suppressed, notes, qis, removed, share)


def removed_below_k_sentences(risk: RiskApplied, k_target: int) -> list[str]:
    """The linkable and limited-data-set sentence for persons removed below k."""
    if not risk.removed:
        return []
    return [
        f"Removed {plural(risk.removed, 'person')} ({risk.share:.1%}) in groups smaller "
        f"than k = {k_target} on {', '.join(risk.quasi_identifiers)}, with their event rows."
    ]
