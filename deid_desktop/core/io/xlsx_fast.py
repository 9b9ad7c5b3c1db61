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


class NotSimple(Exception):
    """The sheet needs openpyxl's own (defused) parser."""


@dataclass
class FormulaCount:
    cells: int = 0
    uncached: int = 0
    first_uncached: str | None = None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


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


def _inline(cell: Element) -> str | None:
    for child in cell:
        if _local(child.tag) == "is":
            parts = []
            for part in child:
                name = _local(part.tag)
                if name == "t":
                    parts.append(part.text or "")
                elif name == "r":
                    parts.extend(t.text or "" for t in part if _local(t.tag) == "t")
            return "".join(parts)
    return None


class _Cells:
    """Turns ``<c>`` elements into the values openpyxl's read-only mode gives."""

    def __init__(self, wb: Workbook, ws: ReadOnlyWorksheet, formulas: FormulaCount) -> None:
        self.shared = ws._shared_strings
        self.dates = wb._date_formats
        self.durations = wb._timedelta_formats
        self.epoch = wb.epoch
        self.formulas = formulas

    def value(self, cell: Element) -> object:
        kind = cell.get("t", "n")
        raw: str | None = None
        has_formula = False
        for child in cell:
            name = _local(child.tag)
            if name == "v":
                raw = child.text or None
            elif name == "f":
                has_formula = True
        if has_formula:
            self.formulas.cells += 1
            if raw is None and kind not in ("str", "inlineStr"):
                self.formulas.uncached += 1
                self.formulas.first_uncached = self.formulas.first_uncached or cell.get("r")
        if kind == "inlineStr":
            return _inline(cell)
        if raw is None:
            return None
        if kind == "n":
            number = _number(raw)
            style = int(cell.get("s", 0) or 0)
            if style and style in self.dates:
                try:
                    return from_excel(number, self.epoch, timedelta=style in self.durations)
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
    cells = _Cells(wb, ws, formulas)
    row_number = 0
    with archive.open(member) as stream:
        parent: Element | None = None
        for event, element in iterparse(stream, events=("start", "end")):
            name = _local(element.tag)
            if event == "start":
                if name == "sheetData":
                    parent = element
                continue
            if name != "row":
                continue
            row_number = int(element.get("r") or row_number + 1)
            values: list[object] = []
            column = 0
            for cell in element:
                if _local(cell.tag) != "c":
                    continue
                ref = cell.get("r")
                if ref:
                    match = _REF.fullmatch(ref)
                    if match is None:
                        raise NotSimple(ref)
                    column = column_index_from_string(match.group(1))
                else:
                    column += 1
                if column > len(values):
                    values.extend([None] * (column - len(values)))
                values[column - 1] = cells.value(cell)
            yield row_number, values
            if parent is not None:
                parent.remove(element)
