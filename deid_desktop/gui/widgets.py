"""Small shared widgets: the plain-words error banner, headings, folder pickers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.errors import Cancelled, DeidError

if TYPE_CHECKING:
    from deid_desktop.core.risk.verdict import Verdict


def desktop_hint(hint: str) -> str:
    """A hint that gives both front ends' ways ("... Command line: X. Desktop app: Y.")
    without the command-line syntax: the window shows what to do in the window."""
    head, cli, rest = hint.partition("Command line:")
    if not cli:
        return hint
    _syntax, desktop, app = rest.partition("Desktop app:")
    return (
        head.strip() + (" " + app.strip()[:1].upper() + app.strip()[1:] if desktop else "")
    ).strip()


def plain_error(exc: BaseException) -> tuple[str, str]:
    """(message, hint) for a person: never a traceback, never a data value.

    DeidError messages are written by core without data values; anything else is
    an internal error named by its type only.
    """
    if isinstance(exc, DeidError):
        return exc.message, desktop_hint(exc.hint)
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


#: background and border of the verdict banner per colour (text stays dark: readable on
#: each, and the level is also said in words, never by colour alone)
VERDICT_COLOURS = {
    "green": ("#e3f4e1", "#2e7d32"),
    "amber": ("#fff4d6", "#b26a00"),
    "red": ("#fde4e1", "#c62828"),
}
LEVEL_WORDS = {
    "low": "Low residual risk",
    "moderate": "Moderate residual risk",
    "high": "High residual risk",
    "blocked": "Blocked",
}


class VerdictBanner(QFrame):
    """The review's verdict (core ``Verdict``): a coloured box with the level in words, the
    headline, the paragraph, the access model and the next steps. Hidden when empty."""

    def __init__(self, parent: QWidget | None = None, *, compact: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("verdict")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Risk verdict")
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(self.title.font())
        font.setBold(True)
        self.title.setFont(font)
        self.title.setAccessibleName("Verdict headline")
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setAccessibleName("Verdict explanation")
        self.body.setVisible(not compact)
        self.access = QLabel()
        self.access.setWordWrap(True)
        self.access.setTextFormat(Qt.TextFormat.PlainText)
        self.access.setAccessibleName("Access model that fits")
        self.steps = QLabel()
        self.steps.setWordWrap(True)
        self.steps.setTextFormat(Qt.TextFormat.PlainText)
        self.steps.setAccessibleName("What to do next")
        self.action = QPushButton()
        self.action.setAccessibleName("Verdict: what to do next")
        self.action.setVisible(False)
        lay = QVBoxLayout(self)
        lay.addWidget(self.title)
        lay.addWidget(self.body)
        lay.addWidget(self.access)
        row = QHBoxLayout()
        row.addWidget(self.steps, 1)
        row.addWidget(self.action, 0, Qt.AlignmentFlag.AlignBottom)
        lay.addLayout(row)
        self.colour = ""
        self.setVisible(False)

    def show_verdict(self, verdict: Verdict | None, extra: str = "") -> None:
        if verdict is None:
            self.clear()
            return
        self.colour = verdict.colour
        bg, border = VERDICT_COLOURS[verdict.colour]
        self.setStyleSheet(
            f"QFrame#verdict {{ background: {bg}; border: 2px solid {border}; "
            "border-radius: 4px; } QFrame#verdict QLabel { color: #1a1a1a; }"
        )
        self.title.setText(f"{LEVEL_WORDS[str(verdict.level)]}. {verdict.headline}")
        self.body.setText(verdict.paragraph + (f"\n{extra}" if extra else ""))
        self.access.setText(f"Access model that fits: {verdict.access_model}.")
        self.access.setVisible(self.body.isHidden())  # the paragraph already says it
        steps = "\n".join(f"• {s}" for s in verdict.next_steps)
        self.steps.setText(f"Next:\n{steps}" if steps else "")
        self.steps.setVisible(bool(steps))
        self.action.setVisible(
            bool(steps) and bool(self.action.text()) and str(verdict.level) != "blocked"
        )
        self.setVisible(True)

    def clear(self) -> None:
        self.colour = ""
        self.title.clear()
        self.setVisible(False)

    @property
    def headline(self) -> str:
        return "" if self.isHidden() else self.title.text()
