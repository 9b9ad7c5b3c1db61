"""Finders that read words in their context, over one batch, with numpy: names after
cues in any case and before credentials, names from the Census lists, ages over 89,
dates without a year and seasons with one, street addresses, P.O. boxes, facility names
and gazetteer places; and the check that keeps a dictionary name that is also an English
word to its capitalised or cued uses.

The batch is cut into words (runs of letters and digits of the folded text); every word
gets its lexicon flags (``lexicon``), its case (lower, Title, ALL-CAPS) and what lies in
the gap before it (spaces only, a full stop or line break, a comma, other punctuation).
A note written mostly in capitals ("WIFE IN TO VISIT") gives no case evidence: there,
a word is a name only when a cue precedes it and it is no common word.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.fold import ascii_projection
from deid_desktop.core.scan.rules import CODE

Found = tuple[np.ndarray, np.ndarray, np.ndarray]
_EMPTY = np.empty(0, dtype=np.int64)
_CUE = lx.TITLE | lx.RELATION | lx.CREDENTIAL
_NOT_NAME = lx.COMMON | lx.CLINICAL | lx.MONTH | lx.SEASON | lx.FACILITY | lx.STREET | _CUE
_NOT_NAME_LOWER = _NOT_NAME | lx.NAME_WORD


def _code(kind: str, rule: str) -> int:
    return CODE[(kind, rule)]


C_TITLE = _code("NAME", "cue:title")
C_RELATION = _code("NAME", "cue:relation")
C_CRED = _code("NAME", "cue:credential")
C_LOWER = _code("NAME", "cue:lower-case")
C_INITIAL = _code("NAME", "cue:initial")
C_PAIR = _code("NAME", "names:given+surname")
C_GIVEN = _code("NAME", "names:given")
C_SURNAME = _code("NAME", "names:surname")
C_UNKNOWN = _code("NAME", "recall:unknown-word")
C_AGE = _code("AGE", "age:over-89")
C_NOYEAR = _code("DATE", "date:no-year")
C_MONTHYEAR = _code("DATE", "date:month-year")
C_SEASON = _code("DATE", "date:season")
C_STREET = _code("LOCATION", "address:street")
C_BOX = _code("LOCATION", "address:po-box")
C_FACILITY = _code("LOCATION", "facility")
C_PLACE = _code("LOCATION", "gazetteer")


@dataclass(frozen=True, eq=False)
class Words:
    """The words of a batch as parallel arrays (see the module doc)."""

    start: np.ndarray
    end: np.ndarray
    flags: np.ndarray
    title: np.ndarray  # first letter upper, some lower-case letter after it
    caps: np.ndarray  # upper-case letters only (one letter: an initial)
    lower: np.ndarray  # starts lower-case
    digits: np.ndarray  # digits only
    value: np.ndarray  # the number of a word of at most 4 digits (else -1)
    capsnote: np.ndarray  # the word's note is written in capitals
    gap_space: np.ndarray  # before the word: spaces or tabs only (and something)
    gap_stop: np.ndarray  # before the word: . ! ? : ; line break, or note start
    gap_comma: np.ndarray
    gap_len: np.ndarray
    gap_first: np.ndarray  # first character of the gap before (0 if none)
    gap_dot: np.ndarray  # the gap is "." or ". " (an abbreviation or an initial)
    raw: np.ndarray  # the batch's ASCII projection (bytes as uint8)

    @property
    def size(self) -> int:
        return int(self.start.size)


_SP, _STOP, _COMMA, _BREAK, _UP, _LOW, _DIG = 1, 2, 4, 8, 16, 32, 64
_CLASS = np.zeros(256, dtype=np.uint8)
_CLASS[[32, 9]] = _SP
_CLASS[list(b".!?:;")] = _STOP
_CLASS[list(b"\n\r\x00")] = _STOP | _BREAK
_CLASS[44] = _COMMA
_CLASS[65:91] = _UP
_CLASS[97:123] = _LOW
_CLASS[48:58] = _DIG


def cut_words(text: str, folded: str, *, full: bool = False) -> Words:
    """The words of the batch. Case and gaps are read from a few characters of each
    (the first two and the last of a word; the first three and the last of a gap), never
    with a pass over every character."""
    fb = ascii_projection(folded)
    raw = np.frombuffer(ascii_projection(text) + bytes(4), dtype=np.uint8)
    f = np.frombuffer(fb, dtype=np.uint8)
    word = np.empty(f.size + 2, dtype=bool)
    word[0] = word[-1] = False
    np.not_equal(f, 32, out=word[1:-1])
    edges = np.flatnonzero(word[1:] != word[:-1])
    start, end = edges[0::2], edges[1::2]
    length = end - start
    flags = lx.load_lexicon(full).lookup(fb + bytes(16), start, length)
    c0 = _CLASS[raw[start]]
    c1 = _CLASS[raw[start + 1]]
    cl = _CLASS[raw[np.maximum(end - 1, 0)]]
    one = length == 1
    first_up = (c0 & _UP) != 0
    title = first_up & ((c1 & _LOW) != 0) & ~one
    caps = first_up & (one | (((c1 & _UP) != 0) & ((cl & _UP) != 0)))
    lower = (c0 & _LOW) != 0
    digits = ((c0 & _DIG) != 0) & ((cl & _DIG) != 0) & (one | ((c1 & _DIG) != 0))
    value = np.full(start.size, -1, dtype=np.int64)
    short = np.flatnonzero(digits & (length <= 4))
    if short.size:
        v = np.zeros(short.size, dtype=np.int64)
        ok = np.ones(short.size, dtype=bool)
        for j in range(4):
            inside = j < length[short]
            c = raw[start[short] + j].astype(np.int64) - 48
            ok &= ~inside | ((c >= 0) & (c <= 9))
            v = np.where(inside, v * 10 + c, v)
        value[short] = np.where(ok, v, -1)
        digits[short] &= ok
    # notes written in capitals: per note (NUL-separated), more ALL-CAPS words than others
    seps = np.flatnonzero(raw[: f.size] == 0)
    note_of = np.searchsorted(seps, start)
    n_notes = seps.size + 1
    caps_n = np.bincount(note_of[caps & ~one], minlength=n_notes)
    mixed_n = np.bincount(note_of[title | lower], minlength=n_notes)
    capsnote = (mixed_n * 2 < caps_n)[note_of]
    # the gap before each word
    gap_lo = np.empty_like(start)
    if start.size:
        gap_lo[0] = 0
        gap_lo[1:] = end[:-1]
    gap_len = start - gap_lo
    g0 = np.where(gap_len > 0, _CLASS[raw[gap_lo]], 0)
    g1 = np.where(gap_len > 1, _CLASS[raw[gap_lo + 1]], 0)
    g2 = np.where(gap_len > 2, _CLASS[raw[gap_lo + 2]], 0)
    glast = np.where(gap_len > 0, _CLASS[raw[np.maximum(start - 1, 0)]], 0)
    gany = g0 | g1 | g2 | glast
    gap_space = (gap_len > 0) & (gap_len <= 3)
    for g, k in ((g0, 0), (g1, 1), (g2, 2)):
        gap_space &= (gap_len <= k) | (g == _SP)
    gap_stop = (gany & _STOP) != 0
    if start.size:
        gap_stop[0] = True
    gap_first = np.where(gap_len > 0, raw[gap_lo], 0).astype(np.int64)
    no_break = (gany & _BREAK) == 0
    return Words(
        start=start,
        end=end,
        flags=flags,
        title=title,
        caps=caps,
        lower=lower,
        digits=digits,
        value=value,
        capsnote=capsnote,
        gap_space=gap_space,
        gap_stop=gap_stop,
        gap_comma=((g0 | g1) & _COMMA) != 0,
        gap_len=gap_len,
        gap_first=gap_first,
        gap_dot=(gap_first == 46) & (gap_len <= 2) & no_break,
        raw=raw,
    )


def _nxt(a: np.ndarray, n: int) -> np.ndarray:
    """``a`` shifted so that index i holds a[i + 1] (False/0 past the end)."""
    out = np.zeros_like(a)
    if n > 1:
        out[:-1] = a[1:]
    return out


def _prv(a: np.ndarray) -> np.ndarray:
    out = np.zeros_like(a)
    if a.size > 1:
        out[1:] = a[:-1]
    return out


def _has(w: Words, flag: int) -> np.ndarray:
    return (w.flags & flag) != 0


def find_context(text: str, folded: str, *, high_recall: bool = False) -> tuple[Found, Words]:
    """Candidate hits of every context finder in the batch, and its words."""
    w = cut_words(text, folded, full=high_recall)
    n = w.size
    if n == 0:
        return (_EMPTY, _EMPTY, _EMPTY), w
    out: list[tuple[np.ndarray, np.ndarray, int | np.ndarray]] = []
    idx = np.arange(n)
    mixed = ~w.capsnote
    # name-like: a Title word in a mixed-case note that is not a common or clinical word
    alpha = ~w.digits & (w.value < 0)
    title_name = mixed & w.title & alpha & ((w.flags & _NOT_NAME) == 0)
    title_name |= mixed & w.title & _has(w, lx.NAME_WORD) & ~_has(w, _CUE | lx.CLINICAL)
    initial = mixed & w.caps & (w.end - w.start == 1) & alpha
    # lower-case (or capitals-note) word: a name only if a Census name and no common word
    plain = (w.lower | w.capsnote) & alpha & ((w.flags & _NOT_NAME_LOWER) == 0)
    plain &= _has(w, lx.GIVEN | lx.SURNAME)
    plain &= (w.end - w.start) >= 2
    near = w.gap_space | ((w.gap_len <= 2) & ~w.gap_stop) | w.gap_dot
    cue = _has(w, _CUE) & ~w.lower | _has(w, lx.TITLE | lx.RELATION)
    cue &= ~(_has(w, lx.CREDENTIAL) & ~_has(w, lx.TITLE | lx.RELATION) & w.lower)
    # 1. a word after a cue
    cred_only = _has(w, lx.CREDENTIAL) & ~_has(w, lx.TITLE | lx.RELATION)
    near &= w.gap_space | ~_prv(cred_only)  # "RN Mary", not "SW. Pain"
    after = np.flatnonzero(_prv(cue) & near & (title_name | initial | plain))
    if after.size:
        code = np.where(
            title_name[after],
            np.where(_has(w, lx.TITLE)[after - 1], C_TITLE, np.where(
                _has(w, lx.RELATION)[after - 1], C_RELATION, C_CRED)),
            np.where(initial[after], C_INITIAL, C_LOWER),
        )  # fmt: skip
        end = _extend_name(w, after, title_name, initial, plain)
        out.append((w.start[after], end, code))
    # 2. a name before a credential: "Mary Smith, RN", "Smith MD", "J. Smith RN"
    cred = _has(w, lx.CREDENTIAL) & w.caps & mixed & (w.end - w.start >= 2)
    before = np.flatnonzero(_nxt(cred, n) & (title_name | initial))
    if before.size:
        nxt_gap = _nxt(w.gap_space | w.gap_comma | (w.gap_first == 40), n)[before]
        before = before[nxt_gap & ~_nxt(w.gap_stop, n)[before]]
        lo = before.copy()
        for _ in range(2):  # up to two more name words or initials before
            prev = np.maximum(lo - 1, 0)
            ok = (lo > 0) & (title_name | initial)[prev] & (w.gap_space | w.gap_dot)[lo]
            ok &= ~w.gap_stop[lo] | initial[prev]
            lo = np.where(ok, prev, lo)
        out.append((w.start[lo], w.end[before], C_CRED))
    # 3. Census names without a cue
    place_ctx = _prv(_has(w, lx.PLACE_CUE)) & w.gap_space  # "in Linda": the town
    given = title_name & _has(w, lx.GIVEN) & ~(_has(w, lx.PLACE) & place_ctx)
    surname_next = _nxt(title_name & _has(w, lx.SURNAME | lx.GIVEN) | (_nxt_unknown(w)), n)
    pair = np.flatnonzero(given & surname_next & _nxt(w.gap_space, n))
    if pair.size:
        out.append((w.start[pair], w.end[pair + 1], C_PAIR))
    pair2 = np.flatnonzero(
        mixed & w.title & _has(w, lx.NAME_WORD | lx.GIVEN) & alpha & ~_has(w, _CUE | lx.CLINICAL)
        & _nxt(title_name & _has(w, lx.SURNAME) & ~_has(w, lx.ENGLISH), n) & _nxt(w.gap_space, n)
    )  # fmt: skip
    if pair2.size:
        out.append((w.start[pair2], w.end[pair2 + 1], C_PAIR))
    alone = np.flatnonzero(given & (~_has(w, lx.ENGLISH) | ~w.gap_stop))
    out.append((w.start[alone], w.end[alone], C_GIVEN))
    sur = np.flatnonzero(
        title_name & _has(w, lx.SURNAME) & ~_has(w, lx.ENGLISH | lx.GIVEN | lx.PLACE) & ~w.gap_stop
    )
    out.append((w.start[sur], w.end[sur], C_SURNAME))
    if high_recall:
        unknown = np.flatnonzero(mixed & w.title & alpha & (w.flags == 0) & ~w.gap_stop)
        out.append((w.start[unknown], w.end[unknown], C_UNKNOWN))
    _ages(w, idx, out)
    _dates(w, out)
    _places(text, w, title_name, out)
    if not out:
        return (_EMPTY, _EMPTY, _EMPTY), w
    starts = np.concatenate([np.asarray(s, dtype=np.int64) for s, _, _ in out])
    ends = np.concatenate([np.asarray(e, dtype=np.int64) for _, e, _ in out])
    codes = np.concatenate(
        [np.broadcast_to(np.asarray(c, dtype=np.int64), np.shape(s)) for s, _, c in out]
    )
    return (starts, ends, codes), w


def _nxt_unknown(w: Words) -> np.ndarray:
    """Title words of a mixed-case note in no list at all (a rare surname)."""
    return ~w.capsnote & w.title & (w.flags == 0) & ~w.digits


def _extend_name(
    w: Words, at: np.ndarray, title_name: np.ndarray, initial: np.ndarray, plain: np.ndarray
) -> np.ndarray:
    """The end of the name that starts at word ``at``: one more word when it is of the
    same sort (Title after Title or an initial, lower-case name after lower-case)."""
    n = w.size
    nx = np.minimum(at + 1, n - 1)
    ok = (at + 1 < n) & (w.gap_space | w.gap_dot)[nx]
    ok &= ~w.gap_stop[nx] | initial[at]
    same = np.where(
        title_name[at] | initial[at],
        title_name[nx] & ~_has(w, lx.CREDENTIAL)[nx],
        plain[nx] & _has(w, lx.GIVEN | lx.SURNAME)[nx],
    )
    return np.where(ok & same, w.end[nx], w.end[at])


def _ages(w: Words, idx: np.ndarray, out: list) -> None:  # type: ignore[type-arg]
    n = w.size
    old = (w.value >= 90) & (w.value <= 125)
    nxt_flags = _nxt(w.flags, n)
    y_o = ((nxt_flags & lx.AGE_AFTER) != 0) & ~_nxt(
        w.gap_stop, n
    )  # "93 yo", "93 y/o", "93-year-old", "93 yrs old"
    a = np.flatnonzero(old & y_o)
    before = np.flatnonzero(old & _prv((w.flags & lx.AGE_BEFORE) != 0) & (w.gap_len <= 3))
    words = np.flatnonzero(_has(w, lx.AGE_WORD))
    for s in (a, before, words):
        out.append((w.start[s], w.end[s], C_AGE))


def _dates(w: Words, out: list) -> None:  # type: ignore[type-arg]
    n = w.size
    num = (w.value >= 1) & (w.value <= 31) & (w.end - w.start <= 2)
    # "7/22", "07-22": two numbers, one '/' or '-' between, no third part, no decimals
    sep = _nxt(w.gap_len == 1, n) & _nxt((w.gap_first == 47) | (w.gap_first == 45), n)
    a = np.flatnonzero(num & (w.value <= 12) & sep & _nxt(num, n))
    if a.size:
        b = a + 1
        after_b = np.minimum(b + 1, n - 1)
        third = (b + 1 < n) & (w.gap_len[after_b] == 1) & w.digits[after_b]
        third &= np.isin(w.gap_first[after_b], (45, 46, 47))
        lead = (a > 0) & (w.gap_len[a] == 1) & w.digits[np.maximum(a - 1, 0)]
        lead &= np.isin(w.gap_first[a], (45, 46, 47))
        va, vb = w.value[a], w.value[b]
        fraction = (va <= vb) & np.isin(vb, (2, 3, 4, 5, 8, 10))
        cued = (a > 0) & _has(w, lx.DATE_CUE)[np.maximum(a - 1, 0)]
        ok = ~third & ~lead & (~fraction | cued)
        out.append((w.start[a[ok]], w.end[b[ok]], C_NOYEAR))
    month = _has(w, lx.MONTH) & ~(w.lower & _has(w, lx.COMMON))
    month &= ~(w.lower & _has(w, lx.ENGLISH) & (w.end - w.start > 3))  # "march" the verb
    day = num | _ordinal(w)
    year = (w.value >= 1900) & (w.value <= 2100) & (w.end - w.start == 4)
    m = np.flatnonzero(month & _nxt(day, n) & _nxt(w.gap_len <= 2, n) & ~_nxt(w.gap_stop & ~(
        w.gap_first == 46), n))  # fmt: skip
    out.append((w.start[m], w.end[m + 1], C_NOYEAR))
    d = np.flatnonzero(day & _nxt(month, n) & _nxt(w.gap_len <= 2, n) & ~_nxt(w.gap_stop, n))
    out.append((w.start[d], w.end[d + 1], C_NOYEAR))
    my = np.flatnonzero(month & _nxt(year, n) & _nxt(w.gap_len <= 2, n) & ~_nxt(w.gap_stop, n))
    out.append((w.start[my], w.end[my + 1], C_MONTHYEAR))
    is_of = (w.end - w.start == 2) & ((w.raw[w.start] | 32) == 111)
    is_of &= (w.raw[w.start + 1] | 32) == 102
    of = np.flatnonzero((month | _has(w, lx.SEASON)) & _nxt(is_of, n) & _shift(year, 2, n))
    out.append((w.start[of], w.end[np.minimum(of + 2, n - 1)], C_MONTHYEAR))
    s = np.flatnonzero(_has(w, lx.SEASON) & _nxt(year, n) & _nxt(w.gap_space, n))
    out.append((w.start[s], w.end[s + 1], C_SEASON))


def _shift(a: np.ndarray, k: int, n: int) -> np.ndarray:
    out = np.zeros_like(a)
    if n > k:
        out[:-k] = a[k:]
    return out


def _ordinal(w: Words) -> np.ndarray:
    """Words like 22nd, 1st, 3rd, 4th."""
    length = w.end - w.start
    ok = (length >= 3) & (length <= 4) & ~w.digits & (w.value < 0)
    first = w.raw[w.start]
    at = np.flatnonzero(ok & (first >= 48) & (first <= 57))
    res = np.zeros(w.size, dtype=bool)
    if at.size == 0:
        return res
    raw = w.raw
    s, ln = w.start[at], length[at]
    d0 = raw[s]
    d1 = raw[s + 1]
    is_d = lambda c: (c >= 48) & (c <= 57)  # noqa: E731
    suf_at = s + np.where(is_d(d1), 2, 1)
    good = is_d(d0) & (suf_at + 2 == s + ln)
    s1, s2 = (
        raw[np.minimum(suf_at, raw.size - 1)] | 32,
        raw[np.minimum(suf_at + 1, raw.size - 1)] | 32,
    )
    pairs = (s1.astype(np.int64) << 8) | s2
    sufs = [(ord(a) << 8) | ord(b) for a, b in ("st", "nd", "rd", "th")]
    res[at] = good & np.isin(pairs, sufs)
    return res


def _places(text: str, w: Words, title_name: np.ndarray, out: list) -> None:  # type: ignore[type-arg]
    n = w.size
    mixed = ~w.capsnote
    word_ok = (w.title | w.caps) & ~w.digits
    # street addresses: a house number, one to three capitalised words, a street word
    street = _has(w, lx.STREET) & (w.title | w.caps)
    for k in (2, 3, 4):
        lead = np.flatnonzero(w.digits & (w.end - w.start <= 5) & _shift(street, k, n))
        if lead.size == 0:
            continue
        ok = np.ones(lead.size, dtype=bool)
        for j in range(1, k):
            ok &= word_ok[np.minimum(lead + j, n - 1)] & w.gap_space[np.minimum(lead + j, n - 1)]
        ok &= w.gap_space[np.minimum(lead + k, n - 1)]
        lead = lead[ok]
        out.append((w.start[lead], w.end[np.minimum(lead + k, n - 1)], C_STREET))
    # P.O. Box 123 ("p o box 123" folded, or "po box")
    box = np.flatnonzero(_has(w, lx.BOX) & _nxt(w.digits, n))
    if box.size:
        prev1 = np.maximum(box - 1, 0)
        prev2 = np.maximum(box - 2, 0)
        r = w.raw
        one = (
            (box >= 1)
            & ((r[w.start[prev1]] | 32) == ord("p"))
            & ((r[w.start[prev1] + 1] | 32) == ord("o"))
        )
        one &= (w.end[prev1] - w.start[prev1]) == 2
        two = (
            (box >= 2)
            & ((r[w.start[prev1]] | 32) == ord("o"))
            & ((r[w.start[prev2]] | 32) == ord("p"))
        )
        two &= (w.end[prev1] - w.start[prev1] == 1) & (w.end[prev2] - w.start[prev2] == 1)
        lo = np.where(two, prev2, np.where(one, prev1, box))
        out.append((w.start[lo], w.end[box + 1], C_BOX))
    # facility names: capitalised words before a facility word ("St. Mary's Hospital")
    fac = np.flatnonzero(_has(w, lx.FACILITY) & (w.title | w.caps) & ~w.lower)
    if fac.size:
        lo = fac.copy()
        for _ in range(4):
            prev = np.maximum(lo - 1, 0)
            link = (
                w.gap_space[lo] | w.gap_dot[lo] | ((w.gap_first[lo] == 39) & (w.gap_len[lo] <= 2))
            )
            pw = (word_ok[prev] & ~_has(w, lx.COMMON | lx.CLINICAL)[prev]) | (
                (w.end[prev] - w.start[prev] == 1)
                & (w.raw[w.start[prev]] == 115)
                & (w.gap_first[prev] == 39)
            )  # the s of 's
            ok = (lo > 0) & link & pw & ~w.digits[prev]
            lo = np.where(ok, prev, lo)
        hi = fac.copy()
        for _ in range(2):
            nx = np.minimum(hi + 1, n - 1)
            ok = (hi + 1 < n) & _has(w, lx.FACILITY)[nx] & word_ok[nx] & w.gap_space[nx]
            hi = np.where(ok, nx, hi)
        named = lo < fac
        # "St. Mary's": skip a leading title word only if it is a lone "St"
        out.append((w.start[lo[named]], w.end[hi[named]], C_FACILITY))
    # gazetteer places
    place = _has(w, lx.PLACE) & w.title & mixed & ~_has(w, lx.COMMON | lx.CLINICAL | lx.MONTH)
    cue_before = _prv(_has(w, lx.PLACE_CUE)) & w.gap_space
    state_after = _nxt(_has(w, lx.STATE_CODE | lx.STATE) & ~w.lower, n) & _nxt(w.gap_comma, n)
    strong = place & (~_has(w, lx.ENGLISH | lx.GIVEN | lx.SURNAME) | cue_before | state_after)
    strong &= ~title_name | ~_has(w, lx.GIVEN) | cue_before | state_after
    p = np.flatnonzero(strong)
    out.append((w.start[p], w.end[p], C_PLACE))
    heads = np.flatnonzero(_has(w, lx.PLACE_HEAD) & w.title & mixed)
    if heads.size:
        multi = lx.load_lexicon().multi
        lows: list[int] = []
        highs: list[int] = []
        for i in heads.tolist():
            s = int(w.start[i])
            word = text[s : int(w.end[i])].lower()
            for name in multi.get(word, ()):
                k = name.count(" ")
                if i + k >= n:
                    continue
                e = int(w.end[i + k])
                got = " ".join(text[s:e].lower().replace(".", " ").replace("'", " ").split())
                if got == name and all(w.title[i + j] or w.caps[i + j] for j in range(k + 1)):
                    lows.append(s)
                    highs.append(e)
                    break
        if lows:
            out.append(
                (np.asarray(lows, dtype=np.int64), np.asarray(highs, dtype=np.int64), C_PLACE)
            )


def keep_dictionary_hits(
    w: Words, start: np.ndarray, end: np.ndarray, cued: np.ndarray
) -> np.ndarray:
    """Which dictionary name hits to keep: a name that is also an English word only
    where it is capitalised in a mixed-case note, or ``cued``."""
    if start.size == 0 or w.size == 0:
        return np.ones(start.size, dtype=bool)
    at = np.clip(np.searchsorted(w.start, start), 0, w.size - 1)
    wordlike = _has(w, lx.COMMON | lx.NAME_WORD)[at]
    shows = (w.title[at] | w.caps[at]) & ~w.capsnote[at]
    return ~wordlike | shows | (cued & ~_has(w, lx.COMMON)[at])


def cue_before(w: Words, start: np.ndarray) -> np.ndarray:
    """Does a cue word stand right before the word at each of ``start``?"""
    if start.size == 0 or w.size == 0:
        return np.zeros(start.size, dtype=bool)
    at = np.clip(np.searchsorted(w.start, start), 0, w.size - 1)
    prev = np.maximum(at - 1, 0)
    f = w.flags[prev]
    cue = (f & (lx.TITLE | lx.RELATION)) != 0
    cue |= ((f & lx.CREDENTIAL) != 0) & w.caps[prev] & ~w.capsnote[prev]
    return (at > 0) & cue


def common_capture(w: Words, start: np.ndarray) -> np.ndarray:
    """Is the word at each of ``start`` a common word that is no name (what an old cue
    rule caught in "WIFE IN TO VISIT" or "Son At bedside")?"""
    if start.size == 0 or w.size == 0:
        return np.zeros(start.size, dtype=bool)
    at = np.clip(np.searchsorted(w.start, start), 0, w.size - 1)
    f = w.flags[at]
    bad = (f & (lx.COMMON | lx.CLINICAL)) != 0
    bad &= ~(((f & lx.NAME_WORD) != 0) & w.title[at] & ~w.capsnote[at])
    lower_word = (w.capsnote[at] | w.lower[at]) & ((f & lx.ENGLISH) != 0)
    lower_word &= (f & (lx.GIVEN | lx.SURNAME)) == 0
    return bad | lower_word


def trim_cue_names(w: Words, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The ends of two-word cue captures cut back to the first word when the second is
    a common or clinical word, or the note is in capitals and the second word is no
    Census name ("DR. JONES AWARE")."""
    if start.size == 0 or w.size == 0:
        return end
    at = np.clip(np.searchsorted(w.start, start), 0, w.size - 1)
    nx = np.minimum(at + 1, w.size - 1)
    two = (at + 1 < w.size) & (w.end[nx] <= end) & (w.end[at] < end)
    f = w.flags[nx]
    bad = (f & (lx.COMMON | lx.CLINICAL | _CUE)) != 0
    bad |= w.capsnote[nx] & ((f & (lx.GIVEN | lx.SURNAME)) == 0)
    return np.where(two & bad, w.end[at], end)
