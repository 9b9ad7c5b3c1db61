"""More places of real notes, over one batch (called from ``context_notes``).

- state names after a comma, a place cue or a town ("Omaha, Nebraska", "lives in Ohio");
  a state code after a town ("Weymouth KY", "lincoln ms" after "from");
- gazetteer towns in notes written in capitals or lower case, after a place cue ("FROM
  CAMBRIDGE", "lives in auburn"), and multi-word ones ("north andover", "bel air");
- house numbers with the street's words and any USPS street suffix ("519 Stokes Hollow",
  "1072 hagenes crossing"), or after an address cue, with a unit ("Apt 22") and the town
  after the comma ("..., Chicopee");
- counties and parishes ("Hampden County", "essex county");
- saints' facilities without or with the facility word in any case ("St. Agnes",
  "st. agnes hospital");
- facility names with descriptors before the facility word ("Good Shepherd Care
  Center", "Quabbin Nursing and Rehab"), and in lower case after "to"/"from" ("d/c to
  bayview assisted living"); generic words ("outside hospital") name none;
- wards after "admitted to" ("Farr 10").

A house number with a street suffix alone is of medium confidence; with a unit or after
an address cue it is sure (the gate's text check fails a release on sure hits only).
"""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan import cuegroups as cg
from deid_desktop.core.scan import cuewords as cw
from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.context import in_words as _in
from deid_desktop.core.scan.context import may_continue_place
from deid_desktop.core.scan.place_words import LATER, NOT_NAME, TO, WARDS
from deid_desktop.core.scan.rules import CODE
from deid_desktop.core.scan.words import _CUE, _LOW, _UP, Words

Out = list[tuple[np.ndarray, np.ndarray, int]]
C_STATE = CODE[("LOCATION", "gazetteer:state")]
C_TOWN = CODE[("LOCATION", "gazetteer")]
C_HOUSE = CODE[("LOCATION", "address:house")]
C_HOUSE_SURE = CODE[("LOCATION", "address:house-unit")]
C_COUNTY = CODE[("LOCATION", "gazetteer:county")]
C_SAINT = CODE[("LOCATION", "facility:saint")]
C_FACILITY = CODE[("LOCATION", "facility")]
C_WARD = CODE[("LOCATION", "unit:ward")]
C_MOVED = CODE[("LOCATION", "place:after-transfer")]
_PLAIN = lx.COMMON | lx.CLINICAL | lx.MONTH | lx.SEASON | _CUE
_NOT_CODE = lx.CREDENTIAL | lx.TITLE | lx.CLINICAL | lx.COMMON


def _alpha(w: Words, i: np.ndarray) -> np.ndarray:
    return ((w.c0[i] & (_UP | _LOW)) != 0) & ~w.digits[i] & w.valid(i)


def _capital(w: Words, i: np.ndarray) -> np.ndarray:
    """Capitalised as a proper noun is in its note: Title in a mixed note, capitals in a
    note in capitals."""
    return _alpha(w, i) & (w.title[i] | (w.caps[i] & w.capsnotes[i] & (w.length(i) > 1)))


def find_places(text: str, w: Words, g: cw.Cues, out: Out) -> None:
    """Append the candidate hits of every finder of this module to ``out``."""
    _states(w, g, out)
    _towns(text, w, g, out)
    _houses(text, w, g, out)
    _counties(w, g, out)
    _saints(w, g, out)
    _facilities(w, g, out)
    _wards(w, g, out)
    _moved_to(w, g, out)
    _relative_from(w, g, out)
    _service_names(w, g, out)
    _site_codes(w, g, out)


def _states(w: Words, g: cw.Cues, out: Out) -> None:
    states = g.flagged(lx.STATE)
    if states.size:
        gs = w.gap(states)
        prev_place = w.has(states - 1, lx.PLACE)  # not "on", "back" (first words of places)
        prev_place |= w.has(states - 1, lx.PLACE_HEAD) & ~w.has(states - 1, lx.COMMON)
        cue = w.has(states - 1, lx.PLACE_CUE) & gs.space
        # a state is no identifier (Safe Harbor keeps it): only as part of an address,
        # after a town ("Omaha, Nebraska", "Weymouth Massachusetts"), not "sister in
        # CALIFORNIA"
        after = (gs.comma & (gs.length <= 2)) | (prev_place & gs.space)
        cap = _capital(w, states) | (w.lower[states] & (prev_place | cue) & w.lower[states - 1])
        ok = after & cap & ~w.has(states, lx.GIVEN | lx.COMMON)
        ok |= after & cap & w.has(states, lx.GIVEN) & (prev_place | gs.comma)
        out.append((w.start[states[ok]], w.end[states[ok]], C_STATE))
    # a state code after a town: "Weymouth KY", "Omaha, NE", "from lincoln ms"; read
    # from the place words (anchors), not from every word's flags
    an, af = w.anchors, w.anchor_flags
    after_town = an[(af & (lx.PLACE | lx.STATE)) != 0] + 1
    after_head = an[(af & lx.PLACE_HEAD) != 0] + 2
    codes = np.union1d(
        after_town[w.has(after_town, lx.STATE_CODE)], after_head[w.has(after_head, lx.STATE_CODE)]
    )
    codes = codes[(w.length(codes) == 2) & ~w.has(codes, _NOT_CODE)]  # MD, PA, IN, OR
    if codes.size:
        gc = w.gap(codes)
        town = codes - 1
        placed = w.has(town, lx.PLACE | lx.STATE)
        placed |= w.has(town - 1, lx.PLACE_HEAD) & w.gap(town).space  # "North Andover NH"
        near = gc.space | (gc.comma & (gc.length <= 2))
        cued = w.has(town - 1, lx.PLACE_CUE) | w.has(town - 2, lx.PLACE_CUE)
        caps = w.caps[codes] & placed & near & (gc.comma | cued)
        low = w.lower[codes] & placed & near & w.lower[town]
        low &= cued
        ok = caps | low
        out.append((w.start[codes[ok]], w.end[codes[ok]], C_STATE))


def _towns(text: str, w: Words, g: cw.Cues, out: Out) -> None:
    """Gazetteer towns after a place cue in notes in capitals or lower case."""
    places = g.places
    if places.size == 0:
        return
    # capitals (or a capital first) in a note in capitals, or lower case; after a place
    # cue ("in", "from")
    caps = w.capsnotes[places] & (w.caps[places] | w.title[places])
    places = places[(caps | w.lower[places]) & w.has(places - 1, lx.PLACE_CUE)]
    places = places[w.gap(places).space]
    # after "to", "at" ("pt to claremont this am", "had at perryton"): only a town that
    # is no English word nor a name
    to_at = lx.in_set(_hash(w, places - 1), _TO_AT)
    to_at &= ~w.has(places, lx.ENGLISH | lx.GIVEN | lx.SURNAME | lx.STATE)
    places = places[(g.group(places - 1) == cg.PLACE_IN) | to_at]
    f = w.flags[places]
    caps = w.capsnotes[places] & (w.caps[places] | w.title[places])
    low = w.lower[places] & ((f & lx.ENGLISH) == 0)
    low |= w.lower[places] & (g.group(places - 2) == cg.PLACE_IN)  # "moved here from"
    plain = (f & (lx.COMMON | lx.CLINICAL | lx.MONTH | _CUE)) == 0
    cue = np.ones(places.size, dtype=bool)
    # an English word in capitals is a town only at the end of its phrase ("LIVES IN
    # AUBURN."), not "IN EARLY EVENING", "IN HALL X2"
    nx = _in(w, places + 1)
    ends = w.gap(nx).stop | w.gap(nx).comma | (nx >= w.size) | w.has(nx, lx.STATE | lx.STATE_CODE)
    caps &= ((f & lx.ENGLISH) == 0) | ends
    one = places[(caps | low) & plain & ((f & lx.PLACE) != 0)]
    out.append((w.start[one], w.end[one], C_TOWN))
    heads = places[cue & (caps | w.lower[places]) & ((f & lx.PLACE_HEAD) != 0)]
    lexicon = lx.load_lexicon()
    multi = lexicon.multi
    lows: list[int] = []
    highs: list[int] = []
    for i in may_continue_place(w, heads, lexicon).tolist():
        s = int(w.start[i])
        for name in multi.get(text[s : int(w.end[i])].lower(), ()):
            k = name.count(" ")
            if i + k >= w.size:
                continue
            e = int(w.end[i + k])
            if " ".join(text[s:e].lower().replace(".", " ").split()) == name:
                lows.append(s)
                highs.append(e)
                break
    out.append((np.asarray(lows, dtype=np.int64), np.asarray(highs, dtype=np.int64), C_TOWN))


def _houses(text: str, w: Words, g: cw.Cues, out: Out) -> None:
    """A house number, one to three words and a street suffix (any USPS one), or any
    words after an address cue; then a unit and, after a comma, the town."""
    # the few numbers with a street suffix two to four words on, or an address cue before
    streets = np.concatenate((g.flagged(lx.STREET), g.at(cg.STREET2)))
    cues = g.at(cg.ADDRESS)
    num = np.concatenate((streets - 2, streets - 3, streets - 4, cues + 1, cues + 2))
    num = num[num >= 0]
    num = num[w.digits[num] & (w.length(num) <= 6)]
    # "BP 95-123/47-61 Right radial": a range's or a decimal's part is no house number
    gn = w.gap(num)
    num = num[
        ~((gn.length == 1) & lx.in_set(gn.first, _JOINERS) & w.digits[np.maximum(num - 1, 0)])
    ]
    n1 = _in(w, num + 1)
    num = num[_alpha(w, n1) & w.gap(n1).space]  # "12 Oak ...", not "80 per Dr"
    if num.size == 0:
        return
    suffix = np.zeros(w.start.size, dtype=bool)
    suffix[streets] = True
    at_cue = np.zeros(w.start.size, dtype=bool)
    at_cue[cues] = True
    cued = at_cue[num - 1] | at_cue[num - 2]
    cued &= ~w.gap(num).stop | (w.gaps.first[num] == 58)  # "address: 12 ..."
    lo = num
    hi = np.full(num.size, -1, dtype=np.int64)
    run = np.ones(num.size, dtype=bool)
    for k in (1, 2, 3, 4):
        i = _in(w, num + k)
        word = _alpha(w, i) & w.gap(i).space & (~w.has(i, lx.COMMON | lx.CLINICAL) | suffix[i])
        if k == 1:
            word &= ~w.has(i, lx.MONTH)
        word &= _capital(w, i) | w.lower[i] & (cued | suffix[i])
        run &= word
        ends = run & suffix[i] & (k > 1)
        hi = np.where((hi < 0) & ends, i, hi)
        if not run.any():
            break
    # in a note in capitals, before a weaker street word ("green", "hill", "well"), no
    # English word that is no name or place: "2 ASSISTS TOL WELL", "4 LARGE ... GREEN"
    weak = (hi >= 0) & ~w.has(hi, lx.STREET) & w.capsnotes[num]
    for k in (1, 2, 3):
        i = _in(w, num + k)
        inside = weak & (i < hi)
        if inside.any():
            word = g.wordlike(i[inside]) & ~w.has(i[inside], lx.GIVEN | lx.SURNAME | lx.PLACE)
            hi[np.flatnonzero(inside)[word]] = -1
            weak &= hi >= 0
    # after an address cue: the words up to the comma
    n1 = num + 1
    free = cued & (hi < 0) & _alpha(w, n1) & w.gap(n1).space & (g.group(n1) != cg.GENERIC)
    last = n1
    for k in (2, 3):
        i = _in(w, num + k)
        more = free & _alpha(w, i) & w.gap(i).space & (last == i - 1)
        more &= g.group(i) != cg.GENERIC
        last = np.where(more, i, last)
    free &= last > n1  # a street's two words at least: not "lives in 02139 area"
    hi = np.where(free, last, hi)
    ok = hi >= 0
    if not ok.any():
        return
    lo, hi = lo[ok], hi[ok]
    # a unit: "Apt 22", "Unit 19", "Suite 70"
    u = _in(w, hi + 1)
    # after a street word of the lexicon the unit is ``shapes_more``'s own hit
    unit = (g.group(u) == cg.UNIT) & ~w.has(hi, lx.STREET) & w.gap(u).space & ~w.digits[u]
    u1 = _in(w, u + 1)
    unit &= ((w.c0[u1] & 64) != 0) & (w.gap(u1).length <= 2)
    hi = np.where(unit, u1, hi)
    # sure with a unit or after an address cue; "3 Recent Falls"-like shapes are not
    sure = unit | (at_cue[lo - 1] | at_cue[lo - 2])
    out.append((w.start[lo[sure]], w.end[hi[sure]], C_HOUSE_SURE))
    out.append((w.start[lo[~sure]], w.end[hi[~sure]], C_HOUSE))
    # the town after the comma: "..., Chicopee", "..., OMAHA", "..., woburn"
    t = _in(w, hi + 1)
    gt = w.gap(t)
    town = gt.comma & (gt.length <= 2) & _alpha(w, t) & ~w.has(t, _PLAIN | lx.STATE)
    town &= _capital(w, t) | w.lower[t]
    t = t[town]
    t2 = _in(w, t + 1)
    two = _capital(w, t2) & w.gap(t2).space & ~w.has(t2, _PLAIN) | (w.lower[t2] & w.lower[t])
    two &= w.has(t, lx.PLACE_HEAD) & _alpha(w, t2) & w.gap(t2).space & ~w.has(t2, _PLAIN)
    out.append((w.start[t], np.where(two, w.end[t2], w.end[t]), C_TOWN))


def _counties(w: Words, g: cw.Cues, out: Out) -> None:
    c = g.at(cg.COUNTY)
    if c.size == 0:
        return
    p = c - 1
    ok = _alpha(w, p) & w.gap(c).space & ~w.has(p, _PLAIN)
    ok &= _capital(w, p) | (w.lower[p] & w.lower[c])
    c, p = c[ok], p[ok]
    pp = p - 1
    two = _alpha(w, pp) & w.gap(p).space & ~w.has(pp, _PLAIN | lx.PLACE_CUE)
    two &= _capital(w, pp) | (w.lower[pp] & w.has(pp, lx.PLACE_HEAD))
    out.append((np.where(two, w.start[pp], w.start[p]), w.end[c], C_COUNTY))


def _saints(w: Words, g: cw.Cues, out: Out) -> None:
    """ "St. Agnes", "ST. MARY'S", "st. agnes hospital": a saint's name after St. and
    not after a street's words, then the facility words if any."""
    s = g.at(cg.SAINT)
    if s.size == 0:
        return
    n = s + 1
    gn = w.gap(n)
    near = (gn.dot | gn.space) & (gn.length <= 2)
    given = w.has(n, lx.GIVEN) & ~w.has(n, lx.COMMON | lx.CLINICAL)
    cap = (_capital(w, s) | w.caps[s]) & _capital(w, n)
    low = w.lower[s] & w.lower[n] & gn.dot
    street = _capital(w, s - 1) & w.gap(s).space & ~w.has(s - 1, _PLAIN)
    street |= (w.c0[s - 1] & 64) != 0  # "12 St. ..." is no saint
    ok = near & given & (cap | low) & ~street
    s, n = s[ok], n[ok]
    hi = n.copy()
    n1 = _in(w, n + 1)
    apos = w.length(n1) == 1  # "Mary's"
    apos &= (w.raw[w.start[n1]] | 32) == 115
    hi = np.where(apos & (w.gaps.first[n1] == 39), n1, hi)
    for _ in range(3):
        nx = _in(w, hi + 1)
        fac = w.has(nx, lx.FACILITY) & w.gap(nx).space & _alpha(w, nx)
        hi = np.where(fac, nx, hi)
    out.append((w.start[s], w.end[hi], C_SAINT))


def _is_and(w: Words, i: np.ndarray) -> np.ndarray:
    """The word "and" (or "&", which is no word: the gap holds it)."""
    r = w.raw
    s = w.start[i]
    return (
        (w.length(i) == 3)
        & ((r[s] | 32) == 97)
        & ((r[s + 1] | 32) == 110)
        & ((r[s + 2] | 32) == 100)
    )


def _facilities(w: Words, g: cw.Cues, out: Out) -> None:
    """Facility names whose words before the facility word are descriptors ("Good
    Shepherd Care Center", "Willow Creek Skilled Nursing Facility"), and facility names in
    lower case after "to"/"from" ("d/c to bayview assisted living")."""
    fac = g.flagged(lx.FACILITY)
    living = g.at(cg.ADDRESS)
    living = living[g.member(living, cg.FAC_WORD) & g.member(living - 1, cg.FAC_WORD)]
    ends = np.concatenate((fac, living))
    # capitalised after a capitalised word, or lower case with a place cue a few words back
    before = ends - 1  # "to home" is no facility's name; "Nursing and Rehab" is
    ends = ends[~w.has(before, lx.COMMON | lx.CLINICAL | _CUE | lx.PLACE_CUE) | _is_and(w, before)]
    p = ends - 1
    p = np.where(_is_and(w, p), p - 1, p)
    up = _capital(w, ends) | (w.caps[ends] & w.capsnotes[ends])
    up &= _capital(w, p) | (w.caps[p] & w.capsnotes[p])
    low = w.lower[ends] & w.lower[p] & (ends >= 2)
    for k in (2, 3, 4, 5):
        low &= ~w.has(ends - k, lx.PLACE_CUE)
    low = w.lower[ends] & w.lower[p] & ~low & (ends >= 2)
    ends = ends[up | low]
    nx = _in(w, ends + 1)
    ends = ends[~w.has(nx, lx.FACILITY) & ~g.member(nx, cg.FAC_WORD)]
    if ends.size == 0:
        return
    low = w.lower[ends]
    lo = ends.copy()
    for _ in range(3):  # the descriptors: "Skilled Nursing", "Care", "Nursing and"
        p = lo - 1
        q = np.where(_is_and(w, p), p - 1, p)
        same = np.where(low, w.lower[q], _capital(w, q) | (w.caps[q] & w.capsnotes[q]))
        d = same & w.gap(lo).space & w.gap(p).space
        d &= w.has(q, lx.FACILITY) | g.member(q, cg.FAC_WORD)
        if not d.any():
            break
        lo = np.where(d, q, lo)
    head = lo.copy()
    proper = np.zeros(ends.size, dtype=bool)
    cued = np.zeros(ends.size, dtype=bool)
    done = np.zeros(ends.size, dtype=bool)
    for _ in range(3):  # the name: "Good Shepherd", "bayview"
        p = lo - 1
        cue = ~done & w.has(p, lx.PLACE_CUE) & low
        cued |= cue & (lo < head)
        done |= cue
        same = np.where(low, w.lower[p], _capital(w, p) | (w.caps[p] & w.capsnotes[p]))
        step = ~done & same & _alpha(w, p) & w.gap(lo).space & (w.length(p) > 1)
        step &= ~w.has(p, lx.CLINICAL | _CUE | lx.MONTH | lx.FACILITY) & (g.group(p) != cg.GENERIC)
        # "go home", "DC HOME", "SHIFT NURSING", "BEGIN CARDIAC REHAB": no facility's name
        step &= ~lx.in_set(w.hashes[np.clip(p, 0, max(w.size - 1, 0))], NOT_NAME)
        # capitals: "Good Shepherd" in a mixed note, not "PT FELL AT HOME" in capitals
        step &= low | ~w.has(p, lx.PLACE_CUE | lx.DATE_CUE) & (
            ~w.capsnotes[p] | ~w.has(p, lx.COMMON)
        )
        proper |= step & ~w.has(p, lx.COMMON)
        done |= ~step
        lo = np.where(step, p, lo)
        if done.all():
            break
    ok = (lo < head) & proper & (cued | ~low)
    out.append((w.start[lo[ok]], w.end[ends[ok]], C_FACILITY))


def _wards(w: Words, g: cw.Cues, out: Out) -> None:
    """ "admitted to Farr 10", "TRANSFERRED TO BLAKE 7": a ward's name and number."""
    a = g.at(cg.ADMIT)
    if a.size == 0:
        return
    to = a + 1
    n = to + 1
    num = n + 1
    ok = w.has(to, lx.PLACE_CUE) & w.gap(to).space & w.gap(n).space & w.gap(num).space
    ok &= _capital(w, n) & ~w.has(n, _PLAIN | lx.FACILITY) & ~lx.in_set(_hash(w, n), WARDS)
    ok &= w.digits[num] & (w.length(num) <= 2)
    out.append((w.start[n[ok]], w.end[num[ok]], C_WARD))


def _moved_to(w: Words, g: cw.Cues, out: Out) -> None:
    """ "TRANSFERRED TO CALVERT", "admitted from gibbstown", "brought to RH": after a
    transfer word and "to", "from" or "into", a word that no list knows as an English,
    clinical or common word, nor a unit ("ICU", "floor", "rehab"), in the case of a
    name in its note; one more such word after it is part of it."""
    a = g.at(cg.ADMIT)
    if a.size == 0:
        return
    # "TRANSFER TODAY TO X": one word of time between; "transferred via ambulance to X"
    later = lx.in_set(w.hashes[np.minimum(a + 1, w.size - 1)], LATER) & (a + 1 < w.size)
    via = (_hash(w, a + 1) == _VIA_HASH) & (a + 3 < w.size) & lx.in_set(_hash(w, a + 3), TO)
    to = _in(w, a + 1 + later + 2 * via)
    n = _in(w, to + 1)
    # "transferred to 209 crowder": a room's number, then the ward's name
    room = w.digits[n] & (w.length(n) <= 4) & w.gap(_in(w, n + 1)).space & (n + 1 < w.size)
    n = np.where(room & w.lower[_in(w, n + 1)], _in(w, n + 1), n)
    # "TRANSFER KILLINGWORTH": a gazetteer town right after the transfer word, in capitals
    direct = ~lx.in_set(_hash(w, to), TO) & w.has(to, lx.PLACE) & w.caps[to] & w.capsnotes[to]
    direct &= lx.in_set(_hash(w, a), _TRANSFER)  # not "GREEN RETURN HEARD"
    direct &= (to < w.size) & ~w.has(to, _PLAIN | lx.FACILITY) & w.gap(to).space
    n = np.where(direct, to, n)
    ok = (lx.in_set(_hash(w, to), TO) | direct) & (to < w.size)
    # "went into SVT", "going into ARF": a rhythm or a state, not a place
    ok &= ~(lx.in_set(_hash(w, a), _WENT) & (_hash(w, to) == _INTO_HASH))
    ok &= w.gap(to).space & w.gap(n).space & _alpha(w, n)
    # "transfered to PE for cath", "admitted to EL": capitals in a note in mixed case are
    # an abbreviation's, whatever word they also spell
    code = w.caps[n] & ~w.capsnotes[n] & (w.length(n) <= 5)
    plain = ~w.has(n, _PLAIN | lx.FACILITY | lx.CREDENTIAL | lx.TITLE) | code
    plain &= ~w.has(n, lx.STATE)  # "BACK TO CALIFORNIA": a state is no identifier
    ok &= plain & (w.length(n) >= 2) & ~lx.in_set(_hash(w, n), WARDS) & (n < w.size)
    mixed = ~w.capsnotes[n]
    ok &= ~mixed | w.title[n] | w.caps[n] | w.lower[n]
    at, code = n[ok], code[ok]
    if at.size == 0:
        return
    # an English word that is a town of the gazetteer is the town ("TRANSFER TO CALUMET",
    # "transfer to palisade"); another is no name ("returned to baseline")
    town = (w.flags[at] & lx.PLACE) != 0
    at = at[town | code | ~g.wordlike(at)]
    nx = _in(w, at + 1)
    two = w.gap(nx).space & _alpha(w, nx) & ~w.has(nx, _PLAIN | lx.FACILITY) & (nx < w.size)
    two &= ~lx.in_set(w.hashes[np.minimum(nx, w.size - 1)], WARDS)
    # "Sacaton Eureka": a second word that is a town in the first's case, or no word
    town2 = w.has(nx, lx.PLACE) & ((w.title[nx] & w.title[at]) | (w.caps[nx] & w.caps[at]))
    two[two] = ~g.wordlike(nx[two]) | town2[two]
    out.append((w.start[at], np.where(two, w.end[nx], w.end[at]), C_MOVED))


C_FROM = CODE[("LOCATION", "place:relative-from")]


def _relative_from(w: Words, g: cw.Cues, out: Out) -> None:
    """ "DAUGHTER FROM TFCN JUST CALLED", "son from Weymouth": after a relation and
    "from", a town of the gazetteer or a word no list knows, in a name's case (an
    abbreviation's in a note in mixed case); no state, unit or common word."""
    rel = g.flagged(lx.RELATION)
    rel = rel[_hash(w, rel + 1) == _FROM_HASH]
    n = _in(w, rel + 2)
    ok = w.gap(rel + 1).space & w.gap(n).space & _alpha(w, n) & (w.length(n) >= 2)
    ok &= ~w.has(n, _PLAIN | lx.FACILITY | lx.CREDENTIAL | lx.TITLE | lx.STATE | lx.RELATION)
    ok &= ~lx.in_set(_hash(w, n), WARDS) & (n < w.size)
    ok &= np.where(w.capsnotes[n], w.caps[n], w.title[n] | (w.caps[n] & (w.length(n) <= 5)))
    at = n[ok]
    at = at[w.has(at, lx.PLACE) | ~g.wordlike(at)]
    out.append((w.start[at], w.end[at], C_FROM))


C_SERVICE = CODE[("LOCATION", "place:service-name")]


def _service_names(w: Words, g: cw.Cues, out: Out) -> None:
    """ "Joslin consult", "following Hartwell Ames scale", "er norborne campus": one or
    two words no list knows as an English, clinical or cue word (names and towns may
    be) before a service word, in a mixed-case note Title case or a short abbreviation
    ("BIDMC consult"); lower case before "campus" only; none after a title ("Dr. Ruiz
    consult" is the name finders')."""
    svc = g.at(cg.SERVICE)
    # "Riker scale 4", "Braden scale #18": a score's scale, named for its author
    nx = _in(w, svc + 1)
    svc = svc[~((_hash(w, svc) == _SCALE_HASH) & (w.digits[nx] | (w.gaps.first[nx] == 35)))]
    campus = _hash(w, svc) == _CAMPUS_HASH
    b = svc - 1
    ok = _service_word(w, b, svc) & ~w.capsnotes[b]
    ok &= w.title[b] | (w.caps[b] & (w.length(b) <= 5)) | (w.lower[b] & campus)
    at = b[ok]
    at = at[~g.wordlike(at)]
    if at.size == 0:
        return
    a = at - 1  # a first word of the same case: "Hartwell Ames"
    two = _service_word(w, a, at)
    two &= (w.title[a] & w.title[at]) | (w.lower[a] & w.lower[at])
    two[two] = ~g.wordlike(a[two])
    out.append((w.start[np.where(two, a, at)], w.end[at], C_SERVICE))


def _service_word(w: Words, i: np.ndarray, nx: np.ndarray) -> np.ndarray:
    """A word of a service's name at ``i``, before word ``nx``: letters, two or more, no
    common, clinical, cue, credential, title, relation or state word, no unit, and no
    title before it."""
    ok = w.gap(nx).space & _alpha(w, i) & (w.length(i) >= 2) & (i >= 0)
    ok &= ~w.has(i, _PLAIN | lx.CREDENTIAL | lx.TITLE | lx.RELATION | lx.STATE)
    return ok & ~lx.in_set(_hash(w, i), NOT_NAME) & ~w.has(i - 1, lx.TITLE)


C_SITE = CODE[("LOCATION", "place:site-code")]


def _site_codes(w: Words, g: cw.Cues, out: Out) -> None:
    """A hospital's abbreviated name: two to five capitals before its department ("At RK
    EW", "-> MP EW", "to AD cath lab", "BROUGHT TO AW ER", "from BP Hospital"), after a
    place word or an arrow; and a place after "lives in" or an employer's cue ("lives in
    AW", "retired from HT"): capitals, or a word no list knows. No unit ("OSH ER"), no
    cue, no common word; a clinical abbreviation only before "Hospital"."""
    dept = g.at(cg.DEPT)
    fac = g.flagged(lx.FACILITY)
    fac = fac[lx.in_set(_hash(w, fac), _HOSPITAL) & (w.caps[fac] | w.title[fac])]
    dept = dept[(_hash(w, dept) != _CATH) | lx.in_set(_hash(w, dept + 1), _LAB)]
    at = np.concatenate((dept, fac)) - 1
    hosp = np.concatenate((np.zeros(dept.size, dtype=bool), np.ones(fac.size, dtype=bool)))
    keep = (at >= 1) & w.gap(_in(w, at + 1)).space
    at, hosp = at[keep], hosp[keep]
    code = _code_word(w, at, cred=True) & (~w.has(at, lx.CLINICAL) | hosp)
    gap = w.gap(at)
    arrow = w.raw[np.maximum(w.start[at] - 2, 0)] == 62  # "-> MP EW"
    code &= (w.has(at - 1, lx.PLACE_CUE) & gap.space) | arrow
    out.append((w.start[at[code]], w.end[at[code]], C_SITE))
    # "lives in AW", "resides in bayside", "retired from HT", "works at Raytheon"
    lives = g.at(cg.ADDRESS)
    cue = np.concatenate((lives, g.at(cg.EMPLOY)))
    employ = np.arange(cue.size) >= lives.size
    prep = _in(w, cue + 1)
    n = _in(w, cue + 2)
    ok = lx.in_set(_hash(w, prep), _PREP) & w.gap(prep).space & w.gap(n).space & (cue + 2 < w.size)
    n, employ = n[ok], employ[ok]
    code = _code_word(w, n) & (~w.has(n, lx.CLINICAL) | employ)
    plain = _alpha(w, n) & (w.length(n) >= 3) & ~w.has(n, _PLAIN | lx.FACILITY | lx.STATE)
    plain &= ~lx.in_set(_hash(w, n), WARDS)
    at = np.flatnonzero(plain & ~code)
    plain[at] = ~g.wordlike(n[at])
    hit = n[code | plain]
    out.append((w.start[hit], w.end[hit], C_SITE))


def _code_word(w: Words, i: np.ndarray, cred: bool = False) -> np.ndarray:
    """Two to five capital letters that are no unit, cue, common word nor state code;
    ``cred`` (before a department): a credential's or a state's letters may be a
    place's ("BROUGHT TO PA ER")."""
    ok = w.caps[i] & _alpha(w, i) & (w.length(i) >= 2) & (w.length(i) <= 5)
    cue = (lx.TITLE | lx.RELATION) if cred else (_CUE | lx.STATE_CODE)
    ok &= ~w.has(i, lx.COMMON | cue | lx.MONTH)
    return ok & ~lx.in_set(_hash(w, i), NOT_NAME)


_VIA_HASH = lx.hash_set(("via",))[0]
_INTO_HASH = lx.hash_set(("into",))[0]
_FROM_HASH = lx.hash_set(("from",))[0]
_CAMPUS_HASH = lx.hash_set(("campus",))[0]
_TO_AT = lx.hash_set(("to", "at"))
_SCALE_HASH = lx.hash_set(("scale",))[0]
#: transfer words a town may follow without "to" ("TRANSFER KILLINGWORTH")
_TRANSFER = lx.hash_set(("transfer", "transferred", "transfered", "tranfered", "trans", "tx"))
#: words before "into" that say what a patient went into ("went into SVT"), not where
_WENT = lx.hash_set(("went", "going", "go"))
_JOINERS = np.array([45, 46, 47], dtype=np.uint8)  # "-", ".", "/"
_HOSPITAL = lx.hash_set(("hospital", "hosp", "campus"))
_CATH = lx.hash_set(("cath",))[0]
_LAB = lx.hash_set(("lab", "labs"))
_PREP = lx.hash_set(("in", "at", "from", "for", "by", "near"))


def _hash(w: Words, i: np.ndarray) -> np.ndarray:
    """The hashes of the words at ``i``; past the last word, the last word's."""
    return w.hashes[np.clip(i, 0, max(w.size - 1, 0))]
