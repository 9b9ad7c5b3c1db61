"""A released cell holding its own person's identifier in another form.

The dictionary search (``verify.direct``) finds a direct value written as the extract
writes it, whoever it belongs to. A copy in another form slips past it: an MRN's digits
without its letters and leading zeros (``MRN-0042002`` -> ``42002``), a surname alone
(``KOWALCZYK, J``), a name turned round (``Kowalczyk^John``). Such a copy sits in the
row of the person it identifies, so it is found by pairing: the words and digit runs of
each released cell are held against the words of the same person's names and IDs.

Agreement by chance (race "White" in the row of a Mr White) is estimated from how many
persons hold each token: a row whose cell holds tokens that a share p of all persons
hold agrees by chance with probability p (at most 1). A column is flagged when at least
``MIN_ROWS`` of its rows hold their own person's identifier and that is at least
``CHANCE_FACTOR`` times the rows expected by chance, plus ``MIN_ROWS``. The estimate
reads no order of the rows. Counts and column names only, never a value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.digits import only_digits
from deid_desktop.core.facts.persons import positions_in, spec_for
from deid_desktop.core.facts.text import arrow_text
from deid_desktop.core.model import ColumnClass, Extract, IdentifierCategory, Project, Release
from deid_desktop.core.verify.base import VerifyContext, released_columns

#: Words shorter than this are not compared (initials, "jr", "mr").
MIN_LETTERS = 3
#: Digit runs (leading zeros dropped) shorter than this are not compared (counts, days).
MIN_DIGITS = 4
#: A column is flagged when at least this many rows hold their own person's identifier...
MIN_ROWS = 3
#: ...and this many times as many as would by chance (plus ``MIN_ROWS``).
CHANCE_FACTOR = 3

#: Direct columns whose words are compared (names, places); the digits of the others
#: (IDs, phones, the person key) are.
WORDS = frozenset({IdentifierCategory.A, IdentifierCategory.B})

#: a character that is not part of a word (``tokens_of``: a-z and non-ASCII are)
_NOT_LETTER = r"[^a-z\x{80}-\x{10ffff}]"

#: a cell that is only initials: two or three letters, each alone or with a dot
_INITIALS_CELL = r"^\s*[a-z]\.?(?:\s?[a-z]\.?){1,2}\s*$"
#: initials tokens begin with this (never in text), so they match initials only
_INITIALS = "\x01"

#: what the finding says a flagged column holds (``verify.plain`` words it)
KIND = "each person's own name or ID written another way (an ID's digits, a surname alone)"


@dataclass(frozen=True)
class _Tokens:
    """Words and digit runs of some values: ``owner[i]`` is the value ``token[i]`` came from."""

    owner: np.ndarray
    token: pa.Array

    def keep(self, mask: np.ndarray) -> _Tokens:
        return _Tokens(self.owner[mask], self.token.filter(pa.array(mask)))


def _bytes_of(values: pa.Array) -> tuple[np.ndarray, np.ndarray, int]:
    """A large_string array without nulls as (its UTF-8 bytes, offsets from 0, where
    its bytes start in its data buffer)."""
    bufs = values.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[
        values.offset : values.offset + len(values) + 1
    ]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.empty(0, "u1")
    return data[offsets[0] : offsets[-1]], offsets - offsets[0], int(offsets[0])


def _ranges(values: pa.Array, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """The byte ranges [start, end) of ``values``' data (in order, not overlapping) as
    strings, taken in C: the ranges and the gaps between them read as one string
    array, then every other string taken."""
    bufs = values.buffers()
    bounds = np.empty(2 * len(starts), dtype=np.int64)
    bounds[0::2], bounds[1::2] = starts, ends
    spans = pa.LargeStringArray.from_buffers(
        len(bounds) - 1 if len(bounds) else 0, pa.py_buffer(bounds), bufs[2]
    )
    return spans.take(pa.array(np.arange(0, len(bounds), 2, dtype=np.int64)))


def tokens_of(values: pa.Array, *, whole_digits: bool = False) -> _Tokens:
    """Each value's words (lower case, ``MIN_LETTERS`` bytes or more) and digit runs
    (leading zeros dropped, ``MIN_DIGITS`` or more); letters and digits written together
    are two tokens (``mrn0042002`` -> ``mrn``, ``42002``). ``whole_digits``: each value's
    digits read together are one more token (``123-45-6789`` -> ``123456789``). Runs are
    found in numpy over the UTF-8 bytes (a byte of a non-ASCII character counts as a
    letter) and cut out in Arrow."""
    low = pc.utf8_lower(arrow_text(values).fill_null(""))
    chunk, offsets, base = _bytes_of(low)
    digit = (chunk >= 48) & (chunk <= 57)
    letter = ((chunk >= 97) & (chunk <= 122)) | (chunk >= 0x80)
    kind = letter.view(np.int8) + 2 * digit.view(np.int8)
    change = np.ones(len(chunk) + 1, dtype=bool)
    np.not_equal(kind[1:], kind[:-1], out=change[1:-1])
    change[offsets] = True  # a value's first byte, and the end
    bounds = np.flatnonzero(change)
    firsts, lasts = bounds[:-1], bounds[1:]
    run_kind = kind[firsts]
    keep = run_kind > 0
    firsts, lasts, run_kind = firsts[keep], lasts[keep], run_kind[keep]
    tokens = pc.utf8_ltrim(_ranges(low, firsts + base, lasts + base), "0")
    owner = np.searchsorted(offsets, firsts, side="right") - 1
    if whole_digits:
        at = np.flatnonzero(digit)
        held = np.bincount(np.searchsorted(offsets, at, side="right") - 1, minlength=len(low))
        ends = np.concatenate(([0], np.cumsum(held)))
        joined = pa.LargeStringArray.from_buffers(
            len(low), pa.py_buffer(ends.astype(np.int64)), pa.py_buffer(chunk[at])
        )
        tokens = pa.concat_arrays([tokens, pc.utf8_ltrim(joined, "0")])
        owner = np.concatenate([owner, np.arange(len(low), dtype=np.int64)])
        run_kind = np.concatenate([run_kind, np.full(len(low), 2, dtype=np.int8)])
    length = pc.binary_length(tokens).to_numpy(zero_copy_only=False)
    wanted = np.where(run_kind == 2, length >= MIN_DIGITS, length >= MIN_LETTERS)
    found = _Tokens(owner.astype(np.int64), tokens)
    found = found if wanted.all() else found.keep(wanted)
    # a cell that is only initials ("JK", "J.K.", "j m k") is one more token
    alone = np.flatnonzero(pc.match_substring_regex(low, _INITIALS_CELL).to_numpy(False))
    if len(alone) == 0:
        return found
    letters = pc.replace_substring_regex(low.take(pa.array(alone)), "[^a-z]", "")
    return _Tokens(
        np.concatenate([found.owner, alone]),
        pa.concat_arrays([found.token, _as_initials(letters)]),
    )


def _as_initials(letters: pa.Array) -> pa.Array:
    """Initials as tokens: marked so that they are compared with initials only."""
    letters = letters.cast(pa.large_string())
    mark = pa.scalar(_INITIALS, pa.large_string())
    return pc.binary_join_element_wise(mark, letters, pa.scalar("", pa.large_string()))


def _initials(spec_columns: list[pa.Array], present: pa.Array) -> _Tokens:
    """Each person's initials among ``present``: the first letter of every word of
    their names, in column order (``jmk``), and first and last alone both ways
    (``jk``, ``kj``)."""
    firsts: list[pa.Array] = []
    none = pa.scalar("", pa.large_string())
    for values in spec_columns:
        low = pc.utf8_lower(arrow_text(values).fill_null(""))
        parts = pc.split_pattern_regex(low, "[^a-z]+")
        heads = pc.utf8_slice_codeunits(pc.list_flatten(parts), 0, 1)
        firsts.append(pc.binary_join(pa.LargeListArray.from_arrays(parts.offsets, heads), none))
    every = pc.binary_join_element_wise(*firsts, none) if len(firsts) > 1 else firsts[0]
    first, last = pc.utf8_slice_codeunits(every, 0, 1), pc.utf8_slice_codeunits(every, -1)
    n = len(every)
    forms = [every, pc.binary_join_element_wise(first, last, none),
             pc.binary_join_element_wise(last, first, none)]  # fmt: skip
    tokens = [_Tokens(np.arange(n, dtype=np.int64), _as_initials(f)) for f in forms]
    return _among(tokens, present)


def _words(values: pa.Array, present: pa.Array) -> _Tokens:
    """Each value's words among ``present`` (runs of a-z and non-ASCII characters, lower
    case, as ``tokens_of`` finds them): the fast path for names, whose digits are not
    compared. A value of one word is its own token; only the others are split."""
    low = pc.utf8_lower(arrow_text(values).fill_null(""))
    several = pc.match_substring_regex(low, _NOT_LETTER).to_numpy(zero_copy_only=False)
    one = np.flatnonzero(~several)
    found = [_Tokens(one, low.take(pa.array(one)) if len(one) < len(low) else low)]
    if several.any():
        split = np.flatnonzero(several)
        parts = pc.split_pattern_regex(low.take(pa.array(split)), _NOT_LETTER + "+")
        owner = pc.list_parent_indices(parts).to_numpy(zero_copy_only=False)
        found.append(_Tokens(split[owner], pc.list_flatten(parts)))
    return _among(found, present)


def _whole_digits(values: pa.Array, present: pa.Array) -> _Tokens:
    """Each value's digits read together, leading zeros dropped (``MRN-0042002`` ->
    ``42002``), where among ``present``."""
    digits = pc.utf8_ltrim(only_digits(arrow_text(values).fill_null("")), "0")
    return _among([_Tokens(np.arange(len(digits), dtype=np.int64), digits)], present)


def _among(parts: list[_Tokens], present: pa.Array) -> _Tokens:
    """The tokens of ``parts`` that are among ``present`` (which holds no token too
    short to compare), as one."""
    kept = [
        p.keep(pc.is_in(p.token, value_set=present).to_numpy(zero_copy_only=False)) for p in parts
    ]
    return _Tokens(
        np.concatenate([k.owner.astype(np.int64) for k in kept]),
        pa.concat_arrays([k.token.cast(pa.large_string()) for k in kept]),
    )


def _identifier_tokens(extract: Extract, project: Project, present: pa.Array) -> _Tokens:
    """The tokens of every person's identifiers that are among ``present`` (owner: the
    person's row in the extract's person table): the words of names and places, the
    digits of IDs and of the person key (compared with the released digit runs)."""
    spec = spec_for(project, extract.person)
    frame = extract.person.frame
    found: list[_Tokens] = []
    for tag in spec.columns:
        if tag.name not in frame.columns:
            continue
        if tag.name != spec.key and tag.cls != ColumnClass.DIRECT:
            continue
        values = frame[tag.name]
        words = tag.category in WORDS
        found.append(_words(values, present) if words else _whole_digits(values, present))
    names = [frame[t.name] for t in spec.columns if t.name in frame.columns
             and t.cls == ColumnClass.DIRECT and t.category == IdentifierCategory.A]  # fmt: skip
    marked = pc.starts_with(present, _INITIALS).to_numpy(zero_copy_only=False)
    if names and marked.any():
        found.append(_initials(names, present.filter(pa.array(marked))))
    if not found:
        return _Tokens(np.empty(0, np.int64), pa.array([], type=pa.large_string()))
    return _Tokens(
        np.concatenate([f.owner for f in found]), pa.concat_arrays([f.token for f in found])
    )


def _same(a: pa.Array, b: pa.Array) -> bool:
    """Whether two text arrays are equal cell for cell, with no missing cell."""
    return len(a) == len(b) and (len(a) == 0 or pc.all(pc.equal(a, b)).as_py() is True)


def _source_persons(extract: Extract, project: Project, release: Release) -> np.ndarray | None:
    """For each released person row, its row in the extract's person table (-1: none),
    through the held-back crosswalk: by ``Release.crosswalk_rows`` where the pathway
    gave them and the keys agree, else by a join on the keys. None without a crosswalk."""
    frame = release.tables.get(extract.person.name)
    cw = release.crosswalk
    if frame is None or cw is None or release.id_column not in frame.columns:
        return None
    if release.id_column not in cw.columns or cw.shape[1] < 2:
        return None
    key_col = next(c for c in cw.columns if c != release.id_column)
    cw_ids, ids = arrow_text(cw[release.id_column]), arrow_text(frame[release.id_column])
    at = np.arange(len(ids)) if _same(cw_ids, ids) else positions_in(cw_ids, [ids])[0]
    keys = arrow_text(cw[key_col])
    person_keys = arrow_text(extract.person.frame[spec_for(project, extract.person).key])
    rows = release.crosswalk_rows
    if rows is not None and len(rows) == len(keys) and _same(person_keys.take(rows), keys):
        by_row = np.asarray(rows, dtype=np.int64)
    else:
        by_row = positions_in(person_keys, [keys])[0]
    source = by_row[np.maximum(at, 0)]
    source[at < 0] = -1
    return source


def _agreeing_rows(
    cells: _Tokens, uniq: pa.Array, held: np.ndarray, values: pa.Array, person: np.ndarray,
    own: np.ndarray, vocab: pa.Array, holders: np.ndarray, n_persons: int,
) -> tuple[int, float]:  # fmt: skip
    """Rows whose cell holds a token of their own person's identifiers, and how many
    would by chance. ``cells``: the tokens of the distinct cells ``uniq``, each held by
    ``held`` rows; ``person``: each row's person (-1: none); ``own``: sorted keys
    person * len(vocab) + token code; ``holders``: persons per token code."""
    code = pc.index_in(cells.token, value_set=vocab).to_numpy(zero_copy_only=False)
    known = ~np.isnan(code) if code.dtype.kind == "f" else np.ones(len(code), bool)
    if not known.any():
        return 0, 0.0
    cell_of, code = cells.owner[known], code[known].astype(np.int64)
    # by chance: a row's cell holds a token of a person drawn at random with the share
    # of persons holding that token (summed over the cell's tokens, at most 1)
    share = np.minimum(np.bincount(cell_of, weights=holders[code] / n_persons), 1.0)
    chance = float((share * held[: len(share)]).sum())
    # the rows of persons holding any of the tokens, whose cell holds one
    candidates = np.unique(cell_of)
    holds = np.zeros(n_persons + 1, dtype=bool)  # the last: no person (-1)
    holds[own // np.int64(len(vocab))] = True
    rows = np.flatnonzero(holds[person])
    if len(rows) == 0:
        return 0, chance
    found = pc.index_in(values.take(pa.array(rows)), value_set=uniq.take(pa.array(candidates)))
    at = found.to_numpy(zero_copy_only=False)
    hit = ~np.isnan(at) if at.dtype.kind == "f" else np.ones(len(at), bool)
    rows, which = rows[hit], at[hit].astype(np.int64)
    # each candidate cell's codes (CSR), expanded for the rows holding that cell
    cand = np.searchsorted(candidates, cell_of)
    order = np.argsort(cand, kind="stable")
    starts = np.searchsorted(cand[order], np.arange(len(candidates) + 1))
    counts = starts[which + 1] - starts[which]
    row_of = np.repeat(rows, counts)
    first = np.repeat(starts[which] - (np.cumsum(counts) - counts), counts)
    pair_code = code[order][first + np.arange(len(row_of))]
    key = person[row_of].astype(np.int64) * np.int64(len(vocab)) + pair_code
    at = np.searchsorted(own, key)
    match = (at < len(own)) & (own[np.minimum(at, len(own) - 1)] == key)
    return len(np.unique(row_of[match])), chance


def own_identifier_rows(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> dict[str, dict[str, object]]:
    """Released columns ("table.column") whose rows hold their own person's identifier
    in another form -> {"rows": rows holding it, "kind": what}."""
    source = _source_persons(extract, project, release)
    if source is None or len(extract.person.frame) < 2:
        return {}
    columns = released_columns(release)
    cell_tokens: dict[int, tuple[pa.Array, _Tokens]] = {}
    for i, (t, c, values) in enumerate(columns):
        uniq = ctx.uniques(t, c, values)
        if len(uniq):
            cells = arrow_text(uniq.index.to_numpy(dtype=object))
            found = tokens_of(cells)
            if len(found.owner):
                cell_tokens[i] = (cells, found)
    if not cell_tokens:
        return {}
    present = pc.unique(pa.chunked_array([f.token for _, f in cell_tokens.values()]))
    ident = _identifier_tokens(extract, project, present)
    if len(ident.owner) == 0:
        return {}
    vocab = pc.unique(ident.token)
    code = pc.index_in(ident.token, value_set=vocab).to_numpy(zero_copy_only=False)
    own = np.unique(ident.owner * np.int64(len(vocab)) + code.astype(np.int64))
    holders = np.bincount(own % np.int64(len(vocab)), minlength=len(vocab))
    _ids, positions = ctx.released_positions(release, extract.person.name)
    n_persons = len(extract.person.frame)
    flagged: dict[str, dict[str, object]] = {}
    for i, (cells, found) in cell_tokens.items():
        t, c, values = columns[i]
        where = positions.get(t)
        if where is None:
            continue
        person = np.where(where >= 0, source[np.maximum(where, 0)], -1)
        held = ctx.uniques(t, c, values).to_numpy(dtype=np.float64)
        mine, chance = _agreeing_rows(
            found, cells, held, arrow_text(values), person, own, vocab, holders, n_persons
        )
        if mine >= MIN_ROWS and mine >= CHANCE_FACTOR * chance + MIN_ROWS:
            flagged[f"{t}.{c}"] = {"rows": mine, "kind": KIND}
    return flagged
