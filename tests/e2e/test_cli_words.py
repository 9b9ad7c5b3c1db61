"""`deid words PROJECT add KIND TERM` / `list`, and the word list in `deid scan` and
`deid run`: found in every note, counted in the record, never in the release or the
project file."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from deid_desktop.core.demo import write_demo
from deid_desktop.core.model import FreeTextAction
from deid_desktop.core.project import load_project, save_project
from tests.e2e._cli import main_captured

TERM = "furosemide"  # in 147 demo notes; no identifier shape, not in the dictionary


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEID_REGISTER", str(tmp_path / "register.jsonl"))
    path = write_demo(tmp_path / "demo")
    project = load_project(path)
    free_text = {"demographics.notes": FreeTextAction.REDACT}
    transform = dataclasses.replace(project.transform, free_text=free_text)
    save_project(dataclasses.replace(project, transform=transform), path)
    return path


def test_words_add_then_list_beside_the_project(demo: Path, capsys) -> None:
    code, out, _ = main_captured(capsys, "words", demo, "add", "name", "Smithers")
    assert code == 0
    held_back = demo.parent / "crosswalk"
    assert (held_back / "word-list.txt").read_text(encoding="utf-8") == "NAME\tSmithers\n"
    code, out, _ = main_captured(capsys, "words", demo, "list")
    assert code == 0 and "1 term(s)" in out and "NAME\tSmithers" in out
    code, out, _ = main_captured(capsys, "words", demo, "--json", "list")
    assert json.loads(out)["terms"] == 1
    code, _, err = main_captured(capsys, "words", demo, "add", "FLAVOUR", "x")
    assert code == 2 and "Unknown word list kind" in err
    assert "Smithers" not in demo.read_text(encoding="utf-8")


def test_scan_and_run_use_the_word_list_of_the_crosswalk_folder(
    demo: Path, tmp_path: Path, capsys
) -> None:
    code, out, _ = main_captured(capsys, "scan", demo, "--json")
    assert code == 0
    before = json.loads(out)["hits"]
    assert main_captured(capsys, "words", demo, "add", "OTHER", TERM)[0] == 0
    code, out, _ = main_captured(capsys, "scan", demo, "--json")
    assert json.loads(out)["hits"] >= before + 147

    xw, out_dir = tmp_path / "xw", tmp_path / "out"
    assert main_captured(capsys, "words", demo, "--held-back", xw, "add", "OTHER", TERM)[0] == 0
    code, _, err = main_captured(
        capsys, "run", demo, "--out", out_dir, "--crosswalk-out", xw, "--json"
    )
    assert code == 0, err
    record = json.loads((out_dir / "export_record.json").read_text(encoding="utf-8"))
    assert record["word_list"] == {"terms": 1, "by_kind": {"OTHER": 1}}
    for path in out_dir.iterdir():
        assert TERM not in path.read_bytes().decode("utf-8", "replace").lower(), path.name
    assert (xw / "word-list.txt").is_file()
