"""Review → Residual risk: "Find the best generalization", wired to the project.

A bar (the button, the generalization in use, Undo) above a stack: the class-size view
the tab already had, or the search panel (``gui.generalize_panel``). The search runs in
the app's runner on the released person table as the search receives it (built in the
job: ``core.engine.unapplied_person``); Apply writes the chosen levels into
``project.generalization`` as one undo step (Undo puts back the previous choice and k
target) and the review runs again. The hierarchy editor's files are saved beside the
project, in ``hierarchies/``. Core's data modules load on use (no pandas at start).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.model import Generalization, RiskSettings
from deid_desktop.gui import child_job

if TYPE_CHECKING:
    from deid_desktop.core.engine import ReviewResult
    from deid_desktop.gui.generalize_panel import GeneralizePanel
    from deid_desktop.gui.session import Session
    from deid_desktop.gui.workers import JobRunner

UNDO_TEXT = "Apply the generalization"
HIERARCHY_FOLDER = "hierarchies"


class GeneralizationEdit(QUndoCommand):
    """Set the project's generalization and k target; undo puts back the previous ones."""

    def __init__(
        self,
        session: Session,
        before: tuple[Generalization | None, RiskSettings],
        after: tuple[Generalization | None, RiskSettings],
        files: dict[str, Any],
    ) -> None:
        super().__init__(UNDO_TEXT)
        self._session = session
        self._before = before
        self._after = after
        self._files = files  # column -> Hierarchy of the user files the choice names

    def _set(self, state: tuple[Generalization | None, RiskSettings]) -> None:
        s = self._session
        assert s.project is not None
        if self._files and s.extract is not None:  # the release reads them from the extract
            s.extract = replace(s.extract, hierarchies={**s.extract.hierarchies, **self._files})
        project = replace(s.project, generalization=state[0], risk=state[1])
        s._set_project(project, review_stale=True)  # the review runs again

    def redo(self) -> None:
        self._set(self._after)

    def undo(self) -> None:
        self._set(self._before)


def describe(chosen: Generalization | None) -> str:
    """The generalization in use, in one line (levels and counts only)."""
    if chosen is None:
        return "No generalization chosen: columns are released as they are."
    levels = ", ".join(f"{c.name} level {int(c.level or 0)}" for c in chosen.columns)
    return f"In use: {levels}; groups still below k = {chosen.k} left out."


class GeneralizeSection(QWidget):
    """The bar and the stack (``view``: the tab's class-size view) of the risk tab."""

    def __init__(
        self, session: Session, runner: JobRunner, view: QWidget, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.runner = runner
        #: built on first use (loads numpy), or ahead of it after a large review is drawn
        self.panel: GeneralizePanel | None = None
        #: column -> (Hierarchy, file) made in the editor or read with the project
        self.user_hierarchies: dict[str, tuple[Any, Path]] = {}
        self._values: dict[str, list[str]] | None = None  # per QI, for the editor
        #: id of each user hierarchy ever searched with -> (Hierarchy, file)
        self._files: dict[int, tuple[Any, Path]] = {}

        self.find_button = QPushButton("Find the best generalization")
        self.find_button.setAccessibleName("Find the best generalization")
        self.find_button.setToolTip(
            "Search every combination of coarser values for the one that reaches the k "
            "target with the least detail given up."
        )
        self.find_button.clicked.connect(self.find)
        self.toggle_button = QPushButton("Show class sizes")
        self.toggle_button.setAccessibleName("Switch between class sizes and the candidates")
        self.toggle_button.clicked.connect(self._toggle)
        self.toggle_button.setVisible(False)
        self.undo_button = QPushButton("Undo")
        self.undo_button.setAccessibleName("Undo the last applied generalization")
        self.undo_button.setToolTip("Put back the generalization in use before the last Apply.")
        self.undo_button.clicked.connect(self.undo)
        self.undo_button.setEnabled(False)
        session.undo_stack.indexChanged.connect(self._update_undo)
        self.status = QLabel(describe(None))
        self.status.setWordWrap(True)
        self.status.setAccessibleName("Generalization in use")
        self.status.setToolTip(
            "Level 0 releases a column as it is; each level above releases coarser groups."
        )
        self.stack = QStackedWidget()
        self.stack.addWidget(view)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.find_button)
        bar.addWidget(self.status, 1)
        bar.addWidget(self.undo_button)
        bar.addWidget(self.toggle_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.stack, 1)
        runner.busyChanged.connect(lambda busy: self.find_button.setEnabled(not busy))

    # -- the review shown ------------------------------------------------------------------
    def show_review(self, review: ReviewResult) -> None:
        project = self.session.project
        chosen = project.generalization if project else None
        self.status.setText(describe(chosen))
        self._values = None  # the project may have changed: read the values again
        if project is None or chosen is None or self.session.extract is None:
            return
        files = self.session.extract.hierarchies
        where = self.session.project_path
        for col in chosen.columns:  # the project's own files are the user's hierarchies
            if col.path and col.name in files and where is not None:
                from deid_desktop.gui import backend

                known = self.user_hierarchies.get(col.name)
                if known is None:
                    path = backend.resolve_path(where, col.path)
                    self.user_hierarchies[col.name] = (files[col.name], path)

    def _update_undo(self, *_args: object) -> None:
        stack = self.session.undo_stack
        if not (shiboken6.isValid(stack) and shiboken6.isValid(self.undo_button)):
            return  # the window is closing: the stack clears itself as it goes
        self.undo_button.setEnabled(stack.canUndo() and stack.undoText() == UNDO_TEXT)

    def undo(self) -> None:
        if self.session.undo_stack.undoText() == UNDO_TEXT:
            self.session.undo_stack.undo()

    # -- the panel -------------------------------------------------------------------------
    def prepare_panel(self) -> None:
        """Build the search panel now, hidden behind the class sizes, so that Find does
        not build it (its widgets and their first polish held the window ~15 ms at a
        million persons, on top of the search's start). Nothing on screen changes."""
        if self.panel is not None:
            return
        from deid_desktop.gui.generalize_panel import GeneralizePanel

        self.panel = GeneralizePanel(self.runner)
        self.panel.find_button.setText("Search again")
        self.panel.find_button.setAccessibleName("Search again with these settings")
        self.panel.find_button.clicked.disconnect()  # the project as it is now, below
        self.panel.find_button.clicked.connect(self.search_again)
        self.panel.applied.connect(self.apply)
        self.panel.editHierarchies.connect(self.edit_hierarchies)
        # until it is first shown its size counts for nothing in the tab's layout (a
        # stack is as large as its largest page): the tab looks as it did without it
        self._policy = self.panel.sizePolicy()
        self.panel.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.stack.addWidget(self.panel)
        self.panel.ensurePolished()
        for child in self.panel.findChildren(QWidget):
            child.ensurePolished()

    def _panel(self) -> GeneralizePanel:
        self.prepare_panel()
        assert self.panel is not None
        self.panel.setSizePolicy(self._policy)  # shown: its size counts from now on
        self.toggle_button.setVisible(True)
        return self.panel

    def _toggle(self) -> None:
        showing_panel = self.stack.currentWidget() is self.panel
        self.stack.setCurrentIndex(0 if showing_panel else 1)
        self.toggle_button.setText("Show the candidates" if showing_panel else "Show class sizes")

    def show_panel(self) -> GeneralizePanel:
        panel = self._panel()
        self.stack.setCurrentWidget(panel)
        self.toggle_button.setText("Show class sizes")
        return panel

    def find(self) -> None:
        """Open the panel and run the search on the current project, at its k target."""
        s = self.session
        if s.project is None or s.extract is None:
            return
        panel = self.show_panel()
        panel.set_loader(self._loader(), k=s.project.risk.k_target)
        panel.find_best()

    def search_again(self) -> None:
        """The panel's own button: its k, limit and metric; the project and the user's
        hierarchies as they are now."""
        s = self.session
        if s.project is None or s.extract is None or self.panel is None:
            return
        self.panel.set_loader(self._loader(), k=self.panel.k.value())
        self.panel.find_best()

    def _loader(self):  # type: ignore[no-untyped-def]
        """Build the search's input in the job: the unapplied person table, its QIs and
        the user's hierarchies (read now, on the UI thread)."""
        s = self.session
        project, extract = s.project, s.extract
        assert project is not None and extract is not None
        given = {c: h for c, (h, _path) in self.user_hierarchies.items()}
        self._files.update({id(h): (h, path) for h, path in self.user_hierarchies.values()})
        reviewed = reviewed_person(s.review, project)

        def load(progress: Any = None, cancel: Any = None) -> tuple[Any, list[str], dict[str, Any]]:
            from deid_desktop.core import engine
            from deid_desktop.gui import backend

            if reviewed is not None:  # the review on screen built exactly this table
                frame, qis = reviewed
            else:  # the release built again: at a million rows in a child process
                salt = backend.salt_for(project)

                def build(progress: Any, cancel: Any) -> tuple[Any, tuple[str, ...]]:
                    return engine.unapplied_person(
                        project, extract, salt, progress=progress, cancel=cancel
                    )

                rows = child_job.extract_rows(extract)
                frame, qis = child_job.call(build, progress, cancel, rows=rows)
            return frame, list(qis), {c: h for c, h in given.items() if c in qis}

        return load

    def apply(self, levels: dict[str, int]) -> None:
        """Write the chosen levels into the project (one undo step)."""
        from deid_desktop.core import engine
        from deid_desktop.core.risk.builtin_hierarchies import guess_kind

        s = self.session
        panel = self.panel
        if s.project is None or panel is None or panel.result is None:
            return
        result = panel.result
        sources: dict[str, tuple[str, str | Path]] = {}
        files: dict[str, Any] = {}
        for col in levels:  # the hierarchies the result was searched with
            if col in panel.given:
                h, path = self._files[id(panel.given[col])]
                sources[col] = (";", path)
                files[col] = h
            else:
                sources[col] = ("builtin", str(guess_kind(col)))
        try:
            chosen = engine.chosen_generalization(
                self._project_path(),
                levels,
                sources,
                k=result.k,
                max_suppression=result.max_suppression,
                metric=result.metric,
            )
        except Exception as exc:
            panel.banner.show_error(exc)
            return
        before = (s.project.generalization, s.project.risk)
        after = (chosen, replace(s.project.risk, k_target=result.k))
        if after == before:
            panel.summary.setText("These levels are already in use.")
            return
        s.undo_stack.push(GeneralizationEdit(s, before, after, files))
        panel.summary.setText(
            "Applied: the review runs again with these levels. Undo puts back the previous choice."
        )

    def _project_path(self) -> Path:
        s = self.session
        return s.project_path or s.suggested_path or Path.cwd() / "project.deid.json"

    # -- hierarchies -----------------------------------------------------------------------
    def hierarchy_folder(self) -> Path | None:
        s = self.session
        where = s.project_path or s.suggested_path
        return None if where is None else Path(where).absolute().parent / HIERARCHY_FOLDER

    def edit_hierarchies(self) -> None:
        """Open the editor on the counted columns' values (read in a job if needed)."""
        if self._values is not None:
            self._open_editor(self._values)
            return
        s = self.session
        if s.project is None or s.extract is None:
            return
        load = self._loader()

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            frame, qis, _given = load(progress, cancel)
            return _distinct(frame, qis)

        self.runner.run(job, name="hierarchy values", on_success=self._open_editor)

    def _open_editor(self, values: dict[str, list[str]]) -> None:
        from deid_desktop.gui.hierarchy_editor import HierarchyEditor

        self._values = values  # read once (in a job) for the editor, not for each search
        current = {c: h for c, (h, _p) in self.user_hierarchies.items()}
        self.editor = HierarchyEditor(values, current, self.hierarchy_folder(), self)
        self.editor.saved.connect(self._saved)
        self.editor.show()

    def _saved(self, column: str, hierarchy: Any, path: Path) -> None:
        self.user_hierarchies[column] = (hierarchy, Path(path))


def reviewed_person(
    review: ReviewResult | None, project: Any
) -> tuple[Any, tuple[str, ...]] | None:
    """The review's released person table and its quasi-identifiers, when they are what
    the search receives (``engine.unapplied_person``: no generalization chosen, no
    "suppress below k") for this very project; None: the search builds it (at a million
    persons, the whole release again: ~30 s and hundreds of MB)."""
    if review is None or review.project != project or project.generalization is not None:
        return None
    if project.risk.suppress_below_k:
        return None
    frame = review.release.tables.get(project.person_table.name)
    return None if frame is None else (frame, tuple(review.quasi_identifiers))


#: Built-in kinds whose columns are numbers, coarsened in bands (not grouped by hand)
_BANDED = frozenset({"age", "year", "date"})


def _distinct(frame: Any, columns: Any) -> dict[str, list[str]]:
    """Each categorical column's distinct non-missing values (for the editor; never
    logged). Ages, years and dates are left out: their built-ins band them."""
    from deid_desktop.core.risk.builtin_hierarchies import guess_kind

    return {
        c: [str(v) for v in frame[c].dropna().unique()]
        for c in columns
        if guess_kind(c) not in _BANDED
    }
