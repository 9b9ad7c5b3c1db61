"""Finders that read words in their context, over one batch, with numpy: names after
cues in any case and before credentials, names from the Census lists, ages over 89,
dates without a year and seasons with one, street addresses, P.O. boxes, facility names
and gazetteer places; and the check that keeps a dictionary name that is also an English
word to its capitalised or cued uses.

The batch is cut into words (runs of letters and digits of the folded text); every word
gets its lexicon flags (``lexicon``) and the class of its first character. Each finder
starts from its few anchor words (cue words, month words, digits, capitalised words...)
and reads the case of a word (lower, Title, ALL-CAPS), its number, and what lies in the
gap before it (spaces only, a full stop or line break, a comma) only at those anchors
and their neighbours, so no pass runs over every character and few over every word.
A note written mostly in capitals ("WIFE IN TO VISIT") gives no case evidence: there,
a word is a name only when a cue precedes it and it is no common word.
"""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.cuewords import english_at
from deid_desktop.core.scan.date_ranges import date_ranges
from deid_desktop.core.scan.place_words import NOT_NAME
from deid_desktop.core.scan.rules import CODE
from deid_desktop.core.scan.words import (
    _ANCHORS,
    _CUE,
    _DIG,
    _LOW,
    _UP,
    Words,
    ambiguous_cue,
    cut_words,
)

__all__ = ["Words", "cut_words", "find_context"]

Found = tuple[np.ndarray, np.ndarray, np.ndarray]
_EMPTY = np.empty(0, dtype=np.int64)
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
C_SHORT = _code("DATE", "date:short-year")
#: what may not follow a two-digit year after an apostrophe: a digit, a per cent sign, an
#: apostrophe
_NOT_AFTER_YEAR = np.zeros(256, dtype=bool)  # by byte
_NOT_AFTER_YEAR[[*range(48, 58), 37, 39]] = True
C_STREET = _code("LOCATION", "address:street")
C_BOX = _code("LOCATION", "address:po-box")
C_FACILITY = _code("LOCATION", "facility")
C_PLACE = _code("LOCATION", "gazetteer")


_SEP_CHAR = np.zeros(256, dtype=bool)
_SEP_CHAR[[45, 46, 47]] = True  # - . /
_FRACTION = np.zeros(32, dtype=bool)
_FRACTION[[2, 3, 4, 5, 8, 10]] = True  # x/2, x/4, x/10: a dose or a score, not a date
_SUFFIX = np.zeros(1 << 16, dtype=bool)
_SUFFIX[[(ord(a) << 8) | ord(b) for a, b in ("st", "nd", "rd", "th")]] = True


class _Names:
    """Name predicates at word indices."""

    def __init__(self, w: Words) -> None:
        self.w = w

    def kinds(self, i: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(title name, initial, plain lower-case name) at ``i``."""
        w = self.w
        title, caps, lower, digits = w.case(i)
        f = w.f(i)
        mixed = ~w.capsnote(i)
        alpha = ~digits & w.valid(i)
        one = w.length(i) == 1
        tn = mixed & title & alpha & ((f & _NOT_NAME) == 0)
        tn |= mixed & title & ((f & lx.NAME_WORD) != 0) & ((f & (_CUE | lx.CLINICAL)) == 0)
        initial = mixed & caps & one & alpha
        plain = (lower | ~mixed) & alpha & ((f & _NOT_NAME_LOWER) == 0)
        plain &= ((f & (lx.GIVEN | lx.SURNAME)) != 0) & ~one
        return tn, initial, plain


def _flag_idx(w: Words, flag: int) -> np.ndarray:
    if flag & ~_ANCHORS:
        return np.flatnonzero((w.flags[: w.size] & flag) != 0)
    return w.anchors[(w.anchor_flags & flag) != 0]


def find_context(
    text: str,
    folded: str,
    *,
    high_recall: bool = False,
    tokens: tuple[np.ndarray, ...] | None = None,
) -> tuple[Found, Words]:
    """Candidate hits of every context finder in the batch, and its words."""
    w = cut_words(text, folded, full=high_recall, tokens=tokens)
    out: list[tuple[np.ndarray, np.ndarray, int | np.ndarray]] = []
    if w.size:
        names = _Names(w)
        _cued_names(w, names, out)
        _census_names(w, names, out, high_recall)
        _ages(w, out)
        _dates(w, out)
        _places(text, w, names, out)
    if not out:
        return (_EMPTY, _EMPTY, _EMPTY), w
    starts = np.concatenate([s for s, _, _ in out]).astype(np.int64, copy=False)
    ends = np.concatenate([e for _, e, _ in out]).astype(np.int64, copy=False)
    sizes = [np.size(s) for s, _, _ in out]
    if all(np.ndim(c) == 0 for _, _, c in out):  # one rule per piece (most)
        codes = np.repeat(np.array([c for _, _, c in out], dtype=np.int64), sizes)
    else:
        codes = np.concatenate(
            [
                np.full(n, c, dtype=np.int64) if np.ndim(c) == 0 else c
                for (_, _, c), n in zip(out, sizes, strict=True)
            ]
        ).astype(np.int64, copy=False)
    return (starts, ends, codes), w


def _cued_names(w: Words, names: _Names, out: list) -> None:  # type: ignore[type-arg]
    cues = _flag_idx(w, _CUE)
    if cues.size == 0:
        return
    f = w.flags[cues]
    ccaps = w.caps[cues]
    title_or_rel = (f & (lx.TITLE | lx.RELATION)) != 0
    is_cue = title_or_rel | ccaps  # a credential cue is written in capitals: "RN", not "Pt"
    cred_only = ~title_or_rel
    # 1. a word after a cue ("Dr. Smith", "dr smith", "dtr Mary", "RN Mary", "Dr. K")
    cue = cues[is_cue]
    cred_only = cred_only[is_cue]
    j = cue + 1
    g = w.gap(j)
    # after a full stop: an abbreviation's ("Dr. Smith", "dtr. Mary"); after a word's
    # that ends its sentence only a name of the lists ("daughter. Jennifer will call",
    # not "daughter. Awake for the night")
    near = g.space | ((g.length <= 2) & ~g.stop)
    near |= g.dot & ((w.length(cue) <= 4) | w.has(j, lx.GIVEN | lx.SURNAME))
    near &= g.space | ~cred_only  # "RN Mary", not "SW. Pain"
    tn, initial, plain = names.kinds(j)
    # after "PA", "PT" ("PA LINE", "PT COMFORT"): no English word
    plain &= ~(ambiguous_cue(w, cue) & ((w.f(j) & lx.ENGLISH) != 0))
    ok = near & (tn | initial | plain)
    if ok.any():
        at, cf = j[ok], w.flags[cue[ok]]
        code = np.where(
            tn[ok],
            np.where((cf & lx.TITLE) != 0, C_TITLE, np.where(
                (cf & lx.RELATION) != 0, C_RELATION, C_CRED)),
            np.where(initial[ok], C_INITIAL, C_LOWER),
        )  # fmt: skip
        out.append((w.start[at], _extend_name(w, names, at, tn[ok], initial[ok]), code))
    # 2. a name before a credential: "Mary Smith, RN", "Smith MD", "J. Smith RN"
    cred = cues[((f & lx.CREDENTIAL) != 0) & ccaps & (w.length(cues) >= 2) & ~w.capsnote(cues)]
    if cred.size == 0:
        return
    g = w.gap(cred)
    b = cred - 1
    tn, initial, _ = names.kinds(b)
    ok = (tn | initial) & (g.space | g.comma | (g.first == 40)) & ~g.stop
    ok &= g.comma | ~ambiguous_cue(w, cred)  # "Jane Doe, PA", not "Await PT eval"
    before, lo = b[ok], b[ok].copy()
    for _ in range(2):  # up to two more name words or initials before
        prev = lo - 1
        ptn, pinit, _ = names.kinds(prev)
        gl = w.gap(lo)
        step = (ptn | pinit) & (gl.space | gl.dot) & (~gl.stop | pinit)
        lo = np.where(step, prev, lo)
    out.append((w.start[lo], w.end[before], C_CRED))


def _extend_name(
    w: Words, names: _Names, at: np.ndarray, tn: np.ndarray, initial: np.ndarray
) -> np.ndarray:
    """The end of the name that starts at word ``at``: one more word when it is of the
    same sort (Title after Title or an initial, lower-case name after lower-case)."""
    nx = at + 1
    g = w.gap(nx)
    ok = (g.space | g.dot) & (~g.stop | initial)
    ntn, _, nplain = names.kinds(nx)
    same = np.where(tn | initial, ntn & ~w.has(nx, lx.CREDENTIAL), nplain)
    return np.where(ok & same, w.end[w.at(nx)], w.end[at])


def _census_names(w: Words, names: _Names, out: list, high_recall: bool) -> None:  # type: ignore[type-arg]
    up = np.flatnonzero((w.c0[: w.size] & _UP) != 0)
    # every hit below needs a name flag (or, in high-recall mode, no flag at all)
    f = w.flags[up]
    may = (f & (lx.GIVEN | lx.SURNAME | lx.NAME_WORD)) != 0
    up = up[(may | (f == 0)) if high_recall else may]
    if up.size == 0:
        return
    tn, _, _ = names.kinds(up)
    f = w.flags[up]
    g = w.gap(up)
    place_ctx = w.has(up - 1, lx.PLACE_CUE) & g.space  # "in Linda": the town
    given = tn & ((f & lx.GIVEN) != 0) & ~(((f & (lx.PLACE | lx.STATE)) != 0) & place_ctx)
    given &= ((f & lx.CLINICAL) == 0) & ~(w.has(up, lx.MONTH) & w.has(up - 1, lx.DATE_CUE))
    measure = lx.in_set(w.hashes[np.minimum(up + 1, w.size - 1)], _MEASURES)
    given &= ~(measure & w.gap(up + 1).space)  # "Max temp", "month of April"
    given &= ~((g.first == 45) & (g.length == 1) & (w.length(up - 1) == 1))  # "X-Ray"
    nx = up + 1
    ntn, _, _ = names.kinds(nx)
    ng = w.gap(nx)
    nf = w.f(nx)
    ntitle, ndigits = w.title[nx], w.digits[nx]
    unknown = ntitle & (nf == 0) & ~ndigits & ~w.capsnote(nx) & w.valid(nx)
    surname_next = (ntn & ((nf & (lx.SURNAME | lx.GIVEN)) != 0)) | unknown
    pair = given & surname_next & ng.space
    out.append((w.start[up[pair]], w.end[w.at(nx[pair])], C_PAIR))
    title, digits = w.title[up], w.digits[up]
    mixed = ~w.capsnote(up)
    pair2 = mixed & title & ((f & (lx.NAME_WORD | lx.GIVEN)) != 0) & ~digits
    pair2 &= (f & (_CUE | lx.CLINICAL)) == 0
    pair2 &= ntn & ((nf & lx.SURNAME) != 0) & ((nf & lx.ENGLISH) == 0) & ng.space
    out.append((w.start[up[pair2]], w.end[w.at(nx[pair2])], C_PAIR))
    alone = given & (((f & lx.ENGLISH) == 0) | ~g.stop)
    out.append((w.start[up[alone]], w.end[up[alone]], C_GIVEN))
    sur = tn & ((f & lx.SURNAME) != 0) & ((f & (lx.ENGLISH | lx.GIVEN | lx.PLACE)) == 0)
    sur &= ~g.stop
    out.append((w.start[up[sur]], w.end[up[sur]], C_SURNAME))
    if high_recall:
        unknown_here = mixed & title & ~digits & (f == 0) & ~g.stop
        out.append((w.start[up[unknown_here]], w.end[up[unknown_here]], C_UNKNOWN))


def _ages(w: Words, out: list) -> None:  # type: ignore[type-arg]
    dig = w.numbers
    if dig.size:
        v = w.number_values
        old = dig[(v >= 90) & (v <= 125)]
        if old.size:
            after = w.has(old + 1, lx.AGE_AFTER) & ~w.gap(old + 1).stop  # 93 yo, 93-year-old
            before = w.has(old - 1, lx.AGE_BEFORE) & (w.gap(old).length <= 3)  # age 93
            hit = old[after | before]
            out.append((w.start[hit], w.end[hit], C_AGE))
    words = _flag_idx(w, lx.AGE_WORD)
    out.append((w.start[words], w.end[words], C_AGE))


def _day(w: Words, i: np.ndarray) -> np.ndarray:
    """A day of the month: 1-31 in at most 2 digits, or 1st, 22nd, 3rd, 4th."""
    v = w.value(i)
    n = w.length(i)
    num = (v >= 1) & (v <= 31) & (n <= 2)
    j = w.at(i)
    s = w.start[j]
    raw = w.raw
    d0, d1 = w.cls[s], w.cls[s + 1]
    two = (d1 & _DIG) != 0
    suf = s + np.where(two, 2, 1)
    pair = ((raw[suf] | 32).astype(np.int64) << 8) | (raw[suf + 1] | 32)
    ordinal = w.valid(i) & ((d0 & _DIG) != 0) & (suf + 2 == s + n) & _SUFFIX[pair]
    return num | ordinal


def _year(w: Words, i: np.ndarray) -> np.ndarray:
    v = w.value(i)
    return (v >= 1900) & (v <= 2100) & (w.length(i) == 4)


def _is_of(w: Words, i: np.ndarray) -> np.ndarray:
    j = w.at(i)
    s = w.start[j]
    return (w.length(i) == 2) & ((w.raw[s] | 32) == 111) & ((w.raw[s + 1] | 32) == 102)


#: Vital signs, ventilator settings and other measures whose value is written as a
#: range or a pair ("RR 12-18", "PSV 10/5", "BP 110/70"): two numbers after one are no
#: day and month.
MEASURE_WORDS = (
    "rr", "hr", "bp", "sbp", "dbp", "map", "maps", "pad", "pas", "cvp", "pap", "paps",
    "pcwp", "psv", "peep", "cpap", "bipap", "ps", "pip", "imv", "simv", "ac", "tv", "vt",
    "fio2", "o2", "sat", "sats", "spo2", "uo", "uop", "co", "ci", "svr", "temp", "tmax",
    "hct", "hgb", "wbc", "plt", "inr", "ptt", "resp", "rate", "rates", "pulse", "glucose",
    "fs", "fsbs", "bs", "gtt", "drip", "dose", "ratio", "ie", "gcs", "pain", "breaths",
    "of", "between", "range", "x", "flowby", "flow-by", "ips", "ipap", "epap", "fmv",
    "settings", "setting",
)  # fmt: skip


#: Units after a range ("3-4 breaths", "1-2 days", "2-4 units/hr").
UNIT_WORDS = (
    "breaths", "bpm", "days", "day", "hours", "hrs", "hr", "weeks", "wks", "months",
    "times", "mins", "min", "minutes", "units", "l", "liters", "lpm", "mg", "mcg", "cc",
    "ml", "kg", "lbs", "cm", "mm", "x", "hour", "peep", "ps", "psv", "cpap", "fio2", "ns",
    "nss", "tab", "tabs", "amp", "amps", "strength",
)  # fmt: skip


#: Clinical events a day and month without a year follows ("MI 1/8", "CABG 2/4").
EVENT_WORDS = (
    "mi", "nstemi", "stemi", "cva", "tia", "chf", "cabg", "avr", "mvr", "pci", "ptca",
    "stent", "stents", "cath", "surgery", "op", "ablation", "cardioversion", "iabp",
    "pe", "dvt", "fall", "arrest", "code", "intubation", "extubation", "transfer", "follow",
    "set", "x2", "x3", "extub", "intub", "reintub", "mtg", "meeting", "monday", "tuesday",
    "wednesday", "thursday", "friday", "saturday", "sunday", "mon", "tues", "wed", "thurs",
    "fri",
)  # fmt: skip


def _event_before(w: Words, a: np.ndarray) -> np.ndarray:
    """Whether a clinical event (``EVENT_WORDS``) or a past participle ("extubated",
    "placed") stands right before the words ``a``: a day and month then, not a dose."""
    prev = np.maximum(a - 1, 0)
    before = (a > 0) & (_past(w, prev) | lx.in_set(w.hashes[prev], _EVENTS))
    # "ADMITTED TO CCU 8/10", "transferred from OSH 4/4": a place between
    far = np.maximum(a - 3, 0)
    via = lx.in_set(w.hashes[np.maximum(a - 2, 0)], _VIA) & (a >= 3) & _past(w, far)
    return before | (via & w.gap(a - 1).space & w.gap(a).space)


def _past(w: Words, i: np.ndarray) -> np.ndarray:
    """Whether the words at ``i`` end in "ed" (a past participle: "extubated")."""
    e = w.end[i]
    r = w.raw
    past = ((r[e - 2] | 32) == 101) & ((r[e - 1] | 32) == 100) & (w.length(i) > 4)
    return past & ((w.c0[i] & (_UP | _LOW)) != 0)


#: Words no street's name holds ("50 BY DR", "110 SR TO ST", "8 TRACH IN PLACE").
FUNCTION_WORDS = (
    "to", "by", "in", "not", "of", "at", "on", "with", "w", "and", "or", "for", "is", "was",
    "given", "per", "via", "from", "into", "than", "then", "as", "placed", "sent", "s/p",
)  # fmt: skip
_FUNCTION = lx.hash_set(FUNCTION_WORDS)
_MEASURES = lx.hash_set(MEASURE_WORDS)
_EVENTS = lx.hash_set(EVENT_WORDS)
_VIA = lx.hash_set(("to", "at", "from", "into", "in"))
_UNITS = np.sort(lx.hash_set(UNIT_WORDS))


def _dates(w: Words, out: list) -> None:  # type: ignore[type-arg]
    # "7/22", "07-22": two numbers, one '/' or '-' between, no third part, no decimals
    dig = w.numbers
    if dig.size:
        # "MI '92", "s/p CABG '05": a year of two digits after an apostrophe alone
        two = dig[w.number_lengths == 2]
        s0 = w.start[two]
        apos = (s0 >= 2) & (w.raw[np.maximum(s0 - 1, 0)] == 39)
        apos &= (w.cls[np.maximum(s0 - 2, 0)] & (_UP | _LOW | _DIG)) == 0
        apos &= ~_NOT_AFTER_YEAR[w.raw[w.end[two]]]  # "'92%", "'92's"
        out.append((s0[apos], w.end[two[apos]], C_SHORT))
        _years(w, out)
        va = w.number_values
        a = dig[(va >= 1) & (va <= 12) & (w.number_lengths <= 2)]
        b = a + 1
        gb = w.gap(b)
        vb = w.value(b)
        ok = (gb.length == 1) & ((gb.first == 47) | (gb.first == 45))
        ok &= (vb >= 1) & (vb <= 31) & (w.length(b) <= 2)
        a, b = a[ok], b[ok]
        if a.size:
            c = b + 1
            gc = w.gap(c)
            third = w.valid(c) & (gc.length == 1) & w.digits[c] & _SEP_CHAR[gc.first]
            ga = w.gap(a)
            lead = (ga.length == 1) & w.digits[a - 1] & w.valid(a - 1) & _SEP_CHAR[ga.first]
            va, vb = w.value(a), w.value(b)
            fraction = (va <= vb) & _FRACTION[np.clip(vb, 0, 31)]
            cued = w.has(a - 1, lx.DATE_CUE) | _event_before(w, a)
            # "RR 12-18", "PSV 10/5", "uo 10-30/hr": a measure's range or setting
            measure = (a > 0) & lx.in_set(w.hashes[np.maximum(a - 1, 0)], _MEASURES)
            # "10/5/hr", "10-10:30 PM" (a time), "50% 8/5" (a setting after a per cent)
            after = w.raw[w.end[b] + 1]
            clock = (w.raw[w.end[b]] == 58) & (after >= 48) & (after <= 57)
            rate = (w.raw[w.end[b]] == 47) | clock
            rate |= (ga.first == 37) & (ga.length <= 2)
            # "3-4 breaths", "1-2 days": a day and month joined by a hyphen, without a
            # year, is a range unless a date cue comes before ("on 7-22")
            # a unit in the same sentence ("1/2 tab"), not the next note's first word
            unit = lx.in_set(w.hashes[np.minimum(b + 1, w.size - 1)], _UNITS)
            ranged = ((gb.first[ok] == 45) & ~cued) | (unit & ~w.gaps.stop[b + 1])
            keep = ~third & ~lead & (~fraction | cued) & ~measure & ~rate & ~ranged
            out.append((w.start[a[keep]], w.end[b[keep]], C_NOYEAR))
            date_ranges(w, a, b, third & ~lead & ~measure & (~fraction | cued), out)
    months = _flag_idx(w, lx.MONTH)
    if months.size:
        lower = w.lower[months]
        f = w.flags[months]
        ok = ~(lower & ((f & lx.COMMON) != 0))  # "may"
        ok &= ~(lower & ((f & lx.ENGLISH) != 0) & (w.length(months) > 3))  # "march"
        m = months[ok]
        nx = m + 1
        g = w.gap(nx)
        close = (g.length <= 2) & ~(g.stop & (g.first != 46))
        md = _day(w, nx) & close
        out.append((w.start[m[md]], w.end[w.at(nx[md])], C_NOYEAR))
        my = _year(w, nx) & (g.length <= 2) & ~g.stop
        out.append((w.start[m[my]], w.end[w.at(nx[my])], C_MONTHYEAR))
        gm = w.gap(m)
        dm = _day(w, m - 1) & (gm.length <= 2) & ~gm.stop
        out.append((w.start[w.at(m[dm] - 1)], w.end[m[dm]], C_NOYEAR))
        _of_year(w, m, out)
    seasons = _flag_idx(w, lx.SEASON)
    if seasons.size:
        sy = _year(w, seasons + 1) & w.gap(seasons + 1).space
        out.append((w.start[seasons[sy]], w.end[w.at(seasons[sy] + 1)], C_SEASON))
        _of_year(w, seasons, out)


#: Words a year stands after ("IN 1973", "since 1998").
YEAR_CUES = ("in", "since", "circa", "during", "until", "till", "year", "yr")
#: Words a distance in feet follows ("AMB 50'"), no year.
MOVE_WORDS = (
    "amb", "ambulate", "ambulated", "ambulating", "ambulation", "walk", "walked", "walking",
    "gait", "distance", "x", "ft", "feet", "about", "approx", "approximately",
)  # fmt: skip
_YEAR_CUES = np.sort(lx.hash_set(YEAR_CUES))
_MOVES = np.sort(lx.hash_set(MOVE_WORDS))
C_YEAR = _code("DATE", "date:year")


def _years(w: Words, out: list) -> None:  # type: ignore[type-arg]
    """Years in text: four digits 1900-2039 after "in", "since" ("IN 1973"), or 1960-2039
    after a clinical event or word ("old CVA 1965": no time of day has 60 minutes); two
    digits and an apostrophe after a word ("CVA 70'.", not "AMB 50'", nor "5'10'")."""
    dig = w.numbers
    four = dig[w.number_lengths == 4]
    v = w.value(four)
    keep = (v >= 1900) & (v <= 2039) & (four > 0)
    four, v = four[keep], v[keep]
    if four.size:
        # after "in", "since"; from 1960 after a clinical word or event
        late = (v >= 1960) & (w.has(four - 1, lx.CLINICAL) | _event_before(w, four))
        four = four[late | lx.in_set(w.hashes[four - 1], _YEAR_CUES)]
        nx = in_words(w, four + 1)
        alone = w.gap(four).space & ~(w.digits[nx] & (w.gap(nx).length == 1))
        alone &= ~lx.in_set(w.hashes[np.minimum(nx, w.size - 1)], _UNITS) | (nx >= w.size)
        ok = alone & ~w.digits[four - 1]
        out.append((w.start[four[ok]], w.end[four[ok]], C_YEAR))
    two = dig[w.raw[w.end[dig]] == 39]  # a number before an apostrophe: few
    two = two[(w.length(two) == 2) & _YEAR_AFTER[w.raw[w.end[two] + 1]] & (two > 0)]
    if two.size:
        prev = two - 1
        ok = ((w.c0[prev] & (_UP | _LOW)) != 0) & ~w.digits[prev] & (w.length(prev) >= 2)
        ok &= w.gap(two).space & ~lx.in_set(w.hashes[prev], _MOVES)
        out.append((w.start[two[ok]], w.end[two[ok]] + 1, C_SHORT))


def in_words(w: Words, i: np.ndarray) -> np.ndarray:
    """``i`` kept within the sentinel words (an index past them reads as the last)."""
    return np.minimum(i, w.start.size - 1)


#: what may follow "NN'" as a year: no letter nor digit, apostrophe or quote ("5'10'")
_YEAR_AFTER = np.ones(256, dtype=bool)
_YEAR_AFTER[[*range(48, 58), *range(65, 91), *range(97, 123), 39, 34]] = False


def _of_year(w: Words, at: np.ndarray, out: list) -> None:  # type: ignore[type-arg]
    """ "summer of 2018", "July of 2019"."""
    ok = _is_of(w, at + 1) & _year(w, at + 2)
    out.append((w.start[at[ok]], w.end[w.at(at[ok] + 2)], C_MONTHYEAR))


def _places(text: str, w: Words, names: _Names, out: list) -> None:  # type: ignore[type-arg]
    def word_ok(i: np.ndarray) -> np.ndarray:
        title, caps, digits = w.title[i], w.caps[i], w.digits[i]
        return (title | caps) & ~digits & w.valid(i)

    # street addresses: a house number, one to three capitalised words, a street word
    streets = _flag_idx(w, lx.STREET)
    if streets.size:
        title, caps = w.title[streets], w.caps[streets]
        streets = streets[title | caps]
        for k in (2, 3, 4):
            lead = streets - k
            ok = w.digits[lead] & w.valid(lead) & (w.length(lead) <= 5)
            # "4.0 KCL ...": the number is a decimal's part, no house's
            ok &= ~((w.gap(lead).length == 1) & (w.gap(lead).first == 46))
            for j in range(1, k):
                ok &= word_ok(lead + j) & w.gap(lead + j).space
                # "8 TRACH IN PLACE", "50 BY DR": no clinical nor function word
                ok &= ~w.has(lead + j, lx.CLINICAL) & ~lx.in_set(
                    w.hashes[np.minimum(lead + j, w.size - 1)], _FUNCTION
                )
            ok &= w.gap(streets).space
            out.append((w.start[w.at(lead[ok])], w.end[streets[ok]], C_STREET))
    # P.O. Box 123 ("p o box 123" folded, or "po box")
    box = _flag_idx(w, lx.BOX)
    if box.size:
        box = box[w.digits[box + 1] & w.valid(box + 1)]
        r = w.raw
        p1, p2 = w.at(box - 1), w.at(box - 2)
        one = (box >= 1) & (w.length(box - 1) == 2)
        one &= ((r[w.start[p1]] | 32) == 112) & ((r[w.start[p1] + 1] | 32) == 111)
        two = (box >= 2) & (w.length(box - 1) == 1) & (w.length(box - 2) == 1)
        two &= ((r[w.start[p1]] | 32) == 111) & ((r[w.start[p2]] | 32) == 112)
        lo = np.where(two, p2, np.where(one, p1, box))
        out.append((w.start[lo], w.end[w.at(box + 1)], C_BOX))
    # facility names: capitalised words before a facility word ("St. Mary's Hospital")
    fac = _flag_idx(w, lx.FACILITY)
    if fac.size:
        fac = fac[word_ok(fac)]
        lo = fac.copy()
        for _ in range(4):
            prev = lo - 1
            g = w.gap(lo)
            link = g.space | g.dot | ((g.first == 39) & (g.length <= 2))
            pw = word_ok(prev) & ~w.has(prev, lx.COMMON | lx.CLINICAL)
            pw &= ~(w.capsnote(prev) & english_at(w, prev))  # "GO HOME", "CARDIAC REHAB"
            # "DC HOME", "AWAITING REHAB", "PMICU NURSING": no facility's name
            pw &= ~lx.in_set(w.hashes[np.clip(prev, 0, max(w.size - 1, 0))], NOT_NAME)
            pw &= w.length(prev) > 1  # "D/C HOME"
            gp = w.gap(prev)
            s_of = (w.length(prev) == 1) & (w.raw[w.start[w.at(prev)]] == 115) & (gp.first == 39)
            lo = np.where(link & (pw | s_of) & w.valid(prev), prev, lo)
        hi = fac.copy()
        for _ in range(2):
            nx = hi + 1
            ok = w.has(nx, lx.FACILITY) & word_ok(nx) & w.gap(nx).space
            hi = np.where(ok, nx, hi)
        named = lo < fac
        out.append((w.start[lo[named]], w.end[hi[named]], C_FACILITY))
    # gazetteer places
    places = _flag_idx(w, lx.PLACE)
    if places.size:
        title = w.title[places]
        f = w.flags[places]
        p = places[title & ~w.capsnote(places) & ((f & (lx.COMMON | lx.CLINICAL | lx.MONTH)) == 0)]
        f = w.flags[p]
        g = w.gap(p)
        cue = w.has(p - 1, lx.PLACE_CUE) & g.space
        state = w.has(p + 1, lx.STATE_CODE | lx.STATE) & ~w.lower[p + 1]
        # "Somerville, MA", or "Somerville MA" with the code in capitals
        state &= w.gap(p + 1).comma | (w.gap(p + 1).space & w.caps[p + 1])
        tn, _, _ = names.kinds(p)
        strong = ((f & (lx.ENGLISH | lx.GIVEN | lx.SURNAME)) == 0) | cue | state
        strong &= ~tn | ((f & lx.GIVEN) == 0) | cue | state
        out.append((w.start[p[strong]], w.end[p[strong]], C_PLACE))
    heads = _flag_idx(w, lx.PLACE_HEAD)
    if heads.size:
        nt, nc = (
            w.title[heads + 1],
            w.caps[heads + 1],
        )  # the next word capitalised too: "New Bedford"
        keep = w.title[heads] & ~w.capsnote(heads) & (nt | nc) & w.gap(heads + 1).space
        _multi_places(text, w, heads[keep], out)


def _multi_places(text: str, w: Words, heads: np.ndarray, out: list) -> None:  # type: ignore[type-arg]
    lexicon = lx.load_lexicon()
    multi = lexicon.multi
    heads = may_continue_place(w, heads, lexicon)
    lows: list[int] = []
    highs: list[int] = []
    n = w.size
    for i in heads.tolist():
        s = int(w.start[i])
        word = text[s : int(w.end[i])].lower()
        for name in multi.get(word, ()):
            k = name.count(" ")
            if i + k >= n:
                continue
            e = int(w.end[i + k])
            got = " ".join(text[s:e].lower().replace(".", " ").replace("'", " ").split())
            if got == name and all(text[int(w.start[i + j])].isupper() for j in range(k + 1)):
                lows.append(s)
                highs.append(e)
                break
    if lows:
        out.append((np.asarray(lows, dtype=np.int64), np.asarray(highs, dtype=np.int64), C_PLACE))


def may_continue_place(w: Words, heads: np.ndarray, lexicon: lx.Lexicon) -> np.ndarray:
    """The words at ``heads`` (first words of multi-word places) whose next word may
    be a place's second: text read as a place is its words (letters and digits) and
    spaces, full stops or apostrophes between them, cut as the batch's words are, so
    the place's second word is the next word of the batch."""
    nxt = heads + 1
    heads = heads[nxt < w.size]
    return heads[lexicon.second_word(w.hashes[heads + 1])]
