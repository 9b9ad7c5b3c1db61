"""The tokens of each person's names that ``verify.own_values`` pairs with the released
cells (``own_tokens`` makes the cells' and the IDs'): the words of their names, their
initials, a first and a last name run together as usernames are (``jkowalczyk``), and
codes of the beginnings of both (``SCOMA``, ``MASCO``). Only the tokens some released
cell holds (``present``) are kept; the names are worked on as distinct values
(dictionary-encoded), never one Python object per person.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.fold import lower_folded
from deid_desktop.core.verify.own_tokens import (
    INITIALS,
    MIN_LETTERS,
    NOT_LETTER,
    SOUNDEX,
    Tokens,
    among,
    bytes_of,
    soundex,
    words,
)

_EMPTY = pa.scalar("", pa.large_string())


@dataclass(frozen=True)
class _Names:
    """One name column as distinct values (lower case): each person's code (-1: none)
    and, per distinct value, its first and last words, the first letters of those
    (1-26, a=1; 0: none) and of all its words read as one base-27 number, with how
    many letters that holds (4: more than 3, not read)."""

    codes: np.ndarray
    dictionary: pa.Array
    first: pa.Array
    last: pa.Array
    f1: np.ndarray
    l1: np.ndarray
    heads: np.ndarray
    count: np.ndarray

    @classmethod
    def of(cls, values: pa.Array) -> _Names:
        encoded = pc.dictionary_encode(lower_folded(values))
        codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
        dictionary = encoded.dictionary.cast(pa.large_string())
        parts = pc.split_pattern_regex(dictionary, "[^a-z]+")
        flat = pc.list_flatten(parts).cast(pa.large_string())
        offsets = parts.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
        letter = _first_letters(flat)
        heads, count = _heads(letter, offsets)
        starts, ends = offsets[:-1], offsets[1:] - 1
        if len(flat) == 0:
            none = np.zeros(0, dtype=np.int64)
            return cls(codes, dictionary, flat, flat, none, none, heads, count)
        # a value's first and last words, skipping empty ones at either end
        word = np.flatnonzero(letter > 0)
        first_at = (
            word[np.minimum(np.searchsorted(word, starts), len(word) - 1)] if len(word) else starts
        )
        last_at = (
            word[np.maximum(np.searchsorted(word, ends, side="right") - 1, 0)]
            if len(word)
            else ends
        )
        first_at = np.where((first_at >= starts) & (first_at <= ends), first_at, starts)
        last_at = np.where((last_at >= starts) & (last_at <= ends), last_at, ends)
        return cls(
            codes, dictionary, flat.take(pa.array(first_at)), flat.take(pa.array(last_at)),
            letter[first_at], letter[last_at], heads, count,
        )  # fmt: skip


def _first_letters(flat: pa.Array) -> np.ndarray:
    """Each word's first letter, 1-26 (a=1); 0 for an empty word."""
    if len(flat) == 0:
        return np.zeros(0, dtype=np.int64)
    size = pc.binary_length(flat).to_numpy(zero_copy_only=False)
    chunk, offsets, _base = bytes_of(flat)
    letter = np.zeros(len(flat), dtype=np.int64)
    has = size > 0
    letter[has] = chunk[offsets[:-1][has]].astype(np.int64) - 96
    return np.where((letter >= 1) & (letter <= 26), letter, 0)


def _heads(letter: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per list (``offsets``), its words' first letters read as one base-27 number, and
    how many letters; more than 3 give (0, 4)."""
    n = len(offsets) - 1
    heads, count = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    sizes = np.diff(offsets)
    for i in range(min(int(sizes.max()), 8) if n else 0):  # a handful of words at most
        has = np.flatnonzero(sizes > i)
        add = letter[offsets[:-1][has] + i]
        rows, add = has[add > 0], add[add > 0]
        heads[rows] = heads[rows] * 27 + add
        count[rows] += 1
    count[sizes > 8] = 4
    heads[count > 3] = 0
    return heads, np.minimum(count, 4)


def expand_groups(
    groups: np.ndarray, n_groups: int, picks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For entries in ``groups`` (entry i belongs to group ``groups[i]``, 0 to n_groups - 1)
    and one group picked per item (``picks``, -1: none), every (item, entry) pair whose
    entry is in the item's group: the items' positions and the entries' indices."""
    order = np.argsort(groups, kind="stable")
    starts = np.searchsorted(groups[order], np.arange(n_groups + 1))
    sizes = np.append(np.diff(starts), 0)  # the last: no group (-1)
    counts = sizes[picks]
    items = np.repeat(np.arange(len(picks)), counts)
    first = np.repeat(starts[np.maximum(picks, 0)] - (np.cumsum(counts) - counts), counts)
    return items, order[first + np.arange(len(items))]


def _per_person(codes: np.ndarray, distinct: Tokens, n_distinct: int) -> Tokens:
    """Tokens of distinct values (owner: the value's code) as tokens of the persons
    holding each value (owner: the person's row)."""
    if len(distinct.owner) == 0:
        return distinct
    rows, entries = expand_groups(distinct.owner, n_distinct, codes)
    return Tokens(rows, distinct.token.take(pa.array(entries)))


def _initials_codes(present: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """The present initials as base-27 numbers (sorted) and their tokens, in that order."""
    marked = present.filter(pc.starts_with(present, INITIALS))
    letters = pc.utf8_slice_codeunits(marked, 1).to_pylist()  # a few hundred at most
    codes = np.array(
        [sum((ord(c) - 96) * 27**i for i, c in enumerate(reversed(t))) for t in letters],
        dtype=np.int64,
    )
    order = np.argsort(codes)
    return codes[order], marked.take(pa.array(order))


def _matching(form: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where ``form`` (initials as numbers) is among the sorted present ``codes``, and
    at which of them."""
    at = np.minimum(np.searchsorted(codes, form), len(codes) - 1)
    hit = np.flatnonzero((codes[at] == form) & (form > 27))  # two letters at least
    return hit, at[hit]


def _initials(a: _Names, b: _Names, codes: np.ndarray, tokens: pa.Array) -> Tokens:
    """The persons' initials from name columns ``a`` and ``b`` (the same column: a full
    name) among the present ones (``codes``, ``tokens``): every word's first letter in
    order (up to 3), first and last both ways. A full name's initials are read once per
    distinct value; two columns are combined only for the persons whose first and last
    letters are among the present initials' letters."""
    if a is b:
        found = []
        for form in (np.where(a.count <= 3, a.heads, 0), a.f1 * 27 + a.l1, a.l1 * 27 + a.f1):
            hit, at = _matching(form, codes)
            distinct = Tokens(hit, tokens.take(pa.array(at)))
            found.append(_per_person(a.codes, distinct, len(a.dictionary)))
        return Tokens.joined(found)
    letters = np.unique(np.concatenate([codes // 729 % 27, codes // 27 % 27, codes % 27]))
    first_ok = np.append(np.isin(a.f1, letters), False)  # the last: no value (-1)
    last_ok = np.append(np.isin(b.l1, letters), False)
    rows = np.flatnonzero(first_ok[a.codes] & last_ok[b.codes])
    ca, cb = a.codes[rows], b.codes[rows]
    f1, l1, size = a.f1[ca], b.l1[cb], a.count[ca] + b.count[cb]
    every = a.heads[ca] * 27 ** np.minimum(b.count[cb], 3) + b.heads[cb]
    found = []
    for form in (np.where(size <= 3, every, 0), f1 * 27 + l1, l1 * 27 + f1):
        hit, at = _matching(form, codes)
        found.append(Tokens(rows[hit], tokens.take(pa.array(at))))
    return Tokens.joined(found)


def _beginnings(present: pa.Array) -> pa.Array:
    """The beginnings and ends (``MIN_LETTERS`` or more) of the present words: a name
    run together with another begins or ends one."""
    words = pc.and_(
        pc.greater(pc.utf8_length(present), MIN_LETTERS),
        pc.invert(pc.match_substring_regex(present, NOT_LETTER)),
    )
    tokens = present.filter(words)  # words only: digit runs and initials are no names
    if len(tokens) == 0:
        return tokens
    longest = min(int(pc.max(pc.utf8_length(tokens)).as_py()), 40)
    pieces = [pc.utf8_slice_codeunits(tokens, 0, n) for n in range(MIN_LETTERS, longest)]
    pieces += [pc.utf8_slice_codeunits(tokens, -n) for n in range(MIN_LETTERS, longest)]
    return pc.unique(pa.chunked_array(pieces, type=pa.large_string()))


def _run_together(a: _Names, b: _Names, beginnings: pa.Array) -> Tokens:
    """The first word of ``a`` and the last of ``b`` run together, either way round,
    whole or by the first letter of one, for the persons whose word begins or ends a
    present token."""
    if len(beginnings) == 0 or len(a.first) == 0 or len(b.last) == 0:
        return Tokens.joined([])
    first_in = pc.is_in(a.first, value_set=beginnings).to_numpy(zero_copy_only=False)
    last_in = pc.is_in(b.last, value_set=beginnings).to_numpy(zero_copy_only=False)
    valid = (a.codes >= 0) & (b.codes >= 0)
    ca, cb = np.where(valid, a.codes, 0), np.where(valid, b.codes, 0)
    who = np.flatnonzero(valid & (first_in[ca] | last_in[cb]))
    if len(who) == 0:
        return Tokens.joined([])
    x, y = a.first.take(pa.array(ca[who])), b.last.take(pa.array(cb[who]))
    x1, y1 = pc.utf8_slice_codeunits(x, 0, 1), pc.utf8_slice_codeunits(y, 0, 1)
    forms = ((x, y), (x1, y), (x, y1), (y, x), (y1, x), (y, x1))
    return Tokens.joined([Tokens(who, pc.binary_join_element_wise(p, q, _EMPTY)) for p, q in forms])


#: A code built from the beginnings of a surname and a first name, as registries and
#: sites write them (``SCOMA``, ``MASCO`` for Mark Scott): this many letters of the
#: surname with this many of the first name, either way round.
SURNAME_PARTS = (2, 3, 4)
FIRST_PARTS = (1, 2, 3)
_CODE_WIDTH = max(SURNAME_PARTS) + max(FIRST_PARTS)  # letters of the longest code


def _letter_digits(words: pa.Array, n: int) -> np.ndarray:
    """Each word's first ``n`` letters as base-27 digits, one row a word (1-26, a=1; 0:
    no letter there, or not a-z)."""
    chunk, offsets, _base = bytes_of(words.cast(pa.large_string()).fill_null(""))
    size = np.diff(offsets)
    out = np.zeros((len(size), n), dtype=np.int64)
    for i in range(n):
        has = size > i
        letter = chunk[offsets[:-1][has] + i].astype(np.int64) - 96
        out[has, i] = np.where((letter >= 1) & (letter <= 26), letter, 0)
    return out


def _number(digits: np.ndarray, width: int = _CODE_WIDTH) -> np.ndarray:
    """Base-27 digits (rows) as one number each, padded on the right to ``width``."""
    out = np.zeros(len(digits), dtype=np.int64)
    for i in range(width):
        out *= 27
        if i < digits.shape[1]:
            out += digits[:, i]
    return out


def _prefixes(digits: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` of each row's digits as a number (unpadded)."""
    return _number(digits[:, :k], k)


def _name_codes(a: _Names, b: _Names, present: pa.Array) -> Tokens:
    """The beginnings of the first word of ``a`` and the last of ``b`` joined, either way
    round (``SURNAME_PARTS`` x ``FIRST_PARTS``), where a present word of letters alone.
    Worked in numbers: every name's first letters are base-27 digits read per distinct
    value; each code's first three letters must begin a present word (a table of 27^3),
    and only those persons' codes are compared with the present words'."""
    size = pc.utf8_length(present)
    fits = pc.and_(
        pc.and_(pc.greater_equal(size, MIN_LETTERS), pc.less_equal(size, _CODE_WIDTH)),
        pc.invert(pc.match_substring_regex(present, NOT_LETTER)),
    )
    words = present.filter(fits)
    if len(words) == 0 or len(a.first) == 0 or len(b.last) == 0:
        return Tokens.joined([])
    word_digits = _letter_digits(words, _CODE_WIDTH)
    begins = np.zeros(27**3, dtype=bool)
    begins[_prefixes(word_digits, 3)] = True
    word_code = _number(word_digits)
    order = np.argsort(word_code)
    word_code = word_code[order]
    valid = (a.codes >= 0) & (b.codes >= 0)
    if a is b:  # one full-name column: the persons whose name has two words or more
        valid &= np.append(a.count >= 2, False)[a.codes]
    rows = np.flatnonzero(valid)
    ca, cb = a.codes[rows], b.codes[rows]
    xd = _letter_digits(a.first, max(FIRST_PARTS))  # per distinct value
    yd = _letter_digits(b.last, max(SURNAME_PARTS))
    x0, x01, y0, y01 = xd[:, 0], xd[:, 0] * 27 + xd[:, 1], yd[:, 0], yd[:, 0] * 27 + yd[:, 1]
    could = begins[_prefixes(yd, 3)][cb] | begins[_prefixes(xd, 3)][ca]
    for head in (x01[ca] * 27 + y0[cb], x0[ca] * 729 + y01[cb], y01[cb] * 27 + x0[ca],
                 y0[cb] * 729 + x01[ca]):  # fmt: skip
        could |= begins[head]
    at = np.flatnonzero(could)
    if len(at) == 0:
        return Tokens.joined([])
    who, x, y = rows[at], xd[ca[at]], yd[cb[at]]
    owners, found = [], []
    for k in SURNAME_PARTS:
        for j in FIRST_PARTS:
            pad = 27 ** (_CODE_WIDTH - k - j)
            yk, xj = _prefixes(y, k), _prefixes(x, j)
            for code in ((yk * 27**j + xj) * pad, (xj * 27**k + yk) * pad):
                at = np.minimum(np.searchsorted(word_code, code), len(word_code) - 1)
                hit = np.flatnonzero(word_code[at] == code)
                owners.append(who[hit])
                found.append(order[at[hit]])
    taken = words.take(pa.array(np.concatenate(found)))
    return Tokens(np.concatenate(owners), taken.cast(pa.large_string()))


def name_tokens(columns: list[pa.Array], present: pa.Array) -> Tokens:
    """Each person's name tokens among ``present`` (owner: the person's row): the words
    of every name column, forwards and backwards; for a first and a last word (of one
    full-name column, of two name columns side by side, of the first and the last) their
    initials (every word's first letter in order, and first and last both ways: ``jmk``,
    ``jk``, ``kj``), and the two run together as usernames are, either way round, whole
    or by the first letter of one (``johnkowalczyk``, ``jkowalczyk``, ``kowalczykj``...),
    codes of their beginnings (``kowjo``, ``jokow``) and, when a cell is one, the
    Soundex of each name's last word (``k426``)."""
    names = [_Names.of(v) for v in columns]
    found = [_per_person(n.codes, words(n.dictionary, present), len(n.dictionary)) for n in names]
    found += [  # a name written backwards ("ttocs"), as a home-made mask does
        _per_person(n.codes, words(pc.utf8_reverse(n.dictionary), present), len(n.dictionary))
        for n in names
    ]
    pairs = [(n, n) for n in names if (n.count >= 2).any()]  # full names
    pairs += [(names[i], names[i + 1]) for i in range(len(names) - 1)]
    if len(names) > 2:
        pairs.append((names[0], names[-1]))
    codes, tokens = _initials_codes(present)
    beginnings = _beginnings(present)
    for a, b in pairs:
        if len(codes):
            found.append(_initials(a, b, codes, tokens))
        found.append(_run_together(a, b, beginnings))
        found.append(_name_codes(a, b, present))
    if len(pc.filter(present, pc.starts_with(present, SOUNDEX))):
        for n in names:  # the Soundex of the last word of each name
            codes_of = [SOUNDEX + soundex(w) for w in n.last.to_pylist()]
            distinct = Tokens(np.arange(len(codes_of)), pa.array(codes_of, pa.large_string()))
            found.append(_per_person(n.codes, distinct, len(n.dictionary)))
    return among(found, present)
