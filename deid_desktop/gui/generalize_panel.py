""" "Find the best generalization": the search in the background, its candidates as a
chart of rows suppressed against information loss (the optimum marked), a preview of
the clicked candidate, and Apply (emits the chosen levels; the host page saves them).

The host calls ``set_input(frame, quasi_identifiers, k)`` with the released person
table, or ``set_loader(fn)`` with a function the search job calls first to build it
(``fn(progress, cancel) -> (frame, quasi_identifiers, hierarchies)``, off the UI
thread), and connects
``applied``. Hierarchies are the built-ins the column names suggest, or those given.
Shows counts and levels only, never a value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.risk.loss import LOSS_EXPLAINED, Figures
from deid_desktop.gui import child_job
from deid_desktop.gui.widgets import MessageBanner
from deid_desktop.gui.workers import JobRunner

#: A table of at least this many rows has its lone records counted in a job.
COUNT_IN_JOB_ROWS = child_job.CHILD_ROWS
_METRICS = (
    ("loss", "Loss (ARX)"),
    ("discernibility", "Discernibility"),
    ("aecs", "Average class size"),
    ("entropy", "Entropy loss"),
    ("precision", "Precision loss"),
    ("iyengar", "Iyengar's loss"),
)


#: One sentence each, for a clinician (tooltips of the panel's figures).
EXPLAIN = {
    "chart": "Each dot is one way of coarsening the columns that reaches k: further right, "
    "more records are left out; higher, more detail is given up. The red dot gives up least.",
    "k": "The smallest number of records that share one combination of these columns; "
    "nobody in the release can be told apart from fewer than k−1 others.",
    "lone": "Records that were the only one with their combination after coarsening; "
    "they are left out of the release.",
    "limit": "The largest share of records that may be left out to reach k.",
    "metric": "What 'least loss' means when the candidates are compared.",
}
#: (progress, cancel) -> (frame, quasi-identifiers, hierarchies), run in the search job
Loader = Callable[[Any, Any], tuple[Any, Sequence[str], Mapping[str, Any]]]


class CandidateChart(QWidget):
    """Rows suppressed (x) against loss (y), one dot per candidate; click to pick."""

    picked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumSize(360, 170)
        self.setAccessibleName("Candidates: rows suppressed against information loss")
        self.setToolTip(EXPLAIN["chart"])
        self.points: list[tuple[float, float]] = []
        self.best = -1
        self.selected = -1
        self.limit = 0.0
        self.top = 1.0

    def set_points(self, points: Sequence[tuple[float, float]], best: int, limit: float) -> None:
        self.points = list(points)
        self.best = best
        self.selected = best
        self.limit = limit
        highest = max((y for _, y in self.points), default=0.0)
        self.top = min(1.0, highest * 1.15) if highest > 0 else 1.0
        self.update()

    def _frame(self) -> QRectF:
        return QRectF(56, 12, max(self.width() - 72, 10), max(self.height() - 48, 10))

    def _xy(self, x: float, y: float) -> QPointF:
        r = self._frame()
        return QPointF(
            r.left() + x / max(self.limit, 1.0) * r.width(), r.bottom() - y / self.top * r.height()
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        r = self._frame()
        palette = self.palette()  # keep it alive: base() and text() refer into it
        p.fillRect(self.rect(), QColor(palette.base().color()))
        p.setPen(QPen(QColor(palette.text().color()), 1))
        p.drawRect(r)
        p.drawText(
            QRectF(r.left(), r.bottom() + 4, r.width(), 18),
            Qt.AlignmentFlag.AlignCenter,
            f"rows suppressed (0 to the limit, {int(self.limit):,})",
        )
        p.save()
        p.translate(14, r.bottom())
        p.rotate(-90)
        p.drawText(
            QRectF(0, 0, r.height(), 18),
            Qt.AlignmentFlag.AlignCenter,
            f"loss (0 to {self.top:.2f})",
        )
        p.restore()
        if self.points:  # the legend, bottom left (no candidate is both cheap and exact)
            at = QPointF(r.left() + 14, r.bottom() - 32)
            p.setBrush(QColor(200, 40, 40))
            p.drawEllipse(at, 5, 5)
            p.drawText(at + QPointF(10, 5), "least loss (optimum)")
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawEllipse(at + QPointF(0, 18), 8, 8)
            p.drawText(at + QPointF(10, 23), "shown on the right")
        for i, (x, y) in enumerate(self.points):
            c = self._xy(x, y)
            if i == self.best:
                p.setBrush(QColor(200, 40, 40))
                p.drawEllipse(c, 6, 6)
            else:
                p.setBrush(QColor(60, 110, 200))
                p.drawEllipse(c, 3.5, 3.5)
            if i == self.selected:
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawEllipse(c, 9, 9)
        p.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if not self.points:
            return
        pos = event.position()
        dist = [(self._xy(x, y) - pos).manhattanLength() for x, y in self.points]
        # dots on the same spot: the optimum wins, then the first
        i = min(range(len(dist)), key=lambda j: (round(dist[j], 3), j != self.best, j))
        if dist[i] < 24:
            self.selected = i
            self.update()
            self.picked.emit(i)


class GeneralizePanel(QWidget):
    """Search, chart, preview and Apply."""

    applied = Signal(dict)  # column -> level
    editHierarchies = Signal()

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.frame: Any = None
        self.columns: list[str] = []
        self.hierarchies: dict[str, Any] = {}
        self.result: Any = None
        self.prepared: Any = None  # the searched table, coded (previews count classes on it)
        self.loader: Loader | None = None
        self.given: dict[str, Any] = {}  # the hierarchies given (not built-in) of the result
        self.chosen: Figures | None = None
        self.lone: dict[tuple[int, ...], int] = {}  # lone records by levels, as counted

        self.k = QSpinBox()
        self.k.setRange(1, 1000)
        self.k.setValue(5)
        self.k.setAccessibleName("k target of the search")
        self.k.setToolTip(EXPLAIN["k"])
        self.limit = QDoubleSpinBox()
        self.limit.setRange(0.0, 100.0)
        self.limit.setValue(5.0)
        self.limit.setSuffix(" %")
        self.limit.setAccessibleName("Largest share of records that may be suppressed")
        self.limit.setToolTip(EXPLAIN["limit"])
        self.metric_box = QComboBox()
        for key, label in _METRICS:
            self.metric_box.addItem(label, key)
        self.metric_box.setAccessibleName("Information loss to minimise")
        self.metric_box.setToolTip(EXPLAIN["metric"] + " " + LOSS_EXPLAINED["loss"])
        self.metric_box.currentIndexChanged.connect(
            lambda _i: self.metric_box.setToolTip(
                EXPLAIN["metric"] + " " + LOSS_EXPLAINED[self.metric_box.currentData()]
            )
        )
        self.find_button = QPushButton("Find the best generalization")
        self.find_button.setAccessibleName("Find the best generalization")
        self.find_button.setToolTip(
            "Try every combination of coarser values and keep the one that reaches k "
            "while giving up the least detail."
        )
        self.find_button.clicked.connect(self.find_best)
        self.hierarchy_button = QPushButton("Edit hierarchies…")
        self.hierarchy_button.setAccessibleName("Edit the hierarchy of a categorical column")
        self.hierarchy_button.setToolTip(
            "Group a column's values and name each group: the search may then release "
            "the group instead of the value."
        )
        self.hierarchy_button.clicked.connect(self.editHierarchies)
        self.apply_button = QPushButton("Apply these levels")
        self.apply_button.setAccessibleName("Apply the chosen levels to the project")
        self.apply_button.setToolTip(
            "Save these levels into the project; the review runs again (Undo puts back "
            "the previous choice)."
        )
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self._apply)
        self.banner = MessageBanner()
        self.summary = QLabel("Run the search to see the candidates.")
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName("Search summary")
        self.chart = CandidateChart()
        self.chart.picked.connect(self._pick)
        self.levels = QTableWidget(0, 2)
        self.levels.setHorizontalHeaderLabels(["Column", "Level"])
        self.levels.horizontalHeader().setStretchLastSection(True)
        self.levels.verticalHeader().setVisible(False)
        self.levels.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents
        )
        self.levels.setAccessibleName("Level of each column in the chosen candidate")
        self.levels.setToolTip(
            "Level 0 is the value as released; each level above pools values into coarser groups."
        )
        self.figures = QLabel()
        self.figures.setWordWrap(True)
        self.figures.setAccessibleName("Figures of the chosen candidate")
        self.figures.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.figures.setTextFormat(Qt.TextFormat.PlainText)

        top = QHBoxLayout()  # one row: the tab is short on height
        for text, box in (
            ("k target", self.k),
            ("Suppress at most", self.limit),
            ("Least", self.metric_box),
        ):
            label = QLabel(text)
            label.setBuddy(box)
            label.setToolTip(box.toolTip())
            top.addWidget(label)
            top.addWidget(box)
        top.addStretch(1)
        top.addWidget(self.hierarchy_button)
        top.addWidget(self.find_button)
        self.levels.setMinimumWidth(170)
        side = QVBoxLayout()
        side.addWidget(self.figures, 1)
        side.addWidget(self.apply_button)
        body = QHBoxLayout()
        body.addWidget(self.chart, 5)
        body.addWidget(self.levels, 2)
        body.addLayout(side, 4)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 4, 0, 0)
        lay.addLayout(top)
        lay.addWidget(self.banner)
        lay.addWidget(self.summary)
        lay.addLayout(body, 1)
        runner.busyChanged.connect(lambda busy: self.find_button.setEnabled(not busy))

    def set_input(
        self,
        frame: Any,
        quasi_identifiers: Sequence[str],
        k: int = 5,
        hierarchies: Mapping[str, Any] | None = None,
    ) -> None:
        self.frame = frame
        self.columns = list(quasi_identifiers)
        self.hierarchies = dict(hierarchies or {})
        self.k.setValue(k)

    def set_loader(self, loader: Loader | None, k: int = 5) -> None:
        """Build the input in the search job: ``loader(progress, cancel)`` returns
        (frame, columns, hierarchies); it runs off the UI thread, before the search."""
        self.loader = loader
        self.k.setValue(k)

    def find_best(self) -> None:
        from deid_desktop.core.errors import UsageError
        from deid_desktop.core.risk.builtin_hierarchies import builtin_hierarchy, guess_kind
        from deid_desktop.core.risk.lattice import Prepared, search

        self.banner.clear()
        loader = self.loader
        if loader is None and (self.frame is None or not self.columns):
            self.banner.show_warning("Choose the quasi-identifiers first.")
            return
        if loader is None:
            lacking = [
                c for c in self.columns if c not in self.hierarchies and guess_kind(c) is None
            ]
            if lacking:
                self.banner.show_warning(_lacking(lacking))
                return
        fixed = (self.frame, list(self.columns), dict(self.hierarchies))
        k, limit, metric = self.k.value(), self.limit.value() / 100.0, self.metric_box.currentData()

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            def part(start: float, end: float):  # type: ignore[no-untyped-def]
                return lambda f, stage: progress(start + (end - start) * f, stage)

            search_progress = progress
            if loader is not None:
                frame, columns, given = loader(part(0.0, 0.4), cancel)
                search_progress = part(0.4, 1.0)
            else:
                frame, columns, given = fixed
            columns = list(columns)
            if not columns:
                raise UsageError(
                    "No quasi-identifier is counted: nothing to generalize.",
                    hint="Tick the quasi-identifiers under Raise k first.",
                )
            lacking = [c for c in columns if c not in given and guess_kind(c) is None]
            if lacking:
                raise UsageError(_lacking(lacking))

            def work(progress, cancel):  # type: ignore[no-untyped-def]
                hier = {
                    c: given.get(c) or builtin_hierarchy(str(guess_kind(c)), frame[c], c)
                    for c in columns
                }
                prepared = Prepared(frame, columns, hier)
                found = search(
                    prepared,
                    k=k,
                    max_suppression=limit,
                    metric=metric,
                    progress=progress,
                    cancel=cancel,
                )
                best = found.best  # its lone records, shown first: counted here
                lone = {} if best is None else {best.levels: lone_count(prepared, best.levels)}
                return prepared, found, lone

            # at a million rows in a child process: coding the table and the search hold
            # Python's lock in long C calls; the coded table (numbers) comes back
            prepared, found, lone = child_job.call(work, search_progress, cancel, rows=len(frame))
            # the given hierarchies are the app's own objects (the page finds their files)
            return prepared, found, {c: given[c] for c in columns if c in given}, lone

        self.summary.setText("Searching…")
        self.runner.run(
            job,
            name="generalize",
            on_success=lambda done: self._show(done[1], done[0], done[2], done[3]),
            on_error=self._failed,
            on_cancel=lambda: self.summary.setText("The search was cancelled."),
        )

    def _failed(self, exc: BaseException) -> None:
        self.summary.setText("The search did not finish.")
        self.banner.show_error(exc)

    def _show(self, result: Any, prepared: Any = None, given: Any = None, lone: Any = None) -> None:
        self.result = result
        self.prepared = prepared
        self.lone = dict(lone or {})
        self.given = dict(given or {})
        cands = list(result.candidates)
        if result.best is None:
            self.summary.setText(
                f"No combination reaches k = {result.k} with at most "
                f"{result.max_suppression:.1%} of the records suppressed."
            )
            self.chart.set_points([], -1, 0)
            self.apply_button.setEnabled(False)
            return
        best = cands.index(result.best)
        limit_rows = result.max_suppression * result.best.rows
        self.chart.set_points([(c.suppressed, c.loss) for c in cands], best, limit_rows)
        how = "the optimum" if result.complete else "the best found before the time limit"
        self.summary.setText(
            f"{len(cands):,} combinations reach k = {result.k} within the limit "
            f"({result.evaluated:,} of {result.lattice_size:,} counted); the red dot is "
            f"{how}. Click a dot to preview it."
        )
        self._pick(best)

    def _pick(self, i: int) -> None:
        fig = self.result.candidates[i]
        self.chosen = fig
        cols = self.result.columns
        self.levels.setRowCount(len(cols))
        for r, (c, lv) in enumerate(zip(cols, fig.levels, strict=True)):
            self.levels.setItem(r, 0, QTableWidgetItem(c))
            top = self.result.heights[r] - 1
            self.levels.setItem(r, 1, QTableWidgetItem(f"{lv} of {top}"))
        share = fig.suppressed / fig.rows if fig.rows else 0.0
        k_text = "none (every record suppressed)" if fig.k is None else f"{fig.k:,}"
        self.figures.setText(
            "\n".join(
                [
                    f"Rows suppressed: {fig.suppressed:,} ({share:.1%}). "
                    + LOSS_EXPLAINED["suppressed"],
                    f"k after suppression: {k_text}; groups: {fig.classes:,}. " + EXPLAIN["k"],
                    *self._lone_line(fig),
                    f"Loss: {fig.loss:.3f}. " + LOSS_EXPLAINED["loss"],
                    f"Average group size: {fig.aecs:.1f}. " + LOSS_EXPLAINED["aecs"],
                ]
            )
        )
        self.apply_button.setEnabled(True)

    def _lone_line(self, fig: Figures) -> list[str]:
        """The lone records at this candidate's levels, before suppression: counted over
        every row of the table, so in a job at 200,000 rows and more (~15 ms of this
        thread at a million); the line follows when the count comes back."""
        prepared = self.prepared
        if prepared is None:
            return []
        lone = self.lone.get(fig.levels)
        if lone is None and prepared.rows < COUNT_IN_JOB_ROWS:
            lone = self.lone[fig.levels] = lone_count(prepared, fig.levels)
        if lone is None:

            def counted(n: int) -> None:
                self.lone[fig.levels] = n
                if self.chosen is fig and self.prepared is prepared:
                    self._pick(self.result.candidates.index(fig))

            self.runner.run(
                lambda progress, cancel: lone_count(prepared, fig.levels),
                name="lone records",
                on_success=counted,
            )
            return ["Lone records: counting…"]
        return [f"Lone records: {lone:,}. " + EXPLAIN["lone"]]

    def _apply(self) -> None:
        if self.chosen is None:
            return
        self.applied.emit(dict(zip(self.result.columns, self.chosen.levels, strict=True)))


def lone_count(prepared: Any, levels: tuple[int, ...]) -> int:
    """The records alone in their class at ``levels`` (before suppression)."""
    _codes, counts = prepared.classes(levels, None)
    return int((counts == 1).sum())


def _lacking(columns: Sequence[str]) -> str:
    return (
        "No hierarchy for " + ", ".join(columns) + ". Import one (ARX format) or build one "
        "with Edit hierarchies… for each of these columns."
    )
