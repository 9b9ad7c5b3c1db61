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
import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from deid_desktop.core.export.csvout import to_arrow
from deid_desktop.core.facts.text import known_codes, one_array
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
    """One read-back column: where it is, its cells (as Arrow text) and its distinct texts
    (the release's own ID column without its ID-shaped texts). Which rows hold a text is
    worked out only for the texts with a hit (``rows_of``): a clean column is hashed
    once, never encoded row by row."""

    def __init__(
        self,
        file: str,
        sheet: str,
        name: str,
        shapes: bool,
        values: pd.Series | pa.Array | pa.ChunkedArray,
        generated: bool = False,
        known: tuple[np.ndarray, pa.Array] | None = None,
    ):
        """``known``: the codes of ``values`` into its distinct values, as the pathway noted
        them (``facts.text.known_codes``): the distinct texts are read from them, no hashing
        of every cell again (a release column is few texts in millions of cells)."""
        self.file, self.sheet, self.name, self.shapes = file, sheet, name, shapes
        self.generated = generated
        if isinstance(values, pd.Series):
            text = values.astype(str).to_numpy(dtype=object)
            values = pa.array(text, type=pa.large_string())
        self.values = values
        scanned = values
        if generated and not shapes and len(values):
            # the ID-shaped texts are left out while still in Arrow (one regex pass over
            # the rows, cheaper than hashing a million distinct IDs): no Python string
            # is made for each of a million subject IDs
            if _letter_and_digits(values):  # every text ID-shaped, told from the bytes
                scanned = values.slice(0, 0)
            else:
                shaped = pc.match_substring_regex(pc.fill_null(values, ""), _ID_SHAPE)
                if shaped.null_count == 0 and pc.all(shaped).as_py():
                    scanned = values.slice(0, 0)
                else:
                    scanned = pc.filter(values, pc.invert(shaped))
        distinct = _held(*known) if known is not None and scanned is values else pc.unique(scanned)
        if distinct.null_count:  # a missing cell is written (and read back) empty
            distinct = pc.unique(pc.fill_null(distinct, ""))
        self.uniques: np.ndarray = np.asarray(distinct.to_numpy(zero_copy_only=False), dtype=object)
        self.global_ids: np.ndarray = np.empty(0, dtype=np.int64)

    def rows_of(self, which: Sequence[int]) -> list[list[int]]:
        """The rows (ascending) holding each of the distinct texts ``which``."""
        wanted = pa.array(self.uniques[list(which)].tolist(), type=pa.large_string())
        at = pc.index_in(pc.fill_null(self.values, ""), value_set=wanted)
        codes = np.asarray(at.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
        order = np.argsort(codes, kind="stable")
        starts = np.searchsorted(codes[order], np.arange(len(wanted) + 1))
        return [order[starts[k] : starts[k + 1]].tolist() for k in range(len(wanted))]


def _held(codes: np.ndarray, dictionary: pa.Array) -> pa.Array:
    """The distinct values the codes use (a missing cell, code -1, as a null): the set
    ``pc.unique`` gives of the column the codes describe (in another order)."""
    used = np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(dictionary)))
    held = dictionary.take(pa.array(used, type=pa.int64())).cast(pa.large_string())
    if (codes < 0).any():
        held = pa.concat_arrays([held, pa.nulls(1, pa.large_string())])
    return held


#: What the release's own ID column holds: a subject ID (a letter prefix and digits) or
#: a link key (12 to 64 hex characters, ``constants.MIN_KEY_LENGTH``). Such a text holds
#: only numbers, and numbers do not count in that column (``scan.written._counts``), so
#: it is not scanned at all; anything else in the column is (a name there still counts).
_ID_SHAPE = r"^(?:[A-Za-z]{0,3}[0-9]+|[0-9a-f]{12,64})$"


def _letter_and_digits(values: pa.Array | pa.ChunkedArray) -> bool:
    """Every value one ASCII letter then digits, all of one width, none missing (subject
    IDs as written: each matches ``_ID_SHAPE``), read from the Arrow buffers in numpy;
    False when it is not so or cannot be told so (the regex then decides)."""
    arr = one_array(values)
    if (
        len(arr) == 0
        or arr.null_count
        or not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type))
    ):
        return False
    _validity, offsets_buf, data_buf = arr.buffers()
    width = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(offsets_buf, dtype=width)[arr.offset : arr.offset + len(arr) + 1]
    size = int(offsets[1] - offsets[0])
    if size < 2 or data_buf is None or int(offsets[-1] - offsets[0]) != size * len(arr):
        return False
    if not (np.diff(offsets) == size).all():
        return False
    data = np.frombuffer(data_buf, dtype=np.uint8)[int(offsets[0]) : int(offsets[-1])]
    cells = data.reshape(len(arr), size)
    letter = cells[:, 0] | 0x20  # ASCII letters lower-cased
    digits = cells[:, 1:] - np.uint8(48)  # bytes below '0' wrap round to >= 10
    return bool(((letter >= 97) & (letter <= 122)).all() and (digits < 10).all())


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


def _sha256(path: Path) -> str:
    """The SHA-256 of the bytes on disk (read in full, streamed)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


#: file name -> (SHA-256 of the bytes the writer wrote, the frame it wrote them from)
Written = Mapping[str, tuple[str, pd.DataFrame]]


def _sheets(
    path: Path, written: Written
) -> Iterable[
    tuple[
        str,
        list[str],
        list[pd.Series | pa.Array | pa.ChunkedArray],
        list[tuple[np.ndarray, pa.Array] | None],
    ]
]:
    """(sheet, header, columns) of a written file: a CSV by Arrow when its header names
    each column once (pandas renames repeats and blanks), else as ``scan.written``.

    A CSV of ``written`` whose bytes, read back in full, have the SHA-256 its writer
    computed is byte for byte the frame's CSV (``csvout.write_csv``, a faithful encoding:
    parsing it gives back every cell, a missing one as ""): its cells are taken from the
    frame rather than parsed again. Any other bytes are parsed, so what is scanned is
    always what is on disk."""
    if path.suffix.lower() == ".csv":
        header = _header(path)
        if header and len(set(header)) == len(header) and all(header):
            known = written.get(path.name)
            if known is not None and known[1].shape[1] == len(header) and _sha256(path) == known[0]:
                table = to_arrow(known[1])
                codes = [known_codes(known[1].iloc[:, i]) for i in range(table.num_columns)]
                yield "", header, [table.column(i) for i in range(table.num_columns)], codes
                return
            names, arrays = _csv_columns(path, header)
            yield "", names, list(arrays), [None] * len(arrays)
            return
    for sheet, frame in _frames(path):
        names = [str(c) for c in frame.columns]
        yield sheet, names, [frame[c] for c in frame.columns], [None] * len(names)


def scan_distinct(
    folder: Path | str,
    dictionary: ScanDictionary | DirectValues,
    *,
    level: str = "high",
    shape_columns: Mapping[str, Collection[str]] | None = None,
    generated: Collection[str] = (),
    written: Written | None = None,
) -> WrittenScan:
    """``scan.scan_written(folder, dictionary, level=..., shape_columns=...,
    generated=...)``, scanning each distinct cell text of the folder once. Given the
    extract's ``DirectValues``, the dictionary is made of the values that may be found
    in the folder's texts only (``DirectValues.dictionary_for``): the same findings.
    ``written``: the CSVs the export wrote (see ``_sheets``)."""
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
        for sheet, header, values, codes in _sheets(path, written or {}):
            blocks.append(_Header(path.name, sheet, header, text_here is None))
            for column, cells_of, known in zip(header, values, codes, strict=True):
                cells += len(cells_of)
                shapes = text_here is None or column in text_here
                made = column in generated
                blocks.append(_Column(path.name, sheet, column, shapes, cells_of, made, known))
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
        counted: list[tuple[int, list[int]]] = []  # distinct text, its hits that count
        for u in with_hits.tolist():
            g = int(local[u])
            text = texts[g]
            here = [
                h
                for h in by_text[hit_starts[g] : hit_starts[g + 1]].tolist()
                if _counts(text[starts[h] : ends[h]], rules[h], c.shapes, c.generated)
            ]
            if here:
                counted.append((u, here))
        if not counted:
            continue
        per_row: list[tuple[int, int, str, str, str]] = []  # row, hit order, kind, rule, conf
        for (_, here), rows in zip(counted, c.rows_of([u for u, _ in counted]), strict=True):
            for h in here:
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
