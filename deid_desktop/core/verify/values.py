"""The gate's value checks: no released column looks like an identifier, whatever its tag.

The other checks trust the tags: a column tagged clinical is released as it is. When a
user re-tags ``mrn``, ``phone``, ``last_name`` or ``zip`` as clinical, nothing else
notices. This check reads the released values themselves, with the tagger's own value
evidence (``core.tagging.values.profile_values``: an even sample of at most 2,000 values
per column, so a million-row column costs what a two-thousand-row one does) and the
tagger's own tests and thresholds (``core.tagging.decide``). A released column fails when
its sampled values:

* are half or more e-mail addresses, SSNs, US phone numbers, URLs, IP or MAC addresses
  or UUID-style codes (the tagger's "values say identifier" rule);
* are mostly common given names or surnames over at least ten different names (a
  category such as race "White" or a visit type "Day 7" has too few);
* are record-number codes (letters and digits, like ``SYN-1234567``) that rarely
  repeat, or codes of unknown meaning that are nearly all different;
* are 5-digit ZIP codes (Safe Harbor and linkable; the limited data set keeps the ZIP):
  half or more when the column's name says postal code, else when the tagger would
  suggest the ZIP role (95% or more, and a name that gives the column no other meaning:
  a column of 5-digit incomes named ``INCOME`` is not read as ZIPs, as the tagger does
  not);
* or would be suggested as direct by the tagger from the values alone (the column's
  name is not read: ``dob_year`` is judged by its years).

The release's own ID column (subject ID or link key) is not read; in the limited data
set neither are the columns it keeps by design (ZIP, town or city, state:
``pathways.limited.lds_keeps``). The detail names columns, the kind of identifier found,
shares and counts; never a value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from deid_desktop.core.model import (
    ColumnClass,
    Extract,
    Pathway,
    Project,
    Release,
    Role,
)
from deid_desktop.core.pathways.limited import FINER_WORDS, PLACE_WORDS, lds_keeps, name_words
from deid_desktop.core.tagging.colnames import match_name, parse_column_name
from deid_desktop.core.tagging.decide import (
    ID_DISTINCT,
    MIN_RATIO_SAMPLE,
    STRONG,
    code_sentence,
    decide_column,
    encoded_sentence,
    encoded_text,
    hex_digests,
    looks_like_names,
    names_sentence,
    pct,
    shifted_names,
    shifted_sentence,
    strongest_identifier,
    unique_codes,
    values_are_dates,
)
from deid_desktop.core.tagging.values import SAMPLE_SIZE, ValueProfile, profile_values
from deid_desktop.core.verify.base import BLOCKING, Check, Finding, VerifyContext
from deid_desktop.core.verify.zips import names_a_postal_code

#: The kinds of identifier a column can be found to hold, as named in the detail.
NAMES = "person names"
RECORD_CODES = "record-number codes"
UNIQUE_CODES = "unique codes (like record numbers)"
DIGESTS = "hexadecimal or base64 digests or tokens (a hash of an ID or a name)"
ENCODED = "text written in base64 or base32 (anyone can decode it)"
SHIFTED = "person names in a letter-shift cipher (such as ROT13)"
ZIPS = "5-digit ZIP codes"
DIRECT_FROM_VALUES = "direct identifier (tagger, from values alone)"

KeepsFn = Callable[[Project, str, str], bool]


@dataclass(frozen=True)
class Look:
    """What a column's sampled values look like: a kind, its share, and the tagger's
    plain sentence (shares and counts only)."""

    kind: str
    share: float
    reason: str


def read_as_zip(column: str, p: ValueProfile, *, is_person: bool) -> bool:
    """Whether ZIP-shaped values are ZIP codes: the name says postal code, or the tagger
    would give the column the ZIP role from its name and values (with no usable name:
    95% or more ZIP-shaped values; ``INCOME`` is a quasi-identifier, not a ZIP)."""
    if names_a_postal_code(column):
        return True
    draft = decide_column(match_name(parse_column_name(column)), p, is_person=is_person)
    # A name that says direct identifier (``residence``, ``address``) with ZIP-shaped
    # values: the ZIP part of an address, released under a quasi or clinical tag.
    return draft.role is Role.ZIP or draft.cls is ColumnClass.DIRECT


def identifier_look(p: ValueProfile, *, column: str, is_person: bool, zips: bool) -> Look | None:
    """The identifier a column's value profile shows, or None. ``column`` is read only
    to tell ZIP codes from other 5-digit numbers; ``zips``: whether 5-digit ZIP codes
    count (not in a limited data set)."""
    if p.empty:
        return None
    ident = strongest_identifier(p, STRONG)
    if ident is not None:
        _cat, what, share = ident
        return Look(what, share, f"{pct(share)} of sampled values look like {what}")
    if looks_like_names(p):
        return Look(NAMES, p.person_name_share, names_sentence(p))
    if encoded_text(p):
        return Look(ENCODED, p.share("encoded_text"), encoded_sentence(p))
    if shifted_names(p):
        return Look(SHIFTED, p.shifted_name_share, shifted_sentence(p))
    dates = values_are_dates(p)
    if not dates and hex_digests(p):
        return Look(DIGESTS, p.share("hex"), code_sentence(p))
    if not dates and unique_codes(p):
        return Look(UNIQUE_CODES, p.distinct_ratio, code_sentence(p))
    records = p.share("record_code")
    if (
        not dates
        and records >= STRONG
        and p.sampled >= MIN_RATIO_SAMPLE
        and p.distinct_ratio >= ID_DISTINCT
    ):
        return Look(
            RECORD_CODES,
            records,
            f"{pct(records)} of sampled values look like record-number codes (letters and "
            f"digits), {pct(p.distinct_ratio)} of them distinct",
        )
    if zips and p.share("zip") >= STRONG and read_as_zip(column, p, is_person=is_person):
        return Look(
            ZIPS, p.share("zip"), f"{pct(p.share('zip'))} of sampled values look like ZIP codes"
        )
    draft = decide_column((), p, is_person=is_person)
    if draft.cls is ColumnClass.DIRECT:
        return Look(DIRECT_FROM_VALUES, 1.0, "; ".join(draft.evidence))
    return None


def _keeps_nothing(project: Project, table: str, column: str) -> bool:
    return False


def _zip_role(project: Project, table: str, column: str) -> bool:
    try:
        spec = project.table(table)
    except KeyError:
        return False
    tag = spec.by_role(Role.ZIP)
    return tag is not None and tag.name == column


def _lds_keeps(project: Project, table: str, column: str) -> bool:
    """The limited data set's own allowed geography (a direct column it keeps, or any
    column whose name says town, city or state and nothing finer: city names read as
    surnames otherwise), and the column tagged ZIP."""
    words = name_words(column)
    allowed = bool(words & PLACE_WORDS) and not words & FINER_WORDS
    return lds_keeps(project, table, column) or _zip_role(project, table, column) or allowed


def column_looks(
    extract: Extract,
    release: Release,
    project: Project,
    *,
    zips: bool,
    keeps: KeepsFn = _keeps_nothing,
) -> tuple[dict[str, Look], dict[str, int], list[str]]:
    """Per released column ("table.column"): what it looks like, if an identifier; the
    number of values sampled per column read; the columns not read because kept."""
    found: dict[str, Look] = {}
    sampled: dict[str, int] = {}
    kept: list[str] = []
    for table, frame in release.tables.items():
        is_person = table == extract.person.name
        for column in frame.columns:
            if column == release.id_column:
                continue
            where = f"{table}.{column}"
            if keeps(project, table, column):
                kept.append(where)
                continue
            profile = profile_values(frame[column])
            sampled[where] = profile.sampled
            look = identifier_look(profile, column=column, is_person=is_person, zips=zips)
            if look is not None:
                found[where] = look
    return found, sampled, sorted(kept)


def _finding(
    found: dict[str, Look], sampled: dict[str, int], kept: list[str], release: Release
) -> Finding:
    columns = sorted(found)
    detail: dict[str, object] = {
        "columns": columns,
        "found": {
            c: {
                "kind": found[c].kind,
                "share": round(found[c].share, 3),
                "sampled": sampled[c],
                "reason": found[c].reason,
            }
            for c in columns
        },
        "columns_read": len(sampled),
        "sample_per_column_at_most": SAMPLE_SIZE,
        "not_read": [release.id_column, *kept],
    }
    return Finding(not columns, len(columns), detail)


def check_no_identifier_columns(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    found, sampled, kept = column_looks(extract, release, project, zips=True)
    return _finding(found, sampled, kept, release)


def check_lds_no_identifier_columns(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    found, sampled, kept = column_looks(extract, release, project, zips=False, keeps=_lds_keeps)
    return _finding(found, sampled, kept, release)


_KINDS = (
    "half or more e-mail addresses, SSNs, US phone numbers, URLs, IP or MAC addresses "
    "or UUID-style codes; mostly common given names or surnames (10 or more different "
    "names); record-number codes that rarely repeat or unique codes"
)

CHECKS: tuple[Check, ...] = (
    Check(
        "no_identifier_values",
        "No released column looks like an identifier",
        "45 CFR 164.514(b)(2)(i)(A)-(R)",
        BLOCKING,
        "Whatever its tag, no released column (except the release's own ID) holds values "
        f"that look like identifiers in a sample of up to {SAMPLE_SIZE:,} values: {_KINDS}; "
        "5-digit ZIP codes (half or more in a column named for a postal code, 95% or more "
        "in a column whose name gives it no other meaning); or values the tagger would "
        "suggest as direct without reading the column's name.",
        check_no_identifier_columns,
        frozenset({Pathway.SAFE_HARBOR, Pathway.LINKABLE}),
    ),
    Check(
        "lds_no_identifier_values",
        "No released column looks like an identifier",
        "45 CFR 164.514(e)(2)",
        BLOCKING,
        "Whatever its tag, no released column (except the subject ID and the ZIP, town or "
        "city and state the limited data set keeps) holds values that look like "
        f"identifiers in a sample of up to {SAMPLE_SIZE:,} values: {_KINDS}; or values the "
        "tagger would suggest as direct without reading the column's name.",
        check_lds_no_identifier_columns,
        frozenset({Pathway.LIMITED_DATA_SET}),
    ),
)
