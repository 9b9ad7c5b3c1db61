"""The finders of notes in capitals and lower-case shorthand (``core.scan.context_notes``,
``core.scan.context_places``), one form at a time, each beside a trap it must leave."""

from __future__ import annotations

import pytest

from deid_desktop.core.scan import build_dictionary_from_values, scan_texts

EMPTY = build_dictionary_from_values({"name": ["John Doe"]})


def found(text: str) -> list[tuple[str, str, str]]:
    """(covered text, kind, rule) of every hit in one note."""
    return [(text[s:e], k, r) for _, s, e, k, r in scan_texts([text], EMPTY)]


def covered(text: str, value: str) -> bool:
    at = text.index(value)
    hits = [(s, e) for _, s, e, _, _ in scan_texts([text], EMPTY)]
    return all(
        any(s <= i < e for s, e in hits) for i in range(at, at + len(value)) if text[i].isalnum()
    )


@pytest.mark.parametrize(
    ("text", "value", "kind", "rule"),
    [
        ("pt seen by dr okafor this am", "okafor", "NAME", "notes:cued-name"),
        ("np brannigan aware of labs", "brannigan", "NAME", "notes:cued-name"),
        ("DISCUSSED WITH NP OKONKWO, NO CHANGES", "OKONKWO", "NAME", "notes:cued-name"),
        ("covering Vanterpool (MD) paged twice", "Vanterpool", "NAME", "notes:cued-name"),
        ("note cosigned by TQ, RN at 0700", "TQ", "NAME", "notes:cued-name"),
        ("ELOISE FROM SOCIAL WORK CALLED", "ELOISE", "NAME", "notes:cued-name"),
        ("case discussed with Dr. R.K. this evening", "R.K", "NAME", "notes:cued-initials"),
        ("last chemo 4/2019 at the cancer center", "4/2019", "DATE", "date:month-year"),
        ("last chemo 06/08, tolerated", "06/08", "DATE", "date:no-year"),
        ("MRI done 3-Feb-21, read as normal", "3-Feb-21", "DATE", "date:short-year"),
        ("cath 14MAR19 showed 2VD", "14MAR19", "DATE", "date:glued"),
        ("fractured hip winter '19", "winter '19", "DATE", "date:short-year"),
        ("surgery set for june 20 per ortho", "june 20", "DATE", "date:no-year"),
        ("She moved from Tulsa, Oklahoma last year.", "Oklahoma", "LOCATION", "gazetteer:state"),
        ("Her home is 88 Quarry Knoll, Bedford", "88 Quarry Knoll", "LOCATION", "address:house"),
        (
            "lives at 88 Quarry Knoll Apt 2, Bedford",
            "88 Quarry Knoll Apt 2",
            "LOCATION",
            "address:house-unit",
        ),
        ("resides in Wexbury County", "Wexbury County", "LOCATION", "gazetteer:county"),
        ("Transferred from St. Cecilia overnight.", "St. Cecilia", "LOCATION", "facility:saint"),
        ("admitted to Wakeman 6 from the ED", "Wakeman 6", "LOCATION", "unit:ward"),
    ],
)
def test_form_is_found(text: str, value: str, kind: str, rule: str) -> None:
    assert (value, kind, rule) in found(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("LIVES WITH WIFE IN FRAMINGHAM, SON NEARBY", "FRAMINGHAM"),
        ("Pt is from Lowell MA originally", "MA"),
        ("ADDRESS 45 HALVORSEN KNOLL UNIT 7, NORWOOD. SON VISITING", "UNIT 7"),
        ("ADDRESS 45 HALVORSEN KNOLL UNIT 7, NORWOOD. SON VISITING", "NORWOOD"),
        ("d/c to st. brigid nursing home today", "st. brigid nursing home"),
        ("seen by dr (okonkwo) today", "okonkwo"),
        ("brother-in-law wesley called twice", "wesley"),
        ("her son is wesley, he visits daily", "wesley"),
        ("discussed with covering babson (md)", "babson"),  # a place's first word too
        ("GRANDDAUGHTER, TAMMARA OKONKWO, CALLED", "TAMMARA OKONKWO"),
        ("F/U WITH JOSHUA DUTTERMAN, CNA", "JOSHUA DUTTERMAN"),
        ("plan reviewed per dr j this am", "j"),
        ("SEEN WITH B. OKONKWO MD TODAY", "B. OKONKWO"),
        ("marisol (health care proxy) at bedside", "marisol"),
        ("refused transfer, seen by maria lopez, pa-c", "maria lopez"),
        ("Came from Good Shepherd Care Center last week.", "Good Shepherd Care Center"),
        ("Discharged to Quabbin Nursing and Rehab today.", "Quabbin Nursing and Rehab"),
        ("d/c to quabbin assisted living friday", "quabbin assisted living"),
        ("Mailing address 41 Tenney Well, Lowell", "41 Tenney Well"),
        ("resides in plymouth county with son", "plymouth county"),
        ("sister j. called for update", "j"),
    ],
)
def test_value_is_covered(text: str, value: str) -> None:
    assert covered(text, value), found(text)


@pytest.mark.parametrize(
    "text",
    [
        "her son was present and dr available",  # a lower-case English word after a cue
        "dr ordered CT head",  # a verb after a cue
        "Seen by Okafor NP. Tolerating diet.",  # a credential ends the name
        "Labs 10.1/4.72 and 7.4/40 reviewed; Percocet 5/325 q6h; pain 6/10",
        "BP 120/80, D5 1/2NS at 75/hr, ate 1/2 of tray",
        "seen in the spring; fell last Tuesday",
        "d/c to outside hospital for cath",
        "lives in 02139 area",  # the ZIP is the pattern's, not a street
        "wife asked about the bill, sw to f/u",  # a lower-case credential is no cue
        "PT FELL AT HOME LAST WEEK",  # capitals give no case evidence
        "spoke with the chaplain. Lungs clear.",  # a sentence ends after a relation
        "Pain 4/5 in the ankle, strength 5/5.",
        "Hx: 3 Recent Falls at home, 2 Bone Spurs",  # no street suffix of a clinical word
    ],
)
def test_trap_gives_no_new_hit(text: str) -> None:
    new = {"notes:cued-name", "notes:cued-initials", "date:short-year", "date:glued",
           "gazetteer:state", "address:house", "address:house-unit", "gazetteer:county",
           "facility:saint", "unit:ward"}  # fmt: skip
    assert [h for h in found(text) if h[2] in new] == []
