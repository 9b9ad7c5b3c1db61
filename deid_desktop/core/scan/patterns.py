"""The finders run over one batch of notes joined by NOTE_SEP.

Each finder returns candidate hits as three int arrays: start, end (offsets in the batch
text) and rule code (``rules.RULES``); the engine ranks them by ``rules.PRIORITY``.

- words (dictionary terms, cue words, month words): one Aho-Corasick pass over the
  folded, space-padded text, so every match is a whole word; offsets are computed for
  all matches at once, and only cue and month words get a look at their context;
- digits (SSN, phone, dates, IP, ZIP, MRN-like codes): numpy finds the few regions dense
  in digits, and one exact regex runs over those regions only;
- e-mails and URLs: located by '@' and 'http'/'www' literals, then matched exactly.
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from deid_desktop.core.scan.dictionary import ScanDictionary
from deid_desktop.core.scan.fold import ascii_projection
from deid_desktop.core.scan.rules import CODE, dict_code, pattern_code

Found = tuple[np.ndarray, np.ndarray, np.ndarray]  # start, end, rule code
_EMPTY = np.empty(0, dtype=np.int64)

_DIGITS = re.compile(  # the lookahead first lets the engine reject most positions early
    r"""(?<![0-9A-Za-z])(?=[(+0-9A-Za-z])(?:
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
_CODE_OF_GROUP = {g: pattern_code(k, f"pattern:{g.split('_')[0]}") for g, k in _KIND.items()}
_DATE_CODE = pattern_code("DATE", "pattern:date")
_EMAIL_CODE = pattern_code("EMAIL", "pattern:email")
_URL_CODE = pattern_code("URL", "pattern:url")
_KEEP_DIGITS = {c: None for c in range(128) if not chr(c).isdigit()}
_NUM = re.compile(r"\d+")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_EMAIL_PUNCT = frozenset("._+-")
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


def find_words(text: str, folded: str, dictionary: ScanDictionary) -> Found:
    """Dictionary terms (whole words), cue-introduced names and month-name dates."""
    matcher = dictionary.matcher
    flat = np.fromiter(
        itertools.chain.from_iterable(matcher.automaton.iter(f" {folded} ")), dtype=np.int64
    )
    if flat.size == 0:
        return _EMPTY, _EMPTY, _EMPTY
    last, ids = flat[0::2], flat[1::2]
    # " term " ends at padded index `last`; its leading space sits at last - length + 1,
    # which is the term's start in the original text; its end (exclusive) is last - 1.
    starts = last - matcher.lengths[ids] + 1
    ends = last - 1
    codes = matcher.codes[ids]
    plain = codes >= 0
    if plain.all():
        return starts, ends, codes
    xs: list[int] = []
    xe: list[int] = []
    xc: list[int] = []
    for i in np.flatnonzero(~plain).tolist():
        start, end = int(starts[i]), int(ends[i])
        for kind, rule in matcher.special[int(ids[i])]:
            hit: tuple[int, int] | None = None
            if rule.startswith("dictionary:"):
                hit, code = (start, end), dict_code(kind)
            elif rule == "month":
                hit, code = _month_date(text, start, end), _DATE_CODE
            else:
                hit, code = _cue_name(text, start, end, rule[4:]), CODE[(kind, rule)]
            if hit is not None:
                xs.append(hit[0])
                xe.append(hit[1])
                xc.append(code)
    extra = _arrays(xs, xe, xc)
    return (
        np.concatenate((starts[plain], extra[0])),
        np.concatenate((ends[plain], extra[1])),
        np.concatenate((codes[plain], extra[2])),
    )


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


def digit_regions(text: str) -> tuple[str, np.ndarray]:
    """The parts of ``text`` around runs of 4+ digits (gaps of up to 2 characters), joined
    by NUL, and the original offset of each character of that string (-1 for a NUL)."""
    raw = np.frombuffer(ascii_projection(text), dtype=np.uint8)
    pos = np.flatnonzero((raw >= 48) & (raw <= 57))
    if pos.size == 0:
        return "", np.empty(0, dtype=np.int64)
    breaks = np.flatnonzero(np.diff(pos) > 3)
    first = np.concatenate(([0], breaks + 1))
    last = np.concatenate((breaks, [pos.size - 1]))
    keep = (last - first + 1) >= 4
    if not keep.any():
        return "", np.empty(0, dtype=np.int64)
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
    return buf.tobytes().decode("ascii"), orig


def find_digits(text: str, dictionary: ScanDictionary) -> Found:
    """SSNs, phones, numeric dates, IPs, ZIPs and MRN-like codes."""
    regions, orig = digit_regions(text)
    if not regions:
        return _EMPTY, _EMPTY, _EMPTY
    # the regex runs over the digit regions only, never over the text between them
    matches = list(_DIGITS.finditer(regions))
    lookup = dictionary.digits
    keep: list[int] = []
    codes: list[int] = []
    for i, m in enumerate(matches):
        group = m.lastgroup or ""
        if group[0] == "d":
            if _valid_date(group, m.group()):
                keep.append(i)
                codes.append(_DATE_CODE)
            continue
        kind = None
        if lookup:
            digits = m.group().translate(_KEEP_DIGITS)
            if group == "phone" and len(digits) == 11 and digits[0] == "1":
                digits = digits[1:]
            kind = lookup.get(digits)
        keep.append(i)
        codes.append(dict_code(kind) if kind is not None else _CODE_OF_GROUP[group])
    if not keep:
        return _EMPTY, _EMPTY, _EMPTY
    kept = [matches[i] for i in keep]
    lo_idx = np.fromiter((m.start() for m in kept), np.int64, len(kept))
    hi_idx = np.fromiter((m.end() for m in kept), np.int64, len(kept))
    return orig[lo_idx], orig[hi_idx - 1] + 1, np.asarray(codes, dtype=np.int64)


def find_emails_urls(text: str, folded: str) -> Found:
    xs: list[int] = []
    xe: list[int] = []
    xc: list[int] = []
    seen_end = -1
    at = text.find("@")
    while at != -1:
        if at >= seen_end:
            lo, limit = at, max(0, at - 64)
            while lo > limit and (text[lo - 1].isalnum() or text[lo - 1] in _EMAIL_PUNCT):
                lo -= 1
            m = _EMAIL.match(text, lo, min(len(text), at + 256)) if lo < at else None
            if m is not None and m.end() > at:
                xs.append(m.start())
                xe.append(m.end())
                xc.append(_EMAIL_CODE)
                seen_end = m.end()
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
                xs.append(m.start())
                xe.append(end)
                xc.append(_URL_CODE)
            i = padded.find(literal, i + 1)
    return _arrays(xs, xe, xc)
