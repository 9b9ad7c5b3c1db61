"""The sample-review panel, driven as a reviewer would: read sampled notes with hits
highlighted, filter by confidence, mark clean or missed, and get the counts."""

from __future__ import annotations

import os
from pathlib import Path

from pytestqt.qtbot import QtBot

from deid_desktop.core.scan import build_dictionary_from_values, scan_text_arrays
from deid_desktop.gui.scan_panel import SampleReviewPanel, SpanHit


def _notes() -> tuple[list[str], list[list[SpanHit]]]:
    notes = [
        f"Pt seen {i % 12 + 1}/{i % 27 + 1}. Dtr Mary Okafor called from 617-555-01{i % 90:02d}; "
        f"lives in Worcester. Spoke with Linda about discharge."
        for i in range(60)
    ]
    found = scan_text_arrays(notes, build_dictionary_from_values({"name": ["Ann Okafor"]}))
    hits: list[list[SpanHit]] = [[] for _ in notes]
    for n, s, e, k, c in zip(
        found.note.tolist(),
        found.start.tolist(),
        found.end.tolist(),
        found.kinds.tolist(),
        found.confidence.tolist(),
        strict=True,
    ):
        hits[n].append(SpanHit(s, e, k, c))
    return notes, hits


def test_reviewer_marks_a_seeded_sample(qtbot: QtBot, tmp_path: Path) -> None:
    notes, hits = _notes()
    panel = SampleReviewPanel(notes, hits, seed=11)
    qtbot.addWidget(panel)
    panel.resize(820, 420)
    panel.show()
    assert len(panel.review.sample) == 3  # 5% of 60
    assert panel.review.sample == SampleReviewPanel(notes, hits, seed=11).review.sample
    qtbot.keyClicks(panel.reviewer, "R. Viewer")
    shown = panel.view.toHtml()
    assert "Worcester" in shown and "LOCATION" in shown and "PHONE" in shown
    assert '#ffe699;">Linda</span>' in shown  # a Census given name, no cue: medium
    # the filter hides the medium hits (the place, the date without a year)
    panel.filter.setCurrentIndex(2)
    high_only = panel.view.toHtml()
    assert "PHONE" in high_only and "LOCATION" not in high_only
    panel.filter.setCurrentIndex(0)
    shots = Path(os.environ.get("DEID_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    assert panel.grab().save(str(shots / "scan_sample_review.png"))
    qtbot.mouseClick(panel.clean_button, _left())
    panel.miss_kind.setCurrentText("NAME")
    qtbot.mouseClick(panel.missed_button, _left())
    assert panel.position.text().startswith("Note 3 of 3")
    assert panel.review.summary_dict() == {
        "notes_in_sample": 3,
        "notes_reviewed": 2,
        "notes_with_misses": 1,
        "misses_by_kind": {"NAME": 1},
        "reviewer": "R. Viewer",
    }
    assert panel.status.text() == "Reviewed 2 of 3; 1 with something missed."
    qtbot.mouseClick(panel.prev_button, _left())
    assert "missed NAME" in panel.position.text()


def _left():  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


def test_column_notes_align_hits_with_non_missing_notes() -> None:
    import pandas as pd

    from deid_desktop.core.scan import scan_frames
    from deid_desktop.gui.scan_panel import column_notes, project_seed

    frame = pd.DataFrame({"note": pd.Series([None, "Dtr Mary called", "ok"], dtype="string")})

    class _Extract:
        def table(self, _name: str):  # type: ignore[no-untyped-def]
            return type("T", (), {"frame": frame})()

    report = scan_frames({"t": frame}, {"t": ["note"]}, build_dictionary_from_values({}))
    notes, hits = column_notes(_Extract(), report.spans[0])
    assert notes == ["Dtr Mary called", "ok"]
    assert [(h.start, h.end, h.kind) for h in hits[0]] == [(4, 8, "NAME")]
    assert hits[1] == []
    assert project_seed("p" * 32) == project_seed("p" * 32) != project_seed("q" * 32)


def test_missed_words_go_to_the_word_list_and_the_scan_shows_them(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """A reviewer marks "missed something", types the missed word: it is appended to the
    word list in the held-back folder beside the project (not the project file), the
    column is scanned again and the note on screen shows the new hit."""
    from deid_desktop.core import engine
    from deid_desktop.core.demo import write_demo
    from deid_desktop.core.scan import scan_frames
    from deid_desktop.core.scan.dictionary import build_dictionary
    from deid_desktop.gui.scan_panel import column_notes, word_adder
    from deid_desktop.gui.session import Session

    path = write_demo(tmp_path / "demo")
    project, _ = engine.open_project(path)
    extract = engine.load(project, path)
    session = Session()
    session.open(project, path)
    session.set_extract(extract)
    report = scan_frames(
        {"demographics": extract.table("demographics").frame},
        {"demographics": ["notes"]},
        build_dictionary(extract, project),
    )
    notes, hits = column_notes(extract, report.spans[0])
    panel = SampleReviewPanel(
        notes, hits, seed=5, add_word=word_adder(session, "demographics", "notes")
    )
    qtbot.addWidget(panel)
    panel.resize(900, 460)
    panel.show()
    at = next(i for i, n in enumerate(panel.review.sample) if "furosemide" in notes[n])
    panel.go(at)
    assert "furosemide</span>" not in panel.view.toHtml()
    panel.miss_kind.setCurrentText("OTHER")
    assert panel.word_kind.currentText() == "OTHER"  # follows the kind missed
    qtbot.keyClicks(panel.word_term, "furosemide")
    shots = Path(os.environ.get("DEID_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    assert panel.grab().save(str(shots / "scan_sample_review_word_list.png"))
    project_bytes = path.read_bytes()
    qtbot.mouseClick(panel.missed_button, _left())
    word_list = path.parent / "crosswalk" / "word-list.txt"
    assert word_list.read_text(encoding="utf-8") == "OTHER\tfurosemide\n"
    assert path.read_bytes() == project_bytes
    assert panel.current() == panel.review.sample[at]  # the note stays, with its new hit
    assert '#f4b183;">furosemide</span>' in panel.view.toHtml()  # high confidence
    assert panel.grab().save(str(shots / "scan_sample_review_word_added.png"))
    assert panel.review.missed_by_kind() == {"OTHER": 1}
    assert panel.word_term.text() == ""
    assert panel.status.text().endswith("1 added to the word list.")
    assert sum(n.count("furosemide") for n in notes) == 147
    with_term = [i for i, n in enumerate(notes) if "furosemide" in n]
    assert all(  # found in every note that holds it, not only the one on screen
        any(notes[i][h.start : h.end] == "furosemide" for h in panel._hits[i]) for i in with_term
    )
