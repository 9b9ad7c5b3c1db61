"""The tokens ``verify.own_values`` pairs: the words, digit runs and initials of released
cells, and the same of each person's identifiers.

A cell's tokens are its words (lower case, ``MIN_LETTERS`` or more), its digit runs
(leading zeros dropped, ``MIN_DIGITS`` or more; letters and digits written together are
two tokens: ``mrn0042002`` -> ``mrn``, ``42002``), for a cell that is only two or three
letters (``JK``, ``J.K.``) its initials, and for a cell that is a number alone the number
whatever its length and separators (compared with the digits of IDs: a key ``0042``
copied as ``42``; a phone's local number ``555-0157``).
A person's tokens are the words of their names and places, the digits of their IDs and
key read together (``MRN-0042002`` -> ``42002``), their initials, and a first and a last
name run together as usernames are, and codes of the beginnings of both (``SCOMA``).
Only the tokens that some released cell holds
(``present``) are kept; the names are worked on as distinct values (dictionary-encoded),
never one Python object per person.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.digits import only_digits
from deid_desktop.core.facts.fold import folded
from deid_desktop.core.facts.text import arrow_text, lower
from deid_desktop.core.scan.spoken import DIGIT_WORDS

#: Words shorter than this are not compared (initials apart, "jr", "mr").
MIN_LETTERS = 3
#: Digit runs (leading zeros dropped) shorter than this are not compared (counts, days).
MIN_DIGITS = 4
#: a character that is not part of a word (a-z and non-ASCII are)
NOT_LETTER = r"[^a-z\x{80}-\x{10ffff}]"
#: a cell that is only initials: two or three letters, each alone or with a dot
INITIALS_CELL = r"^\s*[a-z]\.?(?:\s?[a-z]\.?){1,2}\s*$"
#: initials tokens begin with this (never in text), so they match initials only
INITIALS = "\x01"
#: Four digits or more said as words in a row (a phone or an ID read out), in any cell:
#: the scan's digit words (``scan.spoken``).
_DIGIT_WORD = r"\b(?:" + "|".join(DIGIT_WORDS) + r")\b"
DIGIT_WORDS_RUN = _DIGIT_WORD + r"(?:[\s,.-]+" + _DIGIT_WORD + r"){3,}"
#: A cell of four letters or more written one by one (``M.A.R.K``, ``S C O T T``): its
#: letters run together are a word of the cell.
SPELLED_CELL = r"^\s*[a-z](?:[\s._-]+[a-z]){3,}[\s.]*$"
#: whole-number tokens (a cell that is a number alone) begin with this
WHOLE = "\x02"
#: A cell of four digits beginning with a zero (``0157``): the last four of a phone or
#: an SSN as written (a count or a measure is never written so). Its token is the four
#: digits, zero kept, after ``ZERO_FOUR``.
ZERO_FOUR_CELL = r"^\s*0\d{3}\s*$"
ZERO_FOUR = "\x04"
_EMPTY = pa.scalar("", pa.large_string())


@dataclass(frozen=True)
class Tokens:
    """Tokens of some values: ``owner[i]`` is the value ``token[i]`` came from."""

    owner: np.ndarray
    token: pa.Array

    def keep(self, mask: np.ndarray) -> Tokens:
        return Tokens(self.owner[mask], self.token.filter(pa.array(mask)))

    @classmethod
    def joined(cls, parts: list[Tokens]) -> Tokens:
        if not parts:
            return cls(np.empty(0, np.int64), pa.array([], type=pa.large_string()))
        return cls(
            np.concatenate([p.owner.astype(np.int64) for p in parts]),
            pa.concat_arrays([p.token.cast(pa.large_string()) for p in parts]),
        )


def _bytes_of(values: pa.Array) -> tuple[np.ndarray, np.ndarray, int]:
    """A large_string array without nulls as (its UTF-8 bytes, offsets from 0, where
    its bytes start in its data buffer)."""
    bufs = values.buffers()
    first = values.offset
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[first : first + len(values) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.empty(0, "u1")
    return data[offsets[0] : offsets[-1]], offsets - offsets[0], int(offsets[0])


def _ranges(values: pa.Array, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """The byte ranges [start, end) of ``values``' data (in order, not overlapping) as
    strings, taken in C: the ranges and the gaps between them read as one string
    array, then every other string taken."""
    bounds = np.empty(2 * len(starts), dtype=np.int64)
    bounds[0::2], bounds[1::2] = starts, ends
    spans = pa.LargeStringArray.from_buffers(
        max(len(bounds) - 1, 0), pa.py_buffer(bounds), values.buffers()[2]
    )
    return spans.take(pa.array(np.arange(0, len(bounds), 2, dtype=np.int64)))


def as_initials(letters: pa.Array) -> pa.Array:
    """Letters as initials tokens (marked: compared with initials only)."""
    mark = pa.scalar(INITIALS, pa.large_string())
    return pc.binary_join_element_wise(mark, letters.cast(pa.large_string()), _EMPTY)


def cell_tokens(values: pa.Array) -> Tokens:
    """Each cell's words, digit runs and, for a cell of initials alone, its initials.
    Runs are found in numpy over the UTF-8 bytes (a byte of a non-ASCII character
    counts as a letter) and cut out in Arrow."""
    low = lower(folded(arrow_text(values).fill_null("")))
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
    length = pc.binary_length(tokens).to_numpy(zero_copy_only=False)
    wanted = np.where(run_kind == 2, length >= MIN_DIGITS, length >= MIN_LETTERS)
    found = Tokens(owner.astype(np.int64), tokens).keep(wanted)
    parts = [found]
    alone = np.flatnonzero(pc.match_substring_regex(low, INITIALS_CELL).to_numpy(False))
    if len(alone):
        letters = pc.replace_substring_regex(low.take(pa.array(alone)), "[^a-z]", "")
        parts.append(Tokens(alone, as_initials(letters)))
    spelled = np.flatnonzero(pc.match_substring_regex(low, SPELLED_CELL).to_numpy(False))
    if len(spelled):  # "m.a.r.k s.c.o.t.t": its letters run together, as one word
        letters = pc.replace_substring_regex(low.take(pa.array(spelled)), "[^a-z]", "")
        parts.append(Tokens(spelled, letters))
    said = np.flatnonzero(pc.match_substring_regex(low, DIGIT_WORDS_RUN).to_numpy(False))
    if len(said):  # "cb eight five eight, five five five ...": the digits it says
        text = low.take(pa.array(said))
        for word, digit in DIGIT_WORDS.items():
            text = pc.replace_substring_regex(text, rf"\b{word}\b", digit)
        for _ in range(2):  # "8 5 8, 5" -> "858" "5" -> "8585": the said digits as one run
            text = pc.replace_substring_regex(text, r"(\d)[\s,.-]+(\d)", r"\1\2")
        inner = cell_tokens(text)  # no word of a digit is left: read once more
        parts.append(Tokens(said[inner.owner], inner.token))
    number = np.flatnonzero(pc.match_substring_regex(low, NUMBER_CELL).to_numpy(False))
    if len(number):
        digits = pc.utf8_ltrim(only_digits(low.take(pa.array(number))), "0")
        parts.append(_whole(Tokens(number, digits)))
    zero_four = np.flatnonzero(pc.match_substring_regex(low, ZERO_FOUR_CELL).to_numpy(False))
    if len(zero_four):
        four = pc.utf8_trim_whitespace(low.take(pa.array(zero_four))).cast(pa.large_string())
        mark = pa.scalar(ZERO_FOUR, pa.large_string())
        parts.append(Tokens(zero_four, pc.binary_join_element_wise(mark, four, _EMPTY)))
    coded = np.flatnonzero(pc.match_substring_regex(low, SOUNDEX_CELL).to_numpy(False))
    if len(coded):
        code = pc.utf8_trim_whitespace(low.take(pa.array(coded))).cast(pa.large_string())
        mark = pa.scalar(SOUNDEX, pa.large_string())
        parts.append(Tokens(coded, pc.binary_join_element_wise(mark, code, _EMPTY)))
    return Tokens.joined(parts)


#: A cell that is a Soundex code alone (``S300``): a letter and three digits, compared
#: with the Soundex of the person's surname (record-linkage files carry it). Its tokens
#: begin with ``SOUNDEX``.
SOUNDEX_CELL = r"^\s*[a-z]\d{3}\s*$"
SOUNDEX = "\x03"
_SOUNDEX_DIGIT = {
    **dict.fromkeys("bfpv", "1"), **dict.fromkeys("cgjkqsxz", "2"), **dict.fromkeys("dt", "3"),
    "l": "4", **dict.fromkeys("mn", "5"), "r": "6",
}  # fmt: skip


def soundex(word: str) -> str:
    """American Soundex of a lower-case word ("" when it does not start with a-z):
    the first letter, then the codes of the consonants after it, a code repeated
    (also across h and w) written once, up to three digits, padded with 0."""
    if not word or not "a" <= word[0] <= "z":
        return ""
    out, last = [word[0]], _SOUNDEX_DIGIT.get(word[0], "")
    for ch in word[1:]:
        digit = _SOUNDEX_DIGIT.get(ch, "")
        if digit and digit != last:
            out.append(digit)
            if len(out) == 4:
                break
        if ch not in "hw":
            last = digit
    return "".join(out).ljust(4, "0")


#: A cell that is a number alone, whatever its separators (``42``, ``555-0157``,
#: ``(858) 555 0157``): its digits read together are one whole-number token.
NUMBER_CELL = r"^[\s().+-]*\d[\d\s().+-]*$"
#: A phone's local number (its last seven digits: ``555-0157`` of ``(858) 555-0157``)
#: is a token of the person's too.
LOCAL_DIGITS = 7
#: So are the last four digits of a phone or an SSN (``0157``, written on forms and
#: receipts); alone in a cell they count only beyond agreement by chance.
LAST_FOUR = 4


@dataclass(frozen=True)
class IdDigits:
    """An ID column's values (a missing one as ""), read for their digits once for every
    token made from them (a phone: its whole digits, local number and last four)."""

    text: pa.Array

    @classmethod
    def of(cls, values: pa.Array | pd.Series | IdDigits) -> IdDigits:
        return values if isinstance(values, IdDigits) else cls(arrow_text(values).fill_null(""))

    @functools.cached_property
    def digits(self) -> pa.Array:  # every character other than 0-9 removed
        return only_digits(self.text)

    @functools.cached_property
    def bare(self) -> bool:  # every value one or more digits alone (a key of digits)
        return pc.all(pc.utf8_is_digit(self.text)).as_py() is True


def local_numbers(
    values: pa.Array | pd.Series | IdDigits,
    present: pa.Array,
    last: int = LOCAL_DIGITS,
    of_at_least: int = 10,
) -> Tokens:
    """The last ``last`` digits of each value of ``of_at_least`` digits or more (a
    phone without its area code; a phone's or an SSN's last four), as whole-number
    tokens, where among ``present``."""
    read = IdDigits.of(values)
    long = pc.greater_equal(pc.binary_length(read.digits), of_at_least)  # ASCII digits
    local = pc.utf8_slice_codeunits(read.digits, -last)
    local = pc.utf8_ltrim(pc.if_else(long, local, pa.scalar("", local.type)), "0")
    return among(
        [_whole_among(Tokens(np.arange(len(local), dtype=np.int64), local), present)], present
    )


def _whole(digits: Tokens) -> Tokens:
    """Digits (leading zeros dropped) as whole-number tokens: marked, so that a number
    alone in a cell is compared with the digits of an ID whatever its length."""
    mark = pa.scalar(WHOLE, pa.large_string())
    keep = pc.greater(pc.binary_length(digits.token), 0).to_numpy(zero_copy_only=False)
    kept = digits.keep(keep)
    token = pc.binary_join_element_wise(mark, kept.token.cast(pa.large_string()), _EMPTY)
    return Tokens(kept.owner, token)


def _whole_among(digits: Tokens, present: pa.Array) -> Tokens:
    """``_whole(digits)``, only the tokens among ``present``: the digits are held against
    the present whole numbers without their mark, so only the few found are marked (a
    person table's million IDs are never copied to be marked)."""
    marked = present.filter(pc.starts_with(present, WHOLE))
    bare = pc.utf8_slice_codeunits(marked, len(WHOLE))
    found = pc.is_in(digits.token, value_set=bare).to_numpy(zero_copy_only=False)
    return _whole(digits.keep(found))


def among(parts: list[Tokens], present: pa.Array) -> Tokens:
    """The tokens of ``parts`` that are among ``present``, as one."""
    return Tokens.joined(
        [p.keep(pc.is_in(p.token, value_set=present).to_numpy(False)) for p in parts]
    )


def words(values: pa.Array, present: pa.Array) -> Tokens:
    """Each value's words among ``present`` (runs of a-z and non-ASCII characters, lower
    case, as ``cell_tokens`` finds them). A value of one word is its own token; only
    the others are split."""
    low = lower(folded(arrow_text(values).fill_null("")))
    several = pc.match_substring_regex(low, NOT_LETTER).to_numpy(zero_copy_only=False)
    one = np.flatnonzero(~several)
    found = [Tokens(one, low.take(pa.array(one)) if len(one) < len(low) else low)]
    if several.any():
        split = np.flatnonzero(several)
        parts = pc.split_pattern_regex(low.take(pa.array(split)), NOT_LETTER + "+")
        owner = pc.list_parent_indices(parts).to_numpy(zero_copy_only=False)
        found.append(Tokens(split[owner], pc.list_flatten(parts)))
    return among(found, present)


def whole_digits(values: pa.Array | pd.Series | IdDigits, present: pa.Array) -> Tokens:
    """Each value's digits read together, leading zeros dropped (``MRN-0042002`` ->
    ``42002``), where among ``present``: as a digit run (``MIN_DIGITS`` or more) and as
    a whole number (any length: a person key ``0042`` copied as ``42``). The values are
    probed once, against the present tokens and the present whole numbers together
    (``among([found, _whole_among(found, present)], present)`` in one pass)."""
    read = IdDigits.of(values)
    digits = pc.utf8_ltrim(read.text if read.bare else read.digits, "0")
    found = Tokens(np.arange(len(digits), dtype=np.int64), digits)
    marked = present.filter(pc.starts_with(present, WHOLE))
    bare = pc.utf8_slice_codeunits(marked, len(WHOLE)).cast(pa.large_string())
    known = pc.unique(pa.chunked_array([present.cast(pa.large_string()), bare]))
    in_present = pc.is_in(known, value_set=present).to_numpy(zero_copy_only=False)
    in_bare = pc.is_in(known, value_set=bare).to_numpy(zero_copy_only=False)
    at = pc.index_in(digits, value_set=known).fill_null(-1).to_numpy(zero_copy_only=False)
    hit = at >= 0
    as_run, as_whole = np.zeros(len(at), dtype=bool), np.zeros(len(at), dtype=bool)
    as_run[hit], as_whole[hit] = in_present[at[hit]], in_bare[at[hit]]
    return Tokens.joined([found.keep(as_run), among([_whole(found.keep(as_whole))], present)])


# --------------------------------------------------------------------------- names


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
        encoded = pc.dictionary_encode(lower(folded(arrow_text(values))))
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
    chunk, offsets, _base = _bytes_of(flat)
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
    chunk, offsets, _base = _bytes_of(words.cast(pa.large_string()).fill_null(""))
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
