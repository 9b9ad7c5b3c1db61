"""From evidence to a suggestion: one column's class, role, category and reasons.

Order of protectiveness: direct > free text > date > quasi > clinical. The rules, in the
order they are tried:

1. The name says identifier (``phone``, ``ssn``, ``first_name`` ...) -> direct, whatever
   the values. If the values contradict a checkable name (a ``phone`` column without phone
   numbers) the tag is still direct, marked unsure.
2. The values say identifier (half or more e-mails, SSNs, phone numbers, URLs, IPs, MAC
   addresses or UUIDs) -> direct, whatever the name.
3. The other name hints, most specific first: date, free text, description (free text
   unless the values repeat like a code list), quasi-identifier, clinical, id-like words
   (direct when the values are codes). A column whose values are dates is a date; a
   free-text name over values that are all numbers ("summary_score") gives way.
4. No usable name: values that are mostly common person names -> direct (A); unique codes
   -> direct (R, unsure); long varied text -> free text; ZIP-shaped -> quasi ZIP (unsure);
   numbers -> clinical.
5. Still unknown text: nearly all-distinct values -> direct (R, unsure); too few values to
   judge -> quasi (unsure); in the person table it describes the person -> quasi (unsure);
   in an event table a short repeating list -> clinical; anything between -> free text
   (unsure).

Clinical or quasi (without a role) is never the answer for values that read like prose
(long, many words, mostly distinct): free text instead (``prose_guard``).

Clinical is never the answer while any sign of an identifier remains: a column headed for
clinical with one in ten values looking like an identifier, or mostly person names, or
unique codes, becomes direct (unsure).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from deid_desktop.core.io.date_shapes import COMPACT_SHARE, UNIX_SHARE
from deid_desktop.core.model import ColumnClass, ColumnTag, Role
from deid_desktop.core.model import IdentifierCategory as Cat
from deid_desktop.core.tagging.colnames import HintKind, NameHint
from deid_desktop.core.tagging.values import ValueProfile

STRONG = 0.5  # share of values for the values alone to assert a pattern
CONFIRM = 0.8  # share of values that confirms what the name says
TRACE = 0.1  # share of identifier-looking values that forbids "clinical"
MIN_RATIO_SAMPLE = 20  # fewer values than this: distinct ratios mean little
CODE_DISTINCT = 0.9  # distinct ratio of a column of unique codes
ID_DISTINCT = 0.5  # distinct ratio above which an id-named column holds identifiers
VOCAB_MAX_RATIO = 0.5  # a description whose values repeat this much is a code list
VOCAB_MIN_SAMPLE = 10
NAME_SHARE = 0.5  # share of values made of common names
NAME_MIN_DISTINCT = 10  # ... over at least this many different values
FREE_TEXT_LENGTH = 40.0
FREE_TEXT_WORDS = 5.0
FREE_TEXT_DISTINCT = 0.5
SHORT_LIST_DISTINCT = 20
SHORT_LIST_RATIO = 0.2
CHECK_MIN_SAMPLE = 5  # values needed before a name can be contradicted by them

#: Value patterns that identify a person alone (checked in this order).
IDENTIFIER_PATTERNS: tuple[tuple[tuple[str, ...], Cat, str], ...] = (
    (("email",), Cat.F, "e-mail addresses"),
    (("ssn",), Cat.G, "Social Security numbers"),
    (("phone",), Cat.D, "US phone numbers"),
    (("url",), Cat.N, "web addresses (URLs)"),
    (("ipv4", "ipv6"), Cat.O, "IP addresses"),
    (("mac",), Cat.M, "device (MAC) addresses"),
    (("uuid",), Cat.R, "UUID-style codes"),
)

#: For a direct name hint, the value patterns that can confirm or contradict it.
CHECKABLE: dict[Cat, tuple[tuple[str, ...], str]] = {
    Cat.D: (("phone", "digits10"), "phone numbers"),
    Cat.E: (("phone", "digits10"), "fax numbers"),
    Cat.F: (("email",), "e-mail addresses"),
    Cat.G: (("ssn", "digits9"), "Social Security numbers"),
    Cat.N: (("url",), "web addresses (URLs)"),
    Cat.O: (("ipv4", "ipv6"), "IP addresses"),
}


#: Categories whose values are typically codes (record, plan, account, licence numbers...).
CODE_CATEGORIES = frozenset({Cat.H, Cat.I, Cat.J, Cat.K, Cat.L, Cat.M, Cat.R})


def pct(share: float) -> str:
    return f"{share:.0%}"


def _share(profile: ValueProfile, patterns: tuple[str, ...]) -> float:
    # The patterns of one kind do not overlap (IPv4/IPv6, phone/10 digits, SSN/9 digits).
    return min(1.0, sum(profile.share(p) for p in patterns))


@dataclass
class Draft:
    cls: ColumnClass
    role: Role | None = None
    category: Cat | None = None
    evidence: list[str] = field(default_factory=list)
    unsure: bool = False

    def doubt(self, reason: str) -> Draft:
        self.unsure = True
        self.evidence.append(f"unsure: {reason}")
        return self

    def to_tag(self, name: str) -> ColumnTag:
        return ColumnTag(
            name=name,
            cls=self.cls,
            role=self.role,
            category=self.category if self.cls is ColumnClass.DIRECT else None,
            evidence=tuple(dict.fromkeys(self.evidence)),
            unsure=self.unsure,
        )


# --- value tests ---------------------------------------------------------------------


def values_are_dates(p: ValueProfile) -> bool:
    return not p.empty and p.share("date") >= CONFIRM


def looks_like_names(p: ValueProfile) -> bool:
    return (
        p.person_name_share >= NAME_SHARE
        and p.distinct >= NAME_MIN_DISTINCT
        and p.distinct_names >= NAME_MIN_DISTINCT
    )


def names_sentence(p: ValueProfile) -> str:
    return (
        f"{pct(p.person_name_share)} of sampled values are common given names or surnames "
        "(1990 US Census lists)"
    )


def id_codes(p: ValueProfile) -> bool:
    """Values an id-named column would hold if it identifies: codes that rarely repeat."""
    if p.share("uuid") >= STRONG:
        return True
    code = max(p.share("code_token"), p.share("record_code"), p.share("integer"))
    few = p.sampled < MIN_RATIO_SAMPLE
    return code >= STRONG and (few or p.distinct_ratio >= ID_DISTINCT)


#: A column of hexadecimal strings (8 or more, with letters and digits) is a digest or a
#: token when this share of its sampled values are different: a hash of each person's
#: name repeats for persons of the same name, but far fewer times than a category does.
HEX_DISTINCT = 0.5


def hex_digests(p: ValueProfile) -> bool:
    """Hexadecimal or base64 digests or tokens (``251b6e884c445c83``,
    ``q0Hs2Xb9TfJ1aW3zLx8``): an MD5 or SHA of an MRN or a name, unsalted, is undone by
    hashing every candidate."""
    hexadecimal = p.share("hex") >= CONFIRM and p.share("letters") >= STRONG
    return (hexadecimal or p.share("b64_token") >= CONFIRM) and p.distinct_ratio >= HEX_DISTINCT


def shifted_names(p: ValueProfile) -> bool:
    """Person names with their letters shifted along the alphabet (ROT13's ``Znex
    Fpbgg`` is "Mark Scott"): undone by shifting them back."""
    return p.shifted_name_share >= CONFIRM


def shifted_sentence(p: ValueProfile) -> str:
    return (
        f"{pct(p.shifted_name_share)} of sampled values are person names once their "
        "letters are shifted back along the alphabet (a cipher such as ROT13)"
    )


def encoded_text(p: ValueProfile) -> bool:
    """Text written in base64 (``TWFyayBTY290dA==`` is "Mark Scott"): anyone can read it
    back, and no reader of the release can see what it says without doing so."""
    return p.share("encoded_text") >= CONFIRM


def encoded_sentence(p: ValueProfile) -> str:
    return (
        f"{pct(p.share('encoded_text'))} of sampled values are text written in base64 or base32, "
        "which anyone can decode"
    )


def unique_codes(p: ValueProfile) -> bool:
    """Codes of unknown meaning, nearly all different: an identifier by its look alone."""
    if p.sampled < MIN_RATIO_SAMPLE:
        return False
    if hex_digests(p):
        return True
    if p.distinct_ratio < CODE_DISTINCT:
        return False
    if p.share("uuid") >= CONFIRM:
        return True
    if p.share("code_token") < CONFIRM or p.share("decimal") >= STRONG:
        return False
    has_letters = p.share("letters") >= STRONG
    fixed_long_digits = p.same_length >= 0.9 and p.mean_length >= 6
    return has_letters or fixed_long_digits


def code_sentence(p: ValueProfile) -> str:
    kind = (
        "UUID-style codes"
        if p.share("uuid") >= STRONG
        else "hexadecimal digests or tokens"
        if p.share("hex") >= CONFIRM
        else "base64 digests or tokens"
        if p.share("b64_token") >= CONFIRM
        else "codes"
    )
    return f"sampled values are {kind}, {pct(p.distinct_ratio)} of them distinct"


def free_text_values(p: ValueProfile) -> bool:
    return (
        p.mean_length >= FREE_TEXT_LENGTH
        and p.mean_words >= FREE_TEXT_WORDS
        and p.distinct_ratio >= FREE_TEXT_DISTINCT
    )


def free_text_sentence(p: ValueProfile) -> str:
    return (
        f"values are long and varied: {p.mean_length:.0f} characters and {p.mean_words:.0f} "
        f"words on average, {pct(p.distinct_ratio)} distinct"
    )


def numbers_not_text(p: ValueProfile) -> bool:
    return p.sampled >= MIN_RATIO_SAMPLE and p.share("numeric") >= 0.95


def short_list(p: ValueProfile) -> bool:
    return (
        p.sampled < MIN_RATIO_SAMPLE
        or p.distinct <= SHORT_LIST_DISTINCT
        or p.distinct_ratio <= SHORT_LIST_RATIO
    )


def repeat_sentence(p: ValueProfile) -> str:
    return f"{p.distinct:,} distinct values among {p.sampled:,} sampled"


def strongest_identifier(p: ValueProfile, threshold: float) -> tuple[Cat, str, float] | None:
    best: tuple[Cat, str, float] | None = None
    for patterns, cat, what in IDENTIFIER_PATTERNS:
        share = _share(p, patterns)
        if share >= threshold and (best is None or share > best[2]):
            best = (cat, what, share)
    return best


# --- building blocks -----------------------------------------------------------------


def _numbers_as_dates(p: ValueProfile) -> str | None:
    """The value shape of dates written as numbers that most sampled values have (the
    gate's shares, ``io.date_shapes``): "unix_time", "compact_date" or None."""
    if p.empty:
        return None
    if p.share("unix_time") >= UNIX_SHARE:
        return "unix_time"
    if p.share("compact_date") >= COMPACT_SHARE:
        return "compact_date"
    return None


def reads_as_unix_times(p: ValueProfile) -> bool:
    """Most sampled values are dates written as numbers: Unix times, or compact
    year-months or dates (``YYYYMM``, ``YYYYMMDD``)."""
    return _numbers_as_dates(p) is not None


_WRITTEN_AS = {
    "unix_time": "Unix time (seconds or milliseconds since 1970)",
    "compact_date": "compact year-months or dates (YYYYMM, YYYYMMDD)",
}


def unix_times(p: ValueProfile) -> Draft | None:
    """Dates written as numbers (Unix times, compact year-months or dates): a date
    finer than a year that the loader cannot read as a date, so suggested as direct
    (removed)."""
    shape = _numbers_as_dates(p)
    if shape is None:
        return None
    share = p.share(shape)
    draft = Draft(
        ColumnClass.DIRECT,
        category=Cat.C,
        evidence=[f"{pct(share)} of sampled values read as dates written as {_WRITTEN_AS[shape]}"],
    )
    return draft.doubt(
        "dates finer than a year written as numbers, which the app does not read as dates; "
        "suggested as direct (removed): write them as dates in the extract to keep the year"
    )


def guard_clinical(draft: Draft, p: ValueProfile) -> Draft:
    """Clinical only when nothing in the values looks like an identifier."""
    trace = strongest_identifier(p, TRACE)
    if trace is not None:
        cat, what, share = trace
        return Draft(ColumnClass.DIRECT, category=cat, evidence=draft.evidence).doubt(
            f"{pct(share)} of sampled values look like {what}; suggested as direct rather "
            "than clinical"
        )
    if looks_like_names(p):
        draft = Draft(ColumnClass.DIRECT, category=Cat.A, evidence=draft.evidence)
        return draft.doubt(names_sentence(p) + "; suggested as direct rather than clinical")
    if encoded_text(p):
        draft = Draft(ColumnClass.DIRECT, category=Cat.R, evidence=draft.evidence)
        return draft.doubt(encoded_sentence(p) + "; suggested as direct (removed)")
    if shifted_names(p):
        draft = Draft(ColumnClass.DIRECT, category=Cat.A, evidence=draft.evidence)
        return draft.doubt(shifted_sentence(p) + "; suggested as direct (removed)")
    if unique_codes(p):
        draft = Draft(ColumnClass.DIRECT, category=Cat.R, evidence=draft.evidence)
        return draft.doubt(code_sentence(p) + ", like an identifier; suggested as direct")
    return draft


def _direct_from_name(hint: NameHint, p: ValueProfile) -> Draft:
    assert hint.category is not None
    draft = Draft(ColumnClass.DIRECT, category=hint.category, evidence=[hint.evidence])
    if hint.note:
        draft.evidence.append(hint.note)
    if hint.category in CHECKABLE:
        patterns, what = CHECKABLE[hint.category]
        share = _share(p, patterns)
        if share >= STRONG:
            draft.evidence.append(f"{pct(share)} of sampled values look like {what}")
        elif p.sampled >= CHECK_MIN_SAMPLE:
            draft.doubt(
                f"only {pct(share)} of sampled values look like {what}; kept as direct "
                "because of the name"
            )
    elif hint.category is Cat.A and p.person_name_share >= 0.3:
        draft.evidence.append(names_sentence(p))
    elif hint.category in CODE_CATEGORIES and p.share("uuid") >= STRONG:
        draft.evidence.append(f"{pct(p.share('uuid'))} of sampled values are UUID-style codes")
    elif hint.category in CODE_CATEGORIES and p.share("record_code") >= STRONG:
        draft.evidence.append(
            f"{pct(p.share('record_code'))} of sampled values look like record-number codes "
            "(letters and digits)"
        )
    if (
        hint.category in CODE_CATEGORIES
        and p.sampled >= MIN_RATIO_SAMPLE
        and p.distinct <= SHORT_LIST_DISTINCT
        and p.distinct_ratio <= SHORT_LIST_RATIO
    ):
        draft.doubt(
            f"values repeat from a short list ({repeat_sentence(p)}), unlike identifiers; "
            "kept as direct because of the name"
        )
    if hint.doubt:
        draft.doubt(hint.doubt)
    return draft


def _date(hint: NameHint | None, p: ValueProfile) -> Draft:
    draft = Draft(ColumnClass.DATE, role=hint.role if hint else None)
    if hint is not None:
        draft.evidence.append(hint.evidence)
    if p.empty:
        draft.evidence.append("every value is missing")
    elif values_are_dates(p):
        draft.evidence.append(f"{pct(p.share('date'))} of sampled values look like dates")
    else:
        draft.doubt(
            f"only {pct(p.share('date'))} of sampled values look like dates; kept as a date "
            "because of the name"
        )
    return draft


def _quasi(hint: NameHint, p: ValueProfile) -> Draft:
    draft = Draft(ColumnClass.QUASI, role=hint.role, evidence=[hint.evidence])
    if hint.note:
        draft.evidence.append(hint.note)
    if hint.role is Role.AGE and not p.empty:
        if p.share("age") >= CONFIRM:
            draft.evidence.append(f"{pct(p.share('age'))} of sampled values look like ages")
        else:
            draft.role = None
            draft.evidence.append("the values are not ages in years, so no age role")
    if hint.role is Role.ZIP and not p.empty:
        zips, lost = p.share("zip"), p.share("zip_lost_zero")
        if zips:
            draft.evidence.append(f"{pct(zips)} of sampled values look like ZIP codes")
        if lost:
            draft.evidence.append(
                f"{pct(lost)} of sampled values look like ZIP codes that lost a leading zero"
            )
    return draft


def _free_text(hint: NameHint, p: ValueProfile) -> Draft:
    draft = Draft(ColumnClass.FREE_TEXT, evidence=[hint.evidence])
    if free_text_values(p):
        draft.evidence.append(free_text_sentence(p))
    return draft


def _description(hint: NameHint, p: ValueProfile) -> Draft:
    if p.sampled >= VOCAB_MIN_SAMPLE and p.distinct_ratio <= VOCAB_MAX_RATIO:
        draft = Draft(
            ColumnClass.CLINICAL,
            evidence=[hint.evidence, f"values repeat like a coded list ({repeat_sentence(p)})"],
        )
        return guard_clinical(draft, p)
    draft = _free_text(hint, p)
    if p.empty:
        draft.evidence.append("every value is missing")
    elif p.sampled < VOCAB_MIN_SAMPLE:
        draft.doubt("too few values to tell a coded description from free text; kept as free text")
    else:
        draft.doubt(
            f"values rarely repeat ({repeat_sentence(p)}), so this may be typed text rather "
            "than a coded description"
        )
    return draft


# --- the decision ------------------------------------------------------------------


def decide_column(hints: tuple[NameHint, ...], p: ValueProfile, *, is_person: bool) -> Draft:
    """Suggest a class for one column from its name hints and value profile."""
    return prose_guard(_decide(hints, p, is_person=is_person), p)


def prose_guard(draft: Draft, p: ValueProfile) -> Draft:
    """A column headed for clinical or quasi (without a role) whose values read like
    prose (long, many words, mostly distinct) is suggested as free text: a comments
    column released as it is would carry whatever was typed into it."""
    if draft.cls not in (ColumnClass.CLINICAL, ColumnClass.QUASI) or draft.role is not None:
        return draft
    if not free_text_values(p):
        return draft
    was = draft.cls.label.lower()
    out = Draft(ColumnClass.FREE_TEXT, evidence=[*draft.evidence, free_text_sentence(p)])
    return out.doubt(
        f"the values read like prose; suggested as free text rather than {was}, so that it "
        "is suppressed or scanned and redacted"
    )


def _decide(hints: tuple[NameHint, ...], p: ValueProfile, *, is_person: bool) -> Draft:
    for hint in hints:
        if hint.kind in (HintKind.DIRECT, HintKind.PERSON_KEY):
            return _direct_from_name(hint, p)

    unix = unix_times(p)
    if unix is not None:
        return unix
    ident = strongest_identifier(p, STRONG)
    if ident is not None:
        cat, what, share = ident
        draft = Draft(ColumnClass.DIRECT, category=cat)
        id_hint = next((h for h in hints if h.kind in (HintKind.ID_LIKE, HintKind.ORG_ID)), None)
        if id_hint is not None and cat is Cat.R:
            draft.evidence.append(id_hint.evidence)
        draft.evidence.append(f"{pct(share)} of sampled values look like {what}")
        if id_hint is not None and id_hint.doubt and cat is Cat.R:
            draft.doubt(id_hint.doubt)
        elif hints and id_hint is None:
            draft.evidence.append(f"the values outweigh the name ('{hints[0].keyword}')")
        return draft

    dates = values_are_dates(p)
    pending_id: NameHint | None = None
    for hint in hints:
        kind = hint.kind
        if kind is HintKind.DATE:
            return _date(hint, p)
        if kind is HintKind.DATE_IF_VALUES:
            if dates:
                return _date(hint, p)
            if p.empty:
                return _date(hint, p).doubt(
                    "the name suggests a date but no value can confirm it; kept as a date"
                )
            continue
        if kind is HintKind.FREE_TEXT:
            if numbers_not_text(p):
                continue  # "summary_score": the values are numbers, not narrative
            return _free_text(hint, p)
        if kind is HintKind.FREE_TEXT_OR_VOCAB:
            return _description(hint, p)
        if dates and kind in (HintKind.QUASI, HintKind.CLINICAL):
            draft = _date(None, p)
            draft.evidence.append(f"the values outweigh the name ('{hint.keyword}')")
            return draft
        if kind is HintKind.QUASI:
            return _quasi(hint, p)
        if kind is HintKind.CLINICAL:
            return guard_clinical(Draft(ColumnClass.CLINICAL, evidence=[hint.evidence]), p)
        if kind in (HintKind.ID_LIKE, HintKind.ORG_ID):
            if not p.empty and id_codes(p):
                draft = Draft(
                    ColumnClass.DIRECT,
                    category=hint.category or Cat.R,
                    evidence=[hint.evidence, code_sentence(p)],
                )
                if hint.doubt:
                    draft.doubt(hint.doubt)
                return draft
            pending_id = pending_id or hint

    if dates:
        return _date(None, p)
    if pending_id is not None:
        draft = Draft(ColumnClass.DIRECT, category=Cat.R, evidence=[pending_id.evidence])
        if p.empty:
            return draft.doubt(
                "every value is missing and the name suggests an identifier; kept as direct"
            )
        draft = Draft(ColumnClass.QUASI, evidence=[pending_id.evidence])
        return draft.doubt(
            f"the name suggests an identifier but the values repeat ({repeat_sentence(p)}); "
            "suggested as a quasi-identifier to be safe"
        )
    return _from_values(p, is_person=is_person)


def _from_values(p: ValueProfile, *, is_person: bool) -> Draft:
    """No usable name: the values alone."""
    if p.empty:
        return Draft(ColumnClass.DIRECT, category=Cat.R, evidence=["every value is missing"]).doubt(
            "nothing shows what this column holds; suggested as direct (removed) to be safe"
        )
    if looks_like_names(p):
        draft = Draft(ColumnClass.DIRECT, category=Cat.A, evidence=[names_sentence(p)])
        if p.person_name_share < CONFIRM:
            draft.doubt("the name does not say these are names; suggested as direct to be safe")
        return draft
    if encoded_text(p):
        return Draft(ColumnClass.DIRECT, category=Cat.R, evidence=[encoded_sentence(p)]).doubt(
            "the name does not say what this text is; suggested as direct (removed) to be safe"
        )
    if shifted_names(p):
        return Draft(ColumnClass.DIRECT, category=Cat.A, evidence=[shifted_sentence(p)]).doubt(
            "the name does not say these are names; suggested as direct (removed) to be safe"
        )
    if unique_codes(p):
        return Draft(ColumnClass.DIRECT, category=Cat.R, evidence=[code_sentence(p)]).doubt(
            "the name does not say what these codes are; suggested as direct to be safe"
        )
    if free_text_values(p):
        return Draft(ColumnClass.FREE_TEXT, evidence=[free_text_sentence(p)])
    if p.share("zip") >= 0.95:
        draft = Draft(
            ColumnClass.QUASI,
            role=Role.ZIP,
            evidence=[f"{pct(p.share('zip'))} of sampled values look like ZIP codes"],
        )
        return draft.doubt("the name does not say ZIP; suggested as a ZIP code to be safe")
    if p.share("numeric") >= CONFIRM:
        draft = Draft(
            ColumnClass.CLINICAL,
            evidence=[f"{pct(p.share('numeric'))} of sampled values are numbers"],
        )
        return guard_clinical(draft, p)
    if not short_list(p) and p.distinct_ratio >= CODE_DISTINCT:
        return Draft(ColumnClass.DIRECT, category=Cat.R, evidence=[repeat_sentence(p)]).doubt(
            "values are nearly all different, like an identifier, and the name does not say "
            "what they are; suggested as direct to be safe"
        )
    if p.sampled < MIN_RATIO_SAMPLE:
        return Draft(ColumnClass.QUASI, evidence=[repeat_sentence(p)]).doubt(
            "too few values to tell what this column holds, and the name does not say; "
            "suggested as a quasi-identifier to be safe"
        )
    if is_person:
        return Draft(ColumnClass.QUASI, evidence=[repeat_sentence(p)]).doubt(
            "a column of the person table describes the person and the name does not say "
            "what it is; suggested as a quasi-identifier to be safe"
        )
    if short_list(p):
        draft = Draft(
            ColumnClass.CLINICAL,
            evidence=[f"values repeat from a short list ({repeat_sentence(p)}) in an event table"],
        )
        return guard_clinical(draft, p)
    return Draft(ColumnClass.FREE_TEXT, evidence=[repeat_sentence(p)]).doubt(
        "varied text of unknown meaning; suggested as free text to be safe"
    )
