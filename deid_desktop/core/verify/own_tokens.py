"""The tokens ``verify.own_values`` pairs: the words, digit runs and initials of released
cells, and the same of each person's identifiers.

A cell's tokens are its words (lower case, ``MIN_LETTERS`` or more), its digit runs
(leading zeros dropped, ``MIN_DIGITS`` or more; letters and digits written together are
two tokens: ``mrn0042002`` -> ``mrn``, ``42002``), for a cell that is only two or three
letters (``JK``, ``J.K.``) its initials, and for a cell that is a number alone the number
whatever its length and separators (compared with the digits of IDs: a key ``0042``
copied as ``42``; a phone's local number ``555-0157``).
A person's tokens are the words of their places and the digits of their IDs and key read
together (``MRN-0042002`` -> ``42002``); those of their names are ``own_names``'.
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


def bytes_of(values: pa.Array) -> tuple[np.ndarray, np.ndarray, int]:
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
    chunk, offsets, base = bytes_of(low)
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
