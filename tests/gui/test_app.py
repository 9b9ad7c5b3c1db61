"""The shell: start screen, recent projects, menus, drag & drop, errors, no network."""

from __future__ import annotations

import ast
import logging
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDropEvent, QKeySequence, QPalette
from PySide6.QtWidgets import QApplication

from deid_desktop.core.errors import ProjectError
from deid_desktop.core.steps import Step
from deid_desktop.gui import app as gui_app
from deid_desktop.gui import backend


def test_start_screen_lists_recent_projects_and_opens_one(
    window,
    settings,
    tmp_path: Path,
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    a, b = tmp_path / "a.deid.json", tmp_path / "b.deid.json"
    for p in (a, b):
        p.write_text("{}")
    settings.setValue("recent/projects", [str(a), str(b), str(tmp_path / "gone.deid.json")])
    window._refresh_recent()
    start = window.start
    assert window.stack.currentWidget() is start
    shown = [
        start.recent.item(i).data(Qt.ItemDataRole.UserRole) for i in range(start.recent.count())
    ]
    assert shown == [str(a), str(b)]  # a file that no longer exists is not offered
    assert [act.text() for act in window.recent_menu.actions()] == ["a.deid.json", "b.deid.json"]
    opened: list[Path] = []
    monkeypatch.setattr(window, "open_project", lambda p, **_k: opened.append(p))
    start.recent.itemActivated.emit(start.recent.item(1))
    assert opened == [b]


def test_file_menu_uses_the_platform_standard_shortcuts(window) -> None:  # type: ignore[no-untyped-def]
    sk = QKeySequence.StandardKey
    for action, key in (
        (window.act_new, sk.New),
        (window.act_open, sk.Open),
        (window.act_save, sk.Save),
        (window.act_quit, sk.Quit),
    ):
        assert action.shortcut() == QKeySequence(key)
    assert QKeySequence("Ctrl+Shift+Z") in window.act_redo.shortcuts()


def test_a_broken_project_file_says_so_plainly(
    window, dialogs, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "broken.deid.json"
    bad.write_text("{not json")

    def boom(_path: Path) -> None:
        raise ProjectError("The project file is not valid JSON", file=bad.name, hint="Rebuild it.")

    monkeypatch.setattr(backend, "load_project", boom)
    dialogs.answer("warning", None)
    assert not window.open_project(bad)
    (text,) = dialogs.texts("warning")
    assert "broken.deid.json" in text and "Rebuild it." in text
    assert "Traceback" not in text
    assert window.stack.currentWidget() is window.start


def test_dropping_a_table_starts_a_new_project_with_it(window, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    csv = tmp_path / "people.csv"
    csv.write_text("id,age\n1,50\n")
    started: list[list[Path]] = []
    monkeypatch.setattr(window.load_page, "start_new", lambda files=None: started.append(files))
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(str(csv))])
    event = QDropEvent(
        QPointF(10, 10), Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    window.dropEvent(event)
    assert started == [[csv]]
    assert window.stack.currentWidget() is window.wizard


def test_unexpected_exception_shows_a_plain_box_and_logs_the_type_only(
    dialogs,
    caplog,
    qapp,  # type: ignore[no-untyped-def]
) -> None:
    secret = "Okafor-555-0199"
    dialogs.answer("critical", None)
    try:
        raise ValueError(f"bad value {secret}")
    except ValueError as exc:
        with caplog.at_level(logging.ERROR, logger="deid.gui"):
            gui_app.excepthook(type(exc), exc, exc.__traceback__)
    (shown,) = dialogs.texts("critical")
    assert "ValueError" in shown and secret not in shown and "Traceback" not in shown
    assert "ValueError" in caplog.text and secret not in caplog.text


def test_steps_not_ready_are_disabled_with_the_reason(window) -> None:  # type: ignore[no-untyped-def]
    window.new_project()
    assert window.stack.currentWidget() is window.wizard
    item = window.steps.item(1)
    assert not item.flags() & Qt.ItemFlag.ItemIsEnabled
    assert "first" in item.toolTip()
    assert "not available" in window.step_reason.text()
    assert not window.go_to(Step.REVIEW) and window.current_step == Step.LOAD


def test_pages_render_with_a_dark_palette(window, qapp) -> None:  # type: ignore[no-untyped-def]
    old = qapp.palette()
    dark = QPalette()
    for role, colour in (
        (QPalette.ColorRole.Window, QColor(30, 30, 30)),
        (QPalette.ColorRole.WindowText, QColor(230, 230, 230)),
        (QPalette.ColorRole.Base, QColor(20, 20, 20)),
        (QPalette.ColorRole.Text, QColor(230, 230, 230)),
        (QPalette.ColorRole.Button, QColor(45, 45, 45)),
        (QPalette.ColorRole.ButtonText, QColor(230, 230, 230)),
    ):
        dark.setColor(role, colour)
    try:
        qapp.setPalette(dark)
        qapp.processEvents()
        window.new_project()
        for page in window.pages:
            window.page_stack.setCurrentIndex(page.step)
            image = window.grab().toImage()
            assert not image.isNull()
            # the window background follows the palette: no hard-coded light colour
            assert image.pixelColor(image.width() - 5, image.height() // 2).lightness() < 100
    finally:
        qapp.setPalette(old)


def _in_a_fresh_app(body: str) -> str:
    """What ``body`` prints, run in a new process after ``app = make_app(...)``."""
    code = (
        "import os\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from deid_desktop.gui.app import make_app\n"
        "app = make_app(['x'])\n" + body
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout


def test_the_app_never_imports_qtnetwork() -> None:
    out = _in_a_fresh_app(
        "import sys\n"
        "from deid_desktop.gui.main_window import MainWindow\n"
        "w = MainWindow(); w.show(); app.processEvents()\n"
        "print(sorted(m for m in sys.modules if 'QtNetwork' in m or m in ('socket', 'ssl')))\n"
    )
    assert "QtNetwork" not in out
    gui = Path(gui_app.__file__).parent
    offenders = [
        p.name
        for p in gui.rglob("*.py")
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom | ast.Import) and "QtNetwork" in ast.unparse(node)
    ]
    assert offenders == []


def test_the_window_paints_on_its_own_thread_alone() -> None:
    """Qt's helper threads for large paints are off: on a busy machine the UI thread
    waited for a helper queued for a CPU (the window froze in a progress bar's repaint)."""
    code = (
        "import os\n"
        "os.environ.pop('QT_NO_GUI_THREADPOOL', None)\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from deid_desktop.gui.app import make_app\n"
        "from PySide6.QtCore import QLineF\n"
        "from PySide6.QtGui import QImage, QPainter\n"
        "app = make_app(['x'])\n"
        "image = QImage(2560, 1640, QImage.Format.Format_ARGB32_Premultiplied)\n"
        "painter = QPainter(image)\n"
        "painter.drawLines([QLineF(0, y, 2560, y) for y in range(0, 1640, 3)])\n"
        "painter.end()\n"
        "image.convertToFormat(QImage.Format.Format_RGB32)\n"
        "print(len(os.listdir('/proc/self/task')))\n"
    )
    if not Path("/proc/self/task").is_dir():
        pytest.skip("counts the threads in /proc (Linux)")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split()[-1] == "1"  # no helper thread was started to paint


def test_modules_imported_by_the_app_are_not_read_as_source() -> None:
    """PySide's import hook read each new module's source (for its unused ``__feature__``
    switches): on the UI thread, a lazy import waited for a busy disk."""
    out = _in_a_fresh_app(
        "import colorsys, linecache\n"
        "print(any(name.endswith('colorsys.py') for name in linecache.cache))\n"
    )
    assert out.split()[-1] == "False"


def test_selftest_without_a_display_exits_zero_when_the_demo_loads() -> None:
    scratch_before = set(Path(tempfile.gettempdir()).glob("deid-selftest-*"))
    out = subprocess.run(
        [sys.executable, "-m", "deid_desktop.gui.app", "--selftest"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "selftest: ok" in out.stdout
    # it cleans up after itself: no settings or demo copy left behind
    assert set(Path(tempfile.gettempdir()).glob("deid-selftest-*")) == scratch_before
    assert QApplication.instance() is not None
