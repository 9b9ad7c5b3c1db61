"""Guard against a Qt-binding release that breaks the app over a long session.

PySide6 6.12.0 on Python 3.11 drops one reference to ``None`` on every call of a
method returning nothing (``setText``, ``processEvents``...). ``None`` is not immortal
before Python 3.12, so after some tens of thousands of such calls the interpreter
aborts with "none_dealloc": the app dies mid-session and unsaved work is lost. The
pinned version must not do that.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QLabel


def test_calling_qt_methods_does_not_eat_references_to_none(qtbot) -> None:  # type: ignore[no-untyped-def]
    label = QLabel()
    qtbot.addWidget(label)
    calls = 2_000
    before = sys.getrefcount(None)
    for i in range(calls):
        label.setText(str(i))
        label.setEnabled(bool(i % 2))
    lost = before - sys.getrefcount(None)
    assert lost < calls // 2, f"{lost} references to None lost in {2 * calls} Qt calls"
