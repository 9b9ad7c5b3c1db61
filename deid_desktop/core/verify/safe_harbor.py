"""The Safe Harbor gate (45 CFR 164.514(b)(2)) and the rows it shares with the other
pathways: row counts, no full date, no 5-digit ZIP, allowed ZIP3, no age above 89, no
year revealing such an age, subject IDs unrelated to the person key, the crosswalk kept
apart. ``CHECKS`` lists them, each with the pathways it applies to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.ages import AGE_POOLED, MAX_AGE
from deid_desktop.core.facts.persons import (
    MIN_KEY_LENGTH,
    person_keys,
    positions_in,
    released_ids,
)
from deid_desktop.core.facts.text import STRING, arrow_text, in_set
from deid_desktop.core.facts.years import year_numbers, years_by_values
from deid_desktop.core.model import Extract, Pathway, Project, Release, Role
from deid_desktop.core.verify.ages import check_ages
from deid_desktop.core.verify.base import (
    BLOCKING,
    SAFE_HARBOR,
    Check,
    Finding,
    VerifyContext,
    released_columns,
    rows_matching,
)
from deid_desktop.core.verify.birth_years import two_digit_birth_years
from deid_desktop.core.verify.direct import check_no_direct_columns, check_no_direct_values
from deid_desktop.core.verify.own_values import crosswalk_persons
from deid_desktop.core.verify.zips import check_no_zip5, check_zip3_allowed

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# Digit boundaries are written (?:^|\D) / (?:\D|$), not \b, so that a date glued to
# a letter still counts ("2024-03-03T10:15", "03Mar2024"); RE2 has no look-arounds.
_SEP = r"[\s\-/.,]*"
FULL_DATE = (
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
_YEARISH_NAME = re.compile(r"year|date|dob|birth|_yr$|^yr_", re.IGNORECASE)


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
    for t, c, values in released_columns(release):
        n = rows_matching(ctx.uniques(t, c, values), FULL_DATE)
        if n:
            per_column[f"{t}.{c}"] = n
    count = len(typed) + sum(per_column.values())
    return Finding(count == 0, count, {"date_typed_columns": typed, "cells_by_column": per_column})


def _subjects_over_89(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> pa.Array:
    """Subject IDs of persons over 89 (distinct, as Arrow text): from the input (via
    the crosswalk) and from every released "90+" in the person table's age column."""
    return _over_89(extract, release, project, ctx).ids


@dataclass(frozen=True)
class _Over89:
    """``_subjects_over_89``, and the rows it read them from: per row of the released
    person table, "90+" (None: no age column); per crosswalk row, withheld (None: no
    crosswalk)."""

    ids: pa.Array
    pooled: np.ndarray | None
    withheld: np.ndarray | None


def _over_89(extract: Extract, release: Release, project: Project, ctx: VerifyContext) -> _Over89:
    found: list[pa.Array] = []
    person = extract.person.name
    frame = release.tables.get(person)
    tag = project.table(person).by_role(Role.AGE)
    pooled = hit = None
    if frame is not None and tag is not None and tag.name in frame.columns:
        pooled = pc.fill_null(pc.equal(arrow_text(frame[tag.name]), AGE_POOLED), False)
        found.append(arrow_text(frame[release.id_column]).filter(pooled))
        pooled = pooled.to_numpy(zero_copy_only=False)
    if release.crosswalk is not None:
        withheld = ctx.ages.years_withheld  # its facts found the person keys unique
        cw = release.crosswalk
        rows = crosswalk_persons(extract, project, release, ctx)
        if rows is not None and len(rows) == len(cw):  # each row's person, by position
            hit = np.zeros(len(rows), dtype=bool)
            hit[rows >= 0] = withheld[rows[rows >= 0]]
        else:  # the key of each row among the keys of the persons withheld
            keys = arrow_text(person_keys(extract, project)).filter(pa.array(withheld))
            key_col = next(c for c in cw.columns if c != release.id_column)
            hit = np.asarray(in_set(arrow_text(cw[key_col]), keys), dtype=bool)
        found.append(arrow_text(cw[release.id_column]).filter(pa.array(hit)))
    if not found:
        return _Over89(pa.array([], type=pa.large_string()), pooled, hit)
    return _Over89(pc.unique(pa.concat_arrays(found)), pooled, hit)


def _known_by_row(
    extract: Extract, release: Release, ry: _ReleasedYears, over: _Over89
) -> np.ndarray | None:
    """Per released person (``ry.ids``): among ``over.ids``, read from the rows - where
    the IDs are the person table's rows, each once, and the crosswalk holds them in
    the same order, an ID is among them exactly when its own row says so. None when
    that is not so (the IDs are then held against them)."""
    n = len(ry.ids)
    at = ry.codes.get(extract.person.name)
    if at is None or len(at) != n or not np.array_equal(at, np.arange(n)):
        return None
    known = np.zeros(n, dtype=bool)
    if over.pooled is not None:
        known |= over.pooled
    if over.withheld is not None:
        cw = release.crosswalk
        cw_ids = arrow_text(cw[release.id_column]) if cw is not None else None
        same = cw_ids is not None and len(cw_ids) == n and cw_ids.null_count == 0
        if not same or (n and pc.all(pc.equal(cw_ids, ry.ids)).as_py() is not True):
            return None
        known |= over.withheld
    return known


def _year_columns(release: Release, project: Project, table: str, ctx: VerifyContext) -> list[str]:
    """The released columns of ``table`` that hold years: declared by the pathway, named
    like a year or date, or years by their values whatever the name and tag (a birth
    year kept as a clinical ``yob``); the age column excepted."""
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
        if c != release.id_column
        and c != age
        and (
            c in listed
            or _YEARISH_NAME.search(c)
            or years_by_values(ctx.uniques(table, c, frame[c]))
        )
    ]


#: Two years of one person this far apart or more state an age over 89 whatever the
#: months and days (91 years apart: at least 90 completed years).
_CERTAIN_OVER_89_SPAN = MAX_AGE + 2
_BIRTHISH_NAME = re.compile(r"birth|dob|born|yob|geb|nac|naiss", re.IGNORECASE)


@dataclass(frozen=True)
class _ReleasedYears:
    """The released persons (IDs of the person table), each table's rows as person
    positions (-1: no such person), and every year column as numbers."""

    ids: pa.Array
    codes: dict[str, np.ndarray]
    years: dict[tuple[str, str], np.ndarray]


def _released_years(release: Release, project: Project, ctx: VerifyContext) -> _ReleasedYears:
    cached = ctx.__dict__.get("_released_years")
    if cached is not None and cached[0] is release:
        return cached[1]
    person = next(
        (t for t in release.tables if _is_person(project, t)), next(iter(release.tables), None)
    )
    ids, codes = ctx.released_positions(release, person)
    years: dict[tuple[str, str], np.ndarray] = {}
    for t in codes:
        for c in _year_columns(release, project, t, ctx):
            years[(t, c)] = year_numbers(release.tables[t][c])
    out = _ReleasedYears(ids, codes, years)
    ctx.__dict__["_released_years"] = (release, out)
    return out


def _is_person(project: Project, table: str) -> bool:
    try:
        return project.table(table).is_person
    except KeyError:
        return False


def _persons_with_years_far_apart(ry: _ReleasedYears) -> np.ndarray:
    """Per released person: released years (any year column of any table) 91 years
    apart or more - a pair that restates an age over 89, whatever the tags say (e.g. a
    birth date tagged as a plain date, with no age). numpy minimum and maximum."""
    n = len(ry.ids)
    lowest = np.full(n, np.inf)
    highest = np.full(n, -np.inf)
    for (t, _c), year in ry.years.items():
        code = ry.codes[t]
        keep = ~np.isnan(year) & (code >= 0)
        np.minimum.at(lowest, code[keep], year[keep])
        np.maximum.at(highest, code[keep], year[keep])
    return (highest - lowest) >= _CERTAIN_OVER_89_SPAN


def names_a_birth(column: str) -> bool:
    """Whether a column's name says birth (``dob_year``, ``BIRTH_yr``, ``yob``, ``born``)."""
    return bool(_BIRTHISH_NAME.search(column))


def _birth_year_columns(project: Project, ry: _ReleasedYears) -> set[tuple[str, str]]:
    """Released year columns that hold birth years: the birth-date role's, by its released
    name, or any year column named for birth (``BIRTH_year``, ``dob_year``, ``yob``)."""
    from deid_desktop.core.pathways.common import year_column_name

    out: set[tuple[str, str]] = set()
    for t, c in ry.years:
        try:
            tag = project.table(t).by_role(Role.BIRTH_DATE)
        except KeyError:
            tag = None
        wanted = {year_column_name(tag.name, ()), tag.name} if tag is not None else set()
        if c in wanted or names_a_birth(c):
            out.add((t, c))
    return out


def _persons_old_at_release_cutoff(
    release: Release, project: Project, ry: _ReleasedYears
) -> np.ndarray:
    """Per released person: a released birth year 90 or more years before the latest
    year anywhere in the release (the data's cut-off as released) - the two years can
    state an age of 90 at the cut-off. Read from the release alone."""
    old = np.zeros(len(ry.ids), dtype=bool)
    present = [np.nanmax(y) for y in ry.years.values() if (~np.isnan(y)).any()]
    if not present:
        return old
    cutoff = max(present)
    for t, c in _birth_year_columns(project, ry):
        born = ry.years.get((t, c))
        if born is None:
            continue
        code = ry.codes[t]
        hit = ((cutoff - born) > MAX_AGE) & (code >= 0)  # NaN compares False
        old[code[hit]] = True
    return old


def check_no_age_revealing_year(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    ry = _released_years(release, project, ctx)
    over = _over_89(extract, release, project, ctx)
    known_ids = over.ids
    known = _known_by_row(extract, release, ry, over) if len(known_ids) else None
    if known is None:
        known = (
            in_set(ry.ids, known_ids)
            if len(known_ids) and len(ry.ids)
            else np.zeros(len(ry.ids), bool)
        )
    far_apart = _persons_with_years_far_apart(ry) & ~known
    at_cutoff = _persons_old_at_release_cutoff(release, project, ry) & ~known & ~far_apart
    old = known | far_apart | at_cutoff
    per_column: dict[str, int] = {}
    if old.any():
        for (t, c), _year in ry.years.items():
            code = ry.codes[t]
            rows = np.zeros(len(code), dtype=bool)
            rows[code >= 0] = old[code[code >= 0]]
            n = int((release.tables[t][c].notna().to_numpy(dtype=bool) & rows).sum())
            if n:
                per_column[f"{t}.{c}"] = n
    for where, n in two_digit_birth_years(extract, release, project, ctx).items():
        per_column[where] = per_column.get(where, 0) + n
    count = sum(per_column.values())
    detail = {
        "persons_over_89": len(known_ids),
        "persons_with_years_91_or_more_apart": int(far_apart.sum()),
        "persons_over_89_at_the_release_cutoff": int(at_cutoff.sum()),
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
    one hash join on distinct values (``facts.persons.positions_in``)."""
    if not sum(len(c) for c in columns):
        return 0
    found = positions_in(arrow_text(reference), [arrow_text(c) for c in columns])
    return int(sum(int((f < 0).sum()) for f in found))


def _byte_lengths(arr: pa.Array) -> np.ndarray:
    """Each value's length in bytes (-1: missing)."""
    return pc.fill_null(pc.binary_length(arr), -1).to_numpy(zero_copy_only=False)


def _equal_to_a_key(ids: pd.Series, keys: pd.Series) -> int:
    """IDs equal to a person key (``in_set``), hashing only the values of a byte length
    both sides have: an ID of 8 bytes equals no key of 7."""
    id_text, key_text = arrow_text(ids), arrow_text(keys.dropna())
    id_len, key_len = _byte_lengths(id_text), _byte_lengths(key_text)
    shared = np.intersect1d(np.unique(id_len[id_len >= 0]), np.unique(key_len))
    if not len(shared):
        return 0
    id_keep = np.isin(id_len, shared)
    key_keep = np.isin(key_len, shared)
    return int(in_set(id_text.filter(pa.array(id_keep)), key_text.filter(pa.array(key_keep))).sum())


def _same_width_ascii(arr: pa.Array) -> np.ndarray | None:
    """Values (no missing, ASCII, no NUL, one byte width) as a rows x width byte matrix;
    None when they are not all so."""
    if arr.null_count or not len(arr) or not pc.all(pc.string_is_ascii(arr)).as_py():
        return None
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    width = int(offsets[1] - offsets[0])
    if not np.all(np.diff(offsets) == width):
        return None
    if width == 0:
        return np.zeros((len(arr), 0), dtype=np.uint8)
    data = np.frombuffer(bufs[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    matrix = data.reshape(len(arr), width)
    return None if (matrix == 0).any() else matrix


def _containing_own_key(sub_col: pd.Series, key_col: pd.Series) -> int:
    """Crosswalk rows whose subject ID contains its own person key (keys of 3 or more
    characters; missing as empty). Fixed-width ASCII IDs and keys (the usual case) are
    compared as byte matrices, one window per offset; else numpy's string search."""
    sub_text, key_text = arrow_text(sub_col), arrow_text(key_col)
    sub_m, key_m = _same_width_ascii(sub_text), _same_width_ascii(key_text)
    if sub_m is not None and key_m is not None:
        width, size = sub_m.shape[1], key_m.shape[1]
        if size < MIN_KEY_LENGTH or size > width:
            return 0
        hit = np.zeros(len(sub_m), dtype=bool)
        for start in range(width - size + 1):
            hit |= (sub_m[:, start : start + size] == key_m).all(axis=1)
        return int(hit.sum())
    sub = sub_col.astype(STRING).fillna("").to_numpy(dtype=str)
    key = key_col.astype(STRING).fillna("").to_numpy(dtype=str)
    eligible = np.strings.str_len(key) >= MIN_KEY_LENGTH
    return int((eligible & (np.strings.find(sub, key) >= 0)).sum())


def check_subject_ids(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    ids = released_ids(extract, release)
    if ids is None:
        return Finding(False, 1, {"missing_id_column": True})
    duplicates = _repeats(ids)
    missing = int(ids.isna().sum())
    _ids, codes = ctx.released_positions(release, extract.person.name)
    unlinked = sum(int((found < 0).sum()) for t, found in codes.items() if t != extract.person.name)
    equal = _equal_to_a_key(ids, person_keys(extract, project))
    containing = 0
    if release.crosswalk is not None:
        cw = release.crosswalk
        key_col = next(c for c in cw.columns if c != release.id_column)
        containing = _containing_own_key(cw[release.id_column], cw[key_col])
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
        "20 or more rows is counted as a category label. A person's own name or ID "
        "written another way in their own rows (an ID's digits without its letters and "
        "leading zeros, a surname alone, initials) fails it too, when far more rows hold it than "
        "chance would give.",
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
        "The ZIP3 column, the column tagged ZIP (if released), every released column "
        "whose name says postal code (zip, zip_code, postal, postcode, ...) and every "
        "released column whose cells are half or more the extract's own ZIPs, whatever "
        "its name and tag, hold no 5 digits in a row. Other columns are not read as ZIPs "
        "(5-digit incomes, lab values or procedure codes are not ZIPs).",
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
        "Every age above 89 is shown as the single category '90+' (bands included), in "
        "every column of every table read as ages: the age role, a name that says age "
        "(age, age_at_visit, yrs, edad, âge, Alter, età, idade, leeftijd...) with numbers, "
        "or whole numbers that agree with the birth dates (as years, months, weeks or "
        "days), whatever the tag.",
        check_ages,
        SAFE_HARBOR,
    ),
    Check(
        "no_age_revealing_year",
        "No year that reveals the age of a person over 89",
        "45 CFR 164.514(b)(2)(i)(C)",
        BLOCKING,
        "For every person over 89 (from the input at the reference date or at the data's "
        "cut-off, the latest date in the extract, and from the released '90+'), for every "
        "person whose released years lie 91 or more apart, and for every person whose "
        "released birth year lies 90 or more years before the latest released year, no "
        "year is left in any column of any table that holds years: by its name (year, "
        "date, dob, yob...) or by its values (nine in ten of its distinct cells 4-digit "
        "years), whatever its tag.",
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
