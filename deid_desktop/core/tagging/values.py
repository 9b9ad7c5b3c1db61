"""What a column's values say: a deterministic sample tested against patterns, vectorised.

At most :data:`SAMPLE_SIZE` non-missing values are read, evenly spaced through the column,
so profiling a million-row column costs about what a two-thousand-row one does. Every
figure here is a share or a count: no value leaves this module.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.io.date_shapes import COMPACT_PATTERN, UNIX_PATTERN
from deid_desktop.core.tagging.encoded import encoded_shares, shifted
from deid_desktop.core.tagging.namelists import given_names, surnames

SAMPLE_SIZE = 2000

#: Cell texts read as "missing" when profiling (case-insensitive, after trimming).
MISSING_TEXTS = ("", "na", "n/a", "nan", "null", "none", "nil", ".", "-", "?")

_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_TIME = r"([T ]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\s*([AaPp][Mm])?\s*(Z|[+-]\d{2}:?\d{2})?)?"

#: name -> (pattern, ignore case, what a value must hold for the pattern to be tried:
#: "digit", "@" or None). Each pattern is valid for both RE2 (pyarrow) and Python's re, and
#: matches the whole trimmed value unless it says otherwise.
PATTERNS: dict[str, tuple[str, bool, str | None]] = {
    "email": (r"^[^@\s]+@[^@\s.]+(\.[^@\s.]+)*\.[^@\s.]{2,}$", False, "@"),
    "phone": (
        r"^(\+?1[-.\s]?)?(\(\d{3}\)[-.\s]?|\d{3}[-.\s])\d{3}[-.\s]\d{4}"
        r"(\s*(x|ext\.?|extension)\s*\d{1,6})?$",
        True,
        "digit",
    ),
    "digits10": (r"^(\+?1)?\d{10}$", False, "digit"),
    "ssn": (r"^\d{3}-\d{2}-\d{4}$", False, "digit"),
    "digits9": (r"^\d{9}$", False, "digit"),
    "url": (r"^((https?|ftp)://|www\.)[^\s]+$", True, None),
    "ipv4": (
        r"^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$",
        False,
        "digit",
    ),
    "ipv6": (
        r"^(([0-9a-f]{1,4}:){7}[0-9a-f]{1,4}|([0-9a-f]{1,4}:)*[0-9a-f]{0,4}::([0-9a-f]{1,4}:)*"
        r"[0-9a-f]{0,4})$",
        True,
        None,
    ),
    "mac": (r"^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$", True, None),
    "uuid": (
        r"^\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$",
        True,
        "digit",
    ),
    # hexadecimal digest or token of 8 characters or more (a hash of an MRN or a name)
    "hex": (r"^[0-9a-f]{8,}$", True, "digit"),
    # letters and digits, like SYN-1234567, S99984236, X19277260X
    "record_code": (
        r"^([A-Za-z]{1,6}[-_/. ]?\d{3,14}([-_/.]?[A-Za-z0-9]{1,4})?|\d{3,14}[-_/.]?[A-Za-z]{1,4})$",
        False,
        "digit",
    ),
    "long_digits": (r"^\d{6,14}$", False, "digit"),
    # one word of letters, digits and separators holding at least one digit: an opaque code
    "code_token": (r"^[A-Za-z0-9_./:#-]*\d[A-Za-z0-9_./:#-]*$", False, "digit"),
    "zip": (r"^\d{5}(-\d{4})?$", False, "digit"),
    # seconds (10 digits) or milliseconds (13) since 1970, 2001-2029 (the gate's shape)
    "unix_time": (rf"^(?:{UNIX_PATTERN})$", False, "digit"),
    # YYYYMM or YYYYMMDD (the gate's column-wide compact dates)
    "compact_date": (rf"^(?:{COMPACT_PATTERN})$", False, "digit"),
    "zip_lost_zero": (r"^\d{4}$", False, "digit"),
    "date": (
        r"^([12]\d{3}-(0?[1-9]|1[0-2])-(0?[1-9]|[12]\d|3[01])" + _TIME + r"|"
        r"[12]\d{3}/(0?[1-9]|1[0-2])/(0?[1-9]|[12]\d|3[01])" + _TIME + r"|"
        r"(0?[1-9]|[12]\d|3[01])[/.-](0?[1-9]|[12]\d|3[01])[/.-](\d{4}|\d{2})" + _TIME + r"|"
        r"\d{1,2}[-\s]?(" + _MONTHS + r")[a-z]*\.?[-\s,]+\d{2,4}" + _TIME + r"|"
        r"(" + _MONTHS + r")[a-z]*\.?\s+\d{1,2},?\s+\d{4}" + _TIME + r")$",
        True,
        "digit",
    ),
    "numeric": (
        r"^([<>]=?|≤|≥)?\s*[+-]?(\d+([.,]\d+)?|\.\d+|\d{1,3}(,\d{3})+(\.\d+)?)([eE][+-]?\d+)?"
        r"\s*%?$",
        False,
        "digit",
    ),
    "integer": (r"^[+-]?\d+$", False, "digit"),
    "decimal": (r"^[+-]?\d*[.,]\d+$", False, "digit"),
    "age": (
        r"^(\d{1,3}(\.\d+)?\s*\+?|(>|>=|≥)\s*\d{2,3}|\d{2,3}\s*(or older|and over|plus|y|yr|yrs|"
        r"years)?)$",
        True,
        "digit",
    ),
    "letters": (r"[A-Za-z]", False, None),  # holds a letter (not a whole-value match)
}

#: Names written in a letter-shift cipher are looked for in columns of at least this many
#: distinct values (a column of names has many; a category's few words are not tried).
SHIFT_DISTINCT = 20
#: ... and of values this long at most on average (a name, not a note).
SHIFT_LENGTH = 40
#: Up to this many distinct values, patterns run in Python (cheaper than compiling RE2).
FEW_DISTINCT = 300
_DIGIT = re.compile(r"[0-9]")


@lru_cache(maxsize=1)
def _compiled() -> dict[str, re.Pattern[str]]:
    return {
        name: re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        for name, (pattern, ignore_case, _needs) in PATTERNS.items()
    }


def _pattern_shares(values: pa.Array, weights: np.ndarray, n: int) -> dict[str, float]:
    """Weighted share of sampled values matching each pattern.

    With few distinct values, Python's precompiled patterns run (RE2 would be compiled on
    each call). Patterns needing a digit or an "@" are skipped when no value has one.
    """
    few = len(values) <= FEW_DISTINCT
    texts: list[str] = values.to_pylist() if few else []
    if few:
        screens = {
            "digit": np.fromiter((_DIGIT.search(t) is not None for t in texts), bool, len(texts)),
            "@": np.fromiter(("@" in t for t in texts), bool, len(texts)),
        }
    else:
        screens = {
            "digit": np.asarray(pc.match_substring_regex(values, r"[0-9]"), dtype=bool),
            "@": np.asarray(pc.match_substring(values, "@"), dtype=bool),
        }
    compiled = _compiled()
    shares: dict[str, float] = {}
    for name, (pattern, ignore_case, needs) in PATTERNS.items():
        if needs is not None and not screens[needs].any():
            shares[name] = 0.0
            continue
        if few:
            regex = compiled[name]
            mask = np.fromiter((regex.search(t) is not None for t in texts), bool, len(texts))
        else:
            matched = pc.match_substring_regex(values, pattern, ignore_case=ignore_case)
            mask = np.asarray(matched, dtype=bool)
        shares[name] = float(weights[mask].sum() / n)
    return shares


def _may_hold_names(shares: dict[str, float]) -> bool:
    """Skip the name look-up for columns of codes, dates and numbers."""
    return (
        shares["letters"] >= 0.3
        and shares["uuid"] < 0.5
        and shares["date"] < 0.8
        and shares["numeric"] < 0.8
    )


@dataclass(frozen=True)
class ValueProfile:
    """Shares and counts from a column's sample. Never a value."""

    rows: int
    non_missing: int  # cells that are not NA (blank texts are counted later, in the sample)
    sampled: int  # values examined (non-blank)
    distinct: int  # distinct among the sampled values
    shares: Mapping[str, float] = field(default_factory=dict)  # pattern -> share of sampled
    mean_length: float = 0.0
    mean_words: float = 0.0
    same_length: float = 0.0  # share of values having the most common length
    given_name_share: float = 0.0  # every word a common given name
    surname_share: float = 0.0  # every word a common surname
    person_name_share: float = 0.0  # every word a common given name or surname
    name_word_share: float = 0.0  # share of all words (2+ letters) that are common names
    distinct_names: int = 0  # how many different listed names occur
    shifted_name_share: float = 0.0  # names once the letters are shifted back (ROT13)

    def share(self, pattern: str) -> float:
        return self.shares.get(pattern, 0.0)

    @property
    def empty(self) -> bool:
        return self.sampled == 0

    @property
    def distinct_ratio(self) -> float:
        return self.distinct / self.sampled if self.sampled else 0.0

    @property
    def was_sampled(self) -> bool:
        """True when not every non-missing value was examined."""
        return self.non_missing > SAMPLE_SIZE


def sample_values(series: pd.Series, size: int = SAMPLE_SIZE) -> tuple[pa.Array, int]:
    """Up to ``size`` non-blank values, evenly spaced through the column, as trimmed text.

    Returns the sample and the number of non-NA cells.
    """
    mask = series.notna().to_numpy(dtype=bool, na_value=False)
    positions = np.flatnonzero(mask)
    non_missing = int(positions.size)
    if non_missing > size:
        positions = positions[np.linspace(0, non_missing - 1, size).round().astype(np.int64)]
    picked = series.iloc[positions]
    if not isinstance(picked.dtype, pd.StringDtype) and picked.dtype != object:
        picked = picked.astype(str)
    try:
        arr = pa.array(picked, type=pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        arr = pa.array(picked.astype(str), type=pa.string(), from_pandas=True)
    arr = pc.utf8_trim_whitespace(arr)
    blank = pc.is_in(pc.utf8_lower(arr), value_set=pa.array(MISSING_TEXTS))
    arr = pc.filter(arr, pc.invert(pc.fill_null(blank, True)))
    return arr, non_missing


def _shifted_name_share(values: pa.Array, weights: np.ndarray, k: int) -> float:
    """The share of values made only of listed names once their letters are shifted
    ``k`` places, when that makes ``SHIFT_DISTINCT`` different names or more (codes such
    as "AB-0012" shift to one name: "ed")."""
    _given, _surname, either, _words, distinct = _name_shares(shifted(values, k), weights)
    return either if distinct >= SHIFT_DISTINCT else 0.0


def _name_shares(values: pa.Array, weights: np.ndarray) -> tuple[float, float, float, float, int]:
    """Shares of values made only of common given names / surnames / either, and the share
    of all words that are names. ``values`` are distinct, ``weights`` their counts. Accents
    are folded and Synthea-style trailing digits ("Milo271") dropped before the look-up.
    Also returns how many different listed names occur (codes such as "AU0001", "AU0002"
    fold to one name, real name columns to many)."""
    n = len(values)
    total_weight = float(weights.sum())
    if n == 0 or total_weight == 0:
        return 0.0, 0.0, 0.0, 0.0, 0
    folded = pc.replace_substring_regex(pc.utf8_normalize(values, "NFKD"), r"\p{Mn}", "")
    folded = pc.replace_substring_regex(pc.utf8_lower(folded), r"[0-9]+", "")
    lists = pc.split_pattern_regex(folded, r"[^a-z]+")
    words = pc.list_flatten(lists)
    parents = np.asarray(pc.list_parent_indices(lists))
    keep = np.asarray(pc.greater_equal(pc.utf8_length(words), 2))
    words = pc.filter(words, pa.array(keep))
    parents = parents[keep]
    if len(words) == 0:
        return 0.0, 0.0, 0.0, 0.0, 0
    # Look each distinct word up once in the cached frozensets.
    distinct_words = pc.unique(words)
    given_set, surname_set = given_names(), surnames()
    listed = distinct_words.to_pylist()
    is_given = np.fromiter((w in given_set for w in listed), dtype=bool, count=len(listed))
    is_surname = np.fromiter((w in surname_set for w in listed), dtype=bool, count=len(listed))
    where = np.asarray(pc.index_in(words, value_set=distinct_words))
    in_given, in_surname = is_given[where], is_surname[where]
    total = np.bincount(parents, minlength=n)
    given = np.bincount(parents, weights=in_given, minlength=n)
    surname = np.bincount(parents, weights=in_surname, minlength=n)
    either = np.bincount(parents, weights=in_given | in_surname, minlength=n)
    name_like = (total >= 1) & (total <= 4)

    def weighted(mask: np.ndarray) -> float:
        return float(weights[mask].sum() / total_weight)

    word_weights = weights[parents]
    return (
        weighted(name_like & (given == total)),
        weighted(name_like & (surname == total)),
        weighted(name_like & (either == total)),
        float(word_weights[in_given | in_surname].sum() / word_weights.sum()),
        int((is_given | is_surname).sum()),
    )


def profile_values(series: pd.Series) -> ValueProfile:
    """Profile one column. Cost is bounded by :data:`SAMPLE_SIZE`, not by the row count.

    Patterns run once per distinct value, weighted by how often it occurs in the sample.
    """
    arr, non_missing = sample_values(series)
    n = len(arr)
    if n == 0:
        return ValueProfile(rows=len(series), non_missing=non_missing, sampled=0, distinct=0)
    counted = pc.value_counts(arr)
    values = counted.field("values")
    weights = np.asarray(counted.field("counts"), dtype=np.float64)

    shares = _pattern_shares(values, weights, n)
    shares.update(encoded_shares(values, weights, n))
    lengths = np.asarray(pc.utf8_length(values), dtype=np.int64)
    spaces = np.asarray(pc.count_substring_regex(values, r"\s+"), dtype=np.float64)
    length_counts = np.bincount(lengths, weights=weights)
    if _may_hold_names(shares):
        given, surname, either, word_share, distinct_names = _name_shares(values, weights)
    else:
        given = surname = either = word_share = 0.0
        distinct_names = 0
    mean_length = float((lengths * weights).sum() / n)
    shifted_names = 0.0
    if (
        either < 0.5
        and len(values) >= SHIFT_DISTINCT
        and shares["letters"] >= 0.8
        and mean_length <= SHIFT_LENGTH
        and shares["code_token"] < 0.2
    ):
        shifted_names = max(_shifted_name_share(values, weights, k) for k in range(1, 26))
    return ValueProfile(
        rows=len(series),
        non_missing=non_missing,
        sampled=n,
        distinct=len(values),
        shares=shares,
        mean_length=mean_length,
        mean_words=float((spaces * weights).sum() / n) + 1.0,
        same_length=float(length_counts.max() / n),
        given_name_share=given,
        surname_share=surname,
        person_name_share=either,
        name_word_share=word_share,
        distinct_names=distinct_names,
        shifted_name_share=shifted_names,
    )
