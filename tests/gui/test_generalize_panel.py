"""The "Find the best generalization" panel: run the search off the UI thread, see the
candidates, pick one on the chart, apply it (the chosen levels are emitted)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
from PySide6.QtCore import QPoint, Qt

from deid_desktop.core.risk.hierarchy import read_hierarchy_dir
from deid_desktop.gui.generalize_panel import GeneralizePanel
from deid_desktop.gui.workers import JobRunner
from tests.gui.test_ui_thread import on_ui_thread

ADULT = Path(__file__).resolve().parents[1] / "data" / "adult"
QIS = [
    "age",
    "education",
    "marital-status",
    "native-country",
    "workclass",
    "occupation",
    "race",
    "sex",
]


def test_find_preview_and_apply(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=pd.StringDtype("pyarrow"))
    runner = JobRunner()
    panel = GeneralizePanel(runner)
    qtbot.addWidget(panel)
    panel.resize(980, 560)
    panel.show()
    # no input yet: a plain warning, no search
    qtbot.mouseClick(panel.find_button, Qt.MouseButton.LeftButton)
    assert "quasi-identifiers" in panel.banner.message
    panel.set_input(frame, QIS, 5, read_hierarchy_dir(ADULT, QIS))
    qtbot.mouseClick(panel.find_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.result is not None, timeout=120_000)
    runner.wait(10_000)
    qtbot.waitUntil(lambda: panel.find_button.isEnabled(), timeout=10_000)
    best = panel.result.best
    assert best.levels == (3, 1, 0, 1, 1, 2, 0, 0) and best.suppressed == 1458
    assert "Rows suppressed: 1,458" in panel.figures.text()
    assert panel.levels.item(0, 1).text() == "3 of 4"
    assert "red dot is the optimum" in panel.summary.text()
    for value in ("Bachelors", "United-States", "20-39"):
        assert value not in panel.figures.text() + panel.summary.text()
    shot = Path(os.environ.get("DEID_SCREENSHOTS", tmp_path)) / "generalize_panel.png"
    assert panel.grab().save(str(shot))
    # click another candidate on the chart: the preview follows it
    chart = panel.chart
    other = next(i for i in range(len(chart.points)) if i != chart.best)
    point = chart._xy(*chart.points[other]).toPoint()
    qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=QPoint(point.x(), point.y()))
    assert chart.selected == other and panel.chosen == panel.result.candidates[other]
    with qtbot.waitSignal(panel.applied) as applied:
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert applied.args[0] == dict(zip(QIS, panel.chosen.levels, strict=True))


def test_missing_hierarchy_is_named_before_searching(qtbot) -> None:  # type: ignore[no-untyped-def]
    frame = pd.DataFrame({"shoe": ["40", "41"]}, dtype=pd.StringDtype("pyarrow"))
    panel = GeneralizePanel(JobRunner())
    qtbot.addWidget(panel)
    panel.set_input(frame, ["shoe"])
    qtbot.mouseClick(panel.find_button, Qt.MouseButton.LeftButton)
    assert "No hierarchy for shoe" in panel.banner.message and panel.result is None


def test_lone_records_of_a_large_table_are_counted_in_a_job(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Counting a candidate's lone records goes over every row (~15 ms of the UI thread
    at a million): from 200,000 rows the best's count comes with the search, and a
    clicked candidate's is counted in a job, the line following when it is back."""
    from deid_desktop.gui import generalize_panel

    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=pd.StringDtype("pyarrow"))
    monkeypatch.setattr(generalize_panel, "COUNT_IN_JOB_ROWS", 1)  # adult counts as large
    count = generalize_panel.lone_count  # the real count, for the figures expected
    on_ui = on_ui_thread(monkeypatch, generalize_panel, "lone_count")
    runner = JobRunner()
    panel = GeneralizePanel(runner)
    qtbot.addWidget(panel)
    panel.resize(980, 560)
    panel.show()
    panel.set_input(frame, QIS, 5, read_hierarchy_dir(ADULT, QIS))
    qtbot.mouseClick(panel.find_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.result is not None and not runner.busy, timeout=120_000)
    best = panel.result.best
    assert on_ui == [False]  # the best's count, in the search's job
    assert f"Lone records: {count(panel.prepared, best.levels):,}." in panel.figures.text()

    chart = panel.chart
    other = next(i for i in range(len(chart.points)) if i != chart.best)
    point = chart._xy(*chart.points[other]).toPoint()
    qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=QPoint(point.x(), point.y()))
    levels = panel.result.candidates[other].levels
    assert "Lone records: counting…" in panel.figures.text()
    expected = f"Lone records: {count(panel.prepared, levels):,}."
    qtbot.waitUntil(lambda: expected in panel.figures.text(), timeout=60_000)
    assert on_ui == [False, False]  # the clicked one's, in a job of its own
