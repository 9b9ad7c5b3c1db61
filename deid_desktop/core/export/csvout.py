"""Fast, byte-reproducible CSV for released tables, built with Arrow compute kernels.

The format (RFC 4180, as pandas ``to_csv(index=False, lineterminator="\\n")`` writes it):

- UTF-8 without BOM; every line ends with "\\n"; the frame's own column order; no index;
- a field is quoted only when it holds a comma, a double quote, a line feed or a
  carriage return; a double quote inside is doubled;
- a missing value is an empty field; in a one-column table an empty field is written
  ``""`` so the line is not blank.

One deliberate difference from Python's ``csv`` module (which pandas uses) on Python
3.11: a field holding a bare carriage return is quoted here, as RFC 4180 requires;
Python 3.11 leaves it bare, which many readers take for a line break.

Why not pandas: ``to_csv`` formats every cell in Python (about 2 s per 10M cells on the
target machine); these kernels build the lines in C++ in a fraction of that, and the
fast path skips the quoting kernels entirely for a column whose bytes hold no comma,
quote or line break, and a table with no such column (the usual release) is written by
Arrow's own CSV writer unquoted, one pass instead of two joins.
Chunks of rows keep memory flat and let progress and cancel run.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from deid_desktop.core.facts.text import one_array
from deid_desktop.core.progress import Reporter

CHUNK_ROWS = 250_000
_TEXT = pa.large_string()
_SPECIAL = r'[",\r\n]'
_SPECIAL_BYTES = (ord('"'), ord(","), ord("\r"), ord("\n"))


def _quote_py(value: str) -> str:
    if any(ch in value for ch in '",\r\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


def header_line(columns: list[str]) -> bytes:
    if len(columns) == 1 and columns[0] == "":
        return b'""\n'
    return (",".join(_quote_py(c) for c in columns) + "\n").encode("utf-8")


def to_arrow(frame: pd.DataFrame) -> pa.Table:
    """The frame as an Arrow table of strings (zero-copy for pyarrow-backed string columns)."""
    cols: dict[str, pa.ChunkedArray] = {}
    for i in range(frame.shape[1]):
        s = frame.iloc[:, i]
        if not (isinstance(s.dtype, pd.StringDtype) and s.dtype.storage == "pyarrow"):
            s = s.astype(pd.StringDtype("pyarrow"))
        arr = pa.chunked_array(s.array.__arrow_array__())
        cols[f"c{i}"] = arr if arr.type in (pa.string(), _TEXT) else arr.cast(pa.string())
    return pa.table(cols) if cols else pa.table({})


def _used_bytes(chunk: pa.Array) -> np.ndarray:
    """The bytes the strings of ``chunk`` occupy (its slice of the data buffer, no copy)."""
    _validity, offsets, data = chunk.buffers()
    if data is None or data.size == 0 or len(chunk) == 0:
        return np.empty(0, dtype=np.uint8)
    width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
    offs = np.frombuffer(offsets, dtype=width, count=chunk.offset + len(chunk) + 1)
    return np.frombuffer(data, dtype=np.uint8)[offs[chunk.offset] : offs[-1]]


#: Bytes looked at per step by ``may_hold`` (one block, reused).
SCAN_BLOCK = 8 << 20


def may_hold(col: pa.ChunkedArray, codes: tuple[int, ...]) -> bool:
    """Cheap pre-check: does any string of ``col`` contain one of the bytes ``codes``?

    The bytes in use are copied block by block into one reused buffer and searched
    for each code (``bytearray.find``: memchr-fast, no fresh memory per block)."""
    needles = [bytes([code]) for code in codes]
    block: bytearray | None = None
    for chunk in col.chunks:
        raw = _used_bytes(chunk)
        for start in range(0, raw.size, SCAN_BLOCK):
            n = min(SCAN_BLOCK, raw.size - start)
            if block is None:
                block = bytearray(min(SCAN_BLOCK, raw.size))
            elif len(block) < n:
                block = bytearray(n)
            block[:n] = memoryview(raw[start : start + n])
            if any(block.find(needle, 0, n) >= 0 for needle in needles):
                return True
    return False


def _field(col: pa.ChunkedArray, single: bool, special: bool) -> pa.ChunkedArray:
    if special:
        needs = pc.match_substring_regex(col, _SPECIAL)
        quote, nothing = pa.scalar('"', _TEXT), pa.scalar("", _TEXT)
        escaped = pc.replace_substring(col, '"', '""')
        quoted = pc.binary_join_element_wise(quote, escaped, quote, nothing)
        col = pc.if_else(needs, quoted, col)
    if single:
        empty = pc.fill_null(pc.equal(pc.utf8_length(col), 0), True)
        return pc.if_else(empty, pa.scalar('""', _TEXT), col)
    return pc.fill_null(col, pa.scalar("", _TEXT))


def _body(table: pa.Table, special: list[bool]) -> pa.Buffer:
    """The CSV lines of ``table`` (no header) as one buffer."""
    n = table.num_rows
    single = table.num_columns == 1
    # Widened to 64-bit offsets one slice at a time: a slice's lines may pass 2 GB, and
    # casting the whole table up front would copy every string at once.
    fields = [table.column(i).cast(_TEXT) for i in range(table.num_columns)]
    # a plain field goes as it is (a missing one as "", by the join below)
    fields = [
        _field(f, single, special[i]) if special[i] or single else f for i, f in enumerate(fields)
    ]
    comma = pa.scalar(",", _TEXT)
    lines = (
        fields[0]
        if len(fields) == 1
        else pc.binary_join_element_wise(
            *fields, comma, null_handling="replace", null_replacement=""
        )
    )
    values = one_array(lines)
    joined = pc.binary_join(
        pa.LargeListArray.from_arrays(pa.array([0, n], pa.int64()), values),
        pa.scalar("\n", _TEXT),
    )[0]
    return joined.as_buffer()


#: Arrow's own CSV writer, for a table none of whose columns holds a comma, a quote or a
#: line break (``may_hold``): no field is quoted, a missing one is empty, each line ends
#: with "\n" - the bytes ``_body`` builds, written in one pass instead of two joins.
_PLAIN = pacsv.WriteOptions(
    include_header=False, batch_size=CHUNK_ROWS, quoting_style="none", null_string="", eol="\n"
)


def _plain_lines(table: pa.Table, writer: pacsv.CSVWriter) -> None:
    """The CSV lines of ``table`` (no header; each line ends with "\n"), no field quoted,
    written by ``writer`` (``_PLAIN``): for a table of two columns or more with no special
    byte in any (Arrow refuses a structural character unquoted, so a mistaken call fails,
    never writes bad bytes)."""
    writer.write_table(table)


class _Hashed:
    """A binary file that hashes what is written through it. Arrow's CSV writer writes
    its own line buffer here (``pa.PythonFile``): one buffer for every chunk of a table,
    no copy of the lines collected in memory, so a large release does not ask the
    system for fresh pages chunk after chunk."""

    closed = False

    def __init__(self, fh: BinaryIO, digest: hashlib._Hash) -> None:
        self._fh, self._digest = fh, digest

    def write(self, data: bytes | memoryview | pa.Buffer) -> int:
        self._digest.update(data)
        return self._fh.write(data)

    def writable(self) -> bool:
        return True

    def flush(self) -> None:
        """Nothing held here (the file flushes itself)."""

    def close(self) -> None:
        """The file is closed by its owner."""


def _write_lines(frame: pd.DataFrame, out: _Hashed, reporter: Reporter | None) -> None:
    """The CSV of ``frame`` written to ``out`` (header first), chunk by chunk."""
    out.write(header_line([str(c) for c in frame.columns]))
    n = len(frame)
    if n == 0 or frame.shape[1] == 0:
        if n and frame.shape[1] == 0:
            out.write(b"\n" * n)
        return
    table = to_arrow(frame)
    special = [may_hold(table.column(i), _SPECIAL_BYTES) for i in range(table.num_columns)]
    writer = None
    if table.num_columns > 1 and not any(special):
        writer = pacsv.CSVWriter(pa.PythonFile(out, mode="w"), table.schema, write_options=_PLAIN)
    try:
        for start in range(0, n, CHUNK_ROWS):
            if reporter is not None:
                reporter.step(start / n, "Writing")
            if writer is not None:
                _plain_lines(table.slice(start, CHUNK_ROWS), writer)
                continue
            out.write(_body(table.slice(start, CHUNK_ROWS), special))
            out.write(b"\n")
    finally:
        if writer is not None:
            writer.close()


def write_csv(frame: pd.DataFrame, path: Path, reporter: Reporter | None = None) -> str:
    """Write ``frame`` as CSV to ``path``; returns the file's SHA-256 (computed on the way)."""
    digest = hashlib.sha256()
    stage = f"Writing {path.name}"
    sub = None if reporter is None else _Named(reporter, stage)
    with open(path, "wb") as fh:
        _write_lines(frame, _Hashed(fh, digest), sub)
    if reporter is not None:
        reporter.step(1.0, stage)
    return digest.hexdigest()


class _Named(Reporter):
    """A reporter that shows one fixed stage label (the file being written)."""

    def __init__(self, parent: Reporter, stage: str) -> None:
        super().__init__(parent.progress, parent.cancel, parent.start, parent.end)
        self._stage = stage

    def step(self, fraction: float, stage: str) -> None:
        super().step(fraction, self._stage)
