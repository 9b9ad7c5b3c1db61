"""The main window: start screen, the five-step wizard, menus, project files, drag & drop."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from deid_desktop import __version__, buildinfo
from deid_desktop.core.constants import PROJECT_SUFFIX
from deid_desktop.core.steps import Step
from deid_desktop.gui import backend
from deid_desktop.gui.guide import GuideDialog
from deid_desktop.gui.page_scroll import PageScroll
from deid_desktop.gui.pages.base import Page
from deid_desktop.gui.pages.export import ExportPage
from deid_desktop.gui.pages.load import LoadPage
from deid_desktop.gui.pages.pathway import PathwayPage
from deid_desktop.gui.pages.review import ReviewPage
from deid_desktop.gui.pages.tag import TagPage
from deid_desktop.gui.session import Session
from deid_desktop.gui.start_screen import StartScreen
from deid_desktop.gui.widgets import MessageBanner, heading, plain_error
from deid_desktop.gui.workers import JobRunner, ProgressStrip

log = logging.getLogger("deid.gui")

MAX_RECENT = 8
#: the window's minimum size (logical pixels), bounded by the screen's available size
MINIMUM_SIZE = QSize(900, 600)
PROJECT_FILTER = f"deid projects (*{PROJECT_SUFFIX});;All files (*)"
TABLE_SUFFIXES = (".csv", ".txt", ".tsv", ".xlsx")


def demo_folder() -> Path:
    """A writable per-user copy of the shipped demo (the project must be saveable)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("deid-desktop", appauthor=False)) / "demo"


class MainWindow(QMainWindow):
    def __init__(self, settings: QSettings | None = None) -> None:
        super().__init__()
        self.settings = settings or QSettings()
        self.session = Session(self)
        self.runner = JobRunner(self)
        self.setAcceptDrops(True)
        # never larger than the screen (a full-HD screen at 200 % is 960 x 540): what does
        # not fit scrolls (each page sits in a scroll area)
        screen = self.screen().availableGeometry().size()
        self.setMinimumSize(MINIMUM_SIZE.boundedTo(screen))

        self.start = StartScreen()
        self.start.newRequested.connect(self.new_project)
        self.start.openRequested.connect(self.open_dialog)
        self.start.demoRequested.connect(self.open_demo)
        self.start.recentRequested.connect(lambda p: self.open_project(Path(p)))

        self.load_page = LoadPage(self.session, self.runner)
        self.tag_page = TagPage(self.session, self.runner)
        self.pathway_page = PathwayPage(self.session, self.runner)
        self.review_page = ReviewPage(self.session, self.runner)
        self.export_page = ExportPage(self.session, self.runner)
        self.review_page.goToRequested.connect(self.go_to_fix)
        # export saves the project first, so the record names a file that reproduces it
        self.export_page.save_project = self.save
        pages: list[Page] = [
            self.load_page,
            self.tag_page,
            self.pathway_page,
            self.review_page,
            self.export_page,
        ]
        self.pages = sorted(pages, key=lambda p: p.step)  # position = Step value
        assert [p.step for p in self.pages] == list(Step)
        self.steps = QListWidget()
        self.steps.setAccessibleName("Steps")
        self.steps.setMaximumWidth(200)
        for page in self.pages:
            self.steps.addItem(QListWidgetItem(page.step.heading(page.title)))
            page.readinessChanged.connect(self.update_steps)
        # the step names are never cut, however narrow the window (the "▶ " marker too)
        self.steps.setMinimumWidth(
            self.steps.sizeHintForColumn(0)
            + self.steps.fontMetrics().horizontalAdvance("▶ ")
            + 2 * self.steps.frameWidth()
            + 8
        )
        self.steps.currentRowChanged.connect(self._step_clicked)
        self.step_reason = QLabel()
        self.step_reason.setWordWrap(True)
        self.step_reason.setAccessibleName("Why a step is not available")
        self.page_stack = QStackedWidget()
        for page in self.pages:
            self.page_stack.addWidget(PageScroll(page))
        self.back_button = QPushButton("< &Back")
        self.back_button.setAccessibleName("Previous step")
        self.next_button = QPushButton("&Next >")
        self.next_button.setAccessibleName("Next step")
        self.back_button.clicked.connect(lambda: self.go_to(self.current_step - 1))
        self.next_button.clicked.connect(self.next_step)
        self.next_reason = QLabel()
        self.next_reason.setWordWrap(True)
        self.next_reason.setAccessibleName("Why you cannot go on yet")
        self.banner = MessageBanner()

        side = QWidget()
        sl = QVBoxLayout(side)
        sl.addWidget(heading("Steps", 2))
        sl.addWidget(self.steps, 1)
        sl.addWidget(self.step_reason)
        nav = QHBoxLayout()
        nav.addWidget(self.next_reason, 1)
        nav.addWidget(self.back_button)
        nav.addWidget(self.next_button)
        main = QWidget()
        ml = QVBoxLayout(main)
        ml.setContentsMargins(0, 0, 0, 0)
        ml.addWidget(self.banner)
        ml.addWidget(self.page_stack, 1)
        ml.addLayout(nav)
        self.wizard = QWidget()
        wl = QHBoxLayout(self.wizard)
        wl.addWidget(side)
        wl.addWidget(main, 1)

        self.stack = QStackedWidget()
        self.stack.addWidget(self.start)
        self.stack.addWidget(self.wizard)
        self.progress = ProgressStrip(self.runner)
        central = QWidget()
        cl = QVBoxLayout(central)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(self.stack, 1)
        cl.addWidget(self.progress)
        self.setCentralWidget(central)

        self._guide: GuideDialog | None = None
        self._build_menus()
        self.session.dirtyChanged.connect(self._update_title)
        self.session.projectChanged.connect(self._update_title)
        self.session.projectChanged.connect(self.update_steps)
        self.session.extractLoaded.connect(self.update_steps)
        self.session.reviewReady.connect(self.update_steps)
        self.session.reviewInvalidated.connect(self.update_steps)
        self.runner.busyChanged.connect(self._busy_changed)
        self.statusBar().showMessage("Ready")

        self._restore_settings()
        self._refresh_recent()
        self._update_title()
        self.update_steps()

    # -- menus -------------------------------------------------------------------------
    def _action(self, text: str, slot, shortcut=None, name: str = "") -> QAction:  # type: ignore[no-untyped-def]
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        act.triggered.connect(slot)
        act.setObjectName(name or text)
        return act

    def _build_menus(self) -> None:
        sk = QKeySequence.StandardKey
        m = self.menuBar().addMenu("&File")
        self.act_new = self._action("&New Project…", self.new_project, sk.New, "new")
        self.act_open = self._action("&Open Project…", self.open_dialog, sk.Open, "open")
        self.act_demo = self._action("Open &Demo", self.open_demo, None, "demo")
        self.act_save = self._action("&Save", self.save, sk.Save, "save")
        self.act_save_as = self._action("Save &As…", self.save_as, sk.SaveAs, "save_as")
        self.act_close = self._action("&Close Project", self.close_project, sk.Close, "close")
        self.act_quit = self._action("&Quit", self.close, sk.Quit, "quit")
        self.act_quit.setMenuRole(QAction.MenuRole.QuitRole)
        for a in (self.act_new, self.act_open, self.act_demo):
            m.addAction(a)
        self.recent_menu = m.addMenu("Open &Recent")
        m.addSeparator()
        for a in (self.act_save, self.act_save_as):
            m.addAction(a)
        m.addSeparator()
        m.addAction(self.act_close)
        m.addAction(self.act_quit)

        e = self.menuBar().addMenu("&Edit")
        self.act_undo = self.session.undo_stack.createUndoAction(self, "&Undo")
        self.act_undo.setShortcut(QKeySequence(sk.Undo))
        self.act_redo = self.session.undo_stack.createRedoAction(self, "&Redo")
        self.act_redo.setShortcuts([QKeySequence(sk.Redo), QKeySequence("Ctrl+Shift+Z")])
        e.addAction(self.act_undo)
        e.addAction(self.act_redo)

        h = self.menuBar().addMenu("&Help")
        self.act_guide = self._action("&User guide", self.show_guide, "F1", "guide")
        self.act_guide.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        h.addAction(self.act_guide)
        h.addAction(self._action("&About deid-desktop", self._about, None, "about"))

    def show_guide(self) -> GuideDialog:
        """The user guide at the current step's page (F1), or at its start."""
        if self._guide is None:
            self._guide = GuideDialog(self)
        if self.stack.currentWidget() is self.wizard:
            self._guide.open_step(self.current_step)
        else:
            self._guide.open_page("index")
        self._guide.show()
        self._guide.raise_()
        return self._guide

    def _about(self) -> None:
        QMessageBox.about(
            self,
            "About deid-desktop",
            f"deid-desktop {__version__}\nBuild: commit {buildinfo.commit()}\n\n"
            "De-identifies clinical extracts offline, with the record of what was done. "
            "It never connects to a network.",
        )

    # -- settings ----------------------------------------------------------------------
    def _restore_settings(self) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1200, 780)

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent/projects", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value or []]

    def _add_recent(self, path: Path) -> None:
        p = str(path.resolve())
        recent = [p] + [r for r in self.recent_files() if r != p]
        self.settings.setValue("recent/projects", recent[:MAX_RECENT])
        self.settings.setValue("recent/folder", str(path.parent))
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        recent = [r for r in self.recent_files() if Path(r).exists()]
        self.start.set_recent(recent)
        self.recent_menu.clear()
        for r in recent:
            act = self.recent_menu.addAction(Path(r).name)
            act.setToolTip(r)
            act.triggered.connect(lambda _c=False, p=r: self.open_project(Path(p)))
        self.recent_menu.setEnabled(bool(recent))

    def last_folder(self) -> str:
        return str(self.settings.value("recent/folder", str(Path.home())))

    # -- project lifecycle -------------------------------------------------------------
    def maybe_save(self) -> bool:
        """Ask about unsaved changes; False = the user cancelled."""
        if not (self.session.has_project and self.session.dirty):
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            f"Save the changes to {self.session.display_name}?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_project(self, files: list[Path] | None = None) -> None:
        if self.runner.busy or not self.maybe_save():
            return
        self.load_page.last_folder = Path(self.last_folder())
        self.stack.setCurrentWidget(self.wizard)
        self.load_page.start_new(files if isinstance(files, list) else None)
        self.go_to(Step.LOAD)
        self._update_title()

    def open_dialog(self) -> None:
        if self.runner.busy or not self.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(
            self, "Open project", self.last_folder(), PROJECT_FILTER
        )
        if path:
            self.open_project(Path(path), asked=True)

    def open_project(self, path: Path, *, asked: bool = False) -> bool:
        if self.runner.busy or (not asked and not self.maybe_save()):
            return False
        self.banner.clear()
        try:
            project = backend.load_project(path)
        except Exception as exc:
            self._show_error(exc)
            return False
        self.session.open(project, path)
        self._add_recent(path)
        self.stack.setCurrentWidget(self.wizard)
        self.go_to(Step.LOAD)
        self.load_page.load_project_extract()
        self.statusBar().showMessage(f"Opened {path.name}", 5000)
        return True

    def open_demo(self) -> bool:
        if self.runner.busy or not self.maybe_save():
            return False
        try:
            path = backend.install_demo(demo_folder())
        except Exception as exc:
            self._show_error(exc)
            return False
        return self.open_project(path, asked=True)

    def save(self) -> bool:
        if self.session.project is None:
            return False
        if self.session.project_path is None:
            return self.save_as()
        return self._save_to(self.session.project_path)

    def save_as(self) -> bool:
        if self.session.project is None:
            return False
        start = self.session.project_path or self.session.suggested_path
        path, _ = QFileDialog.getSaveFileName(
            self, "Save project as", str(start or self.last_folder()), PROJECT_FILTER
        )
        if not path:
            return False
        p = Path(path)
        if not p.name.endswith(PROJECT_SUFFIX):
            p = p.with_name(p.name.removesuffix(".json") + PROJECT_SUFFIX)
        return self._save_to(p)

    def _save_to(self, path: Path) -> bool:
        assert self.session.project is not None
        try:
            base = self.session.project_path or self.session.suggested_path
            saved = backend.save_project(self.session.project, path, base)
        except Exception as exc:
            self._show_error(exc)
            return False
        self.session.mark_saved(path, saved)
        self._add_recent(path)
        self.statusBar().showMessage(f"Saved {path.name}", 5000)
        return True

    def close_project(self) -> None:
        if self.runner.busy or not self.maybe_save():
            return
        self.session.close()
        self.stack.setCurrentWidget(self.start)
        self._refresh_recent()
        self._update_title()

    def _show_error(self, exc: BaseException) -> None:
        message, hint = plain_error(exc)
        QMessageBox.warning(self, "deid-desktop", f"{message}\n\n{hint}".strip())

    # -- wizard navigation ---------------------------------------------------------------
    @property
    def current_step(self) -> Step:
        return Step(max(self.page_stack.currentIndex(), 0))

    def step_reason_for(self, i: Step, blockers: dict[int, str | None] | None = None) -> str | None:
        """Why step ``i`` cannot be opened: its own reason or a blocker of an earlier step.
        ``blockers`` keeps each page's blocker for the next call (``update_steps`` asks
        for every step: each earlier page's blocker is read once, not once a later step)."""
        if not self.session.has_project and i > 0:
            return "Load the extract and create the project first."
        own = self.pages[i].enter_reason()
        if own:
            return own
        known = {} if blockers is None else blockers
        for j in range(i):
            if j not in known:
                known[j] = self.pages[j].blocker()
            b = known[j]
            if b:
                return f"Finish {Step(j).short} ({Step(j).title}) first: {b}"
        return None

    def go_to(self, step: Step | int) -> bool:
        """Open ``step`` (an int is a sidebar row, i.e. a Step value) if it is available."""
        if step not in list(Step) or self.runner.busy:
            return False
        i = Step(step)
        reason = self.step_reason_for(i)
        if reason and i != Step.LOAD:
            self.step_reason.setText(f"Step {i.number}: {reason}")
            self.update_steps()
            return False
        self.page_stack.setCurrentIndex(i)
        self.pages[i].entered()
        self.update_steps()
        return True

    def go_to_fix(self, step: Step, table: str | None, column: str | None) -> bool:
        """A failed check's "Go to": open its step and select the column to fix there."""
        if not self.go_to(step):
            return False
        if step == Step.TAG:
            self.tag_page.select_column(table, column)
        return True

    def next_step(self) -> None:
        blocker = self.pages[self.current_step].blocker()
        if blocker:
            self.next_reason.setText(blocker)
            return
        self.go_to(self.current_step + 1)

    def _step_clicked(self, row: int) -> None:
        if row != self.current_step and row >= 0 and not self.go_to(row):
            self.steps.blockSignals(True)
            self.steps.setCurrentRow(self.current_step)
            self.steps.blockSignals(False)

    def update_steps(self) -> None:
        reasons: list[str] = []
        busy = self.runner.busy
        blockers: dict[int, str | None] = {}  # each page's, read once for every step
        for i, page in zip(Step, self.pages, strict=True):
            item = self.steps.item(i)
            reason = self.step_reason_for(i, blockers) if i else None
            enabled = reason is None and not busy
            flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
            item.setFlags(flags if enabled or i == self.current_step else Qt.ItemFlag.NoItemFlags)
            item.setToolTip(reason or f"Step {i.number}: {page.title}")
            mark = "▶ " if i == self.current_step else "   "
            item.setText(mark + i.heading(page.title))
            if reason and i > self.current_step and not reasons:
                reasons.append(f"{i.ref} is not available: {reason}")
        self.steps.blockSignals(True)
        self.steps.setCurrentRow(self.current_step)
        self.steps.blockSignals(False)
        self.step_reason.setText(reasons[0] if reasons else "")
        current = self.current_step
        blocker = blockers[current] if current in blockers else self.pages[current].blocker()
        last = self.current_step == max(Step)
        self.next_button.setEnabled(not busy and not last and blocker is None)
        self.back_button.setEnabled(not busy and self.current_step > 0)
        self.next_reason.setText("" if last or not blocker else blocker)

    def _busy_changed(self, busy: bool) -> None:
        for a in (self.act_new, self.act_open, self.act_demo, self.act_close):
            a.setEnabled(not busy)
        self.start.setEnabled(not busy)
        self.update_steps()

    def _update_title(self) -> None:
        if self.session.has_project:
            self.setWindowTitle(f"{self.session.display_name}[*] — deid-desktop")
        else:
            self.setWindowTitle("deid-desktop")
        self.setWindowModified(self.session.dirty)
        has = self.session.has_project
        self.act_save.setEnabled(has)
        self.act_save_as.setEnabled(has)
        self.act_close.setEnabled(has or self.stack.currentWidget() is self.wizard)

    # -- drag & drop -------------------------------------------------------------------
    @staticmethod
    def _dropped(event: QDragEnterEvent | QDropEvent) -> list[Path]:
        md = event.mimeData()
        if not md.hasUrls():
            return []
        return [Path(u.toLocalFile()) for u in md.urls() if u.isLocalFile()]

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        paths = self._dropped(event)
        if paths and all(
            p.name.endswith(PROJECT_SUFFIX) or p.suffix.lower() in TABLE_SUFFIXES for p in paths
        ):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        self.open_paths(self._dropped(event))
        event.acceptProposedAction()

    def open_paths(self, paths: list[Path]) -> None:
        """A project file opens; tables start a new project (first = person table)."""
        projects = [p for p in paths if p.name.endswith(PROJECT_SUFFIX)]
        tables = [p for p in paths if p.suffix.lower() in TABLE_SUFFIXES]
        if projects:
            self.open_project(projects[0])
        elif tables:
            self.new_project(tables)

    # -- closing -----------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.runner.cancel_all()
        self.runner.wait(10_000)
        self.settings.setValue("window/geometry", self.saveGeometry())
        event.accept()
