"""More names and dates of real notes, over one batch (after ``context``): the forms that
notes written in capitals or in lower-case shorthand take, and a few more cue shapes.

Names: a name after a cue in any case ("dr lavely", "NP MANOOKIAN", "np wood"), after a
relation and "is" ("son is Mark"), after "spoke with"; a name before a relation or a
credential in brackets ("lakeisha (daughter)", "Piantedosi (MD)"); a name or its
initials before ", RN" in any case ("LW, RN", "jg, rn", "JOE COOPER, MD"); a name before
"from PT" / "from case mgmt"; initials after a cue ("Dr. J.M.", "dtr j.", "PASTOR D.").
A captured word is never a common, clinical, month, facility or cue word; a lower-case
word that no name list knows is taken after a title or credential only.

Dates: month/year ("5/1990"), day-month-year with one separator ("22-Jul-19"), glued
("9NOV00"), seasons and months with an apostrophe year ("fall '06"), month words in lower
case before a day ("june 20"; "may" only after a date cue), and month/day with a leading
zero ("06/08", which no dose or score is written as).

Places are found in ``context_places`` (called from here, with the same cue groups).
"""

from __future__ import annotations

import re

import numpy as np

from deid_desktop.core.scan import context_places
from deid_desktop.core.scan import cuegroups as cg
from deid_desktop.core.scan import cuewords as cw
from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.context_staff import find_staff
from deid_desktop.core.scan.rules import CODE
from deid_desktop.core.scan.spoken import find_spoken
from deid_desktop.core.scan.words import (
    _CUE,
    _DIG,
    _LOW,
    _UP,
    Words,
    ambiguous_cue,
    breaks,
    verb_ending,
)

Found = tuple[np.ndarray, np.ndarray, np.ndarray]
Out = list[tuple[np.ndarray, np.ndarray, int]]

C_PHRASE = CODE[("NAME", "notes:cued-name")]
C_INITIALS = CODE[("NAME", "notes:cued-initials")]
C_MONTHYEAR = CODE[("DATE", "date:month-year")]
C_SHORT = CODE[("DATE", "date:short-year")]
C_GLUED = CODE[("DATE", "date:glued")]
C_NOYEAR = CODE[("DATE", "date:no-year")]
C_HOLIDAY = CODE[("DATE", "date:holiday")]
_NOT = lx.COMMON | lx.CLINICAL | lx.MONTH | lx.SEASON | lx.FACILITY | lx.STREET | _CUE
_NAMES = lx.GIVEN | lx.SURNAME
_EMPTY = np.empty(0, dtype=np.int64)
_GLUED = re.compile(
    r"(\d{1,2})(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(\d{2}|\d{4})", re.I
)


#: What follows "PA" (pulmonary artery) or "PT" (patient, therapy) in notes: no name.
AFTER_PA_WORDS = (
    "line", "lines", "pressure", "pressures", "cath", "catheter", "catheters", "wedge",
    "port", "tracing", "tracings", "waveform", "sat", "sats", "numbers", "number",
    "comfort", "eval", "evaluation", "note", "notes", "consult", "session", "treatment",
    "goals", "plan", "diastolic", "systolic", "mean", "distal", "balloon", "temp",
    "pulse", "rate", "states", "reports", "has", "was", "is", "will", "and", "or",
)  # fmt: skip
_AFTER_PA = lx.hash_set(AFTER_PA_WORDS)
_TOLD = lx.hash_set(("aware", "notified", "informed"))


def _is_pa(w: Words, i: np.ndarray) -> np.ndarray:
    """Whether the words at ``i`` are "pa" (in any case)."""
    s = w.start[i]
    return (w.lengths[i] == 2) & ((w.raw[s] | 32) == 112) & ((w.raw[s + 1] | 32) == 97)


def find_notes(text: str, folded: str, w: Words, hashes: np.ndarray | None = None) -> Found:
    """Candidate hits of this module and of ``context_places`` in one batch."""
    out: Out = []
    if w.size:
        g = cw.Cues(w, folded, hashes)
        _cue_names(w, g, out)
        _names_before(w, g, out)
        find_staff(text, w, g, out)
        _dates(text, w, g, out)
        context_places.find_places(text, w, g, out)
        find_spoken(w, out)
    if not out:
        return _EMPTY, _EMPTY, _EMPTY
    sizes = [s.size for s, _, _ in out]
    return (
        np.concatenate([s for s, _, _ in out]).astype(np.int64, copy=False),
        np.concatenate([e for _, e, _ in out]).astype(np.int64, copy=False),
        np.repeat(np.array([c for _, _, c in out], dtype=np.int64), sizes),
    )


def namey(
    w: Words, i: np.ndarray, strong: np.ndarray | bool, cues: cw.Cues | None = None
) -> np.ndarray:
    """A word that may be a name: in a mixed-case note a capitalised word that is no
    common, clinical or cue word; in capitals or lower case a word of the Census name
    lists, or (``strong``: after a title or credential) one no list knows."""
    if i.size == 0:
        return np.zeros(0, dtype=bool)
    title, caps, lower, digits = w.case(i)
    f = w.f(i)
    letters = (w.c0[i] & (_UP | _LOW)) != 0
    ok = letters & ~digits & w.valid(i) & (w.length(i) >= 2) & ((f & _NOT) == 0)
    capsn = w.capsnote(i)
    listed = (f & _NAMES) != 0
    unknown = ~listed & strong & ok & ~(title & ~capsn)  # a place's first word too ("babson")
    if unknown.any():  # "dr ordered", "dr available" are no names
        at = np.flatnonzero(unknown)
        keep = ~_verb(w, i[at])
        if cues is not None:  # no English word, nor its plural ("ms changes")
            keep &= ~cues.wordlike(i[at])
        unknown[at] = keep
    return ok & ((title & ~capsn) | ((caps & capsn) | lower) & (listed | unknown))


def _plain_word(w: Words, i: np.ndarray) -> np.ndarray:
    """A word of letters that is no common, clinical, month, facility or cue word."""
    ok = ((w.c0[i] & (_UP | _LOW)) != 0) & ~w.digits[i] & w.valid(i) & (w.length(i) >= 2)
    return ok & ((w.flags[i] & _NOT) == 0)


def _verb(w: Words, i: np.ndarray) -> np.ndarray:
    """Ends in "ed" or "ing" (a verb starting a sentence, not a name)."""
    ed, ing = verb_ending(w, i)
    return (ed | ing) & (w.length(i) > 4)


def _initials(w: Words, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At ``i``: one letter followed by a full stop ("J.", "j."), and the end of a run
    of such initials ("J.M.", "H. J.")."""
    one = (w.length(i) == 1) & ((w.c0[i] & (_UP | _LOW)) != 0) & w.valid(i)
    last = w.start.size - 1
    dotted = one & (w.gaps.first[np.minimum(i + 1, last)] == 46)
    end = w.end[i].copy()
    nx = np.minimum(i + 1, last)
    chain = dotted.copy()
    for _ in range(2):
        chain &= (w.length(nx) == 1) & ((w.c0[nx] & (_UP | _LOW)) != 0) & w.valid(nx)
        chain &= w.gap(nx).length <= 2
        end = np.where(chain, w.end[nx], end)
        nx = np.minimum(nx + 1, last)
    return dotted, end


def _cue_names(w: Words, g: cw.Cues, out: Out) -> None:
    law = g.at(cg.INLAW)
    law = law[(w.gaps.first[law] == 45) & (w.length(law - 1) == 2)]  # "sister-in-law"
    cues = np.concatenate((g.flagged(_CUE), g.at(cg.COVERING), law))
    if cues.size == 0:
        return
    f = w.flags[cues]
    caps = w.caps[cues]
    capsn = w.capsnotes[cues]
    credf = (f & (lx.TITLE | lx.RELATION | lx.CREDENTIAL)) == lx.CREDENTIAL
    # a credential is a cue in capitals ("RN Mary"), or in lower case one of CRED ("np wood")
    group = g.group(cues)
    cred = (credf & caps & ~capsn) | (group == cg.CRED)
    cue = ~credf | cred | (credf & capsn)
    cues, cred, f, group = cues[cue], cred[cue], f[cue], group[cue]
    strong = ((f & lx.TITLE) != 0) | cred | (group == cg.COVERING)  # "Dr", "NP", "PCP"
    vague = ambiguous_cue(w, cues)  # "PA line", "PT eval" (see below)
    j = cues + 1
    short = np.flatnonzero(w.lengths[j] <= 5)
    j[short] += g.group(j[short]) == cg.IS  # "son is Mark"
    gj = w.gap(j)
    first = gj.first
    # "daughter, Tammara Saeed, called": a name between commas after a relation
    last = w.start.size - 1
    j1, j2 = np.minimum(j + 1, last), np.minimum(j + 2, last)
    closed = w.gaps.comma[j1] | (w.gaps.space[j1] & w.gaps.comma[j2])
    strong = strong | ((first == 44) & closed)
    near = (gj.length <= 2) & ~breaks(w, j)
    punct = (first == 46) | (first == 44) | (first == 40) | (first == 58)
    punct |= w.raw[np.maximum(w.start[j] - 1, 0)] == 40  # "friend (Ignatius)"
    # "Smith NP. Car ..." is no name after NP; "RN (Spink) has followed" is
    closed = (w.raw[np.maximum(w.start[j] - 1, 0)] == 40) & (w.raw[w.end[j]] == 41)
    near &= gj.space | (punct & ~cred) | (closed & cred & (gj.length == 2))
    # "MS: OPENS EYES": a title before a colon heads a section (mental status)
    near &= ~((first == 58) & ((f & lx.TITLE) != 0))
    # "500 CC NEG": "cc" after a number is a volume, no copy to a clinician
    near &= ~(w.digits[np.maximum(cues - 1, 0)] & (group == cg.COVERING))
    # after a full stop only a title's or an abbreviation's ("Dr. X", "dtr. X"), not
    # a sentence's ("... chaplain. Lungs clear")
    near &= (first != 46) | ((f & lx.TITLE) != 0) | (w.lengths[cues] <= 3)
    # "12 Maple Dr. Transferred ...": a street's "Dr", not a title
    near &= ~(w.digits[cues - 2] & w.title[cues - 1] & (first == 46))
    j, strong, dot, vague = j[near], strong[near], first[near] == 46, vague[near]
    if j.size == 0:
        _spoke(w, g, out)
        return
    ok = namey(w, j, strong, g) & ~(dot & _verb(w, j))
    if vague.any():  # after "PA", "PT": no English or clinical word ("PA LINE"), but a
        at = np.flatnonzero(ok & vague)  # Census name that is no word of the pair ("PA brown")
        k = j[at]
        listed = ((w.flags[k] & _NAMES) != 0) & ((w.flags[k] & lx.CLINICAL) == 0)
        listed &= ~lx.in_set(w.hashes[np.minimum(k, w.size - 1)], _AFTER_PA)
        listed &= _is_pa(w, cues[near][at])  # "PT ABLE", "24 CM MARK": only after "PA"
        ok[at] = ~g.wordlike(k) | listed
    at = j[ok]
    nx = np.minimum(at + 1, w.start.size - 1)
    end = w.end[at]
    two = np.flatnonzero(w.gaps.space[nx] & ~w.has(nx, lx.CREDENTIAL))
    more = namey(w, nx[two], strong[ok][two], g)
    end[two[more]] = w.end[nx[two[more]]]
    out.append((w.start[at], end, C_PHRASE))
    at_one = np.flatnonzero(w.lengths[j] == 1)
    if at_one.size:
        one = j[at_one]
        dotted, end = _initials(w, one)
        out.append((w.start[one[dotted]], end[dotted], C_INITIALS))
        # "per dr j hold", "NP A, will": one letter after a title or credential
        letter = strong[at_one] & ~dotted & ((w.c0[one] & (_UP | _LOW)) != 0)
        article = (w.raw[w.start[one]] | 32 == 97) | (w.raw[w.start[one]] | 32 == 105)
        letter &= ~article | w.gaps.comma[one + 1]  # "a", "i" only before a comma
        out.append((w.start[one[letter]], w.end[one[letter]], C_INITIALS))
    _spoke(w, g, out)


def _spoke(w: Words, g: cw.Cues, out: Out) -> None:
    """ "spoke with Mary", "talked to MARY"."""
    sp = g.at(cg.SPOKE)
    if sp.size:
        k = sp + 1
        k = k[w.gap(k).space]
        k = k[g.group(k) == cg.WITH]
        n = k + 1
        n = n[w.gap(n).space & namey(w, n, False)]
        nn = n + 1
        more = namey(w, nn, False) & w.gap(nn).space
        out.append((w.start[n], np.where(more, w.end[nn], w.end[n]), C_PHRASE))


def _names_before(w: Words, g: cw.Cues, out: Out) -> None:
    """Names before a bracketed relation or credential, before ", RN", before "from PT"."""
    # "(daughter)", "(MD)", "(health care proxy)"
    after = g.flagged(lx.RELATION | lx.CREDENTIAL)
    # the bracket before the relation, or one or two words before ("(health care proxy)")
    rel = after[(w.flags[after] & lx.RELATION) != 0]
    # "(PT. ON COUMADIN)": a credential that is also a clinical word only closed: "(PT)"
    vague = ambiguous_cue(w, after)
    closed = w.raw[w.end[after]] == 41
    opens = [after[~vague | closed], rel - 1, rel - 2]
    br = np.concatenate([a[w.raw[np.maximum(w.start[a] - 1, 0)] == 40] for a in opens])
    b = br - 1
    b = b[namey(w, b, True, g) & w.valid(b)]
    if b.size:
        prev = b - 1
        two = namey(w, prev, False) & w.gap(b).space & ~w.has(prev, _CUE)
        out.append((np.where(two, w.start[prev], w.start[b]), w.end[b], C_PHRASE))
    # "LW, RN", "jg, rn", "JOE COOPER, MD", "peter sanchez, pa-c"
    cred = after[w.gaps.comma[after] & (w.gaps.length[after] <= 2)]
    cred = cred[((w.flags[cred] & lx.RELATION) == 0) & (w.caps[cred] | (g.group(cred) == cg.CRED))]
    # "3+ TR, PT TRANSFERRED": initials before such a credential only where it ends its
    # sentence ("LW, PT."); a name before it always ("RAKUSIN, PT SPOKE W/ FAMILY")
    nx = np.minimum(cred + 1, w.start.size - 1)
    ends = w.gap(nx).stop | ~w.valid(nx) | breaks(w, nx)
    c = cred - 1
    if c.size:
        _before_comma(w, g, c, ~ambiguous_cue(w, cred) | ends, out)
    # "J. MIMMO MD", "b. morris rn": an initial, a word, a credential
    cr = after[w.gaps.space[after] & ((w.flags[after] & lx.RELATION) == 0)]
    cr = cr[w.caps[cr] | (g.group(cr) == cg.CRED)]
    c, i = cr - 1, cr - 2
    ok = (w.length(i) == 1) & (w.gaps.first[c] == 46) & (w.gaps.length[c] <= 2)
    ok &= ((w.c0[i] & (_UP | _LOW)) != 0) & _plain_word(w, c)
    out.append((w.start[i[ok]], w.end[c[ok]], C_PHRASE))
    # "Bronwyn from PT", "SHARLA FROM CASE MGMT"
    roles = g.flagged(lx.CREDENTIAL)  # "PT", "SW", "CM"
    roles = np.concatenate((roles, g.at(cg.ROLE)))
    fr = roles - 1
    fr = fr[w.gap(fr).space & w.gap(fr + 1).space & (w.length(fr) == 4)]
    if fr.size:
        fr = fr[(g.group(fr) == cg.FROM) & (g.group(fr + 1) == cg.ROLE)]
        n = fr - 1
        n = n[namey(w, n, False)]
        lo = n.copy()  # "madonna westbury huffman from speech": up to two more names
        for _ in range(2):
            prev = lo - 1
            step = namey(w, prev, False) & w.gap(lo).space & ~w.has(prev, _CUE) & (prev >= 0)
            lo = np.where(step, prev, lo)
        out.append((w.start[lo], w.end[n], C_PHRASE))


def _before_comma(w: Words, g: cw.Cues, c: np.ndarray, initials: np.ndarray, out: Out) -> None:
    """ "LW, RN", "jg, rn", "JOE COOPER, MD": ``c``, the words before the comma;
    ``initials``: whether initials may stand there."""
    ini = (w.length(c) <= 3) & ~w.digits[c] & ((w.c0[c] & (_UP | _LOW)) != 0) & initials
    # initials in capitals may spell a clinical abbreviation ("CR, RN", "EP, RN"), not
    # before "MD aware" ("per RT, MD aware")
    told = lx.in_set(w.hashes[np.minimum(c + 2, w.size - 1)], _TOLD) & (c + 2 < w.size)
    clinical = w.caps[c] & ~told
    not_name = np.where(clinical, _NOT & ~lx.CLINICAL, _NOT)
    ini &= (w.caps[c] | w.lower[c]) & ((w.flags[c] & not_name) == 0) & w.valid(c)
    name = namey(w, c, True, g) & ~w.title[c]  # a word no list knows too: "DUTTER, CNA"
    name &= initials | (w.length(c) > 3)  # "TR, PT TRANSFERRED": no short word either
    ok = ini | name
    c = c[ok]
    prev = c - 1
    two = namey(w, prev, False) & w.gap(c).space & ~w.has(prev, _CUE) & name[ok]
    out.append((np.where(two, w.start[prev], w.start[c]), w.end[c], C_PHRASE))


def _dates(text: str, w: Words, g: cw.Cues, out: Out) -> None:
    dig = w.numbers
    if dig.size:
        # "5/1990": a month, one separator, a year, and no third part
        nxt = dig + 1
        first = w.gaps.first[nxt]
        a = dig[((first == 47) | (first == 45)) & (w.gaps.length[nxt] == 1)]
        v = w.value(a)
        a = a[(v >= 1) & (v <= 12) & (w.length(a) <= 2) & w.digits[a]]
        if a.size:
            _month_slash(w, a, out)
        # "9NOV00": glued, checked one by one (few words start with a digit and are 5-9 long)
        size = w.number_lengths
        glued = dig[(size >= 5) & (size <= 9)]
        s0, e0 = w.start[glued], w.end[glued]
        letter = ((w.cls[s0 + 1] | w.cls[s0 + 2]) & (_UP | _LOW)) != 0  # "14MAR19"
        glued = glued[letter & ((w.cls[e0 - 1] & _DIG) != 0)]
        starts: list[int] = []
        ends: list[int] = []
        for s, e in zip(w.start[glued].tolist(), w.end[glued].tolist(), strict=True):
            m = _GLUED.fullmatch(text, s, e)
            if m and 1 <= int(m.group(1)) <= 31:
                starts.append(s)
                ends.append(e)
        if starts:
            out.append((np.asarray(starts), np.asarray(ends), C_GLUED))
    months = g.flagged(lx.MONTH)
    if months.size:
        _month_words(w, months, out)
    days = g.at(cg.HOLIDAY)  # "home for thanksgiving"
    out.append((w.start[days], w.end[days], C_HOLIDAY))
    # "fall '06", "Summer of '19", "June '98"
    anchors = g.flagged(lx.SEASON | lx.MONTH)
    if anchors.size:
        k = anchors + 1
        k = np.where(w.length(k) == 2, np.where(w.raw[w.start[k]] | 32 == 111, k + 1, k), k)
        gk = w.gap(k)
        ap = (gk.length == 2) & (w.raw[np.maximum(w.start[k] - 1, 0)] == 39)
        ap &= w.digits[k] & (w.length(k) == 2)
        ap &= ~(w.lower[anchors] & w.has(anchors, lx.COMMON))
        out.append((w.start[anchors[ap]], w.end[k[ap]], C_SHORT))


def _month_slash(w: Words, a: np.ndarray, out: Out) -> None:
    """ "5/1990" (a month and a year) and "06/08" (a leading zero): ``a`` the months."""
    b = a + 1
    vb = w.value(b)
    year = (w.length(b) == 4) & (vb >= 1900) & (vb <= 2100)
    lone = ~_more_parts(w, a, b)
    ok = year & lone
    out.append((w.start[a[ok]], w.end[b[ok]], C_MONTHYEAR))
    # "06/08": a leading zero is no dose, score or fraction
    day = (w.length(b) <= 2) & (vb >= 1) & (vb <= 31) & w.digits[b] & lone
    zero = ((w.length(a) == 2) & (w.value(a) < 10)) | ((w.length(b) == 2) & (vb < 10))
    ok = day & zero
    out.append((w.start[a[ok]], w.end[b[ok]], C_NOYEAR))


def _month_words(w: Words, months: np.ndarray, out: Out) -> None:
    """ "22-Jul-19" (one separator, used twice) and "june 20" (a month in lower case)."""
    # "22-Jul-19", "22 Jul 2019": one separator, used twice
    d, y = months - 1, months + 1
    gm, gy = w.gap(months), w.gap(y)
    same = (gm.length == 1) & (gy.length == 1) & (gm.first == gy.first)
    same &= (gm.first == 45) | (gm.first == 47) | (gm.first == 32)
    vd = w.value(d)
    ok = same & w.digits[d] & (vd >= 1) & (vd <= 31) & w.digits[y]
    ok &= (w.length(y) == 2) | (w.length(y) == 4)
    out.append((w.start[d[ok]], w.end[y[ok]], C_SHORT))
    # "june 20", "on may 3": a month in lower case before a day
    nx = months + 1
    gn = w.gap(nx)
    vn = w.value(nx)
    low = w.lower[months] & gn.space & w.digits[nx] & (vn >= 1) & (vn <= 31)
    low &= w.length(nx) <= 2
    common = w.has(months, lx.COMMON)
    low &= ~common | w.has(months - 1, lx.DATE_CUE)
    out.append((w.start[months[low]], w.end[nx[low]], C_NOYEAR))


def _more_parts(w: Words, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A number joined by a separator before ``a`` or after ``b`` ("1/2/3", "7.4/40")."""
    c = b + 1
    gc = w.gap(c)
    third = w.valid(c) & (gc.length == 1) & ((w.c0[c] & _DIG) != 0)
    third &= (gc.first == 47) | (gc.first == 45) | (gc.first == 46)
    ga = w.gap(a)
    lead = w.valid(a - 1) & (ga.length == 1) & ((w.c0[a - 1] & _DIG) != 0)
    lead &= (ga.first == 47) | (ga.first == 45) | (ga.first == 46)
    return third | lead
