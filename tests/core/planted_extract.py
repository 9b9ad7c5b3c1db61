"""A seeded generator of small clinical extracts with identifiers planted where real
extracts hide them (issue 16's table): CSV files a test can `deid init` and `deid run`.

Two tables: ``patients`` (one row per person: ID, MRN, names, birth date, sex, ZIP,
phone) and ``visits`` (about two per person: visit date, diagnosis code, blood
pressure, a visit label, a comments column and nurse notes). Every value is invented
here; the vocabularies below are ordinary English words and common US names.

``plant`` chooses what goes where (each on ``count`` rows of ``visits``):

- ``other_mrn``: a record number from another hospital in ``comments``;
- ``street``: a street address in ``comments``;
- ``carer``: a carer's full name in ``comments`` (no patient has that name);
- ``label:<FORMAT>``: ``visit_label`` holds a date in that format (see ``LABEL_DATES``);
- ``excel_serial``: ``sample_date`` holds Excel serial day numbers (1900 system);
- ``excel_serial_1904``: the same in the 1904 system;
- ``relative``: a relative's full name in ``nurse_notes``.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd

GIVEN = (
    "Mary", "Linda", "Patricia", "Barbara", "Susan", "Karen", "Nancy", "Betty", "Helen",
    "James", "Robert", "John", "Michael", "William", "David", "Richard", "Thomas", "Charles",
    "Donald", "George", "Kenneth", "Steven", "Edward", "Ronald", "Anthony", "Kevin",
)  # fmt: skip
SURNAMES = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Garcia",
    "Rodriguez", "Wilson", "Martinez", "Anderson", "Taylor", "Thomas", "Moore", "Jackson",
    "Martin", "Thompson", "White", "Harris", "Clark", "Lewis", "Robinson", "Walker",
)  # fmt: skip
#: Carers and relatives: common US names that no patient of the extract has.
OTHER_GIVEN = ("Dorothy", "Margaret", "Joseph", "Frank", "Ruth", "Walter", "Shirley", "Harold")
OTHER_SURNAMES = ("Hernandez", "Lopez", "Gonzalez", "Young", "King", "Wright", "Scott", "Green")
STREETS = ("Maple", "Oak", "Cedar", "Elm", "Pine", "Washington", "Lake", "Hill", "Park")
STREET_WORDS = ("Street", "Avenue", "Road", "Drive", "Lane", "Boulevard")
HOSPITALS = ("Mercy General", "St. Anne's", "County Medical Center", "Riverside Hospital")

#: Plain clinical comments: no identifier, varied enough to read as prose.
COMMENTS = (
    "Patient tolerated the infusion well, no adverse reaction observed today.",
    "Blood pressure slightly elevated, advised to reduce salt and recheck next visit.",
    "Reports mild headache since last dose, resolved with rest and fluids.",
    "Wound healing as expected, dressing changed, no signs of infection noted.",
    "Follow up in two weeks to review lab results and adjust the dose if needed.",
    "Complains of fatigue in the afternoons, sleep pattern discussed at length.",
    "Medication adherence good according to pill count, continue current plan.",
    "Mild ankle swelling on the left side, compression stockings recommended.",
    "Glucose log reviewed, fasting values within target most mornings this month.",
    "No new complaints, vital signs stable, patient in good spirits overall.",
)
NOTES = (
    "Seen in clinic, stable, plan unchanged.",
    "Phoned to confirm the next appointment, no concerns raised.",
    "Discussed diet and exercise, leaflet given.",
    "Mobility improving with physiotherapy twice weekly.",
)

#: A visit-label date in each format of issue 16 (all of 12 March 2024 or March 2024).
LABEL_DATES: dict[str, str] = {
    "year-month": "2024-03",
    "month-name year": "March 2024",
    "month/year": "03/2024",
    "day-mon-yy": "12-Mar-24",
    "day month": "12 Mar",
    "mon. day": "Mar. 12",
    "compact date-time": "20240312 1015",
    "iso week": "2024-W11",
}
LABELS = ("Baseline", "Week 4", "Week 12", "Follow-up", "Unscheduled", "End of study")
DIAGNOSES = ("E11.9", "I10", "J45.909", "M54.5", "N18.3", "F32.9", "K21.9", "E78.5")

EXCEL_1900_EPOCH = dt.date(1899, 12, 30)
EXCEL_1904_EPOCH = dt.date(1904, 1, 1)


def _dates(rng: np.random.Generator, n: int, start: str, days: int) -> np.ndarray:
    return np.datetime64(start) + rng.integers(0, days, n).astype("timedelta64[D]")


def make_frames(
    persons: int = 600, *, seed: int = 16, plant: dict[str, int] | None = None
) -> dict[str, pd.DataFrame]:
    """The two tables as text frames; ``plant``: what to plant -> on how many visit rows."""
    rng = np.random.default_rng(seed)
    plant = dict(plant or {})
    n = persons
    pid = [f"P{i:05d}" for i in range(1, n + 1)]
    birth = _dates(rng, n, "1935-01-01", 365 * 60)
    patients = pd.DataFrame(
        {
            "patient_id": pid,
            "mrn": [str(v) for v in 7_000_000 + rng.choice(2_000_000, n, replace=False)],
            "first_name": rng.choice(GIVEN, n),
            "last_name": rng.choice(SURNAMES, n),
            "birth_date": birth.astype(str),
            "sex": rng.choice(("F", "M"), n),
            "zip": rng.choice(("92101", "92103", "92104", "92108", "92110"), n),
            "phone": [f"(619) 555-{v:04d}" for v in rng.integers(0, 10_000, n)],
        }
    )
    per = rng.integers(1, 4, n)
    m = int(per.sum())
    owner = np.repeat(np.arange(n), per)
    visit_date = _dates(rng, m, "2022-01-01", 730)
    weight = rng.integers(45, 120, m)
    comments = np.array(
        [
            f"{a} Weight {w} kg. {b}"
            for a, w, b in zip(
                rng.choice(COMMENTS, m), weight, rng.choice(COMMENTS, m), strict=True
            )
        ],
        dtype=object,
    )
    notes = rng.choice(NOTES, m).astype(object)
    labels = rng.choice(LABELS, m).astype(object)
    sample = visit_date.astype(str).astype(object)
    for what, count in plant.items():
        rows = rng.choice(m, size=min(count, m), replace=False)
        for r in rows.tolist():
            given, surname = rng.choice(OTHER_GIVEN), rng.choice(OTHER_SURNAMES)
            if what == "other_mrn":
                code = int(rng.integers(10_000_000, 99_999_999))
                hospital = rng.choice(HOSPITALS)
                comments[r] = f"Records from {hospital} requested, their MRN {code}. " + comments[r]
            elif what == "street":
                number = int(rng.integers(10, 9_999))
                street = f"{rng.choice(STREETS)} {rng.choice(STREET_WORDS)}"
                comments[r] = f"Moved to {number} {street} last month. " + comments[r]
            elif what == "carer":
                comments[r] = f"Carer {given} {surname} attends with the patient. " + comments[r]
            elif what == "relative":
                notes[r] = f"{given} {surname} (daughter) phoned about the results."
            elif what.startswith("label:"):
                labels[r] = LABEL_DATES[what.removeprefix("label:")]
            elif what in ("excel_serial", "excel_serial_1904"):
                epoch = EXCEL_1904_EPOCH if what.endswith("1904") else EXCEL_1900_EPOCH
                day = pd.Timestamp(visit_date[r]).date()
                sample[r] = str((day - epoch).days)
            else:
                raise ValueError(f"nothing to plant called {what!r}")
    if any(w.startswith("excel") for w in plant):
        # a date column of Excel serial numbers: every cell a serial
        epoch = EXCEL_1904_EPOCH if "excel_serial_1904" in plant else EXCEL_1900_EPOCH
        days = (visit_date - np.datetime64(epoch)).astype(int)
        sample = np.array([str(d) for d in days.tolist()], dtype=object)
    visits = pd.DataFrame(
        {
            "patient_id": [pid[i] for i in owner.tolist()],
            "visit_date": visit_date.astype(str),
            "visit_label": labels,
            "diagnosis": rng.choice(DIAGNOSES, m),
            "systolic_bp": rng.integers(100, 170, m).astype(str),
            "sample_date": sample,
            "comments": comments,
            "nurse_notes": notes,
        }
    )
    return {"patients": patients, "visits": visits}


def write_extract(folder: Path, **kwargs: object) -> dict[str, Path]:
    """Write the tables as CSV files in ``folder``: table name -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    for name, frame in make_frames(**kwargs).items():  # type: ignore[arg-type]
        path = folder / f"{name}.csv"
        frame.to_csv(path, index=False)
        out[name] = path
    return out
