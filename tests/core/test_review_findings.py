"""What the review finds beyond the checks, carried into the verdict, the README and the
record: the combination with earlier releases of the same source, the small cells of the
event tables and the motivated-intruder figures - each recomputed here by a group-by."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd

from deid_desktop.core import engine
from deid_desktop.core.attack import motivated_intruder, with_intruder
from deid_desktop.core.cross_release import PERSON, QI_FILE
from deid_desktop.core.demo import write_demo
from deid_desktop.core.export import FULL_RECORD_JSON, RECORD_JSON
from deid_desktop.core.project import load_project, save_project
from tests.core.synthea_cases import synthea


def _set_risk(path: Path, **changes: object) -> None:
    project = load_project(path)
    save_project(
        dataclasses.replace(project, risk=dataclasses.replace(project.risk, **changes)), path
    )


def _run(path: Path, tmp: Path, name: str, register: Path, recipient: str) -> engine.ExportRecord:
    return engine.run(
        path,
        out_dir=tmp / f"out-{name}",
        crosswalk_dir=tmp / f"xw-{name}",
        register_path=register,
        meta=dataclasses.replace(load_project(path).export, recipient=recipient),
    )


def test_an_isolating_combination_is_in_the_verdict_readme_and_record(tmp_path: Path) -> None:
    path = write_demo(tmp_path / "demo", rows=600)
    register = tmp_path / "register.jsonl"
    _set_risk(path, quasi_identifiers=("sex", "zip3"))
    first = _run(path, tmp_path, "A", register, "Lab A")
    again = _run(path, tmp_path, "B", register, "Lab A")  # the same release again
    for name in ("README.txt", "demographics.csv"):
        assert (first.out_dir / name).read_bytes() == (again.out_dir / name).read_bytes()
    assert "Risk across releases" not in (again.out_dir / "README.txt").read_text()
    assert "cross_release" not in again.record  # it isolates no one: the same record

    _set_risk(path, quasi_identifiers=("sex", "age"), age_bands=(0, 30, 50, 70, 90))
    second = _run(path, tmp_path, "C", register, "Lab C")
    # the count by a plain group-by: both releases' quasi-identifiers joined per person
    earlier = pd.read_feather(first.crosswalk_dir / QI_FILE)  # type: ignore[operator]
    new = pd.read_feather(second.crosswalk_dir / QI_FILE)  # type: ignore[operator]
    both = new.merge(earlier.rename(columns={"sex": "sex0"}), on=PERSON, how="left")
    alone = both.groupby(["sex", "age"], dropna=False)[PERSON].transform("size")
    joined = both.groupby(["sex", "age", "sex0", "zip3"], dropna=False)[PERSON].transform("size")
    lone = int(((joined == 1) & (alone > 1)).sum())
    below = int(((joined < 5) & (alone >= 5)).sum())
    assert lone > 0

    full = json.loads((second.crosswalk_dir / FULL_RECORD_JSON).read_text())  # type: ignore[operator]
    public = json.loads((second.out_dir / RECORD_JSON).read_text())
    assert [r["lone"] for r in full["cross_release"]["releases"]] == [lone, lone]
    assert [r["below_k"] for r in full["cross_release"]["releases"]] == [below, below]
    assert full["cross_release"]["releases"][0]["recipient"] == "Lab A"
    # the release folder names no earlier recipient and no earlier folder
    assert [r["lone"] for r in public["cross_release"]["releases"]] == [lone, lone]
    release_text = "".join(p.read_text() for p in second.out_dir.iterdir())
    assert "Lab A" not in release_text and "out-A" not in release_text
    assert "out-B" not in release_text
    record_text = (second.out_dir / "export_record.txt").read_text(encoding="utf-8")
    assert "Risk across releases" in record_text and f"{lone:,} persons become lone" in record_text
    readme = (second.out_dir / "README.txt").read_text()
    assert "Risk across releases" in readme
    assert f"{lone:,} persons become lone and {below:,} fall below k = 5" in readme
    verdict = public["verdict"]
    assert f"{lone:,} persons" in verdict["headline"] and verdict["level"] != "low"
    assert f"then {lone:,} persons become unique" in verdict["paragraph"]


def test_small_cells_of_synthea_event_tables_equal_a_group_by(tmp_path: Path) -> None:
    extract, project = synthea("unmc_crane_2023")
    review = engine.review(project, extract, scan=False)
    cells = {(c.table, c.column): c for c in review.small_cells}
    assert ("conditions", "DESCRIPTION") in cells
    assert ("encounters", "START") not in cells  # a date is not a cell
    for (table, column), c in cells.items():
        frame = review.release.tables[table]
        holders = frame.dropna(subset=[column]).groupby(column)[review.release.id_column]
        persons = holders.nunique()
        small = persons[persons < 5]
        assert (c.distinct, c.small) == (len(persons), len(small))
        assert dict(c.values) == {str(v): int(n) for v, n in small.items()}
        held = frame[frame[column].isin(small.index)][review.release.id_column].nunique()
        assert c.persons == held
    assert cells["conditions", "DESCRIPTION"].small > 0

    record = engine.export(
        project,
        None,
        review,
        out_dir=tmp_path / "out",
        crosswalk_dir=tmp_path / "xw",
        register_path=tmp_path / "register.jsonl",
    ).record
    summary = record["small_cells"]
    assert summary["small_cells"] == sum(c.small for c in cells.values())
    by_column = {(c["table"], c["column"]): c for c in summary["columns"]}
    assert by_column["conditions", "DESCRIPTION"]["small_cells"] == (
        cells["conditions", "DESCRIPTION"].small
    )
    # counts only: no rare value of the data in the record
    text = json.dumps(record)
    rare = [v for c in cells.values() for v, _n in c.values]
    assert rare and not any(json.dumps(v) in text for v in rare)


def test_the_intruder_figures_reach_the_verdict_and_the_record(tmp_path: Path) -> None:
    path = write_demo(tmp_path / "demo", rows=500)
    project = load_project(path)
    extract = engine.load(project, path)
    review = engine.review(project, extract, scan=False)
    report = motivated_intruder(project, extract, review)
    reviewed = with_intruder(review, report)
    assert reviewed.verdict is not None and review.verdict is not None
    assert "re-identified" not in review.verdict.paragraph
    assert f"re-identified {report.certain:,} persons" in reviewed.verdict.paragraph
    assert reviewed.verdict.headline == review.verdict.headline  # the README is unchanged
    # without suppression the list is the release itself: certain = lone persons
    assert review.risk is not None and report.certain == review.risk.lone
    assert round(report.expected_matches) == review.risk.classes
    out = engine.export(
        project,
        path,
        reviewed,
        out_dir=tmp_path / "out",
        crosswalk_dir=tmp_path / "xw",
        register_path=tmp_path / "register.jsonl",
    )
    assert out.record["intruder"] == report.to_dict()
    assert out.full_record["intruder"] == report.to_dict()
    text = (out.out_dir / "export_record.txt").read_text(encoding="utf-8")
    assert f"re-identified with certainty: {report.certain:,}" in text
    plain = engine.export(
        project,
        path,
        review,
        out_dir=tmp_path / "out2",
        crosswalk_dir=tmp_path / "xw2",
        register_path=tmp_path / "register2.jsonl",
    )
    assert "intruder" not in plain.record  # not run: not claimed
    assert (out.out_dir / "README.txt").read_bytes() == (plain.out_dir / "README.txt").read_bytes()
