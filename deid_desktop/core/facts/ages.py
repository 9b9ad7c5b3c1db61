"""Who is over 89 (45 CFR 164.514(b)(2)(i)(C)): ages read from the age columns and
computed from the birth date at a reference date. Read by the pathways (to pool ages and
remove years) and by the gate (to check they did)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import InputError, ProjectError, UsageError
from deid_desktop.core.facts.dates import DateCache, earliest_per_person
from deid_desktop.core.facts.persons import spec_for
from deid_desktop.core.facts.text import arrow_text
from deid_desktop.core.model import ColumnTag, Extract, Project, Role
from deid_desktop.core.steps import Step

#: Ages above this are pooled (45 CFR 164.514(b)(2)(i)(C)).
MAX_AGE = 89
AGE_POOLED = "90+"


def age_numbers(values: pd.Series, *, file: str, column: str) -> pd.Series:
    """Ages as whole numbers (floored); a value that is not a number is an InputError."""
    text = pc.utf8_trim_whitespace(arrow_text(values))
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
    birth = _find_role(extract, project, Role.BIRTH_DATE)
    computed: pd.Series | None = None
    ref_label = ""
    sources = [f"age column '{t}.{c}'" for t, c in age_columns.items()]
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
    return AgeFacts(
        over_89=over,
        source="; ".join(sources) if sources else "no age or birth date column",
        reference=ref_label,
        age_columns=age_columns,
        age_values=age_values,
        birth_column=(birth[0], birth[1].name) if birth else None,
        computed=computed,
        warnings=tuple(warnings),
    )
