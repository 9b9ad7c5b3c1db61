"""A seeded, annotated evaluation corpus for the free-text scan (issue 12).

Notes in three styles (nursing notes, discharge summaries, phone messages), written with
every identifier form the scan must find and the traps it must not flag, each planted
identifier recorded as (start, end, kind). Two splits: "dev" (tune on it) and "heldout"
(a different seed, the other half of every name and place list, and partly different
sentence templates). Names come from resources/names (US Census 1990, public domain),
towns from resources/gazetteer (GeoNames, CC BY 4.0); nothing here is about anyone.

Gold kinds: NAME, DATE, AGE (over 89), LOCATION, PHONE, ID (record numbers), CONTACT.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "resources"
GOLD_KINDS = ("NAME", "DATE", "AGE", "LOCATION", "PHONE", "ID", "CONTACT")

Piece = str | tuple[str, str]
#: Given names that are also common English words: the lower-case-word traps.
WORD_NAMES = ("Will", "Hope", "May", "Rose", "Grant", "Mark", "Bill", "Faith", "Joy", "Dawn")
WORD_TRAPS = {
    "Will": "Pt will call back if pain increases.",
    "Hope": "Family expresses hope for recovery.",
    "May": "Pt may shower tomorrow.",
    "Rose": "Temp rose to 100.9 overnight.",
    "Grant": "Will grant request for chaplain.",
    "Mark": "Skin mark on L hip noted.",
    "Bill": "Question about hospital bill referred to billing.",
    "Faith": "Pt states faith is important to her.",
    "Joy": "Pt expresses joy at going home.",
    "Dawn": "Slept until dawn without PRN.",
}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip
SAINTS = ("Mary", "Joseph", "Luke", "Elizabeth", "Vincent", "Francis", "Anne", "Jude")
STREETS = ("Street", "St", "Ave", "Avenue", "Road", "Rd", "Lane", "Drive", "Dr", "Blvd", "Way")
TREES = ("Oak", "Maple", "Elm", "Pine", "Cedar", "Birch", "Chestnut", "Walnut", "Spruce")
SEASONS = ("spring", "summer", "fall", "winter", "Spring", "Summer", "Fall", "Winter")
CREDS = ("RN", "MD", "NP", "PA", "LPN", "PT", "SW")
RELATIONS_A = ("dtr", "son", "wife", "husband", "friend", "HCP", "sister", "neighbor")
RELATIONS_B = ("daughter", "son", "niece", "brother", "grandson", "friend", "HCP", "caregiver")
FILLER = (
    "Pt resting comfortably in bed.",
    "VS stable, afebrile.",
    "Lungs clear bilaterally, no edema.",
    "Tolerating regular diet, voiding qs.",
    "Ambulated in hallway with walker, steady gait.",
    "Pain controlled with PO meds.",
    "Skin intact, turned q2h.",
    "Na 138, K 4.1, Cr 1.0, glucose 112.",
    "Plan to continue current regimen and monitor.",
    "Will reassess in AM.",
    "No acute distress noted.",
    "Call light within reach, bed alarm on.",
)
TRAPS = (
    "BP 120/80, HR 72, RR 18, SpO2 97% RA.",
    "BP 134/86 after ambulation.",
    "ABG 7.4/40/90 on 2L.",
    "Labs 10.1/4.72 reviewed with team.",
    "Hct/Hgb 7.4/40 stable.",
    "Pain 7/10, given PRN.",
    "Strength 5/5 in all extremities.",
    "Take 1/2 tab at bedtime.",
    "MD aware.",
    "Dr. aware of results.",
    "NP at bedside.",
    "Son at bedside.",
    "Family at bedside, questions answered.",
    "Wife in to visit.",
    "PCP office faxed.",
    "Pt is 45 yo, ambulatory.",
    "Age 67 at onset of symptoms.",
)
#: Traps of the forms below: vitals, rooms, "at home", "dot phrase", decades that are no age.
MORE_TRAPS = (
    "SpO2 98% on 2L.",
    "INR 2.3 today.",
    "BP 120/80.",
    "Moved to room 4B.",
    "Pt is at home with family.",
    "Note written with dot phrase.",
    "SBP in the 90s overnight.",
    "Pt in his 80s, lives alone.",
    "SpO2 in the 90s on RA.",
    "Plate and screws in L hip.",
    "Turned 90 degrees q2h.",
    "Given 100mg IV.",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: Medicare Beneficiary Identifier letters (no S, L, O, I, B, Z).
MBI_LETTERS = "ACDEFGHJKMNPQRTUVWXY"
STREET_NAMES = ("Broadway", "Main", "Washington", "Elm", "Maple", "Highland", "Beacon", "Center")
DIRECTIONS = ("N.", "S.", "E.", "W.", "N", "NW", "North", "South")
UNITS = ("Apt", "Suite", "Unit")
VIN_CHARS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
_VIN_VALUE = {
    **{str(d): d for d in range(10)},
    **dict(zip("ABCDEFGH", range(1, 9), strict=True)),
    **dict(zip("JKLMN", range(1, 6), strict=True)),
    "P": 7,
    "R": 9,
    **dict(zip("STUVWXYZ", range(2, 10), strict=True)),
}
_VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
CAPS_TRAPS = ("WIFE IN TO VISIT.", "SON AT BEDSIDE.", "DAUGHTER CALLED, UPDATED.",
              "MD AWARE.", "HUSBAND WITH PT.")  # fmt: skip


@dataclass(frozen=True)
class Person:
    key: str
    first: str
    last: str
    mrn: str
    phone: str


@dataclass
class Corpus:
    """Notes, each note's person key, its gold spans, the persons (the extract's direct
    values), the site list a user of the evaluation hospital would keep, and the split."""

    split: str
    notes: list[str] = field(default_factory=list)
    persons: list[str] = field(default_factory=list)
    spans: list[list[tuple[int, int, str]]] = field(default_factory=list)
    people: list[Person] = field(default_factory=list)
    sites: list[str] = field(default_factory=list)

    def dictionary_values(self) -> dict[str, list[str]]:
        return {
            "name": [f"{p.first} {p.last}" for p in self.people],
            "mrn": [p.mrn for p in self.people],
            "phone": [p.phone for p in self.people],
        }


def _lines(path: Path) -> list[str]:
    return [w for w in path.read_text(encoding="utf-8").split() if w]


def _places() -> list[str]:
    with (RESOURCES / "gazetteer" / "us_places.tsv").open(encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]
    return sorted({name for name, _ in rows if name.isascii() and name[0].isalpha()})


class _Gen:
    def __init__(self, split: str, seed: int) -> None:
        self.rng = random.Random(seed)
        half = 0 if split == "dev" else 1
        given = _lines(RESOURCES / "names" / "given_names.txt")[half::2]
        sur = _lines(RESOURCES / "names" / "surnames.txt")[half::2]
        self.given = [g.title() for g in given if len(g) > 2]
        self.sur = [s.title() for s in sur if len(s) > 2]
        self.towns = _places()[half::2]
        self.split = split
        self.relations = RELATIONS_A if half == 0 else RELATIONS_B
        r = self.rng
        self.hospitals = [self._hospital() for _ in range(12)]
        self.abbrevs = ["".join(w[0] for w in h.split() if w[0].isupper()) for h in self.hospitals]
        self.units = [f"{r.choice(self.sur)} {r.randint(2, 12)}" for _ in range(6)]

    def _hospital(self) -> str:
        r = self.rng
        kind = r.randrange(4)
        if kind == 0:
            return f"{r.choice(self.towns)} General Hospital"
        if kind == 1:
            return f"St. {r.choice(SAINTS)}'s Hospital"
        if kind == 2:
            return f"{r.choice(self.sur)} Memorial Medical Center"
        return f"{r.choice(self.towns)} Community Hospital"

    # ---------------------------------------------------------------- identifier forms
    def person(self, i: int) -> Person:
        r = self.rng
        first = r.choice(WORD_NAMES) if r.random() < 0.12 else r.choice(self.given)
        return Person(
            key=f"P{i:05d}",
            first=first,
            last=r.choice(self.sur),
            mrn=str(r.randint(1_000_000, 99_999_999)),
            phone=f"{r.randint(201, 989)}{r.randint(200, 999)}{r.randint(1000, 9999)}",
        )

    def name(self) -> str:
        return f"{self.rng.choice(self.given)} {self.rng.choice(self.sur)}"

    def date(self) -> str:
        r = self.rng
        y, m, d = r.randint(1995, 2025), r.randint(1, 12), r.randint(1, 28)
        mon = MONTHS[m - 1]
        forms = [
            f"{m}/{d}", f"{m:02d}/{d:02d}", f"{d}-{mon[:3]}", f"{mon[:3]} {d}", f"{mon} {d}th",
            f"{d} {mon}", f"{m}/{d}/{y % 100:02d}", f"{m}-{d}-{y % 100:02d}",
            f"{y}-{m:02d}-{d:02d}",
            f"{m}/{d}/{y}", f"{mon} {d}, {y}", f"{mon} {y}", f"{r.choice(SEASONS)} {y}",
        ]  # fmt: skip
        if self.split != "dev":
            forms += [f"{d}/{mon[:3]}", f"{mon[:3]}. {d}", f"{r.choice(SEASONS)} of {y}"]
        return r.choice(forms)

    def age(self) -> list[Piece]:
        r = self.rng
        a = str(r.randint(90, 104))
        return r.choice(
            [
                [(a, "AGE"), " yo"],
                [(a, "AGE"), " y/o"],
                [(a, "AGE"), "-year-old"],
                [(a, "AGE"), " year old"],
                ["age ", (a, "AGE")],
                ["aged ", (a, "AGE")],
                [("nonagenarian", "AGE")],
                [(a, "AGE"), " yo"] if self.split == "dev" else [(a, "AGE"), " yrs old"],
            ]
        )

    def phone(self, digits: str | None = None) -> str:
        r = self.rng
        d = digits or f"{r.randint(201, 989)}{r.randint(200, 999)}{r.randint(1000, 9999)}"
        a, b, c = d[:3], d[3:6], d[6:]
        return r.choice([f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"{b}-{c}"])

    def place(self) -> list[Piece]:
        r = self.rng
        k = r.randrange(8)
        if k == 0:
            return [(r.choice(self.hospitals), "LOCATION")]
        if k == 1:
            return [(r.choice(self.abbrevs), "LOCATION")]
        if k == 2:
            return [(r.choice(self.units), "LOCATION")]
        if k == 3:
            return [(f"{r.randint(2, 999)} {r.choice(TREES)} {r.choice(STREETS)}", "LOCATION")]
        if k == 4:
            return [(f"P.O. Box {r.randint(10, 9999)}", "LOCATION")]
        if k == 5:
            return [(f"{r.choice(self.towns)} Rehab", "LOCATION")]
        return [(r.choice(self.towns), "LOCATION")]

    # ------------------------------------------------- forms of real notes (shapes_more)
    def vin(self, valid: bool = True) -> str:
        """17 VIN characters whose 9th is the check digit (or, for a trap, is not)."""
        r = self.rng
        chars = [r.choice(VIN_CHARS) for _ in range(17)]
        chars[0], chars[12] = r.choice("12345JKLSTW"), r.choice("0123456789")
        total = sum(_VIN_VALUE[c] * w for c, w in zip(chars, _VIN_WEIGHTS, strict=True))
        check = "X" if total % 11 == 10 else str(total % 11)
        if not valid:
            check = r.choice([c for c in "0123456789X" if c != check])
        chars[8] = check
        return "".join(chars)

    def plate(self) -> str:
        r = self.rng
        letters = "".join(r.choice("ABCDEFGHJKLMNPRSTVWXYZ") for _ in range(3))
        return f"{r.randint(1, 9)}{letters}{r.randint(100, 999)}"

    def mbi(self, dashes: bool) -> str:
        """A Medicare Beneficiary Identifier of CMS's shape (C A AN N A AN N A A N N)."""
        r = self.rng
        letter, both = MBI_LETTERS, MBI_LETTERS + "0123456789"
        digit = "0123456789"
        shape = ("123456789", letter, both, digit, letter, both, digit, letter, letter, digit)
        text = "".join(r.choice(chars) for chars in (*shape, digit))
        return f"{text[:4]}-{text[4:7]}-{text[7:]}" if dashes else text

    def more(self, p: Person) -> list[Piece]:
        """One sentence with a form the scan learnt from real notes, or its trap."""
        r = self.rng
        ssn = f"{r.randint(100, 899)} {r.randint(10, 99)} {r.randint(1000, 9999)}"
        user = f"{p.first.lower()}{p.last.lower()[:3]}{r.randint(1, 99)}"
        day = r.randint(1, 28)
        suffix = "th" if 4 <= day <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
        month = r.choice(MONTHS)
        town = r.choice(self.towns)
        address = f"{r.randint(2, 9999)} {r.choice(DIRECTIONS)} {r.choice(STREET_NAMES)}"
        dev = self.split == "dev"
        old = r.randint(90, 104)
        weekday = r.choice(WEEKDAYS)
        forms: list[list[Piece]] = [
            ["SSN ", (ssn, "ID"), " on file."]
            if dev
            else ["Social security number ", (ssn, "ID"), "."],
            [
                "Email ",
                (f"{user} at gmail dot com" if dev else f"{user} (at) yahoo (dot) com", "CONTACT"),
                ".",
            ],
            ["Send to ", (f"{user} [at] comcast [dot] net", "CONTACT"), " per pt."],
            [("Car VIN " if dev else "Vehicle ID "), (self.vin(), "ID"), " for parking form."],
            [("License plate " if dev else "Plate no. "), (self.plate(), "ID"), " in lot B."],
            ["Tag # ", (self.plate(), "ID"), "."],
            [
                ("Pacemaker serial # " if dev else "Device S/N "),
                (f"{r.choice('ABPRX')}{r.choice('JKMW')}{r.randint(100000, 999999)}", "ID"),
                ".",
            ],
            ["Seen on the ", (f"{day}{suffix} of {month}", "DATE"), "."],
            ["Surgery ", (f"{day}{suffix} of {month}", "DATE"), " at outside hospital."],
            ["Lives at ", (address, "LOCATION"), "."],
            [
                "Lives at ",
                (f"{r.choice(UNITS)} {r.randint(1, 40)}{r.choice(('', 'B', 'C'))}", "LOCATION"),
                ", ",
                (address, "LOCATION"),
                ", ",
                (town, "LOCATION"),
                " MA.",
            ],
            [
                ("Lives on " if dev else "Home on "),
                (r.choice(("Mass Ave", "Comm Ave", "Beacon St", "Centre St")), "LOCATION"),
                ".",
            ],
            ["Pt is a woman in her ", (r.choice(("90s", "late 90s", "nineties")), "AGE"), "."],
            ["Father in his ", ("90s" if dev else "early 90s", "AGE"), ", lives with pt."],
            [("Accession " if dev else "Lab ID "), self.vin(valid=False), " sent to lab."],
            [
                "Pt is a ",
                (f"{old}yo" if dev else f"{old}y/o", "AGE"),
                " F with CHF." if dev else " M, lives alone.",
            ],
            [
                "She turned " if dev else "Pt turns ",
                (str(old), "AGE"),
                " last week." if dev else " next month.",
            ],
            ["Medicare # " if dev else "MBI ", (self.mbi(dashes=dev), "ID"), " verified."],
            [
                "Last seen ",
                (f"{weekday} the {day}{suffix}" if dev else f"{weekday}, {day}{suffix}", "DATE"),
                ".",
            ],
            [r.choice(MORE_TRAPS)],
            [r.choice(MORE_TRAPS)],
        ]
        return r.choice(forms)

    # ----------------------------------------------------------------------- names
    def clinician(self) -> list[Piece]:
        r = self.rng
        first, last = r.choice(self.given), r.choice(self.sur)
        cred = r.choice(CREDS)
        forms: list[list[Piece]] = [
            ["Dr. ", (last, "NAME")],
            ["dr ", (last.lower(), "NAME")],
            ["Dr ", (f"{first} {last}", "NAME")],
            [(f"{first} {last}", "NAME"), f", {cred}"],
            [(f"{first} {last}", "NAME"), f" {cred}"],
            [(last, "NAME"), ", MD"],
            [f"{cred} ", (first, "NAME")],
            ["Dr. ", (last[0], "NAME")],
            ["per ", (f"{first[0]}. {last}", "NAME"), f", {cred}"],
        ]
        if self.split != "dev":
            forms += [["NP ", (last, "NAME")], ["DR. ", (last.upper(), "NAME")]]
        return r.choice(forms)

    def relative(self) -> list[Piece]:
        r = self.rng
        rel = r.choice(self.relations)
        first, last = r.choice(self.given), r.choice(self.sur)
        forms: list[list[Piece]] = [
            [f"{rel} ", (first, "NAME")],
            [f"{rel} ", (f"{first} {last}", "NAME")],
            [f"{rel} ", (first.lower(), "NAME")],
            [f"{rel} ", (first[0], "NAME")],
            [f"{rel}, ", (first, "NAME"), ","],
            ["PCP Dr. ", (last, "NAME")],
        ]
        return r.choice(forms)

    def bare_name(self) -> list[Piece]:
        """A name with no cue at all."""
        r = self.rng
        return [(r.choice([r.choice(self.given), self.name()]), "NAME")]

    # ----------------------------------------------------------------------- sentences
    def sentences(self, p: Person) -> list[Callable[[], list[Piece]]]:
        r = self.rng
        pn = p.first
        common: list[Callable[[], list[Piece]]] = [
            lambda: [*self.relative(), " called, updated on plan."],
            lambda: ["Discussed with ", *self.clinician(), "."],
            lambda: ["Pt is a ", *self.age(), " with CHF."],
            lambda: ["Seen in clinic ", (self.date(), "DATE"), "."],
            lambda: ["Transferred from ", *self.place(), "."],
            lambda: ["Lives in ", *self.place(), " with family."],
            lambda: ["Callback ", (self.phone(), "PHONE"), "."],
            lambda: ["MRN ", (p.mrn, "ID"), " verified."],
            lambda: [(f"{pn} {p.last}", "NAME"), " seen today."],
            lambda: ["Mr. ", (p.last, "NAME"), " tolerated procedure well."],
            lambda: [*self.bare_name(), " will bring clothes tomorrow."],
            lambda: [r.choice(TRAPS)],
            lambda: [r.choice(FILLER)],
            lambda: [r.choice(FILLER)],
            lambda: self.more(p),
            lambda: self.more(p),
        ]
        if self.split == "dev":
            common += [
                lambda: ["Last seen ", (self.date(), "DATE"), " by ", *self.clinician(), "."],
                lambda: ["Follow up at ", *self.place(), " on ", (self.date(), "DATE"), "."],
                lambda: ["Spoke with ", *self.bare_name(), " about discharge."],
                lambda: [(pn, "NAME"), " reports pain improved."],
                lambda: ["Contact ", (f"{p.first.lower()}.{p.last.lower()}@mail.com", "CONTACT")],
            ]
        else:
            common += [
                lambda: ["Appt ", (self.date(), "DATE"), " with ", *self.clinician(), "."],
                lambda: ["Discharged to ", *self.place(), "."],
                lambda: ["Message left for ", *self.bare_name(), "."],
                lambda: ["Address: ", *self.place(), ", ", (r.choice(self.towns), "LOCATION")],
                lambda: ["Home phone ", (self.phone(p.phone), "PHONE"), "."],
            ]
        return common

    def note(self, p: Person, style: int) -> tuple[str, list[tuple[int, int, str]]]:
        r = self.rng
        pieces: list[Piece] = []
        if style == 1:  # discharge summary
            pieces += ["Admission Date: ", (self.date(), "DATE"), "\n"]
            pieces += ["Discharge Date: ", (self.date(), "DATE"), "\n"]
            pieces += ["HPI: ", (f"{p.first} {p.last}", "NAME"), " is a "]
            pieces += [*self.age(), "\n"] if r.random() < 0.5 else ["72 yo F.\n"]
        elif style == 2:  # phone message
            pieces += ["Phone msg ", (self.date(), "DATE"), ": "]
            pieces += [*self.relative(), " called re: ", (p.first, "NAME"), ". "]
        if p.first in WORD_TRAPS and r.random() < 0.7:
            pieces += [WORD_TRAPS[p.first], " "]
        makers = self.sentences(p)
        for _ in range(r.randint(4, 8)):
            pieces += [*r.choice(makers)(), " "]
        caps = style == 0 and r.random() < 0.12
        if caps:
            pieces += [r.choice(CAPS_TRAPS), " "]
        text, spans = _join(pieces)
        return (text.upper() if caps else text), spans


def _join(pieces: Sequence[Piece]) -> tuple[str, list[tuple[int, int, str]]]:
    parts: list[str] = []
    spans: list[tuple[int, int, str]] = []
    pos = 0
    for piece in pieces:
        if isinstance(piece, tuple):
            text, kind = piece
            spans.append((pos, pos + len(text), kind))
        else:
            text = piece
        parts.append(text)
        pos += len(text)
    return "".join(parts).rstrip(), spans


SEEDS = {"dev": 20261130, "heldout": 7_777_001}


def generate(split: str = "dev", n: int = 2400) -> Corpus:
    """``n`` annotated notes of the split ("dev" or "heldout"), about 3 per person."""
    g = _Gen(split, SEEDS[split])
    corpus = Corpus(split=split)
    corpus.people = [g.person(i) for i in range(max(1, n // 3))]
    corpus.sites = [*g.hospitals, *g.abbrevs, *g.units]
    for _ in range(n):
        p = g.rng.choice(corpus.people)
        text, spans = g.note(p, g.rng.randrange(3))
        corpus.notes.append(text)
        corpus.persons.append(p.key)
        corpus.spans.append(spans)
    return corpus
