"""A GUI export is reproducible: every decision made in the wizard (age bands,
suppression, free-text action, seed, pathway) is in the saved project file, export saves
it first, the record names it with its SHA-256, and ``deid run`` on that file in a fresh
process writes the same bytes - for each pathway."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import keyring
import pytest
from PySide6.QtWidgets import QComboBox

from deid_desktop.core.export import FULL_RECORD_JSON, RECORD_JSON, RECORD_TXT
from deid_desktop.core.export.release import CROSSWALK_FILE
from deid_desktop.core.model import FreeTextAction, Pathway
from deid_desktop.core.project import load_project
from deid_desktop.core.steps import Step
from deid_desktop.gui.main_window import MainWindow
from tests.core.support import sha
from tests.file_keyring import ENV, FileKeyring
from tests.gui.test_flow import export_in_window, open_demo, wait_review
from tests.memory_keyring import trust

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def file_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv(ENV, str(tmp_path / "keyring.json"))
    trust(FileKeyring, monkeypatch)
    previous = keyring.get_keyring()
    keyring.set_keyring(FileKeyring())
    yield
    keyring.set_keyring(previous)


def _deid_run(project: Path, out: Path, cw: Path, register: Path) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.file_keyring",
            "run",
            str(project),
            "--out",
            str(out),
            "--crosswalk-out",
            str(cw),
            "--register",
            str(register),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


@pytest.mark.parametrize("pathway", list(Pathway), ids=[p.value for p in Pathway])
def test_gui_decisions_export_and_deid_run_write_the_same_bytes(
    qtbot, window: MainWindow, tmp_path: Path, pathway: Pathway, file_keyring: None
) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    s = window.session
    path = s.project_path
    assert path is not None and not s.dirty

    # 3 Pathway: the pathway, the free-text action and the seed, as a user sets them
    assert window.go_to(Step.PATHWAY)
    page = window.pathway_page
    page.pathway_buttons[pathway].click()
    if pathway == Pathway.LINKABLE:
        page.salt_create.click()
        assert not page.salt_create.isVisible()
    combo = page.free_text.cellWidget(0, 1)
    assert isinstance(combo, QComboBox)
    combo.setCurrentIndex(combo.findData(FreeTextAction.REDACT.value))
    page.seed.setValue(424242)
    window.export_page.dua.setText("DUA-2026-77")
    window.export_page._meta_changed()

    # 4 Review: age bands and suppression
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    review = window.review_page
    review.age_bands_on.setChecked(True)
    review.age_bands.setText("0, 20, 40, 60, 80, 90")
    review.suppress.setChecked(True)
    review.apply_button.click()
    wait_review(qtbot, window)
    assert s.review.passed and s.dirty  # the decisions are not saved yet

    # 5 Export: saves the project first
    out, cw = tmp_path / "gui-release", tmp_path / "gui-crosswalk"
    export_in_window(qtbot, window, out, cw)
    assert not s.dirty
    saved = load_project(path)
    assert saved.pathway == pathway and saved.seed == 424242
    assert saved.risk.age_bands == (0, 20, 40, 60, 80, 90) and saved.risk.suppress_below_k
    assert saved.transform.free_text == {"demographics.notes": FreeTextAction.REDACT}
    full = json.loads((cw / FULL_RECORD_JSON).read_text(encoding="utf-8"))
    assert full["project"]["file"] == str(path.absolute())
    assert full["project"]["sha256"] == sha(path)

    # the saved project, run by the CLI in a fresh process
    out2, cw2 = tmp_path / "cli-release", tmp_path / "cli-crosswalk"
    done = _deid_run(path, out2, cw2, tmp_path / "cli-register.jsonl")
    assert done.returncode == 0, done.stderr
    gui = {p.name: sha(p) for p in out.iterdir() if p.name not in (RECORD_JSON, RECORD_TXT)}
    cli = {p.name: sha(p) for p in out2.iterdir() if p.name not in (RECORD_JSON, RECORD_TXT)}
    assert gui and gui == cli
    assert (cw / CROSSWALK_FILE).is_file() == (cw2 / CROSSWALK_FILE).is_file()
    if (cw / CROSSWALK_FILE).is_file():
        assert sha(cw / CROSSWALK_FILE) == sha(cw2 / CROSSWALK_FILE)
