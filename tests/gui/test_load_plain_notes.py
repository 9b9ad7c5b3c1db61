"""The Load step says when notes written to hide an identifier were written plainly."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from deid_desktop.core.demo import write_demo
from deid_desktop.core.project.files import project_from_json, save_project
from deid_desktop.core.project.inputs import repoint_table
from deid_desktop.gui.main_window import MainWindow
from tests.gui.test_flow import idle

pytestmark = pytest.mark.slow


def test_the_load_report_says_how_many_notes_were_written_plainly(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    project_path = write_demo(tmp_path / "demo", rows=200)
    people = project_path.parent / "demographics.csv"
    rows = list(csv.DictReader(people.open(newline="", encoding="utf-8")))
    for r in rows[:3]:  # a zero-width space inside the surname
        r["notes"] = f"Spoke with {r['first_name']} {r['last_name'][:2]}\u200b{r['last_name'][2:]}"
    with people.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    project = project_from_json(project_path.read_text(encoding="utf-8"))
    save_project(repoint_table(project, "demographics", people, project_path), project_path)
    assert window.open_project(project_path)
    qtbot.waitUntil(lambda: window.session.extract is not None, timeout=60_000)
    idle(qtbot, window)
    text = window.load_page.report_text()
    assert "3 notes in column 'notes' held characters that disguise text" in text
    window.resize(1100, 760)
    window.load_page.grab().save(str(tmp_path / "load-plain-notes.png"))
