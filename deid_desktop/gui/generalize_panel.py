""" "Find the best generalization": the search in the background, its candidates as a
chart of rows suppressed against information loss (the optimum marked), a preview of
the clicked candidate, and Apply (emits the chosen levels; the host page saves them).

Not yet wired into the Review page (being retyped): the host calls
``set_input(frame, quasi_identifiers, k)`` with the released person table and connects
``applied``. Hierarchies are the built-ins the column names suggest, or ``hierarchies``
passed to ``set_input``. Shows counts and levels only, never a value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.risk.loss import LOSS_EXPLAINED, Figures
from deid_desktop.gui.widgets import MessageBanner
from deid_desktop.gui.workers import JobRunner

_METRICS = (
    ("loss", "Loss (ARX)"),
    ("discernibility", "Discernibility"),
    ("aecs", "Average class size"),
    ("entropy", "Entropy loss"),
    ("precision", "Precision loss"),
    ("iyengar", "Iyengar's loss"),
)


class CandidateChart(QWidget):
    """Rows suppressed (x) against loss (y), one dot per candidate; click to pick."""

    picked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumSize(360, 220)
        self.setAccessibleName("Candidates: rows suppressed against information loss")
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
        i = min(range(len(dist)), key=dist.__getitem__)
        if dist[i] < 24:
            self.selected = i
            self.update()
            self.picked.emit(i)


class GeneralizePanel(QWidget):
    """Search, chart, preview and Apply."""

    applied = Signal(dict)  # column -> level

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.frame: Any = None
        self.columns: list[str] = []
        self.hierarchies: dict[str, Any] = {}
        self.result: Any = None
        self.chosen: Figures | None = None

        self.k = QSpinBox()
        self.k.setRange(1, 1000)
        self.k.setValue(5)
        self.k.setAccessibleName("k target")
        self.limit = QDoubleSpinBox()
        self.limit.setRange(0.0, 100.0)
        self.limit.setValue(5.0)
        self.limit.setSuffix(" %")
        self.limit.setAccessibleName("Largest share of records that may be suppressed")
        self.metric_box = QComboBox()
        for key, label in _METRICS:
            self.metric_box.addItem(label, key)
        self.metric_box.setToolTip(LOSS_EXPLAINED["loss"])
        self.find_button = QPushButton("Find the best generalization")
        self.find_button.clicked.connect(self.find_best)
        self.apply_button = QPushButton("Apply these levels")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self._apply)
        self.banner = MessageBanner()
        self.summary = QLabel("Run the search to see the candidates.")
        self.summary.setWordWrap(True)
        self.chart = CandidateChart()
        self.chart.picked.connect(self._pick)
        self.levels = QTableWidget(0, 2)
        self.levels.setHorizontalHeaderLabels(["Column", "Level"])
        self.levels.horizontalHeader().setStretchLastSection(True)
        self.figures = QLabel()
        self.figures.setWordWrap(True)
        self.figures.setTextFormat(Qt.TextFormat.PlainText)

        form = QFormLayout()
        form.addRow("k target", self.k)
        form.addRow("Suppress at most", self.limit)
        form.addRow("Least", self.metric_box)
        top = QHBoxLayout()
        top.addLayout(form)
        top.addWidget(self.find_button, 0, Qt.AlignmentFlag.AlignBottom)
        body = QHBoxLayout()
        body.addWidget(self.chart, 3)
        side = QVBoxLayout()
        side.addWidget(self.levels, 2)
        side.addWidget(self.figures, 3)
        side.addWidget(self.apply_button)
        body.addLayout(side, 2)
        lay = QVBoxLayout(self)
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

    def find_best(self) -> None:
        from deid_desktop.core.risk.builtin_hierarchies import builtin_hierarchy, guess_kind
        from deid_desktop.core.risk.lattice import Prepared, search

        self.banner.clear()
        if self.frame is None or not self.columns:
            self.banner.show_warning("Choose the quasi-identifiers first.")
            return
        frame, columns = self.frame, list(self.columns)
        given = dict(self.hierarchies)
        lacking = [c for c in columns if c not in given and guess_kind(c) is None]
        if lacking:
            self.banner.show_warning(
                "No hierarchy for " + ", ".join(lacking) + ". Import one (ARX format) for "
                "each of these columns."
            )
            return
        k, limit, metric = self.k.value(), self.limit.value() / 100.0, self.metric_box.currentData()

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            hier = {
                c: given.get(c) or builtin_hierarchy(str(guess_kind(c)), frame[c], c)
                for c in columns
            }
            prepared = Prepared(frame, columns, hier)
            return search(
                prepared,
                k=k,
                max_suppression=limit,
                metric=metric,
                progress=progress,
                cancel=cancel,
            )

        self.runner.run(job, name="generalize", on_success=self._show, on_error=self._failed)

    def _failed(self, exc: BaseException) -> None:
        self.banner.show_error(exc)

    def _show(self, result: Any) -> None:
        self.result = result
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
        self.figures.setText(
            "\n".join(
                [
                    f"Rows suppressed: {fig.suppressed:,} ({share:.1%}). "
                    + LOSS_EXPLAINED["suppressed"],
                    f"Smallest group: {fig.k}; groups: {fig.classes:,}.",
                    f"Loss: {fig.loss:.3f}. " + LOSS_EXPLAINED["loss"],
                    f"Average group size: {fig.aecs:.1f}. " + LOSS_EXPLAINED["aecs"],
                ]
            )
        )
        self.apply_button.setEnabled(True)

    def _apply(self) -> None:
        if self.chosen is None:
            return
        self.applied.emit(dict(zip(self.result.columns, self.chosen.levels, strict=True)))
