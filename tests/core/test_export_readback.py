"""The read-back gate: the staged release is read back and scanned before the commit; a
direct value or an identifier shape left in it fails the export (exit 3), naming file,
column and count, with nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core import engine
from deid_desktop.core.errors import CheckFailed
from deid_desktop.core.export import RECORD_JSON
from deid_desktop.core.resources import resources_dir
from deid_desktop.core.scan import build_dictionary_from_values, scan_written
from tests.core.support import leak_into_written_file

DEMO = resources_dir() / "demo" / "demo.deid.json"


@pytest.fixture(scope="module")
def reviewed() -> tuple[engine.ReviewResult, str]:
    project, _ = engine.open_project(DEMO)
    extract = engine.load(project, DEMO)
    result = engine.review(project, extract, salt=b"0" * 32)
    assert result.passed
    surname = str(extract.table("demographics").frame["last_name"].dropna().iloc[0])
    return result, surname


def _export(result: engine.ReviewResult, tmp_path: Path) -> engine.ExportRecord:
    return engine.export(
        result.project,
        None,
        result,
        out_dir=tmp_path / "release",
        crosswalk_dir=tmp_path / "crosswalk",
        register_path=tmp_path / "register.jsonl",
    )


def test_clean_demo_export_passes_the_read_back(
    reviewed: tuple[engine.ReviewResult, str], tmp_path: Path
) -> None:
    rec = _export(reviewed[0], tmp_path)
    record = json.loads((tmp_path / "release" / RECORD_JSON).read_text(encoding="utf-8"))
    assert record["written_scan"]["hits"] == 0
    assert record["written_scan"]["cells"] > 0
    assert "data_dictionary.csv" in record["written_scan"]["files"]
    assert rec.out_dir.is_dir()


def test_a_name_only_the_read_back_sees_fails_with_nothing_written(
    reviewed: tuple[engine.ReviewResult, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result, surname = reviewed
    leak_into_written_file(monkeypatch, f"seen by {surname}")
    with pytest.raises(CheckFailed) as info:
        _export(result, tmp_path)
    err = info.value
    assert err.exit_code == 3
    assert "baseline.csv column 'nyha_class' (1)" in err.message
    assert "Nothing was written" in err.message
    assert surname not in str(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no folder, no register


def test_shapes_count_in_free_text_only(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"note": ["call 617-555-0199 today"], "expenses": ["6175550199"], "year": ["2019"]}
    )
    frame.to_csv(tmp_path / "visits.csv", index=False)
    empty = build_dictionary_from_values({})
    found = scan_written(tmp_path, empty, shape_columns={"visits": {"note"}})
    assert {(h.column, h.kind) for h in found.hits} == {("note", "PHONE")}
    # a direct value counts anywhere, a short number that equals one does not
    ids = build_dictionary_from_values({"phone": ["617 555 0199"], "id": ["2019"]})
    found = scan_written(tmp_path, ids, shape_columns={"visits": set()})
    assert {h.column for h in found.hits} == {"note", "expenses"}  # not "year"


def test_scan_summary_counts_by_confidence_and_the_record_holds_the_sample_review(
    tmp_path: Path,
) -> None:
    import dataclasses

    from deid_desktop.core.export import scan_summary
    from deid_desktop.core.model import FreeTextAction
    from deid_desktop.core.scan.sample import SampleReview

    project, _ = engine.open_project(DEMO)
    released = dataclasses.replace(  # the notes kept, hits redacted: the record counts them
        project,
        transform=dataclasses.replace(
            project.transform, free_text={"demographics.notes": FreeTextAction.REDACT}
        ),
    )
    extract = engine.load(project, DEMO)
    result = engine.review(released, extract, salt=b"0" * 32, scan=True)
    summary = scan_summary(result.scan)
    assert summary is not None and result.scan is not None
    assert summary["hits_by_confidence"] == result.scan.by_confidence()
    assert sum(summary["hits_by_confidence"].values()) == summary["hits"]
    assert summary["hits_by_confidence"]["high"] > 0

    review = SampleReview(sample=[0, 5, 9], reviewer="A. Reviewer")
    review.mark_clean(0)
    review.mark_missed(5, "NAME")
    engine.export(
        released,
        None,
        result,
        out_dir=tmp_path / "release",
        crosswalk_dir=tmp_path / "crosswalk",
        register_path=tmp_path / "register.jsonl",
        sample_review=review.summary_dict(),
    )
    record = json.loads((tmp_path / "release" / RECORD_JSON).read_text(encoding="utf-8"))
    assert record["sample_review"] == {
        "notes_in_sample": 3,
        "notes_reviewed": 2,
        "notes_with_misses": 1,
        "misses_by_kind": {"NAME": 1},
        "reviewer": "A. Reviewer",
    }
    assert record["scan"]["hits_by_confidence"] == summary["hits_by_confidence"]

    # the project's redaction level decides which hits "redact" replaces
    def redacted(level: str) -> int:
        sh = dataclasses.replace(
            project.transform,
            free_text={"demographics.notes": FreeTextAction.REDACT},
            redact_level=level,
        )
        p = dataclasses.replace(project, transform=sh)
        from deid_desktop.core.pathways.common import redact_free_text

        red = redact_free_text(extract, p, {"demographics": ["notes"]})
        return red.hits["demographics.notes"]

    by_conf = summary["hits_by_confidence"]
    assert redacted("high") == by_conf["high"]
    assert redacted("high_medium") == by_conf["high"] + by_conf.get("medium", 0)
    assert redacted("all") == summary["hits"]


def test_subject_ids_that_spell_another_persons_key_are_no_finding(tmp_path: Path) -> None:
    """Subject IDs are a random permutation of 1..n: beside keys 000001, 000002, ... every
    ID's digits are some other person's key. The read-back once refused every such
    release (the demo from 100,000 persons on); a key in any other column still fails."""
    from deid_desktop.core.export.readback import readback_gate

    keys = [f"{i:06d}" for i in range(1, 201)]
    dictionary = build_dictionary_from_values({"id": keys})
    staged = tmp_path / "staged"
    staged.mkdir()
    ids = [f"S{k}" for k in reversed(keys)]  # each the digits of another person's key
    pd.DataFrame({"subject_id": ids, "sex": ["F", "M"] * 100}).to_csv(
        staged / "persons.csv", index=False
    )
    assert readback_gate(staged, dictionary, {}, generated=("subject_id",))["hits"] == 0
    with pytest.raises(CheckFailed, match="subject_id"):
        readback_gate(staged, dictionary, {})  # as it was: every ID a finding
    pd.DataFrame({"subject_id": ids, "ref": ids}).to_csv(staged / "persons.csv", index=False)
    with pytest.raises(CheckFailed, match=r"column 'ref' \(200\)") as info:
        readback_gate(staged, dictionary, {}, generated=("subject_id",))
    assert "subject_id" not in str(info.value)
    # the written scan (post-export, the reference of the distinct-text scan) agrees
    assert scan_written(staged, dictionary, shape_columns={}, generated=("subject_id",)).by_kind()


def test_the_demo_at_100k_persons_is_released_not_refused_by_its_own_ids(tmp_path: Path) -> None:
    from deid_desktop.core.demo import write_demo

    project_path = write_demo(tmp_path / "demo", rows=100_000)
    rec = engine.run(
        project_path,
        out_dir=tmp_path / "release",
        crosswalk_dir=tmp_path / "crosswalk",
        register_path=tmp_path / "register.jsonl",
    )
    assert rec.record["written_scan"]["hits"] == 0
    assert (tmp_path / "release" / "demographics.csv").is_file()


def test_event_keys_are_looked_for_as_the_person_keys_they_are() -> None:
    """The read-back dictionary holds the person keys once: the event tables' keys are
    each a person key (the load linked every row), so they add no value to it."""
    from deid_desktop.core.export.readback import readback_dictionary

    project, _ = engine.open_project(DEMO)
    extract = engine.load(project, DEMO)
    result = engine.review(project, extract, salt=b"0" * 32)
    values = readback_dictionary(extract, project, result.release)
    keys = extract.table("visits").frame["patient_id"]
    held = [c for cols in values.columns.values() for c in cols]
    assert len(keys) not in [len(c) for c in held]  # the visits' key column is not held
    person_keys = next(c for c in held if len(c) == len(extract.person.frame))
    assert set(keys.dropna()) <= set(person_keys.to_pylist())  # yet every value is
