"""Free-text scan: planted identifiers are found, whole words only, case and accents
ignored, cues catch names in no column, redaction, and the disclaimer."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    Extract,
    IdentifierCategory,
    LoadedTable,
    LoadReport,
    Project,
    TableSpec,
)
from deid_desktop.core.scan import (
    DISCLAIMER,
    Hit,
    build_dictionary,
    build_dictionary_from_values,
    redact_column,
    redact_text,
    scan_frames,
    scan_texts,
)

DICT = build_dictionary_from_values(
    {
        "name": ["Peña, María", "Ann Smith", "Jean-Luc O'Neil", "Zoë Quist"],
        "mrn": ["MRN-00123", "4455667"],
        "phone": ["(555) 123-4567"],
        "email": ["j.oneil@example.org"],
        "ssn": ["123-45-6789"],
        "id": ["ACCT-9981"],
    }
)


def scan_one(text: str, dictionary=DICT) -> list[tuple[str, str, str]]:
    """(kind, rule, matched text) for one note."""
    frames = {"notes": pd.DataFrame({"note": pd.Series([text], dtype="string")})}
    report = scan_frames(frames, {"notes": ["note"]}, dictionary)
    return [(h.kind, h.rule, h.text_in(text)) for h in report.hits]


def found(text: str, kind: str) -> list[str]:
    return [t for k, _, t in scan_one(text) if k == kind]


PLANTED = [
    # own name from the dictionary, whole word, any case
    ("Seen with Smith today.", "NAME", "Smith"),
    ("SMITH called back", "NAME", "SMITH"),
    ("ann is well", "NAME", "ann"),
    ("seen with O'Neil there", "NAME", "Neil"),
    ("Mr O'Neil was there", "NAME", "O'Neil"),
    ("patient Jean-Luc said", "NAME", "Jean"),
    # MRN from the dictionary and MRN-like codes
    ("record MRN-00123 reviewed", "MRN", "MRN-00123"),
    ("old number 4455667 noted", "MRN", "4455667"),
    ("chart A1234567 opened", "MRN", "A1234567"),
    # phones in different formats
    ("call (555) 123-4567", "PHONE", "(555) 123-4567"),
    ("call 555.123.4567 now", "PHONE", "555.123.4567"),
    ("call 5551234567 now", "PHONE", "5551234567"),
    ("call +1 555 987 6543 now", "PHONE", "+1 555 987 6543"),
    ("call 555-987-6543.", "PHONE", "555-987-6543"),
    # e-mail, SSN, dates, URL, IP, ZIP, other IDs
    ("mail j.oneil@example.org please", "EMAIL", "j.oneil@example.org"),
    ("mail someone.else+x@clinic.co.uk.", "EMAIL", "someone.else+x@clinic.co.uk"),
    ("mail josé.peña@hôpital.fr now", "EMAIL", "josé.peña@hôpital.fr"),
    ("SSN 123-45-6789 on file", "SSN", "123-45-6789"),
    ("other 987-65-4321 on file", "SSN", "987-65-4321"),
    ("seen 2024-03-05 again", "DATE", "2024-03-05"),
    ("seen 3/5/2024 again", "DATE", "3/5/2024"),
    ("seen 25/12/2023 again", "DATE", "25/12/2023"),
    ("seen 03.05.24 again", "DATE", "03.05.24"),
    ("seen March 3, 2024 again", "DATE", "March 3, 2024"),
    ("seen Sept 21st 2023 again", "DATE", "Sept 21st 2023"),
    ("seen 3 Mar 2024 again", "DATE", "3 Mar 2024"),
    ("see https://portal.example.org/p?id=7.", "URL", "https://portal.example.org/p?id=7"),
    ("see www.example.org today", "URL", "www.example.org"),
    ("from 192.168.10.4 logged", "IP", "192.168.10.4"),
    ("lives in 02139 area", "ZIP", "02139"),
    ("zip 90210-1234 area", "ZIP", "90210-1234"),
    ("account ACCT-9981 closed", "ID", "ACCT-9981"),
    # cues
    ("Seen by Dr. Smith today", "NAME", "Smith"),
    ("Seen by Dr. Gregory House", "NAME", "Gregory House"),
    ("Mrs. Okafor attended", "NAME", "Okafor"),
]


@pytest.mark.parametrize(("text", "kind", "expected"), PLANTED)
def test_planted_identifier_found(text: str, kind: str, expected: str) -> None:
    assert expected in found(text, kind)


def test_relative_found_by_the_cue_and_again_by_the_census_names() -> None:
    hits = scan_one("Daughter Sarah visited; her son Tom too. Sarah left.")
    assert ("NAME", "cue:daughter", "Sarah") in hits
    assert ("NAME", "cue:son", "Tom") in hits
    # the second "Sarah" has no cue and is in no column: a Census given name, medium
    assert ("NAME", "names:given", "Sarah") in hits


def test_cue_needs_a_capitalised_word() -> None:
    assert scan_one("her son was present and dr available") == []


@pytest.mark.parametrize(
    ("dictionary_name", "text", "expected"),
    [
        ("Peña", "Mrs pena came", "pena"),
        ("Pena", "Maria Peña came", "Peña"),
        ("Zoë", "ZOE came", "ZOE"),
        ("Zoe", "zoë came", "zoë"),
        ("Müller", "Dr MULLER came", "MULLER"),
    ],
)
def test_accent_and_case_insensitive(dictionary_name: str, text: str, expected: str) -> None:
    d = build_dictionary_from_values({"name": [dictionary_name]})
    assert ("NAME", "dictionary:name", expected) in scan_one(text, d)


@pytest.mark.parametrize(
    "text", ["Annual review", "Annie came", "Smithson said", "planned", "sAnn", "Ann2"]
)
def test_whole_words_only(text: str) -> None:
    d = build_dictionary_from_values({"name": ["Ann Smith"]})
    assert [h for h in scan_one(text, d) if h[1] == "dictionary:name"] == []


def test_no_false_hits_in_plain_clinical_text() -> None:
    text = "BP 120/80, HR 72, temp 98.6. Continue metformin 500 mg twice daily for 3 months."
    assert scan_one(text) == []


def test_dictionary_from_values() -> None:
    d = build_dictionary_from_values(
        {"name": ["Jo", "J", "Mr. Li", None, ""], "phone": ["123"], "mrn": ["7"]}
    )
    assert "jo" in d.terms and "li" in d.terms
    assert "mr" not in d.terms and "j" not in d.terms
    assert d.skipped == 3  # "J" (no usable word), the short phone, the short MRN
    assert d.counts() == {"NAME": 2}
    with pytest.raises(UsageError):
        build_dictionary_from_values({"surname": ["x"]})


def test_hit_inside_a_longer_hit_is_not_counted_twice() -> None:
    d = build_dictionary_from_values({"id": ["2023", "0105"], "name": ["Neil"]})
    hits = scan_one("Seen 2/3/2023, call (619) 555-0105, mail neil@x.org; id 2023", d)
    assert hits == [
        ("DATE", "pattern:date", "2/3/2023"),
        ("PHONE", "pattern:phone", "(619) 555-0105"),
        ("EMAIL", "pattern:email", "neil@x.org"),
        ("ID", "dictionary:id", "2023"),
    ]


def test_dictionary_digits_attribute_pattern_hits() -> None:
    hits = scan_one("reach her on 555 123 4567")
    assert hits == [("PHONE", "dictionary:phone", "555 123 4567")]


def test_a_number_in_groups_split_by_spaces_is_found() -> None:
    """``MR 207 6796`` (the MRN ``SYN-2076796`` written in groups) was released after
    redaction: no pattern read digits split by spaces. Years side by side are not one."""
    texts = ["MR 207 6796 noted", "acct 1234 567 890", "seasons 2019 2020", "BP 120 80"]
    found = [(n, texts[n][s:e], rule) for n, s, e, _, rule in scan_texts(texts, DICT)]
    assert found == [(0, "207 6796", "pattern:grouped"), (1, "1234 567 890", "pattern:grouped")]


def test_build_dictionary_from_project_categories() -> None:
    frame = pd.DataFrame(
        {
            "pid": ["P001"],
            "full_name": ["Rosa Delgado"],
            "mrn": ["MRN77812"],
            "phone": ["555-222-3333"],
            "email": ["rosa@example.com"],
            "ssn": ["111-22-3333"],
            "plan": ["HP-55512"],
            "note": ["x"],
        },
        dtype="string",
    )
    tags = (
        ColumnTag("pid", ColumnClass.DIRECT, category=IdentifierCategory.R),
        ColumnTag("full_name", ColumnClass.DIRECT, category=IdentifierCategory.A),
        ColumnTag("mrn", ColumnClass.DIRECT, category=IdentifierCategory.H),
        ColumnTag("phone", ColumnClass.DIRECT, category=IdentifierCategory.D),
        ColumnTag("email", ColumnClass.DIRECT, category=IdentifierCategory.F),
        ColumnTag("ssn", ColumnClass.DIRECT, category=IdentifierCategory.G),
        ColumnTag("plan", ColumnClass.DIRECT, category=IdentifierCategory.I),
        ColumnTag("note", ColumnClass.FREE_TEXT),
    )
    spec = TableSpec("people", "people.csv", "0" * 64, "pid", True, tags)
    project = Project("0" * 32, "t", (spec,))
    table = LoadedTable(
        "people", Path("people.csv"), "0" * 64, frame, LoadReport("people.csv", 1, 8)
    )
    d = build_dictionary(Extract(table), project)
    assert d.terms["rosa"] == "NAME" and d.terms["delgado"] == "NAME"
    assert d.terms["mrn77812"] == "MRN"
    assert d.terms["p001"] == "ID" and d.terms["hp 55512"] == "ID"
    assert d.terms["rosa example com"] == "EMAIL"
    assert d.digits["5552223333"] == "PHONE" and d.digits["111223333"] == "SSN"
    assert "x" not in d.terms  # free text is not a dictionary source


def test_hits_are_rows_and_spans_and_report_counts() -> None:
    notes = ["nothing here", None, "Smith at 555-123-4567", "Ann; Ann"]
    frame = pd.DataFrame({"note": pd.Series(notes, dtype="string", index=[10, 11, 12, 13])})
    report = scan_frames({"visits": frame}, {"visits": ["note"]}, DICT)
    rows = sorted({h.row for h in report.hits})
    assert rows == [2, 3]  # 0-based positions, not index labels
    (col,) = report.columns
    assert (col.table, col.column, col.notes, col.notes_with_hits) == ("visits", "note", 3, 2)
    assert col.hits_by_kind == {"NAME": 3, "PHONE": 1}
    assert report.total_hits == 4
    assert report.by_kind() == {"NAME": 3, "PHONE": 1}
    assert all(isinstance(h, Hit) for h in report.hits)


def test_report_dicts_never_carry_matched_text() -> None:
    frame = pd.DataFrame({"note": pd.Series(["Smith at 555-123-4567"], dtype="string")})
    report = scan_frames({"t": frame}, {"t": ["note"]}, DICT)
    text = json.dumps(report.to_dict())
    assert "Smith" not in text and "4567" not in text
    assert report.to_dict()["hit_list"][0].keys() == {
        "table",
        "row",
        "column",
        "start",
        "end",
        "kind",
        "rule",
        "confidence",
    }


def test_disclaimer_says_it_cannot_prove_clean() -> None:
    report = scan_frames({}, {}, DICT)
    assert report.disclaimer == DISCLAIMER
    assert "cannot prove a note clean" in DISCLAIMER
    assert "in no column" in DISCLAIMER
    assert report.summary_dict()["disclaimer"] == DISCLAIMER


def test_unknown_table_or_column_is_a_usage_error() -> None:
    frame = pd.DataFrame({"note": pd.Series(["x"], dtype="string")})
    with pytest.raises(UsageError):
        scan_frames({"t": frame}, {"t": ["nope"]}, DICT)
    with pytest.raises(UsageError):
        scan_frames({"t": frame}, {"u": ["note"]}, DICT)


def test_redact_text_merges_overlaps() -> None:
    text = "Call Ann Smith at 555-123-4567."
    hits = [
        Hit("t", 0, "c", 5, 8, "NAME", "r"),
        Hit("t", 0, "c", 9, 14, "NAME", "r"),
        Hit("t", 0, "c", 5, 14, "NAME", "cue"),
        Hit("t", 0, "c", 18, 30, "PHONE", "r"),
    ]
    assert redact_text(text, hits) == "Call [NAME] at [PHONE]."
    assert redact_text(text, []) == text


def test_redact_column_end_to_end() -> None:
    series = pd.Series(
        ["Daughter Sarah called 555.123.4567", None, "plain", "Dr. Smith, MRN-00123"],
        dtype="string",
    )
    report = scan_frames({"t": pd.DataFrame({"c": series})}, {"t": ["c"]}, DICT)
    out = redact_column(series, report.hits_for("t", "c"))
    assert out.iloc[0] == "Daughter [NAME] called [PHONE]"
    assert pd.isna(out.iloc[1])
    assert out.iloc[2] == "plain"
    assert out.iloc[3] == "Dr. [NAME], [MRN]"
    assert series.iloc[0].startswith("Daughter Sarah")  # input untouched


def test_notes_do_not_leak_into_each_other() -> None:
    # digits at the end of one note and the start of the next are not one number
    series = pd.Series(["ref 555", "123 4567 end", "Dr.", "Smith"], dtype="string")
    report = scan_frames({"t": pd.DataFrame({"c": series})}, {"t": ["c"]}, DICT)
    assert [h for h in report.hits if h.kind == "PHONE"] == []
    assert [h for h in report.hits if h.row == 0] == []
    assert all(h.end <= len(series.iloc[h.row]) for h in report.hits)
    assert [h.rule for h in report.hits if h.row == 3] == ["dictionary:name"]  # no cue


def test_non_ascii_notes_keep_offsets() -> None:
    texts = ["Ünïcode note: Dr. Smith, tel 555-123-4567 ✓", "ascii Smith"] * 3
    series = pd.Series(texts, dtype="string")
    report = scan_frames({"t": pd.DataFrame({"c": series})}, {"t": ["c"]}, DICT)
    got = sorted((h.row, h.text_in(texts[h.row])) for h in report.hits)
    assert (0, "Smith") in got and (0, "555-123-4567") in got and (1, "Smith") in got
    assert len(got) == 9


def test_recall_on_annotated_synthetic_notes(public_data: Path) -> None:
    from tests.core.test_scan_synth import make_notes

    notes, truth, dictionary = make_notes(public_data, n=400, seed=11)
    frames = {"n": pd.DataFrame({"text": pd.Series(notes, dtype="string")})}
    report = scan_frames(frames, {"n": ["text"]}, dictionary)
    spans = {(h.row, h.start, h.end) for h in report.hits}
    covered = {(h.row, i) for h in report.hits for i in range(h.start, h.end)}
    found_exact = sum(1 for t in truth if (t[0], t[1], t[2]) in spans)
    found_any = sum(1 for t in truth if all((t[0], i) in covered for i in range(t[1], t[2])))
    assert found_any / len(truth) >= 0.98
    assert found_exact / len(truth) >= 0.95


def test_progress_reported_and_cancel_honoured() -> None:
    from deid_desktop.core.errors import Cancelled
    from deid_desktop.core.progress import CancelToken

    frame = pd.DataFrame({"note": pd.Series(["Smith"] * 10, dtype="string")})
    seen: list[float] = []
    scan_frames({"t": frame}, {"t": ["note"]}, DICT, progress=lambda f, s: seen.append(f))
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        scan_frames({"t": frame}, {"t": ["note"]}, DICT, cancel=token)
