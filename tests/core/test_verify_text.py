"""The gate's text check (``verify.text``): the free-text scanner over every released
text cell of columns not tagged free text; and the tagger's prose guard."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from deid_desktop.core.model import ColumnClass, Pathway, Release
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.tagging import suggest_tags
from deid_desktop.core.verify import Finding, VerifyContext
from deid_desktop.core.verify.text import check_no_identifiers_in_text
from tests.core.planted_extract import make_frames
from tests.core.support import TEXT
from tests.core.test_safe_harbor_support import make_case

EXTRACT, PROJECT = make_case(n=12)
CLEAN = build_safe_harbor(EXTRACT, PROJECT)
FILLER = "Patient seen today, tolerated the treatment well, follow up as planned."


def with_column(cells: list[str | None], *, name: str = "comments",
                pathway: Pathway = Pathway.SAFE_HARBOR) -> Release:  # fmt: skip
    """The clean release with one more text column in the person table."""
    person = EXTRACT.person.name
    frame = CLEAN.tables[person].copy()
    padded = (cells + [FILLER] * len(frame))[: len(frame)]
    frame[name] = pd.array(padded, dtype=TEXT)
    return replace(CLEAN, tables={**CLEAN.tables, person: frame}, pathway=pathway)


def judge(release: Release) -> Finding:
    project = replace(PROJECT, pathway=release.pathway)
    return check_no_identifiers_in_text(EXTRACT, release, project, VerifyContext(EXTRACT, project))


def test_clean_release_passes_and_reads_its_text_columns() -> None:
    found = judge(with_column([]))
    assert found.passed and found.count == 0
    assert found.detail["columns_read"] >= 1


def test_phone_without_separators_after_a_cue_fails() -> None:
    found = judge(with_column(["Daughter asked us to call her on 6195550142 after six."]))
    assert not found.passed and found.count == 1
    assert found.detail["cells_by_kind"] == {f"{EXTRACT.person.name}.comments": {"PHONE": 1}}


def test_ten_digits_without_a_cue_or_not_a_us_number_pass() -> None:
    """Lab accession numbers and IDs are ten digits too: no cue, or an area code or
    exchange starting with 0 or 1, is not a phone."""
    cells = [
        "Lab accession 6195550142 resulted, values within range.",
        "Call back about result 1195550142 if the value changes.",
        "Call back about result 6190550142 if the value changes.",
    ]
    assert judge(with_column(cells)).passed


def test_a_day_and_month_without_the_year_fails_but_doses_and_scores_pass() -> None:
    """``seen 3/14`` states the day of a visit (Safe Harbor removes every date element
    but the year); the scanner is only 'medium' sure of such dates, yet a comments
    column tagged clinical released them under a green verdict."""
    dated = ["Seen 3/14 with wife, doing well.", "F/u 7/22 in clinic as planned."]
    found = judge(with_column(dated))
    assert not found.passed and found.count == 2
    assert found.detail["cells_by_kind"] == {f"{EXTRACT.person.name}.comments": {"DATE": 2}}
    linkable = judge(with_column(dated, pathway=Pathway.LINKABLE))
    assert not linkable.passed
    measures = ["Took 1/2 tab at night.", "Pain 3/10, strength 5/5.", "BP 120/80, grade 2/4."]
    assert judge(with_column(measures)).passed


def test_phone_without_separators_in_a_phone_named_column_fails() -> None:
    found = judge(with_column(["ok 6195550142 evenings only"], name="contact_info"))
    assert not found.passed


def test_columns_of_numbers_or_short_codes_are_not_read() -> None:
    plain = judge(with_column([]))
    codes = judge(with_column(["E11.9"] * 12))
    assert codes.passed
    assert codes.detail["columns_read"] == plain.detail["columns_read"] - 1


def test_limited_data_set_keeps_dates_but_not_phones() -> None:
    dates = with_column(["Seen on 2024-03-12 with no concerns."], pathway=Pathway.LIMITED_DATA_SET)
    assert judge(dates).passed
    phone = with_column(["Call (619) 555-0142 tonight."], pathway=Pathway.LIMITED_DATA_SET)
    assert not judge(phone).passed
    sh_dates = with_column(["Seen on 2024-03-12 with no concerns."])
    assert not judge(sh_dates).passed


def test_messages_name_column_and_counts_never_a_value() -> None:
    found = judge(with_column(["Call (619) 555-0142 tonight.", "E-mail jo@example.org"]))
    (message,) = found.detail["messages"]
    assert "'comments'" in message and "1 cell with phone numbers" in message
    assert "555" not in message and "example" not in message


# ------------------------------------------------------------------- tagging: prose


def test_prose_under_a_clinical_or_quasi_name_is_suggested_as_free_text() -> None:
    visits = make_frames(300)["visits"].astype(TEXT)
    frame = pd.DataFrame(
        {"diagnosis": visits["comments"], "occupation": visits["comments"]}
    ).astype(TEXT)
    tags = {t.name: t for t in suggest_tags(frame, table="visits", is_person=False)}
    for name in ("diagnosis", "occupation"):
        assert tags[name].cls is ColumnClass.FREE_TEXT
        assert any("read like prose" in e for e in tags[name].evidence)
        assert any("words on average" in e for e in tags[name].evidence)


def test_short_codes_under_a_clinical_name_stay_clinical() -> None:
    visits = make_frames(300)["visits"].astype(TEXT)
    tags = {t.name: t for t in suggest_tags(visits, table="visits", is_person=False)}
    assert tags["diagnosis"].cls is ColumnClass.CLINICAL
    assert tags["visit_label"].cls is ColumnClass.CLINICAL
