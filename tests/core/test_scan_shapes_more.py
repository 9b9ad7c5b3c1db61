"""The identifier forms of real notes that the scan learnt after the first evaluation
(``core.scan.shapes_more``), one at a time, each with its trap; and the short note of
Title words that once gave no hit at all."""

from __future__ import annotations

import pytest

from deid_desktop.core.scan import build_dictionary_from_values, scan_texts
from deid_desktop.core.scan.rules import CODE, CONFIDENCE, LEVELS
from deid_desktop.core.scan.shapes_more import vin_check_ok

EMPTY = build_dictionary_from_values({"name": ["John Doe"]})


def found(text: str) -> list[tuple[str, str, str]]:
    """(covered text, kind, rule) of every hit in one note."""
    return [(text[s:e], k, r) for _, s, e, k, r in scan_texts([text], EMPTY)]


@pytest.mark.parametrize(
    ("text", "value", "kind", "rule"),
    [
        ("ssn 123 45 6789 on file", "123 45 6789", "SSN", "pattern:ssn-spaced"),
        ("SSN: 123.45.6789", "123.45.6789", "SSN", "pattern:ssn-spaced"),
        ("Social security number 321 54 9876.", "321 54 9876", "SSN", "pattern:ssn-spaced"),
        ("email jdoe at gmail dot com", "jdoe at gmail dot com", "EMAIL", "pattern:email-spelled"),
        (
            "jdoe [at] gmail [dot] com",
            "jdoe [at] gmail [dot] com",
            "EMAIL",
            "pattern:email-spelled",
        ),
        (
            "mary.s (at) yahoo (dot) org.",
            "mary.s (at) yahoo (dot) org",
            "EMAIL",
            "pattern:email-spelled",
        ),
        ("VIN 1HGCM82633A004352 on file", "1HGCM82633A004352", "ID", "vehicle:vin"),
        ("car 1M8GDM9AXKP042788.", "1M8GDM9AXKP042788", "ID", "vehicle:vin"),  # check digit X
        ("plate 7XYZ123", "7XYZ123", "ID", "vehicle:plate"),
        ("license plate 7XYZ123 in lot", "7XYZ123", "ID", "vehicle:plate"),
        ("tag # 7XYZ123", "7XYZ123", "ID", "vehicle:plate"),
        ("pacemaker serial # PJM123456.", "PJM123456", "ID", "device:serial"),
        ("Device S/N 88412345", "88412345", "ID", "device:serial"),
        ("seen the 3rd of March", "3rd of March", "DATE", "date:day-of-month"),
        ("3rd of March", "3rd of March", "DATE", "date:day-of-month"),
        ("surgery on the 22nd of oct", "22nd of oct", "DATE", "date:day-of-month"),
        ("1234 N. Broadway", "1234 N. Broadway", "LOCATION", "address:directional"),
        ("lives at 88 North Main", "88 North Main", "LOCATION", "address:directional"),
        ("lives on Mass Ave", "Mass Ave", "LOCATION", "address:street-name"),
        ("Lives on Comm Ave.", "Comm Ave", "LOCATION", "address:street-name"),
        ("Apt 4B, 1234 N. Broadway", "Apt 4B", "LOCATION", "address:unit"),
        ("Suite 300, 12 Oak Street", "Suite 300", "LOCATION", "address:unit"),
        ("12 Oak Street Unit 12", "Unit 12", "LOCATION", "address:unit"),
        ("a woman in her 90s", "90s", "AGE", "age:decade"),
        ("father in his late 90s", "late 90s", "AGE", "age:decade"),
        ("pt in her nineties", "nineties", "AGE", "age:decade"),
        ("late 90s, lives alone", "late 90s", "AGE", "age:decade-bare"),
        ("nineties, lives alone", "nineties", "AGE", "age:decade-bare"),
        ("pt is a 101yo", "101yo", "AGE", "age:glued"),
        ("95yoF with CHF", "95yoF", "AGE", "age:glued"),
        ("Pt is a 98y/o M", "98y/o", "AGE", "age:glued"),
        ("92yrs old", "92yrs", "AGE", "age:glued"),
        ("She turned 95 last week", "95", "AGE", "age:glued"),
        ("Pt turns 101 tomorrow", "101", "AGE", "age:glued"),
        ("Medicare # 1EG4-TE5-MK73", "1EG4-TE5-MK73", "ID", "insurance:mbi"),
        ("MBI 1EG4TE5MK73 on file", "1EG4TE5MK73", "ID", "insurance:mbi"),
        ("Last seen Tuesday the 14th", "Tuesday the 14th", "DATE", "date:weekday-day"),
        ("since Friday, 3rd", "Friday, 3rd", "DATE", "date:weekday-day"),
        ("on Sunday the first", "Sunday the first", "DATE", "date:weekday-day"),
    ],
)
def test_form_is_found(text: str, value: str, kind: str, rule: str) -> None:
    assert (value, kind, rule) in found(text)


@pytest.mark.parametrize(
    "text",
    [
        "BP 120/80",
        "SpO2 98% on 2L",
        "INR 2.3",
        "Moved to room 4B.",
        "Pt is at home with family.",
        "Note written with dot phrase.",
        "Seen at clinic. Com...",
        "Lab accession 1HGCM82633A004353 sent",  # a VIN's shape, wrong check digit
        "ACC 5YJ3E1EA7KF31744X",  # 17 characters, check digit wrong
        "SBP in the 90s overnight",
        "Sats high 90s on RA",
        "in his 80s",
        "Plate and screws in L hip.",
        "plates 2x daily",
        "tag 1234567",  # "tag" without "#" or a licence
        "SN visit in AM",
        "f/u apt 3 weeks",  # "apt": an appointment
        "Transferred to Unit 12.",  # a ward, no address beside it
        "one of may be",
        "2 of March patients",
        "ss 123 45 6789",  # "ss" only as "SS#"
        "ssn 123-45 6789",  # mixed separators
        "on Friday Dr. Jones called",
        "gave 2 N saline",
        "turned 90 degrees q2h",
        "turning 90 x2",
        "given 100mg IV",
        "Hgb 10.1 and 120/80",
        "pt 89yo",  # 89 is no age over 89
        "code 1SO4-TE5-MK73",  # S and O are not MBI letters
        "Tuesday the 45th",
        "on Monday, then clinic",
    ],
)
def test_trap_is_not_flagged_by_the_new_rules(text: str) -> None:
    new = {r for _, r, _ in _NEW_RULES}
    assert [h for h in found(text) if h[2] in new] == []


_NEW_RULES = (
    ("SSN", "pattern:ssn-spaced", "high"),
    ("EMAIL", "pattern:email-spelled", "high"),
    ("ID", "vehicle:vin", "high"),
    ("ID", "vehicle:plate", "high"),
    ("ID", "device:serial", "high"),
    ("DATE", "date:day-of-month", "medium"),
    ("LOCATION", "address:directional", "high"),
    ("LOCATION", "address:street-name", "medium"),
    ("LOCATION", "address:unit", "high"),
    ("LOCATION", "address:town-state", "medium"),
    ("AGE", "age:decade", "high"),
    ("AGE", "age:decade-bare", "medium"),
    ("AGE", "age:glued", "high"),
    ("ID", "insurance:mbi", "high"),
    ("DATE", "date:weekday-day", "medium"),
)


@pytest.mark.parametrize(("kind", "rule", "level"), _NEW_RULES)
def test_each_new_rule_has_its_confidence(kind: str, rule: str, level: str) -> None:
    assert LEVELS[CONFIDENCE[CODE[(kind, rule)]]] == level


def test_old_guards_still_hold() -> None:
    for text in ("Labs 10.1/4.72 reviewed", "Hct/Hgb 7.4/40 stable", "BP 120/80, HR 72"):
        assert found(text) == [], text
    assert ("123-45-6789", "SSN", "pattern:ssn") in found("ssn 123-45-6789")
    assert ("March 3rd", "DATE", "date:no-year") in found("seen March 3rd")


def test_short_note_of_title_words_finds_its_address() -> None:
    """The context finders take it for an ALL-CAPS note (more words starting upper-case
    than lower-case), where case gives no evidence: nothing at all was found in it. The
    address forms and the town before its state code do not depend on that reading."""
    text = "Lives at Apt 4B, 1234 N. Broadway, Somerville MA."
    got = {(v, k) for v, k, _ in found(text)}
    assert got >= {
        ("Apt 4B", "LOCATION"),
        ("1234 N. Broadway", "LOCATION"),
        ("Somerville", "LOCATION"),
    }
    assert ("Somerville", "LOCATION") in {(v, k) for v, k, _ in found("Lives in Somerville MA.")}
    assert [v for v, _, _ in found("WIFE IN TO VISIT. SON AT BEDSIDE.")] == []
    assert found("White") == found("Black") == []  # a one-word cell: no case evidence


def test_vin_check_digit() -> None:
    assert vin_check_ok("1HGCM82633A004352")
    assert vin_check_ok("1M8GDM9AXKP042788")  # remainder 10: X
    assert not vin_check_ok("1HGCM82634A004352")
    assert not vin_check_ok("1HGCM82633A00435")  # 16 characters
    assert not vin_check_ok("1HGCM82633A00435O")  # O is never in a VIN
    assert not vin_check_ok("11111111111111111")  # digits only


def test_forms_are_found_across_a_batch_of_many_notes() -> None:
    """The finders start from anchor words of the whole batch: a form in the 500th note
    is found as in the first, and no hit runs into the next note."""
    filler = ["Pt resting at home, SBP in the 90s, note by dot phrase."] * 499
    notes = [*filler, "ssn 123 45 6789; jdoe at gmail dot com; lives on Mass Ave", *filler]
    hits = scan_texts(notes, EMPTY)
    assert {(notes[n][s:e], r) for n, s, e, _, r in hits} == {
        ("123 45 6789", "pattern:ssn-spaced"),
        ("jdoe at gmail dot com", "pattern:email-spelled"),
        ("Mass Ave", "address:street-name"),
    }
