"""What every wizard page shares: the session, the job runner and its readiness."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from deid_desktop.core.steps import Step
from deid_desktop.gui.session import Session
from deid_desktop.gui.workers import JobRunner


class Page(QWidget):
    """A wizard step. ``blocker()`` says in plain words why the user cannot go on."""

    step: Step  # each page sets its own

    @property
    def title(self) -> str:
        return self.step.title

    #: Emitted when readiness may have changed (the sidebar re-reads ``blocker``).
    readinessChanged = Signal()

    def __init__(self, session: Session, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.runner = runner
        self.setAccessibleName(self.title)

    def enter_reason(self) -> str | None:
        """Why this step cannot be opened yet (None = it can)."""
        return None

    def blocker(self) -> str | None:
        """Why the user cannot go to the next step yet (None = can go on)."""
        return None

    def entered(self) -> None:
        """Called when the page becomes the current step."""
