"""Column tagging goldens: Synthea patients and event tables, and the demo extract.

Each row of a table below is what a data manager would expect to see suggested for that
column: class, role and (for direct identifiers) the Safe Harbor category.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core.model import ColumnClass, ColumnTag, Role
from deid_desktop.core.model import IdentifierCategory as Cat
from deid_desktop.core.tagging import suggest_tags
from tests.core.support import CL as C
from tests.core.support import DT as T
from tests.core.support import FT as F
from tests.core.support import D, Q

Expected = tuple[ColumnClass, Role | None, Cat | None]

SYNTHEA_PATIENTS: dict[str, Expected] = {
    "Id": (D, Role.PERSON_KEY, Cat.R),
    "BIRTHDATE": (T, Role.BIRTH_DATE, None),
    "DEATHDATE": (T, None, None),
    "SSN": (D, None, Cat.G),
    "DRIVERS": (D, None, Cat.K),
    "PASSPORT": (D, None, Cat.K),
    "PREFIX": (D, None, Cat.A),
    "FIRST": (D, None, Cat.A),
    "LAST": (D, None, Cat.A),
    "SUFFIX": (D, None, Cat.A),
    "MAIDEN": (D, None, Cat.A),
    "MARITAL": (Q, None, None),
    "RACE": (Q, None, None),
    "ETHNICITY": (Q, None, None),
    "GENDER": (Q, Role.SEX, None),
    "BIRTHPLACE": (D, None, Cat.B),
    "ADDRESS": (D, None, Cat.B),
    "CITY": (D, None, Cat.B),
    "STATE": (Q, None, None),  # a state is allowed by Safe Harbor
    "COUNTY": (D, None, Cat.B),
    "FIPS": (D, None, Cat.B),  # county code
    "ZIP": (Q, Role.ZIP, None),
    "LAT": (D, None, Cat.B),
    "LON": (D, None, Cat.B),
    "HEALTHCARE_EXPENSES": (C, None, None),
    "HEALTHCARE_COVERAGE": (C, None, None),
    "INCOME": (Q, None, None),  # socioeconomic, findable elsewhere: a quasi-identifier
}

#: Event tables of the 2023 set: (file, column) -> expected.
SYNTHEA_EVENTS: dict[tuple[str, str], Expected] = {
    ("encounters", "Id"): (D, None, Cat.R),
    ("encounters", "START"): (T, None, None),
    ("encounters", "STOP"): (T, None, None),
    ("encounters", "PATIENT"): (D, Role.PERSON_KEY, Cat.R),
    ("encounters", "ORGANIZATION"): (D, None, Cat.R),
    ("encounters", "PROVIDER"): (D, None, Cat.R),
    ("encounters", "PAYER"): (D, None, Cat.R),
    ("encounters", "ENCOUNTERCLASS"): (C, None, None),
    ("encounters", "CODE"): (C, None, None),
    ("encounters", "DESCRIPTION"): (C, None, None),
    ("encounters", "BASE_ENCOUNTER_COST"): (C, None, None),
    ("encounters", "TOTAL_CLAIM_COST"): (C, None, None),
    ("encounters", "PAYER_COVERAGE"): (C, None, None),
    ("encounters", "REASONCODE"): (C, None, None),
    ("encounters", "REASONDESCRIPTION"): (C, None, None),
    ("conditions", "START"): (T, None, None),
    ("conditions", "STOP"): (T, None, None),
    ("conditions", "PATIENT"): (D, Role.PERSON_KEY, Cat.R),
    ("conditions", "ENCOUNTER"): (D, None, Cat.R),
    ("conditions", "CODE"): (C, None, None),
    ("conditions", "DESCRIPTION"): (C, None, None),
    ("medications", "START"): (T, None, None),
    ("medications", "STOP"): (T, None, None),
    ("medications", "PATIENT"): (D, Role.PERSON_KEY, Cat.R),
    ("medications", "PAYER"): (D, None, Cat.R),
    ("medications", "ENCOUNTER"): (D, None, Cat.R),
    ("medications", "CODE"): (C, None, None),
    ("medications", "DESCRIPTION"): (C, None, None),
    ("medications", "BASE_COST"): (C, None, None),
    ("medications", "PAYER_COVERAGE"): (C, None, None),
    ("medications", "DISPENSES"): (C, None, None),
    ("medications", "TOTALCOST"): (C, None, None),
    ("medications", "REASONCODE"): (C, None, None),
    ("medications", "REASONDESCRIPTION"): (C, None, None),
}


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _by_name(tags: tuple[ColumnTag, ...]) -> dict[str, ColumnTag]:
    return {t.name: t for t in tags}


def _check(tag: ColumnTag, expected: Expected) -> None:
    cls, role, category = expected
    got = (tag.cls, tag.role, tag.category)
    assert got == (cls, role, category), f"{tag.name}: got {got}, evidence {tag.evidence}"


def _assert_no_values_in_evidence(frame: pd.DataFrame, tags: tuple[ColumnTag, ...]) -> None:
    """No cell value of five characters or more appears in any evidence sentence."""
    for tag in tags:
        text = " ".join(tag.evidence).lower()
        values = {str(v).strip().lower() for v in frame[tag.name].dropna().unique()}
        leaked = sorted(v for v in values if len(v) >= 5 and v in text)
        assert leaked == [], f"{tag.name}: evidence shows data values"


@pytest.fixture(scope="module", params=["ds4biomed_apr2020", "unmc_crane_2023"])
def synthea_patients(request: pytest.FixtureRequest, public_data: Path) -> pd.DataFrame:
    return _read(public_data / "synthea" / request.param / "patients.csv")


def test_synthea_patients_golden(synthea_patients: pd.DataFrame) -> None:
    tags = _by_name(suggest_tags(synthea_patients, table="patients", is_person=True))
    assert list(tags) == list(synthea_patients.columns)
    for column in synthea_patients.columns:
        _check(tags[column], SYNTHEA_PATIENTS[column])
    assert [t.name for t in tags.values() if t.unsure] == []


def test_synthea_patients_evidence_is_plain_and_value_free(
    synthea_patients: pd.DataFrame,
) -> None:
    tags = suggest_tags(synthea_patients, table="patients")
    _assert_no_values_in_evidence(synthea_patients, tags)
    for tag in tags:
        assert tag.evidence, f"{tag.name} has no evidence"
        assert all(isinstance(e, str) and e == e.strip() and e for e in tag.evidence)
        assert tag.date_format is None  # the io module infers formats
    by = _by_name(tags)
    assert "name matches 'ssn'" in by["SSN"].evidence
    assert "100% of sampled values look like Social Security numbers" in by["SSN"].evidence
    assert any("look like ZIP codes" in e for e in by["ZIP"].evidence)
    assert any("common given names or surnames" in e for e in by["FIRST"].evidence)


@pytest.mark.parametrize("table", ["encounters", "conditions", "medications"])
def test_synthea_event_tables_golden(public_data: Path, table: str) -> None:
    frame = _read(public_data / "synthea" / "unmc_crane_2023" / f"{table}.csv")
    tags = _by_name(suggest_tags(frame, table=table, is_person=False))
    expected = {col: exp for (t, col), exp in SYNTHEA_EVENTS.items() if t == table}
    assert set(expected) == set(frame.columns)
    for column, exp in expected.items():
        _check(tags[column], exp)
    unsure = {t.name for t in tags.values() if t.unsure}
    assert unsure == {"ORGANIZATION", "PROVIDER", "PAYER"} & set(frame.columns)
    _assert_no_values_in_evidence(frame, tuple(tags.values()))


def test_provider_organisation_payer_codes_are_direct_but_flagged(public_data: Path) -> None:
    frame = _read(public_data / "synthea" / "unmc_crane_2023" / "encounters.csv")
    tags = _by_name(suggest_tags(frame, table="encounters", is_person=False))
    for column in ("ORGANIZATION", "PROVIDER", "PAYER"):
        assert tags[column].unsure
        assert any(e.startswith("unsure: ") for e in tags[column].evidence)
    assert not tags["ENCOUNTERCLASS"].unsure
    assert not tags["PATIENT"].unsure


def test_every_synthea_table_has_one_person_key_and_no_clinical_identifier(
    public_data: Path,
) -> None:
    for path in sorted((public_data / "synthea").glob("*/*.csv")):
        frame = _read(path)
        is_person = path.stem == "patients"
        tags = suggest_tags(frame, table=path.stem, is_person=is_person)
        keys = [t.name for t in tags if t.role is Role.PERSON_KEY]
        assert keys == (["Id"] if is_person else ["PATIENT"]), path
        for tag in tags:
            if tag.name in ("Id", "PATIENT", "ENCOUNTER", "UDI", "SSN"):
                assert tag.cls is ColumnClass.DIRECT, (path, tag.name)


# --- the demo extract ---------------------------------------------------------------

DEMO: dict[str, dict[str, Expected]] = {
    "demographics": {
        "patient_id": (D, Role.PERSON_KEY, Cat.R),
        "mrn": (D, None, Cat.H),
        "first_name": (D, None, Cat.A),
        "last_name": (D, None, Cat.A),
        "dob": (T, Role.BIRTH_DATE, None),
        "age": (Q, Role.AGE, None),
        "sex": (Q, Role.SEX, None),
        "race": (Q, None, None),
        "ethnicity": (Q, None, None),
        "zip": (Q, Role.ZIP, None),
        "phone": (D, None, Cat.D),
        "notes": (F, None, None),
    },
    "baseline": {
        "patient_id": (D, Role.PERSON_KEY, Cat.R),
        "discharge_date": (T, Role.INDEX_DATE, None),
        "lvef": (C, None, None),
        "nt_probnp": (C, None, None),
        "sbp": (C, None, None),
        "creatinine": (C, None, None),
        "nyha_class": (C, None, None),
    },
    "visits": {
        "patient_id": (D, Role.PERSON_KEY, Cat.R),
        "visit_date": (T, None, None),
        "visit_type": (C, None, None),
        "visit_day": (C, None, None),
    },
}


def _cycle(values: list[str | None], rows: int) -> list[str | None]:
    return [values[i % len(values)] for i in range(rows)]


def demo_like_frames(rows: int = 60) -> dict[str, pd.DataFrame]:
    """Small frames shaped like the demo extract, with realistic values, as strings."""
    ids = [f"{i:04d}" for i in range(1, rows + 1)]
    firsts = ["Priya", "Luis", "Joseph", "María", "Chen", "Aisha", "Robert", "Zoë", "Linda"]
    lasts = ["Hill", "Garcia", "Campbell", "Nguyen", "O'Brien", "Müller", "Johnson", "Patel"]
    string = pd.StringDtype("pyarrow")
    demographics = pd.DataFrame(
        {
            "patient_id": ids,
            "mrn": [f"SYN-{1_000_003 + 7919 * i}" for i in range(rows)],
            "first_name": _cycle(firsts, rows),
            "last_name": _cycle(lasts, rows),
            "dob": [f"19{40 + i % 50:02d}-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(rows)],
            "age": [str(35 + (i * 7) % 62) for i in range(rows)],
            "sex": _cycle(["F", "M", "M", "F", None], rows),
            "race": _cycle(["White", "Black or African American", "Asian", None], rows),
            "ethnicity": _cycle(["Not Hispanic or Latino", "Hispanic or Latino"], rows),
            "zip": _cycle(["91910", "02139", "92081", "06010", None, "92106"], rows),
            "phone": [f"({858 + i % 3}) 555-{100 + i:04d}" for i in range(rows)],
            "notes": _cycle(
                [
                    'Patient said "feeling better" and walks daily.',
                    None,
                    "Daughter Ana called on 2023-02-01 about the diuretic dose; call back "
                    "(619) 555-0148.",
                    None,
                    "Seen with wife; ankle swelling improved since discharge.",
                ],
                rows,
            ),
        },
        dtype=string,
    )
    baseline = pd.DataFrame(
        {
            "patient_id": ids,
            "discharge_date": [f"2023-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(rows)],
            "lvef": [str(20 + i % 45) for i in range(rows)],
            "nt_probnp": [str(300 + (i * 97) % 9000) for i in range(rows)],
            "sbp": [str(95 + i % 60) for i in range(rows)],
            "creatinine": [f"{0.6 + (i % 25) / 10:.2f}" for i in range(rows)],
            "nyha_class": _cycle(["I", "II", "III", "IV"], rows),
        },
        dtype=string,
    )
    visit_ids = [pid for pid in ids for _ in range(3)]
    visits = pd.DataFrame(
        {
            "patient_id": visit_ids,
            "visit_date": [f"2023-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(3 * rows)],
            "visit_type": _cycle(["Day 7", "Day 30", "Day 180"], 3 * rows),
            "visit_day": _cycle(["5", "29", "192", "8", "31", "176"], 3 * rows),
        },
        dtype=string,
    )
    return {"demographics": demographics, "baseline": baseline, "visits": visits}


@pytest.mark.parametrize("table", list(DEMO))
def test_demo_like_frames_golden(table: str) -> None:
    frame = demo_like_frames()[table]
    tags = _by_name(suggest_tags(frame, table=table, is_person=table == "demographics"))
    assert set(tags) == set(DEMO[table])
    for column, expected in DEMO[table].items():
        _check(tags[column], expected)
    _assert_no_values_in_evidence(frame, tuple(tags.values()))


@pytest.mark.parametrize("table", list(DEMO))
def test_generated_demo_extract_golden(table: str) -> None:
    from deid_desktop.core.demo import make_demo_frames

    frame = make_demo_frames(rows=400)[table]
    tags = _by_name(suggest_tags(frame, table=table, is_person=table == "demographics"))
    for column, expected in DEMO[table].items():
        _check(tags[column], expected)
    assert not any(t.unsure for t in tags.values()), [t.name for t in tags.values() if t.unsure]
    _assert_no_values_in_evidence(frame, tuple(tags.values()))
