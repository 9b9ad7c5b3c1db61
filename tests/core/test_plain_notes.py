"""Notes written to hide an identifier from a scan (zero-width spaces inside a name,
full-width digits, Cyrillic lookalike letters) are read, and released, as a person reads
them: the load writes them plainly and says so, and "redact hits" then redacts them."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from deid_desktop.core.facts.fold import plain_note
from deid_desktop.core.io.extract import prepare_extract
from deid_desktop.core.model import FreeTextAction
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import verify_release
from tests.core.support import TEXT
from tests.core.test_safe_harbor_support import make_case, replace_frame

ZW = "\u200b"
WIDE = str.maketrans("0123456789", "０１２３４５６７８９")
LOOKALIKE = str.maketrans({"o": "\u043e", "a": "\u0430", "e": "\u0435", "c": "\u0441"})


@pytest.mark.parametrize(
    ("note", "plain"),
    [
        (f"Pt Wi{ZW}lson seen", "Pt Wilson seen"),
        ("cb (８５８) ５５５-０１５７", "cb (858) 555-0157"),
        ("Pt \u0405\u0441\u043ett here", "Pt Scott here"),  # Cyrillic S, s, o
        ("Pt Zo\u00eb Ib\u00e1\u00f1\u0435z seen", "Pt Zo\u00eb Ib\u00e1\u00f1ez seen"),
        ("\U0001d412\U0001d41c\U0001d428\U0001d42d\U0001d42d called", "Scott called"),
    ],
)
def test_a_disguised_note_is_written_plainly(note: str, plain: str) -> None:
    assert plain_note(note) == plain


@pytest.mark.parametrize(
    "note",
    [
        "TNF-\u03b1 and \u03b11-antitrypsin low",
        "\u0418\u0432\u0430\u043d visited",
        "5 \u00b5g, m\u00b2, caf\u00e9",
        "plain",
    ],
)
def test_greek_and_cyrillic_words_units_and_accents_are_kept(note: str) -> None:
    assert plain_note(note) == note


def _notes_case(write):  # type: ignore[no-untyped-def]
    """make_case(12) with each person's note ``write(i, first, last)``, redacted."""
    extract, project = make_case(12)
    people = extract.person.frame
    names = zip(people["first_name"], people["last_name"], strict=True)
    notes = [write(i, first, last) for i, (first, last) in enumerate(names)]
    extract = replace_frame(extract, "people", people.assign(notes=pd.array(notes, TEXT)))
    transform = dataclasses.replace(
        project.transform, free_text={"people.notes": FreeTextAction.REDACT}
    )
    return extract, dataclasses.replace(project, transform=transform)


def _disguised(i: int, first: str, last: str) -> str:
    if i % 3 == 0:
        return f"Spoke with {first} {ZW.join(last)}"  # zero-width spaces between letters
    if i % 3 == 1:
        return f"Pt {last} seen"  # plain
    return f"Spoke with {first} {last}".translate(LOOKALIKE)  # Cyrillic o, a, e, c


def test_names_disguised_in_notes_are_redacted_and_the_load_says_so() -> None:
    extract, project = _notes_case(_disguised)
    people = extract.person.frame
    prepared = prepare_extract(extract, project)
    (said,) = [w for w in prepared.person.report.warnings if "disguise" in w]
    assert said.startswith("8 notes in column 'notes' held characters that disguise text")
    release = build_safe_harbor(prepared, project)
    released = release.tables["people"]["notes"].tolist()
    for note, last in zip(released, people["last_name"], strict=True):
        assert last not in note and "[NAME]" in note
    assert verify_release(prepared, release, project).passed


def test_without_the_plain_reading_the_gate_still_refuses_a_disguised_name() -> None:
    """The gate reads the release as a person does too: a note left disguised is a
    direct value (as a clinical column it would be one)."""
    extract, project = _notes_case(_disguised)
    release = build_safe_harbor(extract, project)  # not prepared: notes left as written
    assert not verify_release(extract, release, project).passed
