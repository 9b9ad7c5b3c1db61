"""Writing one released table as XLSX (on request), byte-reproducible.

CSV is written by ``csvout``. XLSX: an openpyxl write-only workbook, one sheet per table,
every cell text (as in the CSV: a ZIP3 "021" keeps its zero). Reproducible bytes: the
workbook properties carry a fixed timestamp (the export time is in the export record,
not in the data files) and the ZIP container is rewritten with fixed entry times. The
worksheet's streaming buffer is kept inside the staging folder, never in the system
temp folder.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import zipfile
from pathlib import Path

import pandas as pd
from openpyxl import Workbook
from openpyxl.worksheet import _writer as openpyxl_sheet_writer
from openpyxl.writer.excel import ExcelWriter

from deid_desktop.core.errors import UsageError
from deid_desktop.core.progress import Reporter

CSV_CHUNK_ROWS = 250_000
XLSX_MAX_ROWS = 1_048_575  # Excel's sheet limit, minus the header row
#: Fixed workbook timestamps so two exports of the same release give the same bytes.
XLSX_FIXED_TIME = dt.datetime(2000, 1, 1, 0, 0, 0)
_ZIP_FIXED_TIME = (2000, 1, 1, 0, 0, 0)
# Characters XML 1.0 forbids; openpyxl refuses them, so they are removed (counted).
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
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


def write_xlsx(
    frame: pd.DataFrame, path: Path, *, sheet: str, reporter: Reporter | None = None
) -> int:
    """Write ``frame`` as a one-sheet XLSX at ``path``. Returns characters removed as illegal.

    Scratch files are created beside ``path`` (inside the staging folder) and removed.
    """
    raw = path.with_name(f".{path.name}.raw")
    buffer = path.with_name(f".{path.name}.sheet.xml")
    removed = 0
    wb = Workbook(write_only=True)
    wb.properties.creator = "deid-desktop"
    wb.properties.lastModifiedBy = None
    ws = wb.create_sheet(title=sheet_title(sheet))
    # Keep openpyxl's streaming buffer in our staging folder (not the system temp dir).
    openpyxl_sheet_writer.ALL_TEMP_FILES.append(str(buffer))
    ws._writer = openpyxl_sheet_writer.WorksheetWriter(ws, out=str(buffer))
    ws._writer.write_top()
    try:
        ws.append([str(c) for c in frame.columns])
        n = len(frame)
        step = max(1, min(CSV_CHUNK_ROWS, n))
        for start in range(0, n, step):
            if reporter is not None:
                reporter.step(start / max(n, 1), f"Writing {path.name}")
            chunk = frame.iloc[start : start + step].astype("string")
            cleaned: dict[str, pd.Series] = {}
            for col in chunk.columns:
                s = chunk[col]
                bad = s.str.contains(_ILLEGAL_XML, na=False)
                if bool(bad.any()):
                    removed += int(s[bad].str.count(_ILLEGAL_XML.pattern).sum())
                    s = s.str.replace(_ILLEGAL_XML.pattern, "", regex=True)
                cleaned[col] = s.astype(object).where(s.notna(), None)
            for row in zip(*cleaned.values(), strict=True):
                ws.append(list(row))
        with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
            wb.properties.created = XLSX_FIXED_TIME
            wb.properties.modified = XLSX_FIXED_TIME
            ExcelWriter(wb, archive).save()
        _normalise_zip(raw, path)
    finally:
        for scratch in (raw, buffer):
            scratch.unlink(missing_ok=True)
        if str(buffer) in openpyxl_sheet_writer.ALL_TEMP_FILES:
            openpyxl_sheet_writer.ALL_TEMP_FILES.remove(str(buffer))
    if reporter is not None:
        reporter.step(1.0, f"Writing {path.name}")
    return removed


def _normalise_zip(src: Path, dst: Path) -> None:
    """Copy a ZIP with fixed entry times and attributes, so equal content gives equal bytes."""
    with (
        zipfile.ZipFile(src) as zin,
        zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as zout,
    ):
        for info in zin.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=_ZIP_FIXED_TIME)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o600 << 16
            fixed.create_system = 0
            fixed.file_size = info.file_size  # lets zipfile decide on ZIP64 as openpyxl did
            with zin.open(info) as r, zout.open(fixed, "w") as w:
                shutil.copyfileobj(r, w, 1 << 20)
