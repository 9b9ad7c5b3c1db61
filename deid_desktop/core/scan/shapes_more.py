"""More identifier shapes of real notes, over one batch: SSNs written with spaces after a
cue, spelled-out e-mail addresses ("jdoe at gmail dot com"), vehicle identification
numbers (check digit validated), licence plates and device serial numbers after a cue,
"3rd of March", addresses with a directional and no street word ("1234 N. Broadway"),
street names after "on" ("lives on Mass Ave"), unit designators ("Apt 4B", "Suite 300"),
ages over 89 in decades ("in her 90s", "late nineties") or glued to their unit ("101yo",
"93yoF"), Medicare Beneficiary Identifiers ("1EG4-TE5-MK73", by their fixed shape) and a
day of the month after a weekday ("Tuesday the 14th").

Nothing here reads every character of the batch: each finder starts from its few anchor
words among the batch's words (``words.Words``, cut once for the context finders) - a
cue word found by its hash (``ssn``, ``plate``, ``serial``, ``apt``, ``dot``...), a
number before a direction word, a 17-character word, a month after "of", a street word
two or three words after "on", the number 90 - found with numpy; a regex then reads the
text at those few places only (``Pattern.match`` at an offset, in the folded batch or
the original one), and what it finds is checked one by one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.lexicon import word_hash
from deid_desktop.core.scan.rules import CODE
from deid_desktop.core.scan.screen import register
from deid_desktop.core.scan.shapes_record import record_number
from deid_desktop.core.scan.words import Words

Found = tuple[np.ndarray, np.ndarray, np.ndarray]
_Add = Callable[[int, int, int], None]

C_SSN = CODE[("SSN", "pattern:ssn-spaced")]
C_EMAIL = CODE[("EMAIL", "pattern:email-spelled")]
C_VIN = CODE[("ID", "vehicle:vin")]
C_PLATE = CODE[("ID", "vehicle:plate")]
C_SERIAL = CODE[("ID", "device:serial")]
C_DAY_OF = CODE[("DATE", "date:day-of-month")]
C_DIRECTIONAL = CODE[("LOCATION", "address:directional")]
C_STREET_NAME = CODE[("LOCATION", "address:street-name")]
C_UNIT = CODE[("LOCATION", "address:unit")]
C_TOWN = CODE[("LOCATION", "address:town-state")]
C_DECADE = CODE[("AGE", "age:decade")]
C_DECADE_BARE = CODE[("AGE", "age:decade-bare")]
C_GLUED_AGE = CODE[("AGE", "age:glued")]
C_MBI = CODE[("ID", "insurance:mbi")]
C_WEEKDAY_DAY = CODE[("DATE", "date:weekday-day")]

_B = r"(?![a-z0-9])"  # end of a word in the folded text

# --------------------------------------------------------------------------- SSN
_SSN = re.compile(
    r"(?:ssn|security(?: +(?:number|num|no))?|ss)"
    r" +(?:(?:is|no|num|number|of) +)?(\d{3}) (\d{2}) (\d{4})" + _B
)

# --------------------------------------------------------------------------- e-mail
_TLDS = "com|net|org|edu|gov|mil"
_EMAIL_FOLDED = re.compile(
    r"at +[a-z0-9-]+(?: +(?:dot +)?[a-z0-9-]+){0,2}? +(?:dot +)?(?:" + _TLDS + ")" + _B
)
_AT = r"(?:\[at\]|\(at\)|\{at\}|<at>|(?<![A-Za-z])at(?![A-Za-z]))"
_DOT = r"(?:[ \t]*(?:\[dot\]|\(dot\)|\{dot\}|<dot>|(?<![A-Za-z])dot(?![A-Za-z]))[ \t]*|\.)"
_EMAIL_TEXT = re.compile(
    _AT + r"[ \t]*[A-Za-z0-9-]+(?:" + _DOT + r"[A-Za-z0-9-]+)*" + _DOT + r"(?:" + _TLDS + r")",
    re.I,
)
#: The local part before a spelled " at ": a word, or words joined by a spelled " dot "
#: ("mark dot scott at gmail dot com").
_LOCAL = re.compile(
    r"((?:[A-Za-z0-9._%+-]+[ \t]+(?:dot|DOT|Dot)[ \t]+)*[A-Za-z0-9._%+-]+)[ \t]*[\[({<]?[ \t]*\Z"
)

# --------------------------------------------------------------------------- VIN
_VIN_VALUE = {
    **{str(d): d for d in range(10)},
    **dict(zip("ABCDEFGH", range(1, 9), strict=True)),
    **dict(zip("JKLMN", range(1, 6), strict=True)),
    "P": 7,
    "R": 9,
    **dict(zip("STUVWXYZ", range(2, 10), strict=True)),
}
_VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)


def vin_check_ok(vin: str) -> bool:
    """The check digit (9th character) of a 17-character VIN is right, and it has a
    letter and a digit (a lab accession code of the same shape seldom passes)."""
    if len(vin) != 17 or not all(c in _VIN_VALUE for c in vin):
        return False
    if vin.isdigit() or vin.isalpha():
        return False
    total = sum(_VIN_VALUE[c] * w for c, w in zip(vin, _VIN_WEIGHTS, strict=True))
    r = total % 11
    return vin[8] == ("X" if r == 10 else str(r))


# --------------------------------------------------------------------------- plates, serials
_PLATE = re.compile(r"(?:plates?|tag)(?: +(?:no|num|number|is))? +([a-z0-9]{2,8})" + _B)
_SERIAL = re.compile(r"(?:serial|s n|sn)(?: +(?:no|num|number|is))? +([a-z0-9]{4,20})" + _B)

# --------------------------------------------------------------------------- day of month
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|"
    "december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec"
)
_OF_MONTH = re.compile(r" of (?:" + _MONTHS + r")" + _B)
_ORDINAL_WORDS = (
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    "thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
    "twenty first|twenty second|twenty third|twenty fourth|twenty fifth|twenty sixth|"
    "twenty seventh|twenty eighth|twenty ninth|thirtieth|thirty first"
)
_DAY_BEFORE = re.compile(
    r"(?<![a-z0-9])(?:(the) +)?(?:(\d{1,2})(st|nd|rd|th)?|(" + _ORDINAL_WORDS + r"))\Z"
)

# --------------------------------------------------------------------------- addresses
_DIRECTIONS = r"(?:NE|NW|SE|SW|[NSEW]|North|South|East|West|NORTH|SOUTH|EAST|WEST)"
_DIRECTIONAL = re.compile(r"(?<![0-9.,/])\d{1,5} " + _DIRECTIONS + r"\.? [A-Z][A-Za-z]+")
_STREET_WORDS = (
    r"street|st|avenue|ave|road|rd|lane|ln|drive|dr|boulevard|blvd|way|court|ct|place|pl|"
    r"terrace|ter|circle|cir|highway|hwy|parkway|pkwy|square|sq|pike|turnpike"
)
_STREET_ALT = "|".join(x for w in _STREET_WORDS.split("|") for x in (w.title(), w.upper()))
_ON_STREET = re.compile(r"(?:on|ON) ((?:[A-Z][A-Za-z]+\.? ){1,2}(?:" + _STREET_ALT + r")\b)")
_STATE_END = re.compile(r"(?![A-Za-z0-9])(?!\.[A-Za-z])")  # "MA." ends; "M.A.R." does not
_NEXT_WORD = re.compile(r" [A-Z][A-Za-z]+")
_DIGIT_AFTER = re.compile(r",? *\d")
_NAME_AFTER = re.compile(r"\.? [A-Z][a-z]")
_UNIT = re.compile(r"(?:apt|apartment|suite|ste|unit)\.? *#? *(\d{1,5}[a-z]?|[a-z]\d{0,4})" + _B)
_STREET_END = re.compile(r"(?i)\b(?:" + _STREET_WORDS + r")\.?,? *\Z")

# --------------------------------------------------------------------------- ages
_DECADE = re.compile(r"(?:90 ?s|nineties)" + _B)
_PRONOUN = re.compile(
    r"(?:^|[^a-z0-9])in +(?:her|his|their|pt s|patient s) +((?:early|mid|late) +)?\Z"
)
_MODIFIER = re.compile(r"(?:^|[^a-z0-9])((?:early|mid|late) +)\Z")
_VITAL_BEFORE = re.compile(
    r"(?:^|[^a-z0-9])(?:sbp|dbp|bp|hr|pulse|(?:o2|02)?sats?|sat s|saturations?|spo2|o2|map|"
    r"temp|rr|glucose|fsbg|bs|sugars?|pressures?|rate|weight|wt|lbs|kg|score|was|were|"
    r"been|to|in the)(?![a-z0-9])"
)
#: An age of 90 to 125 glued to its unit: "101yo", "93yoF", "95y/o", "90yrs" (folded).
#: The folded text writes "y/o" and "y.o." as "y o".
_GLUED_AGE = re.compile(r"(9\d|1[01]\d|12[0-5])(?:yo|y o|yrs?|years?)(?:[mf]|wm|wf)?" + _B)

#: "turned 95", "turns 101" - not "turned 90 degrees" (folded).
_TURNED = re.compile(
    r"turn(?:ed|s|ing) +(9\d|1[01]\d|12[0-5])"
    + _B
    + r"(?! *(?:degrees?|deg|°|%|mg|ml|cc|mins?|minutes|times|x|q))"
)

# --------------------------------------------------------------------------- MBI
#: Medicare Beneficiary Identifier (CMS): 11 characters, C A AN N A AN N A A N N, letters
#: without S L O I B Z, written whole or in groups of 4-3-4 with dashes.
_MBI_L = "[AC-HJKMNP-RT-Y]"
_MBI_AN = "[AC-HJKMNP-RT-Y0-9]"
_MBI = re.compile(
    rf"[1-9]{_MBI_L}{_MBI_AN}\d(-?){_MBI_L}{_MBI_AN}\d\1{_MBI_L}{_MBI_L}\d\d(?![A-Za-z0-9])"
)

# --------------------------------------------------------------------------- weekday + day
_WEEKDAY_DAY = re.compile(
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tues|weds|thurs)\.?,? +"
    r"(?:the +)?(?:(\d{1,2})(?:st|nd|rd|th)|(" + _ORDINAL_WORDS + r"))" + _B
)


#: Cue words (folded) and the finder each one starts.
_CUES = {
    "ssn": "ssn", "security": "ssn", "ss": "ssn",
    "dot": "email", "at": "email",
    "plate": "plate", "plates": "plate", "tag": "plate",
    "serial": "serial", "sn": "serial", "n": "serial",
    "apt": "unit", "apartment": "unit", "suite": "unit", "ste": "unit", "unit": "unit",
    "nineties": "decade", "90s": "decade",
    "monday": "weekday", "tuesday": "weekday", "wednesday": "weekday",
    "thursday": "weekday", "friday": "weekday", "saturday": "weekday", "sunday": "weekday",
    "tues": "weekday", "weds": "weekday", "thurs": "weekday",
    "turned": "turned", "turns": "turned", "turning": "turned",
    "mrn": "record", "mr": "record", "acct": "record", "account": "record",
    "record": "record", "chart": "record", "hospital": "record", "member": "record",
}  # fmt: skip
_FINDERS = ("ssn", "email", "plate", "serial", "unit", "decade", "weekday", "turned", "record")
_CUE_HASH = word_hash(
    b"".join(c.encode().ljust(16, b" ") for c in _CUES) + bytes(16),
    np.arange(len(_CUES), dtype=np.int64) * 16,
    np.array([len(c) for c in _CUES], dtype=np.int64),
)
_CUE_FINDER = np.array([_FINDERS.index(f) for f in _CUES.values()], dtype=np.int64)
_HASH_ORDER = np.argsort(_CUE_HASH)
_SORTED_HASH = _CUE_HASH[_HASH_ORDER]
#: The cues' bit in the batch's word screen: only the few words it lets through are
#: searched in ``_SORTED_HASH``.
_SCREEN = register(_CUE_HASH)
_OPEN = np.zeros(256, dtype=bool)
_OPEN[list(b"[({<")] = True
_DIR_FIRST = np.zeros(256, dtype=bool)
_DIR_FIRST[list(b"NSEW")] = True


def find_more(text: str, folded: str, w: Words) -> Found:
    """Candidate hits of every finder of this module in one batch. ``w``: the batch's
    words (their hashes are screened for the cues, ``screen``). Each finder starts from
    its few anchor words (a cue, a number before a direction, a 17-character word, a
    month after "of", a street word after "on"), found with numpy, and reads the text
    only there."""
    starts: list[int] = []
    ends: list[int] = []
    codes: list[int] = []

    def add(s: int, e: int, code: int) -> None:
        starts.append(s)
        ends.append(e)
        codes.append(code)

    n = w.size
    if n:
        maybe = w.screen(_SCREEN)
        if maybe.size:
            h = w.hashes[maybe]
            k = np.minimum(np.searchsorted(_SORTED_HASH, h), _SORTED_HASH.size - 1)
            hit = _SORTED_HASH[k] == h
            at, finder = maybe[hit], _CUE_FINDER[_HASH_ORDER[k[hit]]]
            _cued(text, folded, w, at, finder, add)
        _vins(text, w, add)
        _mbis(text, w, add)
        _numbers(text, folded, w, add)
        _glued_ages(folded, w, add)
        _months_and_streets(text, folded, w, add)
    return (
        np.asarray(starts, dtype=np.int64),
        np.asarray(ends, dtype=np.int64),
        np.asarray(codes, dtype=np.int64),
    )


def _cued(text: str, folded: str, w: Words, at: np.ndarray, finder: np.ndarray, add: _Add) -> None:
    raw = w.raw
    pos = w.start[at]
    email = finder == 1
    # "at" only bracketed ("[at]"); "n" only in "s/n"
    short_at = email & (w.lengths[at] == 2)
    keep = ~short_at | _OPEN[raw[np.maximum(pos - 1, 0)]]
    is_n = (finder == 3) & (w.lengths[at] == 1)
    keep &= ~is_n | (
        ((raw[np.maximum(pos - 2, 0)] | 32) == 115) & (raw[np.maximum(pos - 1, 0)] == 47)
    )
    pos = np.where(is_n, pos - 2, pos)
    for p, f in zip(pos[keep].tolist(), finder[keep].tolist(), strict=True):
        if f == 0:
            _ssn(text, folded, p, add)
        elif f == 1:
            _emails(text, folded, p, add)
        elif f == 2:
            _plate(text, folded, p, add)
        elif f == 3:
            _serial(text, folded, p, add)
        elif f == 4:
            _unit(text, folded, p, add)
        elif f == 5:
            _decade(folded, p, add)
        elif f == 6:
            _weekday_day(folded, p, add)
        elif f == 7:
            _turned(folded, p, add)
        else:
            record_number(text, p, add)


def _word_start(folded: str, at: int) -> bool:
    return at == 0 or not folded[at - 1].isalnum()


def _ssn(text: str, folded: str, p: int, add: _Add) -> None:
    for m in filter(None, (_SSN.match(folded, p),)):
        cue = text[m.start() : m.start() + 2]
        if folded[m.start() : m.start() + 3] == "ss " and not (
            cue.isupper() and "#" in text[m.start() : m.start(1)]
        ):
            continue  # "ss" alone only as "SS#"
        s1, s2 = text[m.end(1)], text[m.end(2)]
        if s1 != s2 or s1 not in " .":  # dashes: pattern:ssn; mixed separators: no
            continue
        add(m.start(1), m.end(3), C_SSN)


def _emails(text: str, folded: str, p: int, add: _Add) -> None:
    pos, stop = max(0, p - 80), p + 48
    while (m := _EMAIL_FOLDED.search(folded, pos, stop)) is not None:
        s = m.start()
        pos = s + 2  # a failed candidate may hide one that starts inside it
        if not _word_start(folded, s):
            continue
        t = _EMAIL_TEXT.match(text, s - 1 if s and text[s - 1] in "[({<" else s, m.end())
        if t is None or t.end() != m.end():
            continue
        pos = m.end()
        spelled = text[t.start() : t.start() + 2].lower() != "at" or "dot" in t.group().lower()
        bracketed = t.group()[0] in "[({<"
        if not (spelled or bracketed):
            continue
        local = _LOCAL.search(text, max(0, t.start() - 64), t.start())
        if local is None or not any(c.isalnum() for c in local.group(1)):
            continue
        word = local.group(1)
        if (
            word.isalpha()
            and word[0].isupper()
            and not bracketed
            and "dot" not in t.group().lower()
        ):
            continue  # "Seen at Mass.gov" written in a sentence: no local part
        add(local.start(1), t.end(), C_EMAIL)


def _vins(text: str, w: Words, add: _Add) -> None:
    long = np.flatnonzero(w.lengths[: w.size] == 17)
    long = long[~w.lower[long]]  # no lower-case first letter
    for i in long.tolist():
        s = int(w.start[i])
        if vin_check_ok(text[s : s + 17]):
            add(s, s + 17, C_VIN)


def _mbis(text: str, w: Words, add: _Add) -> None:
    """Medicare Beneficiary Identifiers: from a word that starts with a digit 1-9 and is
    not a number, of 11 characters (or 4, then a dash: "1EG4-TE5-MK73"), the fixed
    shape read in the text."""
    num = w.numbers
    if num.size == 0:
        return
    size = w.lengths[num]
    raw = w.raw
    s = w.start[num]
    b1, b3 = raw[s + 1], raw[s + 3]
    shape = (raw[s] != 48) & (b1 >= 65) & (b1 <= 90) & (b3 >= 48) & (b3 <= 57)  # 1A?9
    dash = (size == 4) & (raw[s + 4] == 45)  # "1EG4-", the word cut at the dash
    num = num[((size == 11) | (size == 13) | dash) & shape & ~w.digits[num]]
    for i in num.tolist():
        s = int(w.start[i])
        m = _MBI.match(text, s)
        if m is not None and (s == 0 or not text[s - 1].isalnum()):
            add(s, m.end(), C_MBI)


def _glued_ages(folded: str, w: Words, add: _Add) -> None:
    """An age of 90 to 125 written with its unit in one word ("101yo", "93yoF")."""
    num = w.numbers
    if num.size == 0:
        return
    raw = w.raw
    s = w.start[num]
    b0, b1 = raw[s], raw[s + 1]
    lead = (b0 == 57) | ((b0 == 49) & (b1 >= 48) & (b1 <= 50))  # 9x, 10x-12x
    num = num[lead & ~w.digits[num] & (w.lengths[num] >= 3)]
    for i in num.tolist():
        p = int(w.start[i])
        m = _GLUED_AGE.match(folded, p)
        if m is not None and _word_start(folded, p):
            add(p, m.end(), C_GLUED_AGE)


def _turned(folded: str, p: int, add: _Add) -> None:
    for m in filter(None, (_TURNED.match(folded, p),)):
        add(m.start(1), m.end(1), C_GLUED_AGE)


def _weekday_day(folded: str, p: int, add: _Add) -> None:
    for m in filter(None, (_WEEKDAY_DAY.match(folded, p),)):
        day = m.group(1)
        if day is not None and not 1 <= int(day) <= 31:
            continue
        add(p, m.end(), C_WEEKDAY_DAY)


def _plate(text: str, folded: str, p: int, add: _Add) -> None:
    for m in filter(None, (_PLATE.match(folded, p),)):
        value = text[m.start(1) : m.end(1)]
        compact = value.replace(" ", "")
        if not (4 <= len(compact) <= 8) or not any(c.isdigit() for c in compact):
            continue
        if not any(c.isalpha() for c in compact) and len(compact) < 5:
            continue
        if any(c.islower() for c in value):
            continue  # plates are written in capitals: "plate 2x daily" is not one
        cue = folded[m.start() : m.start(1)]
        if cue.startswith("tag"):
            licence = (
                folded[max(0, m.start() - 12) : m.start()]
                .rstrip()
                .endswith(("license", "licence", "lic"))
            )
            if (
                "#" not in text[m.start() : m.start(1)]
                and " no" not in cue
                and "num" not in cue
                and not licence
            ):
                continue
        add(m.start(1), m.end(1), C_PLATE)


def _serial(text: str, folded: str, p: int, add: _Add) -> None:
    for m in filter(None, (_SERIAL.match(folded, p),)):
        cue = text[m.start() : m.start(1)]
        if not cue.lower().startswith(("serial", "s/n", "sn#", "sn:", "sn #")):
            continue  # "SN" alone: a skilled nurse
        value = text[m.start(1) : m.end(1)]
        if not any(c.isdigit() for c in value) or (value.isdigit() and len(value) < 5):
            continue
        add(m.start(1), m.end(1), C_SERIAL)


def _day_of(text: str, folded: str, p: int, add: _Add) -> None:
    for m in filter(None, (_OF_MONTH.match(folded, p),)):
        d = _DAY_BEFORE.search(folded, max(0, m.start() - 24), m.start())
        if d is None:
            continue
        if d.group(2) is not None and not 1 <= int(d.group(2)) <= 31:
            continue
        month_start = m.start() + 4
        capital = text[month_start].isupper()
        if not (d.group(1) or d.group(3) or d.group(4)) or not (
            capital or d.group(3) or d.group(4)
        ):
            continue  # "2 of may": a bare number before a lower-case month is no date
        start = d.start(2) if d.group(2) is not None else d.start(4)
        add(start, m.end(), C_DAY_OF)


def _numbers(text: str, folded: str, w: Words, add: _Add) -> None:
    """A house number before a direction ("1234 N. Broadway"), 90 before "'s"."""
    num = w.numbers
    if num.size == 0:
        return
    raw = w.raw
    nx = w.start[num + 1]
    num = num[_DIR_FIRST[raw[nx]] & (nx == w.end[num] + 1)]  # "12 N", "12 South": one space
    s = w.start[num + 1]
    n = w.lengths[num + 1]
    b0, b1 = raw[s], raw[s + 1]
    b2, b3 = raw[s + 2] | 32, raw[s + 3] | 32
    one = n == 1
    two = (n == 2) & ((b0 == 78) | (b0 == 83)) & ((b1 == 69) | (b1 == 87))  # NE NW SE SW
    four = (n == 4) & ((b0 == 69) | (b0 == 87)) & (((b1 | 32) == 97) | ((b1 | 32) == 101))
    four &= (b2 == 115) & (b3 == 116)  # East, West
    five = (n == 5) & ((b0 == 78) | (b0 == 83)) & (b3 == 116) & ((raw[s + 4] | 32) == 104)
    ok = (one | two | four | five) & w.digits[num] & (w.lengths[num] <= 5)
    # "12 W ABG", "2100 W PLAN TO" in a note in capitals: W is "with" unless a street
    # word follows the name
    with_ = one & (b0 == 87) & w.capsnotes[num]
    street = w.has(np.minimum(num + 3, w.start.size - 1), lx.STREET)
    street |= w.has(np.minimum(num + 4, w.start.size - 1), lx.STREET)
    ok &= ~with_ | street
    for i in num[ok].tolist():
        _directional(text, int(w.start[i]), add)
    num = w.numbers
    ninety = num[w.values[num] == 90]
    for i in ninety.tolist():
        _decade(folded, int(w.start[i]), add)


def _directional(text: str, p: int, add: _Add) -> None:
    m = _DIRECTIONAL.match(text, p)
    if m is None or (p and (text[p - 1] in ".,/" or text[p - 1].isalnum())):
        return
    end = m.end()
    nxt = _NEXT_WORD.match(text, end, end + 30)
    if nxt:
        end = nxt.end()
    add(p, end, C_DIRECTIONAL)


def _months_and_streets(text: str, folded: str, w: Words, add: _Add) -> None:
    at = w.anchors
    f = w.flags[at]
    # a town before a state code in capitals: "Somerville MA", "Somerville, MA" (also in
    # a short note of Title words, which the context finders read as written in capitals)
    towns = at[((f & lx.PLACE) != 0) & w.title[at]]
    if towns.size:
        nx = towns + 1
        g = w.gap(nx)
        ok = w.has(nx, lx.STATE_CODE) & w.caps[nx] & (w.lengths[nx] == 2) & (g.space | g.comma)
        ok &= (w.lengths[towns] > 2) & ~w.has(towns, lx.COMMON | lx.CLINICAL | lx.MONTH)
        for i in towns[ok].tolist():
            s, e = int(w.start[i]), int(w.end[i])
            if _STATE_END.match(text, int(w.end[i + 1])):
                add(s, e, C_TOWN)
    months = at[(f & lx.MONTH) != 0]
    if months.size:
        of = months - 1
        s = w.start[of]
        ok = (w.lengths[of] == 2) & ((w.raw[s] | 32) == 111) & ((w.raw[s + 1] | 32) == 102)
        for p in (s[ok] - 1).tolist():
            _day_of(text, folded, p, add)
    streets = at[(f & lx.STREET) != 0]
    if streets.size:
        for back in (2, 3):
            on = streets - back
            s = w.start[on]
            ok = (on >= 0) & (w.lengths[on] == 2)
            ok &= ((w.raw[s] | 32) == 111) & ((w.raw[s + 1] | 32) == 110)
            for p in s[ok].tolist():
                _on_street(text, p, add)


def _on_street(text: str, p: int, add: _Add) -> None:
    m = _ON_STREET.match(text, p)
    if m is None or (p and text[p - 1].isalnum()):
        return
    if text[m.end() - 2 : m.end()].lower() in ("dr", "st") and _NAME_AFTER.match(text, m.end()):
        return  # "on Friday Dr. Jones": a title, not a street word
    add(m.start(1), m.end(1), C_STREET_NAME)


def _unit(text: str, folded: str, p: int, add: _Add) -> None:
    record_number(text, p, add)  # "Unit No: 555-55-55"
    m = _UNIT.match(folded, p)
    if m is None:
        return
    value = text[m.start(1) : m.end(1)]
    if not any(c.isdigit() for c in value):
        return
    near = _DIGIT_AFTER.match(text, m.end()) is not None
    near |= _STREET_END.search(text, max(0, p - 16), p) is not None
    word = folded[p : m.end()].split(" ")[0]
    strong = text[p].isupper() and word in ("apt", "apartment", "suite", "ste")
    if near or strong:  # "Unit 12" only beside an address: a ward is no home
        add(p, m.end(1), C_UNIT)


def _decade(folded: str, p: int, add: _Add) -> None:
    for m in filter(None, (_DECADE.match(folded, p),)):
        s = m.start()
        window = folded[max(0, s - 24) : s]
        p = _PRONOUN.search(window)
        if p is not None:
            lo = s - len(p.group(1)) if p.group(1) else s
            add(lo, m.end(), C_DECADE)
            continue
        if _VITAL_BEFORE.search(folded, max(0, s - 24), s):
            continue  # "SBP in the 90s", "sats high 90s"
        mod = _MODIFIER.search(window)
        if mod is not None:
            add(s - len(mod.group(1)), m.end(), C_DECADE_BARE)
        elif folded.startswith("nineties", s) and not window.endswith(("the ", "the  ")):
            add(s, m.end(), C_DECADE_BARE)
