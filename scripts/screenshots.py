"""Screenshots of every wizard step for the README, made from the running app.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]

Runs offscreen (no display needed) on a private copy of the demo project, drives the
wizard as a user would and saves ``QWidget.grab()`` of the window at each step.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QElapsedTimer, QSettings
from PySide6.QtTest import QTest

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1280, 820)


def wait(until: Callable[[], bool], timeout_ms: int = 120_000) -> None:
    """Let the event loop run (50 ms at a time, never a busy loop) until ``until()``."""
    timer = QElapsedTimer()
    timer.start()
    while not until():
        QTest.qWait(10)  # qWait keeps the GIL: sleep so the app's worker thread can run
        time.sleep(0.04)
        if timer.elapsed() > timeout_ms:
            raise SystemExit("screenshots: timed out waiting for the app")
    QTest.qWait(50)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="deid-shots-"))
    os.environ["DEID_REGISTER"] = str(scratch / "register.jsonl")

    from deid_desktop.gui import main_window as mw
    from deid_desktop.gui.app import make_app

    app = make_app([sys.argv[0]])  # noqa: F841 - must outlive the window
    mw.demo_folder = lambda: scratch / "demo"
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("recent/projects", [])
    window = mw.MainWindow(settings)
    window.resize(*SIZE)
    window.show()

    def idle() -> bool:
        return not window.runner.busy

    def shot(name: str) -> None:
        QTest.qWait(50)
        path = out / f"{name}.png"
        window.grab().save(str(path))
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")

    shot("0-start")
    window.open_demo()
    wait(lambda: window.session.extract is not None and idle())
    shot("1-load")
    window.next_step()
    window.tag_page.accept_all()
    window.tag_page.banner.clear()
    shot("2-tag")
    window.next_step()
    shot("3-pathway")
    window.next_step()
    wait(lambda: window.session.review is not None and idle())
    review = window.review_page
    shot("4-review-checks")
    review.tabs.setCurrentIndex(1)
    shot("4-review-risk")
    review.generalize.find()  # the search's candidates, the optimum marked
    wait(lambda: review.generalize.panel.result is not None and idle())
    shot("4-review-generalize")
    review.generalize._toggle()  # back to the class sizes
    review.tabs.setCurrentIndex(2)
    review.text.step_hit(1)
    shot("4-review-free-text")
    review.tabs.setCurrentWidget(review.intruder)  # opening the tab runs the intruder test
    wait(lambda: window.session.review.intruder is not None and idle())
    shot("4-review-intruder")
    window.next_step()
    page = window.export_page
    page.release_dir.set_path(scratch / "release")
    page.crosswalk_dir.set_path(scratch / "crosswalk")
    page.purpose.setText("Secondary analysis of the HF-HOME trial")
    page.recipient.setText("University biostatistics core")
    page.retention.setText("5 years, then destroy")
    page.dua.setText("DUA-2026-014")
    page._meta_changed()
    shot("5-export")
    page.export()
    wait(lambda: window.session.export_record is not None and idle())
    shot("5-export-done")

    from deid_desktop.core.steps import Step

    s = window.session
    guide = window.show_guide()  # F1 on step 5; the Review page of the guide shown
    guide.open_page("review")
    QTest.qWait(50)
    guide.grab().save(str(out / "6-user-guide.png"))
    print("wrote user guide")
    guide.close()

    # the next release counts age bands instead of ZIP3: combined with the one just
    # exported, persons become lone who are not in either release alone
    from PySide6.QtCore import Qt

    window.go_to(Step.REVIEW)
    for i in range(review.qi_list.count()):
        item = review.qi_list.item(i)
        keep = item.text() in ("sex", "age")
        item.setCheckState(Qt.CheckState.Checked if keep else Qt.CheckState.Unchecked)
    review.age_bands_on.setChecked(True)
    review.age_bands.setText("0, 30, 50, 70, 90")
    review.apply_button.click()
    wait(lambda: s.review is not None and s.review.intruder is not None and idle())
    shot("4-review-across-releases")

    # a failed gate: a phone column tagged clinical survives into the release
    import dataclasses

    from deid_desktop.core.model import ColumnClass

    phone = s.project.table("demographics").column("phone")
    s.set_tag("demographics", dataclasses.replace(phone, cls=ColumnClass.CLINICAL, role=None,
                                                  category=None))  # fmt: skip
    window.go_to(Step.REVIEW)
    wait(lambda: s.review is not None and idle())
    review.tabs.setCurrentIndex(0)
    shot("4-review-failed")
    window.session.close()
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
