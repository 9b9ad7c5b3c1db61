"""Qt item models over core data: a virtual model over a frame, and the tag table.

``FrameModel`` never copies the frame: ``data()`` reads one cell when the view asks,
so a million rows open instantly. Column widths come from a sample of rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QFontMetrics, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

from deid_desktop.core.model import (
    CATEGORY_TITLES,
    CLASS_LABELS,
    ColumnClass,
    ColumnTag,
    IdentifierCategory,
    Project,
    Role,
)

if TYPE_CHECKING:  # pandas is imported when the first frame arrives, not at start-up
    import pandas as pd

Index = QModelIndex | QPersistentModelIndex
MASK = "•••••"
#: Classes whose sample values stay hidden until "Show values" is ticked (free text
#: holds names and dates as often as a direct column does).
_HIDDEN_CLASSES = frozenset({ColumnClass.DIRECT, ColumnClass.FREE_TEXT})
MISSING = "(missing)"
#: FrameModel reads cells in blocks of this many rows, and keeps at most MAX_BLOCKS.
BLOCK_ROWS = 128
MAX_BLOCKS = 256

ROLE_LABELS: dict[Role, str] = {
    Role.PERSON_KEY: "Person key",
    Role.BIRTH_DATE: "Date of birth",
    Role.AGE: "Age",
    Role.ZIP: "ZIP code",
    Role.SEX: "Sex",
    Role.SENSITIVE: "Sensitive attribute",
    Role.INDEX_DATE: "Index date (reference for age)",
}
ROLE_TIPS: dict[Role, str] = {
    Role.PERSON_KEY: "The column that identifies the person and links the tables. "
    "Replaced by a code in the release.",
    Role.BIRTH_DATE: "Date of birth: reduced to the year, removed for people aged 90 or over.",
    Role.AGE: "Age in years: ages over 89 become 90+.",
    Role.ZIP: "ZIP code: cut to three digits; small areas become 000.",
    Role.SEX: "Sex or gender: a quasi-identifier.",
    Role.SENSITIVE: "A sensitive attribute (e.g. diagnosis) checked for l-diversity.",
    Role.INDEX_DATE: "The date ages are computed at (e.g. discharge).",
}


def class_tooltip(cls: ColumnClass) -> str:
    label, text = CLASS_LABELS[cls]
    return f"<b>{label}</b><br>{text}"


def category_tooltip(cat: IdentifierCategory) -> str:
    return f"<b>{cat.value}.</b> {CATEGORY_TITLES[cat]} (45 CFR 164.514(b)(2)(i)({cat.value}))"


# ---------------------------------------------------------------------------------------
class FrameModel(QAbstractTableModel):
    """Read-only view of a frame of strings; ``masked`` columns show dots, not values."""

    def __init__(self, frame: pd.DataFrame | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._frame: pd.DataFrame | None = None  # None: empty (no pandas needed yet)
        self._na: Any = object()  # pandas.NA once a frame is set
        self._masked: set[str] = set()
        self._columns: list[str] = []
        self._line_offset = 2  # data row 0 is line 2 of a CSV (header = line 1)
        self._take(frame)

    def _take(self, frame: pd.DataFrame | None) -> None:
        self._frame = frame
        self._blocks: dict[tuple[int, int], list[Any]] = {}
        self._head: tuple[int, list[list[Any]]] | None = None  # (rows, cells per column)
        self._columns = [] if frame is None else [str(c) for c in frame.columns]
        if frame is not None:
            import pandas as pd

            self._na = pd.NA

    @property
    def frame(self) -> pd.DataFrame:
        if self._frame is None:
            import pandas as pd

            return pd.DataFrame()
        return self._frame

    def set_frame(self, frame: pd.DataFrame | None, masked: Sequence[str] = ()) -> None:
        self.beginResetModel()
        self._take(frame)
        self._masked = set(masked)
        self.endResetModel()

    def set_masked(self, masked: Sequence[str]) -> None:
        self._masked = set(masked)
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(
                self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1)
            )

    def sample_texts(self, column: int, rows: int) -> list[str]:
        """The first ``rows`` cells of a column as shown: the first rows of every column
        are read once (one pandas slice per column cost ~1 ms of the UI thread each)."""
        name = self._columns[column]
        if name in self._masked:
            return [MASK]
        if self._head is None or self._head[0] != rows:
            head = self.frame.iloc[:rows]
            self._head = (rows, [values.tolist() for _name, values in head.items()])
        cells = self._head[1][column]
        return [MISSING if v is None or v is self._na else str(v) for v in cells]

    def _cell(self, row: int, column: int) -> Any:
        """One cell, read with its block of rows (one pandas call per block, not per
        cell: ``iat`` on a 1M-row frame costs ~0.1 ms, and a repaint asks hundreds)."""
        b = row // BLOCK_ROWS
        block = self._blocks.get((column, b))
        if block is None:
            if len(self._blocks) >= MAX_BLOCKS:
                self._blocks.clear()
            start = b * BLOCK_ROWS
            block = self.frame.iloc[start : start + BLOCK_ROWS, column].tolist()
            self._blocks[(column, b)] = block
        return block[row - b * BLOCK_ROWS]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self._frame is None else len(self._frame)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if self._columns[index.column()] in self._masked:
                return MASK if role == Qt.ItemDataRole.DisplayRole else "Hidden (direct identifier)"
            value = self._cell(index.row(), index.column())
            if value is None or value is self._na or (isinstance(value, float) and value != value):
                return MISSING if role == Qt.ItemDataRole.DisplayRole else "Missing value"
            return str(value)
        if role == Qt.ItemDataRole.ForegroundRole:
            value = self._cell(index.row(), index.column())
            if value is None or value is self._na or (isinstance(value, float) and value != value):
                return QApplication.palette().brush(
                    QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text
                )
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self._columns[section] if section < len(self._columns) else None
        return str(section + self._line_offset)  # the line number in the file


def size_columns_from_sample(view: QTableView, sample_rows: int = 200, max_px: int = 320) -> None:
    """Set column widths from the header and the first rows; never scans 1M rows."""
    model = view.model()
    if model is None:
        return
    fm = QFontMetrics(view.font())
    hfm = QFontMetrics(view.horizontalHeader().font())
    rows = min(model.rowCount(), sample_rows)
    pad = 24
    for c in range(model.columnCount()):
        header = str(model.headerData(c, Qt.Orientation.Horizontal) or "")
        width = hfm.horizontalAdvance(header) + pad
        if isinstance(model, FrameModel):
            texts = model.sample_texts(c, rows)
        else:
            texts = [str(model.data(model.index(r, c)) or "") for r in range(rows)]
        # measure each distinct length once: the widest strings are among the longest
        for text in sorted(set(texts), key=len, reverse=True)[:10]:
            width = max(width, fm.horizontalAdvance(text) + pad)
        view.setColumnWidth(c, min(width, max_px))


# ---------------------------------------------------------------------------------------
class TagColumn:
    TABLE, COLUMN, SAMPLE, CLASS, ROLE, CATEGORY, EVIDENCE = range(7)
    HEADERS = ("Table", "Column", "Sample values", "Class", "Role", "Safe Harbor category", "Why")


#: ``samples(table, column) -> list of a few values`` (supplied by the page).
SampleFn = Callable[[str, str], list[str]]


class TagModel(QAbstractTableModel):
    """One row per column of every table; class, role and category are editable.

    Edits are not applied here: ``setData`` calls ``on_edit(table, new_tag)``, which
    goes through the session's undo stack; the model is refreshed from the project.
    """

    def __init__(
        self, on_edit: Callable[[str, ColumnTag], None], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, ColumnTag]] = []
        self._on_edit = on_edit
        self._samples: SampleFn = lambda _t, _c: []
        self.show_values = False

    def set_project(self, project: Project | None) -> None:
        rows = (
            [(t.name, c) for t in project.tables for c in t.columns] if project is not None else []
        )
        if [(t, c.name) for t, c in rows] == [(t, c.name) for t, c in self._rows]:
            self._rows = rows  # same columns: update in place, keep selection and scroll
            if rows:
                self.dataChanged.emit(
                    self.index(0, 0), self.index(len(rows) - 1, len(TagColumn.HEADERS) - 1)
                )
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def set_samples(self, fn: SampleFn) -> None:
        self._samples = fn
        self._refresh_column(TagColumn.SAMPLE)

    def set_show_values(self, show: bool) -> None:
        self.show_values = show
        self._refresh_column(TagColumn.SAMPLE)

    def _refresh_column(self, col: int) -> None:
        if self._rows:
            self.dataChanged.emit(self.index(0, col), self.index(len(self._rows) - 1, col))

    def tag_at(self, row: int) -> tuple[str, ColumnTag]:
        return self._rows[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(TagColumn.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return TagColumn.HEADERS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return {
                TagColumn.SAMPLE: "A few values from the column. Direct identifiers and free "
                "text are hidden unless you tick “Show values”.",
                TagColumn.CLASS: "What kind of column this is; decides how it is treated.",
                TagColumn.ROLE: "What the column means to the pathway (person key, ZIP, age...).",
                TagColumn.CATEGORY: "For direct identifiers: which of the 18 Safe Harbor "
                "identifiers it is.",
                TagColumn.EVIDENCE: "Why this tag was suggested.",
            }.get(section)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        f = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() in (TagColumn.CLASS, TagColumn.ROLE):
            f |= Qt.ItemFlag.ItemIsEditable
        if index.column() == TagColumn.CATEGORY:
            _, tag = self._rows[index.row()]
            if tag.cls == ColumnClass.DIRECT:
                f |= Qt.ItemFlag.ItemIsEditable
        return f

    def _sample_text(self, table: str, tag: ColumnTag) -> str:
        if tag.cls in _HIDDEN_CLASSES and not self.show_values:
            return MASK
        values = self._samples(table, tag.name)
        return ", ".join(v if v else MISSING for v in values)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        table, tag = self._rows[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if col == TagColumn.TABLE:
                return table
            if col == TagColumn.COLUMN:
                return tag.name
            if col == TagColumn.SAMPLE:
                return self._sample_text(table, tag)
            if col == TagColumn.CLASS:
                return tag.cls.value if role == Qt.ItemDataRole.EditRole else tag.cls.label
            if col == TagColumn.ROLE:
                if role == Qt.ItemDataRole.EditRole:
                    return tag.role.value if tag.role else ""
                return ROLE_LABELS[tag.role] if tag.role else "—"
            if col == TagColumn.CATEGORY:
                if role == Qt.ItemDataRole.EditRole:
                    return tag.category.value if tag.category else ""
                if tag.category is None:
                    return "—" if tag.cls == ColumnClass.DIRECT else ""
                return f"{tag.category.value} – {CATEGORY_TITLES[tag.category]}"
            if col == TagColumn.EVIDENCE:
                text = "; ".join(tag.evidence)
                return f"Unsure, chose the safer class. {text}" if tag.unsure else text
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == TagColumn.CLASS:
                return class_tooltip(tag.cls)
            if col == TagColumn.CATEGORY and tag.category is not None:
                return category_tooltip(tag.category)
            if col == TagColumn.ROLE and tag.role is not None:
                return ROLE_TIPS[tag.role]
            if col == TagColumn.EVIDENCE and tag.evidence:
                return "<br>".join(tag.evidence)
            if col == TagColumn.SAMPLE and tag.cls in _HIDDEN_CLASSES and not self.show_values:
                what = "direct identifier" if tag.cls == ColumnClass.DIRECT else "free text"
                return f"Hidden: {what}. Tick “Show values” to see them."
        if role == Qt.ItemDataRole.UserRole:
            return tag.cls.value
        if role == Qt.ItemDataRole.FontRole and col == TagColumn.CLASS and tag.unsure:
            font = QApplication.font()
            font.setItalic(True)
            return font
        return None

    def setData(self, index: Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        from deid_desktop.core.tagging.retag import edited_tag  # pandas: load on use

        table, tag = self._rows[index.row()]
        col = index.column()
        text = str(value) if value else ""  # the editor's value: an enum value or ""
        if col == TagColumn.CLASS:
            if not text or ColumnClass(text) == tag.cls:
                return False
            new = edited_tag(tag, cls=ColumnClass(text))
        elif col == TagColumn.ROLE:
            role = Role(text) if text else None
            if role == tag.role:
                return False
            new = edited_tag(tag, role=role)
        elif col == TagColumn.CATEGORY:
            category = IdentifierCategory(text) if text else None
            if category == tag.category:
                return False
            new = edited_tag(tag, category=category)
        else:
            return False
        self._on_edit(table, new)
        return True


class ClassFilterProxy(QSortFilterProxyModel):
    """Shows only the rows of one class (or all)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cls: str | None = None

    def set_class(self, cls: str | None) -> None:
        self.beginFilterChange()
        self._cls = cls or None
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        if self._cls is None:
            return True
        if self._cls == "unsure":  # the suggestions that chose the safer class
            model = self.sourceModel()
            return isinstance(model, TagModel) and model.tag_at(source_row)[1].unsure
        idx = self.sourceModel().index(source_row, TagColumn.CLASS, source_parent)
        return self.sourceModel().data(idx, Qt.ItemDataRole.UserRole) == self._cls


# ---------------------------------------------------------------------------------------
def class_choices() -> list[tuple[str, str, str]]:
    return [(c.value, c.label, class_tooltip(c)) for c in ColumnClass]


def role_choices() -> list[tuple[str, str, str]]:
    return [("", "—", "No particular role")] + [
        (r.value, ROLE_LABELS[r], ROLE_TIPS[r]) for r in Role
    ]


def category_choices() -> list[tuple[str, str, str]]:
    return [("", "—", "Not chosen")] + [
        (c.value, f"{c.value} – {CATEGORY_TITLES[c]}", category_tooltip(c))
        for c in IdentifierCategory
    ]


class ComboDelegate(QStyledItemDelegate):
    """A drop-down editor; items are (value, label, tooltip). Commits on selection."""

    def __init__(
        self, choices: Callable[[], list[tuple[str, str, str]]], parent: QObject | None = None
    ):
        super().__init__(parent)
        self._choices = choices

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:
        combo = QComboBox(parent)
        combo.setAccessibleName(
            str(index.model().headerData(index.column(), Qt.Orientation.Horizontal))
        )
        for i, (value, label, tip) in enumerate(self._choices()):
            combo.addItem(label, value)
            combo.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
        combo.activated.connect(lambda _i, c=combo: self._commit(c))
        return combo

    def _commit(self, combo: QComboBox) -> None:
        self.commitData.emit(combo)
        self.closeEditor.emit(combo)

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        assert isinstance(editor, QComboBox)
        i = editor.findData(index.data(Qt.ItemDataRole.EditRole) or "")
        editor.setCurrentIndex(max(i, 0))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: Index) -> None:
        assert isinstance(editor, QComboBox)
        model.setData(index, editor.currentData(), Qt.ItemDataRole.EditRole)
