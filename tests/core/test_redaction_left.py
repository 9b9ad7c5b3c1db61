"""A redaction level below "all" leaves the lower-confidence hits in the notes: the README
and the record say how many, so that the release's claim is true of its bytes."""

from __future__ import annotations

import dataclasses

import pandas as pd

from deid_desktop.core.model import FreeTextAction
from deid_desktop.core.pathways.common import redact_free_text, redaction_sentences
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from tests.core.support import TEXT
from tests.core.test_safe_harbor_support import make_case, replace_frame

NOTES = [
    "Seen with Elena today. Late 90s, lives alone.",  # a name, a bare decade (medium)
    "Stable, no complaints.",
    "Ruth walks daily.",
]


def _case(level: str):  # type: ignore[no-untyped-def]
    extract, project = make_case(6)
    people = extract.person.frame.copy()
    people["notes"] = pd.array([NOTES[i % 3] for i in range(6)], dtype=TEXT)
    extract = replace_frame(extract, "people", people)
    transform = dataclasses.replace(
        project.transform, free_text={"people.notes": FreeTextAction.REDACT}, redact_level=level
    )
    return extract, dataclasses.replace(project, transform=transform)


def test_hits_below_the_level_are_counted_and_said() -> None:
    extract, project = _case("high")
    red = redact_free_text(extract, project, {"people": ["notes"]})
    assert red.left["people.notes"] >= 2  # "late 90s" (medium) in two notes
    assert all(
        "late 90s" in n
        for n in red.columns["people"]["notes"]
        if "Elena" in NOTES[0] and n and "late" in n
    )
    (sentence,) = redaction_sentences(red)
    assert f"{red.left['people.notes']:,} scan hits of lower confidence were left" in sentence
    release = build_safe_harbor(extract, project)
    assert release.parameters["free_text_hits_left_below_level"] == {
        "people.notes": red.left["people.notes"]
    }
    assert any("left as written" in t for t in release.transformations)


def test_at_the_level_all_nothing_is_left_and_nothing_is_said() -> None:
    extract, project = _case("all")
    red = redact_free_text(extract, project, {"people": ["notes"]})
    assert red.left["people.notes"] == 0
    assert "left as written" not in redaction_sentences(red)[0]
    released = red.columns["people"]["notes"]
    assert not released.str.contains("Late 90s").any()
