"""A seeded, annotated BLIND evaluation corpus for the free-text scan (issue 12).

Written independently of tests/scan_eval (other templates, other phrasing, other name and
place sources, see ``sources``), so that the scan's figures on it are not those of the
corpus it was tuned on. Three styles: nursing notes (mixed case, ALL CAPS, lower-case
shorthand), discharge summaries and phone messages; every planted identifier recorded as
(start, end, kind) with the gold kinds of tests/scan_eval/score.py (NAME, DATE, AGE over
89, LOCATION, PHONE, ID, CONTACT), beside traps that are no identifiers (lab values, BP,
doses, scores, eponyms, drugs, word-names in lower case, "last Tuesday").
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tests.scan_blind import sources as src
from tests.scan_blind.sources import Patient

Piece = str | tuple[str, str]
SEED = 4_242_017


@dataclass
class Corpus:
    """Same fields as tests/scan_eval's Corpus, so tests/scan_eval/run.py scans it."""

    split: str = "blind"
    notes: list[str] = field(default_factory=list)
    persons: list[str] = field(default_factory=list)
    spans: list[list[tuple[int, int, str]]] = field(default_factory=list)
    people: list[Patient] = field(default_factory=list)
    sites: list[str] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)

    def dictionary_values(self) -> dict[str, list[str]]:
        return {
            "name": [f"{p.first} {p.last}" for p in self.people],
            "mrn": [p.mrn for p in self.people],
            "phone": [p.phone for p in self.people],
        }


TRAPS = (
    "BP 120/80 HR 88.", "bp 142/91, hr 104 st.", "ABG 7.32/48/66.", "H/H 10.1/32.4.",
    "lytes 138/4.2/101/24.", "WBC 12.4, plt 231.", "INR 2.3, PTT 41.2.", "Hct/Hgb 7.4/40.",
    "Labs 10.1/4.72 unchanged.", "pain 6/10 at rest, 3/10 after meds.", "MMSE 24/30.",
    "strength 4/5 RLE.", "Percocet 5/325 1 tab q6h prn.", "D5 1/2NS @ 75/hr.",
    "ate 1/2 of dinner.", "GCS 15, Braden 14, Morse 65.", "Lasix 40 mg IV x1.",
    "FS 212, 4 units SSI given.", "O2 2L NC, sats 94-96%.", "UO 30-40 cc/hr.",
    "temp 38.4, tylenol 650 given.", "K 3.2, repleted w/ 40 meq.", "vent 40%/5 PEEP.",
    "CVP 8-10.", "pt is 67 yo.", "age 84, lives alone.", "I/O 1200/850.",
    "last Tuesday pt fell at home.", "family visited yesterday.", "seen in the spring.",
    "POD 2, ambulating.", "NPO after midnight.", "q4-6h prn.", "x3 days.",
)  # fmt: skip
CAPS_TRAPS = (
    "WIFE IN TO VISIT.", "DTR AT BEDSIDE.", "SON UPDATED BY PHONE.",
    "FAMILY IN, QUESTIONS ANSWERED.", "MD AWARE.", "HUSBAND CALLED, UPDATED.",
)  # fmt: skip
FILLERS = (
    "Resting quietly, no c/o.", "A&Ox3, MAE.", "LS cl bilat, dim at bases.", "abd soft, +BS.",
    "voiding via foley, clear yellow.", "tolerating clears.", "turned and repositioned q2h.",
    "skin w/ stage II to coccyx, duoderm intact.", "OOB to chair with PT.",
    "denies CP/SOB.", "cont to monitor.", "will continue current plan.", "sleeping on/off.",
    "IV site clean, no redness.", "tele: NSR 70s, no ectopy.", "afebrile overnight.",
)  # fmt: skip
RELATIONS = ("dtr", "daughter", "son", "wife", "husband", "friend", "neighbor", "HCP",
             "niece", "nephew", "sister", "brother", "grandson", "granddaughter", "caregiver",
             "health care proxy", "sister-in-law", "partner", "roommate", "pastor")  # fmt: skip
CLIN_PRE = ("Dr.", "Dr", "dr", "DR.", "NP", "np", "PA", "Attending", "PCP", "pcp", "RN")
CREDS = ("RN", "MD", "NP", "PA-C", "LPN", "DO", "CNA", "LICSW", "PT", "RD")


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = r = random.Random(seed)
        self.l = src.lists()
        self.places = src.places()
        people = src.synthea_people()
        r.shuffle(people)
        self.patients_src = people
        self.home = r.choice(
            ["Mercy General Hospital", "St. Elizabeth's Medical Center", "Fairview Hospital"]
        )
        self.home_abbrev = "".join(w[0] for w in self.home.split() if w[0].isupper())

    # ------------------------------------------------------------------ people
    def patient(self, i: int) -> Patient:
        r = self.rng
        first, last, sex = self.patients_src[i % len(self.patients_src)]
        if r.random() < 0.1:
            first = r.choice(src.WORD_GIVEN)
        return Patient(
            key=f"B{i:05d}",
            first=first,
            last=last,
            mrn=str(r.randint(100_000, 9_999_999)),
            phone=f"{r.randint(201, 989)}-{r.randint(201, 989)}-{r.randint(1000, 9999)}",
            sex=sex,
            place=r.choice(self.places),
        )

    def doc(self) -> tuple[str, str]:
        return self.rng.choice(self.l["doc_first"]), self.rng.choice(self.l["doc_last"])

    def given(self) -> str:
        r = self.rng
        return r.choice(self.l["female"] if r.random() < 0.6 else self.l["male"])

    def clinician(self) -> list[Piece]:
        r = self.rng
        first, last = self.doc()
        k = r.randrange(9)
        if k == 0:
            return [f"{r.choice(CLIN_PRE)} ", (last, "NAME")]
        if k == 1:
            return [f"{r.choice(CLIN_PRE)} ", (last.lower(), "NAME")]
        if k == 2:
            return [(f"{first} {last}", "NAME"), f", {r.choice(CREDS)}"]
        if k == 3:
            return [(f"{first[0]}. {last}", "NAME"), f" {r.choice(CREDS)}"]
        if k == 4:
            return [f"{r.choice(('Dr.', 'dr', 'NP'))} ", (f"{first[0]}", "NAME")]
        if k == 5:
            return [(f"{first[0]}{last[0]}", "NAME"), ", RN"]
        if k == 6:
            return ["Dr. ", (f"{first} {last}", "NAME")]
        if k == 7:
            return ["covering ", (f"{last}", "NAME"), " (MD)"]
        return [f"{r.choice(('NP', 'Dr.'))} ", (f"{first[0]}.{last[0]}.", "NAME")]

    def relative(self) -> list[Piece]:
        r = self.rng
        rel = r.choice(RELATIONS)
        g = self.given()
        k = r.randrange(7)
        if k == 0:
            return [f"{rel} ", (g, "NAME")]
        if k == 1:
            return [f"{rel} ", (g.lower(), "NAME")]
        if k == 2:
            return [f"{rel}, ", (f"{g} {self.rng.choice(self.l['doc_last'])}", "NAME"), ","]
        if k == 3:
            return [f"{rel} (", (g, "NAME"), ")"]
        if k == 4:
            return [f"{rel} ", (f"{g[0]}.", "NAME")]
        if k == 5:
            return [f"{rel} is ", (g, "NAME")]
        return [(g, "NAME"), f" ({rel})"]

    # ------------------------------------------------------------------ dates
    def date(self) -> str:
        r = self.rng
        y, m, d = r.randint(1990, 2024), r.randint(1, 12), r.randint(1, 28)
        mon = src.MONTHS[m - 1]
        suffix = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd"}.get(d, "th")
        forms = (
            f"{m}/{d}", f"{m:02d}/{d:02d}", f"{m}/{d}/{y % 100:02d}", f"{m}/{d}/{y}",
            f"{m}-{d}-{y}", f"{d}-{mon[:3]}", f"{d}-{mon[:3]}-{y % 100:02d}",
            f"{mon} {d}{suffix}", f"{mon[:3]} {d}", f"{mon[:3]}. {d}, {y}", f"{d} {mon} {y}",
            f"{mon} {y}", f"{m}/{y}", f"{y}-{m:02d}-{d:02d}", f"{m}.{d}.{y % 100:02d}",
            f"{mon.lower()} {d}", f"{d}{mon[:3].upper()}{y % 100:02d}",
        )  # fmt: skip
        return r.choice(forms)

    def season(self) -> str:
        r = self.rng
        s = r.choice(("spring", "summer", "fall", "winter", "Spring", "Summer", "Fall"))
        y = r.randint(1995, 2023)
        return r.choice((f"{s} {y}", f"{s} of {y}", f"{s} '{y % 100:02d}"))

    def age(self) -> list[Piece]:
        r = self.rng
        a = str(r.randint(90, 104))
        k = r.randrange(6)
        if k == 0:
            return [(a, "AGE"), " yo"]
        if k == 1:
            return [(a, "AGE"), " y/o"]
        if k == 2:
            return ["age ", (a, "AGE")]
        if k == 3:
            return [(a, "AGE"), "-year-old"]
        if k == 4:
            return ["a ", (a, "AGE"), " year old"]
        return [(a, "AGE"), "yo"]

    def phone(self) -> str:
        r = self.rng
        a, b, c = r.randint(201, 989), r.randint(201, 989), r.randint(1000, 9999)
        forms = (f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"{b}-{c}", f"{a} {b} {c}")
        return r.choice(forms)

    # ------------------------------------------------------------------ places
    def facility(self) -> str:
        r = self.rng
        k = r.randrange(5)
        if k == 0:
            return f"St. {r.choice(src.SAINT_NAMES)} {r.choice(('Hospital', 'Medical Center'))}"
        if k == 1:
            return f"{r.choice(src.FACILITY_HEADS)} {r.choice(src.FACILITY_WORDS)}"
        if k == 2:
            return r.choice(self.l["hospitals"])
        if k == 3:
            return f"{r.choice(self.places).city} {r.choice(src.FACILITY_WORDS)}"
        return f"{r.choice(self.l['doc_last'])} {r.choice(src.FACILITY_WORDS)}"

    def location(self, p: Patient) -> list[Piece]:
        r = self.rng
        pl = r.choice((p.place, r.choice(self.places)))
        k = r.randrange(10)
        if k == 0:
            return ["lives in ", (pl.city, "LOCATION"), ", ", (pl.state, "LOCATION")]
        if k == 1:
            ab = r.choice(self.l["state_abbrevs"])
            return ["from ", (pl.city, "LOCATION"), " ", (ab, "LOCATION")]
        if k == 2:
            return ["resides in ", (pl.county, "LOCATION")]
        if k == 3:
            return ["address ", (pl.street, "LOCATION"), ", ", (pl.city, "LOCATION")]
        if k == 4:
            return [(f"P.O. Box {r.randint(1, 9999)}", "LOCATION")]
        if k == 5:
            return ["transferred from ", (self.facility(), "LOCATION")]
        if k == 6:
            return ["d/c to ", (self.facility(), "LOCATION")]
        if k == 7:
            return ["moved here from ", (r.choice(self.l["local_places"]), "LOCATION")]
        if k == 8:
            return ["admitted to ", (r.choice(src.UNITS), "LOCATION")]
        return ["pt on ", (r.choice(src.UNIT_ABBREVS), "LOCATION"), " overnight"]

    # ------------------------------------------------------------------ sentences
    def sentences(self, p: Patient) -> list[Callable[[], list[Piece]]]:
        r = self.rng
        return [
            lambda: [*self.relative(), " called, updated on plan."],
            lambda: [*self.relative(), " at bedside, ", *self.clinician(), " spoke w/ family."],
            lambda: ["discussed with ", *self.clinician(), ", will f/u."],
            lambda: ["per ", *self.clinician(), " hold ", r.choice(src.DRUGS), " tonight."],
            lambda: ["last seen ", (self.date(), "DATE"), " in clinic."],
            lambda: ["sx began ", (self.date(), "DATE"), ", worse since."],
            lambda: ["f/u appt ", (self.date(), "DATE"), " w/ ", *self.clinician(), "."],
            lambda: ["hx CVA ", (self.season(), "DATE"), "."],
            lambda: ["pt is ", *self.age(), ", ", r.choice(("F", "M", "female", "male")), "."],
            lambda: [*self.location(p), "."],
            lambda: [*self.location(p), ", ", *self.relative(), " visiting."],
            lambda: ["call back # ", (self.phone(), "PHONE"), "."],
            lambda: [*self.relative(), " cell ", (self.phone(), "PHONE")],
            lambda: ["MRN ", (p.mrn, "ID"), " verified."],
            lambda: [(p.first, "NAME"), " asking for water."],
            lambda: [(p.first, "NAME"), " states she slept poorly."],
            lambda: ["spoke with ", (self.given(), "NAME"), " from case mgmt."],
            lambda: [(self.given(), "NAME"), " from PT saw pt today."],
            lambda: ["hx ", r.choice(src.EPONYMS), ", on ", r.choice(src.DRUGS), "."],
            lambda: [r.choice(TRAPS)],
            lambda: [r.choice(TRAPS)],
            lambda: [r.choice(FILLERS)],
            lambda: [r.choice(FILLERS)],
        ]

    def nursing(self, p: Patient) -> list[Piece]:
        r = self.rng
        pieces: list[Piece] = [r.choice(("NSG: ", "Nursing 7p-7a: ", "RN note: ", ""))]
        makers = self.sentences(p)
        for _ in range(r.randint(4, 9)):
            pieces += [*r.choice(makers)(), " "]
        return pieces

    def discharge(self, p: Patient) -> list[Piece]:
        r = self.rng
        pieces: list[Piece] = ["DISCHARGE SUMMARY\nPatient: ", (f"{p.last}, {p.first}", "NAME")]
        pieces += ["  MR#: ", (p.mrn, "ID"), "\nAdmit: ", (self.date(), "DATE")]
        pieces += ["   D/C: ", (self.date(), "DATE"), "\nAttending: ", *self.clinician()]
        pieces += ["\nPCP: ", *self.clinician(), "\n\nHPI: ", (f"{p.first} {p.last}", "NAME")]
        if r.random() < 0.3:
            pieces += [" is a ", *self.age(), " with hx of ", r.choice(src.EPONYMS), ". "]
        else:
            pieces += [" is a 78 yo with hx of ", r.choice(src.EPONYMS), ". "]
        pieces += ["Presented to ", (self.facility(), "LOCATION"), " ED on "]
        pieces += [(self.date(), "DATE"), ". ", r.choice(TRAPS), "\nHospital course: "]
        makers = self.sentences(p)
        for _ in range(r.randint(3, 6)):
            pieces += [*r.choice(makers)(), " "]
        pieces += ["\nDisposition: home with ", *self.relative(), ". "]
        pieces += ["Address on file: ", (p.place.street, "LOCATION"), ", "]
        pieces += [(p.place.city, "LOCATION"), ", ", (p.place.state, "LOCATION")]
        pieces += [" ", (p.place.zip, "LOCATION"), ".\n"] if p.place.zip else [".\n"]
        return pieces

    def phone_msg(self, p: Patient) -> list[Piece]:
        r = self.rng
        pieces: list[Piece] = [r.choice(("TC ", "Phone msg ", "Telephone encounter ", "tc "))]
        pieces += [(self.date(), "DATE"), r.choice((" 10:42: ", " @ 3pm: ", ": "))]
        pieces += [*self.relative(), " called re: ", r.choice(("pt", (p.first, "NAME")))]
        pieces += [". Best # ", (self.phone(), "PHONE"), ". "]
        makers = self.sentences(p)
        for _ in range(r.randint(2, 4)):
            pieces += [*r.choice(makers)(), " "]
        pieces += ["msg routed to ", *self.clinician(), "."]
        return pieces

    def note(self, p: Patient, style: str) -> tuple[str, list[tuple[int, int, str]]]:
        r = self.rng
        if style == "discharge":
            pieces = self.discharge(p)
        elif style == "phone":
            pieces = self.phone_msg(p)
        else:
            pieces = self.nursing(p)
        if p.first in src.WORD_USES and r.random() < 0.8:
            pieces += [src.WORD_USES[p.first], " "]
        if style == "nursing-caps":
            pieces += [r.choice(CAPS_TRAPS)]
        text, spans = _join(pieces)
        if style == "nursing-caps" and len(text.upper()) == len(text):
            text = text.upper()
        elif style == "nursing-lower" and len(text.lower()) == len(text):
            text = text.lower()
        return text, spans


def _join(pieces: Sequence[Piece]) -> tuple[str, list[tuple[int, int, str]]]:
    out: list[str] = []
    spans: list[tuple[int, int, str]] = []
    pos = 0
    for piece in pieces:
        text = piece[0] if isinstance(piece, tuple) else piece
        if isinstance(piece, tuple):
            spans.append((pos, pos + len(text), piece[1]))
        out.append(text)
        pos += len(text)
    return "".join(out).rstrip(), spans


STYLES = ("nursing", "nursing", "nursing-caps", "nursing-lower", "discharge", "phone", "phone")


def generate(n: int = 2400, seed: int = SEED) -> Corpus:
    """``n`` annotated notes, about 3 per patient, in the seven-way mix of ``STYLES``."""
    g = _Gen(seed)
    corpus = Corpus()
    corpus.people = [g.patient(i) for i in range(max(1, n // 3))]
    corpus.sites = [g.home, g.home_abbrev, *src.UNITS[:5]]
    for _ in range(n):
        p = g.rng.choice(corpus.people)
        style = g.rng.choice(STYLES)
        text, spans = g.note(p, style)
        corpus.notes.append(text)
        corpus.persons.append(p.key)
        corpus.spans.append(spans)
        corpus.styles.append(style)
    return corpus
