"""The hierarchy editor: group a categorical column's values, name the group, save an
ARX file into the project's folder; import an ARX file to start from, export one."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from deid_desktop.core.risk.hierarchy import read_arx_csv
from deid_desktop.gui.hierarchy_editor import HierarchyEditor

ADULT = Path(__file__).resolve().parents[1] / "data" / "adult"
MARITAL = [
    "Married-civ-spouse",
    "Married-AF-spouse",
    "Never-married",
    "Divorced",
    "Separated",
    "Widowed",
]


def _editor(qtbot, folder: Path | None) -> HierarchyEditor:  # type: ignore[no-untyped-def]
    editor = HierarchyEditor({"marital": MARITAL, "sex": ["F", "M"]}, {}, folder)
    qtbot.addWidget(editor)
    editor.show()
    return editor


def test_group_name_and_save(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "hierarchies"
    editor = _editor(qtbot, folder)
    assert editor.column.currentText() == "marital"
    # no selection, or no name: a warning, nothing grouped
    qtbot.mouseClick(editor.group_button, Qt.MouseButton.LeftButton)
    assert "Select the values" in editor.banner.message
    editor.select_values(["Married-civ-spouse", "Married-AF-spouse"])
    qtbot.mouseClick(editor.group_button, Qt.MouseButton.LeftButton)
    assert "Type a name" in editor.banner.message
    assert editor.groups()["Married-AF-spouse"] == "Married-AF-spouse"

    editor.group_name.setText("Married")
    qtbot.mouseClick(editor.group_button, Qt.MouseButton.LeftButton)
    editor.select_values(["Divorced", "Separated", "Widowed"])
    editor.group_name.setText("Previously married")
    qtbot.mouseClick(editor.group_button, Qt.MouseButton.LeftButton)
    editor.select_values(["Widowed"])  # changed her mind: Widowed stands for itself
    qtbot.mouseClick(editor.ungroup_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(editor.saved) as saved:
        qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    column, hierarchy, path = saved.args
    assert column == "marital" and path.parent == folder and path.name.startswith("marital-")
    on_disk = read_arx_csv(path, column="marital")
    assert on_disk.rows == hierarchy.rows and on_disk.levels == 3
    assert on_disk.mapping(1) == {
        "Married-civ-spouse": "Married",
        "Married-AF-spouse": "Married",
        "Never-married": "Never-married",
        "Divorced": "Previously married",
        "Separated": "Previously married",
        "Widowed": "Widowed",
    }
    assert set(on_disk.level_labels(2)) == {"*"}
    # saving the same content again names the same file; a change makes a new one, and the
    # file a project may refer to is left as it was
    before = path.read_bytes()
    assert editor.save() == path
    editor.select_values(["Widowed"])
    editor.group_name.setText("Previously married")
    qtbot.mouseClick(editor.group_button, Qt.MouseButton.LeftButton)
    changed = editor.save()
    assert changed is not None and changed != path and path.read_bytes() == before


def test_import_and_export_arx(qtbot, tmp_path: Path, dialogs) -> None:  # type: ignore[no-untyped-def]
    editor = _editor(qtbot, tmp_path)
    source = ADULT / "adult_hierarchy_marital-status.csv"
    dialogs.answer("getOpenFileName", (str(source), ""))
    qtbot.mouseClick(editor.import_button, Qt.MouseButton.LeftButton)
    adult = read_arx_csv(source, column="marital")
    groups = editor.groups()
    assert groups == {v: adult.mapping(1)[v] for v in MARITAL}
    out = tmp_path / "out.csv"
    dialogs.answer("getSaveFileName", (str(out), ""))
    qtbot.mouseClick(editor.export_button, Qt.MouseButton.LeftButton)
    exported = read_arx_csv(out, column="marital")
    assert exported.mapping(1) == groups and exported.level_labels(2) == ("*",) * len(MARITAL)
    assert "Exported as out.csv" in editor.banner.message


def test_without_a_project_folder_nothing_is_saved(qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _editor(qtbot, None)
    assert not editor.save_button.isEnabled() and editor.save() is None
    assert "Save the project first" in editor.banner.message
