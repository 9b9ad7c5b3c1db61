"""A fast reader for one worksheet's cells, for workbooks openpyxl has already opened.

openpyxl parses sheet XML through defusedxml's pure-Python parser, about 10-20 thousand
cells a second. This module streams the sheet XML with the standard library's C parser
instead, and keeps openpyxl for everything else (sheet list, shared strings, which
styles are dates, the 1900/1904 epoch). It gives the same Python values openpyxl gives
(``cell_text`` then renders both alike; a test holds the two readers equal).

Safety: defusedxml's protection is against DTDs and entity declarations. A worksheet
never needs one, so a sheet whose prolog holds ``<!DOCTYPE`` or ``<!ENTITY`` (or whose
root element is not found at the start) is refused here and left to openpyxl's defused
path; without a DTD the C parser only knows the five predefined XML entities.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from xml.etree.ElementTree import Element, iterparse

from openpyxl.utils.cell import column_index_from_string
from openpyxl.utils.datetime import from_excel, from_ISO8601
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet._read_only import ReadOnlyWorksheet

PROLOG_BYTES = 64 * 1024
_ROOT = re.compile(rb"<(?:[A-Za-z0-9_]+:)?worksheet[\s>]")
_REF = re.compile(r"([A-Z]+)(\d+)")
_DIGITS = "0123456789"


def _column(letters: str, ref: str, cache: dict[str, int]) -> int:
    """1-based column of a cell reference's letters (checked once per distinct letters)."""
    if _REF.fullmatch(ref) is None:
        raise NotSimple(ref)
    cache[letters] = column_index_from_string(letters)
    return cache[letters]


class NotSimple(Exception):
    """The sheet needs openpyxl's own (defused) parser."""


@dataclass
class FormulaCount:
    cells: int = 0
    uncached: int = 0
    first_uncached: str | None = None


def _check_prolog(archive: zipfile.ZipFile, member: str) -> None:
    with archive.open(member) as stream:
        head = stream.read(PROLOG_BYTES)
    root = _ROOT.search(head)
    if root is None or b"<!DOCTYPE" in head[: root.start()] or b"<!ENTITY" in head:
        raise NotSimple(member)


def _number(text: str) -> int | float:
    if "." in text or "E" in text or "e" in text:
        return float(text)
    return int(text)


class _Cells:
    """Turns ``<c>`` elements into the values openpyxl's read-only mode gives."""

    def __init__(
        self, wb: Workbook, ws: ReadOnlyWorksheet, formulas: FormulaCount, ns: str
    ) -> None:
        self.shared = ws._shared_strings
        self.dates = wb._date_formats
        self.durations = wb._timedelta_formats
        self.epoch = wb.epoch
        self.formulas = formulas
        self.v, self.f, self.t = f"{ns}v", f"{ns}f", f"{ns}t"
        self.inline, self.run = f"{ns}is", f"{ns}r"

    def _inline(self, cell: Element) -> str | None:
        box = cell.find(self.inline)
        if box is None:
            return None
        parts: list[str] = []
        for child in box:  # plain text, then rich-text runs; phonetic runs are skipped
            if child.tag == self.t:
                parts.append(child.text or "")
            elif child.tag == self.run:
                parts.extend(t.text or "" for t in child if t.tag == self.t)
        return "".join(parts)

    def value(self, cell: Element) -> object:
        kind = cell.get("t", "n")
        raw = cell.findtext(self.v) or None
        if cell.find(self.f) is not None:
            self.formulas.cells += 1
            if raw is None and kind not in ("str", "inlineStr"):
                self.formulas.uncached += 1
                self.formulas.first_uncached = self.formulas.first_uncached or cell.get("r")
        if kind == "inlineStr":
            return self._inline(cell)
        if raw is None:
            return None
        if kind == "n":
            number = _number(raw)
            style = cell.get("s")
            if style and int(style) in self.dates:
                try:
                    return from_excel(number, self.epoch, timedelta=int(style) in self.durations)
                except (OverflowError, ValueError):
                    return "#VALUE!"
            return number
        if kind == "s":
            return self.shared[int(raw)]
        if kind == "b":
            return bool(int(raw))
        if kind == "d":
            return from_ISO8601(raw)
        if kind in ("str", "e"):
            return raw
        raise NotSimple(kind)


def iter_rows(
    wb: Workbook, ws: ReadOnlyWorksheet, formulas: FormulaCount
) -> Iterator[tuple[int, list[object]]]:
    """(sheet row number, cell values from column A) for every row present in the XML."""
    archive: zipfile.ZipFile = wb._archive
    member = ws._worksheet_path
    _check_prolog(archive, member)
    row_number = 0
    cells: _Cells | None = None
    row_tag = c_tag = ""
    columns: dict[str, int] = {}
    with archive.open(member) as stream:
        for _event, element in iterparse(stream, events=("end",)):
            if cells is None:  # the first closed element gives the namespace
                tag = element.tag
                ns = tag[: tag.index("}") + 1] if tag.startswith("{") else ""
                cells = _Cells(wb, ws, formulas, ns)
                row_tag, c_tag = f"{ns}row", f"{ns}c"
            if element.tag != row_tag:
                continue
            row_number = int(element.get("r") or row_number + 1)
            values: list[object] = []
            column = 0
            for cell in element:
                if cell.tag != c_tag:
                    continue
                ref = cell.get("r")
                if ref:
                    letters = ref.rstrip(_DIGITS)
                    column = columns.get(letters) or _column(letters, ref, columns)
                else:
                    column += 1
                if column > len(values):
                    values.extend([None] * (column - len(values)))
                values[column - 1] = cells.value(cell)
            element.clear()  # keeps memory flat: only the emptied row shell stays
            yield row_number, values
