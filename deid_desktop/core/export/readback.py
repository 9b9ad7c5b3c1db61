"""The read-back gate: the staged release files scanned before the commit point.

Every CSV and XLSX written into the staging folder is read back (``scan.scan_written``,
each distinct cell text scanned once: ``readback_scan.scan_distinct``):
the released free-text columns are scanned for identifier shapes of high confidence
(phones, SSNs, e-mails, full dates, record numbers, addresses, ages over 89, cued
names); every cell and header for the values of the extract's direct columns that the
release does not keep (``readback_dictionary``); each XLSX's document properties for an
author, a company or a last editor. Any finding is a ``CheckFailed`` (exit 3) naming
file, column and count - never a value - raised before the commit: nothing is written.

Shapes are looked for in free text only: a limited data set keeps full dates on
purpose, and measurement columns read as phone numbers or record numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from deid_desktop.core.errors import CheckFailed
from deid_desktop.core.export.readback_scan import Written, scan_distinct
from deid_desktop.core.model import ColumnClass, Extract, Project, Release
from deid_desktop.core.scan.dictionary import ScanDictionary, direct_columns
from deid_desktop.core.scan.direct_values import DirectValues
from deid_desktop.core.scan.written import WrittenScan

#: How many (file, column) places the message lists before "and N more".
_LISTED = 8


def readback_dictionary(
    extract: Extract,
    project: Project,
    release: Release,
    words: Mapping[str, Sequence[str]] | None = None,
) -> DirectValues:
    """The values of every direct column the release does not keep (a column a pathway
    keeps on purpose, such as a limited data set's town, was judged by the gate), and
    the project word list's terms (``words``: dictionary kind -> terms, see
    ``wordlist.WordList.by_dictionary_kind``): a released file holding one fails the
    export like a direct value. Kept as columns: the read-back makes its dictionary of
    the values that may be found in the written files only."""
    columns: dict[str, list[pd.Series]] = {}
    kept = {name: {str(c) for c in frame.columns} for name, frame in release.tables.items()}
    for spec, column, kind in direct_columns(
        extract, project, lambda table, column: column in kept.get(table, ())
    ):
        columns.setdefault(kind, []).append(extract.table(spec.name).frame[column])
    for kind, terms in (words or {}).items():
        if terms:
            columns.setdefault(kind, []).append(pd.Series(list(terms), dtype=object))
    values = DirectValues.from_columns(columns)
    single = frozenset(kind for kind, cols in columns.items() if len(cols) == 1)
    return ReadbackValues(values.columns, single=single)


@dataclass(frozen=True, eq=False)
class ReadbackValues(DirectValues):
    """``DirectValues`` that know which kinds hold one column only (``single``): such a
    kind's chunks are joined into one array when the dictionary is made, so its values
    are not hashed to distinct ones first (``DirectValues`` does that to deduplicate
    several columns of a kind; the values it keeps are deduplicated anyway). The join
    is made only then (at the export, once the loaded extract is gone), never held."""

    single: frozenset[str] = frozenset()

    def dictionary_for(self, calls: Sequence[Sequence[str]]) -> ScanDictionary:
        joined = {
            kind: (pa.concat_arrays(list(cols)),) if kind in self.single and len(cols) > 1 else cols
            for kind, cols in self.columns.items()
        }
        return DirectValues(joined).dictionary_for(calls)


def free_text_columns(
    project: Project, release: Release, stems: Mapping[str, str]
) -> dict[str, set[str]]:
    """File stem -> the released free-text columns of that table (kept or redacted)."""
    out: dict[str, set[str]] = {}
    for name, frame in release.tables.items():
        try:
            spec = project.table(name)
        except KeyError:
            continue
        text = {t.name for t in spec.by_class(ColumnClass.FREE_TEXT)}
        out[stems[name]] = {str(c) for c in frame.columns if str(c) in text}
    return out


def readback_message(found: WrittenScan) -> str:
    """Where the findings are, as counts per file and column; never a value."""
    places = Counter((h.file, f"{h.sheet}.{h.column}" if h.sheet else h.column) for h in found.hits)
    parts = [
        f"{file} column '{column}' ({count:,})"
        for (file, column), count in sorted(places.items())[:_LISTED]
    ]
    more = len(places) - _LISTED
    listed = "; ".join(parts) + (f"; and {more:,} more" if more > 0 else "")
    kinds = ", ".join(f"{k} {n:,}" for k, n in found.by_kind().items())
    n = len(found.hits)
    return (
        f"Reading back the written release found {n:,} identifier{'s' if n != 1 else ''} "
        f"({kinds}): {listed}. Nothing was written."
    )


def readback_gate(
    staging: Path,
    dictionary: ScanDictionary | DirectValues | None,
    shape_columns: Mapping[str, set[str]],
    generated: Collection[str] = (),
    written: Written | None = None,
) -> dict[str, Any]:
    """Scan the staged release folder; raise ``CheckFailed`` on any finding, else return
    the counts for the record (files, cells read back, hits 0). ``generated``: the
    release's own ID column (subject IDs, link keys), where numbers are coincidences.
    ``written``: file -> (SHA-256 written, frame) of the CSVs the export wrote: a file
    read back with that SHA-256 has its cells taken from the frame, not parsed again."""
    found = scan_distinct(
        staging,
        dictionary if dictionary is not None else ScanDictionary(),
        shape_columns=shape_columns,
        generated=generated,
        written=written,
    )
    if not found.clean:
        raise CheckFailed(
            readback_message(found),
            hint="Check the tags of the columns named (a direct identifier left in another "
            "column, free text kept, or redacted with hits left), fix them and export again.",
        )
    return {"files": list(found.files), "cells": found.cells, "hits": 0}
