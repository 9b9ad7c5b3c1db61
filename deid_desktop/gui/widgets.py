"""Small shared widgets: the plain-words error banner, headings, folder pickers."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyle,
    QWidget,
)

from deid_desktop.core.errors import Cancelled, DeidError


def plain_error(exc: BaseException) -> tuple[str, str]:
    """(message, hint) for a person: never a traceback, never a data value.

    DeidError messages are written by core without data values; anything else is
    an internal error named by its type only.
    """
    if isinstance(exc, DeidError):
        return exc.message, exc.hint
    if isinstance(exc, Cancelled):
        return "Cancelled. Nothing was written.", ""
    if isinstance(exc, MemoryError):
        return (
            "The computer ran out of memory.",
            "Close other programs or work on a smaller extract.",
        )
    if isinstance(exc, PermissionError):
        return (
            "The app was not allowed to read or write a file.",
            "Check that the folder exists and that you may write to it.",
        )
    return (
        f"An unexpected internal error occurred ({type(exc).__name__}). Nothing was written.",
        "Please report it with the step you were on.",
    )


class MessageBanner(QFrame):
    """An inline message (error, warning or information) with an icon; hidden when empty."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.icon = QLabel()
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAccessibleName("Message")
        lay = QHBoxLayout(self)
        lay.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        lay.addWidget(self.text, 1)
        self.setVisible(False)

    def _show(self, pixmap: QStyle.StandardPixmap, text: str) -> None:
        icon = self.style().standardIcon(pixmap)
        self.icon.setPixmap(icon.pixmap(24, 24))
        self.text.setText(text)
        self.setVisible(True)

    def show_error(self, exc: BaseException) -> None:
        message, hint = plain_error(exc)
        self._show(
            QStyle.StandardPixmap.SP_MessageBoxCritical, f"{message}\n{hint}" if hint else message
        )

    def show_error_text(self, text: str) -> None:
        self._show(QStyle.StandardPixmap.SP_MessageBoxCritical, text)

    def show_warning(self, text: str) -> None:
        self._show(QStyle.StandardPixmap.SP_MessageBoxWarning, text)

    def show_info(self, text: str) -> None:
        self._show(QStyle.StandardPixmap.SP_MessageBoxInformation, text)

    def clear(self) -> None:
        self.text.clear()
        self.setVisible(False)

    @property
    def message(self) -> str:
        return "" if self.isHidden() else self.text.text()


def heading(text: str, level: int = 1) -> QLabel:
    label = QLabel(text)
    font = QFont(label.font())
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * (1.5 if level == 1 else 1.15))
    label.setFont(font)
    label.setAccessibleName(text)
    return label


def note(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setForegroundRole(label.foregroundRole())
    return label


def wrap(layout: QHBoxLayout) -> QWidget:
    """A row layout as one widget without margins (for a form's field column)."""
    w = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    w.setLayout(layout)
    return w


class FolderPicker(QWidget):
    """A line edit plus "Choose…" button for a folder."""

    changed = Signal(str)

    def __init__(self, caption: str, accessible: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._caption = caption
        self.edit = QLineEdit()
        self.edit.setAccessibleName(accessible)
        self.edit.setPlaceholderText("No folder chosen")
        self.button = QPushButton("Choose…")
        self.button.setAccessibleName(f"Choose {accessible.lower()}")
        self.button.clicked.connect(self._choose)
        self.edit.textChanged.connect(self.changed)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.edit, 1)
        lay.addWidget(self.button)

    def _choose(self) -> None:
        start = self.edit.text() or str(Path.home())
        path = QFileDialog.getExistingDirectory(self, self._caption, start)
        if path:
            self.edit.setText(path)

    @property
    def path(self) -> Path | None:
        text = self.edit.text().strip()
        return Path(text).expanduser() if text else None

    def set_path(self, path: Path | str | None) -> None:
        self.edit.setText(str(path) if path else "")
