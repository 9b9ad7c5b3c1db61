"""The risk settings every pathway applies through ``common.apply_risk_settings``:
suppression below k removes persons with their event rows, ZIP3 and age bands are
applied in place, and the user's quasi-identifiers are checked against the release."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from deid_desktop.core.errors import DeidError
from deid_desktop.core.model import Project, RiskSettings
from deid_desktop.core.pathways.common import apply_risk_settings, removed_below_k_sentences
from tests.core.test_safe_harbor_support import make_case

TEXT = pd.StringDtype("pyarrow")


def _released() -> dict[str, pd.DataFrame]:
    """A released people table (6 persons; S6 alone in its class) and their visits."""
    ids = [f"S{i}" for i in range(1, 7)]
    people = pd.DataFrame(
        {
            "subject_id": ids,
            "age": ["30", "30", "30", "70", "70", "81"],
            "sex": ["F", "F", "F", "M", "M", "M"],
            "zip3": ["021", "021", "021", "100", "100", "100"],
        },
        dtype=TEXT,
    )
    visits = pd.DataFrame(
        {"subject_id": [s for s in ids for _ in (1, 2)], "sbp": ["120"] * 12}, dtype=TEXT
    )
    return {"people": people, "visits": visits}


def _project(**risk: object) -> Project:
    _extract, project = make_case()
    return dataclasses.replace(project, risk=RiskSettings(**risk))  # type: ignore[arg-type]


def test_suppression_removes_the_lone_person_and_their_event_rows() -> None:
    tables = _released()
    project = _project(suppress_below_k=True, k_target=2)
    risk = apply_risk_settings(tables, project, "people", "subject_id", released_qis_only=False)
    assert risk.quasi_identifiers == ("age", "sex", "zip3")  # ZIP released as zip3
    assert risk.removed == 1 and risk.suppressed == {"people": 1, "visits": 2}
    assert "S6" not in set(tables["people"]["subject_id"])
    assert "S6" not in set(tables["visits"]["subject_id"])
    assert len(tables["visits"]) == 10
    assert removed_below_k_sentences(risk, 2) == [
        "Removed 1 person (16.7%) in groups smaller than k = 2 on age, sex, zip3, "
        "with their event rows."
    ]


def test_nothing_asked_changes_nothing() -> None:
    tables = _released()
    risk = apply_risk_settings(tables, _project(), "people", "subject_id", released_qis_only=True)
    assert risk.suppressed == {} and risk.notes == [] and risk.quasi_identifiers == ()
    assert removed_below_k_sentences(risk, 5) == []
    assert len(tables["people"]) == 6 and len(tables["visits"]) == 12


def test_zip3_dropped_and_ages_banded_in_place_with_their_sentences() -> None:
    tables = _released()
    project = _project(drop_zip3=True, age_bands=(0, 50, 80))
    risk = apply_risk_settings(tables, project, "people", "subject_id", released_qis_only=True)
    assert "zip3" not in tables["people"].columns
    assert tables["people"]["age"].nunique() == 3  # 30, 70, 81 -> three bands
    assert tables["people"]["age"].iloc[0] != "30"
    assert any(n.startswith("Grouped ages in people.age into bands") for n in risk.notes)
    assert "Removed people.zip3 to raise k." in risk.notes


def test_a_chosen_quasi_identifier_not_released_is_passed_over_or_refused() -> None:
    project = _project(suppress_below_k=True, k_target=2, quasi_identifiers=("sex", "city"))
    tables = _released()
    risk = apply_risk_settings(tables, project, "people", "subject_id", released_qis_only=True)
    assert risk.quasi_identifiers == ("sex",) and risk.removed == 0
    with pytest.raises(DeidError, match="city"):
        apply_risk_settings(_released(), project, "people", "subject_id", released_qis_only=False)
