"""The verdict banner on the Review and Export pages, and the accepted risk of a linkable
release below its k target."""

from __future__ import annotations

import json
from pathlib import Path

import keyring
import pytest

from deid_desktop.core.model import Pathway
from deid_desktop.core.steps import Step
from deid_desktop.gui.main_window import MainWindow
from tests.file_keyring import ENV, FileKeyring
from tests.gui.test_flow import WAIT, idle, open_demo, wait_review
from tests.memory_keyring import trust

pytestmark = pytest.mark.slow


def test_every_check_passed_at_k_1_shows_a_red_verdict_with_what_to_do(
    qtbot, window: MainWindow
) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    s, page = window.session, window.review_page
    assert s.review.passed and s.review.risk.k == 1
    banner = page.verdict
    assert banner.isVisible() and banner.colour == "red"
    assert "High residual risk" in banner.headline
    assert f"{s.review.risk.lone:,} of 2,432 persons are unique on" in banner.headline
    assert "Access model that fits: controlled access" in banner.access.text()
    assert "best generalization" in banner.steps.text()
    banner.action.click()
    assert page.tabs.currentIndex() == 1  # the residual risk tab
    assert window.go_to(Step.EXPORT)
    export = window.export_page.verdict
    assert export.isVisible() and export.headline == banner.headline


def test_a_linkable_export_below_k_asks_for_a_reason_and_records_it(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(ENV, str(tmp_path / "keyring.json"))
    trust(FileKeyring, monkeypatch)
    previous = keyring.get_keyring()
    keyring.set_keyring(FileKeyring())
    try:
        open_demo(qtbot, window)
        assert window.go_to(Step.PATHWAY)
        window.pathway_page.pathway_buttons[Pathway.LINKABLE].click()
        window.pathway_page.salt_create.click()
        assert window.go_to(Step.REVIEW), window.step_reason.text()
        wait_review(qtbot, window)
        assert window.go_to(Step.EXPORT)
        page, s = window.export_page, window.session
        assert "Export asks you for the reason" in page.verdict.body.text()
        out, cw = tmp_path / "rel", tmp_path / "cw"
        page.release_dir.set_path(out)
        page.crosswalk_dir.set_path(cw)
        asked: list[str] = []
        monkeypatch.setattr(page, "ask_risk_reason", lambda why: asked.append(why) or None)
        page.export_button.click()
        idle(qtbot, window)
        assert asked and "below the target of 5" in asked[0]
        assert "not accepted" in page.banner.message and not out.exists()

        monkeypatch.setattr(page, "ask_risk_reason", lambda why: "analysed in our enclave")
        with qtbot.waitSignal(s.exportDone, timeout=WAIT):
            page.export_button.click()
        idle(qtbot, window)
        record = json.loads((out / "export_record.json").read_text(encoding="utf-8"))
        assert record["verdict"]["risk_accepted"]["reason"] == "analysed in our enclave"
    finally:
        keyring.set_keyring(previous)


def test_a_released_column_left_out_of_k_is_named_on_the_risk_tab(
    qtbot, window: MainWindow
) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    open_demo(qtbot, window)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    page = window.review_page
    assert page.not_counted.isHidden()
    zip3 = next(
        page.qi_list.item(i) for i in range(page.qi_list.count())
        if page.qi_list.item(i).text() == "zip3"
    )  # fmt: skip
    zip3.setCheckState(Qt.CheckState.Unchecked)
    page.apply_button.click()
    wait_review(qtbot, window)
    assert "zip3" in window.session.review.risk.released_not_counted
    assert not page.not_counted.isHidden()
    assert page.not_counted.text().startswith("Released, not counted: ")
    assert "zip3" in page.not_counted.text()
    said = "zip3 is released but not counted in these figures."
    assert said in page.verdict.headline  # the verdict's figures say nothing of it
    assert window.go_to(Step.EXPORT)
    assert said in window.export_page.verdict.headline
