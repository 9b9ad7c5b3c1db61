"""Limits on how far a workbook may inflate, checked before any part is parsed.

An .xlsx file is a ZIP archive; a small file can hold parts that inflate to gigabytes
(a "zip bomb"), or millions of shared strings that openpyxl parses one by one in Python
(an 815 KB file took 6 minutes and 2 GB). The ZIP directory states every part's
inflated size, and Python's zipfile never inflates a part beyond its stated size, so the
total is checked from the directory alone; the shared-strings part is then streamed (in
bounded memory, nothing kept) to count its entries and measure its longest one.

The limits are far above what a real extract needs: Excel itself holds at most
1,048,576 rows and 32,767 characters in a cell.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from deid_desktop.core.errors import InputError

GB = 1 << 30
MB = 1 << 20
#: The sum of every part's inflated size.
MAX_INFLATED_BYTES = 2 * GB
#: Entries in the shared-strings table (each distinct text of the workbook).
MAX_SHARED_STRINGS = 5_000_000
#: Bytes of XML of one shared string: 32,767 characters take at most ~6 bytes each in
#: UTF-8 with XML escapes; a longer entry is no spreadsheet text.
MAX_STRING_BYTES = 1 * MB
_ENTRY = re.compile(rb"<(?:[A-Za-z0-9_]+:)?si[\s>/]")
_HINT = "Open it in Excel or LibreOffice and check it; save the sheet as CSV UTF-8 if it is real."


def _size(n: int) -> str:
    return f"{n / GB:g} GB" if n >= GB else f"{n / MB:g} MB"


def _shared_strings_part(archive: zipfile.ZipFile) -> zipfile.ZipInfo | None:
    for info in archive.infolist():
        if info.filename.lower().endswith("sharedstrings.xml"):
            return info
    return None


def _entries(data: bytes) -> tuple[int, int, int]:
    """(entries, first start, last start) of ``<si>`` elements in ``data`` (-1: none)."""
    count = data.count(b"<si>") + data.count(b"<si ") + data.count(b"<si/")
    first, last = -1, -1
    if b":si" in data:  # a namespace prefix (<x:si>): rare, counted the slow way
        found = [m.start() for m in _ENTRY.finditer(data)]
        return len(found), (found[0] if found else -1), (found[-1] if found else -1)
    if count:
        first = data.find(b"<si")
        last = data.rfind(b"<si")
        while first >= 0 and data[first + 3 : first + 4] not in (b">", b" ", b"/"):
            first = data.find(b"<si", first + 1)
        while last >= 0 and data[last + 3 : last + 4] not in (b">", b" ", b"/"):
            last = data.rfind(b"<si", 0, last)
    return count, first, last


def scan_shared_strings(archive: zipfile.ZipFile, info: zipfile.ZipInfo, file: str) -> int:
    """Count the entries, and check no entry spans more than ``MAX_STRING_BYTES``.

    Chunks are exactly ``MAX_STRING_BYTES`` long, so a gap between two entries that
    start in one chunk never exceeds the limit; only gaps across chunks are measured.
    A window around each chunk boundary catches an entry tag cut in two.
    """
    count, last_start, offset, tail = 0, 0, 0, b""
    with archive.open(info) as stream:
        while chunk := stream.read(MAX_STRING_BYTES):
            seam = tail + chunk[:8]
            cut = [m.start() for m in _ENTRY.finditer(seam) if m.start() < len(tail) < m.end()]
            across = len(cut)
            if cut:  # an entry tag cut by the seam starts where it starts, not at the tail
                last_start = offset - len(tail) + cut[-1]
            n, first, last = _entries(chunk)
            count += n + across
            if first >= 0:
                if count > n and offset + first - last_start > MAX_STRING_BYTES:
                    raise _long_string(file)
                last_start = offset + last
            if count > MAX_SHARED_STRINGS:
                raise InputError(
                    f"The workbook holds more than {MAX_SHARED_STRINGS:,} distinct "
                    "texts (shared strings), more than this app reads",
                    file=file,
                    hint=_HINT,
                )
            offset += len(chunk)
            tail = chunk[-8:]
            if offset - last_start > MAX_STRING_BYTES + 64:
                raise _long_string(file)
    return count


def _long_string(file: str) -> InputError:
    return InputError(
        f"The workbook holds a text of more than {_size(MAX_STRING_BYTES)} in one cell "
        "(Excel's own limit is 32,767 characters)",
        file=file,
        hint=_HINT,
    )


def check_inflation(path: Path) -> None:
    """Raise ``InputError`` when the workbook would inflate beyond the limits above."""
    file = path.name
    try:
        with zipfile.ZipFile(path) as archive:
            total = sum(info.file_size for info in archive.infolist())
            if total > MAX_INFLATED_BYTES:
                raise InputError(
                    f"The workbook expands to more than {_size(MAX_INFLATED_BYTES)} when "
                    f"unpacked ({total / GB:.1f} GB), more than this app reads",
                    file=file,
                    hint=_HINT,
                )
            info = _shared_strings_part(archive)
            if info is not None:
                scan_shared_strings(archive, info, file)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError):
        raise InputError(
            "The file is not a readable .xlsx workbook (it may be truncated or damaged)",
            file=file,
            hint="Open it in Excel or LibreOffice and save it as .xlsx (or as CSV UTF-8).",
        ) from None  # the cause may quote data
