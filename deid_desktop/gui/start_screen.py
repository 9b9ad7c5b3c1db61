"""The start screen: new project, open project, the demo, and the recent projects."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.gui.widgets import heading, note


class StartScreen(QWidget):
    newRequested = Signal()
    openRequested = Signal()
    demoRequested = Signal()
    recentRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.new_button = QPushButton("&New project…")
        self.new_button.setAccessibleName("New project")
        self.new_button.setToolTip("Start from a person table (CSV or Excel).")
        self.open_button = QPushButton("&Open project…")
        self.open_button.setAccessibleName("Open project")
        self.demo_button = QPushButton("Open &demo")
        self.demo_button.setAccessibleName("Open the demo project")
        self.demo_button.setToolTip("A synthetic heart-failure trial extract to try every step.")
        for b in (self.new_button, self.open_button, self.demo_button):
            b.setMinimumHeight(b.sizeHint().height() * 2)
            b.setMinimumWidth(180)
        self.new_button.clicked.connect(self.newRequested)
        self.open_button.clicked.connect(self.openRequested)
        self.demo_button.clicked.connect(self.demoRequested)
        self.recent = QListWidget()
        self.recent.setAccessibleName("Recent projects")
        self.recent.itemActivated.connect(
            lambda it: self.recentRequested.emit(it.data(Qt.ItemDataRole.UserRole))
        )
        self.no_recent = QLabel("No recent projects.")

        buttons = QHBoxLayout()
        buttons.addWidget(self.new_button)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.demo_button)
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(40, 30, 40, 30)
        lay.addWidget(heading("deid-desktop"))
        intro = note(
            "Turn a clinical extract into a release that can leave the building, with a "
            "held-back crosswalk and a record of what was done. Everything stays on this "
            "computer. You can also drag a CSV/XLSX file or a project file onto this window."
        )
        # A paragraph stretched over a wide window is hard to read: keep it to ~90 characters.
        intro.setMaximumWidth(intro.fontMetrics().averageCharWidth() * 90)
        lay.addWidget(intro)
        lay.addSpacing(12)
        lay.addLayout(buttons)
        lay.addSpacing(16)
        lay.addWidget(heading("Recent projects", 2))
        lay.addWidget(self.no_recent)
        lay.addWidget(self.recent, 1)
        self._filler = lay.addStretch(1)

    def set_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        for p in paths:
            item = QListWidgetItem(f"{Path(p).name}    —    {Path(p).parent}")
            item.setData(Qt.ItemDataRole.UserRole, p)
            item.setToolTip(p)
            self.recent.addItem(item)
        self.recent.setVisible(bool(paths))
        self.no_recent.setVisible(not paths)
        lay = self.layout()
        assert isinstance(lay, QVBoxLayout)
        lay.setStretch(lay.count() - 1, 0 if paths else 1)
