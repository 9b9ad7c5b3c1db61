"""What a user sees of the window: controls without an accessible name, and text that is
cut off, on every screen of the wizard. Used by test_layout_a11y (and its 200 % run in a
subprocess: ``python -m tests.gui.probe``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from PySide6.QtCharts import QChartView
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QScrollArea,
    QTabBar,
    QWidget,
)

#: the controls a user operates (and a screen reader must name)
INTERACTIVE = (
    QAbstractButton,
    QComboBox,
    QLineEdit,
    QAbstractItemView,
    QAbstractSpinBox,
    QAbstractSlider,
    QChartView,
    QAbstractScrollArea,  # text views (QTextBrowser, QPlainTextEdit) and scroll areas
)


def _describe(w: QWidget) -> str:
    text = ""
    for attr in ("text", "placeholderText", "toolTip"):
        value = getattr(w, attr, None)
        if callable(value):
            text = str(value())
            if text:
                break
    name = w.objectName() or type(w).__name__
    parent = w.parentWidget()
    chain = []
    while parent is not None and len(chain) < 3:
        chain.append(parent.objectName() or type(parent).__name__)
        parent = parent.parentWidget()
    return f"{type(w).__name__} {name!r} {text[:40]!r} in {'/'.join(chain)}"


def shown(root: QWidget) -> Iterator[QWidget]:
    """Every widget under ``root`` that is visible on screen (not on a hidden tab)."""
    for w in root.findChildren(QWidget):
        if w.isVisible() and w.window() is root.window():
            yield w


def _is_internal(w: QWidget) -> bool:
    """Parts Qt builds inside a named control (a combo's line edit, a spin box's edit,
    a scroll bar, a table's corner button, a tab bar's scroll buttons)."""
    parent = w.parentWidget()
    if isinstance(parent, QComboBox | QAbstractSpinBox | QTabBar):
        return True
    name = w.objectName()
    if name.startswith("qt_") or type(w).__name__ in ("QScrollBar",):
        return True
    if isinstance(w, QAbstractButton) and isinstance(parent, QAbstractItemView):
        return True  # a table's corner button
    return isinstance(w, QHeaderView)  # a table's header: the table is named


def buddied(root: QWidget) -> set[int]:
    """ids of widgets that a label names as its buddy."""
    out: set[int] = set()
    for label in root.findChildren(QLabel):
        buddy = label.buddy()
        if buddy is not None and label.text():
            out.add(id(buddy))
    return out


def unnamed_controls(root: QWidget) -> list[str]:
    """Visible controls with neither an accessible name nor a buddy label."""
    named_by_buddy = buddied(root.window())
    missing = []
    for w in shown(root):
        if not isinstance(w, INTERACTIVE) or _is_internal(w):
            continue
        if isinstance(w, QScrollArea):
            continue  # a container: its contents are named
        if w.accessibleName().strip() or id(w) in named_by_buddy:
            continue
        missing.append(_describe(w))
    return missing


def _in_scroll_area(w: QWidget) -> bool:
    parent = w.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def clipped_text(root: QWidget) -> list[str]:
    """Visible labels and buttons whose text does not fit: narrower or lower than the
    text needs (a word-wrapped label: lower than its text at its width), or cut by the
    edge of what holds them (unless they sit in a scroll area, where the user scrolls)."""
    problems = []
    for w in shown(root):
        if not isinstance(w, QLabel | QAbstractButton) or _is_internal(w):
            continue
        if isinstance(w, QLabel) and not w.text() and w.pixmap().isNull():
            continue
        if isinstance(w, QAbstractButton) and not w.text():
            continue
        size, hint = w.size(), w.minimumSizeHint()
        if isinstance(w, QLabel) and w.wordWrap():
            need_h = w.heightForWidth(size.width())
            if need_h > size.height() + 1:
                problems.append(f"{_describe(w)}: {size.height()} px high, needs {need_h}")
        elif isinstance(w, QLabel):
            need = w.sizeHint()
            if need.width() > size.width() + 1 or need.height() > size.height() + 1:
                problems.append(
                    f"{_describe(w)}: {size.width()}x{size.height()}, needs "
                    f"{need.width()}x{need.height()}"
                )
        elif hint.width() > size.width() + 1 or hint.height() > size.height() + 1:
            problems.append(
                f"{_describe(w)}: {size.width()}x{size.height()}, needs "
                f"{hint.width()}x{hint.height()}"
            )
        if not _in_scroll_area(w):
            seen = w.visibleRegion().boundingRect()
            if seen.width() + 1 < w.width() or seen.height() + 1 < w.height():
                problems.append(
                    f"{_describe(w)}: only {seen.width()}x{seen.height()} of "
                    f"{w.width()}x{w.height()} shown"
                )
    return problems


def walk(window, wait: Callable[[Callable[[], bool]], None]) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """Every screen of the wizard on the demo, as a user reaches it: the start screen,
    each step, each tab of the review, the export done; yields the screen's name once it
    is on screen (the caller inspects the window then)."""
    from deid_desktop.core.steps import Step

    yield "start"
    assert window.open_demo()
    wait(lambda: window.session.extract is not None and not window.runner.busy)
    yield "load"
    assert window.go_to(Step.TAG)
    window.tag_page.accept_all()
    yield "tag"
    assert window.go_to(Step.PATHWAY)
    yield "pathway"
    assert window.go_to(Step.REVIEW)
    wait(lambda: window.session.review is not None and not window.runner.busy)
    tabs = window.review_page.tabs
    for i in range(tabs.count()):
        tabs.setCurrentIndex(i)
        wait(lambda: not window.runner.busy)  # a tab may start a job (the intruder's attack)
        yield f"review: {tabs.tabText(i)}"
    tabs.setCurrentIndex(0)
    assert window.go_to(Step.EXPORT)
    yield "export"


def main() -> int:
    """Walk the wizard at the window's minimum size in this process's Qt set-up (the
    test runs it with QT_SCALE_FACTOR=2 on a full-HD offscreen screen); print one JSON
    document: the screen, the minimum size, and each screen's problems."""
    import json
    import os
    import sys
    import tempfile
    from pathlib import Path

    from PySide6.QtCore import QElapsedTimer, QSettings
    from PySide6.QtTest import QTest

    from deid_desktop.gui import main_window as mw
    from deid_desktop.gui.app import make_app

    scratch = Path(tempfile.mkdtemp(prefix="deid-probe-"))
    os.environ["DEID_REGISTER"] = str(scratch / "register.jsonl")
    app = make_app([sys.argv[0]])  # noqa: F841 - must outlive the window
    mw.demo_folder = lambda: scratch / "demo"
    window = mw.MainWindow(QSettings(str(scratch / "s.ini"), QSettings.Format.IniFormat))
    window.show()
    window.resize(window.minimumSize())

    def wait(until: Callable[[], bool]) -> None:
        """Run the event loop until ``until()``. QTest.qWait keeps the GIL while it
        waits, so a worker thread (the review job, importing keyring) would crawl: sleep
        between short waits, as the app's own event loop lets workers run."""
        import time

        timer = QElapsedTimer()
        timer.start()
        while not until():
            QTest.qWait(10)
            time.sleep(0.04)
            if timer.elapsed() > 120_000:
                raise SystemExit("probe: timed out")

    screens: dict[str, list[str]] = {}
    for name in walk(window, wait):
        QTest.qWait(50)
        screens[name] = clipped_text(window) + unnamed_controls(window)
    geometry = window.screen().availableGeometry()
    print(json.dumps({
        "screen": [geometry.width(), geometry.height()],
        "ratio": window.devicePixelRatio(),
        "minimum": [window.minimumWidth(), window.minimumHeight()],
        "size": [window.width(), window.height()],
        "screens": screens,
    }))  # fmt: skip
    window.session.close()
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
