"""The words that tell a place's name from where a patient goes (plain data, hashed once),
read by the facility finder of ``context`` and the place finders of ``context_places``.
"""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan import lexicon as lx

#: Words before "home" that say where a patient goes, not a facility's name.
GOING_WORDS = ("dc", "d/c", "discharge", "discharged", "go", "going", "went", "sent", "send",
               "back", "return", "returned", "returning", "to", "at", "from")  # fmt: skip

#: Words before a facility word that make no facility's name ("go home", "SHIFT
#: NURSING NOTE", "BEGIN CARDIAC REHAB"): where a patient goes, what a note is about.
NOT_FACILITY_WORDS = (
    "begin", "began", "awaiting", "await", "require", "requires", "required", "cont",
    "continue", "continued", "cardiac", "pulmonary", "pulm", "inpatient", "acute", "shift",
    "progress", "start", "started", "needs", "need", "for", "screen", "screening", "pt",
    "ot", "micu", "ccu", "sicu", "csru", "pmicu", "nsg", "poor", "current",
    "prolonged", "outside", "email", "re", "the", "basic", "funeral",
)  # fmt: skip

#: Where a patient is transferred that is no place's name: units, services, rooms.
WARD_WORDS = (
    "icu", "ccu", "micu", "sicu", "csru", "cvicu", "nicu", "picu", "ctic", "cticu", "pacu",
    "or", "er", "ew", "ed", "floor", "floors", "rehab", "home", "cath", "ct", "mri", "ir",
    "ep", "lab", "tele", "telemetry", "stepdown", "snf", "vna", "hospice", "osh", "ward",
    "unit", "bed", "room", "chair", "commode", "dialysis", "surgery", "ccu's", "nsg",
    "hosp", "hospital", "facility", "service", "team", "us", "them", "him", "her", "pt",
    "baseline", "simv", "imv", "cpap", "bipap", "psv", "ac", "sr", "nsr", "afib", "q2",
    "vicu", "angio", "ctscan", "catscan", "cathlab", "xray", "ultrasound", "echo", "pacu",
    "step", "holding", "endoscopy", "gi", "nuclear", "radiology", "interventional",
    "tsicu", "msicu", "ccru", "nsicu", "nicu", "cvru", "pmicu",
)  # fmt: skip

GOING = lx.hash_set(GOING_WORDS)
WARDS = lx.hash_set(WARD_WORDS)
#: no part of a facility's name: where a patient goes, what a note is about, a unit
NOT_NAME = np.sort(np.concatenate((GOING, lx.hash_set(NOT_FACILITY_WORDS), WARDS)))
#: the words between a transfer word and the place: "to", "from", "into"
TO = lx.hash_set(("to", "from", "into"))
#: a word of time between a transfer word and "to" ("TRANSFER TODAY TO X")
LATER = lx.hash_set(("today", "tomorrow", "tonight", "back", "directly", "later", "soon"))
