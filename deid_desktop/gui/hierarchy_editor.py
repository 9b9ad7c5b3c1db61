"""The hierarchy editor for categorical columns: group a column's values, name each group.

The hierarchy it saves has three levels, in ARX's CSV format: the value itself, its
group (a value left out of every group stands for itself), then ``*`` (everything
pooled). An ARX file can be imported to start from, and the result exported.

Saved files go into the project's ``hierarchies`` folder, named by column and content
(``COLUMN-<sha256 prefix>.csv``): a file a project refers to is never overwritten, so an
Undo that brings back an older choice still finds the file it names. Messages name
files, columns and counts, never a value.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.gui.widgets import MessageBanner

TOP = "*"
SEP = ";"


def hierarchy_file(folder: Path, column: str, text: str) -> Path:
    """Where the hierarchy of ``column`` with this content is saved."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", column).strip("._") or "column"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return folder / f"{safe}-{digest}.csv"


class HierarchyEditor(QDialog):
    """Group the values of one column at a time; Save writes the ARX file and emits it."""

    #: column, Hierarchy, path of the saved file
    saved = Signal(str, object, object)

    def __init__(
        self,
        values: Mapping[str, Sequence[str]],
        current: Mapping[str, Any],
        folder: Path | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit hierarchies")
        self.setAccessibleName("Hierarchy editor")
        self.values = {c: sorted(dict.fromkeys(str(v) for v in vs)) for c, vs in values.items()}
        self.current: dict[str, Any] = dict(current)
        self.folder = folder

        self.column = QComboBox()
        self.column.setAccessibleName("Column whose values are grouped")
        for c in self.values:
            self.column.addItem(c)
        self.column.currentTextChanged.connect(self._load)
        explain = QLabel(
            "Select values, type a name and press Group: the release may then show the "
            "group's name instead of each value. A value in no group stands for itself."
        )
        explain.setWordWrap(True)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Value", "Group"])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setToolTip("Double-click a group cell to type its name directly.")
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setAccessibleName("Values of the column and the group of each")
        self.group_name = QLineEdit()
        self.group_name.setAccessibleName("Name of the new group")
        self.group_name.setPlaceholderText("Group name")
        self.group_button = QPushButton("Group selected")
        self.group_button.setAccessibleName("Put the selected values into the named group")
        self.group_button.clicked.connect(self.group_selected)
        self.ungroup_button = QPushButton("Ungroup selected")
        self.ungroup_button.setAccessibleName("Take the selected values out of their group")
        self.ungroup_button.clicked.connect(lambda: self._set_group(self._selected(), ""))
        self.import_button = QPushButton("Import ARX CSV…")
        self.import_button.setAccessibleName("Import a hierarchy file in ARX format")
        self.import_button.clicked.connect(self._import_dialog)
        self.export_button = QPushButton("Export ARX CSV…")
        self.export_button.setAccessibleName("Export this hierarchy as an ARX file")
        self.export_button.clicked.connect(self._export_dialog)
        self.save_button = QPushButton("Save hierarchy")
        self.save_button.setAccessibleName("Save the hierarchy into the project")
        self.save_button.setToolTip("The search then uses it for this column.")
        self.save_button.clicked.connect(self.save)
        self.save_button.setEnabled(folder is not None)
        close = QPushButton("Close")
        close.setAccessibleName("Close the hierarchy editor")
        close.clicked.connect(self.accept)
        self.banner = MessageBanner()
        if folder is None:
            self.banner.show_warning("Save the project first: hierarchies are saved beside it.")

        form = QFormLayout()
        form.addRow("Column:", self.column)
        grouping = QHBoxLayout()
        grouping.addWidget(self.group_name, 1)
        grouping.addWidget(self.group_button)
        grouping.addWidget(self.ungroup_button)
        files = QHBoxLayout()
        files.addWidget(self.import_button)
        files.addWidget(self.export_button)
        files.addStretch(1)
        files.addWidget(self.save_button)
        files.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(explain)
        lay.addWidget(self.banner)
        lay.addWidget(self.table, 1)
        lay.addLayout(grouping)
        lay.addLayout(files)
        self.resize(560, 520)
        self._load(self.column.currentText())

    # -- the table -----------------------------------------------------------------------
    def _load(self, column: str) -> None:
        groups: dict[str, str] = {}
        h = self.current.get(column)
        if h is not None and h.levels >= 2:
            groups = {v: g for v, g in h.mapping(1).items() if g != v and g != TOP}
            if h.levels > 3:
                self.banner.show_info(
                    f"This hierarchy has {h.levels} levels; saving it here keeps the first "
                    "grouping only."
                )
        values = self.values.get(column, [])
        self.table.setRowCount(len(values))
        for r, v in enumerate(values):
            item = QTableWidgetItem(v)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(r, 0, item)
            self.table.setItem(r, 1, QTableWidgetItem(groups.get(v, "")))

    def _selected(self) -> list[int]:
        return sorted({i.row() for i in self.table.selectedIndexes()})

    def select_values(self, values: Sequence[str]) -> None:
        """Select the rows of ``values`` (as a user Ctrl-clicks them)."""
        wanted = set(values)
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        for r in range(self.table.rowCount()):
            if self.table.item(r, 0).text() in wanted:
                self.table.selectRow(r)
        self.table.setSelectionMode(mode)

    def group_selected(self) -> None:
        name = self.group_name.text().strip()
        rows = self._selected()
        if not rows:
            self.banner.show_warning("Select the values to group first.")
            return
        if not name or name == TOP:
            self.banner.show_warning("Type a name for the group.")
            return
        self._set_group(rows, name)
        self.banner.clear()

    def _set_group(self, rows: Sequence[int], name: str) -> None:
        for r in rows:
            self.table.item(r, 1).setText(name)

    def groups(self) -> dict[str, str]:
        """Value -> its group (a value in no group: itself)."""
        out = {}
        for r in range(self.table.rowCount()):
            value = self.table.item(r, 0).text()
            out[value] = self.table.item(r, 1).text().strip() or value
        return out

    # -- the hierarchy -------------------------------------------------------------------
    def hierarchy(self) -> Any:
        from deid_desktop.core.risk.hierarchy import Hierarchy, validate

        column = self.column.currentText()
        rows = [(v, g, TOP) for v, g in self.groups().items()]
        return Hierarchy(column, validate(rows, name=f"{column} hierarchy"), source="editor")

    def save(self) -> Path | None:
        from deid_desktop.core.atomic import atomic_write_text
        from deid_desktop.core.risk.hierarchy import Hierarchy, to_arx_csv

        if self.folder is None:
            return None
        column = self.column.currentText()
        try:
            h = self.hierarchy()
            text = to_arx_csv(h, sep=SEP)
            path = hierarchy_file(self.folder, column, text)
            self.folder.mkdir(parents=True, exist_ok=True)
            if not path.is_file():
                atomic_write_text(path, text)
        except Exception as exc:
            self.banner.show_error(exc)
            return None
        h = Hierarchy(column, h.rows, source=path.name)
        self.current[column] = h
        self.banner.show_info(f"Saved as {path.name}: the next search uses it for {column}.")
        self.saved.emit(column, h, path)
        return path

    def import_file(self, path: Path) -> None:
        """Start from an ARX file (its first grouping level is shown)."""
        from deid_desktop.core.risk.hierarchy import read_arx_csv

        column = self.column.currentText()
        try:
            h = read_arx_csv(path, column=column, sep=SEP)
        except Exception as exc:
            self.banner.show_error(exc)
            return
        missing = set(self.values.get(column, [])) - set(h.values)
        self.current[column] = h
        self.banner.clear()
        self._load(column)
        if missing:
            self.banner.show_warning(
                f"{len(missing):,} value(s) of {column} are not in {path.name}; they stand "
                "for themselves until grouped."
            )

    def export_file(self, path: Path) -> None:
        from deid_desktop.core.risk.hierarchy import write_arx_csv

        try:
            write_arx_csv(self.hierarchy(), path, sep=SEP)
        except Exception as exc:
            self.banner.show_error(exc)
            return
        self.banner.show_info(f"Exported as {path.name}.")

    def _import_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self, "Import a hierarchy (ARX CSV)", "", "CSV files (*.csv);;All files (*)"
        )
        if name:
            self.import_file(Path(name))

    def _export_dialog(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self,
            "Export the hierarchy (ARX CSV)",
            f"{self.column.currentText()}.csv",
            "CSV files (*.csv)",
        )
        if name:
            self.export_file(Path(name))
