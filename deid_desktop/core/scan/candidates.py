"""Which dictionary values could be found in given texts: a filter that keeps every
value whose entries the scanner could match there (and, by a hash collision, rarely one
more), so that a scan of a few short texts - the read-back of a release - builds a
dictionary of those values only, never one of the extract's millions.

The texts are read as the scanner reads them: folded (``fold.fold``) and projected to
ASCII (``fold.ascii_projection``) for the words, the raw text's ASCII digits for the
numbers, joined by ``NOTE_SEP`` in the order the scanner joins them (``TextCandidates``
takes the texts of each scan call; each call's ASCII texts come first, then the
others, as ``engine.scan_text_arrays`` batches them), so that an entry running across
two texts of one batch, which the scanner finds and then drops, is kept too.

- A term (a folded, stripped value) is found only where its words stand in a row in
  the folded text: a word is a run of characters other than a space, and a term's
  words are compared by a 64-bit hash of their first 16 bytes and their length,
  combined in order (the spaces between them are not compared: that only keeps more).
- A number of the dictionary (a phone's, an SSN's or a numeric ID's digits) is looked
  up by the scanner as the digits of a match, which are a run of the text's digits
  in a row (separators skipped): it is kept when its digits are such a run.

A value is kept when any word of it is a text word (a name's words are its entries),
when its whole term is, when its digits (or a phone's without a leading 1) are, and
whenever it is not ASCII (few values; their folding is left to the scanner's own).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.scan.fold import NOTE_SEP, ascii_projection, fold, fold_slow

_M0 = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xC2B2AE3D27D4EB4F)
_M2 = np.uint64(0x165667B19E3779F9)
_MASK = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
#: The longest run of digits compared exactly (10**19 < 2**64); longer values are kept.
MAX_DIGITS = 19
#: The fewest digits of a number of the dictionary (a numeric ID of 3 characters).
MIN_DIGITS = 3
#: The farthest apart two digits of one match of a digit pattern can be (``(858) 555``:
#: the digits around ") " are 3 characters apart).
_GAP = 3
_SPACE = 32
#: ``fold.fold`` of each ASCII byte (bytes of other characters are left as they are).
_FOLD = np.frombuffer(
    bytes((c + 32 if 65 <= c <= 90 else c) if chr(c).isalnum() else 32 for c in range(128))
    + bytes(range(128, 256)),
    dtype=np.uint8,
)
_FOLD_BYTES = _FOLD.tobytes()
_EMPTY_U = np.empty(0, dtype=np.uint64)
_EMPTY_I = np.empty(0, dtype=np.int64)


def _mix(h: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        h = h ^ (h >> np.uint64(29))
        h = h * _M0
        return h ^ (h >> np.uint64(32))


def _word_hashes(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A hash of each word (its first 16 bytes and its length); ``buf`` has 16 spare
    bytes after the last word."""
    view = np.ndarray(shape=(buf.size - 8,), dtype="<u8", buffer=buf.data, strides=(1,))
    k0 = view[starts] & _MASK[np.minimum(lengths, 8)]
    k1 = view[starts + 8] & _MASK[np.clip(lengths - 8, 0, 8)]
    with np.errstate(over="ignore"):
        return _mix((k0 * _M0) ^ ((k1 + lengths.astype(np.uint64)) * _M1))


def _glued_word_hashes(folded: np.ndarray) -> np.ndarray:
    """The hashes of the letter runs of the words where a letter meets a digit (the
    words ``glued.glued_names`` reads again): a name there must be in the dictionary."""
    digit = (folded >= 48) & (folded <= 57)
    letter = (folded >= 97) & (folded <= 122)
    meet = np.flatnonzero((letter[:-1] & digit[1:]) | (digit[:-1] & letter[1:]))
    if meet.size == 0:
        return np.empty(0, dtype=np.uint64)
    lo, hi = np.maximum(meet - _MAX_GLUED, 0), np.minimum(meet + _MAX_GLUED + 2, folded.size)
    parts = [folded[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=True)]
    space = np.full(1, _SPACE, dtype=np.uint8)
    copy = np.concatenate([y for x in parts for y in (x, space)] + [np.zeros(16, np.uint8)])
    copy[(copy >= 48) & (copy <= 57)] = _SPACE  # the digits read as spaces
    starts, lengths, _ = _words(copy[:-16] != _SPACE, np.zeros(1, np.int64))
    return _word_hashes(copy, starts, lengths)


#: Letters read on either side of a letter meeting a digit: longer than any word a
#: hash reads whole (16), so a glued name is never cut short.
_MAX_GLUED = 32


def _then(h: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The hash of a run of words ``h`` followed by the word ``w``."""
    with np.errstate(over="ignore"):
        return _mix((h * _M2) ^ w)


def _words(word: np.ndarray, seg_start: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The words (runs of ``word`` bytes) of the segments of the buffer that start at
    ``seg_start`` (sorted, the first at 0; each runs to the next): their starts,
    lengths and segment numbers, in order."""
    begin, finish = _edges(word, seg_start)
    starts = np.flatnonzero(begin)
    ends = np.flatnonzero(finish)
    owner = np.repeat(np.arange(seg_start.size), _per_segment(begin, seg_start))
    return starts, ends - starts, owner


def _edges(word: np.ndarray, seg_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flags (one past the buffer's end) where a word of ``word`` bytes begins and where
    one has just finished; a word never runs across two segments."""
    n = word.size
    begin = np.zeros(n + 1, dtype=bool)
    finish = np.zeros(n + 1, dtype=bool)
    begin[:n] = word
    begin[1:n] &= ~word[:-1]
    finish[1:] = word
    finish[1:n] &= ~word[1:]
    cut = seg_start[(seg_start > 0) & (seg_start < n)]
    begin[cut] |= word[cut]
    finish[cut] |= word[cut - 1]
    return begin, finish


def _per_segment(flags: np.ndarray, seg_start: np.ndarray) -> np.ndarray:
    """How many ``flags`` are set in each segment (``seg_start``: sorted starts, the
    first at 0; ``flags`` one longer than the buffer, its last entry unset)."""
    if seg_start.size == 0:
        return np.empty(0, dtype=np.int64)
    if seg_start.size == 1:  # one segment (the texts of a scan): no sum over every byte
        return np.array([np.count_nonzero(flags)], dtype=np.int64)
    total = np.concatenate(([0], np.cumsum(flags, dtype=np.int64)))
    ends = np.concatenate((seg_start[1:], [flags.size - 1]))
    return total[ends] - total[seg_start]


def _digit_values(
    digits: np.ndarray,
    first: np.ndarray,
    count: np.ndarray,
    is_digit: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Whether each run ``digits[first : first + count]`` (``count`` <= 19, each run
    inside ``digits``) is digits only (with ``is_digit`` per position; else all are)
    and a hash of its number with its length (leading zeros count).

    The runs are read a length at a time (IDs and phones come in a few lengths): each
    digit position of a run is one gather, with no test of which runs are that long."""
    value = np.zeros(first.size, dtype=np.uint64)
    whole = np.ones(first.size, dtype=bool)
    lengths = np.flatnonzero(np.bincount(count, minlength=1)) if count.size else _EMPTY_I
    for length in lengths.tolist():
        if length == 0:
            continue
        at = np.flatnonzero(count == length) if lengths.size > 1 else None
        start = first if at is None else first[at]
        run = np.zeros(start.size, dtype=np.uint64)
        ok = np.ones(start.size, dtype=bool)
        with np.errstate(over="ignore"):
            for k in range(length):
                pos = start + k
                if is_digit is not None:
                    ok &= is_digit[pos]
                run = run * np.uint64(10) + digits[pos].astype(np.uint64)
        if at is None:
            value, whole = run, ok
        else:
            value[at], whole[at] = run, ok
    return whole, _number_hash(value, count)


def _number_hash(value: np.ndarray, length: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _mix((value * _M0) ^ (length.astype(np.uint64) * _M1))


def _digit_runs(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ASCII digits of a text (0-9), and for each the index of the last digit of its
    run: digits at most ``_GAP`` characters apart with no ``NOTE_SEP`` between them (no
    digit pattern reaches further, nor across two texts)."""
    pos = np.flatnonzero((raw >= 48) & (raw <= 57))
    digits = raw[pos] - np.uint8(48)
    if pos.size == 0:
        return digits, _EMPTY_I
    seps = np.searchsorted(np.flatnonzero(raw == 0), pos)  # separators before each digit
    cut = (np.diff(pos) > _GAP) | (seps[1:] != seps[:-1])
    run = np.concatenate(([0], np.cumsum(cut)))
    last = np.concatenate((np.flatnonzero(cut), [pos.size - 1]))
    return digits, last[run]


def _windows(digits: np.ndarray, last: np.ndarray, length: int) -> np.ndarray:
    """The hash of every run of ``length`` digits in a row of one run of ``digits``."""
    n = digits.size - length + 1
    if n <= 0:
        return _EMPTY_U
    value = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(length):
            value = value * np.uint64(10) + digits[k : k + n].astype(np.uint64)
    value = value[np.arange(n) + length - 1 <= last[:n]]
    return _number_hash(value, np.full(value.size, length, dtype=np.int64))


def _sorted_unique(parts: list[np.ndarray]) -> np.ndarray:
    if not parts:
        return _EMPTY_U
    return np.unique(np.concatenate(parts))


def _member(values: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Which ``values`` are in the sorted ``table``: a bitmap of the table's low hash
    bits first (one read per value), the binary search only where it is set."""
    out = np.zeros(values.size, dtype=bool)
    if table.size == 0 or values.size == 0:
        return out
    bits = min(max(table.size.bit_length() + 4, 12), 24)
    low = np.uint64((1 << bits) - 1)
    bitmap = np.zeros(1 << bits, dtype=bool)
    bitmap[(table & low).astype(np.intp)] = True
    maybe = np.flatnonzero(bitmap[(values & low).astype(np.intp)])
    at = np.minimum(np.searchsorted(table, values[maybe]), table.size - 1)
    out[maybe] = table[at] == values[maybe]
    return out


class TextCandidates:
    """The words, runs of words and runs of digits of some texts, as sorted hashes:
    ``words`` at once, runs of digits of a length and runs of words from given first
    words when asked (``numbers``, ``runs``)."""

    def __init__(self, calls: Sequence[Sequence[str]]):
        """``calls``: the texts of each scan call (each scanned together)."""
        # the texts joined as the scanner joins them, read a part at a time: the ASCII
        # texts of each call by a byte translation, only the others through ``fold``
        raw_parts: list[bytes] = []
        folded_parts: list[bytes] = []
        for texts in calls:
            plain = [t for t in texts if t.isascii()]
            other = [t for t in texts if not t.isascii()]
            if plain or not other:
                part = NOTE_SEP.join(plain).encode("ascii")
                raw_parts.append(part)
                folded_parts.append(part.translate(_FOLD_BYTES))
            if other:
                part_text = NOTE_SEP.join(other)
                raw_parts.append(ascii_projection(part_text))
                folded_parts.append(ascii_projection(fold(part_text)))
        # NOTE_SEP is read as 0 and folded to a space
        raw = np.frombuffer(b"\x00".join(raw_parts), dtype=np.uint8)
        folded = np.frombuffer(b" ".join(folded_parts) + bytes(16), dtype=np.uint8)
        starts, lengths, _ = _words(folded[: raw.size] != _SPACE, np.zeros(1, np.int64))
        self._hashes = _word_hashes(folded, starts, lengths)  # in text order
        glued = _glued_word_hashes(folded[: raw.size])  # "SCOTT9573": the scan reads "scott"
        self.words = np.unique(np.concatenate((self._hashes, glued)))
        self._digits, self._last = _digit_runs(raw)
        self._numbers: dict[int, np.ndarray] = {}

    def numbers(self, length: int) -> np.ndarray:
        """Sorted hashes of the runs of ``length`` digits."""
        if length not in self._numbers:
            self._numbers[length] = np.unique(_windows(self._digits, self._last, length))
        return self._numbers[length]

    def has_number(self, hashes: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Which numbers (``_number_hash`` of a value and its length) are runs of
        digits of the texts."""
        out = np.zeros(hashes.size, dtype=bool)
        for length in np.unique(lengths).tolist():
            at = np.flatnonzero(lengths == length)
            out[at] = _member(hashes[at], self.numbers(length))
        return out

    def runs(self, first_words: np.ndarray, max_words: int) -> np.ndarray:
        """Sorted hashes of the runs of 2 to ``max_words`` words that start with one of
        ``first_words`` (sorted)."""
        wh = self._hashes
        out: list[np.ndarray] = []
        at = np.flatnonzero(_member(wh, first_words))
        h = wh[at]
        for k in range(1, max_words):
            at = at[at + k < wh.size]
            if at.size == 0:
                break
            h = _then(h[: at.size], wh[at + k])
            out.append(h)
        return _sorted_unique(out)


def may_occur(values: pa.Array, found: TextCandidates, *, words: bool, phone: bool) -> np.ndarray:
    """Per value (a large_string array without nulls): may the scanner find an entry
    made from it in the texts? ``words``: each word of a value is an entry (a name's),
    else its whole term is; ``phone``: its digits are an entry (a phone's, an SSN's).

    A quick pass over every value keeps those with a word among the text's words or
    with digits among its runs of digits; that is the answer for names, and the few
    other values that pass are held whole against the text (a term of several words
    must have them all in a row)."""
    terms = not phone
    first = _Quick(values, terms=terms, numbers=terms and not words, phone=phone)
    keep = first.kept(found)
    if terms:  # the words of values not in ASCII, folded as the scanner folds them
        other = np.flatnonzero(~pc.string_is_ascii(values).to_numpy(zero_copy_only=False))
        if other.size:
            texts = values.take(pa.array(other)).to_pylist()
            projected = pa.array([ascii_projection(fold_slow(t)).decode() for t in texts])
            quick = _Quick(
                projected.cast(pa.large_string()),
                terms=True,
                numbers=False,
                phone=False,
                prefolded=True,
            )
            keep[other[quick.kept(found)]] = True
    if words or not keep.any():
        return keep
    at = np.flatnonzero(keep)
    keep[at] = ValueWords.of(values.take(pa.array(at)), phone=phone).kept(found)
    return keep


class _Quick:
    """What the quick pass reads of each value, with a few passes over all values' bytes
    and no table per word: the hash of each value's first word (all its words for a
    name written in several, and for a value that starts with a space), a value of
    digits only (a numeric ID's entry) and, for phones and SSNs, the value's digits in
    a row. Each as (hash, value) pairs, and the values always kept."""

    def __init__(
        self, values: pa.Array, *, terms: bool, numbers: bool, phone: bool, prefolded: bool = False
    ):
        """``terms``: the value's words make entries; ``numbers``: a value of digits
        only is an entry; ``phone``: the value's digits are. ``prefolded``: the values are
        folded already (and projected to ASCII)."""
        count = len(values)
        self.always: list[np.ndarray] = []
        self.words: list[tuple[np.ndarray, np.ndarray]] = []  # (hash, value)
        self.numbers: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (hash, value, len)
        data, seg_start = _buffer(values)
        n = data.size
        seg_end = np.concatenate((seg_start[1:], [n])) if count else seg_start
        size = seg_end - seg_start
        is_digit = np.zeros(n + 1 if numbers or phone else 0, dtype=bool)
        if numbers or phone:  # bytes below '0' wrap round
            np.less(data - np.uint8(48), 10, out=is_digit[:-1])
        if terms or numbers:
            folded = np.frombuffer(
                (data.tobytes() if prefolded else data.tobytes().translate(_FOLD_BYTES))
                + bytes(16),
                np.uint8,
            )
            spaces = np.flatnonzero(folded[:n] == _SPACE)
            after = np.concatenate((spaces, [n]))  # the first space at or after each start
            first_end = np.minimum(after[np.searchsorted(spaces, seg_start)], seg_end)
            lead = first_end == seg_start  # starts with a space (or is empty)
            plain = ~lead & (first_end == seg_end)  # one word, the whole value
            if terms:
                # the first word of a value; every word of a name of several words
                # and of a value that starts with a space
                if numbers:  # a term's first word must be a text word: enough here
                    whole, spread = ~lead, lead & (size > 0)
                else:  # a name: each of its words
                    whole, spread = plain, ~plain & (size > 0)
                at = np.flatnonzero(whole)
                self.words.append(
                    (_word_hashes(folded, seg_start[at], first_end[at] - seg_start[at]), at)
                )
                some = np.flatnonzero(spread)
                if some.size:
                    sub = values.take(pa.array(some))
                    sub_data, sub_start = _buffer(sub)
                    sub_bytes = sub_data.tobytes()
                    sub_folded = np.frombuffer(
                        (sub_bytes if prefolded else sub_bytes.translate(_FOLD_BYTES)) + bytes(16),
                        np.uint8,
                    )
                    starts, lengths = _word_spans(sub_folded[: sub_data.size] != _SPACE, sub_start)
                    owner = np.searchsorted(sub_start, starts, side="right") - 1
                    self.words.append((_word_hashes(sub_folded, starts, lengths), some[owner]))
            if numbers:  # a value of digits only: a numeric ID's entry (``v.isdigit()``)
                at = np.flatnonzero(plain & (size >= MIN_DIGITS))
                at = at[is_digit[seg_start[at]] & is_digit[seg_end[at] - 1]]
                # digits at both ends and letters between ("2023ZoeAnn5551234567") is
                # no number: every byte of the few long ones is read
                long = at[size[at] > MAX_DIGITS]
                spans = zip(seg_start[long].tolist(), seg_end[long].tolist(), strict=True)
                digits_only = (bool(is_digit[a:b].all()) for a, b in spans)
                long = long[np.fromiter(digits_only, dtype=bool, count=long.size)]
                self.always.append(long)
                at = at[size[at] <= MAX_DIGITS]
                whole_digits, nh = _digit_values(
                    data - np.uint8(48), seg_start[at], size[at], is_digit
                )
                self.numbers.append((nh[whole_digits], at[whole_digits], size[at][whole_digits]))
        if phone and count:  # every digit of the value in a row
            total = np.cumsum(is_digit, dtype=np.int64 if n >= 1 << 31 else np.int32)
            dcount = np.zeros(count, dtype=np.int64)
            full = np.flatnonzero(size > 0)
            dcount[full] = total[seg_end[full] - 1]
            inner = full[seg_start[full] > 0]
            dcount[inner] -= total[seg_start[inner] - 1]
            digits = data[is_digit[:-1]] - np.uint8(48)
            nh, owner, length, too_long = _digits_in_a_row(digits, dcount)
            self.always.append(too_long)
            self.numbers.append((nh, owner, length))
        self.size = count

    def kept(self, found: TextCandidates) -> np.ndarray:
        keep = np.zeros(self.size, dtype=bool)
        for at in self.always:
            keep[at] = True
        for h, at in self.words:
            keep[at[_member(h, found.words)]] = True
        for h, at, length in self.numbers:
            keep[at[found.has_number(h, length)]] = True
        return keep


def _word_spans(word: np.ndarray, seg_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each word (a run of ``word`` bytes not across two segments) starts, and
    its length."""
    begin, finish = _edges(word, seg_start)
    starts = np.flatnonzero(begin)
    return starts, np.flatnonzero(finish) - starts


def _digits_in_a_row(
    digits: np.ndarray, dcount: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per value with 3 to 19 digits (``digits``: every value's digits, ``dcount`` of
    them each): the hash of its digits in a row, and of a phone's 11 digits starting
    with 1 without that 1; the value, the length; and the values with more."""
    dfirst = np.cumsum(dcount) - dcount
    exact = np.flatnonzero((dcount >= MIN_DIGITS) & (dcount <= MAX_DIGITS))
    _, nh = _digit_values(digits, dfirst[exact], dcount[exact])
    eleven = exact[dcount[exact] == 11]
    one = eleven[digits[dfirst[eleven]] == 1]  # ``dictionary.phone_digits``
    _, h10 = _digit_values(digits, dfirst[one] + 1, dcount[one] - 1)
    return (
        np.concatenate((nh, h10)),
        np.concatenate((exact, one)),
        np.concatenate((dcount[exact], dcount[one] - 1)),
        np.flatnonzero(dcount > MAX_DIGITS),
    )


def _buffer(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The bytes of a large_string array and where each value starts in them."""
    size = len(values)
    bufs = values.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[values.offset : values.offset + size + 1]
    lo = int(offsets[0]) if size else 0
    if not size or bufs[2] is None:
        return np.empty(0, dtype=np.uint8), offsets[:-1] - lo
    return np.frombuffer(bufs[2], dtype=np.uint8)[lo : int(offsets[-1])], offsets[:-1] - lo


@dataclass(frozen=True, eq=False)
class ValueWords:
    """The folded words and digits of an Arrow array of values (ASCII ones; the others
    are always kept), per value, as hashes to hold against ``TextCandidates``."""

    size: int
    other: np.ndarray  # per value: not ASCII (always kept)
    word_hash: np.ndarray  # per word, in value order
    word_owner: np.ndarray  # the value of each word
    term_hash: np.ndarray  # per value with words: all its words in a row
    term_owner: np.ndarray
    term_words: np.ndarray  # words per such value
    number_hash: np.ndarray  # its digits in a row (and a phone's without a leading 1)
    number_owner: np.ndarray
    number_length: np.ndarray
    too_long: np.ndarray  # values with more digits than ``MAX_DIGITS`` (always kept)

    @classmethod
    def of(cls, values: pa.Array, phone: bool = False) -> ValueWords:
        """``values``: a large_string array without nulls; ``phone``: also the digits of
        a value of 11 digits starting with 1, without that 1 (``phone_digits``)."""
        size = len(values)
        other = ~pc.string_is_ascii(values).to_numpy(zero_copy_only=False)
        data, seg_start = _buffer(values)
        folded = np.empty(data.size + 16, dtype=np.uint8)
        folded[: data.size] = _FOLD[data]
        folded[data.size :] = 0
        starts, lengths, owner = _words(folded[: data.size] != _SPACE, seg_start)
        wh = _word_hashes(folded, starts, lengths)
        # the whole term of each value: its words in a row
        per = np.bincount(owner, minlength=size)
        has = np.flatnonzero(per > 0)
        first = np.concatenate(([0], np.cumsum(per)[:-1]))[has]
        count = per[has]
        term = wh[first] if first.size else _EMPTY_U
        for k in range(1, int(count.max(initial=0))):
            more = k < count
            nxt = wh[np.minimum(first + k, max(wh.size - 1, 0))]
            term = np.where(more, _then(term, nxt), term)
        is_digit = (data >= 48) & (data <= 57)
        digits = data[is_digit] - np.uint8(48)
        dcount = np.bincount(
            np.searchsorted(seg_start, np.flatnonzero(is_digit), side="right") - 1,
            minlength=size,
        )
        nh, n_owner, n_len, too_long = _digits_in_a_row(digits, dcount)
        if not phone:  # else only a value of one word, all digits (``v.isdigit()``)
            one_word = np.zeros(size, dtype=bool)
            one_word[has[count == 1]] = True
            word_size = np.zeros(size, dtype=np.int64)
            word_size[owner] = lengths
            plain = one_word[n_owner] & (n_len == word_size[n_owner])
            nh, n_owner, n_len = nh[plain], n_owner[plain], n_len[plain]
        return cls(
            size=size,
            other=other,
            word_hash=wh,
            word_owner=owner,
            term_hash=term,
            term_owner=has,
            term_words=count,
            number_hash=nh,
            number_owner=n_owner,
            number_length=n_len,
            too_long=too_long,
        )

    def kept(self, found: TextCandidates) -> np.ndarray:
        """Per value: may the scanner find its whole term or its digits in the texts?"""
        keep = self.other.copy()
        keep[self.too_long] = True
        one = self.term_words == 1
        keep[self.term_owner[one][_member(self.term_hash[one], found.words)]] = True
        several = np.flatnonzero(~one)
        if several.size:
            firsts = np.unique(
                self.word_hash[np.searchsorted(self.word_owner, self.term_owner[several])]
            )
            runs = found.runs(firsts, int(self.term_words.max()))
            keep[self.term_owner[several][_member(self.term_hash[several], runs)]] = True
        keep[self.number_owner[found.has_number(self.number_hash, self.number_length)]] = True
        return keep
