"""The limited data set (45 CFR 164.514(e)): dates and coarse geography kept, the listed
direct identifiers removed, released only under a data use agreement.

A limited data set is *not* de-identified. It keeps dates (as written in the input),
town or city, state, the 5-digit ZIP code and ages (over 89 included), and removes the
direct identifiers 164.514(e)(2) lists: names; postal address information other than
town or city, state and ZIP; telephone and fax numbers; e-mail addresses; SSNs; medical
record, health plan beneficiary and account numbers; certificate and licence numbers;
vehicle and device identifiers and serial numbers; URLs; IP addresses; biometric
identifiers; full-face photographs and comparable images.

Which direct columns stay (the geography the rule allows), from the tags:

* a column with the ZIP role stays, cut to its first five digits;
* a direct column of category B (geographic subdivision) stays when its name speaks of
  a town, city or state (``city``, ``town``, ``municipality``, ``village``, ``state``,
  also ``zip``/``postal`` when the ZIP role is missing) and of nothing finer
  (``address``, ``street``, ``line``, ``county``, ``lat``/``lon``, ``geo``, ``precinct``,
  ``place``, ``apt``...): ``CITY`` and ``home_state`` stay, ``ADDRESS``,
  ``address_city``, ``COUNTY``, ``LAT`` and ``BIRTHPLACE`` go;
* every other direct column goes, category R ("any other unique code") included - the
  rule does not list it, but keeping it is a choice the user makes by re-tagging it.

The person key becomes a random subject ID (as in Safe Harbor; the crosswalk is held
back) and free text is removed or redacted as chosen. Export refuses without a data use
agreement reference (the gate's check ``dua_present``, in ``core.verify.limited``), which
goes into the export record.
"""

from __future__ import annotations

import re

import pandas as pd

from deid_desktop.core.facts.persons import spec_for
from deid_desktop.core.facts.shared import facts_for
from deid_desktop.core.facts.text import STRING
from deid_desktop.core.model import (
    ColumnClass,
    Extract,
    IdentifierCategory,
    Pathway,
    Project,
    Release,
    Role,
)
from deid_desktop.core.pathways.common import (
    SUBJECT_ID,
    Treatment,
    apply_risk_settings,
    order_rows,
    plan_columns,
    plural,
    random_subject_ids,
    removed_below_k_sentences,
    subject_crosswalk,
)
from deid_desktop.core.pathways.registry import pathway_spec
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter

#: Name words of a kept geographic column, and words that make it finer than a town.
PLACE_WORDS = frozenset(
    {"city", "town", "municipality", "village", "state", "zip", "zipcode", "postal", "postcode"}
)
FINER_WORDS = frozenset(
    {
        "address",
        "addr",
        "street",
        "st",
        "line",
        "line1",
        "line2",
        "county",
        "lat",
        "latitude",
        "lon",
        "lng",
        "long",
        "longitude",
        "geo",
        "geocode",
        "precinct",
        "place",
        "birthplace",
        "apt",
        "unit",
        "suite",
        "box",
        "tract",
        "block",
        "fips",
    }
)
_ZIP5 = re.compile(r"^\s*(\d{5})(?:-?\d{4})?\s*$")


def name_words(column: str) -> set[str]:
    """``homeCity`` -> {"home", "city"}; ``ADDRESS_LINE1`` -> {"address", "line1"}."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", column)
    return {w for w in re.split(r"[^0-9a-zA-Z]+", spaced.lower()) if w}


def lds_keeps(project: Project, table: str, column: str) -> bool:
    """Whether the limited data set keeps this direct column (allowed geography)."""
    try:
        tag = project.table(table).column(column)
    except KeyError:
        return False
    if tag.cls != ColumnClass.DIRECT:
        return False
    if tag.role == Role.ZIP:
        return True
    if tag.category != IdentifierCategory.B:
        return False
    words = name_words(column)
    return bool(words & PLACE_WORDS) and not words & FINER_WORDS


def zip5(values: pd.Series) -> tuple[pd.Series, int]:
    """ZIP as its first five digits (ZIP+4 cut); malformed ones become missing (counted)."""
    text = values.astype(STRING)
    five = text.str.extract(_ZIP5, expand=False).astype(STRING)
    bad = int((text.notna() & (text.str.strip() != "") & five.isna()).sum())
    return five, bad


def build_limited(
    extract: Extract,
    project: Project,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> Release:
    """Build the limited data set in memory. Nothing is written."""
    rep = Reporter(progress, cancel)
    person = extract.person
    pspec = spec_for(project, person)
    rep.step(0.0, "Assigning random subject IDs")
    subjects = random_subject_ids(person.frame[pspec.key], project.seed)
    positions = facts_for(extract, project).positions  # shared with the gate
    treatments, redacted = plan_columns(extract, project, keep_direct_zip=True)
    removed: list[str] = []
    kept_geo: list[str] = []
    text_removed: list[str] = []
    untagged: list[str] = []
    zip_bad = 0
    tables: dict[str, pd.DataFrame] = {}
    for i, table in enumerate(extract.tables):
        rep.step(0.2 + 0.6 * i / len(extract.tables), f"Building {table.name}")
        pos = positions[table.name]
        out: dict[str, pd.Series] = {SUBJECT_ID: subjects.ids.iloc[pos].reset_index(drop=True)}
        for col, treatment in treatments[table.name].items():
            where = f"{table.name}.{col}"
            values = table.frame[col].reset_index(drop=True)
            if treatment == Treatment.KEY:
                continue
            if treatment == Treatment.ZIP:
                out[col], bad = zip5(values)
                zip_bad += bad
                kept_geo.append(where)
            elif treatment == Treatment.DROP_DIRECT:
                if lds_keeps(project, table.name, col):
                    out[col] = values.astype(STRING)
                    kept_geo.append(where)
                else:
                    removed.append(where)
            elif treatment == Treatment.DROP_FREE_TEXT:
                text_removed.append(where)
            elif treatment == Treatment.DROP_UNTAGGED:
                untagged.append(where)
            elif treatment == Treatment.REDACT:
                out[col] = redacted.columns[table.name][col].reset_index(drop=True).astype(STRING)
            else:  # dates, ages, quasi and clinical columns stay as written
                out[col] = values.astype(STRING)
        tables[table.name] = order_rows(pd.DataFrame(out), subjects.numbers[pos])

    rep.step(0.85, "Applying risk settings")
    risk = apply_risk_settings(
        tables,
        project,
        person.name,
        SUBJECT_ID,
        released_qis_only=True,
        hierarchies=extract.hierarchies,
    )
    crosswalk, crosswalk_rows = subject_crosswalk(subjects, person, pspec.key)
    sentences = [
        "Limited data set under 45 CFR 164.514(e): not de-identified; it may be disclosed "
        "only under a data use agreement"
        + (f" (reference: {project.export.dua.strip()})." if project.export.dua.strip() else "."),
        f"Replaced {pspec.key} by a random subject ID ({subjects.prefix} + {subjects.width} "
        "digits, drawn from a random seed that is held back with the crosswalk); the "
        "crosswalk is held back.",
    ]
    if removed:
        sentences.append("Removed direct identifiers: " + ", ".join(removed) + ".")
    if kept_geo:
        sentences.append(
            "Kept town or city, state and ZIP (5 digits): " + ", ".join(kept_geo) + "."
        )
    sentences.append("Kept dates as written and ages as given (over 89 included).")
    if text_removed:
        sentences.append("Removed free-text columns: " + ", ".join(text_removed) + ".")
    for where, count in sorted(redacted.hits.items()):
        sentences.append(
            f"Kept free-text column {where} with {plural(count, 'scan hit')} replaced by "
            "[KIND] (chosen by the user; a scan cannot prove a note clean)."
        )
    if untagged:
        sentences.append("Removed untagged columns: " + ", ".join(untagged) + ".")
    sentences.append("Ordered the rows of every table by subject ID.")
    sentences.extend(risk.notes)
    sentences.extend(removed_below_k_sentences(risk, project.risk.k_target))
    warnings: list[str] = []
    if zip_bad:
        warnings.append(f"{plural(zip_bad, 'ZIP value')} were not 5-digit ZIPs and left empty.")
    if untagged:
        warnings.append(
            f"{plural(len(untagged), 'column')} had no tag and were left out: "
            + ", ".join(untagged)
        )
    if not project.export.dua.strip():
        warnings.append("No data use agreement reference yet: export will refuse without one.")
    rep.step(1.0, "Limited data set built")
    return Release(
        pathway=Pathway.LIMITED_DATA_SET,
        label=pathway_spec(Pathway.LIMITED_DATA_SET).label,
        tables=tables,
        crosswalk=crosswalk,
        crosswalk_rows=crosswalk_rows,
        id_column=SUBJECT_ID,
        transformations=tuple(sentences),
        suppressed_rows=risk.suppressed,
        warnings=tuple(warnings),
        parameters={
            "pathway": Pathway.LIMITED_DATA_SET.value,
            "seed": project.seed,
            "subject_id_format": f"{subjects.prefix} + {subjects.width} zero-padded digits",
            "data_use_agreement": project.export.dua.strip(),
            "kept_geography": kept_geo,
            "removed_direct": removed,
            "zip_values_not_5_digits": zip_bad,
            "free_text": {k: str(v) for k, v in sorted(project.transform.free_text.items())},
            "free_text_hits_redacted": dict(sorted(redacted.hits.items())),
            "free_text_hits_left_below_level": dict(sorted(redacted.left.items())),
        },
    )
