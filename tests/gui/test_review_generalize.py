"""Review → Residual risk → "Find the best generalization", driven as a user drives it:
group a column's values in the hierarchy editor, search, click a candidate, read its
preview, apply it (the review runs again at the new k), undo, apply again, export; then
``deid run`` on the saved project in a fresh process writes the same bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QComboBox

from deid_desktop.core import engine
from deid_desktop.core.export import RECORD_JSON, RECORD_TXT
from deid_desktop.core.model import FreeTextAction
from deid_desktop.core.project import load_project, resolve_path
from deid_desktop.core.risk.builtin_hierarchies import builtin_hierarchy, guess_kind
from deid_desktop.core.risk.hierarchy import apply_levels, read_arx_csv
from deid_desktop.core.steps import Step
from deid_desktop.gui.main_window import MainWindow
from deid_desktop.gui.pages.review import RISK_TAB
from tests.core.support import sha
from tests.gui.test_flow import WAIT, export_in_window, idle, open_demo, wait_review
from tests.gui.test_reproduce import _deid_run, file_keyring  # noqa: F401 - a fixture

pytestmark = pytest.mark.slow


def _lone(session, levels, columns, race) -> int:  # type: ignore[no-untyped-def]
    """Records alone in their group at ``levels``, counted apart from the search."""
    frame, _qis = engine.unapplied_person(session.project, session.extract, None)
    hier = {c: builtin_hierarchy(str(guess_kind(c)), frame[c], c) for c in columns}
    hier["race"] = race
    out = apply_levels(frame, hier, dict(zip(columns, levels, strict=True)))
    sizes = out.groupby(list(columns), dropna=False, observed=True).size()
    return int((sizes == 1).sum())


def _click_point(qtbot, chart, i: int) -> None:  # type: ignore[no-untyped-def]
    point = chart._xy(*chart.points[i]).toPoint()
    qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=QPoint(point.x(), point.y()))


def test_find_preview_apply_undo_export_and_deid_run_agree(
    qtbot,
    window: MainWindow,
    tmp_path: Path,
    file_keyring: None,  # noqa: F811
) -> None:  # type: ignore[no-untyped-def]
    window.resize(1280, 820)
    open_demo(qtbot, window)
    s = window.session
    path = s.project_path
    assert path is not None
    # free text redacted, as in test_reproduce (the GUI scans dropped free text, the CLI
    # does not, and their READMEs say so differently)
    assert window.go_to(Step.PATHWAY)
    combo = window.pathway_page.free_text.cellWidget(0, 1)
    assert isinstance(combo, QComboBox)
    combo.setCurrentIndex(combo.findData(FreeTextAction.REDACT.value))
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    page = window.review_page
    page.tabs.setCurrentIndex(RISK_TAB)
    section = page.generalize
    assert s.review.risk.k == 1 and s.project.generalization is None
    assert "No generalization chosen" in section.status.text()

    # Find: the search runs in the background, the candidates are charted
    qtbot.mouseClick(section.find_button, Qt.MouseButton.LeftButton)
    panel = section.panel
    assert panel is not None and section.stack.currentWidget() is panel
    qtbot.waitUntil(lambda: panel.result is not None, timeout=WAIT)
    idle(qtbot, window)

    # the hierarchy editor: race's values grouped into two named groups, saved
    qtbot.mouseClick(panel.hierarchy_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: getattr(section, "editor", None) is not None, timeout=WAIT)
    editor = section.editor
    editor.column.setCurrentText("race")
    races = [editor.table.item(r, 0).text() for r in range(editor.table.rowCount())]
    assert "White" in races and len(races) > 3
    others = [r for r in races if r != "White"]
    editor.select_values(others)
    editor.group_name.setText("Other or not reported")
    qtbot.mouseClick(editor.group_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(editor.saved):
        qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    saved = next((path.parent / "hierarchies").glob("race-*.csv"))
    h = read_arx_csv(saved, column="race")
    assert h.mapping(1) == {
        r: ("White" if r == "White" else "Other or not reported") for r in races
    }
    editor.accept()

    # search again, with the user's race hierarchy. The Find button is greyed while any
    # job runs (a slow machine may still be busy after the editor): wait for it, then
    # for the new result (a click on the greyed button would start nothing)
    qtbot.waitUntil(lambda: panel.find_button.isEnabled(), timeout=WAIT)
    first = panel.result
    qtbot.mouseClick(panel.find_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.result is not first and not window.runner.busy, timeout=WAIT)
    result = panel.result
    assert result.best is not None and result.k == 5
    assert "red dot is the optimum" in panel.summary.text()
    race = result.columns.index("race")
    assert result.heights[race] == 3  # value, the user's group, *
    chart = panel.chart
    assert len(chart.points) == len(result.candidates) >= 2 and chart.best >= 0

    # click a point: the preview follows it (k, lone records, loss)
    other = next(i for i in range(len(chart.points)) if i != chart.best)
    _click_point(qtbot, chart, other)
    picked = result.candidates[other]
    assert panel.chosen == picked and chart.selected == other
    text = panel.figures.text()
    assert f"Rows suppressed: {picked.suppressed:,}" in text
    assert f"k after suppression: {picked.k:,}" in text and "Lone records: " in text
    assert f"Loss: {picked.loss:.3f}" in text
    assert f"Lone records: {_lone(s, picked.levels, result.columns, h):,}." in text
    assert "Other or not reported" not in text + panel.summary.text()  # never a value
    _click_point(qtbot, chart, chart.best)  # back to the optimum
    best = result.best
    levels = dict(zip(result.columns, best.levels, strict=True))

    # Apply: written into the project, the review runs again at the new k
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    wait_review(qtbot, window)
    chosen = s.project.generalization
    assert chosen is not None and {c.name: c.level for c in chosen.columns} == levels
    by_name = {c.name: c for c in chosen.columns}
    assert resolve_path(path, by_name["race"].path) == saved and by_name["race"].sha256
    assert by_name["age"].builtin == "age"
    assert s.review.risk.k >= 5 and s.review.passed and s.dirty
    assert page.figure_labels["k"].text() == f"{s.review.risk.k:,}"
    assert "race level" in section.status.text()
    shot = Path(os.environ.get("DEID_SCREENSHOTS", tmp_path)) / "4-review-generalize.png"
    assert window.grab().save(str(shot))

    # Undo: the previous (no) generalization comes back, and the review with it
    assert section.undo_button.isEnabled()
    qtbot.mouseClick(section.undo_button, Qt.MouseButton.LeftButton)
    wait_review(qtbot, window)
    assert s.project.generalization is None and s.review.risk.k == 1
    assert "No generalization chosen" in section.status.text()

    # Apply again (the preview is still there), then export
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    wait_review(qtbot, window)
    assert s.project.generalization == chosen and s.review.risk.k >= 5
    steps = s.undo_stack.count()
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)  # the same once more
    assert panel.summary.text() == "These levels are already in use."
    assert s.undo_stack.count() == steps and s.review is not None
    out, cw = tmp_path / "gui-release", tmp_path / "gui-crosswalk"
    export_in_window(qtbot, window, out, cw)
    assert not s.dirty and load_project(path).generalization == chosen

    # the saved project, run by the CLI in a fresh process: the same bytes
    out2, cw2 = tmp_path / "cli-release", tmp_path / "cli-crosswalk"
    done = _deid_run(path, out2, cw2, tmp_path / "cli-register.jsonl")
    assert done.returncode == 0, done.stderr
    gui = {p.name: sha(p) for p in out.iterdir() if p.name not in (RECORD_JSON, RECORD_TXT)}
    cli = {p.name: sha(p) for p in out2.iterdir() if p.name not in (RECORD_JSON, RECORD_TXT)}
    assert gui and gui == cli
    readme = next(p for p in out.iterdir() if p.name.lower().startswith("readme"))
    assert "race level" in readme.read_text(encoding="utf-8")


def test_cancel_the_search_leaves_the_project_as_it_was(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    s = window.session
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    section = window.review_page.generalize
    before = s.project
    qtbot.mouseClick(section.find_button, Qt.MouseButton.LeftButton)
    assert window.runner.busy and not section.find_button.isEnabled()
    qtbot.mouseClick(window.progress.cancel_button, Qt.MouseButton.LeftButton)
    idle(qtbot, window)
    panel = section.panel
    assert panel.summary.text() == "The search was cancelled."
    assert panel.result is None and not panel.apply_button.isEnabled()
    assert s.project is before and section.find_button.isEnabled()
