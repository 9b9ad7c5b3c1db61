"""XLSX reader (openpyxl, read-only, cached values) with formulas counted and flagged.

openpyxl opens the workbook (parsing its XML with defusedxml; this module refuses to
open a workbook otherwise). The chosen sheet's cells are streamed by ``xlsx_fast`` -
many times faster - unless the sheet holds anything unusual, in which case openpyxl's
own cell reader is used. Cells become text the way a person reads them in Excel: dates
as ISO, whole numbers without ".0".
"""

from __future__ import annotations

import re
import warnings
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path
from xml.etree.ElementTree import ParseError

import pandas as pd
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse
from openpyxl.reader.excel import ExcelReader
from openpyxl.utils.cell import range_boundaries
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet._read_only import ReadOnlyWorksheet
from openpyxl.xml import DEFUSEDXML

from deid_desktop.core.errors import DeidError, InputError
from deid_desktop.core.io.frames import TEXT, drop_trailing_empty_rows, empty_rows_warning
from deid_desktop.core.io.hashing import changed_file_error, sha256_file
from deid_desktop.core.io.headers import check_header, column_letter, header_warnings
from deid_desktop.core.io.xlsx_fast import PROLOG_BYTES, FormulaCount, NotSimple
from deid_desktop.core.io.xlsx_fast import iter_rows as fast_rows
from deid_desktop.core.io.xlsx_limits import check_inflation
from deid_desktop.core.model import LoadedTable, LoadReport
from deid_desktop.core.progress import Reporter

# openpyxl's warnings can quote a cell's value (e.g. a date serial out of range); they
# must not reach a log. Set once at import (warnings.catch_warnings is not thread-safe
# and loading runs in a worker thread).
warnings.filterwarnings("ignore", category=UserWarning, module=r"openpyxl(\.|$)")

ROWS_PER_STEP = 2000
_DIMENSION = re.compile(rb'<(?:[A-Za-z0-9_]+:)?dimension\s+ref="([A-Z0-9:$]+)"')
_FORMULA_TAG = re.compile(rb"<(?:[A-Za-z0-9_]+:)?f[\s/>]")
#: What openpyxl or the XML parser raise on a damaged or hand-made workbook.
BROKEN_WORKBOOK = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    ParseError,
    KeyError,
    IndexError,
    ValueError,
    TypeError,
    AttributeError,
)
XLSX_HINT = "Open it in Excel or LibreOffice and save it as .xlsx (or as CSV UTF-8)."


def _require_defusedxml() -> None:
    if not DEFUSEDXML:  # pragma: no cover - defusedxml is a dependency
        raise DeidError(
            "Excel files are not opened without the defusedxml safeguard",
            hint="Reinstall deid-desktop with its dependencies (defusedxml), "
            "or save the sheet as CSV.",
        )


def cell_text(value: object) -> str | None:
    """One cell as the text Excel shows; ``None`` for an empty cell."""
    if value is None:
        return None
    if isinstance(value, str):
        return value or None
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.15g}"
    if isinstance(value, datetime):
        if value.time() == time(0):
            return value.date().isoformat()
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, time):
        return value.strftime("%H:%M:%S")
    if isinstance(value, timedelta):
        seconds = int(value.total_seconds())
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    return str(value)


class _SizedFromProlog(ReadOnlyWorksheet):
    """A read-only sheet that takes its size from the ``<dimension>`` record at the top.

    openpyxl looks for that record by parsing until the end of ``<sheetData>``, i.e. the
    whole sheet, when the record is missing (as in files written by openpyxl's
    write-only mode) - for every sheet of the workbook, at open. Reading the prolog gives
    the same answer (the size, or none) without that pass.
    """

    def _get_size(self) -> None:
        with self._get_source() as source:
            head = source.read(PROLOG_BYTES)
        data = head.find(b"sheetData")
        if data < 0:  # a very long prolog: let openpyxl look
            super()._get_size()
            return
        found = _DIMENSION.search(head, 0, data)
        if found is None:
            return
        try:
            bounds = range_boundaries(found.group(1).decode("ascii"))
        except (ValueError, TypeError, UnicodeDecodeError):
            return
        if None not in bounds:
            self._min_column, self._min_row, self._max_column, self._max_row = bounds


class _Reader(ExcelReader):
    """openpyxl's reader, building read-only sheets that size themselves cheaply."""

    def read_worksheets(self) -> None:
        for sheet, rel in self.parser.find_sheets():
            if rel.target not in self.valid_files or "chartsheet" in rel.Type:
                continue
            ws = _SizedFromProlog(self.wb, sheet.name, rel.target, self.shared_strings)
            ws.sheet_state = sheet.state
            self.wb._sheets.append(ws)


def _open(path: Path) -> Workbook:
    _require_defusedxml()
    with open(path, "rb") as handle:
        magic = handle.read(8)
    if magic.startswith(b"\xd0\xcf\x11\xe0"):
        raise InputError(
            "The file is an old-style .xls workbook or a password-protected one",
            file=path.name,
            hint=XLSX_HINT + " Remove any password first.",
        )
    if path.suffix.lower() not in (".xlsx", ".xlsm", ".xltx", ".xltm"):
        ending = f"ends in '{path.suffix}'" if path.suffix else "has no .xlsx ending"
        raise InputError(
            f"The file holds an Excel workbook (or another ZIP archive) but its name {ending}",
            file=path.name,
            hint="Rename it to end in .xlsx if it is a workbook, or save the sheet as CSV UTF-8.",
        )
    check_inflation(path)  # before openpyxl inflates anything
    try:
        reader = _Reader(path, read_only=True, data_only=True, keep_links=False)
        reader.read()
        return reader.wb
    except InvalidFileException:
        raise InputError(
            "The file is not a readable .xlsx workbook", file=path.name, hint=XLSX_HINT
        ) from None  # the cause may quote data
    except (DefusedXmlException, *BROKEN_WORKBOOK) as exc:
        if isinstance(exc, DefusedXmlException) or isinstance(exc.__cause__, DefusedXmlException):
            raise InputError(
                "The workbook holds XML entity or DTD declarations, which are refused as unsafe",
                file=path.name,
                hint=XLSX_HINT,
            ) from None  # the cause may quote data
        raise InputError(
            "The file is not a readable .xlsx workbook", file=path.name, hint=XLSX_HINT
        ) from None  # the cause may quote data


def list_sheets(path: Path) -> list[str]:
    """The worksheet names of an XLSX file, in workbook order."""
    wb = _open(path)
    try:
        return [ws.title for ws in wb.worksheets]
    finally:
        wb.close()


def _choose(wb: Workbook, sheet: str | None, file: str) -> tuple[ReadOnlyWorksheet, list[str]]:
    """The sheet to read and a note when the choice is not the obvious one.

    Without a sheet name, the first *visible* sheet is read (a hidden sheet is not what
    a person opening the workbook sees), and the note says which one.
    """
    sheets = [ws.title for ws in wb.worksheets]
    if not sheets:
        raise InputError("The workbook has no worksheet", file=file, hint=XLSX_HINT)
    if sheet is None:
        first = wb.worksheets[0]
        if getattr(first, "sheet_state", "visible") == "visible":
            return first, []
        visible = [ws for ws in wb.worksheets if getattr(ws, "sheet_state", "") == "visible"]
        chosen = visible[0] if visible else first
        return chosen, [
            f"Sheet '{chosen.title}' was read: the workbook's first sheet '{first.title}' is "
            "hidden. Give the sheet name (--sheet) to read another one."
        ]
    if sheet not in sheets:
        available = ", ".join(f"'{s}'" for s in sheets)
        raise InputError(
            f"The workbook has no sheet '{sheet}'; its sheets are {available}",
            file=file,
            hint="Choose one of those sheets.",
        )
    return wb[sheet], []


def _formula_cells(wb: Workbook, ws: ReadOnlyWorksheet, file: str) -> int:
    """Count formula cells in the sheet's XML; a formula without a cached value is an error.

    A quick byte scan skips the XML parse for the usual sheet that has no formula.
    """
    archive: zipfile.ZipFile = wb._archive  # openpyxl keeps the package open in read-only mode
    member = ws._worksheet_path
    with archive.open(member) as stream:
        tail = b""
        found = False
        while chunk := stream.read(4 << 20):
            if _FORMULA_TAG.search(tail + chunk):
                found = True
                break
            tail = chunk[-16:]
    if not found:
        return 0
    count, uncached, first = 0, 0, None
    with archive.open(member) as stream:
        for _, element in iterparse(stream, events=("end",)):
            if not element.tag.endswith("}c") and element.tag != "c":
                if element.tag.endswith("}row"):
                    element.clear()
                continue
            children = {child.tag.rsplit("}", 1)[-1]: child for child in element}
            if "f" in children:
                count += 1
                cached = children.get("v")
                has_value = cached is not None and bool(cached.text)
                if not has_value and element.get("t") not in ("str", "inlineStr"):
                    uncached += 1
                    first = first or element.get("r")
    if uncached:
        raise _uncached_error(uncached, first, file)
    return count


def _gapless(
    rows: Iterable[tuple[int, list[object]]], total: int, reporter: Reporter, file: str
) -> Iterator[list[object]]:
    """Row 1, 2, 3... with an empty list for a row missing from the sheet's XML."""
    expected = 1
    for number, values in rows:
        while expected < number:
            yield []
            expected += 1
        if number % ROWS_PER_STEP == 0:
            reporter.step(number / total if total else 0.5, f"Reading {file}")
        yield values
        expected += 1


def _slow_rows(ws: ReadOnlyWorksheet) -> Iterator[tuple[int, list[object]]]:
    for number, row in enumerate(ws.iter_rows(values_only=True), start=1):
        yield number, list(row)


def _uncached_error(count: int, first: str | None, file: str) -> InputError:
    return InputError(
        f"{count} formula cell(s) have no saved result, the first at cell {first}",
        file=file,
        hint="Open the workbook in Excel or LibreOffice, let it calculate, save it, and "
        "load it again (or paste the values over the formulas).",
    )


@dataclass
class _Grid:
    header: list[str]
    columns: list[list[str | None]]


def _build(rows: Iterator[list[object]], *, file: str, title: str) -> _Grid:
    """Header from row 1, then every row as text; values beyond the header are an error."""
    header = [cell_text(v) or "" for v in next(rows, [])]
    while header and not header[-1]:
        header.pop()
    if not header:
        raise InputError(
            f"Sheet '{title}' is empty (no header in row 1)",
            file=file,
            hint="Choose the sheet that holds the extract, with column names in row 1.",
        )
    check_header(header, file=file)
    width = len(header)
    columns: list[list[str | None]] = [[] for _ in range(width)]
    wide_rows, first_wide = 0, None
    for line, row in enumerate(rows, start=2):
        cells = [cell_text(v) for v in row]
        if len(cells) > width and any(c is not None for c in cells[width:]):
            wide_rows += 1
            first_wide = first_wide or line
            continue
        cells.extend([None] * (width - len(cells)))
        for column, value in zip(columns, cells, strict=False):
            column.append(value)
    if wide_rows:
        noun = "row has" if wide_rows == 1 else "rows have"
        raise InputError(
            f"{wide_rows} {noun} values beyond the last named column "
            f"({column_letter(width)}, '{header[-1]}')",
            file=file,
            row=first_wide,
            hint="Give those columns a name in row 1, or clear the stray cells.",
        )
    return _Grid(header, columns)


def _read_sheet(
    wb: Workbook, ws: ReadOnlyWorksheet, reporter: Reporter, file: str
) -> tuple[_Grid, int]:
    """The sheet's cells and its formula count: the fast reader, or openpyxl's own."""
    total = ws.max_row or 0
    formulas = FormulaCount()
    try:
        grid = _build(
            _gapless(fast_rows(wb, ws, formulas), total, reporter, file), file=file, title=ws.title
        )
    except NotSimple:
        try:
            count = _formula_cells(wb, ws, file)
            rows = _gapless(_slow_rows(ws), total, reporter, file)
            return _build(rows, file=file, title=ws.title), count
        except DefusedXmlException:
            raise InputError(
                f"Sheet '{ws.title}' holds XML entity or DTD declarations, which are refused "
                "as unsafe",
                file=file,
                hint="Export the sheet again from Excel or LibreOffice, or save it as CSV.",
            ) from None  # the cause may quote data
    if formulas.uncached:
        raise _uncached_error(formulas.uncached, formulas.first_uncached, file)
    return grid, formulas.cells


def read_xlsx_table(
    path: Path,
    *,
    name: str | None = None,
    sheet: str | None = None,
    expected_sha256: str | None = None,
    reporter: Reporter | None = None,
) -> LoadedTable:
    """Read one worksheet; row 1 is the header, every cell becomes text."""
    reporter = reporter or Reporter()
    file = path.name
    digest = sha256_file(path)
    if expected_sha256 is not None and digest != expected_sha256:
        raise changed_file_error(file)
    wb = _open(path)
    try:
        ws, chosen_note = _choose(wb, sheet, file)
        title = ws.title
        reporter.step(0.05, f"Reading {file}")
        grid, formulas = _read_sheet(wb, ws, reporter.sub(0.05, 0.9), file)
    except BROKEN_WORKBOOK:
        raise InputError(
            "The sheet could not be read; the workbook may be damaged",
            file=file,
            hint=XLSX_HINT,
        ) from None  # the cause may quote data
    finally:
        wb.close()
    frame = pd.DataFrame(
        {
            name_: pd.array(values, dtype=TEXT)
            for name_, values in zip(grid.header, grid.columns, strict=True)
        }
    )
    frame, trailing = drop_trailing_empty_rows(frame)
    notes: list[str] = [*chosen_note, *header_warnings(grid.header)]
    if formulas:
        notes.append(f"{formulas} cells held formulas; their last calculated values were used.")
    if trailing:
        notes.append(empty_rows_warning(trailing))
    if frame.empty:
        notes.append(f"Sheet '{title}' has a header but no data rows.")
    reporter.step(1.0, f"Read {file}")
    report = LoadReport(
        file=file,
        rows=len(frame),
        columns=len(grid.header),
        sheet=title,
        formula_cells=formulas,
        warnings=tuple(notes),
    )
    return LoadedTable(name=name or path.stem, path=path, sha256=digest, frame=frame, report=report)
