"""Tag every column of one table: per-column decisions, then the table's roles.

Table-level choices:

- the person key: a column named for the person (``patient_id``, ``PATIENT``, ``subject``),
  else the record number (``mrn``), else, in the person table, a column named ``id``; failing
  all, in the person table, the first column of distinct codes (unsure). Event tables get
  no key from values alone.
- one column per role: a second birth-date, age, sex or ZIP column keeps its class and
  loses the role, with a sentence saying so;
- the index date (the reference for computing ages): the first date column named for an
  index, discharge, admission or enrolment.
"""

from __future__ import annotations

import pandas as pd

from deid_desktop.core.facts.ages import age_unit
from deid_desktop.core.model import ColumnClass, ColumnTag, Role
from deid_desktop.core.model import IdentifierCategory as Cat
from deid_desktop.core.tagging.colnames import (
    ColumnName,
    HintKind,
    NameHint,
    match_name,
    parse_column_name,
)
from deid_desktop.core.tagging.decide import (
    Draft,
    code_sentence,
    decide_column,
    reads_as_unix_times,
    unique_codes,
)
from deid_desktop.core.tagging.values import ValueProfile, profile_values


def _age_in_other_units(name: str, draft: Draft) -> None:
    """No age role for ages in months, weeks, days or hours (``age_months``): the role
    pools ages over 89 as '90+' years, which such a column cannot hold."""
    unit = age_unit(name)
    if unit is None or draft.role is not Role.AGE:
        return
    draft.role = None
    draft.evidence.append(
        f"the name says ages in {unit[0]}, not years, so no age role (the role pools ages "
        "over 89 as '90+' years); kept as written, and the review fails if any is 90 years "
        "or more"
    )


#: Words naming an index date, best first. A name word matches when it starts with one
#: of them ("dischtime", "admitdate"); words of three letters or fewer must match exactly.
INDEX_WORDS: tuple[tuple[str, ...], ...] = (
    ("index",),
    ("discharge", "disch", "dc"),
    ("admission", "admit", "adm"),
    ("enrol", "randomis", "randomiz", "consent", "baseline"),
)


def _index_word(words: tuple[str, ...], stems: tuple[str, ...]) -> str | None:
    for stem in stems:
        for word in words:
            if word == stem or (len(stem) > 3 and word.startswith(stem)):
                return stem
    return None


_SINGLE_ROLES = (Role.BIRTH_DATE, Role.AGE, Role.SEX, Role.ZIP)


def suggest_tags(
    frame: pd.DataFrame, *, table: str, is_person: bool = True
) -> tuple[ColumnTag, ...]:
    """Suggest a tag for every column of ``frame``, in column order.

    ``table`` names the table in messages; ``is_person`` says whether it is the person
    table (one row per person). Values are sampled (at most 2,000 per column), so the cost
    does not grow with the row count. Evidence sentences hold shares, counts and our own
    keywords, never a value.
    """
    del table  # reserved for messages; tagging never fails on content
    names = [parse_column_name(c) for c in frame.columns]
    hints = [match_name(n) for n in names]
    profiles = [profile_values(frame.iloc[:, i]) for i in range(frame.shape[1])]

    drafts = [
        decide_column(h, p, is_person=is_person) for h, p in zip(hints, profiles, strict=True)
    ]
    for column, draft in zip(frame.columns, drafts, strict=True):
        _age_in_other_units(str(column), draft)
    key = _choose_person_key(names, hints, profiles, is_person=is_person)
    if key is not None:
        index, draft = key
        drafts[index] = draft
    _one_column_per_role(drafts)
    _choose_index_date(names, drafts)
    for draft, profile in zip(drafts, profiles, strict=True):
        if profile.was_sampled:
            draft.evidence.append(
                f"based on {profile.sampled:,} values sampled evenly from "
                f"{profile.non_missing:,} filled cells"
            )
    return tuple(d.to_tag(n.raw) for n, d in zip(names, drafts, strict=True))


def _key_priority(name: ColumnName, hints: tuple[NameHint, ...], is_person: bool) -> int | None:
    best = min((h.key_priority for h in hints if h.key_priority is not None), default=None)
    if best is None and is_person and name.words in (("id",), ("uid",)):
        best = 3
    return best


def _choose_person_key(
    names: list[ColumnName],
    hints: list[tuple[NameHint, ...]],
    profiles: list[ValueProfile],
    *,
    is_person: bool,
) -> tuple[int, Draft] | None:
    ranked = [
        (priority, i)
        for i, (n, h) in enumerate(zip(names, hints, strict=True))
        if (priority := _key_priority(n, h, is_person)) is not None
    ]
    if ranked:
        _, index = min(ranked)
        return index, _key_draft(hints[index], profiles[index], is_person=is_person)
    if not is_person:
        return None
    for i, (h, p) in enumerate(zip(hints, profiles, strict=True)):
        usable_name = all(x.kind in (HintKind.ID_LIKE, HintKind.ORG_ID) for x in h)
        complete = p.non_missing == p.rows and p.sampled == p.non_missing
        dates = reads_as_unix_times(p)  # timestamps are distinct, not keys
        if usable_name and complete and unique_codes(p) and p.distinct == p.sampled and not dates:
            draft = Draft(ColumnClass.DIRECT, role=Role.PERSON_KEY, category=Cat.R)
            draft.evidence.append(code_sentence(p))
            draft.doubt(
                "no column is named like a person key; this is the first column of distinct "
                "codes in the person table"
            )
            return i, draft
    return None


def _key_draft(hints: tuple[NameHint, ...], p: ValueProfile, *, is_person: bool) -> Draft:
    is_mrn = any(h.category is Cat.H for h in hints if h.kind is HintKind.DIRECT)
    key_hint = next((h for h in hints if h.key_priority is not None), None)
    draft = Draft(ColumnClass.DIRECT, role=Role.PERSON_KEY, category=Cat.H if is_mrn else Cat.R)
    draft.evidence.append(key_hint.evidence if key_hint else "name matches 'id'")
    draft.evidence.append("suggested as the person key, which links every row to its person")
    if p.empty:
        draft.doubt("every value is missing, yet a person key must identify each row")
    elif is_person and p.distinct < p.sampled:
        draft.doubt(
            f"some sampled values repeat ({p.distinct:,} distinct among {p.sampled:,}), but "
            "the person table needs one row per person"
        )
    elif is_person:
        draft.evidence.append("all sampled values are distinct")
    return draft


def _one_column_per_role(drafts: list[Draft]) -> None:
    seen: set[Role] = set()
    for draft in drafts:
        role = draft.role
        if role not in _SINGLE_ROLES:
            continue
        if role in seen:
            draft.role = None
            draft.evidence.append(f"another column of this table already has the {role} role")
        else:
            seen.add(role)


def _choose_index_date(names: list[ColumnName], drafts: list[Draft]) -> None:
    for words in INDEX_WORDS:
        for name, draft in zip(names, drafts, strict=True):
            if draft.cls is ColumnClass.DATE and draft.role is None:
                hit = _index_word(name.words, words)
                if hit is not None:
                    draft.role = Role.INDEX_DATE
                    draft.evidence.append(
                        f"suggested as the index date (the reference for ages): name matches "
                        f"'{hit}'"
                    )
                    return
