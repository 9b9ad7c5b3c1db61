"""The finders run over one batch of notes joined by NOTE_SEP.

Each finder returns candidate hits as three int arrays: start, end (offsets in the batch
text) and rule code (``rules.RULES``); the engine ranks them by ``rules.PRIORITY``.

- words (dictionary terms, cue, month and URL words): whole-word matches of " term " in
  the folded, space-padded text - through the word index (``regions``) when the folded
  batch is ASCII, one Aho-Corasick pass otherwise; offsets for all matches at once.
  Only cue and month words get a look at their context: cue names with numpy
  (``cues``, the regex where a window holds non-ASCII text), month dates by regex;
- digits (SSN, phone, dates, IP, ZIP, MRN-like codes): numpy finds the few regions
  where a digit pattern could match, one exact regex runs over those regions only, and
  dates are checked and dictionary digits looked up on arrays;
- e-mails and URLs: from each '@' (local part read backwards) and from the URL words
  found by the word pass, then matched exactly.
"""

from __future__ import annotations

import itertools
import re
import weakref

import numpy as np

from deid_desktop.core.scan import cues
from deid_desktop.core.scan.dictionary import URL_START, ScanDictionary, WordMatcher
from deid_desktop.core.scan.digit_shapes import digit_matches
from deid_desktop.core.scan.fold import ascii_projection
from deid_desktop.core.scan.regions import end_order
from deid_desktop.core.scan.rules import CODE, dict_code, pattern_code

Found = tuple[np.ndarray, np.ndarray, np.ndarray]  # start, end, rule code
_EMPTY = np.empty(0, dtype=np.int64)
#: More entries than one word can carry (cue, month and dictionary term at most).
_MAX_ENTRIES = 8

_DIGITS = re.compile(  # a code with a letter prefix first: at a letter nothing else can match
    r"""(?<![0-9A-Za-z])(?:
      (?P<mrn_prefixed>[A-Za-z]{1,3}[-\#]?\d{6,})
    | (?=[(+0-9])(?:
          (?P<ssn>\d{3}-\d{2}-\d{4})
        | (?P<date_iso>\d{4}[-/.]\d{1,2}[-/.]\d{1,2})
        | (?P<ip>\d{1,3}(?:\.\d{1,3}){3})
        | (?P<date_num>\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2}))
        | (?P<phone>(?:\+?1[ .-]?)?(?:\(\d{3}\)[ ]?|\d{3}[ .-]?)\d{3}[ .-]?\d{4}|\d{3}[.-]\d{4})
        | (?P<zip>\d{5}(?:-\d{4})?)
        | (?P<mrn>\d{6,})
        | (?P<grouped>\d{3,4}[ ]\d{3,4}[ ]\d{3,4}|\d{4}[ ]\d{3,4}|\d{3}[ ]\d{4})
    ))(?![0-9A-Za-z])""",
    re.X,
)
_KIND = {
    "ssn": "SSN",
    "date_iso": "DATE",
    "date_num": "DATE",
    "ip": "IP",
    "phone": "PHONE",
    "zip": "ZIP",
    "mrn": "MRN",
    "mrn_prefixed": "MRN",
    "grouped": "ID",
}
_CODE_OF_GROUP = {g: pattern_code(k, f"pattern:{g.split('_')[0]}") for g, k in _KIND.items()}
_GROUPED = "grouped"  # a number of 7 digits or more in groups split by single spaces
_DATE_CODE = pattern_code("DATE", "pattern:date")
_GROUP_NAMES = sorted(_DIGITS.groupindex, key=_DIGITS.groupindex.__getitem__)
#: Rule code and "is a date" by group number (``Match.lastindex``).
_GROUP_CODE = np.array([-1, *(_CODE_OF_GROUP[g] for g in _GROUP_NAMES)], dtype=np.int64)
_IS_DATE_GROUP = np.array([False, *(g.startswith("date") for g in _GROUP_NAMES)])
_ISO_GROUP = _DIGITS.groupindex["date_iso"]
_PHONE_GROUP = _DIGITS.groupindex["phone"]
_GROUPED_GROUP = _DIGITS.groupindex[_GROUPED]
_LOCAL_PHONE_CODE = _CODE_OF_GROUP["phone"]
_YEARS = re.compile(r"(?:(?:19|20)\d\d ?)+")
_DATE_WIDTH = 10  # the longest numeric date: 2024-12-31, 12/31/2024
_DATE_SEP = np.zeros(256, dtype=bool)  # by byte: . / -
_DATE_SEP[list(b"./-")] = True
_DATE_COLS = np.arange(_DATE_WIDTH)
_POW10 = 10 ** np.arange(19, dtype=np.int64)  # 10 ** 0 .. 10 ** 18
_EMAIL_CODE = pattern_code("EMAIL", "pattern:email")
_URL_CODE = pattern_code("URL", "pattern:url")
_KEEP_DIGITS = {c: None for c in range(128) if not chr(c).isdigit()}
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_LOCAL_MAX = 64
#: Characters of an e-mail domain read with numpy; a longer one is left to the regex.
_DOMAIN_WINDOW = 60
_DOMAIN_COLS = np.arange(_DOMAIN_WINDOW)
#: Digits of the longest dictionary entry looked up as a number (``ScanDictionary``).
_MAX_NUMBER_DIGITS = 18
_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'\x00]+", re.I)
_URL_TRAIL = ".,;:!?)]}'\""
_TITLE_NAME = re.compile(r"\.?[ \t]+([^\W\d_][\w'’-]*)(?:[ \t]+([^\W\d_][\w'’-]*))?")
_RELATION_NAME = re.compile(r"[,:]?[ \t]+([^\W\d_][\w'’-]*)(?:[ \t]+([^\W\d_][\w'’-]*))?")
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr"})
_MONTH_FIRST = re.compile(r"[^\W\d_]+\.?[ \t]+\d{1,2}(?:st|nd|rd|th)?,?[ \t]+\d{4}(?!\d)", re.I)
_DAY_BEFORE = re.compile(r"(\d{1,2})(?:st|nd|rd|th)?[ \t]+$", re.I)
_MONTH_YEAR = re.compile(r"[^\W\d_]+\.?,?[ \t]+\d{4}(?!\d)", re.I)


def _arrays(starts: list[int], ends: list[int], codes: list[int]) -> Found:
    return (
        np.asarray(starts, dtype=np.int64),
        np.asarray(ends, dtype=np.int64),
        np.asarray(codes, dtype=np.int64),
    )


def find_words(
    text: str,
    folded: str,
    dictionary: ScanDictionary,
    tokens: list[tuple[np.ndarray, ...]] | None = None,
) -> tuple[Found, np.ndarray]:
    """Dictionary terms (whole words), cue-introduced names and month-name dates; and
    where a URL may start (the words http, https and www), for ``find_emails_urls``.
    ``tokens`` receives the words of the batch (see ``WordIndex.matches``)."""
    matcher = dictionary.matcher
    if folded.isascii():  # the padded batch read as bytes (8 spare), from the fold's bytes
        padded = b"".join((b" ", ascii_projection(folded), b" ", bytes(8)))
        last, ids = matcher.index.matches(padded, tokens, spare=8)
    else:
        last, ids = _automaton_matches(matcher, f" {folded} ", tokens)
    if last.size == 0:
        return (_EMPTY, _EMPTY, _EMPTY), _EMPTY
    # " term " ends at padded index `last`; its leading space sits at last - length + 1,
    # which is the term's start in the original text; its end (exclusive) is last - 1.
    starts = last - matcher.lengths[ids] + 1
    ends = last - 1
    codes = matcher.codes[ids]
    plain = codes >= 0
    if plain.all():
        return (starts, ends, codes), _EMPTY
    special = np.flatnonzero(~plain)
    extra, url_starts = _special_hits(
        text, matcher, special, starts[special], ends[special], ids[special]
    )
    found = (
        np.concatenate((starts[plain], extra[0])),
        np.concatenate((ends[plain], extra[1])),
        np.concatenate((codes[plain], extra[2])),
    )
    return found, url_starts


def _automaton_matches(
    matcher: WordMatcher, padded: str, tokens: list[tuple[np.ndarray, ...]] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """End index in ``padded`` and word number of every match of " word ", ordered by end
    and longest first. ASCII words go through the word index (``regions``), over the
    text with every other character read as '?' (which no folded word holds, so a word
    with such a character matches no ASCII word); the few other words through their own
    automaton."""
    if padded.isascii():
        return matcher.index.matches(padded.encode("ascii"), tokens)
    last, ids = matcher.index.matches(ascii_projection(padded), tokens)
    if matcher.other is None:
        return last, ids
    flat = np.fromiter(itertools.chain.from_iterable(matcher.other.iter(padded)), dtype=np.int64)
    if flat.size == 0:
        return last, ids
    last = np.concatenate((last, flat[0::2]))
    ids = np.concatenate((ids, flat[1::2]))
    order = end_order(last, matcher.lengths[ids])
    return last[order], ids[order]


#: What a context word's entry asks for.
_DICT, _MONTH, _TITLE, _RELATION, _HTTP, _WWW = range(6)
_EntryTable = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


#: ``_entry_table`` per matcher, held weakly: a cache that kept the matcher (at a million
#: persons its word tuple and index, some hundreds of MB) alive after its scan would
#: carry that memory into every later stage of a run.
_ENTRY_TABLES: weakref.WeakKeyDictionary[WordMatcher, _EntryTable] = weakref.WeakKeyDictionary()


def _entry_table(matcher: WordMatcher) -> _EntryTable:
    """The entries of the context words as arrays: per word number its first entry and
    entry count; per entry its category and rule code (made once per matcher)."""
    table = _ENTRY_TABLES.get(matcher)
    if table is None:
        table = _ENTRY_TABLES[matcher] = _make_entry_table(matcher)
    return table


def _make_entry_table(matcher: WordMatcher) -> _EntryTable:
    first = np.zeros(matcher.lengths.size, dtype=np.int64)
    count = np.zeros(matcher.lengths.size, dtype=np.int64)
    cats: list[int] = []
    codes: list[int] = []
    for i, entries in matcher.special.items():
        first[i], count[i] = len(cats), len(entries)
        for kind, rule in entries:
            if rule == URL_START:
                cat, code = (_WWW if kind == "www" else _HTTP), -1
            elif rule.startswith("dictionary:"):
                cat, code = _DICT, dict_code(kind)
            elif rule == "month":
                cat, code = _MONTH, _DATE_CODE
            else:
                cat, code = (_TITLE if rule[4:] in _TITLES else _RELATION), CODE[(kind, rule)]
            cats.append(cat)
            codes.append(code)
    return first, count, np.asarray(cats, dtype=np.int64), np.asarray(codes, dtype=np.int64)


def _special_hits(
    text: str,
    matcher: WordMatcher,
    where: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    ids: np.ndarray,
) -> tuple[Found, np.ndarray]:
    """Hits of the words that need a look at their context, and the starts of the URL
    words (those of http and https first, then those of www, each in text order). The
    hits keep the order of the matches (and of a word's entries), which decides ties
    between equal spans."""
    first, count, cats, codes = _entry_table(matcher)
    n = count[ids]
    pair = np.repeat(np.arange(ids.size), n)  # one row per (match, entry)
    j = np.arange(pair.size) - np.repeat(np.cumsum(n) - n, n)
    entry = first[ids[pair]] + j
    cat, code, key = cats[entry], codes[entry], where[pair] * _MAX_ENTRIES + j
    urls = np.concatenate([np.sort(starts[pair[cat == c]]) for c in (_HTTP, _WWW)])
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # row, start, end
    rows = np.flatnonzero(cat == _DICT)
    out.append((rows, starts[pair[rows]], ends[pair[rows]]))
    rows = np.flatnonzero(cat == _MONTH)
    if rows.size:
        at = pair[rows]
        which, s, e = _listed([_month_date(text, a, b) for a, b in _pairs(starts[at], ends[at])])
        out.append((rows[which], s, e))
    rows = np.flatnonzero((cat == _TITLE) | (cat == _RELATION))
    if rows.size:
        which, s, e = _cue_hits(text, ends[pair[rows]], cat[rows] == _TITLE)
        out.append((rows[which], s, e))
    hit_rows = np.concatenate([r for r, _, _ in out])
    rank = np.argsort(key[hit_rows], kind="stable")
    hits = (
        np.concatenate([s for _, s, _ in out])[rank],
        np.concatenate([e for _, _, e in out])[rank],
        code[hit_rows][rank],
    )
    return hits, urls


def _pairs(starts: np.ndarray, ends: np.ndarray) -> list[tuple[int, int]]:
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def _listed(spans: list[tuple[int, int] | None]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(which, start, end) of the spans that are not None."""
    which = [i for i, span in enumerate(spans) if span is not None]
    kept = [span for span in spans if span is not None]
    return (
        np.asarray(which, dtype=np.int64),
        np.fromiter((s for s, _ in kept), np.int64, len(kept)),
        np.fromiter((e for _, e in kept), np.int64, len(kept)),
    )


def _cue_hits(
    text: str, ends: np.ndarray, title: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The names after cue words ending at ``ends`` (titles where ``title``): with numpy
    (``cues``), by regex for the few it leaves (long names, non-ASCII characters)."""
    which, start, end, rest = cues.cue_names(cues.projection(text), ends, title)
    if rest.size:
        pairs = zip(ends[rest].tolist(), title[rest].tolist(), strict=True)
        more = _listed([_cue_name(text, e, t) for e, t in pairs])
        which = np.concatenate((which, rest[more[0]]))
        start = np.concatenate((start, more[1]))
        end = np.concatenate((end, more[2]))
    return which, start, end


def _cue_name(text: str, end: int, title: bool) -> tuple[int, int] | None:
    """The capitalised name (one or two words) right after a cue word ending at ``end``."""
    m = (_TITLE_NAME if title else _RELATION_NAME).match(text, end)
    if m is None or not m.group(1)[0].isupper():
        return None
    second = m.group(2)
    return m.start(1), m.end(2 if second and second[0].isupper() else 1)


def _month_date(text: str, start: int, end: int) -> tuple[int, int] | None:
    m = _MONTH_FIRST.match(text, start)
    if m:
        return m.start(), m.end()
    window_start = max(0, start - 8)
    before = _DAY_BEFORE.search(text, window_start, start)
    if before and (before.start() == 0 or not text[before.start() - 1].isalnum()):
        after = _MONTH_YEAR.match(text, start)
        if after:
            return before.start(), after.end()
    return None


def _valid_dates(buf: np.ndarray, lo: np.ndarray, hi: np.ndarray, iso: np.ndarray) -> np.ndarray:
    """Which numeric date matches (three digit groups, one separator between them, at
    most ``_DATE_WIDTH`` characters) are calendar-plausible: year-month-day with a year
    1800-2200, or day/month/year either way round; with the same separator twice.

    Read as one (match, character) table, a column per character of the widest date."""
    rows = np.arange(lo.size)
    pos = lo[:, None] + _DATE_COLS
    inside = pos < hi[:, None]
    c = buf[np.minimum(pos, buf.size - 1)].astype(np.int64)
    digit = inside & (c >= 48) & (c <= 57)
    sep = inside & ~digit
    n_sep = np.cumsum(sep, axis=1)
    part = n_sep - sep  # a digit's group: the separators before it
    count = n_sep[:, -1]
    first_sep = c[rows, np.argmax(sep, axis=1)] * (count >= 1)
    last_sep = c[rows, _DATE_WIDTH - 1 - np.argmax(sep[:, ::-1], axis=1)] * (count >= 2)
    value = (c - 48) * digit
    parts = np.zeros((3, lo.size), dtype=np.int64)
    for k in range(3):
        mine = digit & (part == k)
        after = np.cumsum(mine[:, ::-1], axis=1)[:, ::-1] - mine  # its digits after this one
        parts[k] = (value * mine * _POW10[after]).sum(axis=1)
    a, b, c = parts
    ok_iso = (a >= 1800) & (a <= 2200) & (b >= 1) & (b <= 12) & (c >= 1) & (c <= 31)
    ok_num = (a >= 1) & (a <= 31) & (b >= 1) & (b <= 31) & ((a <= 12) | (b <= 12))
    # one separator used throughout, and no decimal number just before ("10.1/4.72",
    # "7.4/40" are lab values, not dates)
    before = buf[np.maximum(lo - 1, 0)]
    before2 = buf[np.maximum(lo - 2, 0)]
    decimal = (lo >= 2) & _DATE_SEP[before] & (before2 >= 48) & (before2 <= 57)
    # a ventilator's settings "10/5/40%" (pressure support, PEEP, oxygen): no date
    percent = buf[np.minimum(hi, buf.size - 1)] == 37
    return np.where(iso, ok_iso, ok_num) & (first_sep == last_sep) & ~decimal & ~percent


def digit_regions(
    text: str, runs: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[str, np.ndarray]:
    """The parts of ``text`` around runs of digits that some digit pattern could match,
    joined by NUL, and the original offset of each character of that string (-1 for a
    NUL).

    A run is digits at most 2 characters apart (no pattern has a wider separator), with
    4 characters of margin before it (letter prefix, '+1 (') and 2 after; overlapping
    margins merge. A merged region is kept only if one of its runs could hold a match:
    5 digits in a row, 3 groups of digits (dates, SSN, IP, phones) or 3 then 4 digits
    (555-1234). So '120/80' or '98.6' are never searched.

    Read as groups of digits in a row (a third as many as digits in notes), not digit
    by digit. ``runs``: those groups (``Words.digit_runs``), when the words have them."""
    raw = np.frombuffer(ascii_projection(text), dtype=np.uint8)
    if runs is None:
        digit = np.zeros(raw.size + 2, dtype=bool)
        np.less_equal(raw, 57, out=digit[1:-1])
        digit[1:-1] &= raw >= 48
        edges = np.flatnonzero(digit[1:] != digit[:-1])
        runs = edges[0::2], edges[1::2]
    g_start, g_end = runs  # each group: first digit, one past its last
    if g_start.size == 0:
        return "", np.empty(0, dtype=np.int64)
    g_len = g_end - g_start
    breaks = np.flatnonzero(g_start[1:] - g_end[:-1] > 2)  # more than 2 characters between
    first = np.concatenate(([0], breaks + 1))  # each run's first and last group
    last = np.concatenate((breaks, [g_len.size - 1]))
    count = np.concatenate(([0], np.cumsum(g_len)))
    keep = count[last + 1] - count[first] >= 4  # digits in the run
    if not keep.any():
        return "", np.empty(0, dtype=np.int64)
    starts = np.maximum(g_start[first[keep]] - 4, 0)
    ends = np.minimum(g_end[last[keep]] + 1, raw.size)
    useful = _useful_runs(g_len, first, last)[keep]
    new = np.concatenate(([True], starts[1:] >= ends[:-1]))  # merge overlapping regions
    heads = np.flatnonzero(new)
    r_start = starts[new]
    r_end = np.maximum.reduceat(ends, heads)
    wanted = np.logical_or.reduceat(useful, heads)
    if not wanted.any():
        return "", np.empty(0, dtype=np.int64)
    r_start, r_end = r_start[wanted], r_end[wanted]
    lengths = r_end - r_start
    total = int(lengths.sum())
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    idx = np.arange(total, dtype=np.int64) + np.repeat(r_start - offsets, lengths)
    out_pos = np.arange(total, dtype=np.int64) + np.repeat(np.arange(1, r_start.size + 1), lengths)
    buf = np.zeros(total + r_start.size, dtype=np.uint8)
    buf[out_pos] = raw[idx]
    orig = np.full(buf.size, -1, dtype=np.int64)
    orig[out_pos] = idx
    return buf.tobytes().decode("ascii"), orig


def _useful_runs(g_len: np.ndarray, first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """Per run of digits (``first``/``last`` index its groups of digits in a row, of
    lengths ``g_len``): does it hold 5 digits in a row, 3 groups of digits, or exactly
    2 groups of at least 3 then at least 4 digits?"""
    n_groups = last - first + 1
    longest = np.maximum.reduceat(g_len, first)
    g1 = g_len[first]
    g2 = g_len[np.minimum(first + 1, g_len.size - 1)]
    return (longest >= 5) | (n_groups >= 3) | ((n_groups == 2) & (g1 >= 3) & (g2 >= 4))


def find_digits(
    text: str, dictionary: ScanDictionary, runs: tuple[np.ndarray, np.ndarray] | None = None
) -> Found:
    """SSNs, phones, numeric dates, IPs, ZIPs, MRN-like codes and numbers of 7 digits or
    more in groups split by single spaces (``207 6796``: an MRN written in groups).
    ``runs``: the text's runs of digits (``Words.digit_runs``), when the words have them."""
    regions, orig = digit_regions(text, runs)
    if not regions:
        return _EMPTY, _EMPTY, _EMPTY
    # the regex runs over the digit regions only, never over the text between them, and
    # once per shape of region, not per match (``digit_shapes``)
    buf = np.frombuffer(regions.encode("ascii"), dtype=np.uint8)
    found = digit_matches(_DIGITS, buf)
    if found.shape[0] == 0:
        return _EMPTY, _EMPTY, _EMPTY
    lo, hi, group = found.T.copy()
    codes = _GROUP_CODE[group]
    date = _IS_DATE_GROUP[group]
    keep = ~date
    if date.any():
        at = np.flatnonzero(date)
        keep[at] = _valid_dates(buf, lo[at], hi[at], group[at] == _ISO_GROUP)
    grouped = np.flatnonzero(group == _GROUPED_GROUP)
    for i in grouped.tolist():  # few: digits in groups split by spaces
        keep[i] = _YEARS.fullmatch(regions[lo[i] : hi[i]]) is None
    if dictionary.digits:
        # only a match with as many digits as some dictionary entry can be one
        count = np.concatenate(([0], np.cumsum((buf >= 48) & (buf <= 57))))
        n_digits = count[hi] - count[lo]
        lengths = dictionary.digit_lengths
        table = np.zeros(int(lengths.max(initial=0)) + 2, dtype=bool)  # by digit count
        table[lengths] = True
        may = table[np.minimum(n_digits, table.size - 1)]
        if 10 in lengths:  # a phone written with its leading 1
            may |= (group == _PHONE_GROUP) & (n_digits == 11)
        at = np.flatnonzero(may & ~date)
        if at.size:
            _look_up_digits(regions, buf, count, lo[at], hi[at], group[at], at, codes, dictionary)
    local = np.flatnonzero(keep & (codes == _LOCAL_PHONE_CODE) & (hi - lo == 8))
    for i in local.tolist():  # few: a local number "555-1234" may be a measure's range
        keep[i] = not _measure_range(text, int(orig[lo[i]]))
    lo, hi = lo[keep], hi[keep]
    return orig[lo], orig[hi - 1] + 1, codes[keep]


#: Words before a local phone's shape that make it a measure's range ("VT 900-1500",
#: "SVR in the 900-1300", "tidal volumes 950-1000").
_BEFORE_RANGE = re.compile(
    r"(?i)(?:\b(?:vt|tv|svr|svri|pvr|hr|rr|bp|map|volumes?|vols?|the|between|"
    r"range|ranging|approx|ci|co|plt|platelets|wbc|uop|uo|intake|output|total)"
    r"[\s:=]*|/)$"
)


def _measure_range(text: str, start: int) -> bool:
    """Whether the local phone shape at ``start`` is a range of a measure: a measure word
    or a slash comes right before it."""
    return _BEFORE_RANGE.search(text, max(0, start - 16), start) is not None


def _look_up_digits(
    regions: str,
    buf: np.ndarray,
    count: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    group: np.ndarray,
    at: np.ndarray,
    codes: np.ndarray,
    dictionary: ScanDictionary,
) -> None:
    """Set ``codes[at]`` to the dictionary code of each match whose digits (those of a
    phone of 11 starting with 1 without it) are an entry: read as numbers ``10 ** n +
    value`` and searched in ``dictionary.digit_table`` at once; longer ones by dict."""
    keys, key_codes, longer = dictionary.digit_table
    digit_at = np.flatnonzero((buf >= 48) & (buf <= 57))
    first, n = count[lo], count[hi] - count[lo]
    phone1 = (group == _PHONE_GROUP) & (n == 11)
    lead = np.flatnonzero(phone1)
    drop = lead[buf[digit_at[first[lead]]] == 49]  # a leading 1 is dropped
    first[drop] += 1
    n[drop] -= 1
    short = np.flatnonzero(n <= _MAX_NUMBER_DIGITS)
    if short.size and keys.size:
        # a (match, digit) table: the k-th digit of each match weighs 10 ** (n - 1 - k)
        size = n[short, None]
        k = np.arange(int(size.max()))
        d = buf[digit_at[np.minimum(first[short, None] + k, digit_at.size - 1)]] - 48
        weight = _POW10[np.maximum(size - 1 - k, 0)] * (k < size)
        value = _POW10[size[:, 0]] + (d * weight).sum(axis=1)  # 10 ** n + value
        found = np.minimum(np.searchsorted(keys, value), keys.size - 1)
        hit = keys[found] == value
        codes[at[short[hit]]] = key_codes[found[hit]]
    if longer:
        for i in np.flatnonzero(n > _MAX_NUMBER_DIGITS).tolist():  # few: very long numbers
            digits = regions[int(lo[i]) : int(hi[i])].translate(_KEEP_DIGITS)
            if phone1[i] and digits[0] == "1":
                digits = digits[1:]
            kind = longer.get(digits)
            if kind is not None:
                codes[at[i]] = dict_code(kind)


def _codes(text: str) -> np.ndarray:
    """One byte per character, a non-ASCII one read as '?' (``ascii_projection``): the
    e-mail reader compares characters with ASCII ones only ('@', '.', '_', '+', '-',
    the folded space), which no non-ASCII character is, so it reads no code points."""
    return np.frombuffer(ascii_projection(text), dtype=np.uint8)


def _local_parts(chars: np.ndarray, folded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each '@' of the text (``chars``: its ``_codes``) and where the local part before
    it starts: the letters, digits and . _ + - just before it, at most ``_LOCAL_MAX`` (a
    letter or digit is a character that does not fold to a space)."""
    ats = np.flatnonzero(chars == 64)
    cols = ats[:, None] + np.arange(-_LOCAL_MAX, 0)
    inside = cols >= 0
    cols = np.maximum(cols, 0)
    c = chars[cols]
    ok = inside & ((folded[cols] != 32) | (c == 46) | (c == 95) | (c == 43) | (c == 45))
    back = ok[:, ::-1]
    run = np.where(back.all(axis=1), _LOCAL_MAX, np.argmin(back, axis=1))
    return ats, ats - run


def _domain_ends(chars: np.ndarray, folded: np.ndarray, ats: np.ndarray) -> np.ndarray:
    """Where the e-mail domain after each '@' at ``ats`` ends, as ``_EMAIL`` reads it:
    runs of letters, digits, _ and - joined by single full stops, at least two runs,
    the last ending before anything else (or a full stop not followed by a run); -1
    where there is no such domain, -2 where it runs past ``_DOMAIN_WINDOW`` (left to
    the regex)."""
    cols = ats[:, None] + np.arange(1, _DOMAIN_WINDOW + 2)
    inside = cols < chars.size
    cols = np.minimum(cols, chars.size - 1)
    c = chars[cols]
    word = inside & ((folded[cols] != 32) | (c == 95) | (c == 45))
    dot = inside & (c == 46)
    stop = ~(word[:, :-1] | (dot[:, :-1] & word[:, 1:]))  # where the domain must end
    end = np.argmax(stop, axis=1)
    links = (dot[:, :-1] & (end[:, None] > _DOMAIN_COLS)).sum(axis=1)
    ok = word[:, 0] & (links >= 1)
    return np.where(stop.any(axis=1), np.where(ok, ats + 1 + end, -1), -2)


def find_emails_urls(text: str, folded: str, url_starts: np.ndarray) -> Found:
    """E-mail addresses (from each '@': the local part read backwards, the domain
    forwards, with numpy) and URLs (from the starts of the words http, https and www
    found by ``find_words``)."""
    xs: list[int] = []
    xe: list[int] = []
    xc: list[int] = []
    if "@" in text:
        chars, fchars = _codes(text), _codes(folded)
        ats, los = _local_parts(chars, fchars)
        local = los < ats
        ats, los = ats[local], los[local]
        ends = _domain_ends(chars, fchars, ats)
        for i in np.flatnonzero(ends == -2).tolist():  # few: a domain of 60 characters
            m = _EMAIL.match(text, int(los[i]), min(len(text), int(ats[i]) + 256))
            ends[i] = m.end() if m is not None else -1
        found = ends >= 0
        xs, xe = los[found].tolist(), ends[found].tolist()
        xc = [_EMAIL_CODE] * len(xs)
    for i in url_starts.tolist():
        m = _URL.match(text, i)
        if m:
            end = m.end()
            while end > m.start() and text[end - 1] in _URL_TRAIL:
                end -= 1
            xs.append(m.start())
            xe.append(end)
            xc.append(_URL_CODE)
    return _arrays(xs, xe, xc)
