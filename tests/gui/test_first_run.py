"""What a new user hit on a first run (issue 13, items 2-4 and 8): the event table's key
drop-down, the missing age reference reported on step 3, no stale results after a failed
review, and default folders a person can write to."""

from __future__ import annotations

from pathlib import Path

import keyring
import keyring.backends.fail
import pandas as pd
import pytest
from PySide6.QtWidgets import QComboBox

from deid_desktop.core.errors import ProjectError
from deid_desktop.core.model import Pathway, Role
from deid_desktop.core.steps import Step
from deid_desktop.gui import backend
from deid_desktop.gui.main_window import MainWindow
from deid_desktop.gui.pages.export import default_folders
from deid_desktop.gui.pages.pathway import AGE_REFERENCE_MISSING
from tests.gui.test_flow import idle, open_demo, wait_review

pytestmark = pytest.mark.slow


def _new_project(qtbot, window: MainWindow, dialogs, person: Path, events: list[Path]) -> None:  # type: ignore[no-untyped-def]
    dialogs.answer("getOpenFileName", (str(person), ""))
    window.new_project()
    window.load_page.person_button.click()
    idle(qtbot, window)
    if events:
        dialogs.answer("getOpenFileNames", ([str(p) for p in events], ""))
        window.load_page.event_button.click()
        idle(qtbot, window)


def test_the_key_column_chosen_for_an_event_table_is_used(
    qtbot, window: MainWindow, dialogs, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from deid_desktop.core.demo import write_demo

    src = write_demo(tmp_path / "extract").parent
    visits = pd.read_csv(src / "visits.csv", dtype=str, keep_default_na=False)
    visits.insert(0, "subject", visits["patient_id"])  # the same keys, another column
    visits.to_csv(src / "visits2.csv", index=False)
    _new_project(qtbot, window, dialogs, src / "demographics.csv", [src / "visits2.csv"])
    table = window.load_page.table_list
    combo = next(
        table.cellWidget(r, 3)
        for r in range(table.rowCount())
        if isinstance(table.cellWidget(r, 3), QComboBox)
        and "visits2" in table.cellWidget(r, 3).accessibleName()
    )
    assert combo.currentText() == "patient_id"  # what core would choose, shown
    combo.setCurrentText("subject")
    window.load_page.create_button.click()
    keys = [c.name for c in window.session.project.table("visits2").columns
            if c.role == Role.PERSON_KEY]  # fmt: skip
    assert keys == ["subject"]


def test_a_missing_age_reference_is_reported_on_step_3_in_desktop_words(
    qtbot, window: MainWindow, dialogs, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    people = pd.DataFrame(
        {
            "patient_id": [f"P{i:05d}" for i in range(60)],
            "dob": [f"19{40 + i % 50}-0{1 + i % 9}-1{i % 9}" for i in range(60)],
            "sex": ["F", "M"] * 30,
        }
    )
    path = tmp_path / "people.csv"
    people.to_csv(path, index=False)
    _new_project(qtbot, window, dialogs, path, [])
    window.load_page.create_button.click()
    s = window.session
    tags = {c.name: c for c in s.project.person_table.columns}
    assert tags["dob"].role == Role.BIRTH_DATE
    window.tag_page.accept_all()
    assert window.go_to(Step.PATHWAY)
    page = window.pathway_page
    assert page.age_ref.currentIndex() == -1  # no silent "index date" default
    assert not page.age_ref.model().item(0).isEnabled()
    assert page.blocker() == AGE_REFERENCE_MISSING
    assert AGE_REFERENCE_MISSING in page.banner.message
    assert not window.next_button.isEnabled()
    assert AGE_REFERENCE_MISSING in window.next_reason.text()
    assert not window.go_to(Step.REVIEW)
    page.age_ref.setCurrentIndex(page.age_ref.findData("date"))
    assert s.project.transform.age_reference != "index"
    assert page.blocker() is None and not page.banner.message
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)


def test_the_age_error_in_the_window_names_no_command_line_syntax(window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    from deid_desktop.gui.widgets import plain_error

    hint = (
        "Set a fixed reference date. Command line: 'deid pathway PROJECT safe-harbor "
        "--age-reference YYYY-MM-DD'. Desktop app: in step 3 set the date."
    )
    _message, shown = plain_error(ProjectError("Ages cannot be computed", hint=hint))
    assert "deid " not in shown and "--age-reference" not in shown
    assert shown == "Set a fixed reference date. In step 3 set the date."


def test_a_failed_review_leaves_no_old_result_on_screen(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    page = window.review_page
    assert page.checks.topLevelItemCount() > 0 and page.verdict.isVisible()

    def fail(*_a: object, **_k: object) -> None:
        raise ProjectError("The extract cannot be reviewed", hint="Fix it.")

    monkeypatch.setattr(backend, "review", fail)
    window.session.update(seed=7)  # invalidates the review, which runs again and fails
    qtbot.waitUntil(lambda: bool(page.banner.message), timeout=60_000)
    idle(qtbot, window)
    assert page.checks.topLevelItemCount() == 0
    assert "did not finish" in page.checks_summary.text()
    assert not page.verdict.isVisible() and not page.gate.message
    assert page.banner.message.count("cannot be reviewed") == 1
    assert "Run the review first" not in window.next_reason.text()
    assert "did not finish" in window.next_reason.text()


def test_without_a_keyring_the_linkable_step_says_so_once_and_create_salt_is_off(
    qtbot, window: MainWindow
) -> None:  # type: ignore[no-untyped-def]
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        open_demo(qtbot, window)
        assert window.go_to(Step.PATHWAY)
        page = window.pathway_page
        page.pathway_buttons[Pathway.LINKABLE].click()
        assert page.salt_status.isVisible() and not page.salt_create.isEnabled()
        reason = page.blocker()
        assert reason and "keyring" in reason.lower()
        assert not window.go_to(Step.REVIEW)  # said here, not as an error at the review
        assert not page.banner.message
    finally:
        keyring.set_keyring(previous)


def test_default_folders_are_beside_the_project_and_never_hidden(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "studies" / "hf.deid.json"
    assert default_folders(project, "hf", home) == (
        home / "studies" / "release",
        home / "studies" / "crosswalk",
    )
    hidden = home / ".local" / "share" / "deid-desktop" / "demo" / "demo.deid.json"
    release, crosswalk = default_folders(hidden, "Demo", home)
    assert not any(p.startswith(".") for p in release.relative_to(home).parts)
    assert release.parent == crosswalk.parent and release != crosswalk
    assert default_folders(None, "x", home)[0].is_relative_to(home)


def test_a_new_project_offers_folders_beside_it_not_the_parent_of_home(
    qtbot, window: MainWindow, dialogs, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from deid_desktop.core.demo import write_demo

    src = write_demo(tmp_path / "extract").parent
    _new_project(qtbot, window, dialogs, src / "demographics.csv", [])
    window.load_page.create_button.click()
    window.tag_page.accept_all()
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    assert window.go_to(Step.EXPORT)
    page = window.export_page
    assert page.release_dir.path == src / "release"
    assert page.crosswalk_dir.path == src / "crosswalk"
    assert page.release_dir.path != Path.home().parent
