"""The Safe Harbor release (45 CFR 164.514(b)(2)): every mechanical rule, in one pass.

Direct columns go; the person key becomes a random subject ID (crosswalk held back);
dates become years; ages over 89 become "90+" and every year of those persons is
removed; ZIP is cut to an allowed ZIP3 or "000"; free text goes unless the user chose
to redact it; rows are ordered by subject ID. Same project, input and seed -> the same
frames, to the byte.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from deid_desktop.core.errors import ProjectError
from deid_desktop.core.facts.ages import (
    AGE_POOLED,
    MAX_AGE,
    AgeFacts,
    age_numbers,
    maybe_age_numbers,
)
from deid_desktop.core.facts.dates import DateCache
from deid_desktop.core.facts.persons import spec_for
from deid_desktop.core.facts.shared import facts_for
from deid_desktop.core.facts.text import STRING
from deid_desktop.core.model import (
    ColumnTag,
    Extract,
    LoadedTable,
    Pathway,
    Project,
    Release,
    Role,
)
from deid_desktop.core.pathways.common import (
    SUBJECT_ID,
    Treatment,
    apply_risk_settings,
    plan_columns,
    plural,
    random_subject_ids,
    redaction_sentences,
    released_name_of,
    row_order,
    subject_crosswalk,
    take_coded,
    take_rows,
    zip3_series,
)
from deid_desktop.core.pathways.number_text import pool_ages, year_text
from deid_desktop.core.pathways.registry import pathway_spec
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.core.zip3 import load_table_for

#: How the years of persons over 89 are handled; stated in the release and record.
OVER_89_POLICY = (
    "every date-year of a person over 89 is removed, in every table (the birth year and "
    "every other year, so that no pair of years can restate the age)"
)


#: Two years of one person this far apart state an age over 89 whatever the months and
#: days (91 years: at least 90 completed years); verify's gate uses the same span.
CERTAIN_OVER_89_SPAN = MAX_AGE + 2


def years_far_apart(
    extract: Extract,
    project: Project,
    treatments: dict[str, dict[str, Treatment]],
    dates: DateCache,
    positions: dict[str, np.ndarray],
) -> np.ndarray:
    """Per person row: whether the years to be released (every date column of every
    table) lie 91 years apart or more - a pair that restates an age over 89 even when
    the age at the index date is lower (a later visit) or no column has the birth-date
    role. Vectorised: one numpy minimum and maximum per column."""
    n = len(extract.person.frame)
    lowest = np.full(n, 1_000_000, dtype=np.int64)
    highest = np.full(n, -1_000_000, dtype=np.int64)
    for table in extract.tables:
        spec = spec_for(project, table)
        for col, treatment in treatments[table.name].items():
            if treatment != Treatment.DATE:
                continue
            values = dates.years(table.name, spec.column(col))
            present = ~np.isnan(values)
            where = positions[table.name][present]
            found = values[present].astype(np.int64)
            np.minimum.at(lowest, where, found)
            np.maximum.at(highest, where, found)
    return (highest - lowest) >= CERTAIN_OVER_89_SPAN


def age_values(
    ages: AgeFacts, table: LoadedTable, tag: ColumnTag, values: pd.Series
) -> pd.Series | None:
    """Whole-number ages of an age column: the AGE role's (a value that is not a number
    is an error), or a column named for age when all its values are numbers (else None)."""
    if ages.age_columns.get(table.name) == tag.name:
        return ages.age_values[table.name].reset_index(drop=True)
    if tag.role == Role.AGE:
        return age_numbers(values, file=table.path.name, column=tag.name)
    numbers = maybe_age_numbers(values)
    return None if numbers is None else numbers.reset_index(drop=True)


def build_safe_harbor(
    extract: Extract,
    project: Project,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> Release:
    """Build the Safe Harbor release in memory. Nothing is written."""
    rep = Reporter(progress, cancel)
    options = project.transform
    person = extract.person
    person_spec = spec_for(project, person)

    rep.step(0.0, "Assigning random subject IDs")
    subjects = random_subject_ids(person.frame[person_spec.key], project.seed)
    facts = facts_for(extract, project)  # shared with the gate
    positions = facts.positions

    rep.step(0.15, "Reading dates and ages")
    dates = facts.dates
    ages = facts.ages(options.age_reference)
    zip_table = load_table_for(options.zip3_table)

    treatments, redacted = plan_columns(extract, project)
    at_cutoff = ages.only_at_cutoff
    far_apart = (
        years_far_apart(extract, project, treatments, dates, positions) & ~ages.years_withheld
    )
    no_years = ages.years_withheld | far_apart

    dropped_direct: list[str] = []
    dropped_text: list[str] = []
    untagged: list[str] = []
    date_columns: list[str] = []
    year_columns: dict[str, list[str]] = {}
    zip_to_000 = 0
    zip_cells = 0
    pooled_named: dict[str, int] = {}
    blanked_years = 0
    blanked_far = 0
    blanked_cutoff = 0
    tables: dict[str, pd.DataFrame] = {}
    for i, table in enumerate(extract.tables):
        rep.step(0.3 + 0.5 * i / len(extract.tables), f"Transforming {table.name}")
        pos = positions[table.name]
        over_rows = ages.over_89[pos]
        cutoff_rows = at_cutoff[pos]
        blank_rows = no_years[pos]
        is_person = table.name == person.name
        order = row_order(subjects.numbers[pos])
        # The subject IDs are taken straight in release order; the other columns below
        # are built in input order and then put in that order.
        out: dict[str, pd.Series] = {SUBJECT_ID: subjects.in_order(pos[order])}
        ordered = {SUBJECT_ID}  # columns built in release order already
        coded: set[str] = set()  # columns of few distinct values: taken through codes
        for col, treatment in treatments[table.name].items():
            where = f"{table.name}.{col}"
            values = table.frame[col].reset_index(drop=True)
            name = released_name_of(treatment, col, out.keys())
            if name is not None and name in out:
                raise ProjectError(
                    f"Column '{col}' would be released as '{name}', a name the release "
                    "already uses",
                    file=table.path.name,
                    column=col,
                    hint="Rename the column in the source, or tag it so that it is removed.",
                )
            if treatment == Treatment.DROP_DIRECT:
                dropped_direct.append(where)
            elif treatment == Treatment.DROP_FREE_TEXT:
                dropped_text.append(where)
            elif treatment == Treatment.DROP_UNTAGGED:
                untagged.append(where)
            elif treatment == Treatment.ZIP:
                out[name], n000 = zip3_series(values, zip_table)
                coded.add(name)
                zip_to_000 += n000
                zip_cells += len(values)
            elif treatment == Treatment.DATE:
                tag = spec_for(project, table).column(col)
                parsed = dates.get(table.name, tag)
                present = parsed.notna().to_numpy(dtype=bool)
                blanked_years += int((present & over_rows).sum())
                blanked_cutoff += int((present & cutoff_rows).sum())
                blanked_far += int((present & blank_rows & ~over_rows & ~cutoff_rows).sum())
                years = dates.years(table.name, tag)
                out[name] = year_text(years, blank_rows, order)  # in release order
                ordered.add(name)
                date_columns.append(where)
                year_columns.setdefault(table.name, []).append(name)
            elif treatment == Treatment.AGE:
                numbers = age_values(ages, table, spec_for(project, table).column(col), values)
                if numbers is None:  # named for age, but not numbers: kept as written
                    out[name] = values.astype(STRING)
                    continue
                role = ages.age_columns.get(table.name) == col
                force = over_rows if is_person and role else None
                out[name] = pool_ages(numbers, force, order)  # in release order
                ordered.add(name)
                if not role:
                    pooled_named[where] = int((out[name] == AGE_POOLED).sum())
            elif treatment == Treatment.REDACT:
                out[name] = redacted.columns[table.name][col].reset_index(drop=True).astype(STRING)
            elif treatment == Treatment.KEEP:
                out[name] = values.astype(STRING)
                coded.add(name)
        tables[table.name] = pd.DataFrame(
            {
                name: values
                if name in ordered
                else (take_coded if name in coded else take_rows)(values, order)
                for name, values in out.items()
            },
            copy=False,
        )

    rep.step(0.85, "Applying risk settings")
    risk = apply_risk_settings(
        tables,
        project,
        person.name,
        SUBJECT_ID,
        released_qis_only=False,
        hierarchies=extract.hierarchies,
    )
    crosswalk, crosswalk_rows = subject_crosswalk(subjects, person, person_spec.key)

    over_count = int(ages.over_89.sum())
    transformations: list[str] = []
    if dropped_direct:
        transformations.append(
            f"Removed {plural(len(dropped_direct), 'direct-identifier column')}: "
            + ", ".join(dropped_direct)
            + "."
        )
    transformations.append(
        f"Replaced {person_spec.key} by a random subject ID ({subjects.prefix} + "
        f"{subjects.width} digits, drawn from a random seed that is held back with the "
        "crosswalk); the crosswalk is held back and written apart from the release."
    )
    if date_columns:
        transformations.append(
            f"Reduced {plural(len(date_columns), 'date column')} to their year: "
            + ", ".join(date_columns)
            + "."
        )
    if ages.age_columns or ages.birth_column:
        # the sentence says '90+' only where a released age column holds those cells
        pooled = (
            f"Pooled {plural(over_count, 'person')} over 89 as '{AGE_POOLED}' "
            f"(age from {ages.source})"
            if ages.age_columns.get(person.name) in tables[person.name].columns
            else f"Found {plural(over_count, 'person')} over 89 (age from {ages.source}; "
            "no age column is released)"
        )
        if over_count:
            pooled += (
                f" and removed every year of those persons ({plural(blanked_years, 'cell')}): "
                "the birth year and every other date-year, in every table, so no pair of "
                "years can restate the age"
            )
        transformations.append(pooled + ".")
    if pooled_named:
        transformations.append(
            "Pooled ages over 89 as '90+' in "
            + ", ".join(f"{w} ({plural(c, 'cell')})" for w, c in sorted(pooled_named.items()))
            + ", columns whose name says age."
        )
    if at_cutoff.any():
        transformations.append(
            f"Removed every year ({plural(blanked_cutoff, 'cell')}) of "
            f"{plural(int(at_cutoff.sum()), 'other person')} over 89 at the data's cut-off "
            "(the latest date in the extract) or turning 90 in its year, in every table."
        )
    if far_apart.any():
        transformations.append(
            f"Removed every year ({plural(blanked_far, 'cell')}) of "
            f"{plural(int(far_apart.sum()), 'other person')} whose years lie 91 or more "
            "apart (a pair of years that restates an age over 89, e.g. a visit long after "
            "the index date), in every table."
        )
    if zip_cells:
        transformations.append(
            f"Cut ZIP to 3 digits; {zip_to_000:,} set to 000 ({zip_table.vintage} table: "
            "prefixes of 20,000 people or fewer, prefixes not in the table, malformed and "
            "missing ZIPs)."
        )
    if dropped_text:
        transformations.append(
            f"Removed {plural(len(dropped_text), 'free-text column')}: "
            + ", ".join(dropped_text)
            + "."
        )
    transformations.extend(redaction_sentences(redacted))
    if untagged:
        transformations.append(
            f"Removed {plural(len(untagged), 'untagged column')}: " + ", ".join(untagged) + "."
        )
    transformations.append(
        "Ordered the rows of every table by subject ID, so file order carries no enrollment order."
    )
    transformations.extend(risk.notes)
    if risk.quasi_identifiers:
        transformations.append(
            f"Suppressed {plural(risk.removed, 'person')} ({risk.share:.1%} of rows) in "
            f"classes smaller than k = {project.risk.k_target} on "
            + ", ".join(risk.quasi_identifiers)
            + ", with their rows in every table."
        )

    warnings = list(ages.warnings)
    if untagged:
        warnings.append(
            f"{plural(len(untagged), 'column')} had no tag and were left out of the release: "
            + ", ".join(untagged)
            + "."
        )
    parameters: dict[str, object] = {
        "seed": project.seed,
        "subject_id_format": f"{subjects.prefix} + {subjects.width} zero-padded digits",
        "zip3_vintage": zip_table.vintage,
        "zip3_source": zip_table.source,
        "zip3_threshold": "kept only if more than 20,000 people",
        "age_source": ages.source,
        "age_reference": options.age_reference,
        "age_reference_used": ages.reference,
        "over_89_policy": OVER_89_POLICY,
        "persons_over_89": over_count,
        "persons_with_years_91_or_more_apart": int(far_apart.sum()),
        "persons_over_89_at_the_cutoff_only": int(at_cutoff.sum()),
        "free_text": {k: str(v) for k, v in sorted(options.free_text.items())},
        "free_text_hits_redacted": dict(sorted(redacted.hits.items())),
        "free_text_hits_left_below_level": dict(sorted(redacted.left.items())),
        "date_formats": dict(sorted(dates.formats.items())),
        "year_columns": {k: list(v) for k, v in sorted(year_columns.items())},
        "zip3_set_to_000": zip_to_000,
    }
    rep.step(1.0, "Safe Harbor release built")
    return Release(
        pathway=Pathway.SAFE_HARBOR,
        label=pathway_spec(Pathway.SAFE_HARBOR).label,
        tables=tables,
        crosswalk=crosswalk,
        crosswalk_rows=crosswalk_rows,
        id_column=SUBJECT_ID,
        transformations=tuple(transformations),
        suppressed_rows=risk.suppressed,
        warnings=tuple(warnings),
        parameters=parameters,
    )
