"""The human documents of a release: data dictionary, README, crosswalk warning.

Wording rule: a release is "de-identified under ..." (the pathway's label) - never
described with the word the product forbids (see ``FORBIDDEN_WORD`` in the tests).
No document carries a cell value; they name tables, columns and counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from deid_desktop.core.export.cells import neutralise_frame, neutralise_names
from deid_desktop.core.export.summaries import SCAN_DISCLAIMER
from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    FreeTextAction,
    Project,
    Release,
    Role,
    TableSpec,
)
from deid_desktop.core.pathways.common import counted_columns, released_not_counted, source_tag
from deid_desktop.core.pathways.registry import ReleaseWording, pathway_spec

DICTIONARY_COLUMNS = ("table", "column", "class", "transformation", "description")


def _treatment(tag: ColumnTag, wording: ReleaseWording, project: Project, table: str) -> str:
    if tag.cls == ColumnClass.DATE or tag.role == Role.BIRTH_DATE:
        return wording.date_treatment(birth_date=tag.role == Role.BIRTH_DATE)
    if tag.role == Role.ZIP:
        return wording.zip
    if tag.role == Role.AGE and wording.age is not None:
        return wording.age
    if tag.cls == ColumnClass.FREE_TEXT:
        action = project.transform.free_text.get(f"{table}.{tag.name}")
        if action == FreeTextAction.REDACT:
            return "free-text scan hits replaced by [KIND] (redaction cannot prove a note clean)"
        return "kept"
    if tag.cls == ColumnClass.QUASI:
        return "kept (quasi-identifier)"
    if tag.cls == ColumnClass.DIRECT:
        return "kept (limited data set)"
    return "kept as it is"


def _description(tag: ColumnTag) -> str:
    parts = [tag.cls.label]
    if tag.role is not None:
        parts.append(f"role: {tag.role.value.replace('_', ' ')}")
    if tag.category is not None:
        parts.append(f"Safe Harbor category {tag.category.value} ({tag.category.title})")
    return "; ".join(parts)


def data_dictionary(release: Release, project: Project) -> pd.DataFrame:
    """One row per released column: table, column, class, transformation, description.

    The pathway's wording comes from its spec (``UsageError`` for an unknown pathway)."""
    wording = pathway_spec(release.pathway).wording
    person = release.tables.get(project.person_table.name)
    counted: set[str] = set()
    not_counted: set[str] = set()
    if person is not None:
        counted = set(counted_columns(project, person))
        not_counted = set(released_not_counted(project, person))
    rows: list[dict[str, str]] = []
    for table, frame in release.tables.items():
        try:
            spec: TableSpec | None = project.table(table)
        except KeyError:
            spec = None
        for column in frame.columns:
            column = str(column)
            if column == release.id_column:
                rows.append(
                    {
                        "table": table,
                        "column": column,
                        "class": "code",
                        "transformation": wording.identifier,
                        "description": "Identifies a person within this release only",
                    }
                )
                continue
            tag, derived = source_tag(spec, column)
            if tag is None:
                rows.append(
                    {
                        "table": table,
                        "column": column,
                        "class": "derived",
                        "transformation": "added by the release pathway (see README.txt)",
                        "description": "",
                    }
                )
                continue
            treatment = _treatment(tag, wording, project, table)
            if derived:
                treatment = f"derived from {tag.name}: {treatment}"
            if column in counted:
                treatment += "; counted in the residual risk"
            elif column in not_counted:
                treatment += "; released, not counted in the residual risk (the user's choice)"
            rows.append(
                {
                    "table": table,
                    "column": column,
                    "class": tag.cls.value,
                    "transformation": treatment,
                    "description": _description(tag),
                }
            )
    frame = pd.DataFrame(rows, columns=list(DICTIONARY_COLUMNS), dtype="string")
    return neutralise_frame(frame)[0]  # a column named =cmd|... is a formula in a cell


def _fmt_ratio(x: float) -> str:
    return f"{x:.4f}"


def _section(title: str, lines: Sequence[str]) -> list[str]:
    return [title, "-" * len(title), *lines, ""]


def render_readme(
    *,
    release: Release,
    project: Project,
    files: Sequence[tuple[str, str]],
    table_shapes: Mapping[str, tuple[int, int]],
    checks: Sequence[Mapping[str, Any]],
    risk: Mapping[str, Any] | None,
    scan: Mapping[str, Any] | None,
    neutralised: Mapping[str, int],
    meta: Mapping[str, str],
    app_version: str,
    has_crosswalk: bool,
    verdict: Mapping[str, Any] | None = None,
    cross_release: Mapping[str, Any] | None = None,
) -> str:
    """README.txt of the release. Deterministic: no clock, no paths, no values."""
    label = release.label
    title = f"Release: {project.name}" if project.name else "Release"
    out: list[str] = [title, "=" * len(title), "", f"This release is {label}.", ""]

    provided = [
        f"{name}: {meta[key]}"
        for key, name in (
            ("recipient", "Recipient"),
            ("purpose", "Purpose"),
            ("retention", "Retention period"),
            ("dua", "Data use agreement"),
        )
        if meta.get(key)
    ]
    if provided:
        out += _section("Provided for", provided)
    if verdict is not None:  # the review's verdict: headline and the access model that fits
        out += _section(
            "Risk verdict",
            [str(verdict["headline"]), f"Access model that fits: {verdict['access_model']}."],
        )

    if cross_release is not None:  # ``CrossReleaseReport.public_dict``: counts, dates
        out += _section("Risk across releases", _cross_release_lines(cross_release))

    file_lines = []
    for name, what in files:
        file_lines.append(f"{name}  -  {what}")
    out += _section("Files", file_lines)

    table_lines = [
        f"{t}: {rows:,} rows, {cols} columns"
        + (
            f" ({release.suppressed_rows[t]:,} rows suppressed)"
            if release.suppressed_rows.get(t)
            else ""
        )
        for t, (rows, cols) in table_shapes.items()
    ]
    out += _section("Tables", table_lines)

    done = [f"- {t}" for t in release.transformations] or ["- (no transformation reported)"]
    out += _section("What was done", done)

    passed = sum(1 for c in checks if c["passed"])
    check_lines = [f"{passed} of {len(checks)} release checks passed before export:"]
    # a failed warning ("warn") did not stop the export; a blocking check never fails here
    check_lines += [
        f"- [{_mark(c)}] {c['name']}"
        + (f" ({c['rule']})" if c.get("rule") else "")
        + ("" if c["passed"] else f": {c['count']:,}")
        for c in checks
    ]
    out += _section("Checks", check_lines)

    if risk is not None:
        qis = ", ".join(risk.get("quasi_identifiers", [])) or "(none)"
        k = risk.get("k")
        not_counted = ", ".join(risk.get("released_not_counted", []))
        risk_lines = [
            f"Measured on the person table, on the columns: {qis}.",
            *(
                [f"Released but not counted (left out by the user): {not_counted}."]
                if not_counted
                else []
            ),
            f"k (smallest group of records sharing the same values): {k if k is not None else '-'}",
            f"Equivalence classes: {risk['classes']:,}",
            f"Lone records (a group of one): {risk['lone']:,}",
            f"Records in groups smaller than {risk['k_target']}: {risk['below_k']:,}",
            f"Prosecutor risk: maximum {_fmt_ratio(risk['prosecutor_max'])} (= 1 / k), "
            f"record-weighted mean {_fmt_ratio(risk['prosecutor_mean'])} (= classes / rows)",
        ]
        for col, lval in (risk.get("l_diversity") or {}).items():
            risk_lines.append(f"l-diversity of {col}: {lval if lval is not None else '-'}")
        risk_lines.append("A missing value counts as a value of its own when forming groups.")
        out += _section("Residual risk", risk_lines)

    text_lines: list[str] = []
    free_text_cols = [
        f"{t.name}.{c.name}" for t in project.tables for c in t.by_class(ColumnClass.FREE_TEXT)
    ]
    if free_text_cols:
        redacted = [
            c for c in free_text_cols if project.transform.free_text.get(c) == FreeTextAction.REDACT
        ]
        removed = [c for c in free_text_cols if c not in redacted]
        if removed:
            text_lines.append("Free-text columns removed: " + ", ".join(removed) + ".")
        if redacted:
            text_lines.append(
                "Free-text columns kept with scan hits replaced by [KIND]: "
                + ", ".join(redacted)
                + "."
            )
    else:
        text_lines.append("The extract had no column tagged as free text.")
    if scan is not None and scan.get("scanned") is False:
        text_lines.append(
            "The free text was not scanned in this run: no free-text column is released."
        )
    elif scan is not None:
        text_lines.append(
            f"Scan of the extract's free text: {scan.get('hits', 0):,} possible identifiers "
            f"found in {scan.get('rows_with_hits', 0):,} rows."
        )
    text_lines.append(SCAN_DISCLAIMER)
    out += _section("Free text", text_lines)

    if has_crosswalk:
        out += _section(
            "Re-identification code",
            [
                "The table linking the IDs in this release back to persons was kept apart "
                "by the sender and is not part of this release (45 CFR 164.514(c)).",
                "Do not attempt to identify any person in this release.",
            ],
        )
    total_neutralised = sum(neutralised.values())
    if total_neutralised:
        out += _section(
            "Spreadsheet safety",
            [
                f"{total_neutralised:,} cells beginning with =, +, -, @, a tab or a carriage "
                "return were prefixed with an apostrophe (') so spreadsheet programs show "
                "them as text instead of running them as formulas. Plain numbers such as "
                "-1.5 are unchanged."
            ],
        )
    if release.warnings:
        out += _section("Warnings", [f"- {w}" for w in release.warnings])
    out.append(f"Prepared with deid-desktop {app_version}.")
    return neutralise_names("\n".join(out) + "\n", _names(project, release))


def _cross_release_lines(cross: Mapping[str, Any]) -> list[str]:
    """What combining this release with earlier ones of the same source isolates (the
    README says it only when it isolates someone)."""
    releases = [r for r in cross.get("releases") or [] if r.get("status") == "checked"]
    n = len(releases)
    lines = [
        f"The sender combined this release, person by person, with {n} earlier release"
        f"{'' if n == 1 else 's'} of the same source. Whoever holds both can do the same:",
    ]
    lines += [f"- {w}" for w in cross.get("warnings") or [] if str(w).startswith("Combined")]
    return lines


def _names(project: Project, release: Release) -> list[str]:
    """Every table and column name a document may echo (the user's file chose them)."""
    names = [t.name for t in project.tables] + [c.name for t in project.tables for c in t.columns]
    return names + [str(c) for frame in release.tables.values() for c in frame.columns]


def render_crosswalk_readme(*, crosswalk_file: str, release_folder: str, rows: int) -> str:
    lines = [
        "CROSSWALK - KEEP APART - DO NOT DISCLOSE",
        "=======================================",
        "",
        f"{crosswalk_file} links each ID of the release in {release_folder} back to the "
        f"person key of the source extract ({rows:,} rows).",
        "",
        "- Keep this folder apart from the release, with access limited to the people who "
        "hold the source data.",
        "- Never send it, copy it beside the release, or describe how it was made to the "
        "recipient: 45 CFR 164.514(c) allows a re-identification code only if it is not "
        "disclosed.",
        "- Delete it when the retention period of the release ends, unless re-identification "
        "is still needed and allowed.",
        "",
    ]
    return "\n".join(lines)


def _mark(check: dict) -> str:  # type: ignore[type-arg]
    """pass, FAIL (blocking), or warn (a warning: shown, the release not refused)."""
    if check["passed"]:
        return "pass"
    return "warn" if check.get("severity") == "warning" else "FAIL"
