"""Who is over 89 (45 CFR 164.514(b)(2)(i)(C)): ages read from the age columns (by role,
or by a name that says age in several languages), computed from the birth date at a
reference date, and at the data's cut-off (the latest date in the extract). Read by the
pathways (to pool ages and remove years) and by the gate (to check they did)."""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import InputError, ProjectError, UsageError
from deid_desktop.core.facts.dates import DateCache, earliest_per_person, is_person_date
from deid_desktop.core.facts.persons import spec_for
from deid_desktop.core.facts.text import arrow_text, trim_whitespace
from deid_desktop.core.model import ColumnClass, ColumnTag, Extract, Project, Role
from deid_desktop.core.steps import Step

#: Ages above this are pooled (45 CFR 164.514(b)(2)(i)(C)).
MAX_AGE = 89
AGE_POOLED = "90+"


#: Column-name words that mean "age" (English, Spanish, French, German, Italian,
#: Portuguese, Dutch, Danish/Norwegian, Polish, Finnish, Turkish, Indonesian), accents
#: folded: ``age``, ``age_at_visit``, ``edad``, ``âge``, ``Alter``, ``età``, ``idade``...
AGE_WORDS = frozenset(
    {"age", "ages", "aged", "edad", "alter", "eta", "idade", "leeftijd", "alder", "wiek",
     "ika", "yas", "umur",
     # written as one word: agegrp, AGEBAND, agecat, ageyrs...
     "agegrp", "agegroup", "ageband", "agecat", "agerange", "agebracket", "agegp",
     "ageyrs", "ageyears", "agey", "ageatvisit", "ageatdx", "agedx"}
)  # fmt: skip
#: Words that mean age only in a name that says nothing else (``yrs``, ``years_old``,
#: ``anos``): ``years_of_education`` or ``yrs_smoking`` are not ages.
YEARS_WORDS = frozenset({"yrs", "yr", "years", "anos", "anios", "ans", "anni", "jahre", "jaar"})
_CONTEXT_WORDS = frozenset(
    {"at", "in", "on", "old", "visit", "patient", "pt", "current", "now", "baseline",
     "admission", "adm", "entry", "enrolment", "enrollment", "diagnosis", "dx", "onset",
     "index", "de", "del", "la", "el", "al", "a", "en", "bei", "di", "da", "na", "op", "bij"}
)  # fmt: skip
#: Name words that give an age in a unit other than years -> that unit per year
#: (``age_months``, ``age_in_days``, ``AgeWeeks``): such a column cannot hold the pooled
#: '90+' (years), so it is never pooled; the gate fails it when it states 90 years or more.
#: Mean days in a Gregorian year.
DAYS_PER_YEAR = 365.2425
MONTHS = ("months", 12.0)
WEEKS = ("weeks", DAYS_PER_YEAR / 7)
DAYS = ("days", DAYS_PER_YEAR)
AGE_UNITS: dict[str, tuple[str, float]] = {
    **dict.fromkeys(("months", "month", "mos", "mo", "mths", "mnths"), MONTHS),
    **dict.fromkeys(("weeks", "week", "wks", "wk"), WEEKS),
    **dict.fromkeys(("days", "day"), DAYS),
    **dict.fromkeys(("hours", "hrs"), ("hours", DAYS_PER_YEAR * 24)),
}
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _name_words(column: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", column)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    return [w.lower() for w in _NAME_WORD.findall(plain)]


def names_an_age(column: str) -> bool:
    """Whether a column's name says it holds ages: a word meaning age in one of several
    languages (``age_at_visit``, ``PatientAge``, ``edad``, ``âge``, ``Alter``, ``età``,
    ``idade``, ``leeftijd``), or years with nothing else said (``yrs``, ``years``,
    ``age_yrs``, ``years_old``); not ``stage``, ``dosage`` or ``years_of_education``."""
    words = _name_words(column)
    if any(w in AGE_WORDS for w in words):
        return True
    return (
        bool(words)
        and any(w in YEARS_WORDS for w in words)
        and all(w in YEARS_WORDS or w in _CONTEXT_WORDS for w in words)
    )


def age_unit(column: str) -> tuple[str, float] | None:
    """(unit, units per year) when a column named for age says another unit than years
    (``age_months`` -> ("months", 12.0)); None for years or no age."""
    if not names_an_age(column):
        return None
    return next((AGE_UNITS[w] for w in _name_words(column) if w in AGE_UNITS), None)


def age_tag(tag: ColumnTag) -> bool:
    """A column whose ages the pathways pool: the AGE role, or a quasi or clinical column
    whose name says age in years (its values must also all be numbers:
    ``maybe_age_numbers``). A column of ages in months, weeks, days or hours is kept as
    written: its ages cannot be pooled as '90+' years (the gate reads them)."""
    if tag.role == Role.AGE:
        return True
    return (
        tag.cls in (ColumnClass.QUASI, ColumnClass.CLINICAL)
        and names_an_age(tag.name)
        and age_unit(tag.name) is None
    )


def maybe_age_numbers(values: pd.Series) -> pd.Series | None:
    """Whole-number ages (floored) when every filled value is a number; None otherwise
    (a column named for age that holds bands or words is not read as ages here)."""
    text = trim_whitespace(arrow_text(values))
    present = pc.fill_null(pc.greater(pc.utf8_length(text), 0), False)
    valid = pc.fill_null(pc.match_substring_regex(text, r"^\d+(\.\d*)?$"), False)
    if pc.any(pc.and_(present, pc.invert(valid))).as_py():
        return None
    return age_numbers(values, file="", column=str(values.name))


def age_numbers(values: pd.Series, *, file: str, column: str) -> pd.Series:
    """Ages as whole numbers (floored); a value that is not a number is an InputError, as
    is a column whose name says ages in another unit than years (the AGE role pools ages
    over 89 as '90+', which is years)."""
    unit = age_unit(column)
    if unit is not None:
        raise InputError(
            f"The age role needs ages in years, and this column's name says ages in {unit[0]}",
            file=file or None,
            column=column,
            hint=(
                "Convert the column to years in the extract, or take the age role off it "
                "(it is then kept as written, and the review fails if it states an age of "
                "90 years or more)."
            ),
        )
    text = trim_whitespace(arrow_text(values))
    present = pc.fill_null(pc.greater(pc.utf8_length(text), 0), False)
    valid = pc.fill_null(pc.match_substring_regex(text, r"^\d+(\.\d*)?$"), False)
    bad = present.to_numpy(zero_copy_only=False) & ~valid.to_numpy(zero_copy_only=False)
    if bad.any():
        raise InputError(
            f"{int(bad.sum())} ages are not numbers of years",
            file=file,
            column=column,
            row=int(np.flatnonzero(bad)[0]) + 2,
            hint="Correct the age column, or tag it differently.",
        )
    numbers = pc.floor(pc.cast(pc.if_else(valid, text, None), pa.float64()))
    return pd.Series(
        pd.array(pc.cast(numbers, pa.int64()), dtype="Int64"), index=values.index, name=values.name
    )


def age_between(birth: pd.Series, reference: pd.Series) -> pd.Series:
    """Completed years from ``birth`` to ``reference`` (both datetime); <NA> if either is."""
    years = reference.dt.year - birth.dt.year
    before_birthday = (reference.dt.month < birth.dt.month) | (
        (reference.dt.month == birth.dt.month) & (reference.dt.day < birth.dt.day)
    )
    return (years - before_birthday.astype("Int64")).astype("Int64")


@dataclass(frozen=True)
class AgeFacts:
    """Who is over 89, and how it was decided. Arrays align with the person table."""

    over_89: np.ndarray  # bool per person row
    source: str  # plain words: where the age came from
    reference: str  # "index date 'baseline.discharge_date'", "2026-01-01", or ""
    age_columns: dict[str, str] = field(default_factory=dict)  # table -> AGE column
    age_values: dict[str, pd.Series] = field(default_factory=dict)  # table -> whole years
    birth_column: tuple[str, str] | None = None  # (table, column)
    computed: pd.Series | None = None  # age from birth date, per person row
    warnings: tuple[str, ...] = ()
    #: bool per person row: over 89 at the data's cut-off (the latest date in the
    #: extract), from an age and the date it was taken at, or born 90 or more years
    #: before the cut-off's year (the years released could state an age of 90)
    over_89_at_cutoff: np.ndarray | None = None
    cutoff: pd.Timestamp | None = None  # the latest date in the extract (None: no date)
    #: "table.column" of the columns read as ages by their name (no AGE role)
    named_age_columns: tuple[str, ...] = ()

    @property
    def years_withheld(self) -> np.ndarray:
        """Per person row: every year stating this person's age must go (over 89 at the
        reference date, in any age column, or at the cut-off)."""
        if self.over_89_at_cutoff is None:
            return self.over_89
        return self.over_89 | self.over_89_at_cutoff

    @property
    def only_at_cutoff(self) -> np.ndarray:
        """Persons over 89 at the cut-off but not by their age or at the reference date."""
        return self.years_withheld & ~self.over_89


def cutoff_date(extract: Extract, project: Project, dates: DateCache) -> pd.Timestamp | None:
    """The data's cut-off: the latest date in any date column of any table (None when
    the extract has no date). A person's age is at its largest there."""
    latest: pd.Timestamp | None = None
    for table in extract.tables:
        for tag in spec_for(project, table).columns:
            if tag.name not in table.frame.columns or not is_person_date(tag):
                continue
            found = dates.latest(table.name, tag)
            if found is not None and (latest is None or found > latest):
                latest = found
    return latest


def _find_role(extract: Extract, project: Project, role: Role) -> tuple[str, ColumnTag] | None:
    for table in extract.tables:  # the person table first
        tag = spec_for(project, table).by_role(role)
        if tag is not None and tag.name in table.frame.columns:
            return table.name, tag
    return None


def _reference_dates(
    extract: Extract,
    project: Project,
    dates: DateCache,
    positions: Mapping[str, np.ndarray],
    setting: str,
) -> tuple[pd.Series | None, str, int]:
    """Per-person reference date, a label, and how many persons had none of their own."""
    n = len(extract.person.frame)
    if setting and setting != "index":
        try:
            when = dt.date.fromisoformat(setting)
        except ValueError as exc:
            raise UsageError(
                "The age reference must be 'index' or a date written YYYY-MM-DD",
                hint="Change the Safe Harbor age reference in the project.",
            ) from exc
        return pd.Series(pd.Timestamp(when), index=range(n)), when.isoformat(), 0
    found = _find_role(extract, project, Role.INDEX_DATE)
    if found is None:
        return None, "", 0
    table, tag = found
    parsed = dates.get(table, tag)
    per_person = earliest_per_person(parsed, positions[table], n)
    missing = int(per_person.isna().sum())
    if missing and per_person.notna().any():
        per_person = per_person.fillna(per_person.max())  # the latest: the older age
    return per_person, f"index date '{table}.{tag.name}'", missing


def assess_ages(
    extract: Extract,
    project: Project,
    dates: DateCache,
    positions: Mapping[str, np.ndarray],
    reference: str = "index",
) -> AgeFacts:
    """Decide who is over 89: any AGE-role value above 89, or the age computed from
    the birth date at the reference date (per-person index date, or an ISO date)."""
    n = len(extract.person.frame)
    over = np.zeros(n, dtype=bool)
    warnings: list[str] = []
    age_columns: dict[str, str] = {}
    age_values: dict[str, pd.Series] = {}
    person_age: pd.Series | None = None
    for table in extract.tables:
        tag = spec_for(project, table).by_role(Role.AGE)
        if tag is None or tag.name not in table.frame.columns:
            continue
        age_columns[table.name] = tag.name
        numbers = age_numbers(table.frame[tag.name], file=table.path.name, column=tag.name)
        age_values[table.name] = numbers
        hit = (numbers > MAX_AGE).fillna(False).to_numpy(dtype=bool)
        over[positions[table.name][hit]] = True
        if table.name == extract.person.name:
            person_age = numbers
    named: list[str] = []
    for table in extract.tables:
        for tag in spec_for(project, table).columns:
            if tag.role == Role.AGE or not age_tag(tag) or tag.name not in table.frame.columns:
                continue
            numbers = maybe_age_numbers(table.frame[tag.name])
            if numbers is None:
                continue
            named.append(f"{table.name}.{tag.name}")
            hit = (numbers > MAX_AGE).fillna(False).to_numpy(dtype=bool)
            over[positions[table.name][hit]] = True
    birth = _find_role(extract, project, Role.BIRTH_DATE)
    computed: pd.Series | None = None
    ref_label = ""
    sources = [f"age column '{t}.{c}'" for t, c in age_columns.items()]
    sources += [f"column '{w}' (its name says age)" for w in named]
    cutoff = cutoff_date(extract, project, dates)
    at_cutoff = np.zeros(n, dtype=bool)
    at_cutoff_series = (
        pd.Series(np.full(n, cutoff.to_datetime64(), dtype="datetime64[ns]"))
        if cutoff is not None
        else None
    )
    if birth is not None:
        b_table, b_tag = birth
        ref, ref_label, missing_ref = _reference_dates(
            extract, project, dates, positions, reference
        )
        if ref is None:
            unknown = n
            if person_age is not None:
                born_known = dates.get(b_table, b_tag).notna().to_numpy(dtype=bool)
                has_birth = np.zeros(n, dtype=bool)
                has_birth[positions[b_table][born_known]] = True
                unknown = int((has_birth & person_age.isna().to_numpy(dtype=bool)).sum())
            if unknown:
                raise ProjectError(
                    "Ages cannot be computed: the birth date needs a reference date, and no "
                    "column is tagged as the index date"
                    + (f" ({unknown} persons have a birth date but no age)" if age_columns else ""),
                    column=b_tag.name,
                    hint="Set a fixed reference date for ages (e.g. the extract's data "
                    "cut-off date), or tag a column as the index date (e.g. discharge "
                    "date). Command line: 'deid pathway PROJECT "
                    + project.pathway.value.replace("_", "-")
                    + " --age-reference YYYY-MM-DD', or 'deid tag PROJECT "
                    f"TABLE.COLUMN=date:index_date'. Desktop app: in {Step.PATHWAY.ref} set "
                    "'Reference date for ages' to a fixed date, or tag the index date in "
                    f"{Step.TAG.ref}.",
                )
            warnings.append(
                "Ages were not cross-checked against the birth date: no index date is "
                "tagged and no reference date is set."
            )
        else:
            parsed = dates.get(b_table, b_tag)
            born = earliest_per_person(parsed, positions[b_table], n)
            computed = age_between(born, ref.reset_index(drop=True))
            if person_age is not None and at_cutoff_series is not None:
                # an age taken at the reference date, grown by the years to the cut-off
                grown = person_age.reset_index(drop=True) + age_between(
                    ref.reset_index(drop=True), at_cutoff_series
                )
                at_cutoff |= (grown > MAX_AGE).fillna(False).to_numpy(dtype=bool)
            over |= (computed > MAX_AGE).fillna(False).to_numpy(dtype=bool)
            sources.append(f"birth date '{b_table}.{b_tag.name}' at the {ref_label}")
            if missing_ref:
                warnings.append(
                    f"{missing_ref} persons have no index date; their age was taken at the "
                    "latest index date in the extract."
                )
            if person_age is not None:
                gap = (person_age.reset_index(drop=True) - computed).abs()
                off = np.flatnonzero((gap > 1).fillna(False).to_numpy(dtype=bool))
                if len(off):
                    lines = ", ".join(str(i + 2) for i in off[:20])
                    more = f" and {len(off) - 20} more" if len(off) > 20 else ""
                    warnings.append(
                        f"{len(off)} persons have an age that differs by more than a year "
                        f"from the age computed from their birth date "
                        f"({extract.person.path.name} lines {lines}{more})."
                    )
    if birth is not None and at_cutoff_series is not None:
        b_table, b_tag = birth
        born = earliest_per_person(dates.get(b_table, b_tag), positions[b_table], n)
        # The release shows years: a birth year 90 years before the cut-off's year may
        # state an age of 90 (born early in the year), so it goes whatever the day.
        span = cutoff.year - born.dt.year
        at_cutoff |= (span > MAX_AGE).fillna(False).to_numpy(dtype=bool)
    elif person_age is not None and at_cutoff_series is not None:
        with contextlib.suppress(UsageError):
            ref, _label, _missing = _reference_dates(extract, project, dates, positions, reference)
            if ref is not None:
                grown = person_age.reset_index(drop=True) + age_between(
                    ref.reset_index(drop=True), at_cutoff_series
                )
                at_cutoff |= (grown > MAX_AGE).fillna(False).to_numpy(dtype=bool)
    return AgeFacts(
        over_89=over,
        source="; ".join(sources) if sources else "no age or birth date column",
        reference=ref_label,
        age_columns=age_columns,
        age_values=age_values,
        birth_column=(birth[0], birth[1].name) if birth else None,
        computed=computed,
        warnings=tuple(warnings),
        over_89_at_cutoff=at_cutoff,
        cutoff=cutoff,
        named_age_columns=tuple(named),
    )
