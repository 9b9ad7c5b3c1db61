"""The one object the pages share: the project, its path, the loaded extract, the review.

The Session holds state, not rules: every decision is made by core. Pages observe it
through signals. Project edits go through ``apply`` (undoable for tag changes) so the
dirty flag, the stale review and the undo stack stay consistent.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from deid_desktop.core.model import ColumnTag, Extract, LoadedTable, Project, TableSpec

if TYPE_CHECKING:
    from collections.abc import Callable

    from deid_desktop.core.engine import ReviewResult
    from deid_desktop.core.export import ExportRecord
    from deid_desktop.core.scan.sample import SampleReview


class _TagEdit(QUndoCommand):
    """Change some columns' tags (and a table's person key when another one is picked);
    undo puts back exactly those tags and keys, nothing else."""

    def __init__(self, session: Session, changes: list[_SpecChange], text: str) -> None:
        super().__init__(text)
        self._session = session
        self._changes = changes

    def _apply(self, new: bool) -> None:
        project = self._session.project
        assert project is not None
        for change in self._changes:
            spec = project.table(change.table)
            for old_tag, new_tag in change.tags:
                spec = spec.with_column(new_tag if new else old_tag)
            spec = replace(spec, key=change.new_key if new else change.old_key)
            project = project.with_table(spec)
        self._session._set_project(project, review_stale=True)

    def redo(self) -> None:
        self._apply(True)

    def undo(self) -> None:
        self._apply(False)


class _SpecChange(NamedTuple):
    table: str
    tags: list[tuple[ColumnTag, ColumnTag]]  # (old, new)
    old_key: str
    new_key: str

    @classmethod
    def of(cls, old: TableSpec, new: TableSpec) -> _SpecChange:
        tags = [(a, b) for a, b in zip(old.columns, new.columns, strict=True) if a != b]
        return cls(old.name, tags, old.key, new.key)


#: From this many rows (all tables) what a page redraws on a signal it is not showing
#: waits for its own turn of the event loop (``on_own_turn``).
LARGE_ROWS = 200_000


def on_own_turn(session: Session, receiver: QObject, fn: Callable[[], None]) -> Callable[..., None]:
    """A slot for ``fn``: at once for a small extract; for a large one on a turn of the
    event loop of its own (``Session.later``), so that the pages a signal redraws do not
    all hold the window in one callback (each is some 5-20 ms at a million persons)."""

    def slot(*_args: object) -> None:
        if session.large():
            session.later(receiver, fn)
        else:
            fn()

    return slot


class Session(QObject):
    projectChanged = Signal()
    projectOpened = Signal()
    extractLoaded = Signal()
    reviewReady = Signal()
    #: the review on screen gained the intruder test's figures (its verdict too); the
    #: checks, risk and notes shown are unchanged, so only what reads them redraws
    intruderReady = Signal()
    reviewInvalidated = Signal()
    exportDone = Signal(object)
    dirtyChanged = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.project_path: Path | None = None  # None = never saved
        self.suggested_path: Path | None = None  # where an unsaved project's paths point from
        self.extract: Extract | None = None
        self.loaded: list[LoadedTable] = []  # tables read for a new project
        self.suggestions: dict | None = None  # (table, column) -> suggested ColumnTag
        self.review: ReviewResult | None = None
        self.export_record: ExportRecord | None = None
        self.sample_review: SampleReview | None = None  # the reviewer's sample of notes
        #: the crosswalk folder chosen on the Export step: the project word list lives there
        self.crosswalk_dir: Path | None = None
        #: the folder whose word list the current review's scan used
        self.review_word_folder: Path | None = None
        self.dirty = False
        self._edited = False  # a non-undoable edit since the last save
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        #: pieces of work queued by ``later``, one per turn of the event loop
        self._turns: deque[tuple[QObject, Callable[[], None]]] = deque()

    # -- work spread over turns of the event loop ---------------------------------------
    def later(self, receiver: QObject, fn: Callable[[], None]) -> None:
        """Run ``fn`` on a later turn of the event loop, one queued piece per turn (the
        window repaints and answers between two). Zero-timeout timers posted together
        run back to back in one pass of Qt's posted events: this queue posts the next
        piece only once the previous one ran. Dropped if ``receiver`` is deleted first."""
        self._turns.append((receiver, fn))
        if len(self._turns) == 1:
            QTimer.singleShot(0, self, self._next_turn)

    def now_or_later(self, receiver: QObject, fn: Callable[[], None], later: bool) -> None:
        """``fn()`` at once, or on a turn of its own (``later``) when ``later``."""
        if later:
            self.later(receiver, fn)
        else:
            fn()

    def _next_turn(self) -> None:
        import shiboken6

        receiver, fn = self._turns.popleft()
        try:
            if shiboken6.isValid(receiver):
                fn()
        finally:
            if self._turns:
                QTimer.singleShot(0, self, self._next_turn)

    # -- project lifecycle -------------------------------------------------------------
    def large(self) -> bool:
        """Whether the loaded extract has ``LARGE_ROWS`` rows or more."""
        extract = self.extract
        return extract is not None and sum(len(t.frame) for t in extract.tables) >= LARGE_ROWS

    @property
    def has_project(self) -> bool:
        return self.project is not None

    @property
    def display_name(self) -> str:
        if self.project_path is not None:
            return self.project_path.name
        if self.project is not None and self.project.name:
            return self.project.name
        return "Untitled"

    def open(self, project: Project, path: Path | None, *, dirty: bool = False) -> None:
        """Start working on ``project`` (new or opened); forgets any previous state."""
        self.project = project
        self.project_path = path
        self.suggested_path = path
        self.extract = None
        self.review = None
        self.export_record = None
        self.crosswalk_dir = None
        self.review_word_folder = None
        self.undo_stack.clear()
        self._set_dirty(False)
        self._edited = dirty
        self._set_dirty(dirty)
        self.projectOpened.emit()
        self.projectChanged.emit()

    def close(self) -> None:
        self.project = None
        self.project_path = None
        self.suggested_path = None
        self.extract = None
        self.loaded = []
        self.review = None
        self.export_record = None
        self.crosswalk_dir = None
        self.review_word_folder = None
        self.undo_stack.clear()
        self._set_dirty(False)
        self.projectOpened.emit()
        self.projectChanged.emit()

    def mark_saved(self, path: Path, project: Project | None = None) -> None:
        self.project_path = path
        self.suggested_path = path
        if project is not None:
            self.project = project
        self.undo_stack.setClean()
        self._set_dirty(False)
        self.projectChanged.emit()

    # -- edits -------------------------------------------------------------------------
    def set_tag(self, table: str, tag: ColumnTag, text: str | None = None) -> None:
        """Change one column's tag (undoable)."""
        self.set_tags([(table, tag)], text or f"Change tag of {tag.name}")

    def set_tags(self, changes: list[tuple[str, ColumnTag]], text: str) -> None:
        """Change several tags as one undo step, under core's re-tag rule
        (``core.tagging.retag.apply_tag``: raises ``UsageError``, nothing changed)."""
        from deid_desktop.core.tagging.retag import apply_tag  # pandas: load on use

        assert self.project is not None
        before = self.project
        after = before
        for table, tag in changes:
            spec = after.table(table)
            if spec.column(tag.name) != tag:
                after = after.with_table(apply_tag(spec, tag))
        edits = [
            _SpecChange.of(old, new)
            for old, new in zip(before.tables, after.tables, strict=True)
            if old != new
        ]
        if edits:
            self.undo_stack.push(_TagEdit(self, edits, text))

    def update(self, review_stale: bool = True, **changes: object) -> None:
        """Replace top-level project fields (pathway, options, risk, export meta)."""
        assert self.project is not None
        new = replace(self.project, **changes)
        if new != self.project:
            self._set_project(new, review_stale=review_stale)
            self._edited = True
            self._set_dirty(True)

    def replace_project(self, project: Project, *, review_stale: bool = True) -> None:
        """A project returned by core (e.g. a re-pointed table); not an undo step."""
        if project != self.project:
            self._set_project(project, review_stale=review_stale)
            self._edited = True
            self._set_dirty(True)

    def _set_project(self, project: Project, *, review_stale: bool) -> None:
        self.project = project
        if review_stale and self.review is not None:
            self.review = None
            self.reviewInvalidated.emit()
        self.projectChanged.emit()

    # -- data --------------------------------------------------------------------------
    def set_extract(self, extract: Extract | None, suggestions: dict | None = None) -> None:  # type: ignore[type-arg]
        """The loaded extract and, when computed with it, every column's suggested tag."""
        self.extract = extract
        self.suggestions = suggestions
        if self.review is not None:
            self.review = None
            self.reviewInvalidated.emit()
        self.extractLoaded.emit()

    def word_list_changed(self) -> None:
        """The project word list (held-back folder) changed: the review is stale."""
        if self.review is not None:
            self.review = None
            self.reviewInvalidated.emit()

    def set_review(self, review: ReviewResult) -> None:
        self.review = review
        self.reviewReady.emit()

    def set_intruder_figures(self, review: ReviewResult) -> None:
        """The review on screen with the intruder test's figures (``attack.with_intruder``)."""
        self.review = review
        self.intruderReady.emit()

    def set_export_record(self, record: ExportRecord) -> None:
        self.export_record = record
        self.exportDone.emit(record)

    # -- dirty flag --------------------------------------------------------------------
    def _on_clean_changed(self, clean: bool) -> None:
        self._set_dirty(self._edited or not clean)

    def _set_dirty(self, dirty: bool) -> None:
        if not dirty:
            self._edited = False
        if dirty != self.dirty:
            self.dirty = dirty
            self.dirtyChanged.emit(dirty)
