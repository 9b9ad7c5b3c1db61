"""The verification gate: structural checks declared as data, all run, none skipped.

Each check is a small function ``(extract, release, project, context) -> Finding``
registered with its id, name, rule reference and severity. ``verify_release`` runs
every check that applies to the release's pathway and collects the outcomes; export
refuses to write anything when a blocking check failed. Outcomes carry counts and
column names, never a value from the data.

A pathway module may add its own checks by exporting ``CHECKS`` (a tuple of
:class:`Check`); :func:`checks_for` picks them up.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from pathlib import Path

import ahocorasick
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import DeidError
from deid_desktop.core.model import (
    ColumnClass,
    Extract,
    IdentifierCategory,
    Pathway,
    Project,
    Release,
    Role,
)
from deid_desktop.core.pathways.common import (
    AGE_POOLED,
    MAX_AGE,
    MIN_KEY_LENGTH,
    STRING,
    ZIP3_COLUMN,
    DateCache,
    all_positions,
    arrow_text,
    assess_ages,
    in_set,
    spec_for,
)
from deid_desktop.core.zip3 import ZIP3_UNKNOWN, Zip3Table, load_table_for

BLOCKING = "blocking"
WARNING = "warning"
ALL_PATHWAYS = frozenset(Pathway)
SAFE_HARBOR = frozenset({Pathway.SAFE_HARBOR})

#: Direct values shorter than this are not searched for (they match by chance).
MIN_VALUE_LENGTH = 3
#: Values made only of digits need this many to be searched (shorter ones are study
#: numbers, counts and measurements that coincide with clinical values and years).
MIN_NUMBER_LENGTH = 6
#: Direct values of these categories (names, places) are searched as whole words.
WORD_CATEGORIES = frozenset({IdentifierCategory.A, IdentifierCategory.B})
#: Other values shorter than this are searched as whole words too (a 3-letter code is
#: inside many ordinary words); longer ones as substrings.
MIN_SUBSTRING_LENGTH = 6
#: A cell that is exactly a name and is shared by at least this many rows of its
#: column is a category label (e.g. race "White"), not a leaked name.
CATEGORY_ROWS = 20

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# Digit boundaries are written (?:^|\D) / (?:\D|$), not \b, so that a date glued to
# a letter still counts ("2024-03-03T10:15", "03Mar2024"); RE2 has no look-arounds.
_SEP = r"[\s\-/.,]*"
_FULL_DATE = (
    r"(?i)(?:"
    r"(?:^|\D)(?:1[89]|20)\d{2}[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])(?:\D|$)"
    r"|(?:^|\D)(?:0?[1-9]|[12]\d|3[01])[-/](?:0?[1-9]|[12]\d|3[01])[-/](?:\d{4}|\d{2})(?:\D|$)"
    r"|(?:^|\D)(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|1[0-2])\.(?:1[89]|20)\d{2}(?:\D|$)"
    r"|(?:^|\D)(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:\D|$)"
    rf"|(?:^|\D)\d{{1,2}}(?:st|nd|rd|th)?{_SEP}{_MONTH}{_SEP}\d{{4}}(?:\D|$)"
    rf"|\b{_MONTH}{_SEP}\d{{1,2}}(?:st|nd|rd|th)?{_SEP}\d{{4}}(?:\D|$)"
    rf"|(?:^|\D)(?:1[89]|20)\d{{2}}{_SEP}{_MONTH}{_SEP}(?:0?[1-9]|[12]\d|3[01])(?:\D|$)"
    r")"
)
_ZIP5_ANYWHERE = r"\d{5}"
#: Identifiers recognised by their shape wherever they sit in a cell (a relative's phone
#: in a note tagged clinical is in no direct column): SSN, US phone written with
#: separators, e-mail, URL, IPv4 address.
_IDENTIFIER_SHAPES: dict[str, str] = {
    "ssn": r"(?:^|\D)\d{3}-\d{2}-\d{4}(?:\D|$)",
    "phone": r"(?:^|\D)(?:\+?1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}(?:\D|$)",
    "email": r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
    "url": r"(?i)(?:https?://|www\.)[^\s]",
    "ip": r"(?:^|[^\d.])(?:\d{1,3}\.){3}\d{1,3}(?:[^\d.]|$)",
}
_TOP_CODE = re.compile(r"^\s*(\d+)\s*\+\s*$")
_YEARISH_NAME = re.compile(r"year|date|dob|birth|_yr$|^yr_", re.IGNORECASE)


# --------------------------------------------------------------------------- the nouns


@dataclass(frozen=True)
class Finding:
    """What a check function returns: passed, how many offending cells/rows/items, and
    a detail dict of counts and column names (never values)."""

    passed: bool
    count: int = 0
    detail: dict[str, object] = field(default_factory=dict)


@dataclass
class VerifyContext:
    """What checks share: folders to compare, the ZIP3 table, parsed dates."""

    extract: Extract
    project: Project
    crosswalk_dir: Path | None = None
    out_dir: Path | None = None
    zip3_table: Zip3Table | None = None

    @cached_property
    def dates(self) -> DateCache:
        return DateCache(self.extract)

    @cached_property
    def positions(self) -> dict[str, np.ndarray]:
        return all_positions(self.extract, self.project)

    _counts: dict[tuple[str, str], pd.Series] = field(default_factory=dict, init=False, repr=False)

    def uniques(self, table: str, column: str, values: pd.Series) -> pd.Series:
        """Distinct cells of a released column -> rows holding each (computed once)."""
        key = (table, column)
        if key not in self._counts:
            self._counts[key] = _uniques(values)
        return self._counts[key]

    def zip_table(self) -> Zip3Table:
        if self.zip3_table is None:
            self.zip3_table = load_table_for(self.project.safe_harbor.zip3_table)
        return self.zip3_table


CheckFn = Callable[[Extract, Release, Project, VerifyContext], Finding]


@dataclass(frozen=True)
class Check:
    """A structural check, declared as data. ``run`` is its function."""

    id: str
    name: str
    rule: str  # the rule it enforces, e.g. "45 CFR 164.514(b)(2)(i)(B)"
    severity: str  # "blocking" | "warning"
    explanation: str
    run: CheckFn = field(repr=False, compare=False)
    pathways: frozenset[Pathway] = ALL_PATHWAYS

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "rule": self.rule,
            "severity": self.severity,
            "explanation": self.explanation,
        }


@dataclass(frozen=True)
class CheckOutcome:
    check: Check
    passed: bool
    count: int
    detail: dict[str, object]

    def to_dict(self) -> dict[str, object]:
        return {**self.check.to_dict(), "passed": self.passed, "count": self.count,
                "detail": self.detail}  # fmt: skip


@dataclass(frozen=True)
class Verification:
    outcomes: tuple[CheckOutcome, ...]

    @property
    def passed(self) -> bool:
        return not self.blocking_failures

    @property
    def blocking_failures(self) -> tuple[CheckOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.passed and o.check.severity == BLOCKING)

    @property
    def warnings(self) -> tuple[CheckOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.passed and o.check.severity == WARNING)

    def outcome(self, check_id: str) -> CheckOutcome:
        for o in self.outcomes:
            if o.check.id == check_id:
                return o
        raise KeyError(check_id)

    def to_dict(self) -> dict[str, object]:
        return {
            "passed": self.passed,
            "blocking_failures": [o.check.id for o in self.blocking_failures],
            "checks": [o.to_dict() for o in self.outcomes],
        }


# --------------------------------------------------------------------------- helpers


def _released_columns(release: Release) -> list[tuple[str, str, pd.Series]]:
    """(table, column, values) of every released column except the subject/link key."""
    return [
        (t, c, frame[c])
        for t, frame in release.tables.items()
        for c in frame.columns
        if c != release.id_column
    ]


def _uniques(values: pd.Series) -> pd.Series:
    """Distinct non-missing cells as text -> number of rows holding each."""
    counts = values.astype(STRING).value_counts(dropna=True, sort=False)
    return counts[counts.index.notna()]


def _rows_matching(uniq: pd.Series, pattern: str) -> int:
    """Rows whose cell matches ``pattern``, from the column's distinct cells."""
    if uniq.empty:
        return 0
    hit = pd.Series(uniq.index, dtype=STRING).str.contains(pattern, regex=True)
    return int(uniq.to_numpy()[hit.fillna(False).to_numpy(dtype=bool)].sum())


def _person_keys(extract: Extract, project: Project) -> pd.Series:
    return extract.person.frame[spec_for(project, extract.person).key].astype(STRING)


# --------------------------------------------------------------------------- checks


def check_row_counts(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    tables: dict[str, dict[str, int | None]] = {}
    bad = 0
    for table in extract.tables:
        suppressed = int(release.suppressed_rows.get(table.name, 0))
        frame = release.tables.get(table.name)
        released = None if frame is None else len(frame)
        tables[table.name] = {"input": len(table.frame), "suppressed": suppressed,
                              "released": released}  # fmt: skip
        if released != len(table.frame) - suppressed:
            bad += 1
    extra = sorted(set(release.tables) - {t.name for t in extract.tables})
    bad += len(extra)
    return Finding(bad == 0, bad, {"tables": tables, "unexpected_tables": extra})


def check_no_direct_columns(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    found: list[str] = []
    for table in extract.tables:
        spec = spec_for(project, table)
        frame = release.tables.get(table.name)
        if frame is None:
            continue
        names = {c.name for c in spec.by_class(ColumnClass.DIRECT)} | {spec.key}
        names.discard(release.id_column)
        found += [f"{table.name}.{c}" for c in frame.columns if c in names]
    return Finding(not found, len(found), {"columns": sorted(found)})


@dataclass(frozen=True)
class _Dictionary:
    """The direct values to look for, lower-cased and deduplicated (pyarrow arrays)."""

    ids: pa.Array  # searched as substrings
    names: pa.Array  # searched as whole words (names, places, short codes)
    numbers: pa.Array  # digit-only values, matched as a whole run of digits
    skipped_short: int
    skipped_numbers: int

    @property
    def size(self) -> int:
        return len(self.ids) + len(self.names) + len(self.numbers)


def _digit_counts(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a large_string array without nulls: its bytes, which of them are ASCII
    digits, and per value its digit count and its size in bytes (memory: one flag per
    byte)."""
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.empty(0, "u1")
    chunk = data[offsets[0] : offsets[-1]]
    flags = np.zeros(len(chunk) + 1, dtype=bool)  # one more: every start indexes, even a last ""
    digit = flags[:-1]
    np.less(chunk - np.uint8(48), 10, out=digit)  # bytes below '0' wrap round to >= 10
    starts = offsets[:-1] - offsets[0]
    size = np.diff(offsets)
    # Summed as bytes (a wider sum would first copy every flag to the wider type): exact
    # up to 255 bytes per value; the rare longer values are counted by Arrow.
    counts = np.add.reduceat(flags.view(np.uint8), starts, dtype=np.uint8).astype(np.int64)
    counts[size == 0] = 0  # reduceat gives the next byte's flag for an empty value
    long = np.flatnonzero(size > 255)
    if len(long):
        only = pc.replace_substring_regex(arr.take(pa.array(long)), r"\D", "")
        counts[long] = pc.binary_length(only).to_numpy(zero_copy_only=False)
    return chunk, digit, counts, size


def _only_digits(arr: pa.Array) -> pa.Array:
    """Each value with every character other than 0-9 removed (RE2's ``\\D`` -> "";
    a UTF-8 byte of another character is never an ASCII digit), with numpy."""
    if arr.null_count or len(arr) == 0:
        return pc.replace_substring_regex(arr, r"\D", "")
    chunk, digit, counts, _size = _digit_counts(arr)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    return pa.LargeStringArray.from_buffers(
        len(arr), pa.py_buffer(offsets), pa.py_buffer(chunk[digit])
    )


def _all_digits(arr: pa.Array) -> np.ndarray:
    """Per value: one or more characters, all 0-9 (RE2's ``^\\d+$``), with numpy."""
    if arr.null_count or len(arr) == 0:
        return pc.match_substring_regex(arr, r"^\d+$").to_numpy(zero_copy_only=False)
    _chunk, _digit, counts, size = _digit_counts(arr)
    return (size > 0) & (counts == size)


def _lowered(values: pd.Series) -> pa.Array:
    return pc.utf8_lower(pc.utf8_trim_whitespace(arrow_text(values))).drop_null()


def _direct_dictionary(extract: Extract, project: Project) -> _Dictionary:
    ids: list[pa.Array] = []
    names: list[pa.Array] = []
    for table in extract.tables:
        spec = spec_for(project, table)
        for tag in spec.columns:
            is_key = tag.name == spec.key
            if tag.name not in table.frame.columns or not (is_key or tag.cls == ColumnClass.DIRECT):
                continue
            text = _lowered(table.frame[tag.name])
            if tag.category in WORD_CATEGORIES:
                names.append(text)
                continue
            ids.append(text)
            if not is_key:  # "(858) 555-0101" is also searched as 8585550101
                digits = _only_digits(text)
                wanted = pc.and_(
                    pc.greater_equal(pc.utf8_length(digits), 7), pc.not_equal(digits, text)
                )
                ids.append(pc.filter(digits, wanted))
    empty = pa.array([], type=pa.large_string())
    counts = {"short": 0, "numbers": 0}

    def split(parts: list[pa.Array]) -> tuple[pa.Array, pa.Array]:
        if not parts:
            return empty, empty
        uniq = pc.unique(pa.concat_arrays(parts))
        length = pc.utf8_length(uniq).to_numpy(zero_copy_only=False)
        numeric = _all_digits(uniq)
        short = length < MIN_VALUE_LENGTH
        small = numeric & (length < MIN_NUMBER_LENGTH) & ~short
        counts["short"] += int(short.sum())
        counts["numbers"] += int(small.sum())
        return pc.filter(uniq, ~numeric & ~short), pc.filter(uniq, numeric & ~short & ~small)

    id_text, id_numbers = split(ids)
    name_text, name_numbers = split(names)
    # A short code is searched as a word: as a substring it is inside ordinary words.
    short_id = pc.less(pc.utf8_length(id_text), MIN_SUBSTRING_LENGTH)
    name_text = pc.unique(pa.concat_arrays([name_text, pc.filter(id_text, short_id)]))
    id_text = pc.filter(id_text, pc.invert(short_id))
    # A value that is both a name and an ID is searched as an ID (the stricter test).
    name_text = pc.filter(name_text, pc.invert(pc.is_in(name_text, value_set=id_text)))
    numbers = pc.unique(pa.concat_arrays([id_numbers, name_numbers]))
    return _Dictionary(id_text, name_text, numbers, counts["short"], counts["numbers"])


def _present_trigrams(haystack: str) -> pa.Array:
    """Every distinct run of three characters in ``haystack`` (vectorised)."""
    codes = np.frombuffer(haystack.encode("utf-32-le"), dtype=np.uint32)
    if len(codes) < 3:
        return pa.array([], type=pa.large_string())
    wide = codes.astype(np.uint64)
    packed = np.unique((wide[:-2] << np.uint64(42)) | (wide[1:-1] << np.uint64(21)) | wide[2:])
    mask = np.uint64((1 << 21) - 1)
    chars = np.stack(
        [packed >> np.uint64(42), (packed >> np.uint64(21)) & mask, packed & mask], axis=1
    ).astype(np.uint32)
    return pa.array(np.ascontiguousarray(chars).view("<U3").ravel()).cast(pa.large_string())


def _plausible(values: pa.Array, present: pa.Array) -> pa.Array:
    """The values that may occur in the haystack: their first, second and last three
    characters all occur in it (a cheap necessary condition, all in pyarrow)."""
    if len(values) == 0:
        return values
    keep = pc.is_in(pc.utf8_slice_codeunits(values, 0, 3), value_set=present)
    keep = pc.and_(keep, pc.is_in(pc.utf8_slice_codeunits(values, -3), value_set=present))
    middle = pc.utf8_slice_codeunits(values, 3, 6)
    keep = pc.and_(
        keep,
        pc.or_(pc.less(pc.utf8_length(middle), 3), pc.is_in(middle, value_set=present)),
    )
    return pc.filter(values, keep)


def _text_hits(
    dictionary: _Dictionary, haystack: str, starts: np.ndarray, lengths: np.ndarray,
    count: np.ndarray,
) -> tuple[set[int], set[int]]:  # fmt: skip
    """Cells holding a direct text value (IDs as substrings, names as whole words), and
    cells that are exactly a name shared by many rows (category labels)."""
    hits: set[int] = set()
    category: set[int] = set()
    present = _present_trigrams(haystack)
    automaton = ahocorasick.Automaton()
    for values, is_name in ((dictionary.ids, False), (dictionary.names, True)):
        for value in _plausible(values, present).to_pylist():
            automaton.add_word(value, (len(value), is_name))
    if not len(automaton):
        return hits, category
    automaton.make_automaton()
    for end, (size, is_name) in automaton.iter(haystack):
        begin = end - size + 1
        cell = int(np.searchsorted(starts, begin, side="right") - 1)
        if cell in hits:
            continue
        if is_name:
            before = haystack[begin - 1] if begin > 0 else " "
            after = haystack[end + 1] if end + 1 < len(haystack) else " "
            if before.isalnum() or after.isalnum():
                continue
            if size == lengths[cell] and count[cell] >= CATEGORY_ROWS:
                category.add(cell)
                continue
        hits.add(cell)
    return hits, category


def _number_hits(numbers: pa.Array, haystack: str, starts: np.ndarray) -> set[int]:
    """Cells holding a digit-only direct value as a whole run of digits."""
    if len(numbers) == 0:
        return set()
    shortest = int(pc.min(pc.utf8_length(numbers)).as_py())
    runs = [(m.start(), m.group()) for m in re.finditer(rf"\d{{{shortest},}}", haystack)]
    if not runs:
        return set()
    found = pc.is_in(pa.array([r for _, r in runs], type=pa.large_string()), value_set=numbers)
    where = np.asarray([p for p, _ in runs], dtype=np.int64)[found.to_numpy(zero_copy_only=False)]
    return {int(c) for c in np.searchsorted(starts, where, side="right") - 1}


def check_no_direct_values(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    dictionary = _direct_dictionary(extract, project)
    base = {
        "values_searched": dictionary.size,
        "skipped_shorter_than_3": dictionary.skipped_short,
        "skipped_numbers_shorter_than_6": dictionary.skipped_numbers,
        "not_searched": release.id_column + " (see the subject-ID check)",
    }
    columns = _released_columns(release)
    cells: list[str] = []
    owners: list[np.ndarray] = []  # column index per unique cell
    counts: list[np.ndarray] = []
    for i, (t, c, values) in enumerate(columns):
        uniq = ctx.uniques(t, c, values)
        cells += uniq.index.str.lower().tolist()
        owners.append(np.full(len(uniq), i))
        counts.append(uniq.to_numpy(dtype=np.int64))
    if not cells:
        return Finding(True, 0, {**base, "columns": []})
    owner = np.concatenate(owners)
    count = np.concatenate(counts)
    haystack = "\x00".join(cells)
    lengths = np.fromiter((len(c) for c in cells), dtype=np.int64, count=len(cells))
    starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
    hits, category = _text_hits(dictionary, haystack, starts, lengths, count)
    hits |= _number_hits(dictionary.numbers, haystack, starts)
    shaped: dict[str, int] = {}
    cell_array = pa.array(cells, type=pa.large_string())
    for kind, pattern in _IDENTIFIER_SHAPES.items():
        matched = pc.match_substring_regex(cell_array, pattern)
        found = np.flatnonzero(matched.to_numpy(zero_copy_only=False))
        if len(found):
            shaped[kind] = int(count[found].sum())
            hits.update(int(i) for i in found)
    category -= hits
    hit_idx = np.fromiter(hits, dtype=np.int64, count=len(hits))
    cat_idx = np.fromiter(category, dtype=np.int64, count=len(category))
    rows = int(count[hit_idx].sum())
    detail = {
        **base,
        "columns": sorted({f"{columns[o][0]}.{columns[o][1]}" for o in owner[hit_idx]}),
        "category_cells_equal_to_a_name": int(count[cat_idx].sum()),
        "cells_by_identifier_shape": shaped,
    }
    return Finding(rows == 0, rows, detail)


def check_no_full_dates(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    typed = [
        f"{t}.{c}"
        for t, frame in release.tables.items()
        for c in frame.columns
        if pd.api.types.is_datetime64_any_dtype(frame[c])
    ]
    per_column: dict[str, int] = {}
    for t, c, values in _released_columns(release):
        n = _rows_matching(ctx.uniques(t, c, values), _FULL_DATE)
        if n:
            per_column[f"{t}.{c}"] = n
    count = len(typed) + sum(per_column.values())
    return Finding(count == 0, count, {"date_typed_columns": typed, "cells_by_column": per_column})


def _zip_columns(project: Project, release: Release) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for spec in project.tables:
        frame = release.tables.get(spec.name)
        if frame is None:
            continue
        tag = spec.by_role(Role.ZIP)
        for name in {ZIP3_COLUMN, tag.name if tag else ZIP3_COLUMN}:
            if name in frame.columns:
                out.append((spec.name, name))
    return sorted(out)


#: Column-name words (and adjacent word pairs, joined) that say "postal code".
ZIP_NAME_WORDS = frozenset(
    {"zip", "zips", "zipcode", "zipcodes", "postal", "postcode", "postcodes", "postalcode"}
)
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def names_a_postal_code(column: str) -> bool:
    """Whether a column's name says it holds a ZIP / postal code, by its words in any
    case or style: ``zip``, ``ZIP5``, ``zip_code``, ``PostalCode``, ``post_code``,
    ``patient-zipcode``; not ``zipper`` or ``income``."""
    words = [w.lower() for w in _NAME_WORD.findall(column)]
    pairs = (a + b for a, b in pairwise(words))
    return any(w in ZIP_NAME_WORDS for w in (*words, *pairs))


def _zip5_columns(project: Project, release: Release) -> list[tuple[str, str]]:
    """What can hold a ZIP: the ZIP3 and ZIP-role columns, and every released column
    whose name says postal code, whatever its class."""
    out = set(_zip_columns(project, release))
    for t, c, _values in _released_columns(release):
        if names_a_postal_code(c):
            out.add((t, c))
    return sorted(out)


def check_no_zip5(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    per_column: dict[str, int] = {}
    checked = _zip5_columns(project, release)
    for t, c in checked:
        n = _rows_matching(ctx.uniques(t, c, release.tables[t][c]), _ZIP5_ANYWHERE)
        if n:
            per_column[f"{t}.{c}"] = n
    count = sum(per_column.values())
    return Finding(
        count == 0,
        count,
        {"cells_by_column": per_column, "columns_checked": [f"{t}.{c}" for t, c in checked]},
    )


def check_zip3_allowed(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    table = ctx.zip_table()
    allowed = list(table.allowed_prefixes | {ZIP3_UNKNOWN})
    per_column: dict[str, int] = {}
    for t, c in _zip_columns(project, release):
        values = release.tables[t][c].astype(STRING)
        bad = ~in_set(values, allowed) & values.notna().to_numpy(dtype=bool)
        if bad.any():
            per_column[f"{t}.{c}"] = int(bad.sum())
    count = sum(per_column.values())
    return Finding(count == 0, count, {"cells_by_column": per_column, "zip3_table": table.vintage})


def _age_over_89(values: pd.Series) -> int:
    """Cells stating an age above 89 other than the pooled "90+" (bands included)."""
    uniq = _uniques(values)
    if uniq.empty:
        return 0
    text = pd.Series(uniq.index, dtype=STRING)
    top = text.str.extract(_TOP_CODE, expand=False)
    pooled = (pd.to_numeric(top, errors="coerce") <= MAX_AGE + 1).fillna(False)
    biggest = (
        text.str.extractall(r"(\d+(?:\.\d+)?)")[0].astype(float).groupby(level=0).max()
    ).reindex(range(len(text)))
    over = (biggest > MAX_AGE).fillna(False) & ~pooled
    return int(uniq.to_numpy()[over.to_numpy(dtype=bool)].sum())


def check_ages(extract: Extract, release: Release, project: Project, ctx: VerifyContext) -> Finding:
    per_column: dict[str, int] = {}
    for spec in project.tables:
        tag = spec.by_role(Role.AGE)
        frame = release.tables.get(spec.name)
        if tag is None or frame is None or tag.name not in frame.columns:
            continue
        n = _age_over_89(frame[tag.name])
        if n:
            per_column[f"{spec.name}.{tag.name}"] = n
    count = sum(per_column.values())
    return Finding(count == 0, count, {"cells_by_column": per_column})


def _subjects_over_89(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> set[str]:
    """Subject IDs of persons over 89: from the input (via the crosswalk) and from
    every released "90+" in the person table's age column."""
    out: set[str] = set()
    person = extract.person.name
    frame = release.tables.get(person)
    tag = project.table(person).by_role(Role.AGE)
    if frame is not None and tag is not None and tag.name in frame.columns:
        pooled = frame[tag.name].astype(STRING) == AGE_POOLED
        out |= set(frame.loc[pooled.fillna(False).to_numpy(dtype=bool), release.id_column])
    if release.crosswalk is not None:
        facts = assess_ages(
            extract, project, ctx.dates, ctx.positions, project.safe_harbor.age_reference
        )
        keys = _person_keys(extract, project)[facts.over_89]
        key_col = next(c for c in release.crosswalk.columns if c != release.id_column)
        cw = release.crosswalk
        out |= set(cw.loc[in_set(cw[key_col].astype(STRING), keys), release.id_column])
    return out


def _year_columns(release: Release, project: Project, table: str) -> list[str]:
    """The released columns of ``table`` that hold years: declared by the pathway, or
    named like a year or date (the age column excepted)."""
    frame = release.tables[table]
    declared = release.parameters.get("year_columns", {})
    listed = set(declared.get(table, [])) if isinstance(declared, Mapping) else set()
    try:
        tag = project.table(table).by_role(Role.AGE)
    except KeyError:
        tag = None
    age = tag.name if tag is not None else None
    return [
        c
        for c in frame.columns
        if c != release.id_column and c != age and (c in listed or _YEARISH_NAME.search(c))
    ]


#: Two years of one person this far apart or more state an age over 89 whatever the
#: months and days (91 years apart: at least 90 completed years).
_CERTAIN_OVER_89_SPAN = MAX_AGE + 2


def _persons_with_years_far_apart(release: Release, project: Project) -> set[str]:
    """IDs of persons whose released years (any year column of any table) lie 91 years
    apart or more: a pair of years that restates an age over 89, whatever the tags
    say (e.g. a birth date tagged as a plain date, with no age)."""
    ids: list[pd.Series] = []
    years: list[pd.Series] = []
    for t, frame in release.tables.items():
        if release.id_column not in frame.columns:
            continue
        for c in _year_columns(release, project, t):
            text = frame[c].astype(STRING).str.strip()
            value = pd.to_numeric(text.where(text.str.fullmatch(r"\d{4}"), None), errors="coerce")
            keep = value.notna().to_numpy(dtype=bool)
            ids.append(frame[release.id_column].astype(STRING)[keep])
            years.append(value[keep].astype("int64"))
    if not ids:
        return set()
    both = pd.DataFrame(
        {"id": pd.concat(ids, ignore_index=True), "year": pd.concat(years, ignore_index=True)}
    )
    span = both.groupby("id", dropna=False, sort=False)["year"].agg(["min", "max"])
    far = span.index[(span["max"] - span["min"] >= _CERTAIN_OVER_89_SPAN).to_numpy()]
    return {str(i) for i in far}


def check_no_age_revealing_year(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    known = _subjects_over_89(extract, release, project, ctx)
    far_apart = _persons_with_years_far_apart(release, project)
    old = known | far_apart
    per_column: dict[str, int] = {}
    for t, frame in release.tables.items():
        cols = _year_columns(release, project, t)
        if not cols or not old:
            continue
        rows = in_set(frame[release.id_column], old)
        for c in cols:
            n = int((frame[c].notna().to_numpy(dtype=bool) & rows).sum())
            if n:
                per_column[f"{t}.{c}"] = n
    count = sum(per_column.values())
    detail = {
        "persons_over_89": len(known),
        "persons_with_years_91_or_more_apart": len(far_apart - known),
        "cells_by_column": per_column,
    }
    return Finding(count == 0, count, detail)


def _repeats(values: pd.Series) -> int:
    """Rows whose value (missing included) appeared on an earlier row: pandas'
    ``duplicated().sum()``, by one Arrow distinct count."""
    arr = arrow_text(values)
    if arr.null_count == 0 and len(arr) > 1:
        rising = pc.greater(arr.slice(1), arr.slice(0, len(arr) - 1))
        if pc.all(rising).as_py():  # strictly increasing (a release in ID order): none
            return 0
    return len(arr) - int(pc.count_distinct(arr, mode="all").as_py())


def _not_among(columns: list[pd.Series], reference: pd.Series) -> int:
    """Cells of ``columns`` (missing included) that are not a value of ``reference``:
    all encoded together in one hash pass, the reference's distinct values first."""
    if not sum(len(c) for c in columns):
        return 0
    known = pc.unique(arrow_text(reference).drop_null())
    parts = [known, *(arrow_text(c) for c in columns)]
    encoded = pa.chunked_array(parts, type=pa.large_string()).dictionary_encode()
    codes = pa.chunked_array([c.indices for c in encoded.chunks]).combine_chunks()
    found = codes.slice(len(known)).fill_null(len(known)).to_numpy(zero_copy_only=False)
    return int((found >= len(known)).sum())


def released_ids(extract: Extract, release: Release) -> pd.Series | None:
    """The released person table's ID column (subject ID or link key) as text; None
    when the person table or its ID column is missing from the release."""
    person = release.tables.get(extract.person.name)
    if person is None or release.id_column not in person.columns:
        return None
    return person[release.id_column].astype(STRING)


def check_subject_ids(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    ids = released_ids(extract, release)
    if ids is None:
        return Finding(False, 1, {"missing_id_column": True})
    duplicates = _repeats(ids)
    missing = int(ids.isna().sum())
    events = [
        frame[release.id_column]
        for name, frame in release.tables.items()
        if name != extract.person.name and release.id_column in frame.columns
    ]
    unlinked = _not_among(events, ids)
    keys = _person_keys(extract, project)
    equal = int(in_set(ids, keys.dropna()).sum())
    containing = 0
    if release.crosswalk is not None:
        cw = release.crosswalk
        key_col = next(c for c in cw.columns if c != release.id_column)
        sub = cw[release.id_column].astype(STRING).fillna("").to_numpy(dtype=str)
        key = cw[key_col].astype(STRING).fillna("").to_numpy(dtype=str)
        eligible = np.strings.str_len(key) >= MIN_KEY_LENGTH
        containing = int((eligible & (np.strings.find(sub, key) >= 0)).sum())
        duplicates += _repeats(cw[release.id_column])
    count = duplicates + missing + unlinked + equal + containing
    detail = {
        "duplicate_ids": duplicates,
        "missing_ids": missing,
        "event_rows_without_a_person": unlinked,
        "ids_equal_to_a_person_key": equal,
        "ids_containing_their_own_key": containing,
        "keys_shorter_than_3_not_tested_for_containment": True,
    }
    return Finding(count == 0, count, detail)


def _inside(child: Path, parent: Path) -> bool:
    c, p = child.resolve(), parent.resolve()
    return c == p or p in c.parents


def check_crosswalk_apart(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    if release.crosswalk is None:
        return Finding(True, 0, {"crosswalk": "none in this release"})
    if ctx.crosswalk_dir is None or ctx.out_dir is None:
        return Finding(True, 0, {"folders": "not chosen yet; checked again at export"})
    inside = _inside(ctx.crosswalk_dir, ctx.out_dir)
    return Finding(not inside, int(inside), {"crosswalk_inside_release_folder": inside})


# --------------------------------------------------------------------------- registry


CHECKS: tuple[Check, ...] = (
    Check(
        "row_counts",
        "Row counts match the input",
        "RULES.md structural checks",
        BLOCKING,
        "Every table has as many rows as its input, minus the rows the user chose to "
        "suppress (reported).",
        check_row_counts,
    ),
    Check(
        "no_direct_columns",
        "No direct-identifier column survives",
        "45 CFR 164.514(b)(2)(i)(A)-(R)",
        BLOCKING,
        "No column tagged direct, nor the person key, is in the release (by name).",
        check_no_direct_columns,
        frozenset({Pathway.SAFE_HARBOR, Pathway.LINKABLE}),
    ),
    Check(
        "no_direct_values",
        "No direct-identifier value appears in the release",
        "45 CFR 164.514(b)(2)(i)(A)-(R)",
        BLOCKING,
        "No value of any direct column appears in any released cell of any table "
        "(case-insensitive), and no cell holds an SSN, a phone number written with "
        "separators, an e-mail address, a URL or an IP address, whoever it belongs to: names, "
        "places and values under 6 characters as whole words; "
        "IDs, phones and e-mails as substrings; numbers as a whole run of digits. Values "
        "shorter than 3 characters and numbers shorter than 6 digits are not searched "
        "(they match by chance); a cell that is exactly a name or place and is shared by "
        "20 or more rows is counted as a category label.",
        check_no_direct_values,
        frozenset({Pathway.SAFE_HARBOR, Pathway.LINKABLE}),
    ),
    Check(
        "no_full_dates",
        "No date column and no full date",
        "45 CFR 164.514(b)(2)(i)(C)",
        BLOCKING,
        "No released column is date-typed and no cell holds a full date in a common "
        "format (YYYY-MM-DD, MM/DD/YYYY, DD.MM.YYYY, YYYYMMDD, day month-name year, "
        "month-name day, year).",
        check_no_full_dates,
        SAFE_HARBOR,
    ),
    Check(
        "no_zip5",
        "No 5-digit ZIP",
        "45 CFR 164.514(b)(2)(i)(B)",
        BLOCKING,
        "The ZIP3 column, the column tagged ZIP (if released) and every released column "
        "whose name says postal code (zip, zip_code, postal, postcode, ...) hold no 5 "
        "digits in a row. Other columns are not read as ZIPs (5-digit incomes or lab "
        "values are not ZIPs).",
        check_no_zip5,
        SAFE_HARBOR,
    ),
    Check(
        "zip3_allowed",
        "No restricted or unknown ZIP3",
        "45 CFR 164.514(b)(2)(i)(B)",
        BLOCKING,
        "Every ZIP3 is '000' or a prefix with more than 20,000 people in the Census table used.",
        check_zip3_allowed,
        SAFE_HARBOR,
    ),
    Check(
        "ages_pooled",
        "No age above 89",
        "45 CFR 164.514(b)(2)(i)(C)",
        BLOCKING,
        "Every age above 89 is shown as the single category '90+' (bands included).",
        check_ages,
        SAFE_HARBOR,
    ),
    Check(
        "no_age_revealing_year",
        "No year that reveals the age of a person over 89",
        "45 CFR 164.514(b)(2)(i)(C)",
        BLOCKING,
        "For every person over 89 (from the input and from the released '90+'), no year "
        "is left in any year or date column of any table.",
        check_no_age_revealing_year,
        SAFE_HARBOR,
    ),
    Check(
        "subject_ids",
        "Subject IDs unique and unrelated to the person key",
        "45 CFR 164.514(c)",
        BLOCKING,
        "Subject IDs are unique, every event row has one of a released person, no ID "
        "equals a person key and none contains its own person's key (keys of 3 or more "
        "characters).",
        check_subject_ids,
        SAFE_HARBOR,
    ),
    Check(
        "crosswalk_apart",
        "Crosswalk kept apart from the release",
        "45 CFR 164.514(c)",
        BLOCKING,
        "The crosswalk's folder is not the release folder and not inside it.",
        check_crosswalk_apart,
    ),
)


def checks_for(pathway: Pathway) -> tuple[Check, ...]:
    """The checks that apply to ``pathway``: the shared registry plus the pathway
    module's own ``CHECKS``, if it exports any."""
    from deid_desktop.core.verify_values import CHECKS as VALUE_CHECKS

    own = tuple(c for c in (*CHECKS, *VALUE_CHECKS) if pathway in c.pathways)
    try:
        from deid_desktop.core.pathways import pathway_module

        extra = tuple(getattr(pathway_module(pathway), "CHECKS", ()))
    except DeidError:
        extra = ()
    seen = {c.id for c in own}
    return own + tuple(c for c in extra if c.id not in seen)


def _run(check: Check, extract: Extract, release: Release, project: Project,
         ctx: VerifyContext) -> CheckOutcome:  # fmt: skip
    try:
        found = check.run(extract, release, project, ctx)
    except Exception as exc:  # a check that cannot run has not passed
        return CheckOutcome(check, False, 1, {"could_not_run": type(exc).__name__})
    return CheckOutcome(check, bool(found.passed), int(found.count), dict(found.detail))


def verify_release(
    extract: Extract,
    release: Release,
    project: Project,
    *,
    crosswalk_dir: Path | None = None,
    out_dir: Path | None = None,
    zip3_table: Zip3Table | None = None,
) -> Verification:
    """Run every check that applies to the release's pathway; collect every outcome."""
    ctx = VerifyContext(extract, project, crosswalk_dir, out_dir, zip3_table)
    return Verification(
        tuple(_run(c, extract, release, project, ctx) for c in checks_for(release.pathway))
    )
