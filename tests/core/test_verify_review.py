"""Second-reading cases: full dates in forms the gate once let through, and values
that must never be read as dates."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from deid_desktop.core.model import Release
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import verify_release
from tests.core.test_safe_harbor_support import make_case

EXTRACT, PROJECT = make_case()
CLEAN = build_safe_harbor(EXTRACT, PROJECT)


def _with_comment(value: str) -> Release:
    tables = {k: v.copy() for k, v in CLEAN.tables.items()}
    visits = tables["visits"]
    visits["comment"] = pd.array([value] * len(visits), dtype="string")
    tables["visits"] = visits
    return replace(CLEAN, tables=tables)


@pytest.mark.parametrize(
    "value",
    [
        "03-Mar-2024",
        "2024-03-03T10:15:00",
        "2024-03-03T10:15:00Z",
        "03Mar2024",
        "2024-Mar-03",
        "Mar-03-2024",
        "20240303T101500",
        "seen 3 March 2024",
        "Sept. 3, 2024",
    ],
)
def test_a_full_date_in_a_clinical_column_fails_whatever_its_form(value: str) -> None:
    outcome = verify_release(EXTRACT, _with_comment(value), PROJECT).outcome("no_full_dates")
    assert not outcome.passed
    assert outcome.detail["cells_by_column"] == {"visits.comment": len(CLEAN.tables["visits"])}


@pytest.mark.parametrize(
    "value", ["2024", "120/80", "decreased 3 units in 2024", "stable", "marks 3 2024", "410429000"]
)
def test_values_that_are_not_full_dates_pass(value: str) -> None:
    outcome = verify_release(EXTRACT, _with_comment(value), PROJECT).outcome("no_full_dates")
    assert outcome.passed, value


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("daughter reachable at 619-555-1234", "phone"),
        ("call (619) 555-1234 after 5", "phone"),
        ("ssn 123-45-6789 on file", "ssn"),
        ("wrote to someone@example.org", "email"),
        ("see https://example.org/p", "url"),
        ("from 10.1.2.3 overnight", "ip"),
    ],
)
def test_an_identifier_of_anyone_inside_a_clinical_cell_fails(value: str, kind: str) -> None:
    """Not in any direct column (a relative's phone), found by its shape."""
    outcome = verify_release(EXTRACT, _with_comment(value), PROJECT).outcome("no_direct_values")
    assert not outcome.passed
    assert outcome.detail["cells_by_identifier_shape"] == {kind: len(CLEAN.tables["visits"])}
    assert outcome.detail["columns"] == ["visits.comment"]


@pytest.mark.parametrize("value", ["120/80", "7.4", "2024", "ICD10 I50.9", "1.2.3", "8302-2"])
def test_clinical_values_are_not_read_as_identifier_shapes(value: str) -> None:
    outcome = verify_release(EXTRACT, _with_comment(value), PROJECT).outcome("no_direct_values")
    assert outcome.passed, value
