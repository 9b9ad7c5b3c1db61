"""Review, "What an intruder could do": the motivated-intruder chart and sentence, the
cross-release warning and the small cells, driven as a user would; the export record's
intruder figures checked against a plain join written here."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
from PySide6.QtCharts import QBarSeries
from PySide6.QtCore import Qt

from deid_desktop.core import engine
from deid_desktop.core.export import RECORD_JSON
from deid_desktop.core.project import load_project, save_project
from deid_desktop.core.steps import Step
from deid_desktop.gui import backend
from deid_desktop.gui.main_window import MainWindow
from deid_desktop.gui.pages.review_intruder import IntruderPanel
from tests.gui.test_flow import WAIT, export_in_window, idle, open_demo, wait_review


def _show_intruder_tab(qtbot, window: MainWindow) -> IntruderPanel:  # type: ignore[no-untyped-def]
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    page = window.review_page
    page.tabs.setCurrentWidget(page.intruder)  # the user opens the tab: the test runs
    qtbot.waitUntil(lambda: window.session.review.intruder is not None, timeout=WAIT)
    idle(qtbot, window)
    return page.intruder


def _bars(panel: IntruderPanel) -> dict[str, int]:
    (series,) = panel.chart.series()
    assert isinstance(series, QBarSeries)
    (bar,) = series.barSets()
    labels = panel.chart.axes()[0].categories()
    return {label: int(bar.at(i)) for i, label in enumerate(labels)}


def _set_risk(path: Path, **changes: object) -> None:
    project = load_project(path)
    save_project(
        dataclasses.replace(project, risk=dataclasses.replace(project.risk, **changes)), path
    )


def _plain_join(
    review: engine.ReviewResult, everyone: engine.ReviewResult, on: list[str]
) -> dict[str, object]:
    """The intruder's figures by a pandas merge: the released persons (their person key
    through the crosswalk) against every person of the source as the release shows them."""

    def keyed(r: engine.ReviewResult) -> pd.DataFrame:
        frame = r.release.tables["demographics"]
        cw = r.release.crosswalk
        assert cw is not None
        key = dict(zip(cw.iloc[:, 0], cw.iloc[:, 1], strict=True))
        out = frame[on].astype(object).fillna("<missing>")
        out["key"] = frame[r.release.id_column].map(key)
        return out

    targets = keyed(review).reset_index(names="target")
    roll = keyed(everyone)
    pairs = targets.merge(roll, on=on, how="left", suffixes=("", "_roll"))
    look = pairs.groupby("target")["key_roll"].count()
    right = pairs.assign(hit=pairs["key"] == pairs["key_roll"]).groupby("target")["hit"].any()
    certain = int(((look == 1) & right).sum())
    expected = float((right / look.clip(lower=1)).sum())
    return {"targets": len(targets), "certain": certain, "expected": expected, "look": look}


def _everyone(review: engine.ReviewResult, extract) -> engine.ReviewResult:  # type: ignore[no-untyped-def]
    """The source as the release generalizes it, nobody suppressed (the intruder's list)."""
    project = review.project
    risk = dataclasses.replace(project.risk, suppress_below_k=False)
    return engine.review(dataclasses.replace(project, risk=risk), extract, scan=False)


def _agrees(report, plain: dict[str, object]) -> None:  # type: ignore[no-untyped-def]
    assert report.targets == plain["targets"]
    assert report.certain == plain["certain"]
    assert abs(report.expected_matches - plain["expected"]) < 1e-6
    look = plain["look"]
    assert report.hidden_among["1"] == int((look == 1).sum())
    assert report.hidden_among["3-4"] == int(look.between(3, 4).sum())
    assert report.hidden_among["20+"] == int((look >= 20).sum())


def test_the_intruder_chart_and_sentence_and_the_record(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    s = window.session
    panel = _show_intruder_tab(qtbot, window)  # opening the tab runs the test
    report = s.review.intruder
    assert report is not None and report.on == s.review.quasi_identifiers
    everyone = _everyone(s.review, s.extract)
    _agrees(report, _plain_join(s.review, everyone, list(report.on)))
    assert report.certain > 0

    # what the user sees: the chart's bars are the figures, the sentence names them
    assert _bars(panel) == report.hidden_among
    text = panel.sentence.text()
    assert f"{report.certain:,} of {report.targets:,} persons" in text
    assert f"{report.expected_matches:,.1f} correct matches" in text
    assert f"re-identified {report.certain:,} persons" in s.review.verdict.paragraph

    # the intruder knows less: untick the last column, attack again
    last = panel.on_list.item(len(report.on) - 1)
    last.setCheckState(Qt.CheckState.Unchecked)
    panel.run_button.click()
    qtbot.waitUntil(lambda: s.review.intruder.on == report.on[:-1], timeout=WAIT)
    idle(qtbot, window)
    fewer = s.review.intruder
    _agrees(fewer, _plain_join(s.review, everyone, list(fewer.on)))
    assert fewer.certain < report.certain
    assert _bars(panel) == fewer.hidden_among
    window.resize(1280, 800)
    shot = panel.grab()  # the README's picture is made by scripts/screenshots.py
    assert not shot.isNull() and shot.save(str(tmp_path / "intruder.png"))

    # export: the record keeps the figures (counts only), the plain join agrees
    out, cw = tmp_path / "release", tmp_path / "crosswalk"
    export_in_window(qtbot, window, out, cw)
    record = json.loads((out / RECORD_JSON).read_text(encoding="utf-8"))
    got = record["intruder"]
    plain = _plain_join(s.review, everyone, got["on"])
    assert got["on"] == list(fewer.on)
    assert got["certain"] == plain["certain"] and got["targets"] == plain["targets"]
    assert abs(got["expected_matches"] - plain["expected"]) < 1e-3
    look = plain["look"]
    assert got["hidden_among"]["2"] == int((look == 2).sum())
    assert sum(got["hidden_among"].values()) == plain["targets"]
    assert set(got) == {"targets", "on", "certain", "hidden_among", "expected_matches"}
    assert "cross_release" not in record  # nothing of this source went out before
    # nothing identifying: no record number of the source anywhere in the release folder
    mrns = s.extract.person.frame["mrn"].dropna()
    written = "".join(p.read_text(encoding="utf-8") for p in out.iterdir())
    assert len(mrns) > 2000 and not any(str(m) in written for m in mrns)


def test_two_releases_with_other_quasi_identifiers_warn_with_the_count(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    import deid_desktop.gui.main_window as mw  # its demo folder: this test's (conftest)

    path = backend.install_demo(mw.demo_folder())
    _set_risk(path, quasi_identifiers=("sex", "zip3"))  # the first release: ZIP3
    engine.run(path, out_dir=tmp_path / "out-1", crosswalk_dir=tmp_path / "xw-1")
    _set_risk(path, quasi_identifiers=("sex", "age"), age_bands=(0, 30, 50, 70, 90))

    open_demo(qtbot, window)  # the same demo, now with age bands instead of ZIP3
    panel = _show_intruder_tab(qtbot, window)
    cross = window.session.review.cross_release
    assert cross is not None and cross.checked == 1
    (earlier,) = cross.releases
    assert earlier.lone > 0 and earlier.quasi_identifiers == ("sex", "zip3")
    text = panel.cross.text()
    assert f"{earlier.lone:,} persons become lone" in text
    # the verdict above the tabs says it too
    headline = window.review_page.verdict.headline
    assert f"combined with the earlier release {earlier.lone:,} persons" in headline
    window.resize(1280, 800)
    shot = window.review_page.grab()  # the verdict above the tab says it too
    assert not shot.isNull() and shot.save(str(tmp_path / "across.png"))


def test_a_single_release_warns_of_nothing(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    panel = _show_intruder_tab(qtbot, window)
    assert window.session.review.cross_release is None
    assert "No earlier release of this source" in panel.cross.text()
    assert "become lone" not in panel.cross.text()
    assert "combined with" not in window.review_page.verdict.headline


def test_the_intruder_figures_redraw_the_verdict_not_the_whole_review(
    qtbot, window: MainWindow
) -> None:  # type: ignore[no-untyped-def]
    """When the intruder test returns, the verdict on the Review page reads its figures,
    and the checks, the risk and the notes are not drawn again (at 1M persons drawing
    them again held the window 0.2 s)."""
    open_demo(qtbot, window)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    page = window.review_page
    redrawn: list[int] = []
    window.session.reviewReady.connect(lambda: redrawn.append(1))
    panel = _show_intruder_tab(qtbot, window)
    report = window.session.review.intruder
    assert report is not None and report.certain > 0
    assert redrawn == []
    assert f"re-identified {report.certain:,} persons" in page.verdict.body.text()
    assert f"{report.certain:,} of {report.targets:,} persons" in panel.sentence.text()
