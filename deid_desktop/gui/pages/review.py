"""Step 4 — Review, the gate: checks, residual risk and the free-text scan before export."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCharts import QChart, QChartView
from PySide6.QtCore import (
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStyle,
    QTableView,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.model import RiskSettings
from deid_desktop.core.steps import Step
from deid_desktop.gui import backend, child_job
from deid_desktop.gui.bar_chart import draw_class_sizes
from deid_desktop.gui.models import FrameModel, size_columns_from_sample
from deid_desktop.gui.pages.base import Page
from deid_desktop.gui.pages.review_failures import FailurePanel, detail_text
from deid_desktop.gui.pages.review_generalize import GeneralizeSection
from deid_desktop.gui.pages.review_intruder import IntruderPanel
from deid_desktop.gui.pages.review_text import FreeTextPanel
from deid_desktop.gui.widgets import MessageBanner, VerdictBanner, heading, plain_error

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd

    from deid_desktop.core.engine import ReviewResult
    from deid_desktop.core.scan.notes import NoteIndex
    from deid_desktop.core.verify import CheckOutcome

DEFAULT_BANDS = "0, 18, 30, 45, 65, 75, 90"
RISK_TAB = 1  # the "Residual risk" tab, where the verdict's next steps are done
#: From this many rows (all tables) the review's tabs are drawn one per turn of the loop.
STEPWISE_ROWS = 200_000


# -- helpers over the engine's result (ReviewResult: release, verification, risk, scan) --
def blocking_failures(review: ReviewResult | None) -> list[CheckOutcome]:
    if review is None:
        return []
    return list(review.verification.blocking_failures)


def gate_reason(review: ReviewResult | None) -> str | None:
    """Why export is blocked (None = allowed)."""
    if review is None:
        return f"Run the review first ({Step.REVIEW.short})."
    failed = blocking_failures(review)
    if failed:
        word = "check" if len(failed) == 1 else "checks"
        return (
            f"{len(failed)} blocking {word} failed. Each is said below the checklist, "
            "with a Go to button that opens the step and the column to fix."
        )
    return None


class ReviewPage(Page):
    step = Step.REVIEW
    #: a failed check's "Go to": the step, then the table and column to select there
    goToRequested = Signal(object, object, object)

    def __init__(self, session, runner, parent=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(session, runner, parent)
        self.banner = MessageBanner()
        self._error = False  # the last review failed (its message is in the banner)
        self._drawn = 0  # how many times a review was drawn (a queued part is of one)
        self.gate = MessageBanner()
        self.verdict = VerdictBanner()
        self.verdict.action.setText("Open the residual risk tab")
        self.verdict.action.setAccessibleName("Open the residual risk tab")
        self.verdict.action.clicked.connect(lambda: self.tabs.setCurrentIndex(RISK_TAB))
        self.rerun_button = QPushButton("&Run the review again")
        self.rerun_button.setAccessibleName("Run the review again")
        self.rerun_button.clicked.connect(self.run_review)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Review panels")
        self.tabs.addTab(self._build_checks(), "Checks")
        self.tabs.addTab(self._build_risk(), "Residual risk")
        self.text = FreeTextPanel(session)
        from deid_desktop.core.scan.notes import NoteIndex  # numpy: load on use

        self._notes_index = NoteIndex()  # of the review on screen (built with it)
        #: the lone records shown, and the risk report they are of (built with the review)
        self._lone: tuple[object, pd.DataFrame] | None = None
        self.tabs.addTab(self.text, "Free text")
        self.intruder = IntruderPanel(session, runner)  # intruder test, across releases, cells
        self.tabs.addTab(self.intruder, "What an intruder could do")

        top = QHBoxLayout()
        top.addWidget(heading(self.step.heading("Review before export")))
        top.addStretch(1)
        top.addWidget(self.rerun_button)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.gate)
        lay.addWidget(self.verdict)
        lay.addWidget(self.banner)
        lay.addWidget(self.tabs, 1)

        session.reviewReady.connect(self._show)
        session.intruderReady.connect(self._show_verdict)
        session.reviewInvalidated.connect(self._invalidated)
        runner.busyChanged.connect(lambda busy: self.rerun_button.setEnabled(not busy))

    # -- readiness ---------------------------------------------------------------------
    def enter_reason(self) -> str | None:
        if self.session.project is None or self.session.extract is None:
            return f"Load the extract first ({Step.LOAD.short})."
        return None

    def blocker(self) -> str | None:
        if self.session.review is None:  # on this step: say what is going on here
            if self._error:
                return "The review did not finish: fix what the message above says."
            return "The review is running…" if self.runner.busy else "The review has not run."
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
        self._error = False
        self.gate.show_info("Building the release in memory and checking it…")
        from deid_desktop.gui.scan_panel import held_back_of

        held_back = held_back_of(s)  # its word list joins the scan

        def work(progress, cancel, salt):  # type: ignore[no-untyped-def]
            result = backend.review(
                extract, project, progress=progress, cancel=cancel, held_back=held_back, salt=salt
            )
            progress(1.0, "Preparing the review")
            from deid_desktop.core.scan.notes import index_notes  # numpy: on use

            # what the page shows of a million rows is made here, not on the UI thread
            person = project.person_table.name
            lone = None if result.risk is None else backend.lone_records(result, person)
            return result, index_notes(result.scan), lone

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            salt = backend.salt_for(project)  # the keyring is asked here, not in a child
            # at a million rows in a child process: its long C calls cannot hold the window
            return child_job.call(
                partial(work, salt=salt), progress, cancel, rows=child_job.extract_rows(extract)
            )

        def done(value: tuple[ReviewResult, NoteIndex, pd.DataFrame | None]) -> None:
            result, notes, lone = value
            if s.project is project and s.extract is extract:
                self._notes_index = notes
                self._lone = None if lone is None else (result.risk, lone)
                s.review_word_folder = held_back
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
        """The review did not finish: nothing of an older review stays on screen."""
        self._drawn += 1  # nor a part of it still queued
        self.gate.clear()
        self.verdict.clear()
        self.checks.clear()
        self.failures.show_failures([])
        self.checks_summary.setText("No checks: the review did not finish.")
        for label in self.figure_labels.values():
            label.setText("—")
        self.rescue_label.clear()
        self.banner.show_error(exc)
        self._error = True
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
        self.failures = FailurePanel()
        self.failures.goToRequested.connect(self.goToRequested)
        w = QWidget()
        lay = QVBoxLayout(w)
        lay.addWidget(self.checks_summary)
        lay.addWidget(self.failures)
        lay.addWidget(self.checks, 1)
        return w

    def _show_checks(self, review: ReviewResult) -> None:
        from deid_desktop.core.verify import BLOCKING  # pandas: load on use
        from deid_desktop.core.verify.plain import plain_failure

        self.checks.clear()
        outcomes = sorted(
            review.verification.outcomes,
            key=lambda o: (o.passed, o.check.severity != BLOCKING),
        )
        style = self.style()
        for o in outcomes:
            blocking = o.check.severity == BLOCKING
            if o.passed:
                result, icon = "Pass", QStyle.StandardPixmap.SP_DialogApplyButton
            elif blocking:
                result, icon = "FAIL", QStyle.StandardPixmap.SP_MessageBoxCritical
            else:
                result, icon = "Warning", QStyle.StandardPixmap.SP_MessageBoxWarning
            explanation = o.check.explanation
            detail = detail_text(o.detail)
            if not o.passed:  # the plain sentence first; the raw counts stay in the tooltip
                detail = plain_failure(o).sentence
            rule = o.check.rule
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
        self.failures.show_failures([o for o in failed if o.check.severity == BLOCKING])
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
        self.not_counted = QLabel()  # released columns left out of k (core names them)
        self.not_counted.setWordWrap(True)
        self.not_counted.setAccessibleName("Released, not counted")

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
        lay.addWidget(self.not_counted)
        self.generalize = GeneralizeSection(self.session, self.runner, split)
        lay.addWidget(self.generalize, 1)
        return w

    def _show_risk(self, review: ReviewResult) -> None:
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
        left_out = ", ".join(risk.released_not_counted)
        self.not_counted.setText(
            f"Released, not counted: {left_out}. An intruder who knows them could use them: "
            "tick them under Quasi-identifiers to count them."
            if left_out
            else ""
        )
        self.not_counted.setVisible(bool(left_out))
        sizes = [(cs.size, cs.records) for cs in risk.class_size_distribution]
        draw_class_sizes(self.chart, self.palette(), sizes)
        self.generalize.show_review(review)
        if self._lone is None or self._lone[0] is not risk:  # else built with the review
            project = self.session.project
            person = project.person_table.name if project else None
            self._lone = (risk, backend.lone_records(review, person))
        self.lone_model.set_frame(self._lone[1])
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

    def _candidate_qis(self, review: ReviewResult) -> list[str]:
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
            self.suppress_preview.setText(" ".join(x for x in plain_error(exc) if x))
            return
        self.suppress_preview.setText(
            f"Suppressing would remove {p.rows_removed:,} of {p.rows:,} rows "
            f"({p.share:.1%}) in {p.classes_removed:,} classes below k = {p.k_target}."
        )

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

    # -- all together ------------------------------------------------------------------
    def _show_verdict(self) -> None:
        """Only the verdict reads the intruder test's figures (the checks, the risk and
        the notes are the review's own): redrawing them all held the window 0.2 s at 1M."""
        if self.session.review is not None:
            self.verdict.show_verdict(self.session.review.verdict)

    def _show(self) -> None:
        """Draw the review: the verdict, the gate and the tab on screen at once; at
        ``STEPWISE_ROWS`` and more, each other tab on its own turn of the event loop
        (all at once held the window ~25 ms at a million persons, plus the paint)."""
        review = self.session.review
        self._drawn += 1  # what is still queued for an earlier review is dropped
        if review is None:
            return
        self.banner.clear()
        self.verdict.show_verdict(review.verdict)
        parts = [
            (self.tabs.indexOf(self.text), partial(self.text.show_scan, review, self._notes_index)),
            (RISK_TAB, partial(self._show_risk, review)),
            (0, partial(self._show_checks, review)),
        ]
        parts.sort(key=lambda p: p[0] != self.tabs.currentIndex())  # the tab on screen first
        extract = self.session.extract
        stepwise = extract is not None and child_job.extract_rows(extract) >= STEPWISE_ROWS
        if stepwise:  # the search panel too, built while the user reads (not on Find)
            parts.append((-1, self.generalize.prepare_panel))
        for i, (_tab, draw) in enumerate(parts):
            if i and stepwise:  # each on a turn of its own
                self.session.later(self, partial(self._draw_later, self._drawn, draw))
            else:
                draw()
        reason = gate_reason(review)
        if reason:
            self.gate.show_error_text(f"Export is blocked. {reason}")
        else:
            warnings = list(review.release.warnings)
            low = review.verdict is None or review.verdict.colour == "green"
            self.gate.show_info(
                f"Every blocking check passed: you can export ({Step.EXPORT.short})."
                if low
                else f"Every blocking check passed. Weigh the residual risk below before you "
                f"export ({Step.EXPORT.short})." + ("\n" + "\n".join(warnings) if warnings else "")
            )
        self.readinessChanged.emit()

    def _draw_later(self, drawn: int, draw: Callable[[], None]) -> None:
        if drawn == self._drawn:  # no review drawn or failed since
            draw()
