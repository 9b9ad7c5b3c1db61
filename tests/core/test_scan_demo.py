"""The demo extract's planted free-text cases are caught by the scan; plain notes are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from deid_desktop.core import engine
from deid_desktop.core.demo import RELATIVE_NOTE, write_demo
from deid_desktop.core.scan import build_dictionary, redact_column, scan_frames

PLAIN = {"Daily weights reviewed, no new edema.", 'Patient said "feeling better" and walks daily.'}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    path = write_demo(tmp_path_factory.mktemp("demo"))
    project, _ = engine.open_project(Path(path))
    extract = engine.load(project, Path(path))
    return project, extract


def test_demo_notes_planted_cases_caught(demo) -> None:  # type: ignore[no-untyped-def]
    project, extract = demo
    text_columns = engine.text_columns_for(project, extract)
    assert text_columns == {"demographics": ["notes"]}
    frames = {"demographics": extract.table("demographics").frame}
    report = scan_frames(frames, text_columns, build_dictionary(extract, project))
    notes = frames["demographics"]["notes"]
    rows_with_hits = {h.row for h in report.hits}
    present = [i for i, missing in enumerate(notes.isna().tolist()) if not missing]
    identifying = [i for i in present if notes.iloc[i] not in PLAIN]
    assert identifying, "the demo has notes naming people"
    missed = [i for i in identifying if i not in rows_with_hits]
    assert missed == []
    assert [i for i in present if notes.iloc[i] in PLAIN and i in rows_with_hits] == []

    kinds = {h.row: set() for h in report.hits}
    for h in report.hits:
        kinds[h.row].add((h.kind, h.rule))
    phone_rows = [i for i in present if "555-01" in notes.iloc[i]]
    assert phone_rows and all(
        ("PHONE", "dictionary:phone") in kinds[i] or ("PHONE", "pattern:phone") in kinds[i]
        for i in phone_rows
    )
    date_rows = [i for i in present if notes.iloc[i].startswith("Seen in the ED on")]
    assert date_rows and all(("DATE", "pattern:date") in kinds[i] for i in date_rows)
    (relative_row,) = [i for i in present if notes.iloc[i] == RELATIVE_NOTE]
    assert kinds[relative_row] == {("NAME", "cue:daughter")}

    redacted = redact_column(notes, report.hits_for("demographics", "notes"))
    assert redacted.iloc[relative_row] == "Daughter [NAME] will manage medications at home."
    assert all("555-01" not in redacted.iloc[i] for i in phone_rows)
