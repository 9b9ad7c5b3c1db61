"""Help -> User guide: an offline page per wizard step and the rules the app applies
(docs/RULES.md, with its glossary). F1 opens the current step's page.

The pages are Markdown shipped in resources/guide/; the rules are read from docs/RULES.md
(beside resources/ in a checkout and in the PyInstaller bundle, see build.spec).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QListWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.resources import resources_dir
from deid_desktop.core.steps import Step

#: (page id, title) in the order the guide lists them
PAGES: tuple[tuple[str, str], ...] = (
    ("index", "Start here"),
    *((step.name.lower(), step.heading(step.title)) for step in Step),
    ("rules", "Rules and glossary"),
)


def page_path(page: str) -> Path:
    if page == "rules":
        return resources_dir().parent / "docs" / "RULES.md"
    return resources_dir() / "guide" / f"{page}.md"


def page_text(page: str) -> str:
    path = page_path(page)
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return f"# Missing page\n\nThis copy of the app has no {path.name}."


class GuideDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("deid-desktop user guide")
        self.setAccessibleName("User guide")
        self.resize(900, 640)
        self.pages = QListWidget()
        self.pages.setAccessibleName("Guide pages")
        self.pages.addItems([title for _id, title in PAGES])
        self.pages.setMaximumWidth(200)
        self.text = QTextBrowser()
        self.text.setAccessibleName("Guide page")
        self.text.setOpenExternalLinks(False)  # offline: no link leaves the app
        self.pages.currentRowChanged.connect(self._show)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setAccessibleName(
            "Close the user guide"
        )
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.pages)
        row.addWidget(self.text, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(row, 1)
        lay.addWidget(buttons)
        self.open_page("index")

    @property
    def current_page(self) -> str:
        return PAGES[max(self.pages.currentRow(), 0)][0]

    def open_page(self, page: str) -> None:
        ids = [p for p, _t in PAGES]
        self.pages.setCurrentRow(ids.index(page) if page in ids else 0)
        self._show(self.pages.currentRow())

    def open_step(self, step: Step) -> None:
        self.open_page(step.name.lower())

    def _show(self, row: int) -> None:
        if 0 <= row < len(PAGES):
            self.text.setMarkdown(page_text(PAGES[row][0]))
