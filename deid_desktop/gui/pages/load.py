"""Step 1 — Load: choose the tables, read them off the UI thread, preview and report."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.errors import Problem
from deid_desktop.core.model import ColumnClass, ColumnTag, LoadedTable, Role
from deid_desktop.core.project import PROJECT_SUFFIX
from deid_desktop.core.steps import Step
from deid_desktop.gui import backend, child_job
from deid_desktop.gui.models import FrameModel, size_columns_from_sample
from deid_desktop.gui.pages.base import Page
from deid_desktop.gui.widgets import MessageBanner, heading, note

log = logging.getLogger("deid.gui")

#: From this many rows (all tables), the previews are added one per turn of the event loop.
SLICE_ROWS = 200_000
TABLE_FILTER = "Tables (*.csv *.txt *.tsv *.xlsx);;CSV files (*.csv *.txt *.tsv);;Excel (*.xlsx)"


@dataclass
class PendingTable:
    """A table chosen for a new project, before the project exists."""

    path: Path
    is_person: bool
    sheet: str | None = None
    sheets: list[str] = field(default_factory=list)
    loaded: LoadedTable | None = None
    key: str | None = None
    key_chosen: bool = False  # the user picked the key column (else core finds it)
    tags: tuple[ColumnTag, ...] = ()  # suggested, computed with the read


class LoadPage(Page):
    step = Step.LOAD
    tableAdded = Signal()

    COLS = ("Role", "File", "Sheet", "Key column", "Rows", "Status")

    def __init__(self, session, runner, parent=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(session, runner, parent)
        self.pending: list[PendingTable] = []
        self.last_folder: Path | None = None

        self.intro = note(
            "Choose the person table (one row per person) and any event tables "
            "(visits, labs…) linked to it by the person key. Files are only read, never changed."
        )
        self.table_list = QTableWidget(0, len(self.COLS))
        self.table_list.setHorizontalHeaderLabels(self.COLS)
        self.table_list.setAccessibleName("Input tables")
        self.table_list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table_list.verticalHeader().setVisible(False)
        hh = self.table_list.horizontalHeader()
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        self.table_list.verticalHeader().setDefaultSectionSize(
            self.table_list.fontMetrics().height() + 10
        )
        self.table_list.setMaximumHeight(self._list_height(4))

        self.person_button = QPushButton("Choose &person table…")
        self.person_button.setAccessibleName("Choose the person table file")
        self.event_button = QPushButton("Add e&vent table…")
        self.event_button.setAccessibleName("Add an event table file")
        self.remove_button = QPushButton("Re&move")
        self.remove_button.setAccessibleName("Remove the selected table")
        self.create_button = QPushButton("&Create project from these tables")
        self.create_button.setAccessibleName("Create the project from the chosen tables")
        self.reload_button = QPushButton("Re&load extract")
        self.reload_button.setAccessibleName("Read the project's tables again")
        self.repoint_button = QPushButton("Re-poin&t table…")
        self.repoint_button.setAccessibleName("Choose a new file for the selected table")
        self.person_button.clicked.connect(self._choose_person)
        self.event_button.clicked.connect(self._add_event)
        self.remove_button.clicked.connect(self._remove)
        self.create_button.clicked.connect(self._create_project)
        self.reload_button.clicked.connect(self.load_project_extract)
        self.repoint_button.clicked.connect(self._repoint)
        buttons = QHBoxLayout()
        for b in (
            self.person_button,
            self.event_button,
            self.remove_button,
            self.repoint_button,
        ):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.reload_button)
        buttons.addWidget(self.create_button)

        self.banner = MessageBanner()

        self.show_values = QCheckBox("Show values of direct identifiers")
        self.show_values.setAccessibleName("Show values of direct identifiers in the preview")
        self.show_values.toggled.connect(self._update_masks)
        self.preview_tabs = QTabWidget()
        self.preview_tabs.setAccessibleName("Preview of the tables")
        self.report = QTextBrowser()
        self.report.setAccessibleName("Load report")
        self.report.setOpenLinks(False)

        preview_box = QWidget()
        pv = QVBoxLayout(preview_box)
        pv.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(heading("Preview", 2))
        row.addStretch(1)
        row.addWidget(self.show_values)
        pv.addLayout(row)
        pv.addWidget(self.preview_tabs)
        report_box = QWidget()
        rv = QVBoxLayout(report_box)
        rv.setContentsMargins(0, 0, 0, 0)
        rv.addWidget(heading("Load report", 2))
        rv.addWidget(self.report)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(preview_box)
        split.addWidget(report_box)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)

        group = QGroupBox("Tables")
        gl = QVBoxLayout(group)
        gl.addWidget(self.intro)
        gl.addWidget(self.table_list)
        gl.addLayout(buttons)

        lay = QVBoxLayout(self)
        lay.addWidget(heading(self.step.heading("Load the extract")))
        lay.addWidget(group)
        lay.addWidget(self.banner)
        lay.addWidget(split, 1)

        self._models: list[tuple[str, FrameModel]] = []
        self._shown = 0  # which extract's previews are being added
        session.projectOpened.connect(self._on_project_opened)
        session.extractLoaded.connect(self._show_extract)
        session.projectChanged.connect(self._update_masks)
        runner.busyChanged.connect(self._update_buttons)
        self._refresh_list()

    def _list_height(self, rows: int) -> int:
        tl = self.table_list
        return (
            tl.horizontalHeader().sizeHint().height() + rows * (tl.fontMetrics().height() + 10) + 6
        )

    # -- readiness ---------------------------------------------------------------------
    def blocker(self) -> str | None:
        if self.session.project is None:
            return "Choose the tables and create the project first."
        if self.session.extract is None:
            return "The extract is not loaded yet."
        return None

    # -- new project: choosing tables --------------------------------------------------
    def start_new(self, files: list[Path] | None = None) -> None:
        """Begin a new project, optionally with the person table already chosen."""
        self.pending = []
        self.banner.clear()
        self.session.close()
        self._clear_preview()
        self._refresh_list()
        for f in files or []:
            self._add_file(f, is_person=not self.pending)

    def _start_dir(self) -> str:
        return str(self.last_folder or Path.home())

    def _choose_person(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Choose the person table", self._start_dir(), TABLE_FILTER
        )
        if path:
            self.pending = [p for p in self.pending if not p.is_person]
            self._add_file(Path(path), is_person=True)

    def _add_event(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Add event tables", self._start_dir(), TABLE_FILTER
        )
        for p in paths:
            self._add_file(Path(p), is_person=False)

    def _remove(self) -> None:
        row = self.table_list.currentRow()
        if 0 <= row < len(self.pending):
            del self.pending[row]
            self._refresh_list()
            self._refresh_preview_pending()

    def _add_file(self, path: Path, *, is_person: bool) -> None:
        self.last_folder = path.parent
        item = PendingTable(path=path, is_person=is_person)
        if path.suffix.lower() == ".xlsx":
            try:
                item.sheets = backend.list_sheets(path)
            except Exception as exc:
                self.banner.show_error(exc)
                return
            item.sheet = item.sheets[0] if item.sheets else None
        if is_person:
            self.pending.insert(0, item)
        else:
            self.pending.append(item)
        self._refresh_list()
        self._read(item)

    def _read(self, item: PendingTable) -> None:
        self.banner.clear()
        item.loaded = None

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            backend.warm_imports()  # what the pages import on first use, not on the UI thread
            table = backend.read_table(
                item.path, sheet=item.sheet, progress=progress, cancel=cancel
            )
            tags = backend.suggest_tags(table.frame, table=table.name, is_person=item.is_person)
            return table, tags

        def done(result) -> None:  # type: ignore[no-untyped-def]
            table, tags = result
            item.loaded = table
            item.tags = tuple(tags)
            if item.key is None:
                # shown as core would choose it: an event table's column named like the
                # person key first (core.event_keys), then the suggested person key
                person = next((p for p in self.pending if p.is_person), None)
                same = person.key if person is not None and not item.is_person else None
                key = same if same in table.frame.columns else None
                key = key or next((t.name for t in tags if t.role == Role.PERSON_KEY), None)
                item.key = key or (
                    str(table.frame.columns[0]) if len(table.frame.columns) else None
                )
            self._refresh_list()
            self._refresh_preview_pending()
            self.tableAdded.emit()

        self.runner.run(
            job,
            name="read table",
            on_success=done,
            on_error=self._failed,
            on_cancel=lambda: self.banner.show_info("Reading was cancelled."),
        )

    def _create_project(self) -> None:
        person = next((p for p in self.pending if p.is_person), None)
        if person is None or person.loaded is None:
            self.banner.show_warning("Choose and read the person table first.")
            return
        if any(p.loaded is None for p in self.pending):
            self.banner.show_warning("Some tables could not be read. Remove them or try again.")
            return
        if not person.key:
            self.banner.show_warning("Choose the person-key column of the person table.")
            return
        tables = [p.loaded for p in self.pending if p.loaded is not None]
        project_path = person.path.parent / f"{person.path.stem}{PROJECT_SUFFIX}"
        try:
            project = backend.new_project(
                tables,
                person=person.loaded.name,
                key=person.key,
                project_path=project_path,
                name=person.path.stem,
                # an event table's key picked in its drop-down (else core finds it)
                keys={
                    p.loaded.name: p.key
                    for p in self.pending
                    if not p.is_person and p.loaded is not None and p.key and p.key_chosen
                },
            )
            extract = backend.prepare_extract(tables, project)
        except Exception as exc:
            self._failed(exc)
            return
        suggestions = {
            (p.loaded.name, tag.name): tag for p in self.pending if p.loaded for tag in p.tags
        }
        self.session.loaded = tables
        self.session.open(project, None, dirty=True)
        self.session.suggested_path = project_path
        self.session.set_extract(extract, suggestions)
        self.readinessChanged.emit()

    # -- opened project ----------------------------------------------------------------
    def _on_project_opened(self) -> None:
        self.banner.clear()
        self._clear_preview()
        if self.session.project is not None:
            self.pending = []
        self._refresh_list()

    def load_project_extract(self) -> None:
        """Read every table of the open project (off the UI thread)."""
        s = self.session
        if s.project is None:
            return
        project, path = s.project, s.project_path or s.suggested_path
        if path is None:
            return
        self.banner.clear()

        def read(progress, cancel):  # type: ignore[no-untyped-def]
            extract = backend.load_extract(project, path, progress=progress, cancel=cancel)
            progress(1.0, "Suggesting tags")
            return extract, backend.suggestions_for(extract)

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            backend.warm_imports()  # what the pages import on first use, not on the UI thread
            # the inputs' hashes are read here, off the UI thread (seconds at 1M rows)
            problems = backend.check_inputs(project, path)
            if problems:
                return problems
            # large inputs are parsed in a child process: the parser's long C calls and
            # collections cannot hold the window; the extract comes back as its buffers
            rows = backend.input_rows(project, path)
            return child_job.call(read, progress, cancel, rows=rows)

        def done(value) -> None:  # type: ignore[no-untyped-def]
            if isinstance(value, list):  # changed or missing inputs: nothing was loaded
                self._show_problems(value)
            else:
                s.set_extract(*value)

        self.runner.run(
            job,
            name="load extract",
            on_success=done,
            on_error=self._failed,
            on_cancel=lambda: self.banner.show_info("Loading was cancelled."),
        )

    def _show_problems(self, problems: list[Problem]) -> None:
        self.banner.show_warning(
            "\n".join(p.message for p in problems)
            + "\nSelect the table and use “Re-point table…” to choose its new file, "
            "then check its tags."
        )
        self._refresh_list(problems)
        self.readinessChanged.emit()

    def _repoint(self) -> None:
        s = self.session
        row = self.table_list.currentRow()
        if s.project is None or s.project_path is None or not (0 <= row < len(s.project.tables)):
            self.banner.show_info("Select the table to re-point first.")
            return
        spec = s.project.tables[row]
        path, _ = QFileDialog.getOpenFileName(
            self, f"New file for table {spec.name}", self._start_dir(), TABLE_FILTER
        )
        if not path:
            return
        try:
            project = backend.repoint_table(s.project, spec.name, Path(path), s.project_path)
        except Exception as exc:
            self._failed(exc)
            return
        s.replace_project(project)
        self.load_project_extract()

    # -- display -----------------------------------------------------------------------
    def _failed(self, exc: BaseException) -> None:
        self.banner.show_error(exc)
        self.readinessChanged.emit()

    def _update_buttons(self) -> None:
        busy = self.runner.busy
        new_mode = self.session.project is None
        for b in (self.person_button, self.event_button, self.remove_button):
            b.setVisible(new_mode)
            b.setEnabled(not busy)
        self.create_button.setVisible(new_mode)
        person = next((p for p in self.pending if p.is_person), None)
        self.create_button.setEnabled(
            not busy and person is not None and all(p.loaded for p in self.pending)
        )
        self.reload_button.setVisible(not new_mode)
        self.reload_button.setEnabled(not busy)
        self.repoint_button.setVisible(not new_mode and self.session.project_path is not None)
        self.repoint_button.setEnabled(not busy)

    def _refresh_list(self, problems: list[Problem] | None = None) -> None:
        tl = self.table_list
        tl.setRowCount(0)
        project = self.session.project
        if project is not None:
            # a problem names its table (InputProblem) or its file (the full path)
            bad = {getattr(p, "table", None) for p in problems or []}
            bad |= {Path(p.file).name for p in problems or [] if p.file}
            for spec in project.tables:
                r = tl.rowCount()
                tl.insertRow(r)
                bad_spec = spec.name in bad or Path(spec.path).name in bad
                status = "Changed or missing" if bad_spec else ""
                if self.session.extract is not None:
                    status = "Loaded"
                values = (
                    "Person table" if spec.is_person else "Event table",
                    spec.path,
                    spec.sheet or "",
                    spec.key,
                    f"{spec.rows:,}" if spec.rows is not None else "",
                    status,
                )
                for c, v in enumerate(values):
                    it = QTableWidgetItem(v)
                    it.setFlags(it.flags() & ~Qt.ItemFlag.ItemIsEditable)
                    tl.setItem(r, c, it)
        else:
            for item in self.pending:
                self._add_pending_row(item)
        self._update_buttons()

    def _add_pending_row(self, item: PendingTable) -> None:
        tl = self.table_list
        r = tl.rowCount()
        tl.insertRow(r)
        for c, v in enumerate(
            (
                "Person table" if item.is_person else "Event table",
                str(item.path),
                "",
                "",
                f"{len(item.loaded.frame):,}" if item.loaded else "",
                "Read" if item.loaded else "Reading…",
            )
        ):
            it = QTableWidgetItem(v)
            it.setFlags(it.flags() & ~Qt.ItemFlag.ItemIsEditable)
            tl.setItem(r, c, it)
        if item.sheets:
            combo = QComboBox()
            combo.setAccessibleName(f"Sheet of {item.path.name}")
            combo.addItems(item.sheets)
            combo.setCurrentText(item.sheet or "")
            combo.currentTextChanged.connect(lambda s, it=item: self._sheet_changed(it, s))
            tl.setCellWidget(r, 2, combo)
        if item.loaded is not None:
            combo = QComboBox()
            combo.setAccessibleName(f"Key column of {item.path.name}")
            combo.addItems([str(c) for c in item.loaded.frame.columns])
            if item.key:
                combo.setCurrentText(item.key)
            combo.currentTextChanged.connect(lambda k, it=item: self._key_chosen(it, k))
            tl.setCellWidget(r, 3, combo)

    def _key_chosen(self, item: PendingTable, key: str) -> None:
        item.key, item.key_chosen = key, True

    def _sheet_changed(self, item: PendingTable, sheet: str) -> None:
        item.sheet = sheet
        item.key, item.key_chosen = None, False
        self._read(item)

    def _clear_preview(self) -> None:
        self._shown += 1  # previews still to be added (in turns) are of another extract
        self.preview_tabs.clear()
        self._models = []
        self.report.clear()

    def _add_preview(self, table: LoadedTable) -> None:
        view = QTableView()
        view.setAccessibleName(f"Preview of {table.name}")
        model = FrameModel(table.frame, view)
        view.setModel(model)
        view.setAlternatingRowColors(True)
        view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 6)
        view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        view.verticalHeader().setToolTip("Line number in the file")
        size_columns_from_sample(view)
        self._models.append((table.name, model))
        self.preview_tabs.addTab(view, f"{table.name} ({len(table.frame):,} rows)")

    def _refresh_preview_pending(self) -> None:
        self._clear_preview()
        tables = [p.loaded for p in self.pending if p.loaded is not None]
        for t in tables:
            self._add_preview(t)
        self._write_report(tables)
        self._update_masks()

    def _show_extract(self) -> None:
        self._clear_preview()
        extract = self.session.extract
        if extract is None:
            return
        tables = list(extract.tables)
        # ~10 ms a table at a million rows: then a table, the report, the list per turn
        large, shown = sum(len(t.frame) for t in tables) >= SLICE_ROWS, self._shown
        self._add_previews(tables, shown, large)
        for part in (lambda: self._write_report(tables), self._refresh_list):
            self.session.now_or_later(self, lambda p=part: shown == self._shown and p(), large)
        self.readinessChanged.emit()

    def _add_previews(self, tables: list[LoadedTable], shown: int, one_per_turn: bool) -> None:
        """The tables' previews (each masked before any paint), unless replaced since."""
        if shown != self._shown:
            return
        now = tables[:1] if one_per_turn else tables
        for t in now:
            self._add_preview(t)
        self._update_masks()
        if rest := tables[len(now) :]:
            self.session.later(self, lambda: self._add_previews(rest, shown, True))

    def _update_masks(self) -> None:
        project = self.session.project
        for name, model in self._models:
            masked: list[str] = []
            if not self.show_values.isChecked():
                if project is not None:
                    try:
                        masked = [c.name for c in project.table(name).by_class(ColumnClass.DIRECT)]
                    except KeyError:
                        masked = [str(c) for c in model.frame.columns]
                else:
                    item = next(
                        (p for p in self.pending if p.loaded and p.loaded.name == name), None
                    )
                    if item is not None:
                        masked = [t.name for t in item.tags if t.cls == ColumnClass.DIRECT]
            model.set_masked(masked)

    def _write_report(self, tables: list[LoadedTable]) -> None:
        project = self.session.project
        parts: list[str] = []
        for t in tables:
            r = t.report
            lines = [
                f"<h3>{_esc(r.file)}</h3><ul>",
                f"<li>{r.rows:,} rows, {r.columns} columns</li>",
            ]
            if r.encoding:
                lines.append(f"<li>Encoding: {_esc(r.encoding)}</li>")
            if r.delimiter:
                shown = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}.get(
                    r.delimiter, r.delimiter
                )
                lines.append(f"<li>Delimiter: {_esc(shown)}</li>")
            if r.sheet:
                lines.append(f"<li>Sheet: {_esc(r.sheet)}</li>")
            if r.formula_cells:
                lines.append(
                    f"<li>{r.formula_cells:,} formula cells read as their saved values</li>"
                )
            if project is not None:
                try:
                    spec = project.table(t.name)
                except KeyError:
                    spec = None
                if spec is not None:
                    fmts = [
                        f"{_esc(c.name)} ({_esc(backend.date_format_label(c.date_format))})"
                        for c in spec.columns
                        if c.date_format
                    ]
                    if fmts:
                        lines.append("<li>Date formats found: " + "; ".join(fmts) + "</li>")
            for w in r.warnings:
                lines.append(f"<li><b>Warning:</b> {_esc(w)}</li>")
            lines.append("</ul>")
            parts.append("".join(lines))
        self.report.setHtml("".join(parts) or "<p>Nothing loaded yet.</p>")

    def report_text(self) -> str:
        return self.report.toPlainText()


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
