"""The whole wizard with the keyboard only: from the start screen (open the demo) to a
written release, with Tab, Space, Return, Alt+letter mnemonics and Ctrl shortcuts - no
mouse click, no call into the window's code."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from deid_desktop.core.steps import Step
from deid_desktop.gui.main_window import MainWindow
from tests.gui.test_flow import WAIT, idle

pytestmark = pytest.mark.slow
ALT = Qt.KeyboardModifier.AltModifier
CTRL = Qt.KeyboardModifier.ControlModifier


def focused() -> QWidget | None:
    return QApplication.focusWidget()


def alt(window: MainWindow, key: Qt.Key) -> None:
    """Press Alt+key where the focus is, as a user does (a button's mnemonic presses it
    with a short animation: let it finish)."""
    QTest.keyClick(focused() or window, key, ALT)
    QTest.qWait(250)


def tab_to(target: QWidget, most: int = 60) -> int:
    """Press Tab until ``target`` has the focus (it must be a Tab stop); the presses."""
    for presses in range(most):
        if focused() is target:
            return presses
        QTest.keyClick(focused(), Qt.Key.Key_Tab)
    raise AssertionError(f"Tab never reaches {target.accessibleName() or target}")


def type_into(window: MainWindow, key: Qt.Key, text: str) -> QWidget:
    """Alt+key (a label's mnemonic) focuses its field; select all and type ``text``."""
    alt(window, key)
    field = focused()
    assert field is not None
    QTest.keyClick(field, Qt.Key.Key_A, CTRL)
    QTest.keyClicks(field, text)
    return field


def test_the_wizard_from_load_to_export_with_the_keyboard_only(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    window.activateWindow()
    qtbot.waitActive(window)
    s = window.session
    start = window.start

    # the start screen: the focus starts on New; Tab moves to Open, then Open demo;
    # Space presses the button
    assert focused() is start.new_button
    assert tab_to(start.demo_button) == 2
    QTest.keyClick(focused(), Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: s.extract is not None, timeout=WAIT)
    idle(qtbot, window)
    assert window.current_step == Step.LOAD

    alt(window, Qt.Key.Key_N)  # Next >
    assert window.current_step == Step.TAG
    alt(window, Qt.Key.Key_A)  # Accept all suggestions
    assert all(c.cls is not None for t in s.project.tables for c in t.columns)
    QTest.keyClick(focused(), Qt.Key.Key_Z, CTRL)  # undo, then redo: Ctrl+Shift+Z
    QTest.keyClick(focused(), Qt.Key.Key_Z, CTRL | Qt.KeyboardModifier.ShiftModifier)

    alt(window, Qt.Key.Key_N)
    assert window.current_step == Step.PATHWAY
    alt(window, Qt.Key.Key_N)
    assert window.current_step == Step.REVIEW
    qtbot.waitUntil(lambda: s.review is not None, timeout=WAIT)
    idle(qtbot, window)
    assert s.review.passed

    # the review's tabs: Tab reaches their bar, then Ctrl+Tab goes to the next tab
    tabs = window.review_page.tabs
    tab_to(tabs.tabBar())
    QTest.keyClick(focused(), Qt.Key.Key_Tab, CTRL)
    assert tabs.currentIndex() == 1
    QTest.keyClick(focused(), Qt.Key.Key_Tab, CTRL)
    assert tabs.currentIndex() == 2
    alt(window, Qt.Key.Key_X)  # Next hit
    alt(window, Qt.Key.Key_N)
    assert window.current_step == Step.EXPORT

    page = window.export_page
    out, cw = tmp_path / "release", tmp_path / "crosswalk"
    assert type_into(window, Qt.Key.Key_R, str(out)) is page.release_dir.edit
    assert type_into(window, Qt.Key.Key_W, str(cw)) is page.crosswalk_dir.edit
    assert type_into(window, Qt.Key.Key_P, "Keyboard test") is page.purpose
    QTest.keyClick(focused(), Qt.Key.Key_Tab)  # Tab goes on to the recipient
    assert focused() is page.recipient
    QTest.keyClicks(focused(), "Biostatistics core")
    QTest.keyClick(focused(), Qt.Key.Key_Return)
    assert page.release_dir.path == out and page.crosswalk_dir.path == cw
    assert page.export_button.isEnabled(), page.export_reason.text()
    alt(window, Qt.Key.Key_T)  # Export
    qtbot.waitUntil(lambda: s.export_record is not None, timeout=WAIT)
    idle(qtbot, window)
    assert (out / "export_record.json").is_file()
    assert s.project.export.purpose == "Keyboard test"
    assert s.project.export.recipient == "Biostatistics core"
