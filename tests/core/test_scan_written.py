"""Post-export scan: every written CSV and XLSX is read back and scanned; the XLSX the
export writes carries no author, company or last editor."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pandas as pd

from deid_desktop.core.export.tables import write_xlsx
from deid_desktop.core.scan import (
    build_dictionary_from_values,
    scan_written,
    xlsx_properties,
)

DICT = build_dictionary_from_values({"name": ["Ann Quigg"], "mrn": ["MR778812"]})


def _release(folder: Path, note: str) -> None:
    frame = pd.DataFrame(
        {"subject": ["S1", "S2"], "year": ["2019", "2020"], "note": ["stable", note]},
        dtype="string",
    )
    frame.to_csv(folder / "visits.csv", index=False)
    write_xlsx(frame, folder / "visits.xlsx", sheet="visits")


def test_export_xlsx_has_no_identifying_properties(tmp_path: Path) -> None:
    _release(tmp_path, "stable")
    props = xlsx_properties(tmp_path / "visits.xlsx")
    assert props.get("creator", "deid-desktop") == "deid-desktop"  # the tool, no person
    for name in ("lastModifiedBy", "Company", "Manager"):
        assert name not in props, name


def test_clean_release_is_clean(tmp_path: Path) -> None:
    _release(tmp_path, "no change")
    found = scan_written(tmp_path, DICT)
    assert found.clean
    assert found.files == ("visits.csv", "visits.xlsx")
    assert found.cells == 12


def test_identifiers_in_written_cells_are_found_in_both_files(tmp_path: Path) -> None:
    _release(tmp_path, "Quigg called from 617-555-0199")
    found = scan_written(tmp_path, DICT)
    assert not found.clean
    where = {(h.file, h.column, h.row, h.kind) for h in found.hits}
    for file in ("visits.csv", "visits.xlsx"):
        assert (file, "note", 1, "NAME") in where
        assert (file, "note", 1, "PHONE") in where
    summary = str(found.summary_dict())
    assert "Quigg" not in summary and "0199" not in summary


def test_xlsx_author_is_a_finding(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    wb.properties.creator = "Dr Someone"
    wb.active.append(["a"])
    wb.save(tmp_path / "x.xlsx")
    found = scan_written(tmp_path, DICT)
    assert [(h.column, h.kind) for h in found.hits] == [("creator", "METADATA")]


def test_redact_column_keeps_hits_below_the_level() -> None:
    from deid_desktop.core.scan import Hit, redact_column

    series = pd.Series(["near 02139 Dr Smith, Zorblatt"], dtype="string")
    hits = [
        Hit("t", 0, "note", 5, 10, "ZIP", "pattern:zip", "medium"),
        Hit("t", 0, "note", 14, 19, "NAME", "cue:dr", "high"),
        Hit("t", 0, "note", 21, 29, "NAME", "unknown-capital", "low"),
    ]
    assert redact_column(series, hits, level="high").iloc[0] == "near 02139 Dr [NAME], Zorblatt"
    assert redact_column(series, hits, level="high_medium").iloc[0] == (
        "near [ZIP] Dr [NAME], Zorblatt"
    )
    assert redact_column(series, hits, level="all").iloc[0] == "near [ZIP] Dr [NAME], [NAME]"
