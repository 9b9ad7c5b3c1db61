"""The Review page's check details in words (``detail_text``) and its failed checks in
plain words: each one's sentence in full (wrapped,
never cut off) and a "Go to" button that opens the step and the column to fix."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from deid_desktop.core.verify import CheckOutcome
    from deid_desktop.core.verify.plain import PlainFailure


class FailurePanel(QGroupBox):
    #: the step, then the table and column to select there
    goToRequested = Signal(object, object, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("What failed and how to fix it", parent)
        self.setAccessibleName("Failed checks in plain words")
        self.rows: list[tuple[PlainFailure, QLabel, QPushButton]] = []
        self._layout = QVBoxLayout(self)
        self.setVisible(False)

    def _clear(self) -> None:
        for _f, label, button in self.rows:
            label.deleteLater()
            button.deleteLater()
        while self._layout.count():
            self._layout.takeAt(0)
        self.rows = []

    def show_failures(self, failed: list[CheckOutcome]) -> None:
        from deid_desktop.core.verify.plain import plain_failure  # pandas: load on use

        self._clear()
        for o in failed:
            f = plain_failure(o)
            label = QLabel(f.sentence)
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setAccessibleName(f"Failed: {o.check.name}")
            where = f" and {f.table}.{f.column}" if f.column else ""
            button = QPushButton(f"Go to {f.step.short}")
            button.setAccessibleName(f"Go to {f.step.short}{where} to fix: {o.check.name}")
            button.clicked.connect(
                lambda _c=False, f=f: self.goToRequested.emit(f.step, f.table, f.column)
            )
            row = QHBoxLayout()
            row.addWidget(label, 1)
            row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            self._layout.addLayout(row)
            self.rows.append((f, label, button))
        self.setVisible(bool(failed))


def detail_text(detail: Mapping[str, object] | None) -> str:
    """A check's detail (counts and column names from core, never values) in one line."""
    if not detail:
        return ""
    if not isinstance(detail, dict):
        return str(detail)
    parts: list[str] = []
    for key, value in detail.items():
        if value in ({}, [], (), None, ""):
            continue
        label = str(key).replace("_", " ")
        if isinstance(value, dict):
            inner = ", ".join(
                f"{k} {detail_text(v) if isinstance(v, dict) else v}" for k, v in value.items()
            )
            parts.append(f"{label}: {inner}")
        elif isinstance(value, list | tuple):
            parts.append(f"{label}: {', '.join(str(v) for v in value)}")
        else:
            parts.append(f"{label}: {value}")
    return "; ".join(parts)
