"""Step 5 — Export: where the release and the crosswalk go, for whom, and the record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.errors import DeidError
from deid_desktop.core.held_back import default_folders, word_lists_differ
from deid_desktop.core.pathways.registry import pathway_spec, preconditions
from deid_desktop.core.steps import Step
from deid_desktop.gui import backend
from deid_desktop.gui.pages.base import Page
from deid_desktop.gui.pages.review import gate_reason
from deid_desktop.gui.session import on_own_turn
from deid_desktop.gui.widgets import (
    FolderPicker,
    MessageBanner,
    VerdictBanner,
    heading,
    note,
    wrap,
)

if TYPE_CHECKING:
    from deid_desktop.core.export import ExportRecord

CROSSWALK_WHY = (
    "The crosswalk links each released code back to the person. It must never travel with "
    "the release (45 CFR 164.514(c)): keep it in a separate, protected folder that stays here."
)


class ExportPage(Page):
    step = Step.EXPORT

    def __init__(self, session, runner, parent=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(session, runner, parent)
        self._filling = False  # setting the default folders: one check after both
        self._updating = False
        #: saves the project (asking where when it has no file yet); False: not saved
        self.save_project: Callable[[], bool] = lambda: False
        self.banner = MessageBanner()
        self.release_dir = FolderPicker("Release folder", "Release folder")
        self.crosswalk_dir = FolderPicker("Crosswalk folder", "Crosswalk folder")
        self.crosswalk_dir.setToolTip(CROSSWALK_WHY)
        self.release_dir.changed.connect(self._validate)
        self.crosswalk_dir.changed.connect(self._crosswalk_changed)
        self.csv = QCheckBox("CS&V (UTF-8)")
        self.csv.setAccessibleName("Write CSV files")
        self.xlsx = QCheckBox("E&xcel (XLSX)")
        self.xlsx.setAccessibleName("Write Excel files")
        fmt = QHBoxLayout()
        fmt.addWidget(self.csv)
        fmt.addWidget(self.xlsx)
        fmt.addStretch(1)
        self.purpose = QLineEdit()
        self.recipient = QLineEdit()
        self.retention = QLineEdit()
        self.dua = QLineEdit()
        for edit, name, hint in (
            (self.purpose, "Purpose", "e.g. secondary analysis of the HF-HOME trial"),
            (self.recipient, "Recipient", "who receives the release"),
            (self.retention, "Retention period", "e.g. 5 years, then destroy"),
            (self.dua, "Data use agreement reference", "e.g. DUA-2026-014"),
        ):
            edit.setAccessibleName(name)
            edit.setPlaceholderText(hint)
        for w in (self.csv, self.xlsx):
            w.toggled.connect(self._meta_changed)
        for e in (self.purpose, self.recipient, self.retention, self.dua):
            e.editingFinished.connect(self._meta_changed)

        where = QGroupBox("Where")
        wf = QFormLayout(where)
        wf.addRow("&Release folder:", self.release_dir)
        wf.addRow("Cross&walk folder:", self.crosswalk_dir)
        for picker in (self.release_dir, self.crosswalk_dir):  # Alt+letter: to its path
            label = wf.labelForField(picker)
            if isinstance(label, QLabel):
                label.setBuddy(picker.edit)
        why = note(CROSSWALK_WHY)
        wf.addRow(why)
        wf.addRow("Formats:", wrap(fmt))
        record = QGroupBox("For the export record")
        rf = QFormLayout(record)
        rf.addRow("Pur&pose:", self.purpose)
        rf.addRow("Re&cipient:", self.recipient)
        rf.addRow("Retention peri&od:", self.retention)
        rf.addRow("Data &use agreement:", self.dua)

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName("Export summary")
        self.export_button = QPushButton("Expor&t")
        self.export_button.setAccessibleName("Export the release")
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.export)
        self.export_reason = QLabel()
        self.export_reason.setWordWrap(True)
        self.export_reason.setAccessibleName("Why export is not available")

        self.files = QTableWidget(0, 4)
        self.files.setHorizontalHeaderLabels(["File", "Folder", "Size", "SHA-256"])
        self.files.setAccessibleName("Files written")
        self.files.verticalHeader().setVisible(False)
        self.files.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.files.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.files.setColumnWidth(0, 230)
        self.files.setColumnWidth(1, 110)
        self.files.setColumnWidth(2, 80)
        self.files.setMinimumHeight(220)
        self.open_release = QPushButton("Open release folder")
        self.open_release.setAccessibleName("Open the release folder")
        self.open_release.clicked.connect(lambda: self._open(self._written_dir))
        self.open_crosswalk = QPushButton("Open crosswalk folder")
        self.open_crosswalk.setAccessibleName("Open the crosswalk folder")
        self.open_crosswalk.clicked.connect(lambda: self._open(self._crosswalk_written))
        self.result_box = QGroupBox("Written")
        rl = QVBoxLayout(self.result_box)
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        rl.addWidget(self.result_label)
        rl.addWidget(self.files)
        ob = QHBoxLayout()
        ob.addStretch(1)
        ob.addWidget(self.open_crosswalk)
        ob.addWidget(self.open_release)
        rl.addLayout(ob)
        self.result_box.setVisible(False)
        self._written_dir: Path | None = None
        self._crosswalk_written: Path | None = None

        self.verdict = VerdictBanner(compact=True)
        go = QHBoxLayout()
        go.addWidget(self.export_reason, 1)
        go.addWidget(self.export_button)

        content = QWidget()
        lay = QVBoxLayout(content)
        lay.addWidget(heading(self.step.heading("Export the release")))
        lay.addWidget(self.verdict)
        lay.addWidget(where)
        lay.addWidget(record)
        summary_box = QGroupBox("What the export will do")
        QVBoxLayout(summary_box).addWidget(self.summary)
        lay.addWidget(summary_box)
        lay.addLayout(go)
        lay.addWidget(self.banner)
        lay.addWidget(self.result_box)
        lay.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)  # flush like the other steps
        self.scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # not a Tab stop: its controls are
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll)

        session.projectChanged.connect(self._refresh)
        # drawn after the Review page that is on screen, on its own turn at a million rows
        session.reviewReady.connect(on_own_turn(session, self, self._refresh))
        session.intruderReady.connect(on_own_turn(session, self, self._refresh))
        session.reviewInvalidated.connect(self._refresh)
        session.projectOpened.connect(self._reset)
        runner.busyChanged.connect(lambda _b: self._validate())

    # -- readiness ---------------------------------------------------------------------
    def enter_reason(self) -> str | None:
        if self.session.project is None or self.session.extract is None:
            return f"Load the extract first ({Step.LOAD.short})."
        return gate_reason(self.session.review)

    def blocker(self) -> str | None:
        return self.export_blocker()

    def export_blocker(self) -> str | None:
        reason = gate_reason(self.session.review)
        if reason:
            return reason
        out, cw = self.release_dir.path, self.crosswalk_dir.path
        if out is None:
            return "Choose the release folder."
        if cw is None:
            return "Choose the crosswalk folder."
        if self._word_list_differs(cw):
            return (
                "The crosswalk folder holds another word list than the one the review "
                f"scanned with: run the review again ({Step.REVIEW.short})."
            )
        try:  # the folder rule is core's (the export refuses the same folders)
            from deid_desktop.core.export import check_placement  # pandas: on use

            check_placement(out, cw)
        except DeidError as exc:
            return exc.message
        if not (self.csv.isChecked() or self.xlsx.isChecked()):
            return "Choose at least one format."
        project = self.session.project
        if project is None:
            return None
        meta = replace(project.export, dua=self.dua.text().strip())
        problems = preconditions(replace(project, export=meta))
        return problems[0].message if problems else None

    def _crosswalk_changed(self) -> None:
        """The project word list lives in the crosswalk folder (as for ``deid run
        --crosswalk-dir``): the next review scans with that folder's list."""
        self.session.crosswalk_dir = self.crosswalk_dir.path
        self._validate()

    def _word_list_differs(self, crosswalk: Path) -> bool:
        """Whether the word list of ``crosswalk`` is not the one the review used."""
        used = self.session.review_word_folder
        return used is not None and word_lists_differ(crosswalk, used)

    # -- display -----------------------------------------------------------------------
    def _reset(self) -> None:
        """A project was opened or created: forget the last one's folders and result."""
        self.result_box.setVisible(False)
        self.banner.clear()
        self.release_dir.set_path(None)
        self.crosswalk_dir.set_path(None)

    def entered(self) -> None:
        self._fill_default_folders()

    def _fill_default_folders(self) -> None:
        """Default folders when the step is opened (a new project learns its place only
        after it is opened): beside the project file, never hidden."""
        project = self.session.project
        if project is None:
            return
        release, crosswalk = default_folders(
            self.session.project_path or self.session.suggested_path, project.name
        )
        self._filling = True  # both folders, then one check (each reads folders)
        try:
            if not self.release_dir.path:
                self.release_dir.set_path(release)
            if not self.crosswalk_dir.path:
                self.crosswalk_dir.set_path(crosswalk)
        finally:
            self._filling = False
        self._validate()

    def _refresh(self) -> None:
        project = self.session.project
        if project is None:
            return
        self._updating = True
        try:
            meta = project.export
            self.csv.setChecked("csv" in meta.formats)
            self.xlsx.setChecked("xlsx" in meta.formats)
            for edit, value in (
                (self.purpose, meta.purpose),
                (self.recipient, meta.recipient),
                (self.retention, meta.retention),
                (self.dua, meta.dua),
            ):
                if edit.text() != value:
                    edit.setText(value)
        finally:
            self._updating = False
        review = self.session.review
        lines = [f"<b>Pathway:</b> {pathway_spec(project.pathway).label}"]
        if review is not None:
            rel = review.release
            for name, frame in rel.tables.items():
                lines.append(f"<b>{name}:</b> {len(frame):,} rows, {len(frame.columns)} columns")
            if rel.suppressed_rows:
                lost = ", ".join(f"{t}: {n:,}" for t, n in rel.suppressed_rows.items() if n)
                if lost:
                    lines.append(f"<b>Rows suppressed:</b> {lost}")
            if review.risk is not None and review.risk.k is not None:
                lines.append(
                    f"<b>k:</b> {review.risk.k} (target {review.risk.k_target}), "
                    f"{review.risk.lone:,} lone records"
                )
            for t in rel.transformations:
                lines.append(f"• {t}")
        self.summary.setText("<br>".join(lines))
        why = review.risk_acceptance_needed if review is not None and review.passed else None
        self.verdict.body.setVisible(bool(why))  # the paragraph only when a reason is due
        self.verdict.show_verdict(
            None if review is None else review.verdict,
            extra=f"{why} Export asks you for the reason." if why else "",
        )
        self._validate()

    def _validate(self) -> None:
        if self._filling:
            return
        reason = self.export_blocker()
        self.export_button.setEnabled(reason is None and not self.runner.busy)
        self.export_reason.setText(reason or "")
        self.readinessChanged.emit()

    def _meta_changed(self, *_args: object) -> None:
        project = self.session.project
        if self._updating or project is None:
            return
        formats = tuple(f for f, box in (("csv", self.csv), ("xlsx", self.xlsx)) if box.isChecked())
        meta = replace(
            project.export,
            purpose=self.purpose.text().strip(),
            recipient=self.recipient.text().strip(),
            retention=self.retention.text().strip(),
            dua=self.dua.text().strip(),
            formats=formats,
        )
        if meta != project.export:
            # export metadata does not change the release: the review stays valid
            self.session.update(review_stale=False, export=meta)
        self._validate()

    # -- export ------------------------------------------------------------------------
    def export(self) -> None:
        self._meta_changed()
        reason = self.export_blocker()
        s = self.session
        if reason or s.project is None or s.extract is None or s.review is None:
            self.banner.show_warning(reason or "Nothing to export yet.")
            return
        project, review, sample, extract = s.project, s.review, s.sample_review, s.extract
        accepted: str | None = None
        why = review.risk_acceptance_needed
        if why:
            accepted = self.ask_risk_reason(why)
            if not accepted:
                self.banner.show_info(
                    "Export cancelled: the residual risk was not accepted. Nothing was written."
                )
                return
        if s.dirty or s.project_path is None:
            # every decision that changed the release must be in the saved project file,
            # so `deid run` on it writes the same bytes; the record names it and its hash
            if not self.save_project():
                self.banner.show_warning(
                    "Export cancelled: the project was not saved. Save it first, so the "
                    "export record names a project file that reproduces this release."
                )
                return
            if s.project != review.project:  # saving re-stored the input paths only
                review = replace(review, project=s.project)
        path = s.project_path
        out, cw = self.release_dir.path, self.crosswalk_dir.path
        assert out is not None and cw is not None
        self.banner.clear()
        self.result_box.setVisible(False)

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            return backend.export(
                path,
                review,
                project.export,
                extract=extract,
                out_dir=out,
                crosswalk_dir=cw,
                accept_risk=accepted,
                progress=progress,
                cancel=cancel,
                sample_review=sample,
            )

        def done(record: ExportRecord) -> None:
            self._written_dir, self._crosswalk_written = out, cw
            s.set_export_record(record)
            self._show_record(record, out)

        self.runner.run(
            job,
            name="export",
            on_success=done,
            on_error=self.banner.show_error,
            on_cancel=lambda: self.banner.show_info("Export cancelled. Nothing was written."),
        )

    def ask_risk_reason(self, why: str) -> str | None:
        """Ask the sender to accept the residual risk, with a reason (None: declined)."""
        text, ok = QInputDialog.getMultiLineText(
            self,
            "Accept the residual risk",
            f"{why}\n\nTo export anyway, say why this risk is acceptable (for example the "
            "recipient's secure enclave or the expert's determination). The reason is kept "
            "in the export record.",
        )
        return text.strip() or None if ok else None

    def _show_record(self, record: ExportRecord, out: Path) -> None:
        outputs = backend.record_outputs(record)
        self.files.setRowCount(len(outputs))
        for r, (name, rows, sha) in enumerate(outputs):
            path = Path(name)
            folder = "crosswalk" if path.parent == self.crosswalk_dir.path else "release"
            size = "" if rows is None else _size(rows)
            for c, v in enumerate((path.name, folder, size, sha)):
                item = QTableWidgetItem(v)
                item.setToolTip(str(path) if c == 0 else v)
                self.files.setItem(r, c, item)
        self.result_label.setText(
            f"The release and its record were written to {out}. The crosswalk was written "
            f"to {self.crosswalk_dir.path} — keep it here."
        )
        self.result_box.setVisible(True)
        QTimer.singleShot(0, lambda: self.scroll.ensureWidgetVisible(self.files))

    def _open(self, folder: Path | None) -> None:
        if folder is not None and folder.is_dir():
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024**2:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024**2:.1f} MB"
