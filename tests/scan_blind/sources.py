"""Name and place sources and phrase lists of the blind corpus (tests/scan_blind).

Written apart from tests/scan_eval and drawn from other sources: patients, their streets,
towns and counties from the two Synthea extracts in tests/data/synthea (synthetic people,
nobody on the team wrote them; the digits Synthea appends to names are dropped);
clinicians, relatives, hospitals and local places from the PhysioNet deid 1.1 lists in
tests/data/physionet-deid (GPL, read by tests only). Nothing here is about anyone.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
LISTS = DATA / "physionet-deid" / "lists"

#: Given names that are ordinary words too; in the notes they also stand in lower case.
WORD_GIVEN = ("Will", "Hope", "Grace", "Faith", "Joy", "Bill", "Frank", "Rose", "Iris",
              "Holly", "Robin", "Amber", "Penny", "Art", "Sandy", "Summer")  # fmt: skip
WORD_USES = {
    "Will": "pt will need assist with ADLs.",
    "Hope": "family has hope pt will improve.",
    "Grace": "given grace period on copay.",
    "Faith": "relies on her faith, chaplain visit offered.",
    "Joy": "no joy with IV attempts x2, IV team paged.",
    "Bill": "wife asked about the bill, sw to f/u.",
    "Frank": "frank blood in foley bag, urology aware.",
    "Rose": "creatinine rose to 1.9 overnight.",
    "Iris": "iris and pupil exam deferred per ophtho.",
    "Holly": "family brought holly wreath for room.",
    "Robin": "robin's egg blue drainage noted.",
    "Amber": "amber urine, encouraged PO fluids.",
    "Penny": "penny-sized blister L heel, dsg applied.",
    "Art": "art line d/c'd, site c/d/i.",
    "Sandy": "sandy stool, guaiac neg.",
    "Summer": "plans trip to lake this summer.",
}
EPONYMS = ("Parkinson's", "Alzheimer's", "Foley", "Homan's sign", "Murphy's sign", "Crohn's",
           "Bell's palsy", "Trendelenburg", "Babinski", "Swan-Ganz", "Hodgkin's", "Cushing's",
           "Glasgow", "Graves'", "Hashimoto's", "Guillain-Barre", "Addison's", "Lou Gehrig's",
           "Whipple", "Roux-en-Y", "Apgar", "Epley", "Kussmaul", "Cheyne-Stokes")  # fmt: skip
DRUGS = ("Coumadin", "Lasix", "Keppra", "Zosyn", "Ativan", "Haldol", "Norco", "Xarelto",
         "Eliquis", "Tylenol", "Dilaudid", "Protonix", "Seroquel", "Lovenox", "Vancomycin",
         "Flagyl", "Zofran", "Colace", "Senna", "Ambien", "Lopressor", "Plavix")  # fmt: skip
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip
FACILITY_WORDS = ("Hospital", "Medical Center", "Rehab", "Rehabilitation Center",
                  "Nursing Home", "Nursing and Rehab", "Health Center", "Clinic",
                  "Skilled Nursing Facility", "Care Center", "Assisted Living",
                  "Manor", "Hospice House", "Dialysis Center")  # fmt: skip
FACILITY_HEADS = ("Oak Ridge", "Mercy", "Sunrise", "Pine Grove", "Golden Meadows", "Bayview",
                  "Hillcrest", "Maple Crest", "Riverside", "Lakeside", "Sacred Heart",
                  "Brookhaven", "Willow Creek", "Fairview", "Good Shepherd", "Cedar Hill",
                  "Evergreen", "Kindred", "Spring Valley", "Heritage")  # fmt: skip
SAINT_NAMES = ("Mary's", "Luke's", "Joseph's", "Vincent's", "Elizabeth's", "Anthony's",
               "Francis", "Agnes", "Catherine's", "Jude")  # fmt: skip
UNITS = ("Finard 4", "Ellison 11", "Blake 7", "Phillips 20", "Bigelow 9", "Feld 6",
         "Reisman 3", "Stoneman 8", "Farr 10", "Deaconess 5")  # fmt: skip
UNIT_ABBREVS = ("EL11", "F4", "B7", "PH20", "BG9", "FD6", "RS3", "SM8", "FR10", "DC5")


@dataclass
class Place:
    street: str
    city: str
    state: str
    county: str
    zip: str


@dataclass
class Patient:
    key: str
    first: str
    last: str
    mrn: str
    phone: str
    sex: str
    place: Place


def _clean(name: str) -> str:
    return re.sub(r"\d+", "", name).strip()


@cache
def synthea_rows() -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for path in sorted((DATA / "synthea").glob("*/patients.csv")):
        with path.open(encoding="utf-8", newline="") as f:
            rows.extend(csv.DictReader(f))
    return rows


def _lines(name: str) -> list[str]:
    text = (LISTS / name).read_text(encoding="utf-8", errors="replace")
    return [w.strip() for w in text.splitlines() if w.strip() and w.strip().isascii()]


@cache
def lists() -> dict[str, list[str]]:
    def title(words: list[str]) -> list[str]:
        return sorted({w.title() for w in words if w.isalpha() and len(w) > 2})

    hospitals = [h for h in _lines("stripped_hospitals.txt") if len(h) > 4 and " " in h]
    return {
        "doc_first": title(_lines("doctor_first_names.txt") + _lines("male_names_popular.txt")),
        "doc_last": title(_lines("doctor_last_names.txt") + _lines("last_names_popular.txt")),
        "female": title(_lines("female_names_popular.txt") + _lines("female_names_unambig.txt")),
        "male": title(_lines("male_names_popular.txt") + _lines("male_names_unambig.txt")),
        "hospitals": sorted(set(hospitals)),
        "local_places": _lines("local_places_unambig.txt"),
        "states": [s.title() for s in _lines("us_states.txt") if " " not in s or "New" in s],
        "state_abbrevs": [s for s in _lines("us_states_abbre.txt") if len(s) == 2],
    }


def places() -> list[Place]:
    out = []
    for row in synthea_rows():
        out.append(
            Place(
                street=row["ADDRESS"],
                city=row["CITY"],
                state=row["STATE"],
                county=row["COUNTY"],
                zip=row["ZIP"],
            )
        )
    return out


def synthea_people() -> list[tuple[str, str, str]]:
    """(first, last, sex) of every Synthea patient, without Synthea's digits."""
    out = []
    for row in synthea_rows():
        first, last = _clean(row["FIRST"]), _clean(row["LAST"])
        if first and last:
            out.append((first.split()[0], last, row["GENDER"]))
    return out
