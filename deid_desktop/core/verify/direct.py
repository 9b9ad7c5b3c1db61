"""The direct-identifier checks shared by Safe Harbor and the linkable release (and, seen
through ``limited.lds_view``, the limited data set): no direct column by name, and no
direct value in any released cell.

The value search builds one dictionary of the direct columns' values (lower-cased,
deduplicated) and runs it over the distinct cells of every released column at once:
names and places as whole words, IDs as substrings, numbers as a whole run of digits,
plus identifiers recognised by their shape (SSN, phone, e-mail, URL, IP) whoever they
belong to. The outcome names columns and counts, never a value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import ahocorasick
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.digits import all_digits, digits_and_counts
from deid_desktop.core.facts.fold import folded, lower_folded
from deid_desktop.core.facts.persons import spec_for
from deid_desktop.core.facts.shared import event_keys_linked
from deid_desktop.core.facts.text import (
    arrow_text,
    char_lengths,
    lower,
    trim_whitespace,
    value_bytes,
)
from deid_desktop.core.model import ColumnClass, Extract, IdentifierCategory, Project, Release
from deid_desktop.core.verify.base import Finding, VerifyContext, released_columns
from deid_desktop.core.verify.own_values import own_identifier_rows

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
    """The direct values to look for, lower-cased and deduplicated (pyarrow arrays), and
    how many values the whole dictionary holds (searched and skipped: each value as
    often as the extract holds it, not deduplicated)."""

    ids: pa.Array  # searched as substrings
    names: pa.Array  # searched as whole words (names, places, short codes)
    numbers: pa.Array  # digit-only values, matched as a whole run of digits
    skipped_short: int
    skipped_numbers: int
    #: values searched in the whole dictionary, not deduplicated (``ids``, ``names``
    #: and ``numbers`` may hold only the distinct ones that can occur in the cells)
    searched: int

    @property
    def size(self) -> int:
        return self.searched


@dataclass(frozen=True)
class _Cells:
    """What the release's distinct cells can hold (``_direct_dictionary`` keeps only the
    direct values that may be found in them): the runs of three characters, and the
    whole runs of digits (as Python's ``\\d+`` finds them). ``ascii_trigrams``: the
    runs of three ASCII characters as a table (``_ascii_key`` -> present), where an
    ASCII value's first three bytes are looked up with no string made."""

    trigrams: pa.Array
    digit_runs: pa.Array
    ascii_trigrams: np.ndarray

    @classmethod
    def of(cls, haystack: str) -> _Cells:
        runs = pa.array(re.findall(r"\d+", haystack), type=pa.large_string())
        chars = _trigram_chars(haystack)
        return cls(_trigram_text(chars), pc.unique(runs), _ascii_table(chars))

    def may_hold_text(self, values: pa.Array) -> pa.Array:
        """The values whose first three characters occur in the cells (each searched
        value has three or more): a value found in a cell passes, whatever its kind."""
        if len(values) == 0:
            return values
        found = value_bytes(values) if not values.null_count else None
        if found is not None and (found[0].size == 0 or int(found[0].max()) < 0x80):
            data, starts, ends = found  # ASCII: a character a byte
            keep = np.zeros(len(values), dtype=bool)
            at = np.flatnonzero(ends - starts >= 3)  # shorter: no run of three
            first = starts[at]
            keep[at] = self.ascii_trigrams[
                _ascii_key(data[first], data[first + 1], data[first + 2])
            ]
            return _where(values, keep)
        first = pc.utf8_slice_codeunits(values, 0, 3)
        return _where(
            values, pc.is_in(first, value_set=self.trigrams).to_numpy(zero_copy_only=False)
        )

    def may_hold_number(self, values: pa.Array) -> pa.Array:
        """The values equal to a whole run of digits of the cells."""
        if len(values) == 0:
            return values
        return _where(
            values, pc.is_in(values, value_set=self.digit_runs).to_numpy(zero_copy_only=False)
        )


def _where(values: pa.Array, keep: np.ndarray) -> pa.Array:
    """``values.filter(keep)``, without a copy when every value or none is kept."""
    if keep.all():
        return values
    if not keep.any():
        return values.slice(0, 0)
    return values.filter(pa.array(keep))


def _lowered(values: pd.Series, *, names: bool = False) -> pa.Array:
    """Folded, lower-cased and trimmed, missing values left out. ``names``: lower-cased
    and folded once for the own-names check too (``lower_folded``; trimming commutes
    with lower-casing, which makes no whitespace and changes none)."""
    if names:
        return trim_whitespace(lower_folded(values)).drop_null()
    return lower(trim_whitespace(folded(arrow_text(values)))).drop_null()


def _event_keys_covered(extract: Extract, project: Project, ctx: VerifyContext | None) -> bool:
    """Whether every event table's key value is a person key (``ctx.positions`` found
    each event row's person), so that the event keys add no value to the dictionary.
    They must also go where the person keys go (IDs or names)."""
    if ctx is None or not event_keys_linked(extract, project):
        return False
    person = spec_for(project, extract.person)
    tag = next((t for t in person.columns if t.name == person.key), None)
    if tag is None or person.key not in extract.person.frame.columns:
        return False
    for table in extract.events:
        spec = spec_for(project, table)
        ev = next((t for t in spec.columns if t.name == spec.key), None)
        if ev is not None and (ev.category in WORD_CATEGORIES) != (tag.category in WORD_CATEGORIES):
            return False
    return True


def _direct_parts(
    extract: Extract, project: Project, ctx: VerifyContext | None
) -> tuple[list[_Part], list[_Part]]:
    """Every direct value, lower-cased and trimmed (not deduplicated): those searched as
    IDs (with the digits of a formatted value, e.g. a phone) and those searched as
    names. With ``ctx``, the event tables' keys are left out when each is a person key
    (they add no value). Each part with its values' ``all_digits`` when it is known."""
    ids: list[_Part] = []
    names: list[_Part] = []
    covered = _event_keys_covered(extract, project, ctx)
    for table in extract.tables:
        spec = spec_for(project, table)
        for tag in spec.columns:
            is_key = tag.name == spec.key
            if tag.name not in table.frame.columns or not (is_key or tag.cls == ColumnClass.DIRECT):
                continue
            if is_key and covered and table is not extract.person:
                continue
            is_name = tag.category in WORD_CATEGORIES
            text = _lowered(table.frame[tag.name], names=is_name)
            if is_name:
                names.append((text, None))
                continue
            if is_key:
                ids.append((text, None))
                continue
            # "(858) 555-0101" is also searched as 8585550101: the digits of a value
            # not all digits (else the same value), seven or more
            digits, counts, numeric = digits_and_counts(text)
            ids.append((text, numeric))
            wanted = (counts >= 7) & ~numeric
            if wanted.any():
                ids.append((_where(digits, wanted), None))
    return ids, names


#: A part of a list of direct values, with its values' ``all_digits`` (None: not known).
_Part = tuple[pa.Array, np.ndarray | None]


#: Parts of a list of direct values (Arrow arrays, read together as one).
_Parts = tuple[pa.Array, ...]


@dataclass(frozen=True)
class _Sorted:
    """One list of direct values (IDs or names), each value sorted by the rules, not
    yet deduplicated: text (3 characters or more, not only digits), numbers (6 digits
    or more), and the skipped ones (shorter than 3; numbers shorter than 6)."""

    text: _Parts
    numbers: _Parts
    short: _Parts
    small: _Parts

    @classmethod
    def of(cls, parts: list[_Part]) -> _Sorted:
        kept: dict[str, list[pa.Array]] = {"text": [], "numbers": [], "short": [], "small": []}
        for part, known in parts:
            if len(part) == 0:
                continue
            length = char_lengths(part)
            numeric = all_digits(part) if known is None else known
            short = length < MIN_VALUE_LENGTH
            small = numeric & (length < MIN_NUMBER_LENGTH) & ~short
            for name, keep in (
                ("text", ~numeric & ~short),
                ("numbers", numeric & ~short & ~small),
                ("short", short),
                ("small", small),
            ):
                if keep.any():
                    kept[name].append(_where(part, keep))
        return cls(**{k: tuple(v) for k, v in kept.items()})


def _joined(*parts: _Parts) -> pa.ChunkedArray:
    """Parts read as one (no copy)."""
    return pa.chunked_array([a for p in parts for a in p], type=pa.large_string())


def _count(*parts: _Parts) -> int:
    """Values among ``parts`` together, each as often as it is held (no hashing: the
    extract's millions of direct values are counted, never deduplicated)."""
    return sum(len(a) for p in parts for a in p)


def _distinct(parts: _Parts, keep: Callable[[pa.Array], pa.Array] | None) -> pa.Array:
    """The distinct values of ``parts``, only those ``keep`` keeps (None: all)."""
    if keep is not None:
        parts = tuple(keep(p) for p in parts)
    joined = _joined(parts)
    return pc.unique(joined) if len(joined) else pa.array([], type=pa.large_string())


def _direct_dictionary(
    extract: Extract,
    project: Project,
    ctx: VerifyContext | None = None,
    cells: _Cells | None = None,
) -> _Dictionary:
    """The dictionary of direct values: never a Python object per value, and the values
    held (searched, skipped) counted without hashing. With ``ctx``, the event
    tables' keys are left out when each is a person key (they add nothing). With
    ``cells``, only the values that may be found in those cells are kept (a value
    found in a cell always is), before any deduplication: what the release can hold
    is searched, what the extract holds is only counted."""
    id_parts, name_parts = _direct_parts(extract, project, ctx)
    ids, names = _Sorted.of(id_parts), _Sorted.of(name_parts)
    del id_parts, name_parts
    searched = _count(ids.text, ids.numbers, names.text, names.numbers)
    skipped_short = _count(ids.short, names.short)
    skipped_numbers = _count(ids.small, names.small)
    text = cells.may_hold_text if cells is not None else None
    number = cells.may_hold_number if cells is not None else None
    id_text, id_numbers = _distinct(ids.text, text), _distinct(ids.numbers, number)
    name_text, name_numbers = _distinct(names.text, text), _distinct(names.numbers, number)
    # A short code is searched as a word: as a substring it is inside ordinary words.
    short_id = pc.less(pc.utf8_length(id_text), MIN_SUBSTRING_LENGTH).to_numpy(zero_copy_only=False)
    name_text = pc.unique(pa.chunked_array([name_text, _where(id_text, short_id)]))
    id_text = _where(id_text, ~short_id)
    # A value that is both a name and an ID is searched as an ID (the stricter test):
    # the IDs probe the (few) names, then the names lose those found among the IDs.
    both = pc.filter(id_text, pc.is_in(id_text, value_set=name_text))
    if len(both):
        name_text = pc.filter(name_text, pc.invert(pc.is_in(name_text, value_set=both)))
    # Both lists are distinct already: only the (few) name numbers not among the IDs'
    # are added, so the long list is probed, never hashed again.
    if len(name_numbers):
        both = pc.filter(id_numbers, pc.is_in(id_numbers, value_set=name_numbers))
        extra = pc.filter(name_numbers, pc.invert(pc.is_in(name_numbers, value_set=both)))
        numbers = pa.concat_arrays([id_numbers, extra])
    else:
        numbers = id_numbers
    return _Dictionary(id_text, name_text, numbers, skipped_short, skipped_numbers, searched)


def _trigram_chars(haystack: str) -> np.ndarray:
    """Every distinct run of three characters in ``haystack`` as rows of three code
    points (uint32), sorted (vectorised)."""
    codes = np.frombuffer(haystack.encode("utf-32-le"), dtype=np.uint32)
    if len(codes) < 3:
        return np.empty((0, 3), dtype=np.uint32)
    wide = codes.astype(np.uint64)
    packed = np.unique((wide[:-2] << np.uint64(42)) | (wide[1:-1] << np.uint64(21)) | wide[2:])
    mask = np.uint64((1 << 21) - 1)
    return np.stack(
        [packed >> np.uint64(42), (packed >> np.uint64(21)) & mask, packed & mask], axis=1
    ).astype(np.uint32)


def _trigram_text(chars: np.ndarray) -> pa.Array:
    """The runs of ``_trigram_chars`` as text."""
    if len(chars) == 0:
        return pa.array([], type=pa.large_string())
    return pa.array(np.ascontiguousarray(chars).view("<U3").ravel()).cast(pa.large_string())


def _ascii_key(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Three ASCII characters (code points below 128) as one index below 128**3."""
    return (a.astype(np.intp) << 14) | (b.astype(np.intp) << 7) | c.astype(np.intp)


def _ascii_table(chars: np.ndarray) -> np.ndarray:
    """Per ``_ascii_key``: whether those three ASCII characters are a run of ``chars``."""
    table = np.zeros(1 << 21, dtype=bool)
    ascii_rows = chars[(chars < 128).all(axis=1)]
    table[_ascii_key(ascii_rows[:, 0], ascii_rows[:, 1], ascii_rows[:, 2])] = True
    return table


def _plausible(values: pa.Array, present: pa.Array) -> pa.Array:
    """The values that may occur in the haystack: their first, second and last three
    characters all occur in it (a cheap necessary condition, all in pyarrow). The first
    three are held against it first, so the other tests read only the few that pass."""
    if len(values) == 0:
        return values
    values = pc.filter(values, pc.is_in(pc.utf8_slice_codeunits(values, 0, 3), value_set=present))
    if len(values) == 0:
        return values
    keep = pc.is_in(pc.utf8_slice_codeunits(values, -3), value_set=present)
    middle = pc.utf8_slice_codeunits(values, 3, 6)
    keep = pc.and_(
        keep,
        pc.or_(pc.less(pc.utf8_length(middle), 3), pc.is_in(middle, value_set=present)),
    )
    return pc.filter(values, keep)


def _text_hits(
    dictionary: _Dictionary, haystack: str, present: pa.Array, starts: np.ndarray,
    lengths: np.ndarray, count: np.ndarray,
) -> tuple[set[int], set[int]]:  # fmt: skip
    """Cells holding a direct text value (IDs as substrings, names as whole words), and
    cells that are exactly a name shared by many rows (category labels). ``present``:
    the haystack's runs of three characters."""
    hits: set[int] = set()
    category: set[int] = set()
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
    texts = pa.array([r for _, r in runs], type=pa.large_string())
    # The (few) runs are hashed and the numbers probe them; then the runs are looked up
    # among the numbers found: a hash join on distinct values, never one of every number.
    present = pc.filter(numbers, pc.is_in(numbers, value_set=pc.unique(texts)))
    found = pc.is_in(texts, value_set=present)
    where = np.asarray([p for p, _ in runs], dtype=np.int64)[found.to_numpy(zero_copy_only=False)]
    return {int(c) for c in np.searchsorted(starts, where, side="right") - 1}


def check_no_direct_values(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    """Direct values as the extract writes them (``direct_values_finding``), and a
    person's own identifier written in another form in their own rows (``own_values``)."""
    found = direct_values_finding(extract, release, project, ctx)
    own = own_identifier_rows(extract, release, project, ctx)
    if not own:
        return found
    rows = sum(int(v["rows"]) for v in own.values())  # type: ignore[call-overload]
    detail = {**found.detail, "found": own, "rows_holding_their_own_persons_identifier": rows}
    return Finding(False, found.count + rows, detail)


def direct_values_finding(
    extract: Extract,
    release: Release,
    project: Project,
    ctx: VerifyContext,
    *,
    restrict: bool = True,
) -> Finding:
    """The direct-value check; ``restrict``: search only the direct values the released
    cells may hold (False: every one, the reference the tests hold it to)."""
    columns = released_columns(release)
    cells: list[str] = []
    owners: list[np.ndarray] = []  # column index per unique cell
    counts: list[np.ndarray] = []
    for i, (t, c, values) in enumerate(columns):
        uniq = ctx.uniques(t, c, values)
        cells += lower(folded(arrow_text(uniq.index))).to_pylist()
        owners.append(np.full(len(uniq), i))
        counts.append(uniq.to_numpy(dtype=np.int64))
    haystack = "\x00".join(cells)
    # the few distinct cells first: only the direct values they may hold are searched
    found_in = _Cells.of(haystack)
    dictionary = _direct_dictionary(extract, project, ctx, found_in if restrict else None)
    base = {
        "values_searched": dictionary.size,
        "skipped_shorter_than_3": dictionary.skipped_short,
        "skipped_numbers_shorter_than_6": dictionary.skipped_numbers,
        "not_searched": release.id_column + " (see the subject-ID check)",
    }
    if not cells:
        return Finding(True, 0, {**base, "columns": []})
    owner = np.concatenate(owners)
    count = np.concatenate(counts)
    lengths = np.fromiter((len(c) for c in cells), dtype=np.int64, count=len(cells))
    starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
    hits, category = _text_hits(dictionary, haystack, found_in.trigrams, starts, lengths, count)
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
