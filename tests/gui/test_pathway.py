"""Step 3: the pathway choice and its options are saved in the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from deid_desktop.core.model import Pathway
from deid_desktop.core.steps import Step
from deid_desktop.gui.main_window import MainWindow

WAIT = 60_000


@pytest.fixture
def on_pathway_page(qtbot, window: MainWindow) -> MainWindow:  # type: ignore[no-untyped-def]
    assert window.open_demo()
    qtbot.waitUntil(lambda: window.session.extract is not None, timeout=WAIT)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=WAIT)
    assert window.go_to(Step.PATHWAY)
    return window


def test_a_newer_census_table_replaces_the_bundled_one(
    qtbot,
    on_pathway_page: MainWindow,
    dialogs,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    page = on_pathway_page.pathway_page
    bundled = page.zip3_label.text()
    census = tmp_path / "zcta_pop_2030.csv"
    census.write_text("zcta,population\n02139,36000\n02140,1200\n10001,25000\n")
    dialogs.answer("getOpenFileName", (str(census), ""))
    page.zip3_button.click()
    qtbot.waitUntil(lambda: not on_pathway_page.runner.busy, timeout=WAIT)
    s = on_pathway_page.session
    assert s.project.transform.zip3_table == str(census), page.banner.message
    assert page.zip3_label.text() not in ("", bundled)  # the vintage shown is the new file's
    assert page.zip3_reset.isEnabled()
    page.zip3_reset.click()
    assert s.project.transform.zip3_table is None
    assert page.zip3_label.text() == bundled


def test_seed_and_reference_date_are_project_settings(on_pathway_page: MainWindow) -> None:
    page = on_pathway_page.pathway_page
    s = on_pathway_page.session
    page.seed.setValue(1234)
    assert s.project.seed == 1234 and s.dirty
    page.age_ref.setCurrentIndex(1)  # a fixed date
    assert s.project.transform.age_reference == page.age_date.date().toString("yyyy-MM-dd")


def test_the_linkable_pathway_says_where_its_salt_is(on_pathway_page: MainWindow) -> None:
    page = on_pathway_page.pathway_page
    page.pathway_buttons[Pathway.LINKABLE].setChecked(True)
    assert on_pathway_page.session.project.pathway == Pathway.LINKABLE
    text = page.salt_status.text()
    assert page.salt_status.isVisible() and text.startswith("Salt:")
    assert "keyring" in text.lower()


def test_the_zip3_table_is_read_off_the_ui_thread(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Opening a project shows the ZIP3 table's vintage without reading the table on the
    UI thread (pandas parsing a CSV; at open, the load job imports pandas meanwhile and
    the window waited for it)."""
    import threading

    from deid_desktop.core import zip3
    from deid_desktop.gui import backend

    threads: list[bool] = []
    read = backend.zip3_vintage

    def vintage(project):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread() is threading.main_thread())
        return read(project)

    monkeypatch.setattr(backend, "zip3_vintage", vintage)
    zip3.load_bundled_zip3.cache_clear()  # the first reading of the shipped table
    assert window.open_demo()
    qtbot.waitUntil(lambda: window.session.extract is not None, timeout=WAIT)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=WAIT)
    assert threads and not any(threads)
    assert "2020" in window.pathway_page.zip3_label.text()
