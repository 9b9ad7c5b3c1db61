"""The review's free-text panel: hits per column and kind, the notes with hits (a
virtual list over core's note-hit index) and each note with its hits highlighted."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.model import ColumnClass, FreeTextAction
from deid_desktop.gui.pages.pathway import free_text_combo
from deid_desktop.gui.session import Session
from deid_desktop.gui.widgets import MessageBanner

if TYPE_CHECKING:
    from deid_desktop.core.engine import ReviewResult
    from deid_desktop.core.scan import ScanReport
    from deid_desktop.core.scan.notes import NoteIndex

DICTIONARY_WARNING = (
    "The scan looks for the names, numbers and addresses found in this extract's own "
    "identifier columns, plus common patterns. It cannot find a name that is in no column "
    "(a relative, a neighbour, a doctor), so it can never prove a note clean. Free text is "
    "suppressed unless you choose to redact it."
)


#: Notes listed at first, and added each time the list is scrolled to its end.
NOTES_PAGE = 500


class NotesModel(QAbstractListModel):
    """Virtual list of the notes with hits: text is made only for the visible rows.

    The rows come in pages (``canFetchMore``/``fetchMore``, as the view scrolls): a view
    lays out and asks ``index()`` (hence ``rowCount``, a Python call) of every row it
    has, and a 1M-row scan has 10^5 notes with hits, seconds of a frozen window.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        from deid_desktop.core.scan.notes import NoteIndex  # numpy: load on use

        self.index_ = NoteIndex()
        self._shown = 0  # the rows the view has been given so far

    def set_index(self, index: NoteIndex) -> None:
        self.beginResetModel()
        self.index_ = index
        self._shown = min(NOTES_PAGE, len(index))
        self.endResetModel()

    @property
    def total(self) -> int:
        """Every note with hits (``rowCount`` is the part fetched so far)."""
        return len(self.index_)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._shown

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> bool:
        return not parent.isValid() and self._shown < len(self.index_)

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> None:
        if self.canFetchMore(parent):
            self.fetch_to(self._shown + NOTES_PAGE - 1)

    def fetch_to(self, row: int) -> None:
        """Make sure rows up to ``row`` (capped at the last note) are in the list."""
        last = min(row, len(self.index_) - 1)
        if last < self._shown:
            return
        self.beginInsertRows(QModelIndex(), self._shown, last)
        self._shown = last + 1
        self.endInsertRows()

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> str | None:
        if not index.isValid() or role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,
        ):
            return None
        (table, row, column), hits = self.index_.note(index.row())
        if role == Qt.ItemDataRole.DisplayRole:
            kinds = sorted({str(h.kind) for h in hits})
            return f"Line {row + 2}: {', '.join(kinds)}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{table}.{column}, line {row + 2}: {len(hits)} hit(s)"
        return None


class FreeTextPanel(QWidget):
    """The Free text tab of the review page."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.text_warning = MessageBanner()
        self.text_warning.show_warning(DICTIONARY_WARNING)
        self.hit_counts = QTableWidget(0, 3)
        self.hit_counts.setHorizontalHeaderLabels(["Column", "Kind", "Hits"])
        self.hit_counts.setAccessibleName("Hits per column and kind")
        self.hit_counts.verticalHeader().setVisible(False)
        self.hit_counts.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.hit_counts.setColumnWidth(1, 70)
        self.hit_counts.setColumnWidth(2, 90)
        self.hit_counts.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.actions = QTableWidget(0, 2)
        self.actions.setHorizontalHeaderLabels(["Column", "Action"])
        self.actions.setAccessibleName("Action per free-text column")
        self.actions.verticalHeader().setVisible(False)
        self.actions.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.actions.setMaximumHeight(120)
        self.notes_model = NotesModel(self)
        self.notes = QListView()
        self.notes.setModel(self.notes_model)
        self.notes.setUniformItemSizes(True)
        self.notes.setAccessibleName("Notes with hits")
        self.notes.selectionModel().currentRowChanged.connect(
            lambda current, _previous: self._show_note(current.row())
        )
        self.note_view = QTextEdit()
        self.note_view.setReadOnly(True)
        self.note_view.setAccessibleName("Note text with hits highlighted")
        self.prev_hit = QPushButton("&Previous hit")
        self.prev_hit.setAccessibleName("Previous hit")
        self.next_hit = QPushButton("Ne&xt hit")
        self.next_hit.setAccessibleName("Next hit")
        self.prev_hit.clicked.connect(lambda: self.step_hit(-1))
        self.next_hit.clicked.connect(lambda: self.step_hit(1))
        self.hit_label = QLabel()
        from deid_desktop.core.scan.notes import NoteIndex  # numpy: load on use

        self._notes_index = NoteIndex()
        self._scan: ScanReport | None = None
        self._pos: tuple[int, int] = (0, -1)  # (note, hit within the note)

        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("Hits by column and kind:"))
        ll.addWidget(self.hit_counts, 1)
        ll.addWidget(QLabel("What to do with each free-text column:"))
        ll.addWidget(self.actions)
        mid = QWidget()
        ml = QVBoxLayout(mid)
        ml.setContentsMargins(0, 0, 0, 0)
        ml.addWidget(QLabel("Notes with hits:"))
        ml.addWidget(self.notes, 1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        nav = QHBoxLayout()
        nav.addWidget(self.prev_hit)
        nav.addWidget(self.next_hit)
        nav.addWidget(self.hit_label, 1)
        sample = QPushButton("Review a sample…")
        sample.setObjectName("sample_review")
        sample.setToolTip("Read a random 5% of the notes yourself and mark what the scan missed.")
        sample.setAccessibleName("Review a sample of the notes")
        sample.clicked.connect(self._open_sample_review)
        nav.addWidget(sample)
        rl.addLayout(nav)
        rl.addWidget(self.note_view, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        for part in (left, mid, right):
            split.addWidget(part)
        split.setSizes([340, 200, 560])
        lay = QVBoxLayout(self)
        lay.addWidget(self.text_warning)
        lay.addWidget(split, 1)

    def _open_sample_review(self) -> None:
        from deid_desktop.gui.scan_panel import open_sample_review  # numpy: load on use

        open_sample_review(self, self.session, self._scan)

    def show_scan(self, review: ReviewResult, index: NoteIndex) -> None:
        """Show the review's scan, its notes with hits (``index``) and the actions."""
        scan = review.scan
        self._scan = scan
        project = self.session.project
        self._notes_index = index
        self.hit_counts.setRowCount(0)
        rows: list[tuple[str, str, str]] = []
        columns = list(scan.columns) if scan is not None else []
        if columns:
            for c in columns:
                key = f"{c.table}.{c.column}"
                notes = f"{c.notes_with_hits:,} of {c.notes:,} notes"
                if not c.hits_by_kind:
                    rows.append((key, "none", f"0 ({notes})"))
                for kind, n in sorted(c.hits_by_kind.items()):
                    rows.append((key, kind, f"{n:,}"))
        else:
            rows = [(col, kind, f"{n:,}") for col, kind, n in index.counts]
        for values in rows:
            r = self.hit_counts.rowCount()
            self.hit_counts.insertRow(r)
            for c, v in enumerate(values):
                self.hit_counts.setItem(r, c, QTableWidgetItem(v))
        disclaimer = scan.disclaimer if scan is not None else None
        if disclaimer:
            self.text_warning.show_warning(disclaimer)
        self.notes_model.set_index(index)
        self._pos = (0, -1)
        self.hit_label.setText(f"{index.total:,} hits in {len(index):,} notes")
        # per-column actions
        self.actions.setRowCount(0)
        if project is not None:
            for t in project.tables:
                for c in t.by_class(ColumnClass.FREE_TEXT):
                    key = f"{t.name}.{c.name}"
                    r = self.actions.rowCount()
                    self.actions.insertRow(r)
                    self.actions.setItem(r, 0, QTableWidgetItem(key))
                    combo = free_text_combo(
                        project,
                        key,
                        f"Action for {key}",
                        lambda action, k=key: self._set_action(k, action.value),
                    )
                    self.actions.setCellWidget(r, 1, combo)
        if len(index):
            self.notes.setCurrentIndex(self.notes_model.index(0))
        else:
            self.note_view.setPlainText("No hit was found in the free-text columns.")

    def _set_action(self, key: str, action: str) -> None:
        project = self.session.project
        if project is None:
            return
        sh = project.transform
        self.session.update(
            transform=replace(sh, free_text={**sh.free_text, key: FreeTextAction(action)})
        )

    def _note_text(self, table: str, row: int, column: str) -> str:
        extract = self.session.extract
        if extract is None:
            return ""
        value = extract.table(table).frame[column].iat[row]
        import pandas as pd  # loaded with the first review, never at start-up

        return "" if value is None or value is pd.NA else str(value)

    def _show_note(self, index: int, hit_index: int = -1) -> None:
        notes = self._notes_index
        if not 0 <= index < len(notes):
            return
        if hit_index < 0:
            self._pos = (index, -1)
        (table, row, column), hits = notes.note(index)
        self.note_view.setPlainText(self._note_text(table, row, column))
        selections = []
        pal = self.palette()
        for j, h in enumerate(hits):
            start, end = h.start, h.end
            cursor = QTextCursor(self.note_view.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            fmt = QTextCharFormat()
            current = j == hit_index
            fmt.setBackground(pal.color(QPalette.ColorRole.Highlight))
            fmt.setForeground(pal.color(QPalette.ColorRole.HighlightedText))
            fmt.setFontUnderline(current)
            fmt.setFontWeight(700 if current else 400)
            fmt.setToolTip(f"{h.kind} ({h.rule})")
            sel = QTextEdit.ExtraSelection()
            sel.cursor = cursor  # type: ignore[attr-defined]
            sel.format = fmt  # type: ignore[attr-defined]
            selections.append(sel)
        self.note_view.setExtraSelections(selections)
        if hit_index >= 0:
            start = hits[hit_index].start
            cursor = self.note_view.textCursor()
            cursor.setPosition(start)
            self.note_view.setTextCursor(cursor)
            self.note_view.ensureCursorVisible()

    def step_hit(self, delta: int) -> None:
        """Go to the next (+1) or previous (-1) hit, across notes, wrapping around."""
        notes = self._notes_index
        if not len(notes):
            return
        note, hit = self._pos
        hit += delta
        if hit >= notes.hit_count(note):
            note, hit = (note + 1) % len(notes), 0
        elif hit < 0:
            note = (note - 1) % len(notes)
            hit = notes.hit_count(note) - 1
        self._pos = (note, hit)
        self.notes.selectionModel().blockSignals(True)
        self.notes_model.fetch_to(note)  # a note not listed yet (wrapped back to the end)
        self.notes.setCurrentIndex(self.notes_model.index(note))
        self.notes.selectionModel().blockSignals(False)
        self._show_note(note, hit)
        self.hit_label.setText(
            f"Note {note + 1:,} of {len(notes):,}, hit {hit + 1} of {notes.hit_count(note)}"
        )
