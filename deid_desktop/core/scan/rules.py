"""Every (kind, rule) a hit can carry, numbered, so candidate hits travel as int arrays.

Priority breaks ties on one span: dictionary 0, cue 1, pattern 2. Every rule has a
confidence (``CONFIDENCE``): high, medium or low; redaction can be limited to a level.
"""

from __future__ import annotations

import numpy as np

DICT, CUE, PATTERN = 0, 1, 2

DICT_HIT_KINDS = ("NAME", "MRN", "PHONE", "EMAIL", "SSN", "ID", "LOCATION")
#: Confidence levels, most certain first; a level's redaction covers it and those above.
LEVELS = ("high", "medium", "low")
HIGH, MEDIUM, LOW = 0, 1, 2
CUE_WORDS = (
    "mr", "mrs", "ms", "miss", "dr",
    "daughter", "son", "wife", "husband", "mother", "father", "sister", "brother",
    "grandson", "granddaughter", "niece", "nephew", "aunt", "uncle", "partner",
)  # fmt: skip
MONTH_WORDS = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
)  # fmt: skip
PATTERN_RULES = (
    ("SSN", "pattern:ssn"),
    ("DATE", "pattern:date"),
    ("IP", "pattern:ip"),
    ("PHONE", "pattern:phone"),
    ("ZIP", "pattern:zip"),
    ("MRN", "pattern:mrn"),
    ("EMAIL", "pattern:email"),
    ("URL", "pattern:url"),
)

#: The rules of the context finders (``context``) and their confidence.
CONTEXT_RULES = (
    ("NAME", "dictionary:name-other", MEDIUM),  # a name of another person than the row's
    ("NAME", "cue:title", HIGH),
    ("NAME", "cue:relation", HIGH),
    ("NAME", "cue:credential", HIGH),
    ("NAME", "cue:lower-case", MEDIUM),
    ("NAME", "cue:initial", MEDIUM),
    ("NAME", "names:given+surname", MEDIUM),
    ("NAME", "names:given", MEDIUM),
    ("NAME", "names:surname", LOW),
    ("NAME", "recall:unknown-word", LOW),
    ("AGE", "age:over-89", HIGH),
    ("DATE", "date:no-year", MEDIUM),
    ("DATE", "date:month-year", HIGH),
    ("DATE", "date:season", MEDIUM),
    ("LOCATION", "address:street", HIGH),
    ("LOCATION", "address:po-box", HIGH),
    ("LOCATION", "facility", MEDIUM),
    ("LOCATION", "gazetteer", MEDIUM),
    # shapes_more: forms of real notes
    ("SSN", "pattern:ssn-spaced", HIGH),  # "SSN 123 45 6789"
    ("EMAIL", "pattern:email-spelled", HIGH),  # "jdoe at gmail dot com"
    ("ID", "vehicle:vin", HIGH),  # 17 characters, check digit right
    ("ID", "vehicle:plate", HIGH),  # "plate 7XYZ123", "tag # 7XYZ123"
    ("ID", "device:serial", HIGH),  # "serial # AB12345", "S/N 123456"
    ("DATE", "date:day-of-month", MEDIUM),  # "the 3rd of March"
    ("LOCATION", "address:directional", HIGH),  # "1234 N. Broadway"
    ("LOCATION", "address:street-name", MEDIUM),  # "lives on Mass Ave"
    ("LOCATION", "address:unit", HIGH),  # "Apt 4B", "Suite 300" by an address
    ("LOCATION", "address:town-state", MEDIUM),  # "Somerville MA"
    ("AGE", "age:decade", HIGH),  # "in her 90s"
    ("AGE", "age:decade-bare", MEDIUM),  # "late 90s", "nineties"
    ("AGE", "age:glued", HIGH),  # "101yo", "93yoF", "95y/o", "turned 95"
    ("ID", "insurance:mbi", HIGH),  # Medicare Beneficiary Identifier "1EG4-TE5-MK73"
    ("DATE", "date:weekday-day", MEDIUM),  # "Tuesday the 14th"
    # a dictionary name that is also an everyday word, neither capitalised nor cued
    # ("mark", "MILLER" in a note in capitals): kept only in its own person's notes
    # beside another word of their name, where it becomes ``dictionary:name``
    # (engine._person_aware); dropped elsewhere
    ("NAME", "word:own-name", LOW),
    # a dictionary name that is a word of the English word list though not an everyday
    # one ("wedge", "shin"), neither capitalised nor cued: its own person's name in
    # their notes (``dictionary:name``), dropped in another person's (engine._person_aware)
    ("NAME", "word:english-name", LOW),
    # a number of 7 digits or more in groups split by single spaces: an MRN or an
    # account number written in groups ("MR 207 6796"), or a phone without dashes
    ("ID", "pattern:grouped", MEDIUM),
    # context_notes, context_places: forms of notes in capitals and lower-case shorthand;
    # their name rules are not "cue:" rules, so that on one span a dictionary word
    # (``word:own-name``) is kept beside them and can become the person's own name
    ("NAME", "notes:cued-name", MEDIUM),  # "son is Mark", "lakeisha (daughter)", "LW, RN"
    ("NAME", "notes:cued-initials", MEDIUM),  # "Dr. J.M.", "dtr j."
    # a clinician's or a visitor's name before a credential, before "aware", after "per"
    ("NAME", "notes:staff-name", MEDIUM),  # "WENZEL BREIT RN", "joan hovey called"
    ("DATE", "date:short-year", MEDIUM),  # "22-Jul-19", "fall '06"
    ("DATE", "date:glued", MEDIUM),  # "9NOV00"
    ("LOCATION", "gazetteer:state", MEDIUM),  # "Omaha, Nebraska", "Weymouth KY"
    ("LOCATION", "address:house", MEDIUM),  # "519 Stokes Hollow"
    ("LOCATION", "address:house-unit", HIGH),  # "519 Stokes Hollow Apt 4", "address: 519 ..."
    ("LOCATION", "gazetteer:county", MEDIUM),  # "essex county"
    ("LOCATION", "facility:saint", MEDIUM),  # "St. Agnes"
    ("LOCATION", "unit:ward", LOW),  # "admitted to Farr 10"
    # a word no list knows after "transferred to", "admitted from" ("TRANSFER TO CALVERT")
    ("LOCATION", "place:after-transfer", MEDIUM),
    # spoken: seven digits or more read out as words ("eight five eight, five five five")
    ("ID", "pattern:spoken-digits", HIGH),
    # a dictionary name glued to digits, capitalised: the whole word ("SCOTT9573")
    ("NAME", "dictionary:name-glued", HIGH),
    # a hospital's abbreviation before its department, a place after "lives in" or an
    # employer's cue ("At RK EW", "lives in AW", "retired from HT")
    ("LOCATION", "place:site-code", MEDIUM),
    # a year alone after "in" or a clinical event ("IN 1973", "CVA 1965"): Safe Harbor
    # keeps years, so low; a holiday is a day ("home for thanksgiving")
    ("DATE", "date:year", LOW),
    ("DATE", "date:holiday", MEDIUM),
    # a record number in groups after its cue ("Unit No: 555-55-55", "MR# 55 12 33")
    ("MRN", "record:cued", HIGH),
    # where a relative comes from ("DAUGHTER FROM TFCN CALLED", "son from Weymouth")
    ("LOCATION", "place:relative-from", MEDIUM),
    # a hospital's or a service's own name before "consult", "scale" or
    # "campus" ("Joslin consult", "following Hartwell scale", "er Norborne campus")
    ("LOCATION", "place:service-name", MEDIUM),
)
_MEDIUM_PATTERNS = {"pattern:zip", "pattern:mrn"}

RULES: tuple[tuple[str, str], ...] = (
    *((k, f"dictionary:{k.lower()}") for k in DICT_HIT_KINDS),
    *(("NAME", f"cue:{w}") for w in CUE_WORDS),
    *PATTERN_RULES,
    *((k, r) for k, r, _ in CONTEXT_RULES),
)
CODE: dict[tuple[str, str], int] = {r: i for i, r in enumerate(RULES)}
KIND_OF = np.array([k for k, _ in RULES], dtype=object)
RULE_OF = np.array([r for _, r in RULES], dtype=object)
PRIORITY = np.array(
    [
        DICT if r.startswith("dictionary:") else CUE if r.startswith("cue:") else PATTERN
        for _, r in RULES
    ],
    dtype=np.int64,
)
_CONTEXT_CONF = {(k, r): c for k, r, c in CONTEXT_RULES}
#: Confidence of each rule (index into LEVELS).
CONFIDENCE = np.array(
    [_CONTEXT_CONF.get((k, r), MEDIUM if r in _MEDIUM_PATTERNS else HIGH) for k, r in RULES],
    dtype=np.int64,
)
CONFIDENCE_OF = np.array([LEVELS[c] for c in CONFIDENCE], dtype=object)


def dict_code(kind: str) -> int:
    return CODE[(kind, f"dictionary:{kind.lower()}")]


def pattern_code(kind: str, rule: str) -> int:
    return CODE[(kind, rule)]
