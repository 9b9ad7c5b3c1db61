"""What a column's name says: tokenised names matched against a table of keywords.

A name such as ``patientDOB``, ``BIRTHDATE`` or ``zip_code`` is split into lowercase tokens
(``patient dob``, ``birthdate``, ``zip code``). Each rule holds keyword patterns:

- ``"zip code"`` a phrase: consecutive tokens, or the same words run together in one token
  (``zipcode``, ``ZIPCODE``);
- ``"=first"`` the whole name and nothing else (digits aside): ``FIRST`` but not ``first_visit``;
- ``"*date"`` a token ending with the word: ``DEATHDATE``, ``admitdate``.

:func:`match_name` returns every rule that matches, in the table's order; the decision
(`decide.py`) takes the first one the values do not contradict.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from deid_desktop.core.model import IdentifierCategory as Cat
from deid_desktop.core.model import Role


class HintKind(StrEnum):
    DIRECT = "direct"  # the name says identifier (category given)
    PERSON_KEY = "person_key"  # the name says the person's own key
    DATE = "date"  # the name says date, whatever the values
    DATE_IF_VALUES = "date_if_values"  # a date only when the values look like dates
    FREE_TEXT = "free_text"
    FREE_TEXT_OR_VOCAB = "free_text_or_vocab"  # free text unless values repeat like a code list
    QUASI = "quasi"
    CLINICAL = "clinical"
    ID_LIKE = "id_like"  # id/number/key: an identifier when the values are codes
    ORG_ID = "org_id"  # provider/organisation/payer: direct (unsure) when the values are codes


@dataclass(frozen=True)
class ColumnName:
    raw: str
    tokens: tuple[str, ...]  # lowercase ASCII words and digit runs
    words: tuple[str, ...]  # tokens without digit runs: ``address1`` -> ``("address",)``
    joined: str  # the words run together: ``zip_code`` -> ``zipcode``


def parse_column_name(name: object) -> ColumnName:
    text = str(name)
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)  # camelCase
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)  # SSNNumber -> SSN Number
    text = re.sub(r"([A-Za-z])([0-9])", r"\1 \2", text)
    text = re.sub(r"([0-9])([A-Za-z])", r"\1 \2", text)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    tokens = tuple(t for t in re.split(r"[^a-z0-9]+", text) if t)
    words = tuple(t for t in tokens if not t.isdigit())
    return ColumnName(raw=str(name), tokens=tokens, words=words, joined="".join(words))


#: Tokens that end like a suffix keyword but mean something else.
_SUFFIX_EXCEPTIONS = frozenset(
    {"update", "candidate", "validate", "mandate", "accommodate", "consolidate", "liquidate"}
)


@dataclass(frozen=True)
class Pattern:
    text: str  # shown in evidence: "name matches 'zip code'"
    words: tuple[str, ...]
    mode: str  # "phrase" | "whole" | "suffix"
    glued: str  # the words run together

    @classmethod
    def parse(cls, spec: str) -> Pattern:
        mode = {"=": "whole", "*": "suffix"}.get(spec[:1], "phrase")
        text = spec[1:] if mode != "phrase" else spec
        words = tuple(text.split())
        return cls(text, words, mode, "".join(words))

    def matches(self, name: ColumnName) -> bool:
        glued = self.glued
        if self.mode == "whole":
            return name.words == self.words or name.joined == glued
        if self.mode == "suffix":
            return any(
                t.endswith(glued) and len(t) >= len(glued) + 2 and t not in _SUFFIX_EXCEPTIONS
                for t in name.words
            )
        words, n = name.words, len(self.words)
        if glued in words:
            return True
        if n == 1:
            return False
        return any(words[i : i + n] == self.words for i in range(len(words) - n + 1))


@dataclass(frozen=True)
class NameHint:
    kind: HintKind
    keyword: str  # what matched, one of our own keywords (never data)
    category: Cat | None = None
    role: Role | None = None
    key_priority: int | None = None  # person-key candidate: 1 best
    doubt: str | None = None  # why the name alone leaves doubt (makes the tag unsure)
    note: str | None = None  # an extra plain sentence for the evidence

    @property
    def evidence(self) -> str:
        return f"name matches '{self.keyword}'"


@dataclass(frozen=True)
class Rule:
    kind: HintKind
    patterns: tuple[Pattern, ...]
    category: Cat | None = None
    role: Role | None = None
    key_priority: int | None = None
    doubt: str | None = None
    note: str | None = None

    def hint(self, name: ColumnName) -> NameHint | None:
        for p in self.patterns:
            if p.matches(name):
                return NameHint(
                    self.kind, p.text, self.category, self.role, self.key_priority,
                    self.doubt, self.note,
                )  # fmt: skip
        return None


def _rule(
    kind: HintKind,
    specs: str,
    *,
    category: Cat | None = None,
    role: Role | None = None,
    key_priority: int | None = None,
    doubt: str | None = None,
    note: str | None = None,
) -> Rule:
    """A rule from comma-separated keyword patterns: ``"zip, zip code, =state, *date"``."""
    patterns = tuple(Pattern.parse(s.strip()) for s in specs.split(",") if s.strip())
    return Rule(kind, patterns, category, role, key_priority, doubt, note)


def _direct(
    cat: Cat, specs: str, *, key_priority: int | None = None, note: str | None = None
) -> Rule:
    return _rule(HintKind.DIRECT, specs, category=cat, key_priority=key_priority, note=note)


_KEY_SUBJECTS = ("patient", "pat", "pt", "person", "subject", "participant", "study", "record")
_KEY_SUFFIXES = ("id", "key", "number", "no", "num", "nbr", "identifier", "uuid", "code")
_KEY_PATTERNS = ", ".join(
    [
        "=patient, =person, =subject, =participant, =pid, =subjid, =usubjid, =ptid, =patid",
        "=patnum",
        *(f"{s} {x}" for s in _KEY_SUBJECTS for x in _KEY_SUFFIXES),
    ]
)

_ORG_DOUBT = (
    "these codes may identify a provider, organisation or payer rather than the person; "
    "suggested as direct to be safe"
)

#: Rules in order. DIRECT rules are checked first, whatever their place (see decide.py).
RULES: tuple[Rule, ...] = (
    # --- direct identifiers, the specific ones before the general ("ip address" before
    #     "address", "licence plate" before "licence", "fax number" before "number")
    _direct(Cat.O, "ip address, ip addr, =ip, ipv4, ipv6"),
    _direct(Cat.M, "mac address, mac addr"),
    _direct(Cat.F, "email, e mail, email address"),
    _direct(Cat.N, "url, uri, website, web site, web address, homepage, web page"),
    _direct(Cat.E, "fax, facsimile"),
    _direct(
        Cat.D,
        "phone, telephone, tel, mobile, cell phone, cell number, pager, contact number, *phone",
    ),
    _direct(Cat.G, "ssn, social security, soc sec, ss number, ssnum"),
    _direct(
        Cat.H,
        "mrn, medical record, med rec, medrec, record number, hospital number, chart number, "
        "=chart",
        key_priority=2,
    ),
    _direct(
        Cat.I,
        "health plan, beneficiary, member id, member number, member no, subscriber, policy number, "
        "policy id, insurance id, insurance number, insurance no, medicaid id, medicaid number, "
        "medicare id, medicare number, hicn, mbi",
    ),
    _direct(Cat.J, "account, acct, =fin, billing number, credit card, card number, iban"),
    _direct(Cat.L, "license plate, licence plate, plate, vehicle, vin"),
    _direct(
        Cat.K,
        "license, licence, =drivers, =driver, drivers number, driver number, passport, certificate",
    ),
    _direct(
        Cat.M,
        "udi, imei, meid, iccid, =serial, serial number, serial no, serialno, device id, "
        "device identifier, device serial, device number",
    ),
    _direct(
        Cat.P,
        "fingerprint, finger print, voiceprint, voice print, biometric, biometrics, retina, "
        "retinal scan, iris scan, palm print, palmprint",
    ),
    _direct(
        Cat.Q,
        "photo, photograph, photos, =picture, =image, image file, image path, headshot, portrait, "
        "selfie",
    ),
    _direct(
        Cat.A,
        "surname, surnames, forename, forenames, nickname, maiden, first name, last name, "
        "given name, family name, middle name, full name, patient name",
    ),
    _direct(
        Cat.C,
        "birth month, month of birth, birth day, day of birth, dob month, dob day",
        note="a day or month of birth is a date element Safe Harbor removes",
    ),
    # --- the person's own key
    _rule(
        HintKind.PERSON_KEY,
        _KEY_PATTERNS,
        category=Cat.R,
        key_priority=1,
    ),
    # --- dates named as such
    _rule(
        HintKind.DATE,
        "dob, date of birth, birth date, birthday, bdate, birth dt, birth datetime",
        role=Role.BIRTH_DATE,
    ),
    _rule(
        HintKind.DATE,
        "dod, date of death, death date, date, dates, dt, dttm, datetime, timestamp, *date, *dt",
    ),
    # --- geography (ZIP and state are quasi; smaller areas are direct B)
    _rule(HintKind.QUASI, "birth country, country of birth, birth state, state of birth"),
    _direct(Cat.B, "birthplace, birth place, place of birth, pob, birth city"),
    _rule(
        HintKind.QUASI,
        "zip, zipcode, zip code, postal, postcode, post code, postal code, zip5, zip3, plus4",
        role=Role.ZIP,
    ),
    _direct(
        Cat.B,
        "address, addr, street, line1, apt, apartment, city, town, township, village, "
        "municipality, county, parish, borough, precinct, neighborhood, neighbourhood, "
        "census tract, =tract, block group, census block, geocode, gps, lat, latitude, lon, lng, "
        "longitude, =long, coordinates, coords, fips, =residence, home address",
    ),
    _rule(
        HintKind.QUASI,
        "=state, state code, state name, us state, state of residence, residence state, "
        "home state, province, country, nationality, citizenship",
    ),
    # --- free text
    _rule(
        HintKind.FREE_TEXT,
        "note, notes, comment, comments, narrative, text, freetext, remark, remarks, memo, "
        "impression, summary, hpi, specify, message, transcript, report, findings, instructions, "
        "*notes, *comment, *comments, *text",
    ),
    _rule(
        HintKind.FREE_TEXT_OR_VOCAB,
        "description, desc, *description, *desc, reason, details, detail",
    ),
    # --- quasi-identifiers (demographics); clinical uses of "age" first
    _rule(HintKind.CLINICAL, "gestational age, bone age, number of, num of, no of"),
    _rule(HintKind.QUASI, "age, ages, ageyears, age yrs", role=Role.AGE),
    _rule(
        HintKind.QUASI,
        "birth year, year of birth, yob",
        note="a year of birth gives the age away",
    ),
    _rule(
        HintKind.QUASI,
        "sex, gender, sex at birth, birth sex, administrative sex",
        role=Role.SEX,
    ),
    _rule(
        HintKind.QUASI,
        "race, races, ethnicity, ethnic, hispanic, latino, marital, married, occupation, job, "
        "profession, employment, education, educational, schooling, language, religion, religious, "
        "veteran, military, income, salary, wage, wages, poverty, socioeconomic, ses, insurance, "
        "payer type, sexual orientation, household, housing, homeless",
    ),
    # --- money and counts are measurements, even beside an id word ("encounter cost")
    _rule(
        HintKind.CLINICAL,
        "cost, costs, *cost, price, amount, charge, charges, expenses, expense, coverage, paid, "
        "payment, balance, total, dispenses, quantity, qty, count, *count",
    ),
    # --- identifier-ish words: decided by the values
    _rule(
        HintKind.ID_LIKE,
        "id, ids, identifier, uuid, guid, key, number, no, num, nbr, nr, accession, encounter, "
        "episode, case, order, claim, transaction, user, username, login, npi",
        category=Cat.R,
    ),
    _rule(
        HintKind.ORG_ID,
        "provider, organization, organisation, org, payer, payor, insurer, practitioner, "
        "physician, doctor, clinician, surgeon, nurse, facility, hospital, site, clinic, practice, "
        "pcp, attending, referring, referrer",
        category=Cat.R,
        doubt=_ORG_DOUBT,
    ),
    # --- words that are dates only when the values are
    _rule(
        HintKind.DATE_IF_VALUES,
        "start, stop, end, begin, onset, admit, admission, admitted, discharge, discharged, visit, "
        "death, deceased, died, expired, time, *time, when, enrolled, enrollment, enrolment, "
        "randomization, randomisation, consent, surgery",
    ),
    # --- clinical vocabulary
    _rule(
        HintKind.CLINICAL,
        "code, codes, *code, system, type, *type, class, *class, category, status, *status, "
        "severity, reaction, result, results, value, values, unit, units, dose, dosage, route, "
        "frequency, duration, score, grade, stage, level, measurement, lab, labs, test, procedure, "
        "medication, medications, drug, diagnosis, dx, icd, snomed, loinc, rxnorm, cpt, ndc, "
        "hcpcs, modality, bodysite, body site, outcome, response, event, flag, indicator, weight, "
        "height, bmi, bp, sbp, dbp, hr, pulse, temperature, temp, spo2, lvef, ef, nyha, bnp, "
        "probnp, ntprobnp, creatinine, egfr, gfr, sodium, potassium, hemoglobin, hgb, hba1c, "
        "glucose, cholesterol, ldl, hdl, troponin, albumin, day, days, week, weeks, arm, "
        "treatment, therapy, allergy, condition, vaccine, immunization, death, deceased, died, "
        "mortality, readmission, hospitalization, vital status",
    ),
)

# --- the word "name": whose name decides

_NAME_WORDS = frozenset({"name", "names"})
_PERSON_QUALIFIERS = frozenset(
    {
        "patient", "pt", "person", "subject", "participant", "full", "first", "last", "given",
        "family", "middle", "maiden", "nick", "legal", "preferred", "sur", "fore", "christian",
        "prefix", "suffix", "title", "initial", "initials", "f", "l", "m", "pat", "of",
    }
)  # fmt: skip
_RELATIVE_QUALIFIERS = frozenset(
    {
        "mother", "mothers", "father", "fathers", "spouse", "partner", "kin", "nok", "guardian",
        "contact", "emergency", "relative", "parent", "child", "caregiver", "employer",
        "informant", "husband", "wife", "son", "daughter", "sibling", "next",
    }
)  # fmt: skip
_CLINICIAN_QUALIFIERS = frozenset(
    {
        "provider", "physician", "doctor", "dr", "nurse", "clinician", "practitioner", "surgeon",
        "attending", "referring", "referrer", "pcp", "consultant", "gp", "staff", "author",
        "signer", "user", "investigator", "coordinator", "rater", "assessor",
    }
)  # fmt: skip
_NONPERSON_QUALIFIERS = frozenset(
    {
        "drug", "medication", "med", "meds", "product", "brand", "generic", "test", "lab", "file",
        "site", "study", "hospital", "facility", "org", "organization", "organisation", "clinic",
        "practice", "procedure", "device", "vaccine", "code", "item", "plan", "payer", "payor",
        "insurer", "unit", "department", "dept", "ward", "program", "programme", "trial",
        "protocol", "form", "field", "variable", "column", "sheet", "table", "event", "visit",
        "diagnosis", "condition", "allergy", "specimen", "sample", "source", "system",
        "manufacturer", "company", "pharmacy", "street", "city", "county", "state", "country",
        "town", "place", "school", "service", "diet", "food", "substance", "allergen",
        "organism", "analyte", "panel", "order", "result", "component", "reason", "body",
        "location", "room", "bed", "insurance", "group", "arm", "cohort", "category", "class",
        "type", "encounter", "observation", "display", "short", "long", "host",
        "server", "database", "db", "project", "dataset", "scale", "question", "instrument",
    }
)  # fmt: skip
_WHOLE_NAME_PARTS = tuple(
    Pattern.parse(s)
    for s in (
        "=first", "=last", "=given", "=family", "=middle", "=fname", "=lname", "=mname",
        "=prefix", "=suffix", "=maiden", "=initials", "=alias", "=nickname", "=forename",
        "=forenames", "=mother", "=father", "=spouse", "=guardian", "=nok", "=next of kin",
        "=emergency contact", "=caregiver", "=employer", "=middle initial", "=first initial",
    )
)  # fmt: skip


def _name_word_hint(name: ColumnName) -> NameHint | None:
    """Columns about names: the person's (A), a relative's or employer's (A), a clinician's
    (A, unsure), or a thing's (``drug_name``: no hint)."""
    for p in _WHOLE_NAME_PARTS:
        if p.matches(name):
            return NameHint(HintKind.DIRECT, p.text, Cat.A)
    qualifiers: list[str] = []
    found = False
    for t in name.words:
        if t in _NAME_WORDS:
            found = True
        elif t.endswith(("name", "names")) and len(t) > 4:
            found = True
            qualifiers.append(t[: t.rindex("name")])
        else:
            qualifiers.append(t)
    if not found:
        return None
    quals = set(qualifiers)
    if quals <= _PERSON_QUALIFIERS:
        keyword = " ".join([*(q for q in qualifiers if len(q) > 2 and q != "sur"), "name"])
        return NameHint(HintKind.DIRECT, "surname" if "sur" in quals else keyword, Cat.A)
    if quals & _RELATIVE_QUALIFIERS:
        return NameHint(
            HintKind.DIRECT,
            "name",
            Cat.A,
            note="names of relatives, contacts and employers are identifiers too",
        )
    if quals & _CLINICIAN_QUALIFIERS:
        return NameHint(
            HintKind.DIRECT,
            "name",
            Cat.A,
            doubt="it names a clinician or user rather than the person; kept as a name to be safe",
        )
    if quals & _NONPERSON_QUALIFIERS:
        return None
    return NameHint(
        HintKind.DIRECT,
        "name",
        Cat.A,
        doubt="the column is a name of some kind but not clearly a person's; kept as a name "
        "to be safe",
    )


def match_name(name: ColumnName) -> tuple[NameHint, ...]:
    """Every hint the name gives, most specific first. Direct hints lead."""
    hints: list[NameHint] = []
    for rule in RULES:
        hint = rule.hint(name)
        if hint is not None:
            hints.append(hint)
    name_hint = _name_word_hint(name)
    if name_hint is not None:
        hints.append(name_hint)
    # Direct hints first (stable), so the decision sees "identifier" before anything else.
    hints.sort(key=lambda h: h.kind not in (HintKind.DIRECT,))
    return tuple(hints)
