"""``read_table``: one input file (CSV or XLSX, told apart by content) as a LoadedTable."""

from __future__ import annotations

from pathlib import Path

from deid_desktop.core.errors import InputError
from deid_desktop.core.io import xlsx_reader
from deid_desktop.core.io.csv_reader import read_csv_table
from deid_desktop.core.io.xlsx_reader import read_xlsx_table
from deid_desktop.core.model import LoadedTable
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter

ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0"
XLSX_SUFFIXES = frozenset({".xlsx", ".xlsm"})


def is_workbook(path: Path) -> bool:
    """True for an Excel file (by suffix or by content), False for delimited text."""
    with open(path, "rb") as handle:
        magic = handle.read(4)
    return path.suffix.lower() in XLSX_SUFFIXES or magic in (ZIP_MAGIC, OLE_MAGIC)


def _existing(path: Path) -> Path:
    if not path.is_file():
        raise InputError(
            "The file does not exist or is not a file",
            file=path.name,
            hint="Check the path; the file may have been moved or renamed.",
        )
    return path


def read_table(
    path: Path,
    *,
    name: str | None = None,
    sheet: str | None = None,
    expected_sha256: str | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> LoadedTable:
    """Read a CSV/TSV/TXT or XLSX file; every column as text, missing = <NA>.

    ``expected_sha256`` (used by ``load_extract``) stops before parsing when the file's
    bytes differ from the ones recorded in the project.
    """
    path = _existing(Path(path))
    reporter = Reporter(progress, cancel)
    if is_workbook(path):
        return read_xlsx_table(
            path, name=name, sheet=sheet, expected_sha256=expected_sha256, reporter=reporter
        )
    if sheet is not None:
        raise InputError(
            f"A sheet ('{sheet}') was given but the file is not an Excel workbook",
            file=path.name,
            hint="Leave the sheet empty for CSV files.",
        )
    return read_csv_table(path, name=name, expected_sha256=expected_sha256, reporter=reporter)


def list_sheets(path: Path) -> list[str]:
    """Worksheet names of an XLSX file; ``[]`` for delimited text (no sheets to choose)."""
    path = _existing(Path(path))
    return xlsx_reader.list_sheets(path) if is_workbook(path) else []
