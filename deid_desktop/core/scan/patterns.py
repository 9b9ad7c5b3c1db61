"""The finders run over one batch of notes joined by NOTE_SEP.

Each finder returns candidate hits as (start, -end, priority, kind, rule) with offsets in
the batch text (the negated end makes a plain sort put the longest span first).
Priority breaks ties on the same span: dictionary 0, cue 1, pattern 2.

- words (dictionary terms, cue words, month words): one Aho-Corasick pass over the
  folded, space-padded text, so every match is a whole word;
- digits (SSN, phone, dates, IP, ZIP, MRN-like codes): numpy finds the few regions dense
  in digits, and one exact regex runs over those regions only;
- e-mails and URLs: located by '@' and 'http'/'www' literals, then matched exactly.
"""

from __future__ import annotations

import re

import numpy as np

from deid_desktop.core.scan.dictionary import ScanDictionary
from deid_desktop.core.scan.fold import ascii_projection

Candidate = tuple[int, int, int, str, str]
DICT, CUE, PATTERN = 0, 1, 2

_DIGITS = re.compile(
    r"""(?<![0-9A-Za-z])(?:
      (?P<ssn>\d{3}-\d{2}-\d{4})
    | (?P<date_iso>\d{4}[-/.]\d{1,2}[-/.]\d{1,2})
    | (?P<ip>\d{1,3}(?:\.\d{1,3}){3})
    | (?P<date_num>\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2}))
    | (?P<phone>(?:\+?1[ .-]?)?(?:\(\d{3}\)[ ]?|\d{3}[ .-]?)\d{3}[ .-]?\d{4}|\d{3}[.-]\d{4})
    | (?P<zip>\d{5}(?:-\d{4})?)
    | (?P<mrn>(?:[A-Za-z]{1,3}[-\#]?)?\d{6,})
    )(?![0-9A-Za-z])""",
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
}
_RULE = {g: f"pattern:{g.split('_')[0]}" for g in _KIND}
_DICT_RULE = {k: f"dictionary:{k.lower()}" for k in ("NAME", "MRN", "PHONE", "EMAIL", "SSN", "ID")}
_KEEP_DIGITS = {c: None for c in range(128) if not chr(c).isdigit()}
_NUM = re.compile(r"\d+")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'\x00]+", re.I)
_URL_TRAIL = ".,;:!?)]}'\""
_TITLE_NAME = re.compile(r"\.?[ \t]+([^\W\d_][\w'’-]*)(?:[ \t]+([^\W\d_][\w'’-]*))?")
_RELATION_NAME = re.compile(r"[,:]?[ \t]+([^\W\d_][\w'’-]*)(?:[ \t]+([^\W\d_][\w'’-]*))?")
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr"})
_MONTH_FIRST = re.compile(r"[^\W\d_]+\.?[ \t]+\d{1,2}(?:st|nd|rd|th)?,?[ \t]+\d{4}(?!\d)", re.I)
_DAY_BEFORE = re.compile(r"(\d{1,2})(?:st|nd|rd|th)?[ \t]+$", re.I)
_MONTH_YEAR = re.compile(r"[^\W\d_]+\.?,?[ \t]+\d{4}(?!\d)", re.I)


def find_words(text: str, folded: str, dictionary: ScanDictionary) -> list[Candidate]:
    """Dictionary terms (whole words), cue-introduced names and month-name dates."""
    raw = list(dictionary.automaton.iter(f" {folded} "))
    # payload: (padded length, kind, rule, entries); kind is None for cue/month words.
    # The leading space of " term " sits at padded index e - length + 1, which is the
    # term's start in the original text; its end (exclusive) is e - 1.
    out: list[Candidate] = [
        (e - p[0] + 1, 1 - e, DICT, p[1], p[2]) for e, p in raw if p[1] is not None
    ]
    for e, p in raw:
        if p[1] is not None:
            continue
        start, end = e - p[0] + 1, e - 1
        for kind, rule in p[3]:
            if rule.startswith("dictionary:"):
                out.append((start, -end, DICT, kind, rule))
            elif rule == "month":
                hit = _month_date(text, start, end)
                if hit:
                    out.append((hit[0], -hit[1], PATTERN, "DATE", "pattern:date"))
            else:
                hit = _cue_name(text, start, end, rule[4:])
                if hit:
                    out.append((hit[0], -hit[1], CUE, "NAME", rule))
    return out


def _cue_name(text: str, start: int, end: int, word: str) -> tuple[int, int] | None:
    pattern = _TITLE_NAME if word in _TITLES else _RELATION_NAME
    m = pattern.match(text, end)
    if not m or not m.group(1)[0].isupper():
        return None
    last = 2 if m.group(2) and m.group(2)[0].isupper() else 1
    return m.start(1), m.end(last)


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


def _valid_date(kind: str, s: str) -> bool:
    parts = [int(p) for p in _NUM.findall(s)]
    if kind == "date_iso":
        y, m, d = parts
        return 1800 <= y <= 2200 and 1 <= m <= 12 and 1 <= d <= 31
    a, b, _ = parts
    return 1 <= a <= 31 and 1 <= b <= 31 and (a <= 12 or b <= 12)


def digit_regions(text: str) -> tuple[str, np.ndarray, list[list[int]]]:
    """The parts of ``text`` around runs of 4+ digits (gaps of up to 2 characters), joined
    by NUL, the original offset of each character of that string (-1 for a NUL), and the
    [start, end) of each region in that string."""
    raw = np.frombuffer(ascii_projection(text), dtype=np.uint8)
    pos = np.flatnonzero((raw >= 48) & (raw <= 57))
    if pos.size == 0:
        return "", np.empty(0, dtype=np.int64), []
    breaks = np.flatnonzero(np.diff(pos) > 3)
    first = np.concatenate(([0], breaks + 1))
    last = np.concatenate((breaks, [pos.size - 1]))
    keep = (last - first + 1) >= 4
    if not keep.any():
        return "", np.empty(0, dtype=np.int64), []
    starts = np.maximum(pos[first[keep]] - 4, 0)
    ends = np.minimum(pos[last[keep]] + 2, raw.size)
    new = np.concatenate(([True], starts[1:] >= ends[:-1]))  # merge overlapping regions
    r_start = starts[new]
    r_end = np.maximum.reduceat(ends, np.flatnonzero(new))
    lengths = r_end - r_start
    total = int(lengths.sum())
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    idx = np.arange(total, dtype=np.int64) + np.repeat(r_start - offsets, lengths)
    out_pos = np.arange(total, dtype=np.int64) + np.repeat(np.arange(1, r_start.size + 1), lengths)
    buf = np.zeros(total + r_start.size, dtype=np.uint8)
    buf[out_pos] = raw[idx]
    orig = np.full(buf.size, -1, dtype=np.int64)
    orig[out_pos] = idx
    bounds = np.stack((offsets + np.arange(1, r_start.size + 1), offsets + lengths))
    bounds[1] += np.arange(1, r_start.size + 1)
    return buf.tobytes().decode("ascii"), orig, bounds.T.tolist()


def find_digits(text: str, dictionary: ScanDictionary) -> list[Candidate]:
    """SSNs, phones, numeric dates, IPs, ZIPs and MRN-like codes."""
    regions, orig, bounds = digit_regions(text)
    if not regions:
        return []
    # one search per region (a region usually holds one item): the regex engine is only
    # run inside the regions, never over the long stretches between them
    search = _DIGITS.search
    matches = []
    for lo, hi in bounds:
        m = search(regions, lo, hi)
        while m is not None:
            matches.append(m)
            m = search(regions, m.end(), hi)
    if not matches:
        return []
    starts = orig[np.fromiter((m.start() for m in matches), np.int64, len(matches))].tolist()
    ends = (orig[np.fromiter((m.end() for m in matches), np.int64, len(matches)) - 1] + 1).tolist()
    lookup = dictionary.digits
    out: list[Candidate] = []
    for m, start, end in zip(matches, starts, ends, strict=True):
        group = m.lastgroup or ""
        value = m.group()
        if group[0] == "d" and not _valid_date(group, value):
            continue
        kind = None
        if lookup and group[0] != "d":
            digits = value.translate(_KEEP_DIGITS)
            if group == "phone" and len(digits) == 11 and digits[0] == "1":
                digits = digits[1:]
            kind = lookup.get(digits)
        if kind is not None:
            out.append((start, -end, DICT, kind, _DICT_RULE[kind]))
        else:
            out.append((start, -end, PATTERN, _KIND[group], _RULE[group]))
    return out


def find_emails_urls(text: str, folded: str) -> list[Candidate]:
    out: list[Candidate] = []
    seen_end = -1
    at = text.find("@")
    while at != -1:
        if at >= seen_end:
            lo = max(0, at - 64)
            for m in _EMAIL.finditer(text, lo, min(len(text), at + 256)):
                if m.start() <= at < m.end():
                    out.append((m.start(), -m.end(), PATTERN, "EMAIL", "pattern:email"))
                    seen_end = m.end()
                    break
        at = text.find("@", at + 1)
    padded = f" {folded}"
    for literal in (" http", " www "):
        i = padded.find(literal)
        while i != -1:
            m = _URL.match(text, i)
            if m:
                end = m.end()
                while end > m.start() and text[end - 1] in _URL_TRAIL:
                    end -= 1
                out.append((m.start(), -end, PATTERN, "URL", "pattern:url"))
            i = padded.find(literal, i + 1)
    return out
