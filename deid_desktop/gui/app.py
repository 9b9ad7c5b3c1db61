"""`deid-desktop [PROJECT] [--demo] [--selftest]`: the desktop application."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from deid_desktop import __version__
from deid_desktop.buildinfo import VersionAction
from deid_desktop.core.errors import unexpected_error_summary
from deid_desktop.core.steps import Step
from deid_desktop.core.transaction import recover_pending

log = logging.getLogger("deid.gui")

ORGANIZATION = "deid-desktop"
APPLICATION = "deid-desktop"
SELFTEST_TIMEOUT_MS = 120_000


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="deid-desktop", description="De-identify a clinical extract, offline."
    )
    parser.add_argument("project", nargs="?", type=Path, help="a .deid.json project to open")
    parser.add_argument("--demo", action="store_true", help="open the bundled demo project")
    parser.add_argument(
        "--selftest",
        action="store_true",
        help="open the main window, load the demo project, run the review, quit (0 = ok)",
    )
    parser.add_argument("--version", action=VersionAction, program="deid-desktop")
    return parser.parse_args(list(argv))


def setup_logging() -> None:
    """Log to stderr: operations, counts and exception types — never a data value."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )


def log_exception(exc: BaseException) -> None:
    """The exception type and where it happened (file and line only) — never its text,
    which could hold a value from the data."""
    log.error("unexpected error: %s", unexpected_error_summary(exc))


def quiet_excepthook(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> None:
    log_exception(exc)


def excepthook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """An unexpected error: a plain message box, and the exception type in the log.

    No traceback and no message text are shown or logged: either could hold a value.
    """
    log_exception(exc)
    if QApplication.instance() is None:
        return
    QMessageBox.critical(
        None,
        "deid-desktop",
        f"An unexpected internal error occurred ({exc_type.__name__}).\n\n"
        "Nothing was written by the step that failed. Save your project and restart the "
        "app if something looks wrong, and please report the step you were on.",
    )


def _tell(message: str) -> None:
    """Say what the start-up recovery did, in a plain message box."""
    log.warning("%s", message)
    QMessageBox.information(None, "deid-desktop", message)


#: Qt rasterizes large paints (lines, fills, image conversions) on a pool of helper
#: threads and the UI thread waits for all of them; on a busy machine a helper queues for a
#: CPU and the window froze for 0.1-0.5 s in a progress bar's repaint. The window's paints
#: are small: one thread paints them at once. (A value the user set is kept.)
SINGLE_THREADED_PAINT = ("QT_NO_GUI_THREADPOOL", "1")


def skip_pyside_source_scan() -> None:
    """PySide's import hook reads and tokenizes the whole source of every module imported
    after it, to learn whether it uses PySide's ``__feature__`` switches; this app uses
    none. On the UI thread one such read waited 0.8 s for a busy disk (a lazy import of a
    page's module), and the warm-up's 550 files held Python's lock for 0.2 s: every
    module now counts as not using PySide, which changes nothing without the switches.
    (A PySide without this private hook is left as it is.)"""
    feature = sys.modules.get("PySide6.support.feature")
    if feature is not None and hasattr(feature, "_mod_uses_pyside"):
        feature._mod_uses_pyside = _uses_no_feature


def _uses_no_feature(module: object) -> bool:
    return False


def make_app(argv: Sequence[str]) -> QApplication:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    os.environ.setdefault(*SINGLE_THREADED_PAINT)  # read when Qt first paints
    skip_pyside_source_scan()
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    QCoreApplication.setApplicationVersion(__version__)
    QApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    return QApplication(list(argv))


def run_selftest(window, app: QApplication) -> int:  # type: ignore[no-untyped-def]
    """Open the demo offscreen, load it, review it; 0 when everything worked."""
    outcome = {"code": 1, "stage": "start"}

    def fail(stage: str) -> None:
        outcome.update(code=1, stage=stage)
        app.exit(1)

    def reviewed() -> None:
        review = window.session.review
        checks = len(review.verification.outcomes) if review is not None else 0
        print(f"selftest: review ok ({checks} checks)", flush=True)
        outcome.update(code=0, stage="done")
        app.exit(0)

    def loaded() -> None:
        extract = window.session.extract
        if extract is None:
            return fail("load")
        rows = sum(len(t.frame) for t in extract.tables)
        print(f"selftest: demo loaded ({len(extract.tables)} tables, {rows} rows)", flush=True)
        window.session.reviewReady.connect(reviewed)

        def to_review() -> None:
            if window.runner.busy:
                QTimer.singleShot(10, to_review)
            elif not window.go_to(Step.REVIEW):
                fail("review unavailable: " + (window.step_reason_for(Step.REVIEW) or ""))

        QTimer.singleShot(0, to_review)

    def on_error() -> None:
        msg = window.load_page.banner.message or window.review_page.banner.message
        print(f"selftest: failed: {msg}", file=sys.stderr, flush=True)
        fail("error")

    def hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        log_exception(exc)
        fail(f"unexpected {exc_type.__name__}")

    sys.excepthook = hook  # no message box: nobody is there to close it
    window.session.extractLoaded.connect(loaded)
    window.runner.busyChanged.connect(
        lambda busy: (not busy and (window.load_page.banner.message or
                                    window.review_page.banner.message)) and on_error()
    )  # fmt: skip
    QTimer.singleShot(SELFTEST_TIMEOUT_MS, lambda: fail("timeout"))

    def begin() -> None:
        if not window.open_demo():
            fail("open demo")

    QTimer.singleShot(0, begin)
    code = app.exec()
    if outcome["code"] != 0:
        print(f"selftest: FAILED at {outcome['stage']}", file=sys.stderr, flush=True)
        return outcome["code"] or 1
    print("selftest: ok", flush=True)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    setup_logging()
    # the self-test has nobody to close a message box: it logs and exits nonzero instead
    sys.excepthook = quiet_excepthook if args.selftest else excepthook
    app = make_app([sys.argv[0]])
    recover_pending(log.warning if args.selftest else lambda m: _tell(m))  # crashed exports

    try:
        from deid_desktop.gui.main_window import MainWindow
    except Exception as exc:  # a broken install: say so plainly (and in the log)
        log_exception(exc)
        if args.selftest:
            print(f"selftest: FAILED at import ({type(exc).__name__})", file=sys.stderr)
            return 1
        raise

    if args.selftest:
        import tempfile

        import deid_desktop.gui.main_window as mw

        # a scratch folder for settings and the demo copy, removed afterwards: the
        # self-test never touches the user's settings or demo copy, and leaves nothing
        with tempfile.TemporaryDirectory(
            prefix="deid-selftest-", ignore_cleanup_errors=True
        ) as scratch:
            settings = QSettings(str(Path(scratch) / "settings.ini"), QSettings.Format.IniFormat)
            mw.demo_folder = lambda: Path(scratch) / "demo"
            window = MainWindow(settings)
            window.show()
            print("selftest: window shown", flush=True)
            try:
                return run_selftest(window, app)
            finally:
                window.session.close()
                window.close()
                settings.sync()
    window = MainWindow()
    window.show()
    if args.demo:
        QTimer.singleShot(0, window.open_demo)
    elif args.project is not None:
        project = args.project
        QTimer.singleShot(0, lambda: window.open_project(project.resolve()))
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
