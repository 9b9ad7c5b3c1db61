"""``read_table``: one input file (CSV or XLSX, told apart by content) as a LoadedTable."""

from __future__ import annotations

from pathlib import Path

from deid_desktop.core.errors import Cancelled, DeidError, InputError
from deid_desktop.core.io.csv_reader import read_csv_table
from deid_desktop.core.model import LoadedTable
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter

ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0"
XLSX_SUFFIXES = frozenset({".xlsx", ".xlsm"})


def is_workbook(path: Path) -> bool:
    """True for an Excel file (by content), False for delimited text.

    A file named .xlsx that holds neither a ZIP package nor an old OLE workbook is
    refused here rather than handed to a reader that would misread it.
    """
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic in (ZIP_MAGIC, OLE_MAGIC):
        return True
    if path.suffix.lower() in XLSX_SUFFIXES:
        empty = not magic
        raise InputError(
            "The file is empty"
            if empty
            else "The file is named as an Excel workbook but is not one (it may be a CSV "
            "or text file renamed, or a damaged download)",
            file=path.name,
            hint="Choose the file that holds the extract."
            if empty
            else "Rename it to end in .csv if it is text, or save it again from Excel as .xlsx.",
        )
    return False


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
    try:
        return _read(path, name, sheet, expected_sha256, Reporter(progress, cancel))
    except (DeidError, Cancelled):
        raise
    except MemoryError:
        raise InputError(
            "The file is too large to read in the memory available",
            file=path.name,
            hint="Close other programs, or split the extract into smaller files.",
        ) from None
    except Exception as exc:  # any other reader failure: a clear error, never a value
        raise InputError(
            f"The file could not be read ({type(exc).__name__}); it may be damaged or "
            "not a CSV or Excel file",
            file=path.name,
            hint="Open it in a spreadsheet program and save it again as CSV UTF-8 or .xlsx.",
        ) from None  # the cause may quote data


def _read(
    path: Path,
    name: str | None,
    sheet: str | None,
    expected_sha256: str | None,
    reporter: Reporter,
) -> LoadedTable:
    if is_workbook(path):
        from deid_desktop.core.io.xlsx_reader import read_xlsx_table  # openpyxl: for XLSX only

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
    try:
        if not is_workbook(path):
            return []
        from deid_desktop.core.io import xlsx_reader  # openpyxl: for XLSX only

        return xlsx_reader.list_sheets(path)
    except DeidError:
        raise
    except Exception as exc:
        raise InputError(
            f"The workbook's sheets could not be listed ({type(exc).__name__})",
            file=path.name,
            hint="Open it in Excel or LibreOffice and save it again as .xlsx.",
        ) from None  # the cause may quote data
