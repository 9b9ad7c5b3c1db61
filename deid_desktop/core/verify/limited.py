"""The limited data set's gate (45 CFR 164.514(e)): its label, the data use agreement,
the listed direct identifiers removed (by name and by value) and subject IDs unrelated
to the person key. The geography the rule lets it keep (town or city, state, ZIP) is
``pathways.limited.lds_keeps``; the shared direct-identifier checks see those columns
as quasi-identifiers (``lds_view``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from deid_desktop.core.model import ColumnClass, Extract, Pathway, Project, Release
from deid_desktop.core.pathways.limited import lds_keeps
from deid_desktop.core.verify.base import (
    BLOCKING,
    LIMITED,
    Check,
    CheckFn,
    Finding,
    VerifyContext,
    check_label,
)
from deid_desktop.core.verify.direct import check_no_direct_columns, check_no_direct_values
from deid_desktop.core.verify.safe_harbor import check_subject_ids

#: ``kept(project, table, column)``: whether a pathway may release a direct column.
KeptFn = Callable[[Project, str, str], bool]


def _dua_present(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    ok = bool(project.export.dua.strip())
    return Finding(ok, int(not ok), {"dua_recorded": ok})


def lds_view(project: Project, kept: KeptFn) -> Project:
    """The project as the shared direct-identifier checks should see a limited data set:
    the geography it may keep (town or city, state, ZIP) tagged quasi, not direct."""
    tables = []
    for spec in project.tables:
        cols = tuple(
            replace(tag, cls=ColumnClass.QUASI, category=None)
            if tag.cls == ColumnClass.DIRECT and kept(project, spec.name, tag.name)
            else tag
            for tag in spec.columns
        )
        tables.append(replace(spec, columns=cols))
    return replace(project, tables=tuple(tables))


def lds_no_direct_columns(kept: KeptFn) -> CheckFn:
    """No released column is a direct column the limited data set must remove."""

    def run(extract: Extract, release: Release, project: Project, ctx: VerifyContext) -> Finding:
        return check_no_direct_columns(extract, release, lds_view(project, kept), ctx)

    return run


def lds_no_direct_values(kept: KeptFn) -> CheckFn:
    """The shared value search (names as whole words, IDs as substrings) over every
    direct column the limited data set removed."""

    def run(extract: Extract, release: Release, project: Project, ctx: VerifyContext) -> Finding:
        return check_no_direct_values(extract, release, lds_view(project, kept), ctx)

    return run


def limited_checks(kept: KeptFn) -> tuple[Check, ...]:
    """The limited data set's checks; ``kept(project, table, column)`` says which direct
    columns (town or city, state, ZIP) it may keep."""
    return (
        Check(
            "lds_label",
            "Labelled as a limited data set",
            "45 CFR 164.514(e)",
            BLOCKING,
            "A limited data set is not de-identified; its label says a data use agreement "
            "is required.",
            check_label(Pathway.LIMITED_DATA_SET),
            LIMITED,
        ),
        Check(
            "dua_present",
            "Data use agreement reference recorded",
            "45 CFR 164.514(e)(4)",
            BLOCKING,
            "A limited data set may be disclosed only under a data use agreement; its "
            "reference goes into the export record. Set it before export (--dua).",
            _dua_present,
            LIMITED,
        ),
        Check(
            "lds_no_direct_columns",
            "The listed direct identifiers removed",
            "45 CFR 164.514(e)(2)",
            BLOCKING,
            "Names, postal address other than town or city, state and ZIP, phone, fax, "
            "e-mail, SSN, record, plan, account, certificate, vehicle and device numbers, "
            "URLs, IPs, biometrics and photos are removed (and every other column tagged "
            "direct, to be safe).",
            lds_no_direct_columns(kept),
            LIMITED,
        ),
        Check(
            "lds_no_direct_values",
            "No removed identifier value in any released cell",
            "45 CFR 164.514(e)(2)",
            BLOCKING,
            "No value of a removed direct column appears in any released cell (names as "
            "whole words, IDs, phones and e-mails as substrings; the shared search of the "
            "Safe Harbor gate, minus the town or city, state and ZIP the rule keeps).",
            lds_no_direct_values(kept),
            LIMITED,
        ),
    )


CHECKS: tuple[Check, ...] = (
    *limited_checks(lds_keeps),
    Check(
        "lds_subject_ids",
        "Subject IDs unique and unrelated to the person key",
        "45 CFR 164.514(e)(2)",
        BLOCKING,
        "Subject IDs are unique, every event row has one of a released person, no ID "
        "equals a person key and none contains its own person's key.",
        check_subject_ids,
        LIMITED,
    ),
)
