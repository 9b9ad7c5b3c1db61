"""Synthetic annotated notes for the scan's recall test and benchmark.

Names come from the PhysioNet deid name lists (GPL data, used in tests and benchmarks
only, never shipped). Every planted identifier is recorded as (note, start, end, kind).
"""

from __future__ import annotations

import random
from pathlib import Path

from deid_desktop.core.scan import ScanDictionary, build_dictionary_from_values

FILLER = [
    "Patient seen in clinic for follow up of hypertension and type 2 diabetes.",
    "BP 132/84, HR 76, temp 98.4, SpO2 97% on room air.",
    "Continue metformin 500 mg twice daily and lisinopril 10 mg daily.",
    "Labs reviewed: HbA1c 7.2, creatinine 1.1, potassium 4.3.",
    "No chest pain, no shortness of breath, no edema on exam.",
    "Discussed diet, exercise and medication adherence at length.",
    "Return to clinic in 3 months or sooner if symptoms worsen.",
    "Wound is healing well, dressing changed, no signs of infection.",
    "Plan discussed with the patient who agrees with the plan.",
    "Imaging shows mild degenerative changes, no acute findings.",
]
RELATIONS = ["daughter", "son", "wife", "husband", "mother", "father", "sister", "brother"]
MONTHS = ["January", "February", "March", "April", "June", "July", "October", "November"]


def _names(public_data: Path, file: str) -> list[str]:
    path = public_data / "physionet-deid" / "lists" / file
    return [w.strip().title() for w in path.read_text(encoding="latin-1").splitlines() if w.strip()]


def _phone(rng: random.Random, digits: str) -> str:
    a, b, c = digits[:3], digits[3:6], digits[6:]
    return rng.choice([f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"{a} {b} {c}", digits])


def _date(rng: random.Random) -> str:
    y, m, d = rng.randint(1990, 2025), rng.randint(1, 12), rng.randint(1, 28)
    return rng.choice(
        [
            f"{y}-{m:02d}-{d:02d}",
            f"{m}/{d}/{y}",
            f"{d:02d}/{m:02d}/{y}",
            f"{MONTHS[m % len(MONTHS)]} {d}, {y}",
            f"{d} {MONTHS[m % len(MONTHS)][:3]} {y}",
        ]
    )


class _Note:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.spans: list[tuple[int, int, str]] = []
        self.pos = 0

    def add(self, text: str, kind: str | None = None) -> None:
        if kind:
            self.spans.append((self.pos, self.pos + len(text), kind))
        self.parts.append(text)
        self.pos += len(text)


def make_notes(
    public_data: Path,
    *,
    n: int,
    seed: int = 1,
    dictionary_size: int = 10_000,
    identified_share: float = 1.0,
) -> tuple[list[str], list[tuple[int, int, int, str]], ScanDictionary]:
    """``n`` notes of ~200-600 characters, the planted spans, and a dictionary with about
    ``dictionary_size`` entries (patients' first and last names, MRNs, phones).
    ``identified_share`` of the notes carry identifiers (3 to 6 each); the rest are
    clinical filler only."""
    rng = random.Random(seed)
    firsts = _names(public_data, "female_names_unambig.txt") + _names(
        public_data, "male_names_unambig.txt"
    )
    lasts = _names(public_data, "last_names_unambig.txt")
    people = []
    for _ in range(int(dictionary_size / 3.7)):
        people.append(
            (
                rng.choice(firsts),
                rng.choice(lasts),
                f"MRN{rng.randint(10**6, 10**7 - 1)}",
                f"{rng.randint(200, 989)}{rng.randint(200, 999)}{rng.randint(1000, 9999)}",
            )
        )
    dictionary = build_dictionary_from_values(
        {
            "name": [f"{f} {last}" for f, last, _, _ in people],
            "mrn": [p[2] for p in people],
            "phone": [p[3] for p in people],
        }
    )
    notes: list[str] = []
    truth: list[tuple[int, int, int, str]] = []
    for i in range(n):
        first, last, mrn, phone = rng.choice(people)
        note = _Note()
        add = note.add
        target = rng.randint(200, 600)
        if rng.random() >= identified_share:
            while note.pos < target:
                add(rng.choice(FILLER) + " ")
            notes.append("".join(note.parts).rstrip())
            continue

        add(rng.choice(["Pt ", "Patient ", "Seen: "]))
        add(first, "NAME")
        add(" ")
        add(last, "NAME")
        add(", ")
        add(mrn, "MRN")
        add(". ")
        extras = rng.sample(["phone", "date", "doctor", "relative", "email"], k=rng.randint(1, 3))
        for extra in extras:
            add(rng.choice(FILLER) + " ")
            if extra == "phone":
                add("Call back at ")
                add(_phone(rng, phone), "PHONE")
                add(". ")
            elif extra == "date":
                add("Last visit ")
                add(_date(rng), "DATE")
                add(". ")
            elif extra == "doctor":
                add("Reviewed with Dr. ")
                add(rng.choice(lasts), "NAME")
                add(" today. ")
            elif extra == "relative":
                add(f"Accompanied by {rng.choice(RELATIONS)} ")
                add(rng.choice(firsts), "NAME")
                add(" who helps at home. ")
            else:
                add("Portal message from ")
                add(f"{first.lower()}.{last.lower()}@example.com", "EMAIL")
                add(". ")
        while note.pos < target:
            add(rng.choice(FILLER) + " ")
        notes.append("".join(note.parts).rstrip())
        truth.extend((i, s, e, k) for s, e, k in note.spans)
    return notes, truth, dictionary
