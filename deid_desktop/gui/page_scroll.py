"""A wizard page in a scroll area that scrolls only when the window is smaller than the
page's minimum (the minimum window size, 200 % scaling)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


class PageScroll(QScrollArea):
    """A page in a scroll area: in a window smaller than the page needs (its minimum
    size; 200 % scaling) the user scrolls, instead of panels being squeezed and cut.

    The page fills the view and shrinks down to its minimum size, not only to its
    preferred height (a resizable QScrollArea keeps a page with wrapped text at its
    preferred height, so it would scroll long before anything needs it)."""

    def __init__(self, page: QWidget) -> None:
        super().__init__()
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # not a Tab stop: its controls are
        self._stale = True  # the page changed while hidden: fit it when shown
        self.setWidget(page)
        page.installEventFilter(self)

    def fit(self) -> None:
        """Size the page to the view, never below its minimum at this width. Only while
        shown: a hidden page (another step) changes as the review or the load fills it,
        and its minimum height for the width lays out every wrapped label of it (~5 ms at
        a time on the Review page); it is fitted once when it is shown."""
        if not self.isVisible():
            self._stale = True
            return
        self._stale = False
        page = self.widget()
        view = self.viewport().size()
        least = page.minimumSizeHint().expandedTo(page.minimumSize())
        width = max(view.width(), least.width())
        layout = page.layout()
        if layout is not None and layout.hasHeightForWidth():  # wrapped text, at this width
            least.setHeight(max(least.height(), layout.totalMinimumHeightForWidth(width)))
        page.resize(view.expandedTo(least))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.fit()
        return super().eventFilter(watched, event)
