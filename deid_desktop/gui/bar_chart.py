"""One bar chart in the window's colours: the residual-risk class sizes and the
intruder's look-alikes are drawn by the same function."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCharts import QBarCategoryAxis, QBarSeries, QBarSet, QChart, QValueAxis
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette

SIZE_BUCKETS = ((1, 1, "1"), (2, 2, "2"), (3, 3, "3"), (4, 4, "4"), (5, 9, "5–9"),
                (10, 19, "10–19"), (20, 49, "20–49"), (50, 10**12, "50+"))  # fmt: skip


def draw_bars(
    chart: QChart,
    palette: QPalette,
    name: str,
    values: Sequence[float],
    labels: Sequence[str],
    x_title: str,
    *,
    headroom: float = 1.1,
) -> tuple[QBarSeries, QBarSet, QColor]:
    """Add one series of bars (``values`` over ``labels``, the y axis titled ``name``)
    to an empty ``chart``, in the highlight colour with text-coloured axes; returns the
    series, its bar set and the text colour, for labels on the bars."""
    bar = QBarSet(name)
    bar.append([float(v) for v in values])
    bar.setColor(palette.color(QPalette.ColorRole.Highlight))
    bar.setBorderColor(palette.color(QPalette.ColorRole.Highlight))
    series = QBarSeries()
    series.append(bar)
    chart.addSeries(series)
    x = QBarCategoryAxis()
    x.append(list(labels))
    x.setTitleText(x_title)
    y = QValueAxis()
    y.setRange(0, max(max(values, default=0.0), 1.0) * headroom)
    y.setLabelFormat("%d")
    y.applyNiceNumbers()
    y.setTitleText(name)
    text = palette.color(QPalette.ColorRole.WindowText)
    for axis in (x, y):
        axis.setLabelsColor(text)
        axis.setTitleBrush(text)
    chart.setTitleBrush(text)
    chart.addAxis(x, Qt.AlignmentFlag.AlignBottom)
    chart.addAxis(y, Qt.AlignmentFlag.AlignLeft)
    series.attachAxis(x)
    series.attachAxis(y)
    return series, bar, text


def draw_class_sizes(chart: QChart, palette: QPalette, sizes: Sequence[tuple[int, int]]) -> None:
    """The residual-risk chart: records by class size (``sizes``: (size, records) pairs)
    in ``SIZE_BUCKETS``, drawn anew in ``chart``."""
    chart.removeAllSeries()
    for axis in chart.axes():
        chart.removeAxis(axis)
    bucket_records = [0] * len(SIZE_BUCKETS)
    for size, records in sizes:
        for i, (lo, hi, _label) in enumerate(SIZE_BUCKETS):
            if lo <= size <= hi:
                bucket_records[i] += records
                break
    labels = [b[2] for b in SIZE_BUCKETS]
    draw_bars(chart, palette, "Records", bucket_records, labels, "Class size")
