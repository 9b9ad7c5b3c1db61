"""XLSX loading: workbooks built with openpyxl in the test (formula caches patched in)."""

from __future__ import annotations

import re
import zipfile
from datetime import date, datetime, time
from pathlib import Path

import openpyxl
import openpyxl.xml
import pytest

from deid_desktop.core.errors import InputError
from deid_desktop.core.io import list_sheets, read_table


def workbook(path: Path, sheets: dict[str, list[list[object]]]) -> Path:
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, rows in sheets.items():
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
    wb.save(path)
    return path


def set_cached_values(path: Path, values: dict[str, str]) -> None:
    """Write a cached result into formula cells, as Excel does when it saves."""
    with zipfile.ZipFile(path) as src:
        members = {name: src.read(name) for name in src.namelist()}
    sheet = members["xl/worksheets/sheet1.xml"].decode()
    for ref, value in values.items():
        sheet, n = re.subn(
            rf'(<c r="{ref}"[^>]*>)(<f>[^<]*</f>)<v\s*/>', rf"\1\2<v>{value}</v>", sheet
        )
        assert n == 1, ref
    members["xl/worksheets/sheet1.xml"] = sheet.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, data in members.items():
            dst.writestr(name, data)


DATA = [
    ["patient_id", "zip", "dob", "admitted", "weight", "flag", "note", "visit_time"],
    ["P1", 2139, datetime(1950, 3, 7), datetime(2024, 1, 31, 14, 5), 72.0, True, "NA", time(8, 30)],
    ["P2", 10001, date(1990, 12, 1), datetime(2024, 2, 1), 80.25, False, None, None],
    ["P3", "00501", None, None, 0.1 + 0.2, None, "ok", None],
]


def test_defusedxml_guards_openpyxl() -> None:
    assert openpyxl.xml.DEFUSEDXML is True


def test_cells_become_text_as_excel_shows_them(tmp_path: Path) -> None:
    path = workbook(tmp_path / "extract.xlsx", {"Notes": [["read me"]], "Data": DATA})
    table = read_table(path, sheet="Data")
    frame = table.frame
    assert list(frame.columns) == DATA[0]
    assert frame["zip"].tolist() == ["2139", "10001", "00501"]  # restored only when tagged ZIP
    assert frame["dob"].tolist()[:2] == ["1950-03-07", "1990-12-01"]
    assert frame["admitted"].tolist()[:2] == ["2024-01-31 14:05:00", "2024-02-01"]
    assert frame["weight"].tolist() == ["72", "80.25", "0.3"]
    assert frame["flag"].tolist()[:2] == ["TRUE", "FALSE"]
    assert frame["note"].tolist()[0] == "NA" and frame["note"].isna().tolist()[1]
    assert frame["visit_time"].tolist()[0] == "08:30:00"
    report = table.report
    assert (report.file, report.sheet, report.rows, report.columns) == (
        "extract.xlsx",
        "Data",
        3,
        8,
    )
    assert report.encoding is None and report.formula_cells == 0


def test_first_sheet_by_default_and_sheet_list(tmp_path: Path) -> None:
    path = workbook(tmp_path / "two.xlsx", {"Data": DATA, "Other": [["a"], ["1"]]})
    assert list_sheets(path) == ["Data", "Other"]
    assert read_table(path).report.sheet == "Data"
    assert list(read_table(path, sheet="Other").frame.columns) == ["a"]


def test_unknown_sheet_lists_the_available_ones(tmp_path: Path) -> None:
    path = workbook(tmp_path / "two.xlsx", {"Data": DATA, "Visits": [["a"]]})
    with pytest.raises(InputError) as info:
        read_table(path, sheet="Patients")
    assert "'Data', 'Visits'" in info.value.message and info.value.file == "two.xlsx"


def test_formula_without_cached_value_names_the_cell(tmp_path: Path) -> None:
    rows = [["id", "a", "b"], ["P1", 2, "=B2*2"], ["P2", 3, 4]]
    path = workbook(tmp_path / "f.xlsx", {"Data": rows})
    with pytest.raises(InputError) as info:
        read_table(path)
    assert "C2" in info.value.message and "no saved result" in info.value.message


def test_formulas_with_cached_values_are_counted_and_used(tmp_path: Path) -> None:
    rows = [["id", "a", "b"], ["P1", 2, "=B2*2"], ["P2", 3, "=B3*2"]]
    path = workbook(tmp_path / "f.xlsx", {"Data": rows})
    set_cached_values(path, {"C2": "4", "C3": "6"})
    table = read_table(path)
    assert table.frame["b"].tolist() == ["4", "6"]
    assert table.report.formula_cells == 2
    assert "2 cells held formulas; their last calculated values were used." in (
        table.report.warnings
    )


def test_empty_sheet_is_an_error(tmp_path: Path) -> None:
    path = workbook(tmp_path / "e.xlsx", {"Empty": []})
    with pytest.raises(InputError) as info:
        read_table(path)
    assert "'Empty' is empty" in info.value.message


def test_header_only_sheet_warns(tmp_path: Path) -> None:
    table = read_table(workbook(tmp_path / "h.xlsx", {"S": [["id", "zip"]]}))
    assert table.report.rows == 0 and any("no data rows" in w for w in table.report.warnings)


def test_duplicate_and_blank_headers(tmp_path: Path) -> None:
    dup = workbook(tmp_path / "d.xlsx", {"S": [["id", "zip", "zip"], [1, 2, 3]]})
    with pytest.raises(InputError, match="'zip'"):
        read_table(dup)
    blank = workbook(tmp_path / "b.xlsx", {"S": [["id", None, "zip"], [1, 2, 3]]})
    with pytest.raises(InputError, match=r"position 2 \(B\)"):
        read_table(blank)


def test_values_beyond_the_last_named_column(tmp_path: Path) -> None:
    rows = [["id", "zip"], ["P1", 1], ["P2", 2, "Secretvalue"], ["P3", 3]]
    path = workbook(tmp_path / "r.xlsx", {"S": rows})
    with pytest.raises(InputError) as info:
        read_table(path)
    assert info.value.row == 3 and "beyond the last named column" in info.value.message
    assert "Secretvalue" not in str(info.value)


def test_empty_rows_in_the_middle_are_kept_trailing_ones_dropped(tmp_path: Path) -> None:
    path = tmp_path / "gap.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    for row in (["id", "zip"], ["P1", 1], [None, None], ["P3", 3]):
        ws.append(row)
    ws.cell(row=9, column=1).number_format = "0"  # a formatted but empty row at the end
    ws.cell(row=9, column=1).value = ""
    wb.save(path)
    table = read_table(path)
    assert table.frame["id"].tolist()[::2] == ["P1", "P3"] and table.report.rows == 3


def test_old_xls_and_broken_files_are_clear_errors(tmp_path: Path) -> None:
    xls = tmp_path / "old.xls"
    xls.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100)
    with pytest.raises(InputError, match=r"old-style \.xls"):
        read_table(xls)
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(InputError, match=r"not a readable \.xlsx"):
        read_table(broken)


def test_sheet_given_for_a_csv_is_a_usage_mistake(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_bytes(b"id\n1\n")
    assert list_sheets(path) == []
    with pytest.raises(InputError, match="not an Excel workbook"):
        read_table(path, sheet="Data")
