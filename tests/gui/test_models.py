"""The virtual frame model, the tag table model and the session's undo stack."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableView

from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    IdentifierCategory,
    Project,
    Role,
    TableSpec,
)
from deid_desktop.gui.models import (
    MASK,
    ClassFilterProxy,
    FrameModel,
    TagColumn,
    TagModel,
    size_columns_from_sample,
)
from deid_desktop.gui.session import Session

S = pd.StringDtype("pyarrow")


def _project() -> Project:
    cols = (
        ColumnTag("patient_id", ColumnClass.DIRECT, Role.PERSON_KEY, IdentifierCategory.H),
        ColumnTag("last_name", ColumnClass.DIRECT, None, IdentifierCategory.A, ("name list",)),
        ColumnTag("age", ColumnClass.QUASI, Role.AGE),
        ColumnTag("lvef", ColumnClass.CLINICAL),
    )
    spec = TableSpec("demographics", "demographics.csv", "0" * 64, "patient_id", True, cols)
    return Project(project_id="p" * 32, name="t", tables=(spec,))


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "patient_id": ["P1", "P2", "P3"],
            "last_name": ["Okafor", "Lindqvist", None],
            "age": ["54", "91", "70"],
            "lvef": ["35", None, "40"],
        },
        dtype=S,
    )


def test_frame_model_over_a_million_rows_is_virtual(qtbot) -> None:  # type: ignore[no-untyped-def]
    n = 1_000_000
    frame = pd.DataFrame(
        {
            "id": pd.array([f"P{i}" for i in range(n)], dtype=S),
            "zip": pd.array(["02139"] * n, dtype=S),
        }
    )
    model = FrameModel(frame)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    size_columns_from_sample(view)
    assert model.rowCount() == n
    assert model.data(model.index(n - 1, 0)) == f"P{n - 1}"
    assert model.data(model.index(5, 1)) == "02139"  # leading zero kept: text all the way
    # the row header is the line number in the file (header = line 1)
    assert model.headerData(0, Qt.Orientation.Vertical) == "2"
    assert 20 < view.columnWidth(0) <= 320


def test_frame_model_masks_direct_columns_and_marks_missing() -> None:
    model = FrameModel(_frame(), masked=None) if False else FrameModel(_frame())
    model.set_masked(["last_name"])
    assert model.data(model.index(0, 1)) == MASK
    assert model.data(model.index(0, 0)) == "P1"
    assert model.data(model.index(1, 3)) == "(missing)"
    model.set_masked([])
    assert model.data(model.index(0, 1)) == "Okafor"


def test_tag_model_shows_labels_masks_samples_and_routes_edits() -> None:
    edits: list[tuple[str, ColumnTag]] = []
    model = TagModel(lambda t, tag: edits.append((t, tag)))
    model.set_project(_project())
    model.set_samples(lambda _t, c: {"last_name": ["Okafor"], "age": ["54", "91"]}.get(c, []))
    assert model.rowCount() == 4
    row = 1  # last_name
    assert model.data(model.index(row, TagColumn.CLASS)) == "Direct identifier"
    assert model.data(model.index(row, TagColumn.SAMPLE)) == MASK  # masked by default
    model.set_show_values(True)
    assert model.data(model.index(row, TagColumn.SAMPLE)) == "Okafor"
    assert model.data(model.index(2, TagColumn.SAMPLE)) == "54, 91"
    assert "Names" in model.data(model.index(row, TagColumn.CATEGORY))
    assert "Names" in model.data(model.index(row, TagColumn.CATEGORY), Qt.ItemDataRole.ToolTipRole)
    assert "Identifies a person" in model.data(
        model.index(row, TagColumn.CLASS), Qt.ItemDataRole.ToolTipRole
    )
    # category is editable only for direct columns
    assert model.flags(model.index(row, TagColumn.CATEGORY)) & Qt.ItemFlag.ItemIsEditable
    assert not model.flags(model.index(2, TagColumn.CATEGORY)) & Qt.ItemFlag.ItemIsEditable
    # an edit is routed to the session, never applied by the model itself
    assert model.setData(model.index(row, TagColumn.CLASS), "clinical")
    table, tag = edits[-1]
    assert (table, tag.name, tag.cls, tag.category) == (
        "demographics",
        "last_name",
        ColumnClass.CLINICAL,
        None,
    )
    assert model.data(model.index(row, TagColumn.CLASS)) == "Direct identifier"


def test_class_filter_shows_only_one_class() -> None:
    model = TagModel(lambda *_a: None)
    model.set_project(_project())
    proxy = ClassFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_class("direct")
    assert proxy.rowCount() == 2
    proxy.set_class("quasi")
    assert proxy.data(proxy.index(0, TagColumn.COLUMN)) == "age"
    proxy.set_class(None)
    assert proxy.rowCount() == 4


def test_session_tag_changes_undo_redo_and_dirty_flag(qtbot) -> None:  # type: ignore[no-untyped-def]
    s = Session()
    s.open(_project(), None)
    assert not s.dirty
    old = s.project.table("demographics").column("lvef")
    with qtbot.waitSignal(s.projectChanged):
        s.set_tag("demographics", ColumnTag("lvef", ColumnClass.QUASI))
    assert s.project.table("demographics").column("lvef").cls == ColumnClass.QUASI
    assert s.dirty
    s.undo_stack.undo()
    assert s.project.table("demographics").column("lvef") == old
    assert not s.dirty  # back to the saved state
    s.undo_stack.redo()
    assert s.project.table("demographics").column("lvef").cls == ColumnClass.QUASI
    # a non-undoable edit keeps the project dirty even when the tag edit is undone
    s.update(seed=7)
    s.undo_stack.undo()
    assert s.project.seed == 7 and s.dirty


@pytest.mark.parametrize("review_stale", [True, False])
def test_edits_invalidate_the_review_only_when_they_change_the_release(
    qtbot,
    review_stale: bool,  # type: ignore[no-untyped-def]
) -> None:
    s = Session()
    s.open(_project(), None)
    s.set_review(object())
    s.update(review_stale=review_stale, seed=11)
    assert (s.review is None) is review_stale


def test_tag_model_hides_free_text_samples_until_show_values() -> None:
    cols = (
        ColumnTag("patient_id", ColumnClass.DIRECT, Role.PERSON_KEY, IdentifierCategory.H),
        ColumnTag("note", ColumnClass.FREE_TEXT),
    )
    spec = TableSpec("visits", "visits.csv", "0" * 64, "patient_id", True, cols)
    model = TagModel(lambda _t, _tag: None)
    model.set_project(Project(project_id="p" * 32, name="t", tables=(spec,)))
    model.set_samples(lambda _t, c: {"note": ["Dtr Okafor called"]}.get(c, []))
    sample = model.index(1, TagColumn.SAMPLE)
    assert model.data(sample) == MASK
    assert "free text" in model.data(sample, Qt.ItemDataRole.ToolTipRole)
    model.set_show_values(True)
    assert model.data(sample) == "Dtr Okafor called"


def test_frame_model_reads_in_blocks_and_shows_each_row_its_own_cell() -> None:
    from deid_desktop.gui.models import BLOCK_ROWS, MAX_BLOCKS

    n = BLOCK_ROWS * (MAX_BLOCKS + 3)  # more blocks than are kept
    values = [None if i % 7 == 3 else f"v{i}" for i in range(n)]
    frame = pd.DataFrame({"a": pd.array(values, dtype=S), "b": pd.array(values[::-1], dtype=S)})
    model = FrameModel(frame)
    for row in (0, BLOCK_ROWS - 1, BLOCK_ROWS, n - 1, 5, n // 2 + 1):
        for col, column in enumerate((values, values[::-1])):
            want = column[row]
            assert model.data(model.index(row, col)) == (want or "(missing)"), (row, col)
    for row in range(0, n, BLOCK_ROWS // 2):  # every block once: the oldest are dropped
        assert model.data(model.index(row, 0)) == (values[row] or "(missing)")
    assert model.data(model.index(3, 0)) == "(missing)"
    # a new frame never shows the old one's cells
    model.set_frame(pd.DataFrame({"a": pd.array(["new"] * 3, dtype=S)}))
    assert model.data(model.index(0, 0)) == "new"
    assert model.data(model.index(2, 0)) == "new"


def test_tag_samples_are_the_first_distinct_present_values_in_order() -> None:
    from deid_desktop.gui.pages.tag import first_distinct

    column = pd.array([None, "b", "a", "b", None, "c", "d"], dtype=S)
    assert first_distinct(list(column), 3) == ["b", "a", "c"]
    assert first_distinct([float("nan"), 1.5, 1.5], 3) == ["1.5"]
    assert first_distinct([], 3) == []
