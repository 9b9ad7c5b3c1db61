"""Opening a project whose input changed: the check of the inputs (their hashes, seconds
at a million rows) runs off the UI thread, then says what changed and loads nothing."""

from __future__ import annotations

from deid_desktop.gui.main_window import MainWindow


def test_a_changed_input_is_reported_after_the_check_and_nothing_loads(
    qtbot, window: MainWindow
) -> None:  # type: ignore[no-untyped-def]
    assert window.open_demo()
    qtbot.waitUntil(lambda: window.session.extract is not None, timeout=60_000)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=60_000)
    path = window.session.project_path
    assert path is not None
    window.close_project()
    visits = path.parent / "visits.csv"
    visits.write_text(visits.read_text(encoding="utf-8") + "\n", encoding="utf-8")

    assert window.open_project(path)
    page = window.load_page
    assert window.runner.busy  # the check runs in the worker, not in open_project
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=60_000)
    assert window.session.extract is None
    assert "table 'visits' changed" in page.banner.message
    assert "Re-point table" in page.banner.message
    statuses = [page.table_list.item(r, 5).text() for r in range(page.table_list.rowCount())]
    assert "Changed or missing" in statuses
