"""Tagging rules one by one: column names, value patterns, table roles, name lists."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pandas as pd
import pytest

from deid_desktop.core.model import CATEGORY_TITLES, CLASS_LABELS, ColumnClass, ColumnTag, Role
from deid_desktop.core.model import IdentifierCategory as Cat
from deid_desktop.core.resources import resource
from deid_desktop.core.tagging import (
    describe_tag,
    explain_class,
    given_names,
    suggest_tags,
    surnames,
)
from deid_desktop.core.tagging.colnames import parse_column_name
from tests.core.support import CL as C
from tests.core.support import DT as T
from tests.core.support import FT as F
from tests.core.support import D, Q


def tag_one(name: str, values: list[str | None], *, is_person: bool = False) -> ColumnTag:
    """Tag a single column (in an event table by default, so no person key is chosen)."""
    frame = pd.DataFrame({name: pd.array(values, dtype=pd.StringDtype("pyarrow"))})
    (tag,) = suggest_tags(frame, table="t", is_person=is_person)
    return tag


def repeat(values: list[str | None], n: int = 60) -> list[str | None]:
    return [values[i % len(values)] for i in range(n)]


# --- column names ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "tokens"),
    [
        ("patientDOB", ("patient", "dob")),
        ("BIRTHDATE", ("birthdate",)),
        ("zip_code", ("zip", "code")),
        ("Address Line 1", ("address", "line", "1")),
        ("SSNNumber", ("ssn", "number")),
        ("Nº_Teléfono", ("no", "telefono")),
        ("DESCRIPTION1", ("description", "1")),
    ],
)
def test_column_names_are_split_into_lowercase_tokens(raw: str, tokens: tuple[str, ...]) -> None:
    assert parse_column_name(raw).tokens == tokens


# Name -> expected tag, with values that neither confirm nor contradict much.
NAME_CASES: list[tuple[str, list[str | None], ColumnClass, Role | None, Cat | None]] = [
    ("home_phone", ["(617) 555-0100", "617-555-0199"], D, None, Cat.D),
    ("Telephone", ["555 0100"], D, None, Cat.D),
    ("fax_number", ["(617) 555-0100"], D, None, Cat.E),
    ("EmailAddress", ["a.b@example.org"], D, None, Cat.F),
    ("ip_address", ["10.0.0.1"], D, None, Cat.O),
    ("website", ["https://example.org/x"], D, None, Cat.N),
    ("social_security_no", ["123-45-6789"], D, None, Cat.G),
    ("medical_record_number", ["A1234567"], D, Role.PERSON_KEY, Cat.H),  # no patient id here
    ("member_id", ["XK12345678"], D, None, Cat.I),
    ("account_number", ["9911223344"], D, None, Cat.J),
    ("drivers_license", ["S99984236"], D, None, Cat.K),
    ("vehicle_plate", ["7ABC123"], D, None, Cat.L),
    ("device_serial", ["SN-0042-77"], D, None, Cat.M),
    ("UDI", ["(01)123(17)2601"], D, None, Cat.M),
    ("fingerprint_hash", ["ab12cd"], D, None, Cat.P),
    ("photo", ["img_0042.jpg"], D, None, Cat.Q),
    ("birth_month", ["3", "11"], D, None, Cat.C),
    ("street_address", ["12 Elm St"], D, None, Cat.B),
    ("city_of_residence", ["Springfield"], D, None, Cat.B),
    ("latitude", ["42.36"], D, None, Cat.B),
    ("mother_name", ["Ana"], D, None, Cat.A),
    ("employer", ["Acme Corp"], D, None, Cat.A),
    ("patient_name", ["Ana Lopez"], D, None, Cat.A),
    ("date_of_birth", ["1950-02-03"], T, Role.BIRTH_DATE, None),
    ("admit_dt", ["2020-01-05"], T, Role.INDEX_DATE, None),
    ("dod", ["2021-07-09"], T, None, None),
    ("dischtime", ["2180-07-23 12:35:00", "2181-01-02 08:00:00"], T, Role.INDEX_DATE, None),
    ("charttime", ["2180-07-23T12:35", "2181-01-02 08:00"], T, None, None),
    ("postal_code", ["02139"], Q, Role.ZIP, None),
    ("age_years", ["64", "91"], Q, Role.AGE, None),
    ("age_group", ["60-69", "70-79"], Q, None, None),
    ("Gender", ["F", "M"], Q, Role.SEX, None),
    ("marital_status", ["Married"], Q, None, None),
    ("occupation", ["Baker", "Carpenter", "Smith", "Cook"], Q, None, None),
    ("primary_language", ["English", "Spanish"], Q, None, None),
    ("state", ["MA"], Q, None, None),
    ("country_of_birth", ["Mexico"], Q, None, None),
    ("year_of_birth", ["1950"], Q, None, None),
    ("clinical_notes", ["Seen today."], F, None, None),
    ("comment", ["ok"], F, None, None),
    ("drug_name", ["Furosemide", "Lisinopril", "Metoprolol"], C, None, None),
    ("urinary_tract_infection", ["0", "1"], C, None, None),
    ("summary_score", ["12", "7", "30", "18"], C, None, None),
    ("gestational_age", ["38", "40"], C, None, None),
    ("number_of_children", ["0", "2", "3"], C, None, None),
    ("lab_result", ["4.5", "5.1"], C, None, None),
    ("nyha_class", ["I", "II", "III"], C, None, None),
    ("visit_type", ["Day 7", "Day 30"], C, None, None),
    ("death", ["Y", "N"], C, None, None),
]


@pytest.mark.parametrize(
    ("name", "values", "cls", "role", "category"),
    NAME_CASES,
    ids=[c[0] for c in NAME_CASES],
)
def test_column_name_rules(
    name: str,
    values: list[str | None],
    cls: ColumnClass,
    role: Role | None,
    category: Cat | None,
) -> None:
    tag = tag_one(name, repeat(values))
    assert (tag.cls, tag.role, tag.category) == (cls, role, category), tag.evidence


def test_ip_as_a_word_inside_a_name_is_not_an_ip_address() -> None:
    # "ip" often means inpatient in clinical extracts.
    tag = tag_one("ip_los_days", repeat(["3", "5", "12"]))
    assert tag.cls is C


def test_a_clinicians_name_is_kept_as_a_name_but_flagged() -> None:
    tag = tag_one("attending_physician_name", repeat(["Dr. Jane Smith", "Dr. Ravi Patel"]))
    assert (tag.cls, tag.category, tag.unsure) == (D, Cat.A, True)


def test_a_checkable_identifier_name_with_other_values_stays_direct_but_unsure() -> None:
    tag = tag_one("phone_visits", repeat(["0", "1", "2", "3", "4", "5", "6"]))
    assert (tag.cls, tag.category, tag.unsure) == (D, Cat.D, True)
    assert any("look like phone numbers" in e for e in tag.evidence)


def test_an_identifier_name_over_a_short_repeating_list_is_flagged() -> None:
    tag = tag_one("account_type", repeat(["checking", "savings", "credit"], 90))
    assert (tag.cls, tag.category, tag.unsure) == (D, Cat.J, True)
    numbers = tag_one("account_number", [f"{4000 + i * 17}" for i in range(90)])
    assert (numbers.cls, numbers.category, numbers.unsure) == (D, Cat.J, False)


def test_a_description_is_clinical_when_it_repeats_and_free_text_when_it_does_not() -> None:
    coded = tag_one("DESCRIPTION", repeat(["Viral sinusitis (disorder)", "Hypertension"]))
    assert coded.cls is C
    typed = [f"Patient reported episode {i} of dizziness after the new dose" for i in range(60)]
    assert tag_one("description", typed).cls is F


def test_a_date_name_with_values_that_are_not_dates_is_kept_as_a_date_but_flagged() -> None:
    tag = tag_one("report_date", repeat(["pending", "n/k", "see note"]))
    assert (tag.cls, tag.unsure) == (T, True)


def test_a_weak_date_word_needs_date_values() -> None:
    assert tag_one("START", repeat(["2020-01-01", "2020-02-01T10:00:00Z"])).cls is T
    assert tag_one("start_weight", repeat(["81.2", "77.0"])).cls is C


# --- values without a telling name -------------------------------------------------

VALUE_CASES: list[tuple[list[str | None], ColumnClass, Role | None, Cat | None, bool]] = [
    (["ana.lopez@example.org", "j.smith@mail.example.com"], D, None, Cat.F, False),
    (["(858) 555-0196", "+1 617.555.0100"], D, None, Cat.D, False),
    (["999-76-6866", "123-45-6789"], D, None, Cat.G, False),
    (["https://example.org/p/1", "www.example.com"], D, None, Cat.N, False),
    (["192.168.0.1", "2001:db8::1"], D, None, Cat.O, False),
    (["00:1a:2b:3c:4d:5e"], D, None, Cat.M, False),
    ([f"{i:08x}-6843-4011-ef46-32caaf87d8a9" for i in range(60)], D, None, Cat.R, False),
    ([f"SYN-{1000000 + 37 * i}" for i in range(60)], D, None, Cat.R, True),
    (["2020-01-05", "03/04/2021", "12 Jan 2019"], T, None, None, False),
    (["02139", "90210", "10001", "60614"], Q, Role.ZIP, None, True),
    (["4.5", "5.1", "3.9", "120", "7"], C, None, None, False),
]


@pytest.mark.parametrize(("values", "cls", "role", "category", "unsure"), VALUE_CASES)
def test_values_speak_when_the_name_does_not(
    values: list[str | None],
    cls: ColumnClass,
    role: Role | None,
    category: Cat | None,
    unsure: bool,
) -> None:
    tag = tag_one("col_17", repeat(values))
    assert (tag.cls, tag.role, tag.category, tag.unsure) == (cls, role, category, unsure), (
        tag.evidence
    )


def test_person_names_are_found_with_accents_case_and_synthea_digits() -> None:
    values = ["José Eduardo181", "GÓMEZ206", "milo271", "Zoë", "Renée O'Neil", "María", "Núñez"]
    values += ["Ana", "Li", "Smith", "Brown", "Patel", "Nguyen", "Okafor", "Wilson"]
    tag = tag_one("x", repeat(values, 80))
    assert (tag.cls, tag.category) == (D, Cat.A)
    assert any("common given names or surnames" in e for e in tag.evidence)


def test_long_varied_text_is_free_text() -> None:
    notes = [
        f"Visit {i}: reports breathlessness climbing stairs, ankle swelling, sleeping on "
        f"{i % 4 + 1} pillows"
        for i in range(50)
    ]
    tag = tag_one("x", notes)
    assert tag.cls is F
    assert any("long and varied" in e for e in tag.evidence)


def test_an_unknown_high_cardinality_code_is_direct_and_unsure() -> None:
    values = [f"K{(i * 7919) % 100000:05d}Q" for i in range(500)]
    tag = tag_one("ref", values)
    assert (tag.cls, tag.category, tag.unsure) == (D, Cat.R, True)
    assert any(e.startswith("unsure: ") for e in tag.evidence)


def test_an_id_named_column_whose_values_repeat_is_quasi_and_unsure() -> None:
    tag = tag_one("site_id", repeat(["1", "2", "3"], 90))
    assert (tag.cls, tag.unsure) == (Q, True)


def test_unknown_categorical_is_quasi_in_the_person_table_and_clinical_in_an_event_table() -> None:
    values = repeat(["alpha", "beta", "gamma", None])
    in_person = tag_one("grp", values, is_person=True)
    assert (in_person.cls, in_person.unsure) == (Q, True)
    in_events = tag_one("grp", values, is_person=False)
    assert (in_events.cls, in_events.unsure) == (C, False)


def test_too_few_unknown_values_to_judge_are_quasi_and_unsure() -> None:
    tag = tag_one("grp", ["alpha", "beta", "alpha"], is_person=False)
    assert (tag.cls, tag.unsure) == (Q, True)


def test_a_few_identifiers_among_clinical_values_forbid_clinical() -> None:
    values = repeat(["4.5", "5.1", "3.9", "7.2", "(617) 555-0100"], 100)
    tag = tag_one("result", values)
    assert (tag.cls, tag.category, tag.unsure) == (D, Cat.D, True)


def test_missing_values_are_ignored_and_an_empty_column_is_handled() -> None:
    dates = ["", "NA", None, "2020-01-05", "  ", "2021-03-04", "null"]
    assert tag_one("STOP", repeat(dates)).cls is T
    empty = tag_one("STOP", repeat([None, ""]))
    assert (empty.cls, empty.unsure) == (T, True)
    deathtime = tag_one("deathtime", repeat([None]))
    assert (deathtime.cls, deathtime.unsure) == (T, True)
    unknown = tag_one("misc", repeat([None]))
    assert (unknown.cls, unknown.unsure) == (D, True)
    assert "every value is missing" in unknown.evidence


def test_frames_of_any_dtype_and_no_rows_are_tagged() -> None:
    frame = pd.DataFrame({"patient_id": [1, 2, 3], "sbp": [120.0, 131.5, np.nan]})
    tags = suggest_tags(frame, table="t", is_person=True)
    assert [(t.cls, t.role) for t in tags] == [(D, Role.PERSON_KEY), (C, None)]
    empty = pd.DataFrame({"mrn": pd.Series([], dtype="string"), "notes": []})
    assert [t.cls for t in suggest_tags(empty, table="t")] == [D, F]


# --- table roles -----------------------------------------------------------------


def _table(**columns: list[str | None]) -> pd.DataFrame:
    return pd.DataFrame(
        {k: pd.array(v, dtype=pd.StringDtype("pyarrow")) for k, v in columns.items()}
    )


def test_the_person_key_prefers_the_patient_id_then_the_mrn_then_id() -> None:
    ids = [f"{i:04d}" for i in range(30)]
    mrns = [f"SYN-{1000000 + i}" for i in range(30)]
    both = suggest_tags(_table(mrn=mrns, patient_id=ids), table="p")
    assert [(t.name, t.role, t.category) for t in both] == [
        ("mrn", None, Cat.H),
        ("patient_id", Role.PERSON_KEY, Cat.R),
    ]
    mrn_only = suggest_tags(_table(Id=ids, MRN=mrns), table="p")
    assert [(t.role, t.category) for t in mrn_only] == [(None, Cat.R), (Role.PERSON_KEY, Cat.H)]
    events = suggest_tags(_table(Id=ids, PATIENT=ids[:15] * 2), table="e", is_person=False)
    assert [t.role for t in events] == [None, Role.PERSON_KEY]


def test_a_person_key_is_found_from_values_in_the_person_table_only() -> None:
    codes = [f"HF{(i * 7919) % 100000:05d}X" for i in range(40)]
    frame = _table(ref=codes, sbp=[str(100 + i) for i in range(40)])
    (ref, _) = suggest_tags(frame, table="p", is_person=True)
    assert (ref.role, ref.unsure) == (Role.PERSON_KEY, True)
    (ref_event, _) = suggest_tags(frame, table="e", is_person=False)
    assert ref_event.role is None


def test_a_person_table_key_with_repeats_is_flagged() -> None:
    (key,) = suggest_tags(_table(patient_id=["1", "2", "2", "3"]), table="p")
    assert (key.role, key.unsure) == (Role.PERSON_KEY, True)


def test_one_column_per_role_and_the_index_date() -> None:
    frame = _table(
        zip=["02139", "90210"] * 10,
        zip_work=["10001", "60614"] * 10,
        admission_date=["2020-01-01", "2020-02-01"] * 10,
        discharge_date=["2020-01-05", "2020-02-09"] * 10,
        visit_date=["2020-03-01", "2020-04-01"] * 10,
    )
    tags = {t.name: t for t in suggest_tags(frame, table="p", is_person=False)}
    assert tags["zip"].role is Role.ZIP
    assert tags["zip_work"].role is None
    assert any("already has the zip role" in e for e in tags["zip_work"].evidence)
    assert tags["discharge_date"].role is Role.INDEX_DATE  # discharge before admission
    assert tags["admission_date"].role is None
    assert tags["visit_date"].role is None


def test_large_tables_are_sampled_and_the_result_is_deterministic() -> None:
    rows = 50_000
    frame = _table(
        patient_id=[f"{i:06d}" for i in range(rows)],
        sbp=[str(100 + i % 60) for i in range(rows)],
    )
    first = suggest_tags(frame, table="p")
    assert first == suggest_tags(frame, table="p")
    assert any(
        e.startswith("based on 2,000 values sampled evenly from 50,000") for e in first[1].evidence
    )


# --- labels and name lists -----------------------------------------------------------


def test_labels_come_from_the_model() -> None:
    assert explain_class(ColumnClass.QUASI) == (
        f"{CLASS_LABELS[ColumnClass.QUASI][0]}: {CLASS_LABELS[ColumnClass.QUASI][1]}"
    )
    tag = ColumnTag("mrn", D, Role.PERSON_KEY, Cat.H, unsure=True)
    line = describe_tag(tag)
    assert CATEGORY_TITLES[Cat.H] in line
    assert "person_key" in line
    assert "unsure" in line


def test_bundled_name_lists_are_lowercase_ascii_and_cached() -> None:
    given, family = given_names(), surnames()
    assert given is given_names() and family is surnames()  # loaded once
    assert isinstance(given, frozenset) and isinstance(family, frozenset)
    assert 5000 <= len(given) <= 6000
    assert 19000 <= len(family) <= 20000
    for names in (given, family):
        assert all(re.fullmatch(r"[a-z]{2,}", n) for n in names)
    assert {"mary", "james", "jose", "maria"} <= given
    assert {"smith", "garcia", "nguyen", "gomez"} <= family
    assert not {"an", "in", "to", "so"} & (given | family)


def test_name_list_provenance_records_the_sha256_of_each_file() -> None:
    provenance = resource("names", "PROVENANCE.md").read_text(encoding="utf-8")
    for filename in ("given_names.txt", "surnames.txt"):
        digest = hashlib.sha256(resource("names", filename).read_bytes()).hexdigest()
        assert digest in provenance, filename
    assert "public domain" in " ".join(provenance.lower().split())
