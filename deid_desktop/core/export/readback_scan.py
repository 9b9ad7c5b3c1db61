"""The read-back scan of a staged release, each distinct cell text scanned once.

``scan_distinct(folder, dictionary, shape_columns=...)`` returns what
``scan.scan_written`` returns for the same folder (the same hits, files and cell
count): the files are read the same way and the same rules decide which hits count
(``scan.written``), but the scanner sees every distinct text of the folder's cells once,
however many cells hold it. A release holds few distinct texts per column (years, codes,
ZIP3s, measurements), and each subject ID appears in every table: at a million persons
24 million cells come down to about a million distinct texts. The scan of a text does
not depend on the other texts (no person keys are given), so each hit found in a
distinct text is a hit in every cell that holds it.
"""

from __future__ import annotations

import csv
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from deid_desktop.core.scan.dictionary import ScanDictionary
from deid_desktop.core.scan.direct_values import DirectValues
from deid_desktop.core.scan.engine import at_level, scan_text_arrays
from deid_desktop.core.scan.written import (
    IDENTIFYING_PROPERTIES,
    TOOL_NAMES,
    WrittenHit,
    WrittenScan,
    _counts,
    _found,
    _frames,
    xlsx_properties,
)


class _Column:
    """One read-back column: where it is, its rows' codes into its distinct texts, and
    where those texts are in the folder's distinct texts."""

    def __init__(
        self,
        file: str,
        sheet: str,
        name: str,
        shapes: bool,
        values: pd.Series | pa.Array,
        generated: bool = False,
    ):
        self.file, self.sheet, self.name, self.shapes = file, sheet, name, shapes
        self.generated = generated
        if isinstance(values, pd.Series):
            codes, distinct = pd.factorize(values.astype(str).to_numpy(dtype=object), sort=False)
            distinct = pa.array(np.asarray(distinct, dtype=object), type=pa.large_string())
        else:  # a column of text read by Arrow: its dictionary encoding
            encoded = values.dictionary_encode()
            codes = encoded.indices.to_numpy(zero_copy_only=False)
            distinct = encoded.dictionary
        codes = np.asarray(codes, dtype=np.int64)
        if generated and not shapes and len(distinct):
            # the ID-shaped texts are left out while still in Arrow: no Python string
            # is made for each of a million subject IDs
            codes, distinct = _without_id_shapes(codes, distinct)
        uniques = np.asarray(distinct.to_numpy(zero_copy_only=False), dtype=object)
        self.codes: np.ndarray = codes
        self.uniques: np.ndarray = uniques
        self.global_ids: np.ndarray = np.empty(0, dtype=np.int64)

    def rows_of(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows ordered by distinct text, and where each text's rows start (CSR)."""
        order = np.argsort(self.codes, kind="stable")
        starts = np.searchsorted(self.codes[order], np.arange(len(self.uniques) + 1))
        return order, starts


#: What the release's own ID column holds: a subject ID (a letter prefix and digits) or
#: a link key (12 to 64 hex characters, ``constants.MIN_KEY_LENGTH``). Such a text holds
#: only numbers, and numbers do not count in that column (``scan.written._counts``), so
#: it is not scanned at all; anything else in the column is (a name there still counts).
_ID_SHAPE = r"^(?:[A-Za-z]{0,3}[0-9]+|[0-9a-f]{12,64})$"


def _without_id_shapes(codes: np.ndarray, distinct: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """The column's codes and distinct texts with the ID-shaped texts left out (their
    rows get code -1, which ``rows_of`` never lists)."""
    import pyarrow.compute as pc

    shaped = pc.match_substring_regex(distinct, _ID_SHAPE)
    keep = ~shaped.to_numpy(zero_copy_only=False)
    if keep.all():
        return codes, distinct
    new_index = np.cumsum(keep) - 1
    kept_code = keep[codes] if len(codes) else np.zeros(0, dtype=bool)
    return np.where(kept_code, new_index[codes], -1), distinct.filter(pa.array(keep))


def _header(path: Path) -> list[str]:
    with path.open("r", encoding="utf-8-sig", newline="") as f:
        return next(csv.reader(f), [])


def _csv_columns(path: Path, header: list[str]) -> tuple[list[str], list[pa.Array]]:
    """A release CSV as ``scan.written`` reads it (every cell as text, an empty cell as
    "", blank lines skipped), read by Arrow's multi-threaded reader."""
    table = pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(encoding="utf8"),
        parse_options=pacsv.ParseOptions(newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(
            column_types={name: pa.large_string() for name in header},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )
    return [str(c) for c in table.column_names], [
        table.column(i).combine_chunks() for i in range(table.num_columns)
    ]


def _sheets(path: Path) -> Iterable[tuple[str, list[str], list[pd.Series | pa.Array]]]:
    """(sheet, header, columns) of a written file: a CSV by Arrow when its header names
    each column once (pandas renames repeats and blanks), else as ``scan.written``."""
    if path.suffix.lower() == ".csv":
        header = _header(path)
        if header and len(set(header)) == len(header) and all(header):
            names, arrays = _csv_columns(path, header)
            yield "", names, list(arrays)
            return
    for sheet, frame in _frames(path):
        yield sheet, [str(c) for c in frame.columns], [frame[c] for c in frame.columns]


def scan_distinct(
    folder: Path | str,
    dictionary: ScanDictionary | DirectValues,
    *,
    level: str = "high",
    shape_columns: Mapping[str, Collection[str]] | None = None,
    generated: Collection[str] = (),
) -> WrittenScan:
    """``scan.scan_written(folder, dictionary, level=..., shape_columns=...,
    generated=...)``, scanning each distinct cell text of the folder once. Given the
    extract's ``DirectValues``, the dictionary is made of the values that may be found
    in the folder's texts only (``DirectValues.dictionary_for``): the same findings."""
    folder = Path(folder)
    files = sorted(
        p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in (".csv", ".xlsx")
    )
    # in file order: the hits of properties, the headers and the columns to scan
    blocks: list[list[WrittenHit] | _Header | _Column] = []
    cells = 0
    for path in files:
        if path.suffix.lower() == ".xlsx":
            props = xlsx_properties(path)
            blocks.append(
                [
                    WrittenHit(path.name, "", name, -1, "METADATA", "xlsx", "high")
                    for name in IDENTIFYING_PROPERTIES
                    if name in props and props[name] not in TOOL_NAMES
                ]
            )
        text_here = None if shape_columns is None else set(shape_columns.get(path.stem, ()))
        for sheet, header, values in _sheets(path):
            blocks.append(_Header(path.name, sheet, header, text_here is None))
            for column, cells_of in zip(header, values, strict=True):
                cells += len(cells_of)
                shapes = text_here is None or column in text_here
                made = column in generated
                blocks.append(_Column(path.name, sheet, column, shapes, cells_of, made))
            del values
    names = tuple(p.name for p in files)
    columns = [b for b in blocks if isinstance(b, _Column)]
    headers = [b for b in blocks if isinstance(b, _Header)]

    # the folder's distinct texts, each scanned once
    texts: list[str] = []
    if columns:
        every = np.concatenate([c.uniques for c in columns])
        global_codes, distinct = pd.factorize(every, sort=False)
        at = 0
        for c in columns:
            c.global_ids = global_codes[at : at + len(c.uniques)]
            at += len(c.uniques)
        texts = list(distinct)
    if isinstance(dictionary, DirectValues):
        dictionary = dictionary.dictionary_for([texts, *(h.names for h in headers)])
    for h in headers:
        h.hits = [
            WrittenHit(h.file, h.sheet, h.names[i], -1, kind, rule, conf)
            for i, kind, rule, conf in _found(h.names, dictionary, level, h.shapes)
        ]
    hits: list[WrittenHit] = []
    if not columns:
        return WrittenScan(files=names, cells=cells, hits=tuple(_listed(blocks)))
    found = at_level(scan_text_arrays(texts, dictionary), level)
    if found.note.size == 0:
        return WrittenScan(files=names, cells=cells, hits=tuple(_listed(blocks)))

    by_text = np.argsort(found.note, kind="stable")  # the hits of each distinct text
    hit_starts = np.searchsorted(found.note[by_text], np.arange(len(texts) + 1))
    kinds, rules = found.kinds.tolist(), found.rules.tolist()
    confs, starts, ends = found.confidence.tolist(), found.start.tolist(), found.end.tolist()
    for c in blocks:
        if not isinstance(c, _Column):
            hits.extend(c.hits if isinstance(c, _Header) else c)
            continue
        local = c.global_ids
        with_hits = np.flatnonzero(hit_starts[local + 1] > hit_starts[local])
        if with_hits.size == 0:
            continue
        order, row_starts = c.rows_of()
        per_row: list[tuple[int, int, str, str, str]] = []  # row, hit order, kind, rule, conf
        for u in with_hits.tolist():
            g = int(local[u])
            text = texts[g]
            rows = order[row_starts[u] : row_starts[u + 1]].tolist()
            for h in by_text[hit_starts[g] : hit_starts[g + 1]].tolist():
                if _counts(text[starts[h] : ends[h]], rules[h], c.shapes, c.generated):
                    per_row.extend((r, h, kinds[h], rules[h], confs[h]) for r in rows)
        per_row.sort()
        hits.extend(
            WrittenHit(c.file, c.sheet, c.name, r, kind, rule, conf)
            for r, _, kind, rule, conf in per_row
        )
    return WrittenScan(files=names, cells=cells, hits=tuple(hits))


class _Header:
    """The header of one sheet; its hits, found once the dictionary is known."""

    def __init__(self, file: str, sheet: str, names: list[str], shapes: bool):
        self.file, self.sheet, self.names, self.shapes = file, sheet, names, shapes
        self.hits: list[WrittenHit] = []


def _listed(blocks: Iterable[list[WrittenHit] | _Header | _Column]) -> list[WrittenHit]:
    """The hits of the properties and headers, in file order (the columns hold none)."""
    out: list[WrittenHit] = []
    for b in blocks:
        if isinstance(b, _Header):
            out.extend(b.hits)
        elif not isinstance(b, _Column):
            out.extend(b)
    return out
