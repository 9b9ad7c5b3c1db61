"""Loading an extract: CSV/XLSX reading, relationship checks, tag-driven preparation.

Every column is read as text (pyarrow-backed pandas strings, missing = <NA>); values are
parsed only on purpose (``dates``, ``zips``). Source files are opened read-only.
"""

from __future__ import annotations

from deid_desktop.core.io.dates import (
    DATE_FORMAT_LABELS,
    infer_date_format,
    parse_dates,
    read_dates,
)
from deid_desktop.core.io.extract import load_extract, prepare_extract
from deid_desktop.core.io.hashing import sha256_file
from deid_desktop.core.io.relations import check_relations
from deid_desktop.core.io.sniff import DELIMITER_NAMES
from deid_desktop.core.io.tables import list_sheets, read_table
from deid_desktop.core.io.zips import restore_zip_zeros

__all__ = [
    "DATE_FORMAT_LABELS",
    "DELIMITER_NAMES",
    "check_relations",
    "infer_date_format",
    "list_sheets",
    "load_extract",
    "parse_dates",
    "prepare_extract",
    "read_dates",
    "read_table",
    "restore_zip_zeros",
    "sha256_file",
]
