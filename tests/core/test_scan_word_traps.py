"""Words of ICU notes that are no identifiers though a cue, a capital or a list says
they might be: inflected English words after a relation ("WIFE REQUESTING", "SON
SEEMS"), a name that is also a word at a sentence's start ("May need", "Back to bed"),
a state alone (Safe Harbor keeps states), a rhythm after "went into", clinical words that
are also given names or surnames ("Max temp", "24 French"), a count of things in a note
in capitals read as a house number ("2 ASSISTS TOL WELL"). Beside each, the form with a
name or a place that must still be found."""

from __future__ import annotations

import pandas as pd
import pytest

from deid_desktop.core.scan import build_dictionary_from_values, scan_frames
from tests.core.test_scan_context_notes import covered, found


@pytest.mark.parametrize(
    "text",
    [
        "R. AT PRESENT WIFE REQUESTING TO SPEND TIME WITH PT.",
        "SOCIAL=DISCUSSED W DAUGHTER POSSIBLE LONG TERM PX",
        "SO FAR, SON SEEMS UNABLE TO AGREE TO PLAN",
        "SOCIAL: MOTHER, AUNTS IN TO VISIT THIS EVENING",
        "FRIENDS IN TO VISIT- DAUGHTER ENCOURAGED TO GO HOME FOR SLEEP",
        "A sister on Illinois was called and spoke with MD",
        "PT CAME TO VISIT SISTER IN MASSACHUSETTS AND DEVELOPED CP",
        "SON WENT BACK TO CALIFORNIA, DAUGHTER WILL RETURN",
        "CV: AV paced, went into SVT 130's. Amiodarone bolus",
        "Cr 2.0-2.4, going into ARF s/p cath",
        "LGHT GREEN RETURN HEARD IN STOMACH",
        "ID- Max temp 103.4, tx w/ tylenol",
        'could state month of "April." Given Trazadone',
        "Chest X-Ray was done this AM",
        "At 1400 anterior CT (24 French, 16 cm) placed to sxn",
        "warm with Bair hugger, send cultures",
        "ACTIVITY OOB TO CHAIR WITH 2 ASSISTS TOL WELL",
        "45CC/HR W/ MINIMAL RESIDUALS. 4 LARGE THICK LIQ GREEN STOOLS.",
        "Dopplerable DP/PT bilat. Lytes replaced prn",
        "TRY WEAN IN AM IF MS CONT TO IMPROVE.",
        "reactive and equal to light. Riker scale 4",  # a score's scale, its author's name
        "Renal consult this afternoon. Neuro consult called.",
        "PT consult and SW consult requested.",
        "SON FROM ICU CALLED. wife from work called.",
        "son from Florida called",  # a state
        "n placed on 50% face tent per RT, MD aware. ABG done",
        "went to bed at midnight. to walk at noon. to maxwell",  # "maxwell": a name too
        "FAMILY VISITED. MOTHER VISITED. PT VISITED BY SW",
        "PT (OT) eval today",
        "pt with son and his other daughter. Awake for the night",
        "to speak with social worker. Meeting arranged for tomorrow",
        "PATIENT IS A FULL CODE. WIFE NAD NEICE IN AND UPDATED",
        "CHILDREN. UNEMPLOYED. HUSBAND CEO OF A COMPANY.",
    ],
)
def test_no_hit_on_words_of_notes(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("DAUGHTER JENNIFER IN TO VISIT.", "JENNIFER"),
        ("SON ANTWON CALLED FOR UPDATE.", "ANTWON"),
        ("per dr lavely hold seroquel tonight", "lavely"),  # "lave" + "ly": a name
        ("discussed with pcp sparkes, will f/u.", "sparkes"),  # not "spark" + "es"
        ("lives in Omaha, Nebraska with son", "Omaha"),
        ("TRANSFER KILLINGWORTH TODAY", "KILLINGWORTH"),
        ("46 year old male came into PP on 9/10 with", "PP"),  # "came into": a place
        ("LIVES AT 519 STOKES HOLLOW WITH WIFE", "519 STOKES HOLLOW"),
        ("lives at 12 maple glen with wife", "12 maple glen"),
        ("spoke with daughter. Jennifer will call back.", "Jennifer"),  # a listed name
        ("dtr. Mary called", "Mary"),
        ("with Dr Reena. April will bring clothes", "April"),  # a month's name before "will"
        ("Spoke with August about discharge.", "August"),
        ("msg routed to EP, RN.", "EP"),  # initials that spell a clinical abbreviation
        ("per CR, RN hold Lopressor", "CR"),
        ("Last seen November 16th by Max Ebert PT. Father", "Max Ebert"),
    ],
)
def test_names_and_places_beside_the_traps_are_found(text: str, value: str) -> None:
    assert covered(text, value)


@pytest.mark.parametrize(
    ("text", "value", "kind", "rule"),
    [
        ("also intubated 1/16-7/1 for CHF", "1/16-7/1", "DATE", "date:no-year"),
        ("DAUGHTER FROM TFCN JUST CALLED FOR UPDATE", "TFCN", "LOCATION", "place:relative-from"),
        ("SISTER FROM KALAMA CALLED", "KALAMA", "LOCATION", "place:relative-from"),
        ("P: Yoakum Mcdonough consult for sliding scale", "Yoakum Mcdonough", "LOCATION",
         "place:service-name"),
        ("will need Joslin consult today", "Joslin", "LOCATION", "place:service-name"),
        ("insulin drip following Hartwell scale. asked team", "Hartwell", "LOCATION",
         "place:service-name"),
        ("transferred from er jena campus. this is", "jena", "LOCATION", "place:service-name"),
        ("Placed on servo vent. Erazo Klopp CRT", "Erazo Klopp", "NAME", "cue:credential"),
        ("cont teaching. pt to claremont this am.", "claremont", "LOCATION", "gazetteer"),
        ("reintubations that she had at perryton. SHe presents", "perryton", "LOCATION",
         "gazetteer"),
        ("PLAN: TO DAVISBORO 2 WHEN BED AVAIL.", "DAVISBORO", "LOCATION", "gazetteer"),
        ("social: fleischman visited during the evening", "fleischman", "NAME",
         "notes:staff-name"),
        ("orientedx3. madonna westbury huffman from speech and swallow",
         "madonna westbury huffman", "NAME", "notes:cued-name"),
        ("clear t/o. RN (Spink) has followed thru noc", "Spink", "NAME", "notes:cued-name"),
    ],
)  # fmt: skip
def test_forms_of_places_dates_and_staff(text: str, value: str, kind: str, rule: str) -> None:
    assert (value, kind, rule) in found(text)


@pytest.mark.parametrize(
    "text", ["gave 1/2-3/4 tab", "BP 120/80-130/90 today", "dates 1/16-7/1/20 were"]
)
def test_no_date_range_in_fractions_pressures_or_longer_dates(text: str) -> None:
    assert not [h for h in found(text) if h[2] == "date:no-year" and "-" in h[0]]


def test_a_state_after_its_town_is_part_of_the_address() -> None:
    assert ("Nebraska", "LOCATION", "gazetteer:state") in found("lives in Omaha, Nebraska")


def _hits_in_notes_of(person: str, note: str) -> list[str]:
    """What the scan flags in ``person``'s note, the dictionary holding person p1's name
    May Back (two everyday words), p2's, Bo Xylo, and p3's, Ann Post (an English word)."""
    names = ["May Back", "Bo Xylo", "Ann Post"]
    d = build_dictionary_from_values(
        {"name": names}, owners=[(f"p{k}", n) for k, n in enumerate(names, start=1)]
    )
    frame = pd.DataFrame({"pid": [person], "note": pd.Series([note], dtype="string")})
    report = scan_frames({"n": frame}, {"n": ["note"]}, d, person_keys={"n": "pid"})
    return [note[h.start : h.end] for h in report.hits]


@pytest.mark.parametrize(
    ("note", "flagged"),
    [
        ("Cont. antibxs. May need further IV access.", []),
        ("Tol CPAP poorly. Back on IMV overnight.", []),
        ("Afebrile. May reports pain improved.", ["May"]),  # a verb of a person
        ("Afebrile. May asking for water.", ["May"]),
        ("neighbor called re: May. Question.", ["May"]),  # no word after it
        ("Spoke with May about the plan.", ["May"]),  # inside a sentence
        ("Given 1 unit. Post transfusion hct will be sent.", []),  # an English word
        ("Post-op abg wnl", []),
        ("Spoke with Post today.", ["Post"]),
    ],
)
def test_another_persons_name_that_is_a_word_at_a_sentences_start(
    note: str, flagged: list[str]
) -> None:
    assert _hits_in_notes_of("p2", note) == flagged


@pytest.mark.parametrize(
    "note",
    ["per M.Back at desk", "per M. Back at desk", "Seen by Mr. Back at noon", "May went home"],
)
def test_a_persons_own_everyday_name_after_an_initial_or_a_title(note: str) -> None:
    """A full stop after an initial or a title starts no sentence: the person's own
    surname there is found (it was released, "per E.Carter at desk", and the gate
    stopped the release)."""
    assert _hits_in_notes_of("p1", note) in (["Back"], ["May"])


def test_the_english_table_holds_every_listed_word_of_sixteen_letters_or_fewer() -> None:
    """The table is cut from the file in numpy; word by word it reads the same."""
    import numpy as np

    from deid_desktop.core.scan import lexicon as lx
    from deid_desktop.core.scan.cuewords import _english

    words = [w for w in lx._words("words", "english_web2.txt") if len(w) <= 16]
    buf = b"".join(w.encode("ascii").ljust(16, b"\0") for w in words) + bytes(16)
    starts = np.arange(len(words), dtype=np.int64) * 16
    length = np.array([len(w) for w in words], dtype=np.int64)
    np.testing.assert_array_equal(_english(), np.sort(lx.word_hash(buf, starts, length)))
