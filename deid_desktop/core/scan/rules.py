"""Every (kind, rule) a hit can carry, numbered, so candidate hits travel as int arrays.

Priority breaks ties on one span: dictionary 0, cue 1, pattern 2.
"""

from __future__ import annotations

import numpy as np

DICT, CUE, PATTERN = 0, 1, 2

DICT_HIT_KINDS = ("NAME", "MRN", "PHONE", "EMAIL", "SSN", "ID")
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

RULES: tuple[tuple[str, str], ...] = (
    *((k, f"dictionary:{k.lower()}") for k in DICT_HIT_KINDS),
    *(("NAME", f"cue:{w}") for w in CUE_WORDS),
    *PATTERN_RULES,
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


def dict_code(kind: str) -> int:
    return CODE[(kind, f"dictionary:{kind.lower()}")]


def pattern_code(kind: str, rule: str) -> int:
    return CODE[(kind, rule)]
