"""The person-key re-tag rule is core's: the GUI's tag grid and `deid tag` give the same
answer - the key is refused any other tag, unless the user picks another person key."""

from __future__ import annotations

from pathlib import Path

import pytest

from deid_desktop.core.demo import write_demo
from deid_desktop.core.model import ColumnClass, Project, Role
from deid_desktop.core.project import load_project
from deid_desktop.core.steps import Step
from deid_desktop.gui.main_window import MainWindow
from deid_desktop.gui.models import TagColumn
from tests.e2e._cli import main_captured
from tests.gui.test_flow import choose_in_cell, open_demo

REFUSAL = (
    "'patient_id' is the person key of table 'demographics': it stays a direct identifier "
    "with the person-key role"
)


def tags(project: Project, table: str) -> list[tuple[str, str, str | None, str | None]]:
    """What a user sees of a table's tags (class, role, category), without the evidence."""
    return [
        (c.name, c.cls.value, c.role and c.role.value, c.category and c.category.value)
        for c in project.table(table).columns
    ]


@pytest.fixture
def tag_page(qtbot, window: MainWindow) -> MainWindow:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    window.next_button.click()
    assert window.current_step == Step.TAG
    return window


def test_re_tagging_the_person_key_is_refused_alike_in_gui_and_cli(
    qtbot,  # type: ignore[no-untyped-def]
    tag_page: MainWindow,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    s = tag_page.session
    before = s.project
    choose_in_cell(qtbot, tag_page, "demographics", "patient_id", TagColumn.CLASS, "Clinical")
    gui = tag_page.tag_page.banner.message
    assert s.project == before and not s.dirty  # nothing changed

    path = write_demo(tmp_path / "demo")
    saved = path.read_bytes()
    code, _, err = main_captured(capsys, "tag", path, "demographics.patient_id=clinical")
    assert code == 2 and path.read_bytes() == saved  # nothing saved

    assert gui.startswith(REFUSAL)
    assert err.startswith(f"deid: {REFUSAL}")
    assert gui.splitlines() == err.removeprefix("deid: ").strip().splitlines()  # same hint


def test_picking_another_person_key_gives_the_same_project_in_gui_and_cli(
    qtbot,  # type: ignore[no-untyped-def]
    tag_page: MainWindow,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    s = tag_page.session
    choose_in_cell(qtbot, tag_page, "demographics", "mrn", TagColumn.ROLE, "Person key")
    gui = s.project
    assert gui.table("demographics").key == "mrn"
    assert gui.table("demographics").column("patient_id").role is None
    assert gui.table("demographics").column("patient_id").cls is ColumnClass.DIRECT
    assert gui.table("demographics").column("mrn").role is Role.PERSON_KEY

    path = write_demo(tmp_path / "demo")
    code, out, err = main_captured(capsys, "tag", path, "demographics.mrn=direct:person_key")
    assert code == 0, err
    assert "person key is now mrn (was patient_id)" in out
    cli = load_project(path)
    assert cli.table("demographics").key == "mrn"
    assert tags(cli, "demographics") == tags(gui, "demographics")

    tag_page.act_undo.trigger()  # undo puts the old key back in the GUI
    assert s.project.table("demographics").key == "patient_id"
    assert s.project.table("demographics").column("patient_id").role is Role.PERSON_KEY
