"""Step 4 — Review, the gate: checks, residual risk and the free-text scan before export."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from PySide6.QtCharts import QBarCategoryAxis, QBarSeries, QBarSet, QChart, QChartView, QValueAxis
from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt, QTimer
from PySide6.QtGui import QPainter, QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStyle,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.model import ColumnClass, FreeTextAction, RiskSettings
from deid_desktop.gui import backend
from deid_desktop.gui.lazy import numpy as np  # loaded at first use, not at start-up
from deid_desktop.gui.models import FrameModel, size_columns_from_sample
from deid_desktop.gui.pages.base import Page
from deid_desktop.gui.pages.pathway import free_text_combo
from deid_desktop.gui.widgets import MessageBanner, heading

DEFAULT_BANDS = "0, 18, 30, 45, 65, 75, 90"
SIZE_BUCKETS = ((1, 1, "1"), (2, 2, "2"), (3, 3, "3"), (4, 4, "4"), (5, 9, "5–9"),
                (10, 19, "10–19"), (20, 49, "20–49"), (50, 10**12, "50+"))  # fmt: skip
DICTIONARY_WARNING = (
    "The scan looks for the names, numbers and addresses found in this extract's own "
    "identifier columns, plus common patterns. It cannot find a name that is in no column "
    "(a relative, a neighbour, a doctor), so it can never prove a note clean. Free text is "
    "suppressed unless you choose to redact it."
)


# -- helpers over the engine's result (ReviewResult: release, verification, risk, scan) --
def blocking_failures(review: Any) -> list[Any]:
    if review is None:
        return []
    return list(review.verification.blocking_failures)


def gate_reason(review: Any) -> str | None:
    """Why export is blocked (None = allowed)."""
    if review is None:
        return "Run the review first (step 4)."
    failed = blocking_failures(review)
    if failed:
        names = ", ".join(o.check.name for o in failed[:3])
        more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
        return f"{len(failed)} blocking check(s) failed: {names}{more}. Fix them in step 2 or 3."
    return None


NoteKey = tuple[str, int, str]  # (table, 0-based row, column)


class NoteHit(NamedTuple):
    """One hit of the note on screen (made on demand, one note at a time)."""

    start: int
    end: int
    kind: str
    rule: str


@dataclass(frozen=True, eq=False)
class _Block:
    """The hits of one column, sorted by row then position, with per-note offsets."""

    table: str
    column: str
    rows: np.ndarray  # the notes (rows) with hits, ascending
    offsets: np.ndarray  # len(rows) + 1 offsets into the arrays below
    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray
    rule: np.ndarray


@dataclass(frozen=True, eq=False)
class NoteIndex:
    """Hits grouped per note as arrays, built off the UI thread: a 1M-row scan has
    ~10^5 notes and ~10^6 hits, and no Python object is made per hit or per note."""

    blocks: tuple[_Block, ...] = ()
    counts: tuple[tuple[str, str, int], ...] = ()  # (table.column, kind, hits)
    total: int = 0

    def __post_init__(self) -> None:
        sizes = [len(b.rows) for b in self.blocks]
        cum = np.concatenate(([0], np.cumsum(sizes))).astype(int) if sizes else (0,)
        object.__setattr__(self, "_cum", cum)

    def __len__(self) -> int:
        return int(self._cum[-1])  # type: ignore[attr-defined]

    def hit_count(self, i: int) -> int:
        block, j = self._locate(i)
        return int(block.offsets[j + 1] - block.offsets[j])

    def _locate(self, i: int) -> tuple[_Block, int]:
        b = int(np.searchsorted(self._cum, i, side="right")) - 1  # type: ignore[attr-defined]
        return self.blocks[b], i - int(self._cum[b])  # type: ignore[attr-defined]

    def note(self, i: int) -> tuple[NoteKey, list[NoteHit]]:
        block, j = self._locate(i)
        lo, hi = int(block.offsets[j]), int(block.offsets[j + 1])
        hits = [
            NoteHit(int(a), int(z), str(k), str(r))
            for a, z, k, r in zip(
                block.start[lo:hi], block.end[lo:hi], block.kind[lo:hi], block.rule[lo:hi],
                strict=True,
            )
        ]  # fmt: skip
        return (block.table, int(block.rows[j]), block.column), hits


def _block(table: str, column: str, row: Any, start: Any, end: Any, kind: Any, rule: Any) -> _Block:
    row, start, end = (np.asarray(a, dtype=np.int64) for a in (row, start, end))
    order = np.lexsort((start, row))
    row = row[order]
    rows, first = np.unique(row, return_index=True)
    offsets = np.append(first, row.size)
    return _Block(
        table, column, rows, offsets, start[order], np.asarray(end)[order],
        np.asarray(kind, dtype=object)[order], np.asarray(rule, dtype=object)[order],
    )  # fmt: skip


def index_notes(scan: Any) -> NoteIndex:
    spans = getattr(scan, "spans", None)
    blocks: list[_Block] = []
    if spans is not None:
        for sp in spans:
            if sp.row.size:
                blocks.append(
                    _block(sp.table, sp.column, sp.row, sp.start, sp.end, sp.kind, sp.rule)
                )
    else:  # an older report: a tuple of Hit objects
        by_col: dict[tuple[str, str], list[Any]] = {}
        for h in getattr(scan, "hits", ()) or ():
            by_col.setdefault((h.table, h.column), []).append(h)
        for (table, column), hs in by_col.items():
            cols = list(zip(*((h.row, *_span(h), h.kind, h.rule) for h in hs), strict=True))
            blocks.append(_block(table, column, *cols))
    counts: list[tuple[str, str, int]] = []
    for b in blocks:
        kinds, n = np.unique(b.kind.astype(str), return_counts=True)
        counts += [(f"{b.table}.{b.column}", str(k), int(c)) for k, c in zip(kinds, n, strict=True)]
    return NoteIndex(tuple(blocks), tuple(counts), sum(int(b.start.size) for b in blocks))


class NotesModel(QAbstractListModel):
    """Virtual list of the notes with hits: text is made only for the visible rows."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.index_ = NoteIndex()

    def set_index(self, index: NoteIndex) -> None:
        self.beginResetModel()
        self.index_ = index
        self.endResetModel()

    def rowCount(self, parent: Any = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.index_)

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
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


class ReviewPage(Page):
    title = "Review"

    def __init__(self, session, runner, parent=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(session, runner, parent)
        self.banner = MessageBanner()
        self.gate = MessageBanner()
        self.rerun_button = QPushButton("Run the review again")
        self.rerun_button.setAccessibleName("Run the review again")
        self.rerun_button.clicked.connect(self.run_review)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Review panels")
        self.tabs.addTab(self._build_checks(), "Checks")
        self.tabs.addTab(self._build_risk(), "Residual risk")
        self.tabs.addTab(self._build_text(), "Free text")

        top = QHBoxLayout()
        top.addWidget(heading("4  Review before export"))
        top.addStretch(1)
        top.addWidget(self.rerun_button)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.gate)
        lay.addWidget(self.banner)
        lay.addWidget(self.tabs, 1)

        session.reviewReady.connect(self._show)
        session.reviewInvalidated.connect(self._invalidated)
        runner.busyChanged.connect(lambda busy: self.rerun_button.setEnabled(not busy))

    # -- readiness ---------------------------------------------------------------------
    def enter_reason(self) -> str | None:
        if self.session.project is None or self.session.extract is None:
            return "Load the extract first (step 1)."
        return None

    def blocker(self) -> str | None:
        return gate_reason(self.session.review)

    def entered(self) -> None:
        if self.session.review is None and not self.runner.busy:
            self.run_review()

    def run_review(self) -> None:
        s = self.session
        if s.project is None or s.extract is None:
            return
        project, extract = s.project, s.extract
        self.banner.clear()
        self.gate.show_info("Building the release in memory and checking it…")

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            result = backend.review(extract, project, progress=progress, cancel=cancel)
            progress(1.0, "Preparing the review")
            return result, index_notes(result.scan)

        def done(value: Any) -> None:
            result, notes = value
            if s.project is project and s.extract is extract:
                self._notes_index = notes
                s.set_review(result)
            else:  # the project changed while the review ran: review the new one
                self._schedule_review()

        self.runner.run(
            job,
            name="review",
            on_success=done,
            on_error=self._failed,
            on_cancel=lambda: self.gate.show_info("The review was cancelled. Nothing was written."),
        )

    def _failed(self, exc: BaseException) -> None:
        self.gate.clear()
        self.banner.show_error(exc)
        self.readinessChanged.emit()

    def _invalidated(self) -> None:
        self.gate.show_info("The project changed: the review will run again.")
        self._schedule_review()
        self.readinessChanged.emit()

    def _schedule_review(self) -> None:
        """Review again once the current job is over, if this page is still shown."""
        if not self.isVisible() or self.session.review is not None:
            return
        if self.runner.busy:
            QTimer.singleShot(50, self._schedule_review)
        else:
            self.run_review()

    # -- checks ------------------------------------------------------------------------
    def _build_checks(self) -> QWidget:
        self.checks = QTreeWidget()
        self.checks.setAccessibleName("Verification checklist")
        self.checks.setHeaderLabels(["Result", "Check", "Count", "What it means"])
        self.checks.setRootIsDecorated(True)
        self.checks.setWordWrap(True)
        self.checks.setAlternatingRowColors(True)
        self.checks.setColumnWidth(0, 90)
        self.checks.setColumnWidth(1, 300)
        self.checks.setColumnWidth(2, 70)
        self.checks_summary = QLabel()
        self.checks_summary.setAccessibleName("Checks summary")
        self.checks_summary.setWordWrap(True)
        w = QWidget()
        lay = QVBoxLayout(w)
        lay.addWidget(self.checks_summary)
        lay.addWidget(self.checks, 1)
        return w

    def _show_checks(self, review: Any) -> None:
        self.checks.clear()
        outcomes = sorted(
            review.verification.outcomes,
            key=lambda o: (o.passed, getattr(o.check, "severity", "") != "blocking"),
        )
        style = self.style()
        for o in outcomes:
            blocking = getattr(o.check, "severity", "blocking") == "blocking"
            if o.passed:
                result, icon = "Pass", QStyle.StandardPixmap.SP_DialogApplyButton
            elif blocking:
                result, icon = "FAIL", QStyle.StandardPixmap.SP_MessageBoxCritical
            else:
                result, icon = "Warning", QStyle.StandardPixmap.SP_MessageBoxWarning
            explanation = getattr(o.check, "explanation", "")
            detail = detail_text(getattr(o, "detail", None))
            rule = getattr(o.check, "rule", "")
            item = QTreeWidgetItem([result, o.check.name, f"{o.count:,}", explanation])
            item.setIcon(0, style.standardIcon(icon))
            item.setToolTip(1, rule)
            item.setToolTip(3, f"{explanation}\n\n{detail}" if detail else explanation)
            if detail:
                child = QTreeWidgetItem(["", "", "", detail])
                child.setToolTip(3, detail)
                item.addChild(child)
            if not o.passed:
                font = item.font(1)
                font.setBold(True)
                item.setFont(0, font)
                item.setFont(1, font)
            self.checks.addTopLevelItem(item)
            item.setExpanded(not o.passed)  # failed ones show their counts at once
        failed = [o for o in outcomes if not o.passed]
        self.checks_summary.setText(
            f"{len(outcomes) - len(failed)} of {len(outcomes)} checks passed."
            + (f" {len(failed)} failed (listed first)." if failed else "")
        )

    # -- risk --------------------------------------------------------------------------
    def _build_risk(self) -> QWidget:
        figures = QGridLayout()
        # Room between the figures; the row sits above the splitter, across the whole tab,
        # so the widest value never runs into the controls on the right.
        figures.setHorizontalSpacing(figures.horizontalSpacing() + 24)
        self.figure_labels: dict[str, QLabel] = {}
        for i, (key, title, tip) in enumerate(
            (
                ("k", "k (smallest class)", "Every record shares its quasi-identifiers with at "
                 "least k−1 others. One lone record makes k = 1."),
                ("classes", "Classes", "Groups of records with the same quasi-identifiers."),
                ("lone", "Lone records", "Records alone in their class (class size 1)."),
                ("below_k", "Records below k target", "Records in classes smaller than the "
                 "k target."),
                ("prosecutor", "Prosecutor risk (max / mean)", "1 / class size: the highest, "
                 "and the mean over records."),
            )
        ):  # fmt: skip
            title_label = QLabel(title)
            title_label.setToolTip(tip)
            value = QLabel("—")
            value.setAccessibleName(title)
            value.setToolTip(tip)
            font = value.font()
            font.setBold(True)
            font.setPointSizeF(font.pointSizeF() * 1.4)
            value.setFont(font)
            figures.addWidget(title_label, 0, i)
            figures.addWidget(value, 1, i)
            self.figure_labels[key] = value
        figures.setColumnStretch(5, 1)
        self.rescue_label = QLabel()
        self.rescue_label.setWordWrap(True)

        self.chart = QChart()
        self.chart.setTitle("Records by class size")
        self.chart.legend().setVisible(False)
        self.chart.setBackgroundVisible(False)
        self.chart_view = QChartView(self.chart)
        self.chart_view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.chart_view.setAccessibleName("Chart of records by class size")
        self.chart_view.setMinimumHeight(180)

        self.lone_model = FrameModel()
        self.lone_view = QTableView()
        self.lone_view.setModel(self.lone_model)
        self.lone_view.setAccessibleName("Lone records and the combination that isolates them")
        self.lone_view.verticalHeader().setVisible(False)
        self.lone_view.setAlternatingRowColors(True)

        # controls
        self.qi_list = QListWidget()
        self.qi_list.setAccessibleName("Quasi-identifiers")
        self.qi_list.setToolTip("The columns an attacker could know. Tick the ones to count.")
        self.qi_list.setMaximumHeight(130)
        self.k_target = QSpinBox()
        self.k_target.setRange(2, 1000)
        self.k_target.setAccessibleName("k target")
        self.age_bands_on = QCheckBox("Age in bands:")
        self.age_bands_on.setAccessibleName("Generalize age into bands")
        self.age_bands = QLineEdit(DEFAULT_BANDS)
        self.age_bands.setAccessibleName("Age band lower edges")
        self.age_bands.setToolTip("Lower edges of the bands, e.g. 0, 18, 30, 45, 65, 75, 90.")
        self.drop_zip3 = QCheckBox("Drop ZIP3")
        self.drop_zip3.setAccessibleName("Drop the three-digit ZIP")
        self.drop_zip3.setToolTip("Remove the ZIP3 column from the release.")
        self.suppress = QCheckBox("Suppress rows below k")
        self.suppress.setAccessibleName("Suppress rows in classes below the k target")
        self.suppress_preview = QLabel()
        self.suppress_preview.setWordWrap(True)
        self.suppress_preview.setAccessibleName("Rows that suppression would remove")
        self.apply_button = QPushButton("Apply and review again")
        self.apply_button.setAccessibleName("Apply the risk settings and review again")
        self.apply_button.clicked.connect(self.apply_risk_settings)
        self.k_target.valueChanged.connect(self._update_suppress_preview)
        self.qi_list.itemChanged.connect(self._update_suppress_preview)

        controls = QGroupBox("Raise k: generalize first, suppress last")
        form = QFormLayout(controls)
        form.addRow("Quasi-identifiers:", self.qi_list)
        form.addRow("k target:", self.k_target)
        bands = QHBoxLayout()
        bands.addWidget(self.age_bands_on)
        bands.addWidget(self.age_bands, 1)
        form.addRow(bands)
        form.addRow(self.drop_zip3)
        form.addRow(self.suppress)
        form.addRow(self.suppress_preview)
        form.addRow(self.apply_button)
        controls_box = QWidget()
        cb = QVBoxLayout(controls_box)
        cb.setContentsMargins(6, 0, 0, 0)
        cb.addWidget(controls)
        cb.addStretch(1)

        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.chart_view, 1)
        ll.addWidget(QLabel("Lone records (what isolates each one):"))
        ll.addWidget(self.lone_view, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(controls_box)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        # Start with the chart and table wide (their axis labels and columns need it); the
        # sizes are scaled to the real width when the tab is first laid out.
        split.setSizes([700, 300])
        w = QWidget()
        lay = QVBoxLayout(w)
        lay.addLayout(figures)
        lay.addWidget(self.rescue_label)
        lay.addWidget(split, 1)
        return w

    def _show_risk(self, review: Any) -> None:
        risk = review.risk
        f = self.figure_labels
        if risk is None:
            for v in f.values():
                v.setText("—")
            self.rescue_label.setText("No quasi-identifier is tagged: nothing to count.")
            return
        f["k"].setText("—" if risk.k is None else f"{risk.k:,}")
        f["classes"].setText(f"{risk.classes:,}")
        f["lone"].setText(f"{risk.lone:,}")
        f["below_k"].setText(f"{risk.below_k:,} (target {risk.k_target})")
        f["prosecutor"].setText(f"{risk.prosecutor_max:.2f} / {risk.prosecutor_mean:.3f}")
        rescue = risk.best_rescue
        self.rescue_label.setText(
            f"Generalizing “{rescue.quasi_identifier}” would rescue {rescue.rescued:,} of the "
            f"{risk.lone:,} lone records."
            if rescue
            else ""
        )
        self._show_chart(risk)
        self.lone_model.set_frame(self._lone_frame(review))
        size_columns_from_sample(self.lone_view)

        # controls from the project (what the next review will use)
        settings = self.session.project.risk if self.session.project else RiskSettings()
        self.qi_list.blockSignals(True)
        self.qi_list.clear()
        chosen = set(risk.quasi_identifiers)
        for col in self._candidate_qis(review):
            item = QListWidgetItem(col)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if col in chosen else Qt.CheckState.Unchecked)
            self.qi_list.addItem(item)
        self.qi_list.blockSignals(False)
        self.k_target.blockSignals(True)
        self.k_target.setValue(settings.k_target)
        self.k_target.blockSignals(False)
        self.age_bands_on.setChecked(bool(settings.age_bands))
        if settings.age_bands:
            self.age_bands.setText(", ".join(str(b) for b in settings.age_bands))
        self.drop_zip3.setChecked(settings.drop_zip3)
        self.suppress.setChecked(settings.suppress_below_k)
        self._update_suppress_preview()

    def _lone_frame(self, review: Any) -> Any:
        """The lone records with their subject ID (not a row position) and their QIs."""
        lone = review.risk.lone_records
        project = self.session.project
        frame = review.release.tables.get(project.person_table.name) if project else None
        id_col = review.release.id_column
        if frame is None or id_col not in frame.columns or "row" not in lone.columns:
            return lone
        ids = frame[id_col].to_numpy()[lone["row"].to_numpy(dtype="int64")]
        out = lone.drop(columns=["row"])
        out.insert(0, id_col, ids)
        return out.reset_index(drop=True)

    def _candidate_qis(self, review: Any) -> list[str]:
        project = self.session.project
        release = review.release
        person = project.person_table.name if project else None
        frame = release.tables.get(person) if person else None
        columns = [str(c) for c in frame.columns] if frame is not None else []
        chosen = list(review.risk.quasi_identifiers) if review.risk else []
        skip = {release.id_column}
        return chosen + [c for c in columns if c not in chosen and c not in skip]

    def chosen_qis(self) -> list[str]:
        return [
            self.qi_list.item(i).text()
            for i in range(self.qi_list.count())
            if self.qi_list.item(i).checkState() == Qt.CheckState.Checked
        ]

    def _update_suppress_preview(self, *_args: object) -> None:
        review = self.session.review
        if review is None or review.risk is None or self.session.project is None:
            self.suppress_preview.clear()
            return
        frame = review.release.tables.get(self.session.project.person_table.name)
        qis = self.chosen_qis()
        if frame is None or not qis:
            self.suppress_preview.setText("Choose at least one quasi-identifier.")
            return
        risk = review.risk
        if tuple(qis) == tuple(risk.quasi_identifiers) and self.k_target.value() == risk.k_target:
            # the report already counts it: no need to group a million rows again
            share = risk.below_k / risk.rows if risk.rows else 0.0
            self.suppress_preview.setText(
                f"Suppressing would remove {risk.below_k:,} of {risk.rows:,} rows "
                f"({share:.1%}) in {risk.below_k_classes:,} classes below k = {risk.k_target}."
            )
            return
        try:
            p = backend.preview_suppression(frame, qis, self.k_target.value())
        except Exception as exc:
            self.suppress_preview.setText(" ".join(x for x in _plain(exc) if x))
            return
        self.suppress_preview.setText(
            f"Suppressing would remove {p.rows_removed:,} of {p.rows:,} rows "
            f"({p.share:.1%}) in {p.classes_removed:,} classes below k = {p.k_target}."
        )

    def _show_chart(self, risk: Any) -> None:
        chart = self.chart
        chart.removeAllSeries()
        for axis in chart.axes():
            chart.removeAxis(axis)
        bucket_records = [0] * len(SIZE_BUCKETS)
        for cs in risk.class_size_distribution:
            for i, (lo, hi, _label) in enumerate(SIZE_BUCKETS):
                if lo <= cs.size <= hi:
                    bucket_records[i] += cs.records
                    break
        bar = QBarSet("Records")
        bar.append([float(x) for x in bucket_records])
        pal = self.palette()
        bar.setColor(pal.color(QPalette.ColorRole.Highlight))
        bar.setBorderColor(pal.color(QPalette.ColorRole.Highlight))
        series = QBarSeries()
        series.append(bar)
        chart.addSeries(series)
        x = QBarCategoryAxis()
        x.append([b[2] for b in SIZE_BUCKETS])
        x.setTitleText("Class size")
        y = QValueAxis()
        y.setRange(0, max(max(bucket_records), 1) * 1.1)
        y.setLabelFormat("%d")
        y.applyNiceNumbers()
        y.setTitleText("Records")
        text = pal.color(QPalette.ColorRole.WindowText)
        for axis in (x, y):
            axis.setLabelsColor(text)
            axis.setTitleBrush(text)
        chart.setTitleBrush(text)
        chart.addAxis(x, Qt.AlignmentFlag.AlignBottom)
        chart.addAxis(y, Qt.AlignmentFlag.AlignLeft)
        series.attachAxis(x)
        series.attachAxis(y)

    def apply_risk_settings(self) -> None:
        project = self.session.project
        if project is None:
            return
        try:
            bands = (
                tuple(
                    int(b) for b in self.age_bands.text().replace(";", ",").split(",") if b.strip()
                )
                if self.age_bands_on.isChecked()
                else ()
            )
        except ValueError:
            self.banner.show_warning("Age bands: type whole numbers separated by commas.")
            return
        risk = replace(
            project.risk,
            quasi_identifiers=tuple(self.chosen_qis()),
            k_target=self.k_target.value(),
            age_bands=bands,
            drop_zip3=self.drop_zip3.isChecked(),
            suppress_below_k=self.suppress.isChecked(),
        )
        self.session.update(risk=risk)  # invalidates the review, which runs again

    # -- free text ---------------------------------------------------------------------
    def _build_text(self) -> QWidget:
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
        self.prev_hit = QPushButton("Previous hit")
        self.prev_hit.setAccessibleName("Previous hit")
        self.next_hit = QPushButton("Next hit")
        self.next_hit.setAccessibleName("Next hit")
        self.prev_hit.clicked.connect(lambda: self.step_hit(-1))
        self.next_hit.clicked.connect(lambda: self.step_hit(1))
        self.hit_label = QLabel()
        self._notes_index = NoteIndex()
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
        rl.addLayout(nav)
        rl.addWidget(self.note_view, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        for part in (left, mid, right):
            split.addWidget(part)
        split.setSizes([340, 200, 560])
        w = QWidget()
        lay = QVBoxLayout(w)
        lay.addWidget(self.text_warning)
        lay.addWidget(split, 1)
        return w

    def _show_scan(self, review: Any) -> None:
        scan = review.scan
        project = self.session.project
        index = self._notes_index
        self.hit_counts.setRowCount(0)
        rows: list[tuple[str, str, str]] = []
        columns = list(getattr(scan, "columns", ()) or ())
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
        disclaimer = getattr(scan, "disclaimer", None)
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
        sh = project.safe_harbor
        self.session.update(
            safe_harbor=replace(sh, free_text={**sh.free_text, key: FreeTextAction(action)})
        )

    def _note_text(self, table: str, row: int, column: str) -> str:
        extract = self.session.extract
        if extract is None:
            return ""
        value = extract.table(table).frame[column].iat[row]
        return "" if value is None or value is __import__("pandas").NA else str(value)

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
            start, end = _span(h)
            cursor = QTextCursor(self.note_view.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            fmt = QTextCharFormat()
            current = j == hit_index
            fmt.setBackground(pal.color(QPalette.ColorRole.Highlight))
            fmt.setForeground(pal.color(QPalette.ColorRole.HighlightedText))
            fmt.setFontUnderline(current)
            fmt.setFontWeight(700 if current else 400)
            fmt.setToolTip(f"{h.kind} ({getattr(h, 'rule', '')})")
            sel = QTextEdit.ExtraSelection()
            sel.cursor = cursor  # type: ignore[attr-defined]
            sel.format = fmt  # type: ignore[attr-defined]
            selections.append(sel)
        self.note_view.setExtraSelections(selections)
        if hit_index >= 0:
            start, _ = _span(hits[hit_index])
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
        self.notes.setCurrentIndex(self.notes_model.index(note))
        self.notes.selectionModel().blockSignals(False)
        self._show_note(note, hit)
        self.hit_label.setText(
            f"Note {note + 1:,} of {len(notes):,}, hit {hit + 1} of {notes.hit_count(note)}"
        )

    # -- all together ------------------------------------------------------------------
    def _show(self) -> None:
        review = self.session.review
        if review is None:
            return
        self.banner.clear()
        self._show_checks(review)
        self._show_risk(review)
        self._show_scan(review)
        reason = gate_reason(review)
        if reason:
            self.gate.show_error_text(f"Export is blocked. {reason}")
        else:
            warnings = list(getattr(review.release, "warnings", ()))
            self.gate.show_info(
                "Every blocking check passed: you can export (step 5)."
                + ("\n" + "\n".join(warnings) if warnings else "")
            )
        self.readinessChanged.emit()


def detail_text(detail: Any) -> str:
    """A check's detail (counts and column names from core, never values) in one line."""
    if not detail:
        return ""
    if not isinstance(detail, dict):
        return str(detail)
    parts: list[str] = []
    for key, value in detail.items():
        if value in ({}, [], (), None, ""):
            continue
        label = str(key).replace("_", " ")
        if isinstance(value, dict):
            inner = ", ".join(
                f"{k} {detail_text(v) if isinstance(v, dict) else v}" for k, v in value.items()
            )
            parts.append(f"{label}: {inner}")
        elif isinstance(value, list | tuple):
            parts.append(f"{label}: {', '.join(str(v) for v in value)}")
        else:
            parts.append(f"{label}: {value}")
    return "; ".join(parts)


def _span(hit: Any) -> tuple[int, int]:
    span = getattr(hit, "span", None)
    if span is not None:
        return int(span[0]), int(span[1])
    return int(hit.start), int(hit.end)


def _plain(exc: BaseException) -> tuple[str, str]:
    from deid_desktop.gui.widgets import plain_error

    return plain_error(exc)
