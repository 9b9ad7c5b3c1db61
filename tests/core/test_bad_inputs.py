"""Malformed inputs one by one: headerless files, workbook bombs, wrong names, an empty
person table, a hidden first sheet, a closed stdout, formula-like names in documents."""

from __future__ import annotations

import contextlib
import io
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from openpyxl import Workbook

from deid_desktop.cli import EXIT_BROKEN_PIPE, main
from deid_desktop.core.errors import InputError
from deid_desktop.core.export.cells import formula_like, neutralise_names
from deid_desktop.core.io import read_table, xlsx_limits
from deid_desktop.core.io.headers import looks_like_data
from tests.badinputs.generate import _raw_xlsx, _sst

MARK = "QZX99123ABCD"


def _deid(*args: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def _workbook(path: Path, sheets: list[tuple[str, list[list[object]]]], hidden: int = -1) -> Path:
    wb = Workbook()
    wb.remove(wb.active)
    for i, (title, rows) in enumerate(sheets):
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
        if i == hidden:
            ws.sheet_state = "hidden"
    wb.save(path)
    return path


# --- headerless files ------------------------------------------------------------------


@pytest.mark.parametrize(
    "first_row",
    [
        [MARK, "Garcia", "1980-02-13"],
        ["MRN0012345", "x", "y"],
        ["12", "F", "02139"],
        ["x", "Mar 2024", "y"],
        ["Maria", "Garcia", "F"],
        ["x", "(617) 555-0134", "y"],
    ],
)
def test_a_file_whose_first_row_is_data_is_refused_without_echoing_it(
    tmp_path: Path, first_row: list[str]
) -> None:
    path = tmp_path / "persons.csv"
    path.write_text(",".join(first_row) + "\nA1,b,c\nA2,d,e\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_table(path)
    message = str(info.value)
    assert "first row looks like data, not a header" in message
    assert "persons.csv" in message
    assert not any(value in message for value in first_row if len(value) > 2)


def test_a_headerless_workbook_is_refused(tmp_path: Path) -> None:
    path = _workbook(tmp_path / "p.xlsx", [("S", [[MARK, 12, "x"], ["a", 1, "y"]])])
    with pytest.raises(InputError, match="looks like data") as info:
        read_table(path)
    assert MARK not in str(info.value)


@pytest.mark.parametrize(
    "header",
    [
        ["mrn", "name", "dob"],
        ["Race", "Ward", "Weight", "Height"],
        ["patient_id", "Sex", "Birth Date", "ICD10", "HbA1c", "Visit 2"],
        ["PATIENT", "ENCOUNTER", "CODE", "DESCRIPTION"],
        ["Id", "BIRTHDATE", "DEATHDATE", "SSN", "FIRST", "LAST", "ZIP"],
    ],
)
def test_real_headers_are_headers(header: list[str]) -> None:
    assert looks_like_data(header) is None


@settings(max_examples=80, deadline=None)
@given(st.lists(st.from_regex(r"[a-z]{2,10}(_[a-z]{2,10}){0,2}", fullmatch=True), min_size=1))
def test_snake_case_names_are_headers(names: list[str]) -> None:
    assert looks_like_data(names) is None


# --- wrong names, empty person table, hidden sheets -------------------------------------


def test_a_workbook_named_csv_is_a_clear_error(tmp_path: Path) -> None:
    book = _workbook(tmp_path / "b.xlsx", [("S", [["mrn"], ["A1"]])])
    path = tmp_path / "persons.csv"
    path.write_bytes(book.read_bytes())
    with pytest.raises(InputError, match=r"holds an Excel workbook .* ends in '\.csv'"):
        read_table(path)


def test_a_text_file_named_xlsx_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "persons.xlsx"
    path.write_text("mrn,sex\nA1,F\n", encoding="utf-8")
    with pytest.raises(InputError, match="named as an Excel workbook but is not one"):
        read_table(path)


def test_a_header_only_person_table_says_it_has_no_rows(tmp_path: Path) -> None:
    persons = tmp_path / "persons.csv"
    persons.write_text("mrn,sex\n", encoding="utf-8")
    visits = tmp_path / "visits.csv"
    visits.write_text("mrn,visit_date\nA1,2020-01-02\n", encoding="utf-8")
    code, _out, err = _deid("init", persons, visits, "-o", tmp_path / "p.deid.json")
    assert code == 4
    assert "The person table 'persons' has no rows" in err
    assert "holds the person key" not in err
    assert not (tmp_path / "p.deid.json").exists()


def test_the_same_file_twice_is_named(tmp_path: Path) -> None:
    persons = tmp_path / "persons.csv"
    persons.write_text("mrn,sex\nA1,F\n", encoding="utf-8")
    code, _out, err = _deid("init", persons, persons, "-o", tmp_path / "p.deid.json")
    assert code == 2
    assert "The same input file is given twice: persons.csv" in err


def test_a_hidden_first_sheet_is_skipped_and_named(tmp_path: Path) -> None:
    path = _workbook(
        tmp_path / "p.xlsx",
        [("Codes", [["code"], [MARK]]), ("Persons", [["mrn", "sex"], ["A1", "F"]])],
        hidden=0,
    )
    table = read_table(path)
    assert list(table.frame.columns) == ["mrn", "sex"]
    assert table.report.sheet == "Persons"
    assert any(
        "Sheet 'Persons' was read" in w and "'Codes' is hidden" in w for w in table.report.warnings
    )


# --- workbook inflation -----------------------------------------------------------------

_SHEET = b'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData/></worksheet>'


def _book(path: Path, entries: list[bytes]) -> Path:
    path.write_bytes(
        _raw_xlsx(
            {
                "xl/sharedStrings.xml": _sst(entries, len(entries)),
                "xl/worksheets/sheet1.xml": _SHEET,
            }
        )
    )
    return path


def test_too_many_shared_strings_are_refused_before_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(xlsx_limits, "MAX_SHARED_STRINGS", 1000)
    path = _book(tmp_path / "bomb.xlsx", [b"<si><t>a</t></si>"] * 1001)
    with pytest.raises(InputError, match="more than 1,000 distinct texts") as info:
        read_table(path)
    assert "bomb.xlsx" in str(info.value)


def test_a_workbook_that_expands_too_far_is_refused_from_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _book(tmp_path / "big.xlsx", [b"<si><t>a</t></si>"])
    monkeypatch.setattr(xlsx_limits, "MAX_INFLATED_BYTES", 100)
    with pytest.raises(InputError, match="expands to more than"):
        read_table(path)


def test_a_huge_text_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xlsx_limits, "MAX_STRING_BYTES", 1024)
    entries = [b"<si><t>a</t></si>", b"<si><t>" + MARK.encode() + b"x" * 5000 + b"</t></si>"]
    with pytest.raises(InputError, match="32,767 characters") as info:
        read_table(_book(tmp_path / "long.xlsx", entries))
    assert MARK not in str(info.value)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=300), st.booleans())
# a prefixed tag cut by a chunk seam once measured its entry from the seam's tail, 8 bytes
# early, and called a 59-byte entry longer than the 64-byte limit
@example(sizes=[16, 40, 3, 39, 27, 26], prefixed=True)
def test_shared_strings_are_counted_exactly_across_chunks(sizes: list[int], prefixed: bool) -> None:
    tag = b"x:si" if prefixed else b"si"
    entries = [b"<" + tag + b"><t>" + b"a" * n + b"</t></" + tag + b">" for n in sizes]
    data = _raw_xlsx({"xl/sharedStrings.xml": _sst(entries, len(entries))})
    old = xlsx_limits.MAX_STRING_BYTES
    xlsx_limits.MAX_STRING_BYTES = 64  # many chunk seams
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = archive.getinfo("xl/sharedStrings.xml")
            assert xlsx_limits.scan_shared_strings(archive, info, "f.xlsx") == len(sizes)
    finally:
        xlsx_limits.MAX_STRING_BYTES = old


# --- closed stdout ----------------------------------------------------------------------


class _ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError

    def flush(self) -> None:
        raise BrokenPipeError


def test_a_closed_stdout_ends_quietly_and_truthfully(tmp_path: Path) -> None:
    persons = tmp_path / "persons.csv"
    persons.write_text("mrn,sex\nA1,F\nA2,M\n", encoding="utf-8")
    project = tmp_path / "p.deid.json"
    assert _deid("init", persons, "-o", project)[0] == 0
    err = io.StringIO()
    with contextlib.redirect_stdout(_ClosedPipe()), contextlib.redirect_stderr(err):
        code = main(["tags", str(project)])
    assert code == EXIT_BROKEN_PIPE
    assert err.getvalue() == ""  # no 'internal error', no false 'Nothing was written'


# --- formula-like names in the documents ------------------------------------------------


@pytest.mark.parametrize("name", ["=cmd|' /C calc'!A0", "+1+1", "@SUM(A1)", "-x", "\tx"])
def test_formula_like_names_are_prefixed_in_text(name: str) -> None:
    text = f"Columns: mrn, {name}.\n{name}: removed\n"
    safe = neutralise_names(text, ["mrn", name])
    assert f", '{name}." in safe
    assert safe.splitlines()[1].startswith(f"'{name}")
    assert formula_like(name)


def test_plain_names_and_numbers_are_left_alone() -> None:
    assert neutralise_names("a -1.5 b", ["-1.5", "b"]) == "a -1.5 b"
    assert not formula_like("-1.5")
    assert not formula_like("mrn")


def test_the_data_dictionary_neutralises_column_names(tmp_path: Path) -> None:
    persons = tmp_path / "persons.csv"
    rows = "\n".join(f"P{i:03d},{'FM'[i % 2]},{i % 7}" for i in range(30))
    persons.write_text(f"mrn,sex,=cmd|' /C calc'!A0\n{rows}\n", encoding="utf-8")
    project = tmp_path / "p.deid.json"
    assert _deid("init", persons, "-o", project)[0] == 0
    code, _out, err = _deid(
        "run",
        project,
        "--out",
        tmp_path / "rel",
        "--crosswalk-out",
        tmp_path / "xw",
        "--register",
        tmp_path / "reg.jsonl",
    )
    assert code == 0, err
    dictionary = pd.read_csv(tmp_path / "rel" / "data_dictionary.csv", dtype=str)
    assert "'=cmd|' /C calc'!A0" in set(dictionary["column"])
    assert not dictionary["column"].map(formula_like).any()
    for doc in ("README.txt", "export_record.txt"):
        text = (tmp_path / "rel" / doc).read_text(encoding="utf-8")
        assert " =cmd|" not in text and "\n=cmd|" not in text, doc
