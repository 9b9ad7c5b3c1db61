"""The GUI's review leaves out the export's read-back dictionary (every direct value of
the extract: hundreds of MB at a million persons, held for as long as the review is on
screen); the export builds it, so the read-back still catches a name in the written
files, and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from deid_desktop.core import engine
from deid_desktop.core.errors import CheckFailed
from deid_desktop.core.model import Extract
from deid_desktop.core.resources import resources_dir
from deid_desktop.gui import backend
from tests.core.support import leak_into_written_file

DEMO = resources_dir() / "demo" / "demo.deid.json"


def test_the_review_holds_no_dictionary_and_the_export_still_reads_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEID_REGISTER", str(tmp_path / "register.jsonl"))
    project, _ = engine.open_project(DEMO)
    extract = engine.load(project, DEMO)
    review = backend.review(extract, project, held_back=tmp_path / "held-back")
    assert review.passed and review.dictionary is None
    surname = str(extract.table("demographics").frame["last_name"].dropna().iloc[0])
    leak_into_written_file(monkeypatch, f"seen by {surname}")
    out = tmp_path / "out"
    refused = _export_refused(review, extract, out / "release", out / "crosswalk")
    assert surname not in str(refused)
    assert not out.exists()


def test_the_export_reads_back_the_word_list_of_the_chosen_crosswalk_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A term of the project word list (kept in the crosswalk folder the user chose) in a
    written file fails the GUI's export as it fails ``deid run``'s: the dictionary the
    export builds holds the word list too."""
    from deid_desktop.core.scan.wordlist import add_word

    monkeypatch.setenv("DEID_REGISTER", str(tmp_path / "register.jsonl"))
    project, _ = engine.open_project(DEMO)
    extract = engine.load(project, DEMO)
    crosswalk = tmp_path / "chosen" / "crosswalk"
    add_word(crosswalk, "location", "Ward Qelvin")
    review = backend.review(extract, project, held_back=crosswalk)
    assert review.passed and review.dictionary is None
    leak_into_written_file(monkeypatch, "moved to ward qelvin", row=5)
    out = tmp_path / "out"
    refused = _export_refused(review, extract, out / "release", crosswalk)
    assert "qelvin" not in str(refused).lower()
    assert not (out / "release").exists()


def _export_refused(
    review: engine.ReviewResult, extract: Extract, out: Path, crosswalk: Path
) -> CheckFailed:
    """The GUI's export of ``review`` refused by the read-back, naming the leaked cell."""
    with pytest.raises(CheckFailed) as info:
        backend.export(
            None,
            review,
            review.project.export,
            extract=extract,
            out_dir=out,
            crosswalk_dir=crosswalk,
        )
    assert "baseline.csv column 'nyha_class' (1)" in info.value.message
    return info.value
