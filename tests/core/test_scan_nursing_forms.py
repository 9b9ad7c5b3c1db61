"""Forms of ICU nursing notes that are no identifiers: measures written as ranges or
pairs, "PA" and "PT" before a clinical word, and another person's name that is an
English word written as a word (bench/eval_nursing.py found them on real note text)."""

from __future__ import annotations

import pytest

from deid_desktop.core.scan.dictionary import build_dictionary_from_values
from deid_desktop.core.scan.engine import scan_texts

NONE = build_dictionary_from_values({"name": ["Zed Quux"]})


def _kinds(text: str, dictionary=NONE, persons=None) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    found = scan_texts([text], dictionary, persons=persons)
    return [(text[s:e], kind) for _, s, e, kind, _ in found]


@pytest.mark.parametrize(
    "text",
    [
        "resp: RR 12-18, PSV 10/5, sats 95-99%",
        "GU: uo 10-30/hr, lasix given",
        "overbreathing vent by 3-4 breaths, will f/u in 1-2 days",
        "PAD 12-20, CVP 11, BP 84-98/23-46",
    ],
)
def test_ranges_and_settings_of_measures_are_no_dates(text: str) -> None:
    assert [k for k in _kinds(text) if k[1] == "DATE"] == []


@pytest.mark.parametrize(
    ("text", "date"),
    [("cath on 7-22, stent placed", "7-22"), ("s/p fall 7/22 at home", "7/22")],
)
def test_days_and_months_are_still_dates(text: str, date: str) -> None:
    assert (date, "DATE") in _kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "R groin PA line intact. PA pressures 60s/20s",
        "CONSIDER REMOVING PA LINE TODAY. PT COMFORT IMPROVED",
        "access: pa line and right radial aline; pa numbers 58/30",
        "Await PT eval this afternoon.",
    ],
)
def test_pa_and_pt_before_a_clinical_word_are_no_cue(text: str) -> None:
    assert [k for k in _kinds(text) if k[1] == "NAME"] == []


def test_a_name_after_a_credential_written_as_a_name_is_still_found() -> None:
    assert ("Kowalczyk", "NAME") in _kinds("Seen by PA Kowalczyk at noon.")


def test_another_persons_name_that_is_an_english_word_is_no_name_in_lower_case() -> None:
    names = build_dictionary_from_values(
        {"name": ["Ann Wedge", "Bea Quist"]}, [("p1", "Ann Wedge"), ("p2", "Bea Quist")]
    )
    note = "unable to wedge the catheter"
    assert _kinds(note, names, persons=["p2"]) == []  # Bea's note: a word
    assert ("wedge", "NAME") in _kinds(note, names, persons=["p1"])  # Ann's own: her name
    assert ("Wedge", "NAME") in _kinds("Mrs Wedge called", names, persons=["p2"])


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("PMH: MI '92, CABG '05, redo '99", ["92", "05", "99"]),
        ("extubated 1/2 and MI 1/8, IABP placed 2/4", ["1/2", "1/8", "2/4"]),
    ],
)
def test_years_after_an_apostrophe_and_days_after_an_event_are_dates(
    text: str, dates: list[str]
) -> None:
    assert [t for t, k in _kinds(text) if k == "DATE"] == dates


@pytest.mark.parametrize(
    "text", ["given 1/2 tab of ativan", "placed back on vent 10/5/50%", "pt's 90's"]
)
def test_fractions_and_ventilator_settings_are_no_dates(text: str) -> None:
    assert [k for k in _kinds(text) if k[1] == "DATE"] == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("PLAN: TRANSFER TO BOOTHVILLE TODAY", "BOOTHVILLE"),
        ("pt transferred from gibbstown this am", "gibbstown"),
        ("79 YO FEMALE BROUGHT TO RH CATH LAB", "RH"),
    ],
)
def test_a_place_no_list_knows_after_a_transfer_is_a_location(text: str, place: str) -> None:
    assert (place, "LOCATION") in _kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "ANXIOUS TO GO HOME ON MON, ASKING FOR DC HOME",
        "pt wants to go home soon",
        "SHIFT NURSING NOTE: CONT CARDIAC REHAB",
        "RR returned to baseline; transfer to floor when bed ready; returned to SIMV",
    ],
)
def test_going_home_units_and_modes_are_no_places(text: str) -> None:
    assert [k for k in _kinds(text) if k[1] == "LOCATION"] == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("FOLLOW HEMATOCRITS, COAGS.\nWENZEL BREIT RN", "WENZEL BREIT"),
        ("ci<2.0. wininger johnson np aware. 1u prbc given", "wininger johnson"),
        ("HR, PA, CVP AND BP NOTED. JOAN HOVEY CALLED TO BEDSIDE", "JOAN HOVEY"),
        ("PM DOSE ??40MG. PER GUTIEREZ WILL HOLD PRESENTLY", "GUTIEREZ"),
    ],
)
def test_a_clinicians_name_before_a_credential_or_aware_or_after_per_is_found(
    text: str, name: str
) -> None:
    assert (name, "NAME") in _kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "MD AWARE. TEAM AWARE. HO AWARE AND FAMILY CALLED",
        "per protocol; per team; BP high per aline; CO by fick",
        "Aline d/c today. NEURO: A+OX3, MAE, following commands",
    ],
)
def test_staff_words_and_icu_terms_are_no_names(text: str) -> None:
    assert [k for k in _kinds(text) if k[1] == "NAME"] == []


def test_another_persons_name_that_is_a_clinical_word_is_no_name() -> None:
    people = [("p1", "Ann Ng"), ("p2", "Bea Quist")]
    names = build_dictionary_from_values({"name": [n for _, n in people]}, people)
    note = "GI: NG tube clamped. NG IN PLACE."
    assert [k for k in _kinds(note, names, persons=["p2"]) if k[1] == "NAME"] == []
    assert ("Ng", "NAME") in _kinds("Mrs Ng called", names, persons=["p2"])


@pytest.mark.parametrize(
    ("text", "places"),
    [
        ("FAMILY IN EARLY EVENING. AMBULATED IN HALL X2", []),
        ("SISTER LIVES IN AUBURN. WILL CALL", ["AUBURN"]),
    ],
)
def test_an_english_word_in_capitals_is_a_town_only_at_the_end_of_its_phrase(
    text: str, places: list[str]
) -> None:
    assert [t for t, k in _kinds(text) if k == "LOCATION"] == places


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("f/u appt 6/16 w/ pa culhane.", "culhane"),
        ("msg routed to PA wright.", "wright"),
        ("TRANSFERRED FROM SACRED HEART NURSING HOME. DTR VISITING", "SACRED HEART NURSING HOME"),
    ],
)
def test_a_physician_assistant_and_a_facility_of_english_words_are_still_found(
    text: str, name: str
) -> None:
    assert any(t == name for t, _k in _kinds(text))


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("SON BROUGHT HIM TO HAMLER HOSP.. WHERE HE WAS TREATED", "HAMLER HOSP"),
        ("PLAN ? TRANSFER TODAY TO BOOTHVILLE", "BOOTHVILLE"),
        ("? TRANSFER TO CALUMET TODAY", "CALUMET"),
    ],
)
def test_hospitals_abbreviated_and_towns_after_a_transfer_are_locations(
    text: str, place: str
) -> None:
    assert (place, "LOCATION") in _kinds(text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("CENTRAL LINE OK PER LANGDON AKINS NP. PLAN", "AKINS"),
        ("ASKED FOR RABBI- RABBI SEBRINA CAME TO SPEAK", "SEBRINA"),
    ],
)
def test_names_before_a_credential_and_after_a_rabbi_are_found(text: str, name: str) -> None:
    assert any(name in t for t, k in _kinds(text) if k == "NAME")


def test_a_word_before_pa_or_pac_is_no_signature() -> None:
    text = "R IJ PA LINE DAY 8. NSR WITH OCC PAC. ENCOURAGED PT TO KEEP FOLEY"
    assert [k for k in _kinds(text) if k[1] == "NAME"] == []
