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


# -- the fast sheet reader against openpyxl's own --------------------------------------

VARIED = [
    ["id", "n", "x", "when", "text", "flag", "blank", "wide"],
    ["P1", -42, 1.5e-7, datetime(1900, 3, 1), "Zoë – naïve", True, None, 12345678901234],
    ["P2", 0, 2.5e20, datetime(2261, 12, 31, 23, 59, 59), "  padded  ", False, None, 1e15],
    [None, None, None, None, None, None, None, None],
    ["P4", 3, -0.0, date(2000, 2, 29), "line\nbreak", None, None, 7],
    ["P5", None, None, time(23, 59, 59), "", None, None, None],
]


def _openpyxl_rows(path: Path) -> list[list[object]]:
    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        rows = [list(r) for r in wb.worksheets[0].iter_rows(values_only=True)]
    finally:
        wb.close()
    for row in rows:
        while row and row[-1] is None:
            row.pop()
    return rows


def _fast_rows(path: Path) -> list[list[object]]:
    from deid_desktop.core.io.xlsx_fast import FormulaCount, iter_rows

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        out: list[list[object]] = []
        for number, values in iter_rows(wb, wb.worksheets[0], FormulaCount()):
            while len(out) < number - 1:
                out.append([])
            out.append(values)
    finally:
        wb.close()
    for row in out:
        while row and row[-1] is None:
            row.pop()
    return out


def test_fast_reader_gives_what_openpyxl_gives(tmp_path: Path) -> None:
    path = workbook(tmp_path / "varied.xlsx", {"S": VARIED})
    assert _fast_rows(path) == _openpyxl_rows(path)


XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
DOC_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
OFFICE = "application/vnd.openxmlformats-officedocument.spreadsheetml"


def _cell(ref: str, value: str, attrs: str = "") -> str:
    return f'<c r="{ref}"{attrs}><v>{value}</v></c>'


SHEET_ROWS = [
    (1, _cell("A1", "0", ' t="s"') + _cell("B1", "1", ' t="s"') + _cell("C1", "2", ' t="s"')),
    (2, _cell("A2", "3", ' t="s"') + _cell("B2", "45322", ' s="1"') + _cell("C2", "2139")),
    (
        4,
        _cell("A4", "3", ' t="s"')
        + _cell("B4", "45322.5", ' s="1"')
        + '<c r="C4"><f>C2+1</f><v>2140</v></c>',
    ),
]
SHEET = (
    XML
    + "{doctype}"
    + f'<worksheet xmlns="{MAIN}"><sheetData>'
    + "".join(f'<row r="{n}">{cells}</row>' for n, cells in SHEET_ROWS)
    + "</sheetData></worksheet>"
)
SHARED = (
    XML
    + f'<sst xmlns="{MAIN}" count="4" uniqueCount="4">'
    + "<si><t>patient_id</t></si><si><t>seen</t></si><si><t>zip</t></si>"
    + "<si><r><t>P</t></r><r><t>7</t></r></si></sst>"
)
STYLES = (
    XML
    + f'<styleSheet xmlns="{MAIN}">'
    + '<fonts count="1"><font/></fonts>'
    + '<fills count="1"><fill><patternFill patternType="none"/></fill></fills>'
    + '<borders count="1"><border/></borders>'
    + '<cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs>'
    + '<cellXfs count="2"><xf numFmtId="0" xfId="0"/>'
    + '<xf numFmtId="14" xfId="0" applyNumberFormat="1"/></cellXfs>'
    + '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
    + "</styleSheet>"
)
WORKBOOK = (
    XML
    + f'<workbook xmlns="{MAIN}" xmlns:r="{DOC_REL}">'
    + '<sheets><sheet name="Export" sheetId="1" r:id="rId1"/></sheets></workbook>'
)


def _rels(*targets: tuple[str, str]) -> str:
    items = "".join(
        f'<Relationship Id="rId{i}" Type="{DOC_REL}/{kind}" Target="{target}"/>'
        for i, (kind, target) in enumerate(targets, start=1)
    )
    return XML + f'<Relationships xmlns="{PKG_REL}">{items}</Relationships>'


WB_RELS = _rels(
    ("worksheet", "worksheets/sheet1.xml"),
    ("sharedStrings", "sharedStrings.xml"),
    ("styles", "styles.xml"),
)
ROOT_RELS = _rels(("officeDocument", "xl/workbook.xml"))
TYPES = (
    XML
    + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    + '<Default Extension="rels" '
    + 'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    + '<Default Extension="xml" ContentType="application/xml"/>'
    + "".join(
        f'<Override PartName="/xl/{part}" ContentType="{OFFICE}.{kind}+xml"/>'
        for part, kind in (
            ("workbook.xml", "sheet.main"),
            ("worksheets/sheet1.xml", "worksheet"),
            ("sharedStrings.xml", "sharedStrings"),
            ("styles.xml", "styles"),
        )
    )
    + "</Types>"
)


def excel_like(path: Path, doctype: str = "", sheet: str = SHEET) -> Path:
    """A workbook laid out as Excel saves it: shared strings, a date style, a cached formula."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", TYPES)
        z.writestr("_rels/.rels", ROOT_RELS)
        z.writestr("xl/workbook.xml", WORKBOOK)
        z.writestr("xl/_rels/workbook.xml.rels", WB_RELS)
        z.writestr("xl/styles.xml", STYLES)
        z.writestr("xl/sharedStrings.xml", SHARED)
        z.writestr("xl/worksheets/sheet1.xml", sheet.format(doctype=doctype))
    return path


def test_excel_saved_layout_shared_strings_dates_and_gaps(tmp_path: Path) -> None:
    table = read_table(excel_like(tmp_path / "excel.xlsx"))
    frame = table.frame
    assert list(frame.columns) == ["patient_id", "seen", "zip"]
    assert frame["patient_id"].tolist()[::2] == ["P7", "P7"]  # rich-text shared string
    assert frame["seen"].tolist()[::2] == ["2024-01-31", "2024-01-31 12:00:00"]
    assert frame["zip"].tolist()[::2] == ["2139", "2140"]
    assert frame.iloc[1].isna().all()  # row 3 is absent from the XML: an empty row
    assert table.report.formula_cells == 1 and table.report.sheet == "Export"


def test_a_sheet_with_a_dtd_goes_through_defusedxml(tmp_path: Path) -> None:
    harmless = excel_like(tmp_path / "dtd.xlsx", doctype="<!DOCTYPE worksheet>\n")
    assert read_table(harmless).frame["zip"].tolist()[::2] == ["2139", "2140"]
    bomb = '<!DOCTYPE worksheet [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>\n'
    with pytest.raises(InputError, match="refused as unsafe"):
        read_table(excel_like(tmp_path / "bomb.xlsx", doctype=bomb))


def test_a_damaged_cell_is_a_clear_error_that_quotes_nothing(tmp_path: Path) -> None:
    damaged = SHEET.replace("<v>2139</v>", "<v>Secretabc</v>")  # a number cell holding text
    with pytest.raises(InputError) as info:
        read_table(excel_like(tmp_path / "damaged.xlsx", sheet=damaged))
    assert "could not be read" in info.value.message
    assert "Secretabc" not in str(info.value) and info.value.__cause__ is None


def test_write_only_workbook_without_dimension_record(tmp_path: Path) -> None:
    path = tmp_path / "streamed.xlsx"
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Stream")
    for row in VARIED:
        ws.append(row)
    wb.save(path)
    assert _fast_rows(path) == _openpyxl_rows(path)
    table = read_table(path)
    assert table.report.rows == len(VARIED) - 1 and table.frame["id"].tolist()[0] == "P1"
