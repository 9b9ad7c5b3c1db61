"""Review, "What an intruder could do": the motivated-intruder test, the risk across
releases and the small cells of the event tables.

- The intruder test (``core.attack``) links the release back to the source's own
  demographics on the columns the user ticks (by default the counted quasi-identifiers)
  and shows, as a chart, how many people each target hides among, and in one sentence the
  persons re-identified with certainty and the expected correct matches. It runs in the
  background (the app's ``JobRunner``: progress bar, Cancel) when the tab is shown, or on
  the button; its figures (counts only) go into the review, hence the verdict's paragraph
  and the export record.
- Across releases: what core measured against the earlier releases of the same source
  in the register (``ReviewResult.cross_release``), one warning per release.
- Small cells: the values of event-table columns held by fewer than k persons
  (``ReviewResult.small_cells``), listed on this screen only (the record has counts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCharts import QBarSeries, QChart, QChartView
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.gui import backend, child_job
from deid_desktop.gui.bar_chart import draw_bars
from deid_desktop.gui.session import on_own_turn
from deid_desktop.gui.widgets import plain_error

if TYPE_CHECKING:
    from deid_desktop.core.cross_release import CrossReleaseReport
    from deid_desktop.core.engine import ReviewResult
    from deid_desktop.core.risk.cells import SmallCells
    from deid_desktop.core.risk.intruder import IntruderReport

#: At most this many values are listed under each column (the count says the rest).
MAX_LISTED = 200


def intruder_sentence(report: IntruderReport) -> str:
    """The intruder test's figures in words (counts only)."""
    on = ", ".join(report.on)
    share = report.certain / report.targets if report.targets else 0.0
    return (
        f"An intruder who holds the source's own demographics and links them to the "
        f"release on {on} re-identifies {report.certain:,} of {report.targets:,} persons "
        f"with certainty ({share:.1%}). Picking one look-alike at random for each person, "
        f"they can expect {report.expected_matches:,.1f} correct matches."
    )


def cross_release_text(cross: CrossReleaseReport | None) -> str:
    """The combination with earlier releases, in words (the warnings are core's)."""
    if cross is None:
        return (
            "No earlier release of this source is in the register: there is nothing to "
            "combine this release with."
        )
    n = len(cross.releases)
    head = (
        f"{n} earlier release{'' if n == 1 else 's'} of this source in the register; "
        f"{cross.checked} combined with this one, person by person."
    )
    if cross.warnings:
        return head + "\n" + "\n".join(f"• {w}" for w in cross.warnings)
    return head + (
        f" Combining them isolates no person (k target {cross.k_target})." if cross.checked else ""
    )


def cells_text(cells: tuple[SmallCells, ...]) -> str:
    if not cells:
        return "No event-table column holds codes or categories to count."
    with_small = [c for c in cells if c.small]
    k = cells[0].k
    if not with_small:
        return (
            f"Every value of the {len(cells)} counted event-table column(s) is held by at "
            f"least {k} persons."
        )
    total = sum(c.small for c in with_small)
    return (
        f"{total:,} values in {len(with_small)} event-table column(s) are held by fewer "
        f"than {k} persons: a count that small in a table is a person. Merge them into "
        "broader codes or suppress them before export."
    )


class IntruderPanel(QWidget):
    """The "What an intruder could do" tab of the Review page."""

    def __init__(self, session, runner, parent: QWidget | None = None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(parent)
        self.session = session
        self.runner = runner
        self._running = False
        self._asked: tuple[str, ...] | None = None  # columns of the last test started

        self.on_list = QListWidget()
        self.on_list.setAccessibleName("Columns the intruder knows")
        self.on_list.setToolTip(
            "The released columns an intruder plausibly knows about a person (a voter roll "
            "holds age, sex and ZIP). Tick them, then run the test."
        )
        self.on_list.setMaximumHeight(120)
        self.run_button = QPushButton("Attack this release")
        self.run_button.setAccessibleName("Run the motivated-intruder test")
        self.run_button.setToolTip(
            "Link the release back to the source's own demographics on the ticked columns. "
            "Runs in the background; nothing is written."
        )
        self.run_button.clicked.connect(self.run_test)
        self.sentence = QLabel("The intruder test runs when this tab is shown.")
        self.sentence.setWordWrap(True)
        self.sentence.setAccessibleName("Intruder test result")
        font = self.sentence.font()
        font.setBold(True)
        self.sentence.setFont(font)

        self.chart = self._new_chart()
        self.chart_view = QChartView(self.chart)
        self.chart_view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.chart_view.setAccessibleName("Chart of how many people each person hides among")
        self.chart_view.setMinimumHeight(200)

        self.cross = QLabel()
        self.cross.setWordWrap(True)
        self.cross.setAccessibleName("Risk across releases")
        self.cross.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cells_summary = QLabel()
        self.cells_summary.setWordWrap(True)
        self.cells_summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.cells_summary.setAccessibleName("Small cells summary")
        self.cells = QTreeWidget()
        self.cells.setAccessibleName("Small cells in event tables")
        self.cells.setHeaderLabels(["Table and column / value", "Persons"])
        self.cells.setColumnWidth(0, 260)
        self.cells.setAlternatingRowColors(True)

        knows = QHBoxLayout()
        knows.addWidget(QLabel("The intruder knows:"))
        knows.addWidget(self.on_list, 1)
        knows.addWidget(self.run_button, 0, Qt.AlignmentFlag.AlignTop)
        attack = QGroupBox("Motivated intruder: the release attacked with your own data")
        al = QVBoxLayout(attack)
        al.addLayout(knows)
        al.addWidget(self.sentence)
        al.addWidget(self.chart_view, 1)

        across = QGroupBox("Across releases")
        xl = QVBoxLayout(across)
        xl.addWidget(self.cross)
        small = QGroupBox("Small cells in event tables")
        sl = QVBoxLayout(small)
        sl.addWidget(self.cells_summary)
        sl.addWidget(self.cells, 1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(6, 0, 0, 0)
        rl.addWidget(across)
        rl.addWidget(small, 1)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(attack)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.addWidget(split, 1)

        # a tab of its own: at a million rows drawn on its own turn after the review's
        session.reviewReady.connect(on_own_turn(session, self, self.show_review))
        session.intruderReady.connect(on_own_turn(session, self, self.show_review))
        session.reviewInvalidated.connect(self._invalidated)

    # -- showing ---------------------------------------------------------------------
    def show_review(self) -> None:
        review = self.session.review
        if review is None:
            return
        self._fill_columns(review)
        self.cross.setText(cross_release_text(review.cross_release))
        self._show_cells(review.small_cells)
        if review.intruder is not None:
            self.sentence.setText(intruder_sentence(review.intruder))
            self._show_chart(review.intruder)
        else:
            self.sentence.setText("The intruder test runs when this tab is shown.")
            self._show_chart(None)
            self._maybe_run()

    def _invalidated(self) -> None:
        """Nothing of the old review stays on screen."""
        self.sentence.setText("The project changed: the test runs again after the review.")
        self._show_chart(None)
        self.cross.setText("")
        self._show_cells(())
        self.cells_summary.setText("")

    def _fill_columns(self, review: ReviewResult) -> None:
        chosen = review.intruder.on if review.intruder is not None else review.quasi_identifiers
        person = review.release.tables.get(review.project.person_table.name)
        columns = [] if person is None else [str(c) for c in person.columns]
        candidates = list(chosen) + [
            c for c in columns if c not in chosen and c != review.release.id_column
        ]
        self.on_list.clear()
        for col in candidates:
            item = QListWidgetItem(col)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if col in chosen else Qt.CheckState.Unchecked)
            self.on_list.addItem(item)

    def chosen_columns(self) -> tuple[str, ...]:
        return tuple(
            self.on_list.item(i).text()
            for i in range(self.on_list.count())
            if self.on_list.item(i).checkState() == Qt.CheckState.Checked
        )

    def _show_cells(self, cells: tuple[SmallCells, ...]) -> None:
        self.cells_summary.setText(cells_text(cells))
        self.cells.setVisible(any(c.small for c in cells))
        self.cells.clear()
        for c in cells:
            if not c.small:
                continue
            top = QTreeWidgetItem(
                [f"{c.table}.{c.column}: {c.small:,} of {c.distinct:,} values", f"{c.persons:,}"]
            )
            for value, persons in c.values[:MAX_LISTED]:
                top.addChild(QTreeWidgetItem([value, f"{persons:,}"]))
            if len(c.values) > MAX_LISTED:
                more = len(c.values) - MAX_LISTED
                top.addChild(QTreeWidgetItem([f"… and {more:,} more", ""]))
            self.cells.addTopLevelItem(top)
            top.setExpanded(True)

    @staticmethod
    def _new_chart() -> QChart:
        chart = QChart()
        chart.setTitle("Persons by how many look-alikes they hide among")
        chart.legend().setVisible(False)
        chart.setBackgroundVisible(False)
        return chart

    def _show_chart(self, report: IntruderReport | None) -> None:
        # a fresh chart each time: axes removed from a shown chart may still be painted
        old, chart = self.chart, self._new_chart()
        self.chart = chart
        self.chart_view.setChart(chart)
        old.deleteLater()
        if report is None:
            return
        labels = list(report.hidden_among)
        counts = [float(report.hidden_among[b]) for b in labels]
        series, bar, text = draw_bars(
            chart,
            self.palette(),
            "Persons",
            counts,
            labels,
            "Look-alikes in the intruder's list (0: not found as released)",
            headroom=1.15,
        )
        series.setLabelsVisible(True)
        series.setLabelsFormat("@value")
        series.setLabelsPosition(QBarSeries.LabelsPosition.LabelsOutsideEnd)
        bar.setLabelColor(text)  # the counts above the bars, in the text colour

    # -- running ---------------------------------------------------------------------
    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        self._maybe_run()

    def _maybe_run(self) -> None:
        """Run the test for the review on screen once it is shown and the app is idle."""
        review = self.session.review
        if not self.isVisible() or review is None or review.intruder is not None:
            return
        if self._running:
            return
        if self.runner.busy:
            QTimer.singleShot(100, self._maybe_run)
            return
        self.run_test()

    def run_test(self) -> None:
        s = self.session
        review, extract = s.review, s.extract
        if review is None or extract is None or self._running:
            return
        on = self.chosen_columns() or tuple(review.quasi_identifiers)
        if not on:
            self.sentence.setText("Tick at least one column the intruder knows.")
            return
        self._running = True
        self._asked = on
        self.run_button.setEnabled(False)
        self.sentence.setText("Attacking the release with the source's own demographics…")

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            from deid_desktop.core.attack import with_intruder

            salt = backend.salt_for(review.project)  # the keyring: asked here, not in a child

            # at a million rows in a child process (its long C calls cannot hold the
            # window); only the report comes back, the review stays where it is
            def attack(progress, cancel):  # type: ignore[no-untyped-def]
                return backend.intruder_report(
                    review, extract, on=on, salt=salt, progress=progress, cancel=cancel
                )

            rows = child_job.extract_rows(extract)
            report = child_job.call(attack, progress, cancel, rows=rows)
            return with_intruder(review, report)

        def done(result: ReviewResult) -> None:
            self._finished()
            if s.review is review:  # still the review on screen: keep the figures with it
                s.set_intruder_figures(result)

        def failed(exc: BaseException) -> None:
            self._finished()
            self.sentence.setText(" ".join(x for x in plain_error(exc) if x))

        def cancelled() -> None:
            self._finished()
            self.sentence.setText(
                "The intruder test was cancelled. Press “Attack this release” to run it."
            )

        self.runner.run(job, name="intruder", on_success=done, on_error=failed, on_cancel=cancelled)

    def _finished(self) -> None:
        self._running = False
        self.run_button.setEnabled(True)
