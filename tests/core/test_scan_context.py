"""The context finders of issue 12, one form at a time: names after cues in any case and
before credentials, Census names, ages over 89, dates without a year, seasons, places;
the common-word guard, person-aware confidence, levels, the high-recall mode, the
gazetteer API and the site list."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core.scan import (
    ScanOptions,
    build_dictionary_from_values,
    load_gazetteer,
    load_site_list,
    redact_column,
    scan_frames,
    scan_texts,
    site_list_path,
)

EMPTY = build_dictionary_from_values({"name": ["Zz Qq"]})


def spans(text: str, dictionary=EMPTY, **kw) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(text[s:e], k) for _, s, e, k, _ in scan_texts([text], dictionary, **kw)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("dtr Mary called", "Mary"),
        ("spoke with dr smith today", "smith"),
        ("DR. JONES AWARE", "JONES"),
        ("HCP Linda Brown updated", "Linda Brown"),
        ("PCP Dr. Okafor faxed", "Okafor"),
        ("neighbor Tomas brought mail", "Tomas"),
        ("seen by Mary Jones, RN", "Mary Jones"),
        ("per J. Smith, MD", "J. Smith"),
        ("discussed with Dr. K", "K"),
        ("son J at bedside", "J"),
        ("WIFE MARY IN TO VISIT", "MARY"),
        ("Reviewed with Dr. Aki today", "Aki"),  # AKI is also a clinical abbreviation
    ],
)
def test_names_beyond_the_dictionary(text: str, expected: str) -> None:
    assert (expected, "NAME") in spans(text)


@pytest.mark.parametrize(
    "text",
    [
        "WIFE IN TO VISIT.",
        "SON AT BEDSIDE.",
        "Son at bedside, MD aware.",
        "dtr called, updated.",
        "Pt will call back. Dr. aware of results.",
        "BP 120/80, HR 72. ABG 7.4/40/90. Labs 10.1/4.72. Pain 7/10. Take 1/2 tab.",
        "Pt is 45 yo, age 67 at onset.",
    ],
)
def test_traps_give_no_hit(text: str) -> None:
    assert spans(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Pt is a 93 yo woman", "93"),
        ("a 91 y/o man", "91"),
        ("a 95-year-old", "95"),
        ("age 93", "93"),
        ("aged 101", "101"),
        ("a pleasant nonagenarian", "nonagenarian"),
    ],
)
def test_ages_over_89(text: str, expected: str) -> None:
    assert (expected, "AGE") in spans(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("seen 7/22 in clinic", "7/22"),
        ("on 22-Jul she fell", "22-Jul"),
        ("since Jul 22 no BM", "Jul 22"),
        ("since July 22nd", "July 22nd"),
        ("admitted 7/22/19", "7/22/19"),
        ("in spring 2019", "spring 2019"),
        ("in the summer of 2018", "summer of 2018"),
        ("last March 2019", "March 2019"),
        ("on 3 Jan", "3 Jan"),
    ],
)
def test_dates_in_every_form(text: str, expected: str) -> None:
    assert (expected, "DATE") in spans(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("lives at 12 Oak Street with son", "12 Oak Street"),
        ("mail to P.O. Box 123", "P.O. Box 123"),
        ("transferred from St. Mary's Hospital", "St. Mary's Hospital"),
        ("to Quincy Medical Center", "Quincy Medical Center"),
        ("lives in Worcester with family", "Worcester"),
        ("moved from Springfield, MA", "Springfield"),
    ],
)
def test_locations(text: str, expected: str) -> None:
    assert (expected, "LOCATION") in spans(text)


def test_common_word_name_matches_only_capitalised_or_cued() -> None:
    d = build_dictionary_from_values({"name": ["Will Smith"]})
    assert spans("Pt will call. Will Smith called.", d).count(("will", "NAME")) == 0
    assert ("Will", "NAME") in spans("Pt will call. Will Smith called.", d)
    # a surname that is no everyday word matches in any case
    assert ("smith", "NAME") in spans(
        "smith came", build_dictionary_from_values({"name": ["Ann Smith"]})
    )


def test_person_aware_confidence() -> None:
    d = build_dictionary_from_values(
        {"name": ["Ann Quigg", "Bob Xylo"]}, owners=[("p1", "Ann Quigg"), ("p2", "Bob Xylo")]
    )
    frame = pd.DataFrame(
        {"pid": ["p1", "p2"], "note": pd.Series(["Quigg seen", "Quigg visited"], dtype="string")}
    )
    report = scan_frames({"n": frame}, {"n": ["note"]}, d, person_keys={"n": "pid"})
    conf = {(h.row, h.rule, h.confidence) for h in report.hits}
    assert (0, "dictionary:name", "high") in conf
    assert (1, "dictionary:name-other", "medium") in conf
    assert report.by_confidence() == {"high": 1, "medium": 1}
    assert report.summary_dict()["by_confidence"] == {"high": 1, "medium": 1}


def test_a_name_that_is_an_everyday_word_is_found_in_its_own_persons_notes() -> None:
    """Mark Miller's own note "spoke w/ mark miller" or "PT MILLER, MARK NO SHOW" kept
    their names after redaction ('mark' and 'miller' are everyday words, and capitals
    say nothing in a note in capitals), and the gate then stopped the release. In the
    person's own notes such a name beside another word of it is high; alone ("skin mark
    noted") or in another person's notes it is not a hit."""
    d = build_dictionary_from_values(
        {"name": ["Mark Miller", "Ann Quigg"]},
        owners=[("p1", "Mark Miller"), ("p2", "Ann Quigg")],
    )
    notes = [
        "spoke w/ mark miller re diuretics",
        "PT MILLER, MARK NO SHOW",
        "will mark chart",
        "skin mark on L hip noted",
    ]
    persons = ["p1", "p1", "p2", "p1"]
    frame = pd.DataFrame({"pid": persons, "note": pd.Series(notes, dtype="string")})
    report = scan_frames({"n": frame}, {"n": ["note"]}, d, person_keys={"n": "pid"})
    found = {(h.row, notes[h.row][h.start : h.end], h.confidence) for h in report.hits}
    assert {(0, "mark", "high"), (0, "miller", "high")} <= found
    assert {(1, "MILLER", "high"), (1, "MARK", "high")} <= found
    assert not [f for f in found if f[0] in (2, 3)]  # "mark" the verb, the noun
    redacted = redact_column(frame["note"], report.hits_for("n", "note"), level="high")
    assert redacted.tolist()[:2] == [
        "spoke w/ [NAME] [NAME] re diuretics",
        "PT [NAME], [NAME] NO SHOW",
    ]


def test_redaction_by_level() -> None:
    text = "Quigg seen 7/22 with Mary"
    d = build_dictionary_from_values({"name": ["Ann Quigg"]})
    frame = pd.DataFrame({"note": pd.Series([text], dtype="string")})
    report = scan_frames({"t": frame}, {"t": ["note"]}, d)
    hits = report.hits_for("t", "note")
    assert {h.confidence for h in hits} == {"high", "medium"}
    high = redact_column(frame["note"], hits, level="high").iloc[0]
    every = redact_column(frame["note"], hits, level="all").iloc[0]
    assert high == "[NAME] seen 7/22 with Mary"
    assert every == "[NAME] seen [DATE] with [NAME]"


def test_high_recall_mode_is_off_by_default_and_flags_unknown_capitalised_words() -> None:
    text = "Seen with Zorblat at the clinic"
    assert spans(text) == []
    got = scan_texts([text], EMPTY, options=ScanOptions(high_recall=True))
    assert [(text[s:e], r) for _, s, e, _, r in got] == [("Zorblat", "recall:unknown-word")]


def test_site_list_is_found_with_high_confidence(tmp_path: Path) -> None:
    path = site_list_path(tmp_path)
    path.write_text("# our sites\nFarr 4\nSJH\n\n", encoding="utf-8")
    sites = load_site_list(path)
    assert sites == ["Farr 4", "SJH"]
    d = build_dictionary_from_values({"site": sites})
    got = scan_texts(["moved to Farr 4 from SJH"], d)
    assert [(k, r) for _, _, _, k, r in got] == [("LOCATION", "dictionary:location")] * 2
    assert load_site_list(tmp_path / "none.txt") == []


def test_gazetteer_api() -> None:
    g = load_gazetteer()
    mask = g.is_place(["Worcester", "worcester, ma", "Suffolk County", "Texas", "hello", None])
    assert mask.tolist() == [True, True, True, False, False, False]
    assert g.is_state(["Texas", "TX", "Worcester"]).tolist() == [True, True, False]
    assert len(g.places) > 10_000 and len(g.states) == 51
