"""Layout and accessibility on every screen of the wizard: every control has an
accessible name (or a label that names it), and no text is cut at the window's minimum
size, at 100 % and at 200 % scaling (a full-HD screen at 200 % is 960 x 540)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QPushButton

from deid_desktop.gui.main_window import MainWindow
from tests.gui.probe import clipped_text, unnamed_controls, walk
from tests.gui.test_flow import WAIT

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _wait(qtbot):  # type: ignore[no-untyped-def]
    return lambda until: qtbot.waitUntil(until, timeout=WAIT)


def test_the_probe_sees_a_missing_name_and_cut_text(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The probes themselves: an unnamed line edit, and a label narrower than its text."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    w = QWidget()
    qtbot.addWidget(w)
    lay = QVBoxLayout(w)
    edit, label = QLineEdit(), QLabel("A label far wider than the window it sits in")
    lay.addWidget(edit)
    lay.addWidget(label)
    w.setFixedWidth(80)
    w.show()
    qtbot.waitExposed(w)
    assert any("QLineEdit" in m for m in unnamed_controls(w))
    assert any("A label far wider" in m for m in clipped_text(w))
    edit.setAccessibleName("Purpose")
    label.setText("Short")
    assert unnamed_controls(w) == [] and clipped_text(w) == []


def test_every_control_on_every_screen_has_an_accessible_name(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    missing = {}
    for screen in walk(window, _wait(qtbot)):
        qtbot.wait(20)
        found = unnamed_controls(window)
        if found:
            missing[screen] = found
        if screen == "review: Free text":  # the sample review dialog (modal)
            seen: list[list[str]] = []

            def inspect(seen: list[list[str]] = seen) -> None:
                dialog = QApplication.activeModalWidget()
                assert dialog is not None
                seen.append(unnamed_controls(dialog))
                dialog.close()

            QTimer.singleShot(300, inspect)
            window.review_page.text.findChild(QPushButton, "sample_review").click()
            assert len(seen) == 1
            if seen[0]:
                missing["sample review"] = seen[0]
    guide = window.show_guide()
    qtbot.waitExposed(guide)
    if unnamed_controls(guide):
        missing["user guide"] = unnamed_controls(guide)
    assert missing == {}


def test_no_text_is_cut_at_the_minimum_window_size(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.resize(window.minimumSize())
    qtbot.waitUntil(lambda: window.size() == window.minimumSize())
    cut = {}
    for screen in walk(window, _wait(qtbot)):
        qtbot.wait(50)
        found = clipped_text(window)
        if found:
            cut[screen] = found
    assert cut == {}


def test_at_200_percent_the_window_fits_a_full_hd_screen_and_no_text_is_cut(
    tmp_path: Path,
) -> None:
    """A separate process with QT_SCALE_FACTOR=2 on a 1920 x 1080 offscreen screen."""
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [
        {"name": "full-hd", "x": 0, "y": 0, "width": 1920, "height": 1080,
         "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1},
    ]}))  # fmt: skip
    env = dict(os.environ, QT_SCALE_FACTOR="2", QT_QPA_PLATFORM=f"offscreen:configfile={config}")
    done = subprocess.run(
        [sys.executable, "-m", "tests.gui.probe"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["ratio"] == 2.0 and out["screen"] == [960, 540]
    assert out["minimum"][0] <= 960 and out["minimum"][1] <= 540  # the window fits
    assert out["size"] == out["minimum"]
    assert len(out["screens"]) >= 8  # start, five steps, the review's tabs
    assert {k: v for k, v in out["screens"].items() if v} == {}
