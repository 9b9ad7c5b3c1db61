"""The linkable release's gate (45 CFR 164.514(b)(1): Expert Determination required).

Declared as data (id, name, rule, severity, explanation) with one function each; every
check runs and reports pass/fail with a count, never a value. The heavy comparison of
released and original dates is computed once per release and shared by the checks that
read it.

How released rows are matched to input rows (no hidden column is needed): the crosswalk
gives each input person their link key; the release orders every table by link key,
stable within a person (``pathways.linkable.release_order``), so ordering the input rows
the same way lines them up with the released rows. Persons the release left out (rows
suppressed to raise k) are left out of the comparison too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import DeidError
from deid_desktop.core.facts.ages import MAX_AGE
from deid_desktop.core.facts.persons import released_ids, spec_for
from deid_desktop.core.facts.text import STRING
from deid_desktop.core.io.dates import parse_dates
from deid_desktop.core.model import Extract, Pathway, Project, Release, Role
from deid_desktop.core.pathways.common import Treatment, column_treatments, crosswalk_key_name
from deid_desktop.core.pathways.linkable import release_date_format
from deid_desktop.core.verify.base import (
    BLOCKING,
    LINKABLE,
    Check,
    Finding,
    VerifyContext,
    check_label,
    released_columns,
    rows_matching,
)
from deid_desktop.core.verify.safe_harbor import (
    FULL_DATE,
    check_ages,
    names_a_birth,
    years_by_values,
)
from deid_desktop.core.verify.zips import check_no_zip5, check_zip3_allowed

# --------------------------------------------------------------------------- shared facts


@dataclass(frozen=True)
class _DateFacts:
    persons_compared: int
    cells_compared: int
    unchanged_cells: int  # released date equal to the original
    persons_uneven: int  # persons whose dates did not all move by one amount
    appeared: int  # released date where the input had none
    vanished: int  # input date missing from the release (birth dates of 90+ excepted)
    out_of_range: int  # moved by zero, by more than N days, or by a part of a day
    distinct_offsets: int
    unaligned_tables: tuple[str, ...]


def _input_links(extract: Extract, release: Release, project: Project) -> pa.Array:
    """Link key of each input person row (null where the crosswalk does not have it)."""
    cw = release.crosswalk
    key = spec_for(project, extract.person).key
    held = crosswalk_key_name(key, release.id_column)
    if cw is None or release.id_column not in cw.columns or held not in cw.columns:
        raise DeidError("The release has no crosswalk to match it with the input.")
    where = pd.Index(cw[held].astype(STRING)).get_indexer(extract.person.frame[key].astype(STRING))
    links = pa.array(cw[release.id_column].astype(STRING))
    return links.take(pa.array(where, mask=where < 0))


def _person_codes(
    extract: Extract, release: Release, project: Project
) -> tuple[np.ndarray, pa.Array]:
    """Each input person's rank among the released link keys (-1: not released), and the
    released link keys in sorted order. The release orders every table by link key."""
    released = release.tables.get(extract.person.name)
    if released is None or release.id_column not in released.columns:
        raise DeidError("The release has no person table with link keys.")
    keys = pa.array(released[release.id_column].astype(STRING))
    sorted_keys = keys.take(pc.sort_indices(keys))
    rank = pc.index_in(_input_links(extract, release, project), value_set=sorted_keys)
    codes = rank.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    return codes, sorted_keys


def date_facts(release: Release, ctx: VerifyContext) -> _DateFacts:
    """Compare every released date with its input date (once per verification)."""
    cached = ctx.__dict__.get("_linkable_date_facts")
    if cached is not None and cached[0] is release:
        return cached[1]
    facts = _compute_date_facts(ctx.extract, release, ctx.project, ctx)
    ctx.__dict__["_linkable_date_facts"] = (release, facts)
    return facts


def _compute_date_facts(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> _DateFacts:
    person_code, sorted_keys = _person_codes(extract, release, project)
    code_parts: list[np.ndarray] = []
    delta_parts: list[np.ndarray] = []
    unchanged = appeared = vanished = 0
    unaligned: list[str] = []
    for table in extract.tables:
        spec = spec_for(project, table)
        released = release.tables.get(table.name)
        if released is None:
            unaligned.append(table.name)
            continue
        row_code = person_code[ctx.positions[table.name]]
        kept = np.flatnonzero(row_code >= 0)
        order = kept[np.argsort(row_code[kept], kind="stable")]  # as the release orders rows
        codes = row_code[order]
        expected = sorted_keys.take(pa.array(codes))
        actual = pa.array(released[release.id_column].astype(STRING))
        if len(order) != len(released) or not (
            len(actual) == 0 or pc.all(pc.equal(expected, actual)).as_py()
        ):
            unaligned.append(table.name)
            continue
        for name, treatment in column_treatments(spec, table.frame.columns).items():
            if treatment != Treatment.DATE or name not in released.columns:
                continue
            tag = spec.column(name)
            before = ctx.dates.get(table.name, tag).to_numpy(dtype="datetime64[ns]")[order]
            fmt = release_date_format(ctx.dates.formats[f"{table.name}.{name}"])
            after = parse_dates(
                released[name].reset_index(drop=True), fmt, file=table.name, column=name
            ).to_numpy(dtype="datetime64[ns]")
            b_ok, a_ok = ~np.isnat(before), ~np.isnat(after)
            appeared += int((a_ok & ~b_ok).sum())
            if tag.role != Role.BIRTH_DATE:  # removed on purpose for persons over 89
                vanished += int((b_ok & ~a_ok).sum())
            both = a_ok & b_ok
            delta = (after[both] - before[both]).astype(np.int64)
            unchanged += int((delta == 0).sum())
            code_parts.append(codes[both])
            delta_parts.append(delta)
    all_codes = np.concatenate(code_parts) if code_parts else np.array([], np.int64)
    d = np.concatenate(delta_parts) if delta_parts else np.array([], np.int64)
    per_person = pd.Series(d).groupby(all_codes).agg(["min", "max"])
    day = np.int64(86_400 * 10**9)
    n_days = int(project.linkable.offset_days)
    out_of_range = int(((d == 0) | (d % day != 0) | (np.abs(d) > n_days * day)).sum())
    return _DateFacts(
        persons_compared=len(per_person),
        cells_compared=len(d),
        unchanged_cells=unchanged,
        persons_uneven=int((per_person["min"] != per_person["max"]).sum()),
        appeared=appeared,
        vanished=vanished,
        out_of_range=out_of_range,
        distinct_offsets=len(np.unique(per_person["min"].to_numpy())),
        unaligned_tables=tuple(unaligned),
    )


# --------------------------------------------------------------------------- the checks


def check_link_keys(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    keys = released_ids(extract, release)
    if keys is None:
        return Finding(False, 1, {"person_table_or_link_key_missing": True})
    missing = int(keys.isna().sum())
    dup = int(keys.dropna().duplicated().sum())
    cw_bad = 0
    if release.crosswalk is None:
        cw_bad = 1
    else:
        cw = release.crosswalk
        cw_bad = int(cw[release.id_column].duplicated().sum()) + int(
            cw.drop(columns=[release.id_column]).iloc[:, 0].duplicated().sum()
        )
    key_len = int(project.linkable.key_length)
    wrong_shape = int((~keys.dropna().str.fullmatch(f"[0-9a-f]{{{key_len}}}").fillna(False)).sum())
    bad = missing + dup + cw_bad + wrong_shape
    return Finding(
        bad == 0,
        bad,
        {
            "persons": len(keys),
            "duplicate_keys": dup,
            "missing_keys": missing,
            "crosswalk_not_one_to_one": cw_bad,
            "keys_not_hex_of_length": wrong_shape,
        },
    )


def check_events_link(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    person = release.tables.get(extract.person.name)
    if person is None:
        return Finding(False, 1, {"person_table_missing": True})
    keys = pa.array(person[release.id_column].astype(STRING))
    per_table: dict[str, int] = {}
    rows = 0
    for ev in extract.events:
        frame = release.tables.get(ev.name)
        if frame is None:
            continue
        found = pc.is_in(pa.array(frame[release.id_column].astype(STRING)), value_set=keys)
        rows += len(frame)
        unlinked = len(frame) - int(pc.sum(found).as_py() or 0)
        if unlinked:
            per_table[ev.name] = unlinked
    bad = sum(per_table.values())
    return Finding(bad == 0, bad, {"event_rows": rows, "unlinked_by_table": per_table})


def check_intervals(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    f = date_facts(release, ctx)
    bad = f.persons_uneven + f.appeared + f.vanished + len(f.unaligned_tables)
    return Finding(
        bad == 0,
        bad,
        {
            "dates_compared": f.cells_compared,
            "persons_compared": f.persons_compared,
            "persons_whose_dates_moved_unevenly": f.persons_uneven,
            "released_dates_without_input_date": f.appeared,
            "input_dates_missing_from_release": f.vanished,
            "tables_not_matched_row_by_row": list(f.unaligned_tables),
        },
    )


def check_no_true_dates(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    f = date_facts(release, ctx)
    return Finding(
        f.unchanged_cells == 0,
        f.unchanged_cells,
        {"dates_compared": f.cells_compared, "dates_equal_to_input": f.unchanged_cells},
    )


def check_offsets(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    f = date_facts(release, ctx)
    one_for_all = f.persons_compared > 1 and f.distinct_offsets <= 1
    bad = f.out_of_range + int(one_for_all)
    return Finding(
        bad == 0,
        bad,
        {
            "distinct_offsets": f.distinct_offsets,
            "persons_compared": f.persons_compared,
            "offset_range_days": int(project.linkable.offset_days),
            "dates_moved_by_zero_part_of_a_day_or_out_of_range": f.out_of_range,
            "one_offset_for_everyone": one_for_all,
        },
    )


def check_no_unshifted_dates(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    """Every released full date is a shifted date of its person: the columns the pathway
    shifts are compared with the input (``intervals_preserved``, ``no_true_dates``); any
    other released column holding a full date (in the formats the loader reads and the
    Safe Harbor gate's, times included) holds dates that were not shifted."""
    shifted = {
        (table.name, name)
        for table in extract.tables
        for name, treatment in column_treatments(
            spec_for(project, table), table.frame.columns
        ).items()
        if treatment == Treatment.DATE
    }
    per_column: dict[str, int] = {}
    partial: dict[str, int] = {}
    for t, c, values in released_columns(release):
        if (t, c) in shifted:
            continue
        uniq = ctx.uniques(t, c, values)
        n = rows_matching(uniq, FULL_DATE)
        if n:
            per_column[f"{t}.{c}"] = n
        elif m := _partial_date_cells(uniq, c):
            partial[f"{t}.{c}"] = m
    messages = [
        f"Column {where} holds {n:,} {'date' if n == 1 else 'dates'} that "
        f"{'was' if n == 1 else 'were'} not shifted; tag it as a date (deid tag PROJECT "
        f"{where}=date) so that they move by each person's offset."
        for where, n in sorted(per_column.items())
    ] + [
        f"Column {where} holds {n:,} unshifted part{'s' if n != 1 else ''} of dates (a "
        "month, a week or a day of the year), which beside the shifted dates tell each "
        f"person's offset; remove it (deid tag PROJECT {where}=direct)."
        for where, n in sorted(partial.items())
    ]
    count = sum(per_column.values()) + sum(partial.values())
    return Finding(
        count == 0,
        count,
        {
            "cells_by_column": {**per_column, **partial},
            "columns_shifted": len(shifted),
            "messages": messages,
        },
    )


def _partial_date_cells(uniq: pd.Series, column: str) -> int:
    """Rows of a column whose cell is a date finer than a year but not a full date
    (``2024-03``, ``03/2024``, ``March 2024``, ``12 Mar``, ``2024-W11``): the loader's
    date-shape detector on the column's distinct cells."""
    from deid_desktop.core.io.date_shapes import date_shape_of

    if uniq.empty:
        return 0
    shapes = date_shape_of(pd.Series(uniq.index, dtype=STRING), column=column)
    return int(uniq.to_numpy()[shapes.notna().to_numpy(dtype=bool)].sum())


def check_birth_dates_over_89(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    """No released birth date for a person over 89: from the input (at the reference
    date or at the data's cut-off), a released 90+, or the release alone (a shifted
    birth date 90 years and twice the offset range before the latest shifted date)."""
    ages = ctx.ages
    # From the release alone: a shifted birth date this far before the latest shifted
    # date is over 89 there whatever the two offsets (each at most N days).
    latest = _latest_released_day(extract, release, project)
    certain = (MAX_AGE + 1) * 365.2425 + 2 * int(project.linkable.offset_days) + 1
    links = _input_links(extract, release, project).filter(pa.array(ages.years_withheld))
    over_keys = pc.unique(links.drop_null())
    bad = 0
    for table in extract.tables:
        spec = spec_for(project, table)
        frame = release.tables.get(table.name)
        birth = spec.by_role(Role.BIRTH_DATE)
        if frame is None or birth is None or birth.name not in frame.columns:
            continue
        keys = pa.array(frame[release.id_column].astype(STRING))
        over = pc.is_in(keys, value_set=over_keys).to_numpy(zero_copy_only=False).copy()
        age = spec.by_role(Role.AGE)
        if age is not None and age.name in frame.columns:
            over |= (
                (frame[age.name].astype(STRING).str.strip() == "90+")
                .fillna(False)
                .to_numpy(dtype=bool)
            )
        born = _released_days(frame[birth.name])
        if latest is not None:
            over |= (latest - born) >= certain  # NaN compares False
        bad += int((over & frame[birth.name].notna().to_numpy(dtype=bool)).sum())
    years = _birth_years_of_persons_over_89(release, project, ctx, over_keys)
    bad += sum(years.values())
    return Finding(
        bad == 0,
        bad,
        {
            "persons_over_89": len(over_keys),
            "birth_dates_released": bad,
            "birth_years_by_column": years,
            "cells_by_column": years,  # the columns named in the plain sentence
        },
    )


def _birth_years_of_persons_over_89(
    release: Release, project: Project, ctx: VerifyContext, over_keys: pa.Array
) -> dict[str, int]:
    """Cells of released columns other than the birth-date role's that hold birth years
    (a name that says birth, values that are years: a clinical ``yob``) in the rows of
    persons over 89 -> "table.column": cells."""
    out: dict[str, int] = {}
    for t, c, values in released_columns(release):
        try:
            birth = project.table(t).by_role(Role.BIRTH_DATE)
        except KeyError:
            birth = None
        if (birth is not None and c == birth.name) or not names_a_birth(c):
            continue
        if not years_by_values(ctx.uniques(t, c, values)):
            continue
        keys = pa.array(release.tables[t][release.id_column].astype(STRING))
        over = pc.is_in(keys, value_set=over_keys).to_numpy(zero_copy_only=False)
        n = int((over & values.notna().to_numpy(dtype=bool)).sum())
        if n:
            out[f"{t}.{c}"] = n
    return out


def _released_days(values: pd.Series) -> np.ndarray:
    """Released ISO dates (or date-times) as days since 1970 (float, NaN: none)."""
    text = pc.utf8_slice_codeunits(pa.array(values.astype(STRING)), 0, 10)
    stamps = pc.strptime(text, format="%Y-%m-%d", unit="s", error_is_null=True)
    seconds = pc.cast(stamps, pa.int64()).to_numpy(zero_copy_only=False)
    return np.asarray(seconds, dtype=np.float64) / 86_400.0


def _latest_released_day(extract: Extract, release: Release, project: Project) -> float | None:
    """The latest shifted date anywhere in the release (its distinct values read)."""
    latest: float | None = None
    for table in extract.tables:
        frame = release.tables.get(table.name)
        if frame is None:
            continue
        spec = spec_for(project, table)
        for name, treatment in column_treatments(spec, table.frame.columns).items():
            if treatment != Treatment.DATE or name not in frame.columns:
                continue
            distinct = pd.Series(pc.unique(pa.array(frame[name].astype(STRING))), dtype=STRING)
            days = _released_days(distinct)
            if (~np.isnan(days)).any():
                top = float(np.nanmax(days))
                latest = top if latest is None else max(latest, top)
    return latest


CHECKS: tuple[Check, ...] = (
    Check(
        "linkable_label",
        "Labelled as requiring Expert Determination",
        "45 CFR 164.514(b)(1)",
        BLOCKING,
        "A linkable release is not Safe Harbor and not anonymous; its label says so.",
        check_label(Pathway.LINKABLE),
        LINKABLE,
    ),
    Check(
        "link_keys_unique",
        "Link keys unique per person",
        "RULES.md linkable release",
        BLOCKING,
        "Each released person has exactly one link key (hex, of the chosen length), no two "
        "persons share one, and the held-back crosswalk is one-to-one.",
        check_link_keys,
        LINKABLE,
    ),
    Check(
        "events_link_to_persons",
        "Every event row links to a released person",
        "RULES.md multi-table releases",
        BLOCKING,
        "Every event row's link key is one of the released person table's.",
        check_events_link,
        LINKABLE,
    ),
    Check(
        "intervals_preserved",
        "Within-person intervals exact",
        "RULES.md linkable release",
        BLOCKING,
        "All of a person's dates, in every table, moved by the same number of days, so "
        "every interval between two of them equals the original; no date appeared or "
        "vanished (birth dates of persons over 89 are removed on purpose).",
        check_intervals,
        LINKABLE,
    ),
    Check(
        "no_true_dates",
        "No original calendar date survives",
        "RULES.md linkable release",
        BLOCKING,
        "No shifted date equals the person's true date.",
        check_no_true_dates,
        LINKABLE,
    ),
    Check(
        "linkable_no_unshifted_dates",
        "Every released date is shifted",
        "RULES.md linkable release",
        BLOCKING,
        "No released column other than the shifted date columns holds a full date (ISO, "
        "US, day-first, dotted, compact or with a month name, with or without a time) or "
        "a part of one finer than a year (year-month, month-name and year, day and month, "
        "ISO week): a date left unshifted next to a shifted one gives away the person's "
        "offset, and with it every date of that person.",
        check_no_unshifted_dates,
        LINKABLE,
    ),
    Check(
        "offsets_per_person",
        "Offsets per person, within range, never one for all",
        "RULES.md linkable release",
        BLOCKING,
        "Dates move by whole days within the chosen range and never by zero; one offset "
        "for everyone would let a single known date undo every shift.",
        check_offsets,
        LINKABLE,
    ),
    Check(
        "linkable_no_zip5",
        "No 5-digit ZIP",
        "45 CFR 164.514(b)(2)(i)(B)",
        BLOCKING,
        "ZIP codes are cut to three digits or removed; no ZIP, ZIP3 or postal-code column "
        "holds 5 digits in a row.",
        check_no_zip5,
        LINKABLE,
    ),
    Check(
        "linkable_zip3_allowed",
        "No restricted or unknown ZIP3",
        "45 CFR 164.514(b)(2)(i)(B)",
        BLOCKING,
        "Every ZIP3 is '000' or a prefix with more than 20,000 people in the Census table used.",
        check_zip3_allowed,
        LINKABLE,
    ),
    Check(
        "linkable_ages_pooled",
        "No age above 89",
        "45 CFR 164.514(b)(2)(i)(C)",
        BLOCKING,
        "Every age above 89 is shown as the single category '90+'.",
        check_ages,
        LINKABLE,
    ),
    Check(
        "linkable_birth_dates_over_89",
        "No birth date for a person over 89",
        "45 CFR 164.514(b)(2)(i)(C)",
        BLOCKING,
        "A shifted birth date still gives the age to within the offset range, so persons "
        "over 89 have no birth date in the release, and no birth year in any column "
        "whose name says birth and whose values are years (a 'yob' kept as clinical).",
        check_birth_dates_over_89,
        LINKABLE,
    ),
)
