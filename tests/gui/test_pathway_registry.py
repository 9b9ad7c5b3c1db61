"""A new pathway is its enum member, one module and its gate rows: a throwaway fourth
pathway registered here shows in the GUI list, the CLI choices and the export wording,
with no other edit to the product."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from deid_desktop.core import engine
from deid_desktop.core.demo import write_demo
from deid_desktop.core.pathways import registry
from deid_desktop.core.project import load_project
from deid_desktop.gui.main_window import MainWindow
from tests.e2e._cli import main_captured
from tests.pathway_plugin import fourth_pathway  # noqa: F401  (fixture)

WAIT = 60_000


def test_the_fourth_pathway_is_in_the_gui_list(
    qtbot,  # type: ignore[no-untyped-def]
    fourth_pathway: registry.PathwaySpec,  # noqa: F811
    settings: QSettings,
) -> None:
    window = MainWindow(settings)
    qtbot.addWidget(window)
    try:
        assert window.open_demo()
        qtbot.waitUntil(lambda: window.session.extract is not None, timeout=WAIT)
        qtbot.waitUntil(lambda: not window.runner.busy, timeout=WAIT)
        page = window.pathway_page
        button = page.pathway_buttons[fourth_pathway.id]
        assert button.text() == "Safe Harbor without ZIP3"
        assert button.toolTip() == fourth_pathway.label
        assert list(page.pathway_buttons)[-1] == fourth_pathway.id  # after the built-in three
        button.setChecked(True)
        assert window.session.project.pathway == fourth_pathway.id
        assert page.options_box.title() == "Safe Harbor without ZIP3 options"
        assert not page.salt_status.isVisible()  # needs_salt=False: no keyring
    finally:
        window.runner.cancel_all()
        window.runner.wait(10_000)
        window.session.close()


def test_the_fourth_pathway_is_a_cli_choice(
    capsys: pytest.CaptureFixture[str],
    fourth_pathway: registry.PathwaySpec,  # noqa: F811
    tmp_path: Path,
) -> None:
    project_path = write_demo(tmp_path / "demo")
    code, out, _ = main_captured(capsys, "pathway", "--help")
    assert code == 0 and "safe-harbor-no-zip3" in re.sub(r"-\s+", "-", out)  # help wraps at -
    code, out, err = main_captured(capsys, "pathway", project_path, "safe-harbor-no-zip3", "--json")
    assert code == 0, err
    assert json.loads(out)["label"] == fourth_pathway.label
    assert load_project(project_path).pathway == fourth_pathway.id
    code, _, err = main_captured(capsys, "pathway", project_path, "safe-harbor-no-zip4")
    assert code == 2 and "safe-harbor-no-zip3" in err  # argparse lists the choices


def test_the_fourth_pathway_writes_its_own_export_wording(
    fourth_pathway: registry.PathwaySpec,  # noqa: F811
    tmp_path: Path,
) -> None:
    from dataclasses import replace

    path = write_demo(tmp_path / "demo")
    project, _ = engine.open_project(path)
    project = replace(project, pathway=fourth_pathway.id)
    extract = engine.load(project, path)
    result = engine.review(project, extract)
    assert result.release.pathway == fourth_pathway.id
    record = engine.export(
        project,
        path,
        result,
        out_dir=tmp_path / "release",
        crosswalk_dir=tmp_path / "crosswalk",
        register_path=tmp_path / "register.jsonl",
    )
    readme = (tmp_path / "release" / "README.txt").read_text(encoding="utf-8")
    assert f"This release is {fourth_pathway.label}." in readme
    assert "The ZIP3 column was removed." in readme
    with (tmp_path / "release" / "data_dictionary.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    treatments = {r["transformation"] for r in rows}
    assert "random subject ID (Safe Harbor without ZIP3)" in treatments
    assert any("reduced to the year (no ZIP3)" in t for t in treatments)
    assert not any("zip3" in r["column"] for r in rows)
    assert record.record["pathway"] == fourth_pathway.id.value
    assert record.record["label"] == fourth_pathway.label


def test_an_unknown_pathway_is_a_clear_error_not_a_key_error(tmp_path: Path) -> None:
    from deid_desktop.core.errors import UsageError

    with pytest.raises(UsageError, match="pathway this version does not know"):
        registry.pathway_spec("safe_harbor_no_zip3")
