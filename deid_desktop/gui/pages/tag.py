"""Step 2 — Tag: one row per column; class, role and Safe Harbor category, undoable."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
)

from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import CLASS_LABELS, ColumnClass, ColumnTag
from deid_desktop.core.steps import Step
from deid_desktop.gui import backend
from deid_desktop.gui.models import (
    ClassFilterProxy,
    ComboDelegate,
    TagColumn,
    TagModel,
    category_choices,
    class_choices,
    class_tooltip,
    role_choices,
)
from deid_desktop.gui.pages.base import Page
from deid_desktop.gui.session import on_own_turn
from deid_desktop.gui.widgets import MessageBanner, heading, note

SAMPLES_PER_COLUMN = 3
UNSURE = "unsure"  # the class filter's entry for unsure suggestions


class TagPage(Page):
    step = Step.TAG

    def __init__(self, session, runner, parent=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(session, runner, parent)
        self._samples: dict[tuple[str, str], list[str]] = {}
        self._suggested: dict[tuple[str, str], ColumnTag] = {}

        self.model = TagModel(self._edit, self)
        self.proxy = ClassFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setAccessibleName("Column tags")
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.SelectedClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 10)
        for col, choices in (
            (TagColumn.CLASS, class_choices),
            (TagColumn.ROLE, role_choices),
            (TagColumn.CATEGORY, category_choices),
        ):
            self.view.setItemDelegateForColumn(col, ComboDelegate(choices, self.view))
        hh = self.view.horizontalHeader()
        hh.setSectionResizeMode(TagColumn.EVIDENCE, QHeaderView.ResizeMode.Stretch)
        for col, width in (
            (TagColumn.TABLE, 100),
            (TagColumn.COLUMN, 120),
            (TagColumn.SAMPLE, 190),
            (TagColumn.CLASS, 120),
            (TagColumn.ROLE, 110),
            (TagColumn.CATEGORY, 170),
        ):
            self.view.setColumnWidth(col, width)

        self.filter = QComboBox()
        self.filter.setAccessibleName("Show only columns of class")
        self.filter.addItem("All classes", "")
        for cls in ColumnClass:
            self.filter.addItem(CLASS_LABELS[cls][0], cls.value)
            self.filter.setItemData(
                self.filter.count() - 1, class_tooltip(cls), Qt.ItemDataRole.ToolTipRole
            )
        self.filter.addItem("Unsure suggestions", UNSURE)
        self.filter.setItemData(
            self.filter.count() - 1,
            "Columns whose suggestion chose the safer class because the evidence was weak.",
            Qt.ItemDataRole.ToolTipRole,
        )
        self.filter.currentIndexChanged.connect(
            lambda _i: self.proxy.set_class(self.filter.currentData())
        )
        self.show_values = QCheckBox("Show values")
        self.show_values.setAccessibleName("Show sample values of direct identifiers")
        self.show_values.setToolTip("Sample values of direct identifiers are hidden by default.")
        self.show_values.toggled.connect(self.model.set_show_values)
        self.accept_button = QPushButton("&Accept all suggestions")
        self.accept_button.setAccessibleName("Accept all suggested tags")
        self.accept_button.setToolTip("Set every column to the suggested tag (one undo step).")
        self.accept_button.clicked.connect(self.accept_all)
        undo = session.undo_stack
        self.undo_button = QPushButton("Undo")
        self.undo_button.setAccessibleName("Undo the last tag change")
        self.undo_button.setToolTip(f"Undo ({_keys(QKeySequence.StandardKey.Undo)})")
        self.undo_button.clicked.connect(undo.undo)
        undo.canUndoChanged.connect(self.undo_button.setEnabled)
        self.redo_button = QPushButton("Redo")
        self.redo_button.setAccessibleName("Redo the last undone tag change")
        self.redo_button.setToolTip(f"Redo ({_keys(QKeySequence.StandardKey.Redo)})")
        self.redo_button.clicked.connect(undo.redo)
        undo.canRedoChanged.connect(self.redo_button.setEnabled)
        self.undo_button.setEnabled(False)
        self.redo_button.setEnabled(False)

        bar = QHBoxLayout()
        bar.addWidget(QLabel("Show:"))
        bar.addWidget(self.filter)
        bar.addWidget(self.show_values)
        bar.addStretch(1)
        bar.addWidget(self.undo_button)
        bar.addWidget(self.redo_button)
        bar.addWidget(self.accept_button)

        self.summary = QLabel()
        self.summary.setAccessibleName("Tag summary")
        self.summary.setWordWrap(True)
        self.banner = MessageBanner()

        lay = QVBoxLayout(self)
        lay.addWidget(heading(self.step.heading("Tag every column")))
        lay.addWidget(
            note(
                "Each column was given a suggested class; check each one. Direct identifiers "
                "are removed, quasi-identifiers generalized, dates reduced, free text "
                "suppressed, clinical values kept. Double-click a cell (or press F2) to change "
                "it, or press 1-5 for direct, quasi, date, free text, clinical; the evidence "
                "for the selected column is shown below. In doubt, choose the more "
                "protective class."
            )
        )
        self.evidence = QLabel()
        self.evidence.setWordWrap(True)
        self.evidence.setTextFormat(Qt.TextFormat.PlainText)
        self.evidence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.evidence.setAccessibleName("Evidence for the selected column")
        self.view.selectionModel().currentRowChanged.connect(self._show_evidence)
        self.view.installEventFilter(self)
        lay.addLayout(bar)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.evidence)
        lay.addWidget(self.summary)
        lay.addWidget(self.banner)

        session.projectChanged.connect(self._refresh)
        # not shown while the extract loads: at a million rows it fills in on its own turn
        session.extractLoaded.connect(on_own_turn(session, self, self._on_extract))

    # -- readiness ---------------------------------------------------------------------
    def enter_reason(self) -> str | None:
        if self.session.project is None:
            return f"Load the extract first ({Step.LOAD.short})."
        if self.session.extract is None:
            return f"The extract is not loaded yet ({Step.LOAD.short})."
        return None

    def blocker(self) -> str | None:
        project = self.session.project
        if project is None:
            return "No project."
        missing = [c.name for t in project.tables for c in t.columns if c.cls is None]
        if missing:
            return f"{len(missing)} column(s) have no class yet: {', '.join(missing[:5])}."
        return None

    # -- data --------------------------------------------------------------------------
    def _on_extract(self) -> None:
        self._samples = {}
        self._suggested = {}
        extract = self.session.extract
        if extract is not None:
            for t in extract.tables:  # one read of the first rows, no pandas per column
                head = t.frame.head(200)
                for col in head.columns:
                    self._samples[(t.name, str(col))] = first_distinct(
                        head[col].tolist(), SAMPLES_PER_COLUMN
                    )
            suggestions = self.session.suggestions
            # normally computed with the load, off the UI thread
            self._suggested = dict(suggestions or backend.suggestions_for(extract))
        self.model.set_samples(lambda table, col: self._samples.get((table, col), []))
        self._refresh()

    def _refresh(self) -> None:
        self.model.set_project(self.session.project)
        project = self.session.project
        if project is None:
            self.summary.clear()
            return
        counts = Counter(c.cls for t in project.tables for c in t.columns)
        unsure = sum(c.unsure for t in project.tables for c in t.columns)
        parts = [f"{counts.get(cls, 0)} {CLASS_LABELS[cls][0].lower()}" for cls in ColumnClass]
        text = f"{sum(counts.values())} columns: " + ", ".join(parts) + "."
        if unsure:
            text += (
                f" {unsure} suggestion(s) chose the safer class because the evidence was "
                "weak (in italics)."
            )
        self.summary.setText(text)
        self.readinessChanged.emit()

    def _edit(self, table: str, tag: ColumnTag) -> None:
        """Apply the user's re-tag; core refuses one that breaks the person key. A class
        that keeps more of the column (direct -> clinical, ...) is confirmed first."""
        from deid_desktop.core.tagging.protection import less_protective  # pandas: load on use
        from deid_desktop.core.tagging.retag import apply_tag  # pandas: load on use

        self.banner.clear()
        project = self.session.project
        old = project.table(table).column(tag.name) if project is not None else None
        if old is not None and less_protective(old.cls, tag.cls):
            try:  # a re-tag core refuses is said at once, without asking first
                apply_tag(project.table(table), tag)  # type: ignore[union-attr]
            except UsageError as exc:
                self.banner.show_error(exc)
                return
            answer = QMessageBox.question(
                self,
                "Make this column less protective?",
                f"{table}.{tag.name} goes from {old.cls.label} to {tag.cls.label}: more of "  # type: ignore[union-attr]
                "it will be released. Change it?",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        try:
            self.session.set_tag(table, tag, f"Tag {table}.{tag.name} as {tag.cls.label}")
        except UsageError as exc:
            self.banner.show_error(exc)

    def accept_all(self) -> None:
        from deid_desktop.core.tagging.retag import suggested_tag  # pandas: load on use

        project = self.session.project
        if project is None or not self._suggested:
            return
        # the person key stays the project's key whatever the suggestion says (core rule)
        changes = [
            (t.name, tag)
            for t in project.tables
            for c in t.columns
            if (t.name, c.name) in self._suggested
            and (tag := suggested_tag(t, self._suggested[(t.name, c.name)])) is not None
            and tag != c
        ]
        self.session.set_tags(changes, "Accept all suggestions")
        if not changes:
            self.banner.show_info("Every column already has its suggested tag.")
        else:
            self.banner.show_info(f"{len(changes)} column(s) set to the suggested tag.")

    # -- evidence pane and keys 1-5 -------------------------------------------------------
    def _show_evidence(self, current: QModelIndex, _previous: QModelIndex | None = None) -> None:
        if not current.isValid():
            self.evidence.clear()
            return
        table, tag = self.model.tag_at(self.proxy.mapToSource(current).row())
        lines = [f"{table}.{tag.name}: {tag.cls.label if tag.cls else 'no class yet'}"]
        lines += [f"• {e}" for e in tag.evidence] or ["• (no evidence recorded)"]
        if tag.unsure:
            lines.append("Unsure: the safer class was chosen because the evidence was weak.")
        self.evidence.setText("\n".join(lines))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keys 1-5 on a row set its class (in the order of the class list)."""
        if (
            watched is self.view
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        ):
            key, classes = event.key(), list(ColumnClass)
            if Qt.Key.Key_1 <= key < Qt.Key.Key_1 + len(classes):
                self.set_class_of_current(classes[key - Qt.Key.Key_1])
                return True
        return super().eventFilter(watched, event)

    def set_class_of_current(self, cls: ColumnClass) -> None:
        current = self.view.currentIndex()
        if not current.isValid():
            return
        table, tag = self.model.tag_at(self.proxy.mapToSource(current).row())
        if tag.cls != cls:
            self._edit(table, replace(tag, cls=cls))
        self._show_evidence(self.view.currentIndex())

    # for tests and keyboard users: edit by names
    def row_of(self, table: str, column: str) -> int:
        for r in range(self.proxy.rowCount()):
            src = self.proxy.mapToSource(self.proxy.index(r, 0))
            t, tag = self.model.tag_at(src.row())
            if t == table and tag.name == column:
                return r
        raise KeyError(column)

    def index_of(self, table: str, column: str, field: int) -> QModelIndex:
        return self.proxy.index(self.row_of(table, column), field)

    def select_column(self, table: str | None, column: str | None) -> bool:
        """Select and show a column's row (a failed check's "Go to"); False if not here
        (a released column named otherwise, e.g. zip3 from zip, or a filtered class)."""
        if not table or not column:
            return False
        self.filter.setCurrentIndex(0)  # every class: the column must be visible
        for name in (column, column.removesuffix("3")):
            try:
                index = self.index_of(table, name, TagColumn.CLASS)
            except KeyError:
                continue
            self.view.setCurrentIndex(index)
            self.view.scrollTo(index)
            self.view.setFocus()
            return True
        return False


def first_distinct(values: list[object], n: int) -> list[str]:
    """The first ``n`` distinct present values, in order, as text."""
    out: list[str] = []
    seen: set[str] = set()
    for v in values:
        if v is None or type(v).__name__ == "NAType" or (isinstance(v, float) and v != v):
            continue  # missing: None, pd.NA, NaN
        text = str(v)
        if text not in seen:
            seen.add(text)
            out.append(text)
            if len(out) == n:
                break
    return out


def _keys(key: QKeySequence.StandardKey) -> str:
    return QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)
