"""The GUI's review leaves out the export's read-back dictionary (every direct value of
the extract: hundreds of MB at a million persons, held for as long as the review is on
screen); the export builds it, so the read-back still catches a name in the written
files, and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core import engine
from deid_desktop.core.errors import CheckFailed
from deid_desktop.core.export import release as release_mod
from deid_desktop.core.resources import resources_dir
from deid_desktop.gui import backend

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
    real = release_mod.neutralise_frame

    def leaky(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
        safe, n = real(frame)
        if "nyha_class" in safe.columns:  # a kept clinical column the gate never scanned
            safe = safe.copy()
            safe["nyha_class"] = safe["nyha_class"].astype(object)
            safe.iloc[3, safe.columns.get_loc("nyha_class")] = f"seen by {surname}"
        return safe, n

    monkeypatch.setattr(release_mod, "neutralise_frame", leaky)
    out = tmp_path / "out"
    with pytest.raises(CheckFailed) as info:
        backend.export(
            None,
            review,
            project.export,
            extract=extract,
            out_dir=out / "release",
            crosswalk_dir=out / "crosswalk",
        )
    assert "baseline.csv column 'nyha_class' (1)" in info.value.message
    assert surname not in str(info.value)
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
    real = release_mod.neutralise_frame

    def leaky(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
        safe, n = real(frame)
        if "nyha_class" in safe.columns:
            safe = safe.copy()
            safe["nyha_class"] = safe["nyha_class"].astype(object)
            safe.iloc[5, safe.columns.get_loc("nyha_class")] = "moved to ward qelvin"
        return safe, n

    monkeypatch.setattr(release_mod, "neutralise_frame", leaky)
    out = tmp_path / "out"
    with pytest.raises(CheckFailed) as info:
        backend.export(
            None,
            review,
            project.export,
            extract=extract,
            out_dir=out / "release",
            crosswalk_dir=crosswalk,
        )
    assert "baseline.csv column 'nyha_class' (1)" in info.value.message
    assert "qelvin" not in str(info.value).lower()
    assert not (out / "release").exists()
