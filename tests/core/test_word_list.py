"""The project word list: terms the user adds, kept in the held-back folder beside the
crosswalk, found and redacted in every note, counted (never shown) in the record, and
never written into the release or the project file."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from deid_desktop.core import engine
from deid_desktop.core.demo import write_demo
from deid_desktop.core.errors import UsageError
from deid_desktop.core.export import FULL_RECORD_JSON
from deid_desktop.core.model import FreeTextAction
from deid_desktop.core.project import save_project
from deid_desktop.core.scan import (
    add_word,
    build_dictionary_from_values,
    load_word_list,
    scan_text_arrays,
    site_list_path,
    word_list_path,
)
from deid_desktop.core.scan.dictionary import ScanDictionary

TERM = "furosemide"  # in 147 demo notes, no identifier: only the word list makes it one


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    path = write_demo(tmp_path / "demo")
    project, _ = engine.open_project(path)
    free_text = {"demographics.notes": FreeTextAction.REDACT}
    project = dataclasses.replace(
        project, transform=dataclasses.replace(project.transform, free_text=free_text)
    )
    save_project(project, path)
    return path


def test_add_and_load_keep_kind_order_and_no_duplicates(tmp_path: Path) -> None:
    add_word(tmp_path, "name", "  Smithers ")
    add_word(tmp_path, "LOCATION", "4 West")
    add_word(tmp_path, "NAME", "Smithers")
    site_list_path(tmp_path).write_text("# our sites\nSCVMC\n", encoding="utf-8")
    words = load_word_list(tmp_path)
    assert word_list_path(tmp_path).read_text() == "NAME\tSmithers\nLOCATION\t4 West\n"
    assert dict(words.terms) == {"NAME": ("Smithers",), "LOCATION": ("4 West", "SCVMC")}
    assert words.summary_dict() == {"terms": 3, "by_kind": {"LOCATION": 2, "NAME": 1}}
    assert len(load_word_list(tmp_path / "none")) == 0
    with pytest.raises(UsageError, match="Unknown word list kind"):
        add_word(tmp_path, "FLAVOUR", "x")


def test_a_bad_line_is_named_by_its_number_never_its_text(tmp_path: Path) -> None:
    word_list_path(tmp_path).write_text("NAME\tSmithers\nSecretPerson\n", encoding="utf-8")
    with pytest.raises(UsageError) as err:
        load_word_list(tmp_path)
    assert "line 2" in str(err.value) and "SecretPerson" not in str(err.value)


def test_a_word_list_name_is_high_in_every_persons_note() -> None:
    from deid_desktop.core.scan.engine import at_level

    owned = build_dictionary_from_values({"name": ["Jones"]}, owners=[("p1", "Jones")])
    notes = ["Seen by Smithers today.", "Smithers called back; Jones too."]
    persons = ["p1", "p2"]
    assert at_level(scan_text_arrays(notes, owned, persons=persons), "high").note.size == 0
    pinned = ScanDictionary(
        {**owned.terms, "smithers": "NAME"}, owned.digits, 0, owned.owners, frozenset({"smithers"})
    )
    high = at_level(scan_text_arrays(notes, pinned, persons=persons), "high")
    found = sorted((int(n), notes[n][s:e]) for n, s, e in zip(*high[:3], strict=True))
    assert found == [(0, "Smithers"), (1, "Smithers")]


def test_run_finds_and_redacts_the_term_in_every_note_and_counts_it(
    demo: Path, tmp_path: Path
) -> None:
    notes = (demo.parent / "demographics.csv").read_text(encoding="utf-8")
    assert notes.count(TERM) == 147
    out, xw = tmp_path / "out", tmp_path / "xw"
    before = engine.run(demo, out_dir=out, crosswalk_dir=xw, register_path=tmp_path / "r.jsonl")
    assert "word_list" not in before.record
    assert TERM in (out / "demographics.csv").read_text(encoding="utf-8")  # not found alone

    add_word(xw, "OTHER", TERM)
    project_bytes = demo.read_bytes()
    rec = engine.run(
        demo, out_dir=out, crosswalk_dir=xw, register_path=tmp_path / "r.jsonl", overwrite=True
    )
    assert rec.record["word_list"] == {"terms": 1, "by_kind": {"OTHER": 1}}
    released = (out / "demographics.csv").read_text(encoding="utf-8")
    assert released.count("[ID]") >= 147
    for path in out.rglob("*"):  # never in the release: no term, no word list file
        assert path.name != word_list_path(xw).name
        if path.is_file():
            assert TERM not in path.read_bytes().decode("utf-8", "replace").lower(), path.name
    for path in xw.iterdir():  # the held-back record counts, never names, the term
        if path != word_list_path(xw) and path.suffix == ".json":
            assert TERM not in path.read_text(encoding="utf-8").lower()
    assert demo.read_bytes() == project_bytes
    assert TERM not in demo.read_text(encoding="utf-8")
    assert word_list_path(xw).read_text(encoding="utf-8") == f"OTHER\t{TERM}\n"  # kept


def test_a_crosswalk_folder_holding_only_the_word_list_takes_the_first_export(
    demo: Path, tmp_path: Path
) -> None:
    out, xw = tmp_path / "out", tmp_path / "xw"
    add_word(xw, "OTHER", TERM)
    rec = engine.run(demo, out_dir=out, crosswalk_dir=xw, register_path=tmp_path / "r.jsonl")
    assert rec.record["word_list"]["terms"] == 1
    assert word_list_path(xw).is_file() and not (out / word_list_path(xw).name).exists()
    record = json.loads((xw / FULL_RECORD_JSON).read_text(encoding="utf-8"))
    assert record["word_list"] == {"terms": 1, "by_kind": {"OTHER": 1}}


WORD = "Unscheduled"  # a released visit type of the demo: a user's word list term here


def test_a_released_cell_holding_a_word_list_term_fails_the_export(
    demo: Path, tmp_path: Path
) -> None:
    """The read-back looks for the word list's terms in every released file, like the
    extract's direct values: the export fails and writes nothing, naming the file and
    column, never the term."""
    from deid_desktop.core.errors import CheckFailed

    out, xw = tmp_path / "out", tmp_path / "xw"
    add_word(xw, "LOCATION", WORD)
    with pytest.raises(CheckFailed) as err:
        engine.run(demo, out_dir=out, crosswalk_dir=xw, register_path=tmp_path / "r.jsonl")
    message = str(err.value)
    assert "visits.csv column 'visit_type'" in message and "Nothing was written" in message
    assert WORD.lower() not in message.lower()
    assert not out.exists()
    assert [p.name for p in xw.iterdir()] == [word_list_path(xw).name]  # the list alone


def test_deid_run_refuses_a_release_holding_a_word_list_term_with_exit_3(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.e2e._cli import main_captured

    out, xw = tmp_path / "out", tmp_path / "xw"
    code, _, err = main_captured(capsys, "run", demo, "--out", out, "--crosswalk-out", xw)
    assert code == 0, err  # without the term the release goes out
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    add_word(xw, "NAME", WORD)
    code, _, err = main_captured(
        capsys, "run", demo, "--out", out, "--crosswalk-out", xw, "--overwrite"
    )
    assert code == 3, err
    assert "visits.csv column 'visit_type'" in err and WORD.lower() not in err.lower()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the earlier release
