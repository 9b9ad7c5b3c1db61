"""The ZIP checks of the Safe Harbor and linkable gates (45 CFR 164.514(b)(2)(i)(B)): no
5-digit ZIP in any column that can hold one (the ZIP3 and ZIP-role columns, a column
named for postal codes, a column that copies the extract's own ZIPs whatever its name),
and only allowed ZIP3 prefixes. The detail names columns and counts, never a value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import pairwise

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.text import STRING, arrow_text, in_set
from deid_desktop.core.facts.years import years_by_values
from deid_desktop.core.model import Extract, Project, Release, Role
from deid_desktop.core.pathways.common import ZIP3_COLUMN
from deid_desktop.core.verify.base import (
    Finding,
    VerifyContext,
    released_columns,
    rows_matching,
)
from deid_desktop.core.verify.own_values import row_persons, source_persons
from deid_desktop.core.zip3 import ZIP3_UNKNOWN

_ZIP5_ANYWHERE = r"\d{5}"


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


#: A released column copies the extract's ZIPs when this share of its filled cells hold
#: one of the extract's 5-digit ZIPs.
_ZIP_COPY_SHARE = 0.5
_ZIP5_CELL = r"^\s*(?P<zip>\d{5})(?:-\d{4})?\s*$"
#: A 5-digit ZIP (or ZIP+4) anywhere in a cell: "Area 02134", "Boston, MA 02134-1234".
_ZIP5_IN_CELL = r"(?:^|\D)(?P<zip>\d{5})(?:-\d{4})?(?:\D|$)"
#: A ZIP that lost its leading zero (a spreadsheet read it as a number): "2134".
_ZIP_LOST_ZERO = r"^\s*(?P<zip>\d{4})\s*$"


def _extract_zip5s(extract: Extract, project: Project) -> pa.Array:
    """The distinct 5-digit ZIPs of the extract's ZIP-role columns (ZIP+4 cut to 5, a
    4-digit ZIP given back its leading zero)."""
    found: list[pa.Array] = []
    for table in extract.tables:
        try:
            tag = project.table(table.name).by_role(Role.ZIP)
        except KeyError:
            tag = None
        if tag is not None and tag.name in table.frame.columns:
            text = pc.unique(arrow_text(table.frame[tag.name]))
            found.append(_zip5_of(text).drop_null())
            found.append(_lost_zero(text).drop_null())
    if not found:
        return pa.array([], pa.string())
    return pc.unique(pa.concat_arrays(found))


def _field(text: pa.Array, pattern: str) -> pa.Array:
    return pc.struct_field(pc.extract_regex(text, pattern), [0]).cast(pa.string())


def _zip5_of(text: pa.Array) -> pa.Array:
    """Each cell's 5-digit ZIP when the cell is a ZIP or ZIP+4 (null otherwise)."""
    return _field(text, _ZIP5_CELL)


def _lost_zero(text: pa.Array) -> pa.Array:
    """Each 4-digit cell with its leading zero given back (null otherwise)."""
    return pc.binary_join_element_wise("0", _field(text, _ZIP_LOST_ZERO), "")


def _holding_extract_zips(uniq: pd.Series, zips: pa.Array) -> tuple[int, int, int]:
    """Rows (from a column's distinct cells) holding one of ``zips`` anywhere in the cell,
    rows that are one of them without its leading zero, and filled rows."""
    text = pa.array(pd.Series(uniq.index, dtype=STRING))
    inside = pc.fill_null(pc.is_in(_field(text, _ZIP5_IN_CELL), value_set=zips), False)
    lost = pc.fill_null(pc.is_in(_lost_zero(text), value_set=zips), False)
    counts = uniq.to_numpy()
    inside_n = int(counts[inside.to_numpy(zero_copy_only=False)].sum())
    lost_n = int(counts[lost.to_numpy(zero_copy_only=False)].sum())
    return inside_n, lost_n, int(counts.sum())


def _zip_copies(
    extract: Extract, project: Project, release: Release, ctx: VerifyContext
) -> dict[tuple[str, str], int]:
    """Released columns, whatever their name and tag, half or more of whose filled cells
    hold one of the extract's own 5-digit ZIPs - as the whole cell, inside a text
    ("Area 02134") or without its leading zero ("2134"): the ZIP kept as a clinical
    ``loc_code``. Five-digit codes of another meaning (CPT codes, incomes) rarely are the
    persons' own ZIPs. -> the rows holding a ZIP without its leading zero (which the
    5-digit pattern does not count)."""
    zips = _extract_zip5s(extract, project)
    out: dict[tuple[str, str], int] = {}
    if not len(zips):
        return out
    for t, c, values in released_columns(release):
        uniq = ctx.uniques(t, c, values)
        if uniq.empty:
            continue
        inside, lost, filled = _holding_extract_zips(uniq, zips)
        if lost and years_by_values(uniq):
            lost = 0  # years 1850-2100 are also ZIPs 01850-02100 without their zero
        if inside + lost >= _ZIP_COPY_SHARE * filled:
            out[(t, c)] = lost
    return out


def _zip5_columns(
    extract: Extract, project: Project, release: Release, ctx: VerifyContext
) -> dict[tuple[str, str], int]:
    """What can hold a ZIP: the ZIP3 and ZIP-role columns, every released column whose
    name says postal code, whatever its class, and every column that copies the
    extract's ZIPs, whatever its name (-> its rows holding a ZIP without its leading
    zero, 0 for the others)."""
    out = dict.fromkeys(_zip_columns(project, release), 0)
    out.update(_zip_copies(extract, project, release, ctx))
    for column, rows in _spread_zip_copies(extract, project, release, ctx).items():
        out[column] = out.get(column, 0) + rows
    for t, c, _values in released_columns(release):
        if names_a_postal_code(c):
            out.setdefault((t, c), 0)
    return dict(sorted(out.items()))


def check_no_zip5(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    per_column: dict[str, int] = {}
    checked = _zip5_columns(extract, project, release, ctx)
    for (t, c), lost in checked.items():
        n = rows_matching(ctx.uniques(t, c, release.tables[t][c]), _ZIP5_ANYWHERE) + lost
        if n:
            per_column[f"{t}.{c}"] = n
    count = sum(per_column.values())
    return Finding(
        count == 0,
        count,
        {"cells_by_column": per_column, "columns_checked": [f"{t}.{c}" for t, c in checked]},
    )


#: A ZIP3 as a cell: three digits alone, or masked as a ZIP (``036XX``, ``036**``).
_ZIP3_CELL = r"^\s*(?P<zip>\d{3})(?:[xX]{2}|\*{2}|#{2}|-{2}|_{2})?\s*$"
_MASKED_ZIP = r"^\s*\d{3}(?:[xX]{2}|\*{2}|#{2}|-{2}|_{2})\s*$"
_ZIP3_SHAPE = r"^\s*\d{3}(?:[xX]{2}|\*{2}|#{2}|-{2}|_{2})?\s*$"
#: A column whose cells are half or more masked ZIPs holds ZIP3s whatever its name.
_MASKED_SHARE = 0.5
#: A column holds ZIP3s whatever its name when this share of its filled rows are their
#: own person's ZIP3 (and at least ``_ZIP3_COPY_ROWS`` rows are).
_ZIP3_COPY_SHARE = 0.5
_ZIP3_COPY_ROWS = 3


def _zip3_numbers(text: pa.Array, pattern: str) -> np.ndarray:
    """The ZIP3 each cell holds by ``pattern`` (group ``zip``; its first three digits)
    as a number 0-999, -1 where none."""
    return _zip_numbers(pc.utf8_slice_codeunits(_field(text, pattern), 0, 3), r"^(?P<zip>\d+)$")


def _zip_numbers(text: pa.Array, pattern: str) -> np.ndarray:
    """What each cell holds by ``pattern`` (group ``zip``, digits) as a number, -1 where
    nothing."""
    found = _field(text, pattern)
    return pc.fill_null(pc.cast(found, pa.int64(), safe=False), -1).to_numpy(zero_copy_only=False)


def _person_zip3s(extract: Extract, project: Project) -> np.ndarray | None:
    """Each person's ZIP3 as a number (-1: none) from the person table's ZIP-role
    column (a ZIP, a ZIP+4 or a ZIP that lost its leading zero), read per distinct
    value; None without such a column."""
    return _person_zips(extract, project, r"^(?P<zip>\d{3})")


def _person_zips(extract: Extract, project: Project, pattern: str) -> np.ndarray | None:
    """Each person's ZIP (as ``_person_zip3s``) read by ``pattern``: its first three
    digits, or all five."""
    try:
        tag = project.table(extract.person.name).by_role(Role.ZIP)
    except KeyError:
        return None
    if tag is None or tag.name not in extract.person.frame.columns:
        return None
    encoded = pc.dictionary_encode(arrow_text(extract.person.frame[tag.name]))
    distinct = encoded.dictionary
    zip5 = pc.coalesce(_zip5_of(distinct), _lost_zero(distinct))
    per_value = np.append(_zip_numbers(zip5, pattern), -1)  # the last: none
    codes = encoded.indices.fill_null(len(distinct)).to_numpy(zero_copy_only=False)
    return per_value[codes]


#: A ZIP written with a space or a hyphen between its digits (``919-41``, ``9 1 9 4 1``).
_SPREAD_ZIP = r"^\s*\d(?:[ -]?\d){4}\s*$"


def _spread_cells(cells: pa.Array) -> np.ndarray:
    """Which cells are a ZIP written with spaces or hyphens (not a plain ZIP)."""
    plain = pc.match_substring_regex(cells, _ZIP5_CELL)
    spread = pc.match_substring_regex(cells, _SPREAD_ZIP)
    return pc.and_(spread, pc.invert(plain)).to_numpy(zero_copy_only=False)


def _zip3_cells(cells: pa.Array) -> np.ndarray:
    """Which cells are three digits, alone or masked as a ZIP."""
    return pc.match_substring_regex(cells, _ZIP3_SHAPE).to_numpy(zero_copy_only=False)


def _shaped_columns(
    release: Release,
    ctx: VerifyContext,
    shaped_of: Callable[[pa.Array], np.ndarray],
    skip: set[tuple[str, str]] | frozenset[tuple[str, str]] = frozenset(),
) -> Iterator[tuple[str, str, pd.Series, pd.Series, pa.Array, np.ndarray, np.ndarray, float]]:
    """(table, column, values, distinct cells -> rows, the cells as text, their rows,
    which ``shaped_of`` picks, the rows a copy needs) of each released column half or
    more of whose filled rows (and ``_ZIP3_COPY_ROWS``) are such cells: the columns
    worth pairing with the persons (most columns end here)."""
    for t, c, values in released_columns(release):
        if (t, c) in skip or c == release.id_column:
            continue
        uniq = ctx.uniques(t, c, values)
        filled = int(uniq.sum())
        if not filled:
            continue
        enough = max(_ZIP3_COPY_ROWS, _ZIP3_COPY_SHARE * filled)
        cells = arrow_text(uniq.index)
        shaped = shaped_of(cells)
        counts = uniq.to_numpy()
        if counts[shaped].sum() >= enough:
            yield t, c, values, uniq, cells, counts, shaped, enough


def _spread_zip_copies(
    extract: Extract, project: Project, release: Release, ctx: VerifyContext
) -> dict[tuple[str, str], int]:
    """Released columns half or more of whose filled rows are their own person's ZIP
    written with spaces or hyphens between its digits (which the 5-digit pattern does
    not read) -> rows holding such a ZIP. Paired with the persons, as ZIP3 copies are:
    five digits so written are rare, but when the extract's ZIPs cover the country a
    third of all 5-digit numbers are one of them."""
    own: np.ndarray | None = None
    out: dict[tuple[str, str], int] = {}
    for t, c, values, uniq, cells, counts, spread, _enough in _shaped_columns(
        release, ctx, _spread_cells
    ):
        if own is None:
            own = _person_zips(extract, project, r"^(?P<zip>\d{5})")
            if own is None:
                return out
        digits = pc.replace_substring_regex(cells, r"\D", "")
        cell_zip = np.where(spread, _zip_numbers(digits, r"^(?P<zip>\d{5})$"), -1)
        if _paired_agree(extract, project, release, ctx, t, values, uniq, cell_zip, own):
            out[(t, c)] = int(counts[spread].sum())
    return out


def _zip3_copies(
    extract: Extract,
    project: Project,
    release: Release,
    ctx: VerifyContext,
    skip: set[tuple[str, str]],
) -> set[tuple[str, str]]:
    """Released columns, whatever their name and tag, half or more of whose filled rows
    are their own person's ZIP3 (three digits alone or masked): the ZIP3 kept a second
    time as a clinical ``area`` beside the ZIP3 column that blanked the restricted ones.
    Found by pairing each row with its person, so 3-digit measurements (a systolic
    pressure of 120) are not taken for ZIP3s by chance. First, on the distinct cells
    alone, half the rows must hold a ZIP3 some person has; only such columns are paired."""
    own: np.ndarray | None = None
    out: set[tuple[str, str]] = set()
    for t, c, values, uniq, cells, counts, _shaped, enough in _shaped_columns(
        release, ctx, _zip3_cells, skip
    ):
        if own is None:
            own = _person_zip3s(extract, project)
            if own is None:
                return out
        cell_zip3 = _zip3_numbers(cells, _ZIP3_CELL)
        if counts[np.isin(cell_zip3, own[own >= 0])].sum() < enough:
            continue  # too few are a ZIP3 any person has (3-digit measurements)
        if not _paired_agree(extract, project, release, ctx, t, values, uniq, cell_zip3, own):
            continue
        out.add((t, c))
    return out


def _paired_agree(
    extract: Extract, project: Project, release: Release, ctx: VerifyContext, table: str,
    values: pd.Series, uniq: pd.Series, cell_zip3: np.ndarray, own: np.ndarray,
) -> bool:  # fmt: skip
    """Whether half the column's filled rows (and ``_ZIP3_COPY_ROWS``) hold their own
    person's ZIP3: each row paired with its person through the crosswalk."""
    source = source_persons(extract, project, release, ctx)
    _ids, positions = ctx.released_positions(release, extract.person.name)
    where = positions.get(table)
    if source is None or where is None:
        return False
    at = pc.index_in(arrow_text(values), value_set=arrow_text(uniq.index))
    cell = np.append(cell_zip3, -1)[at.fill_null(len(cell_zip3)).to_numpy(zero_copy_only=False)]
    person = row_persons(where, source)
    theirs = np.where(person >= 0, own[np.maximum(person, 0)], -2)
    agree = int(np.count_nonzero((cell == theirs) & (cell >= 0)))
    return agree >= max(_ZIP3_COPY_ROWS, _ZIP3_COPY_SHARE * int(uniq.sum()))


def _zip3_read_columns(
    extract: Extract, project: Project, release: Release, ctx: VerifyContext
) -> list[tuple[str, str]]:
    """Columns whose ZIP3s are judged: the ZIP3 and ZIP-role columns, every released
    column named for postal codes, every column of masked ZIPs (``036XX``) and every
    column that copies its persons' own ZIP3s."""
    out = set(_zip_columns(project, release))
    for t, c, values in released_columns(release):
        if (t, c) in out or c == release.id_column:
            continue
        if names_a_postal_code(c):
            out.add((t, c))
            continue
        uniq = ctx.uniques(t, c, values)
        filled = int(uniq.sum())
        if filled and rows_matching(uniq, _MASKED_ZIP) >= _MASKED_SHARE * filled:
            out.add((t, c))
    out |= _zip3_copies(extract, project, release, ctx, out)
    return sorted(out)


def check_zip3_allowed(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    table = ctx.zip_table()
    allowed = list(table.allowed_prefixes | {ZIP3_UNKNOWN})
    per_column: dict[str, int] = {}
    own = set(_zip_columns(project, release))
    for t, c in _zip3_read_columns(extract, project, release, ctx):
        values = release.tables[t][c].astype(STRING)
        if (t, c) not in own:  # read the ZIP3 in a cell that is one (3 digits, masked)
            values = values.str.extract(_ZIP3_CELL, expand=False).astype(STRING)
        bad = ~in_set(values, allowed) & values.notna().to_numpy(dtype=bool)
        if bad.any():
            per_column[f"{t}.{c}"] = int(bad.sum())
    count = sum(per_column.values())
    return Finding(count == 0, count, {"cells_by_column": per_column, "zip3_table": table.vintage})
