"""After writing, scan what was written: every released CSV and XLSX read back, its cells
scanned for identifier shapes and for the extract's direct values (the dictionary), and
each XLSX's document properties checked for an author, a company or a last editor.

``scan_written(folder, dictionary)`` returns a ``WrittenScan``: findings as positions
(file, column, row, kind, rule, confidence), never the text; ``clean`` says whether
there is none. Only hits of confidence ``level`` or above count (default "high": the
shapes a release must never hold - phones, SSNs, e-mails, full dates, record numbers,
addresses, ages over 89, cued names - and the dictionary's own values).
"""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from xml.etree import ElementTree

import pandas as pd

from deid_desktop.core.scan.dictionary import ScanDictionary
from deid_desktop.core.scan.engine import at_level, scan_text_arrays

#: Document properties that name a person or an organisation (core.xml, app.xml).
IDENTIFYING_PROPERTIES = ("creator", "lastModifiedBy", "Company", "Manager")
#: Values of those properties that name the tool, not a person: what the export writes.
TOOL_NAMES = frozenset({"deid-desktop", "openpyxl"})
_TAG = re.compile(r"\{[^}]*\}")


class WrittenHit(NamedTuple):
    """One finding in a written file: the file name, the sheet or "" for a CSV, the
    column, the 0-based data row (-1 for a header or a document property), the kind, the
    rule and the confidence. Never the value."""

    file: str
    sheet: str
    column: str
    row: int
    kind: str
    rule: str
    confidence: str


@dataclass(frozen=True)
class WrittenScan:
    files: tuple[str, ...]
    cells: int
    hits: tuple[WrittenHit, ...] = field(default_factory=tuple)

    @property
    def clean(self) -> bool:
        return not self.hits

    def by_kind(self) -> dict[str, int]:
        return dict(sorted(Counter(h.kind for h in self.hits).items()))

    def summary_dict(self) -> dict[str, Any]:
        """Counts and positions only, safe for logs and the record."""
        return {
            "files": list(self.files),
            "cells": self.cells,
            "hits": len(self.hits),
            "by_kind": self.by_kind(),
            "where": sorted({(h.file, h.sheet, h.column) for h in self.hits}),
        }


def xlsx_properties(path: Path) -> dict[str, str]:
    """The document properties of an XLSX (docProps/core.xml and app.xml): name -> text,
    empty ones left out."""
    out: dict[str, str] = {}
    with zipfile.ZipFile(path) as z:
        for part in ("docProps/core.xml", "docProps/app.xml"):
            if part not in z.namelist():
                continue
            root = ElementTree.fromstring(z.read(part))
            for el in root:
                name = _TAG.sub("", el.tag)
                text = (el.text or "").strip()
                if text and len(el) == 0:
                    out[name] = text
    return out


def _frames(path: Path) -> Iterable[tuple[str, pd.DataFrame]]:
    if path.suffix.lower() == ".csv":
        yield "", pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
        return
    sheets = pd.read_excel(path, sheet_name=None, dtype=str, engine="openpyxl", header=0)
    for name, frame in sheets.items():
        yield str(name), frame.fillna("")


#: Outside free text, a dictionary number with fewer digits than this is taken for a
#: measurement or a year that happens to equal an identifier (a phone has 10, an SSN 9).
MIN_LONE_DIGITS = 7
#: Dictionary rules of numbers (record numbers, IDs, phones, SSNs): in a column the
#: release generated they are coincidences (see ``_counts``); names and e-mails count.
_GENERATED_EXEMPT = frozenset(f"dictionary:{k}" for k in ("id", "mrn", "phone", "ssn"))


def _counts(matched: str, rule: str, shapes_here: bool, generated: bool = False) -> bool:
    """Does a hit count: every hit in free text; elsewhere a dictionary value, unless it
    is a short number. In a column the release generated from its seed or salt (subject
    IDs, link keys) a record number never counts: the IDs are a random permutation, so
    ``S000123`` beside an extract whose keys run 000001, 000002, ... is a coincidence
    by construction (the gate's subject-ID check has held each ID against its own
    person's key before anything was written)."""
    if shapes_here:
        return True
    if not rule.startswith("dictionary:"):
        return False
    if generated and rule in _GENERATED_EXEMPT:
        return False
    if any(ch.isalpha() for ch in matched):
        return True
    return sum(ch.isdigit() for ch in matched) >= MIN_LONE_DIGITS


def _found(
    texts: list[str],
    dictionary: ScanDictionary,
    level: str,
    shapes_here: bool,
    generated: bool = False,
) -> Iterable[tuple[int, str, str, str]]:
    """(index, kind, rule, confidence) of each counted hit in ``texts``."""
    found = at_level(scan_text_arrays(texts, dictionary), level)
    for i, start, end, kind, rule, conf in zip(
        found.note.tolist(),
        found.start.tolist(),
        found.end.tolist(),
        found.kinds.tolist(),
        found.rules.tolist(),
        found.confidence.tolist(),
        strict=True,
    ):
        if _counts(texts[i][start:end], rule, shapes_here, generated):
            yield i, kind, rule, conf


def scan_written(
    folder: Path | str,
    dictionary: ScanDictionary,
    *,
    level: str = "high",
    shape_columns: Mapping[str, Collection[str]] | None = None,
    generated: Collection[str] = (),
) -> WrittenScan:
    """Read back every CSV and XLSX in ``folder`` (not below it) and scan it.

    ``shape_columns``: file stem -> the columns where every shape counts (free text);
    elsewhere (and in headers) only the dictionary's values do, numbers of fewer than
    ``MIN_LONE_DIGITS`` digits left out. None: every shape counts in every column.
    ``generated``: the columns the release generated (its subject-ID or link-key
    column, in every file), where no dictionary number counts (``_counts``).
    """
    folder = Path(folder)
    files = sorted(
        p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in (".csv", ".xlsx")
    )
    hits: list[WrittenHit] = []
    cells = 0
    for path in files:
        if path.suffix.lower() == ".xlsx":
            props = xlsx_properties(path)
            for name in IDENTIFYING_PROPERTIES:
                if name in props and props[name] not in TOOL_NAMES:
                    hits.append(WrittenHit(path.name, "", name, -1, "METADATA", "xlsx", "high"))
        text_here = None if shape_columns is None else set(shape_columns.get(path.stem, ()))
        for sheet, frame in _frames(path):
            header = [str(c) for c in frame.columns]
            for i, kind, rule, conf in _found(header, dictionary, level, text_here is None):
                hits.append(WrittenHit(path.name, sheet, header[i], -1, kind, rule, conf))
            for column in frame.columns:
                texts = frame[column].astype(str).tolist()
                cells += len(texts)
                shapes_here = text_here is None or str(column) in text_here
                made = str(column) in generated
                for row, kind, rule, conf in _found(texts, dictionary, level, shapes_here, made):
                    hits.append(WrittenHit(path.name, sheet, str(column), row, kind, rule, conf))
    return WrittenScan(files=tuple(p.name for p in files), cells=cells, hits=tuple(hits))
