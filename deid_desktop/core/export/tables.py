"""Writing one released table as XLSX (on request), byte-reproducible.

CSV is written by ``csvout``. XLSX: one sheet per table, every cell an inline string (as
in the CSV: a ZIP3 "021" keeps its zero), a missing value an absent cell. openpyxl builds
the package (workbook, styles, properties); the sheet's rows are built by Arrow kernels
and streamed straight into the ZIP entry - openpyxl's per-cell writer would take minutes
for a million rows - so no scratch file holds any data. Reproducible bytes: the workbook
properties carry a fixed timestamp (the export time is in the export record, not in the
data files) and every ZIP entry has a fixed time and attributes.

Excel limits: 1,048,576 rows per sheet (checked before anything is written) and 32,767
characters per cell (longer free text would be cut by Excel when opened; the CSV keeps it).
"""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import UsageError
from deid_desktop.core.export.csvout import may_hold, to_arrow
from deid_desktop.core.facts.text import one_array
from deid_desktop.core.progress import Reporter

XLSX_CHUNK_ROWS = 100_000
_TEXT = pa.large_string()
XLSX_MAX_ROWS = 1_048_575  # Excel's sheet limit, minus the header row
#: Fixed workbook timestamps so two exports of the same release give the same bytes.
XLSX_FIXED_TIME = dt.datetime(2000, 1, 1, 0, 0, 0)
_ZIP_FIXED_TIME = (2000, 1, 1, 0, 0, 0)
# Characters XML 1.0 forbids; openpyxl refuses them, so they are removed (counted).
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_ILLEGAL_BYTES = (*range(0, 9), 11, 12, *range(14, 32))
_ESCAPED_BYTES = (ord("&"), ord("<"), ord(">"))
_SHEET_TITLE_BAD = re.compile(r"[\[\]:*?/\\]")


def check_xlsx_fits(tables: dict[str, pd.DataFrame]) -> None:
    """Refuse XLSX up front (before anything is written) when a table exceeds Excel's rows."""
    too_big = {name: len(f) for name, f in tables.items() if len(f) > XLSX_MAX_ROWS}
    if too_big:
        listed = ", ".join(f"{name} ({rows:,} rows)" for name, rows in too_big.items())
        raise UsageError(
            f"XLSX holds at most {XLSX_MAX_ROWS:,} data rows per sheet; too large: {listed}. "
            "Nothing was written.",
            hint="Export CSV only (leave out XLSX) for tables this size.",
        )


def sheet_title(name: str) -> str:
    return (_SHEET_TITLE_BAD.sub("_", name) or "data")[:31]


def _package(sheet: str) -> dict[str, bytes]:
    """Every part of a one-sheet workbook, from openpyxl, with fixed properties.

    The sheet part is written empty here (openpyxl's scratch file for it holds no data);
    ``write_xlsx`` streams the rows in.
    """
    from openpyxl import Workbook  # imported when an XLSX is written: a CSV run never needs it
    from openpyxl.writer.excel import ExcelWriter

    wb = Workbook(write_only=True)
    wb.properties.creator = "deid-desktop"
    wb.properties.lastModifiedBy = None
    wb.properties.created = XLSX_FIXED_TIME
    wb.properties.modified = XLSX_FIXED_TIME
    wb.create_sheet(title=sheet_title(sheet))
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        ExcelWriter(wb, archive).save()
    with zipfile.ZipFile(raw) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _column_letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def _xml_text(col: pa.ChunkedArray) -> tuple[pa.ChunkedArray, int]:
    """Cell text escaped for XML; characters XML 1.0 forbids removed (and counted)."""
    removed = 0
    if may_hold(col, _ILLEGAL_BYTES):
        removed = int(pc.sum(pc.count_substring_regex(col, _ILLEGAL_XML.pattern)).as_py() or 0)
        col = pc.replace_substring_regex(col, _ILLEGAL_XML.pattern, "")
    if may_hold(col, _ESCAPED_BYTES):
        for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
            col = pc.replace_substring(col, char, entity)
    return col, removed


def _rows_xml(table: pa.Table, first_row: int) -> tuple[pa.Buffer, int]:
    """``<row>`` elements for ``table``'s rows (inline strings; a missing value: no cell)."""
    n = table.num_rows
    numbers = pa.array(np.arange(first_row, first_row + n).astype(str), _TEXT)
    cells: list[pa.ChunkedArray] = []
    removed = 0
    for j in range(table.num_columns):
        text, gone = _xml_text(table.column(j).cast(_TEXT))
        removed += gone
        cell = pc.binary_join_element_wise(
            pa.scalar(f'<c r="{_column_letter(j)}', _TEXT),
            numbers,
            pa.scalar('" t="inlineStr"><is><t xml:space="preserve">', _TEXT),
            text,
            pa.scalar("</t></is></c>", _TEXT),
            pa.scalar("", _TEXT),
        )
        cells.append(pc.fill_null(cell, pa.scalar("", _TEXT)))
    rows = pc.binary_join_element_wise(
        pa.scalar('<row r="', _TEXT),
        numbers,
        pa.scalar('">', _TEXT),
        *cells,
        pa.scalar("</row>", _TEXT),
        pa.scalar("", _TEXT),
    )
    values = one_array(rows)
    joined = pc.binary_join(
        pa.LargeListArray.from_arrays(pa.array([0, n], pa.int64()), values),
        pa.scalar("", _TEXT),
    )[0]
    return joined.as_buffer(), removed


def xml_escape(text: str) -> str:
    """``&``, ``<`` and ``>`` escaped, as ``xml.sax.saxutils.escape`` does (importing it
    imports urllib, http and ssl: ~40-100 ms of CPU at every start of the engine)."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def _header_xml(columns: list[str]) -> bytes:
    cells = "".join(
        f'<c r="{_column_letter(j)}1" t="inlineStr"><is><t xml:space="preserve">'
        f"{xml_escape(_ILLEGAL_XML.sub('', name))}</t></is></c>"
        for j, name in enumerate(columns)
    )
    return f'<row r="1">{cells}</row>'.encode()


def write_xlsx(
    frame: pd.DataFrame, path: Path, *, sheet: str, reporter: Reporter | None = None
) -> int:
    """Write ``frame`` as a one-sheet XLSX at ``path``. Returns characters removed as illegal.

    The package (workbook, styles, properties) comes from openpyxl; the sheet's rows are
    built by Arrow kernels and streamed into the ZIP, so a table of a million rows takes
    seconds, not minutes, and no scratch file is needed. Every entry has a fixed time.
    """
    parts = _package(sheet)
    sheet_part = next(n for n in parts if n.startswith("xl/worksheets/"))
    head, _, tail = parts[sheet_part].partition(b"<sheetData></sheetData>")
    if not tail:
        raise RuntimeError("unexpected worksheet layout from openpyxl")
    table = to_arrow(frame)
    n = len(frame)
    removed = 0
    big = table.nbytes * 2 + n * frame.shape[1] * 64 > (1 << 31)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as zout:
        for name, data in parts.items():
            info = _fixed_info(name)
            if name != sheet_part:
                zout.writestr(info, data)
                continue
            with zout.open(info, "w", force_zip64=big) as w:
                w.write(head + b"<sheetData>")
                w.write(_header_xml([str(c) for c in frame.columns]))
                for start in range(0, n, XLSX_CHUNK_ROWS):
                    if reporter is not None:
                        reporter.step(start / n, f"Writing {path.name}")
                    rows, gone = _rows_xml(table.slice(start, XLSX_CHUNK_ROWS), start + 2)
                    removed += gone
                    w.write(rows)
                w.write(b"</sheetData>" + tail)
    if reporter is not None:
        reporter.step(1.0, f"Writing {path.name}")
    return removed


def _fixed_info(name: str) -> zipfile.ZipInfo:
    """A ZIP entry with a fixed time and attributes, so equal content gives equal bytes."""
    info = zipfile.ZipInfo(name, date_time=_ZIP_FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o600 << 16
    info.create_system = 0
    return info
