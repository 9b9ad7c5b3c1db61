"""A released cell holding its own person's identifier in another form.

The dictionary search (``verify.direct``) finds a direct value written as the extract
writes it, whoever it belongs to. A copy in another form slips past it: an MRN's digits
without its letters and leading zeros (``MRN-0042002`` -> ``42002``), a surname alone
(``KOWALCZYK, J``), a name turned round (``Kowalczyk^John``), initials (``J.K.``). Such
a copy sits in the row of the person it identifies, so it is found by pairing: the words
and digit runs of each released cell are held against the words of the same person's
names and the digits of their IDs, and a cell of two or three letters alone against
their initials.

Agreement by chance (race "White" in the row of a Mr White) is estimated from how many
persons hold each token: a row whose cell holds tokens that a share p of all persons
hold agrees by chance with probability p (at most 1). A column is flagged when at least
``MIN_ROWS`` of its rows hold their own person's identifier and that is at least
``CHANCE_FACTOR`` times the rows expected by chance, plus ``MIN_ROWS``; agreement
through numbers of a few digits alone (``SHORT_SHARE``) must also hold for half the
column's rows. The estimate reads no order of the rows. Counts and column names only, never a value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.persons import positions_in, spec_for
from deid_desktop.core.facts.text import arrow_text, known_codes
from deid_desktop.core.model import ColumnClass, Extract, IdentifierCategory, Project, Release
from deid_desktop.core.verify.base import VerifyContext, released_columns
from deid_desktop.core.verify.own_names import expand_groups, name_tokens
from deid_desktop.core.verify.own_tokens import (
    LAST_FOUR,
    MIN_DIGITS,
    WHOLE,
    ZERO_FOUR,
    IdDigits,
    Tokens,
    among,
    cell_tokens,
    local_numbers,
    whole_digits,
    words,
)

#: A column is flagged when at least this many rows hold their own person's identifier...
MIN_ROWS = 3
#: ...and this many times as many as would by chance (plus ``MIN_ROWS``).
CHANCE_FACTOR = 3
#: A number of a few digits alone in a cell (``42`` for the key ``0042``) agrees with its
#: own person's by chance far more often than the estimate says when values and keys
#: both follow the rows' order (a count 0-6 beside keys 0-29). Agreement found only
#: through such numbers counts when at least this share of the column's rows agree: a
#: copied key is copied for (nearly) everyone.
SHORT_SHARE = 0.5

#: what the finding says a flagged column holds (``verify.plain`` words it)
KIND = "each person's own name or ID written another way (an ID's digits, a surname, initials)"


def _identifier_tokens(extract: Extract, project: Project, present: pa.Array) -> Tokens:
    """The tokens of every person's identifiers that are among ``present`` (owner: the
    person's row in the extract's person table): names (``own_tokens.name_tokens``), the
    words of places, the digits of IDs and of the person key."""
    spec = spec_for(project, extract.person)
    frame = extract.person.frame
    found: list[Tokens] = []
    names: list[pa.Array] = []
    for tag in spec.columns:
        if tag.name not in frame.columns:
            continue
        if tag.name != spec.key and tag.cls != ColumnClass.DIRECT:
            continue
        values = frame[tag.name]
        if tag.category == IdentifierCategory.A:
            names.append(values)
        elif tag.category == IdentifierCategory.B:
            found.append(words(values, present))
        else:
            read = IdDigits.of(values)  # its digits read once for all its tokens
            found.append(whole_digits(read, present))
            if tag.category in (IdentifierCategory.D, IdentifierCategory.E):  # phone, fax
                found.append(local_numbers(read, present))
                found.append(_four(local_numbers(read, present, LAST_FOUR)))
                found.append(_zero_four(read, present))
            if tag.category is IdentifierCategory.G:  # SSN
                found.append(_four(local_numbers(read, present, LAST_FOUR, of_at_least=9)))
                found.append(_zero_four(read, present, of_at_least=9))
    if names:
        found.append(name_tokens(names, present))
    return Tokens.joined(found)


def _four(tokens: Tokens) -> Tokens:
    """Last-four tokens of four digits (``0157`` is read as 157: a short number, which
    every count and measure of the release holds, and which pairing would read for every
    row of every person; such an ending is compared as written, by ``_zero_four``)."""
    digits = pc.binary_length(tokens.token).to_numpy(zero_copy_only=False)
    return tokens.keep(digits > LAST_FOUR)  # the WHOLE mark and four digits


def _zero_four(values: IdDigits, present: pa.Array, of_at_least: int = 10) -> Tokens:
    """The last four digits of each value of ``of_at_least`` digits or more that end in
    four beginning with a zero (``0157``), as ``ZERO_FOUR`` tokens (zero kept), where
    among ``present``: compared only with cells written so (``ZERO_FOUR_CELL``)."""
    digits = values.digits
    last = pc.utf8_slice_codeunits(digits, -LAST_FOUR)
    keep = pc.and_(
        pc.greater_equal(pc.utf8_length(digits), of_at_least), pc.starts_with(last, "0")
    ).to_numpy(zero_copy_only=False)
    mark = pa.scalar(ZERO_FOUR, pa.large_string())
    empty = pa.scalar("", pa.large_string())
    token = pc.binary_join_element_wise(mark, last.cast(pa.large_string()), empty)
    return among([Tokens(np.arange(len(digits), dtype=np.int64), token).keep(keep)], present)


def _same(a: pa.Array, b: pa.Array) -> bool:
    """Whether two text arrays are equal cell for cell, with no missing cell."""
    return len(a) == len(b) and (len(a) == 0 or pc.all(pc.equal(a, b)).as_py() is True)


def source_persons(
    extract: Extract, project: Project, release: Release, ctx: VerifyContext
) -> np.ndarray | None:
    """For each released person row, its row in the extract's person table (-1: none),
    through the held-back crosswalk: by ``Release.crosswalk_rows`` where the pathway
    gave them and the keys agree, else by a join on the keys. None without a crosswalk.
    Worked out once per release for every check that pairs rows with persons."""
    key = ("source_persons", id(release))
    held = ctx.memo.get(key)
    if held is not None and held[0] is release:
        return held[1]
    frame = release.tables.get(extract.person.name)
    found = None
    if frame is not None and release.id_column in frame.columns:
        by_row = crosswalk_persons(extract, project, release, ctx)
        found = _source_persons_from(release, frame, by_row)
    ctx.memo[key] = (release, found)
    return found


def row_persons(where: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Each released row's person row in the extract (-1: none), from its position among
    the released persons (``where``, -1: none) and ``source_persons``."""
    return np.where(where >= 0, source[np.maximum(where, 0)], -1)


def _source_persons_from(
    release: Release, frame: pd.DataFrame, by_row: np.ndarray | None
) -> np.ndarray | None:
    """``source_persons`` from ``crosswalk_persons`` (``by_row``)."""
    cw = release.crosswalk
    if by_row is None or cw is None:
        return None
    cw_ids, ids = arrow_text(cw[release.id_column]), arrow_text(frame[release.id_column])
    at = np.arange(len(ids)) if _same(cw_ids, ids) else positions_in(cw_ids, [ids])[0]
    if len(by_row) == 0:  # an empty crosswalk: no released row has a person
        return np.full(len(ids), -1, dtype=np.int64)
    source = by_row[np.maximum(at, 0)]
    source[at < 0] = -1
    return source


def crosswalk_persons(
    extract: Extract, project: Project, release: Release, ctx: VerifyContext
) -> np.ndarray | None:
    """For each row of the held-back crosswalk, the row of the extract's person table
    whose key it holds (-1: none): by ``Release.crosswalk_rows`` where the pathway gave
    them and the keys agree, else by a join on the keys. None without a crosswalk.
    Worked out once per release (``source_persons`` reads it too)."""
    key = ("crosswalk_persons", id(release))
    held = ctx.memo.get(key)
    if held is not None and held[0] is release:
        return held[1]
    found = _crosswalk_persons(extract, project, release)
    ctx.memo[key] = (release, found)
    return found


def _crosswalk_persons(extract: Extract, project: Project, release: Release) -> np.ndarray | None:
    cw = release.crosswalk
    if cw is None or release.id_column not in cw.columns or cw.shape[1] < 2:
        return None
    key_col = next(c for c in cw.columns if c != release.id_column)
    keys = arrow_text(cw[key_col])
    person_keys = arrow_text(extract.person.frame[spec_for(project, extract.person).key])
    rows = release.crosswalk_rows
    if rows is not None and len(rows) == len(keys) and _same(person_keys.take(rows), keys):
        return np.asarray(rows, dtype=np.int64)
    return positions_in(person_keys, [keys])[0]


def _agreeing_rows(
    cell_of: np.ndarray, code: np.ndarray, uniq: pa.Array, held: np.ndarray, values: pa.Array,
    where: np.ndarray, pairing: _Pairing, known: tuple[np.ndarray, pa.Array] | None = None,
) -> tuple[int, int, float]:  # fmt: skip
    """Rows whose cell holds a token of their own person's identifiers, those of them
    holding one that is not a short number, and how many would by chance. ``cell_of``,
    ``code``: the distinct cells ``uniq`` (each held by ``held`` rows) and the codes of
    the identifier tokens they hold; ``where``: each row's released person (-1: none).
    ``known``: the codes the pathway noted for ``values`` (``facts.text.known_codes``):
    each row's cell is then found among the candidate cells through its code."""
    # by chance: a row's cell holds a token of a person drawn at random with the share
    # of persons holding that token (summed over the cell's tokens, at most 1)
    weights = pairing.holders[code] / pairing.persons
    share = np.minimum(np.bincount(cell_of, weights=weights), 1.0)
    chance = float((share * held[: len(share)]).sum())
    # the rows of persons holding any of the tokens, whose cell holds one
    rows = np.flatnonzero(pairing.holds[where])
    if len(rows) == 0:
        return 0, 0, chance
    candidates = np.unique(cell_of)
    value_set = uniq.take(pa.array(candidates))
    if known is not None and len(known[0]) == len(values):
        rows, which = _candidate_rows(rows, value_set, *known)
    else:
        found = pc.index_in(values.take(pa.array(rows)), value_set=value_set)
        at = found.to_numpy(zero_copy_only=False)
        hit = ~np.isnan(at) if at.dtype.kind == "f" else np.ones(len(at), bool)
        rows, which = rows[hit], at[hit].astype(np.int64)
    # each candidate cell's codes, expanded for the rows holding that cell
    items, entries = expand_groups(np.searchsorted(candidates, cell_of), len(candidates), which)
    row_of, pair_code = rows[items], code[entries]
    person = pairing.source[where[row_of]]
    key = person * np.int64(pairing.width) + pair_code
    at = np.searchsorted(pairing.own, key)
    own = pairing.own
    match = (at < len(own)) & (own[np.minimum(at, len(own) - 1)] == key)
    strong = match & ~pairing.short[pair_code]
    return len(np.unique(row_of[match])), len(np.unique(row_of[strong])), chance


def _candidate_rows(
    rows: np.ndarray, value_set: pa.Array, codes: np.ndarray, dictionary: pa.Array
) -> tuple[np.ndarray, np.ndarray]:
    """The ``rows`` whose cell is among ``value_set``, and where: each distinct value of
    the column (``dictionary``) is looked up once, each row through its code (-1:
    missing), with no text taken per row."""
    if len(dictionary) == 0:
        return rows[:0], np.zeros(0, dtype=np.int64)
    at = pc.index_in(dictionary, value_set=value_set).fill_null(-1)
    where = at.to_numpy(zero_copy_only=False).astype(np.int64)
    code = codes[rows]
    found = np.where(code >= 0, where[np.maximum(code, 0)], -1)
    hit = found >= 0
    return rows[hit], found[hit]


@dataclass(frozen=True)
class _Pairing:
    """The persons' identifier tokens as sorted keys (person * width + token code), how
    many persons hold each token, and which released persons hold any."""

    own: np.ndarray
    width: int
    holders: np.ndarray
    short: np.ndarray  # token code -> a short number alone (``SHORT_SHARE``)
    persons: int
    source: np.ndarray  # released person row -> extract person row
    holds: np.ndarray  # released person row -> holds a token (one more: False, for -1)


def own_identifier_rows(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> dict[str, dict[str, object]]:
    """Released columns ("table.column") whose rows hold their own person's identifier
    in another form -> {"rows": rows holding it, "kind": what}."""
    source = source_persons(extract, project, release, ctx)
    if source is None or len(extract.person.frame) < 2:
        return {}
    columns = released_columns(release)
    by_column: dict[int, tuple[pa.Array, Tokens]] = {}
    for i, (t, c, values) in enumerate(columns):
        uniq = ctx.uniques(t, c, values)
        if len(uniq):
            cells = arrow_text(uniq.index)
            found = cell_tokens(cells)
            if len(found.owner):
                by_column[i] = (cells, found)
    if not by_column:
        return {}
    present = pc.unique(pa.chunked_array([f.token for _, f in by_column.values()]))
    ident = _identifier_tokens(extract, project, present)
    if len(ident.owner) == 0:
        return {}
    vocab = pc.unique(ident.token)
    width = len(vocab)
    code = pc.index_in(ident.token, value_set=vocab).to_numpy(zero_copy_only=False)
    own = np.unique(ident.owner * np.int64(width) + code.astype(np.int64))
    n_persons = len(extract.person.frame)
    holding = np.zeros(n_persons, dtype=bool)
    holding[own // np.int64(width)] = True
    holds = np.append(np.where(source >= 0, holding[np.maximum(source, 0)], False), False)
    short = pc.and_(
        pc.starts_with(vocab, WHOLE), pc.less_equal(pc.binary_length(vocab), MIN_DIGITS)
    )
    pairing = _Pairing(own, width, np.bincount(own % width, minlength=width),
                       short.to_numpy(zero_copy_only=False), n_persons, source, holds)  # fmt: skip
    _ids, positions = ctx.released_positions(release, extract.person.name)
    flagged: dict[str, dict[str, object]] = {}
    for i, (cells, found) in by_column.items():
        t, c, values = columns[i]
        where = positions.get(t)
        at = pc.index_in(found.token, value_set=vocab).to_numpy(zero_copy_only=False)
        known = ~np.isnan(at) if at.dtype.kind == "f" else np.ones(len(at), bool)
        if where is None or not known.any():
            continue
        held = ctx.uniques(t, c, values).to_numpy(dtype=np.float64)
        mine, strong, chance = _agreeing_rows(
            found.owner[known], at[known].astype(np.int64), cells, held, arrow_text(values),
            where, pairing, known_codes(values),
        )  # fmt: skip
        enough = CHANCE_FACTOR * chance + MIN_ROWS
        if (
            mine >= MIN_ROWS
            and mine >= enough
            and (strong >= enough or mine >= SHORT_SHARE * held.sum())
        ):
            flagged[f"{t}.{c}"] = {"rows": mine, "kind": KIND}
    return flagged
