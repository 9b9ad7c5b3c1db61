"""The linkable release: keyed link keys and per-person date shifts.

Requires Expert Determination (45 CFR 164.514(b)(1)); it is never Safe Harbor and never
"anonymous". What it does, table by table:

* the person key becomes ``link_key`` = HMAC-SHA256(salt, normalised MRN) truncated
  (``core.linkage``). The MRN is the person table's direct column of category H (the
  person key itself when it is one, else the first such column); with no MRN column the
  person key is used. The same MRN and salt give the same key in every later extract.
  The crosswalk (link key <-> person key) is held back, never released;
* every date column in every table moves by its person's own offset (whole days, never
  zero, never one offset for everyone), so every within-person interval is exact; the
  values are written as ISO dates (``YYYY-MM-DD``, or ``YYYY-MM-DDTHH:MM:SS`` where the
  column carried a time of day);
* ages over 89 become "90+", and for those persons the birth date is removed: a shifted
  birth date still gives the age to within the offset range;
* the ZIP is cut to its allow-listed three digits (``zip_rule="zip3"``) or dropped
  (``"drop"``); other direct columns are removed; free text is removed, or redacted
  where the project asks for it (as in Safe Harbor);
* rows are ordered by link key (stable within a person), so file order does not carry
  enrollment order. Event rows must each belong to a person (checked before anything).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import InputError, UsageError
from deid_desktop.core.facts.ages import age_numbers, maybe_age_numbers
from deid_desktop.core.facts.persons import spec_for
from deid_desktop.core.facts.shared import facts_for
from deid_desktop.core.facts.text import STRING
from deid_desktop.core.linkage import (
    date_offsets,
    iso_strings,
    link_keys,
    normalise_identifiers,
    salt_fingerprint,
    shift_dates,
)
from deid_desktop.core.model import (
    ColumnClass,
    Extract,
    IdentifierCategory,
    LoadedTable,
    Pathway,
    Project,
    Release,
    Role,
    TableSpec,
)
from deid_desktop.core.pathways.common import (
    ZIP3_COLUMN,
    Treatment,
    apply_risk_settings,
    crosswalk_key_name,
    plan_columns,
    plural,
    redaction_sentences,
    removed_below_k_sentences,
    zip3_series,
)
from deid_desktop.core.pathways.number_text import pool_ages
from deid_desktop.core.pathways.registry import pathway_spec
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.core.zip3 import load_table_for

LINK_KEY = "link_key"
ZIP_RULES = ("zip3", "drop")
_TIME_DIRECTIVES = re.compile(r"%[HIMSpfXcTRrk]")


def has_time(fmt: str) -> bool:
    """Whether a strptime format carries a time of day."""
    return bool(_TIME_DIRECTIVES.search(fmt))


def release_date_format(fmt: str) -> str:
    """The format released dates are written in, given the input column's format."""
    return "%Y-%m-%dT%H:%M:%S" if has_time(fmt) else "%Y-%m-%d"


def link_source(spec: TableSpec, frame: pd.DataFrame) -> str:
    """The person-table column the link key is derived from: the MRN, else the key.

    The MRN is the direct column of category H (medical record number): the key when
    it is one, else the first such column present in the frame.
    """
    mrn = [
        c.name
        for c in spec.columns
        if c.cls == ColumnClass.DIRECT
        and c.category == IdentifierCategory.H
        and c.name in frame.columns
    ]
    if spec.key in mrn or not mrn:
        return spec.key
    return mrn[0]


def person_link_keys(
    person: LoadedTable, spec: TableSpec, salt: bytes, length: int
) -> tuple[pd.Series, str]:
    """Link key per person row, and the column it came from. Two persons whose MRNs are
    equal once normalised would share a key: an input error (count only)."""
    source = link_source(spec, person.frame)
    values = person.frame[source]
    norm = normalise_identifiers(values)
    dup = int(norm.dropna().duplicated().sum())
    if dup:
        raise InputError(
            f"{plural(dup, 'person')} share an identifier with another person once case "
            "and surrounding spaces are ignored, so their link keys would be equal",
            file=person.path.name,
            column=source,
            hint="Each person needs their own MRN (or person key); fix the extract.",
        )
    keys = link_keys(values, salt, length, file=person.path.name, column=source)
    return keys.reset_index(drop=True), source


def person_numbers(keys: pd.Series) -> np.ndarray:
    """Each person's rank by link key (0..n-1): the release's row order."""
    order = pc.sort_indices(pa.array(keys.astype(STRING))).to_numpy()
    numbers = np.empty(len(keys), dtype=np.int64)
    numbers[order] = np.arange(len(keys), dtype=np.int64)
    return numbers


def release_order(person_numbers_per_row: np.ndarray) -> np.ndarray:
    """Row order of a released table: by person, stable within a person."""
    return np.argsort(person_numbers_per_row, kind="stable")


def build_linkable(
    extract: Extract,
    project: Project,
    *,
    salt: bytes | None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> Release:
    """Build the linkable release in memory. Nothing is written here."""
    if not salt:
        raise UsageError(
            "A linkable release needs the project's salt, and none was given.",
            hint="Create one with 'deid salt create PROJECT' (or import the escrowed one).",
        )
    rep = Reporter(progress, cancel)
    opts = project.linkable
    if opts.zip_rule not in ZIP_RULES:
        raise UsageError(
            f"Unknown ZIP rule '{opts.zip_rule}' for the linkable release.",
            hint="Use 'zip3' (allow-listed three digits) or 'drop'.",
        )
    rep.step(0.0, "Checking relationships")
    facts = facts_for(extract, project)  # shared with the gate
    positions = facts.positions
    person = extract.person
    pspec = spec_for(project, person)

    rep.step(0.05, "Deriving link keys")
    keys, source = person_link_keys(person, pspec, salt, opts.key_length)
    offsets = date_offsets(
        keys, mode=opts.offset_mode, days=opts.offset_days, seed=project.seed, salt=salt
    )
    numbers = person_numbers(keys)

    rep.step(0.2, "Assessing ages")
    dates = facts.dates
    ages = facts.ages(project.transform.age_reference)
    over = ages.over_89
    withheld = ages.years_withheld  # over 89 now, or at the data's cut-off
    zip_table = load_table_for(project.transform.zip3_table) if opts.zip_rule == "zip3" else None

    treatments_by_table, redacted = plan_columns(extract, project)

    tables: dict[str, pd.DataFrame] = {}
    dropped: dict[str, list[str]] = {}
    shifted_cols: list[str] = []
    zip_000 = 0
    birth_removed = 0
    pooled = 0
    untagged: list[str] = []
    n_tables = len(extract.tables)
    for i, table in enumerate(extract.tables):
        rep.step(0.3 + 0.65 * i / n_tables, f"Building {table.name}")
        spec = spec_for(project, table)
        pos = positions[table.name]
        order = release_order(numbers[pos])
        row_over = over[pos]
        row_withheld = withheld[pos]
        out: dict[str, pd.Series] = {LINK_KEY: keys.iloc[pos].reset_index(drop=True)}
        for name, treatment in treatments_by_table[table.name].items():
            values = table.frame[name].reset_index(drop=True)
            if treatment == Treatment.KEY:
                continue
            if treatment in (
                Treatment.DROP_DIRECT,
                Treatment.DROP_FREE_TEXT,
                Treatment.DROP_UNTAGGED,
            ):
                dropped.setdefault(treatment.value, []).append(f"{table.name}.{name}")
                if treatment == Treatment.DROP_UNTAGGED:
                    untagged.append(f"{table.name}.{name}")
                continue
            if treatment == Treatment.ZIP:
                if zip_table is None:
                    dropped.setdefault("zip", []).append(f"{table.name}.{name}")
                    continue
                z3, n000 = zip3_series(values, zip_table)
                zip_000 += n000
                out[ZIP3_COLUMN if ZIP3_COLUMN not in out else f"{name}_zip3"] = z3
            elif treatment == Treatment.DATE:
                tag = spec.column(name)
                parsed = dates.get(table.name, tag).reset_index(drop=True)
                moved = shift_dates(parsed, offsets[pos])
                if tag.role == Role.BIRTH_DATE:
                    hide = row_withheld & moved.notna().to_numpy(dtype=bool)
                    birth_removed += int(hide.sum())
                    moved = moved.mask(hide)
                fmt = dates.formats[f"{table.name}.{name}"]
                out[name] = iso_strings(moved, with_time=has_time(fmt))
                shifted_cols.append(f"{table.name}.{name}")
            elif treatment == Treatment.AGE:
                role = spec.column(name).role == Role.AGE
                ages_n = (
                    age_numbers(values, file=table.path.name, column=name)
                    if role
                    else maybe_age_numbers(values)
                )
                if ages_n is None:  # named for age, but not numbers: kept as written
                    out[name] = values.astype(STRING)
                    continue
                force = row_over if table.name == person.name and role else None
                text = pool_ages(ages_n, force)
                pooled += int((text == "90+").sum())
                out[name] = text
            elif treatment == Treatment.REDACT:
                out[name] = redacted.columns[table.name][name].reset_index(drop=True)
                out[name] = out[name].astype(STRING)
            else:
                out[name] = values.astype(STRING)
        frame = pd.DataFrame(out)
        tables[table.name] = frame.iloc[order].reset_index(drop=True)

    rep.step(0.95, "Applying risk settings")
    risk = apply_risk_settings(
        tables,
        project,
        person.name,
        LINK_KEY,
        released_qis_only=True,
        hierarchies=extract.hierarchies,
    )

    rep.step(0.97, "Holding back the crosswalk")
    person_order = release_order(numbers)
    crosswalk = pd.DataFrame(
        {
            LINK_KEY: keys,
            crosswalk_key_name(pspec.key, LINK_KEY): person.frame[pspec.key]
            .reset_index(drop=True)
            .astype(STRING),
        }
    ).iloc[person_order]
    crosswalk = crosswalk.reset_index(drop=True)

    transformations = _sentences(
        project, source, pspec, dropped, shifted_cols, birth_removed, pooled, zip_000
    )
    transformations.extend(redaction_sentences(redacted))
    if untagged:
        transformations.append("Removed untagged columns: " + ", ".join(untagged) + ".")
    transformations.append(
        "Ordered the rows of every table by link key, so file order carries no enrollment order."
    )
    transformations.extend(risk.notes)
    transformations.extend(removed_below_k_sentences(risk, project.risk.k_target))
    warnings = list(ages.warnings)
    if untagged:
        warnings.append(
            f"{plural(len(untagged), 'column')} had no tag and were left out: "
            + ", ".join(untagged)
        )
    parameters: dict[str, object] = {
        "pathway": Pathway.LINKABLE.value,
        "link_key_source": f"{person.name}.{source}",
        "link_key_length": opts.key_length,
        "link_key_normalisation": "NFKC, surrounding white space removed, upper case",
        "offset_mode": opts.offset_mode.value,
        "offset_days": opts.offset_days,
        "offset_zero_excluded": True,
        "seed": project.seed,
        # which salt made the keys (HMAC of a fixed label; reveals nothing of the salt):
        # releases with the same fingerprint link, others do not
        "linkage_fingerprint": salt_fingerprint(bytes(salt)),
        "zip_rule": opts.zip_rule,
        "date_formats": dict(sorted(dates.formats.items())),
        "date_output": "ISO YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS where the input had a time",
        "persons_over_89": int(over.sum()),
        "persons_over_89_at_the_cutoff_only": int(ages.only_at_cutoff.sum()),
        "free_text": {k: str(v) for k, v in sorted(project.transform.free_text.items())},
        "free_text_hits_redacted": dict(sorted(redacted.hits.items())),
        "free_text_hits_left_below_level": dict(sorted(redacted.left.items())),
        "age_source": ages.source,
        "age_reference": ages.reference,
    }
    if zip_table is not None:
        parameters["zip3_table"] = zip_table.vintage
        parameters["zip3_source"] = zip_table.source
    rep.step(1.0, "Linkable release built")
    return Release(
        pathway=Pathway.LINKABLE,
        label=pathway_spec(Pathway.LINKABLE).label,
        tables=tables,
        crosswalk=crosswalk,
        id_column=LINK_KEY,
        transformations=tuple(transformations),
        suppressed_rows=risk.suppressed,
        warnings=tuple(warnings),
        parameters=parameters,
    )


def _sentences(
    project: Project,
    source: str,
    pspec: TableSpec,
    dropped: dict[str, list[str]],
    shifted: list[str],
    birth_removed: int,
    pooled: int,
    zip_000: int,
) -> list[str]:
    opts = project.linkable
    mode = (
        "derived from the keyed hash, so later extracts shift each person identically"
        if opts.offset_mode.value == "keyed"
        else "drawn at random per person (seeded, mixed with the salt)"
    )
    out = [
        f"The person key '{pspec.key}' was replaced by a link key: HMAC-SHA256 with the "
        f"project's secret salt of the normalised '{source}', first {opts.key_length} hex "
        "characters. The same person gets the same link key in later extracts made with "
        "the same salt. The crosswalk is held back, not released.",
        f"Each person's dates were shifted by that person's own offset of 1 to "
        f"{opts.offset_days} days, earlier or later ({mode}); every interval between a "
        f"person's dates is exact. Shifted: {', '.join(shifted) if shifted else 'none'}.",
    ]
    if birth_removed:
        out.append(
            f"The birth date of {plural(birth_removed, 'person')} aged over 89 (at the "
            "reference date or at the data's cut-off, the latest date in the extract) was "
            "removed (a shifted birth date still reveals the age)."
        )
    out.append(f"Ages over 89 are shown as '90+' ({plural(pooled, 'value')} pooled).")
    if opts.zip_rule == "zip3":
        out.append(
            "ZIP codes were cut to their first three digits; prefixes with 20,000 people "
            f"or fewer became '000' ({plural(zip_000, 'value')})."
        )
    else:
        out.append("ZIP codes were removed.")
    direct = dropped.get(Treatment.DROP_DIRECT.value, []) + dropped.get("zip", [])
    if direct:
        out.append("Direct identifiers removed: " + ", ".join(direct) + ".")
    text = dropped.get(Treatment.DROP_FREE_TEXT.value, [])
    if text:
        out.append("Free-text columns removed: " + ", ".join(text) + ".")
    return out
