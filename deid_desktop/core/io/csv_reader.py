"""CSV reader: encoding and delimiter detection, every column as text, clear errors.

The fast path is pyarrow's streaming CSV reader (multi-threaded, block by block, so
progress and cancel are honoured between blocks). Only when a problem is found is the
file read again, single-threaded, to name the first bad line.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv

from deid_desktop.core.errors import InputError
from deid_desktop.core.io.frames import (
    arrow_to_frame,
    drop_trailing_empty_rows,
    empty_rows_warning,
)
from deid_desktop.core.io.hashing import changed_file_error, sha256_bytes
from deid_desktop.core.io.headers import check_header, header_warnings
from deid_desktop.core.io.sniff import ENCODING_LABELS, Layout, count_byte, decode, sniff_layout
from deid_desktop.core.model import LoadedTable, LoadReport
from deid_desktop.core.progress import Reporter

READ_CHUNK = 8 << 20
BLOCK_SIZE = 1 << 20


def read_bytes(path: Path, reporter: Reporter) -> pa.Buffer:
    """The whole file, read-only, in chunks (progress and cancel between chunks), straight
    into memory Arrow owns (``sniff.owned_buffer``: no second copy for the parser)."""
    size = path.stat().st_size
    data = pa.allocate_buffer(size, resizable=True)
    view = memoryview(data).cast("B") if size else memoryview(b"")
    done = 0
    with open(path, "rb") as handle:
        while done < size:
            n = handle.readinto(view[done : done + READ_CHUNK])
            if not n:
                break
            done += n
            reporter.step(done / size, f"Reading {path.name}")
        view.release()
        extra = handle.read() if done == size else b""
    if done < size:  # the file shrank while being read
        data.resize(done)
    elif extra:  # it grew
        data.resize(size + len(extra))
        memoryview(data).cast("B")[size:] = extra
    return data


@dataclass
class _BadRows:
    """Counts rows whose field count differs from the header's (never keeps their text)."""

    count: int = 0
    first_line: int | None = None
    expected: int = 0
    found: int = 0

    def __call__(self, row: pacsv.InvalidRow) -> str:
        self.count += 1
        if self.count == 1:
            self.expected, self.found = row.expected_columns, row.actual_columns
        if row.number is not None and self.first_line is None:
            self.first_line = row.number
        return "skip"


def _options(
    layout: Layout, bad: _BadRows | None, *, threads: bool, block: int = BLOCK_SIZE
) -> tuple[pacsv.ReadOptions, pacsv.ParseOptions, pacsv.ConvertOptions]:
    read = pacsv.ReadOptions(use_threads=threads, block_size=block)
    parse = pacsv.ParseOptions(
        delimiter=layout.delimiter,
        quote_char='"',
        double_quote=True,
        escape_char=False,
        newlines_in_values=True,
        ignore_empty_lines=False,
        invalid_row_handler=bad,
    )
    convert = pacsv.ConvertOptions(
        column_types={name: pa.large_string() for name in layout.header},
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
        null_values=[""],
        check_utf8=False,  # validated once, up front
    )
    return read, parse, convert


def _parse(buf: pa.Buffer, layout: Layout, reporter: Reporter, *, file: str) -> pa.Table:
    try:
        return _parse_blocks(buf, layout, reporter, file=file, block=BLOCK_SIZE)
    except _RowTooLong:
        # a record longer than a block (a multi-megabyte note): one block for the file
        return _parse_blocks(buf, layout, reporter, file=file, block=buf.size + 1)


class _RowTooLong(Exception):
    """pyarrow met a record longer than its block size."""


def _parse_blocks(
    buf: pa.Buffer, layout: Layout, reporter: Reporter, *, file: str, block: int
) -> pa.Table:
    """The multi-threaded read. It holds no Python object (no row handler, an Arrow-owned
    buffer): Arrow's worker threads may finish and free the reader after this returns,
    even while the interpreter exits, and freeing a Python object there needs the GIL -
    a thread that asks for it during shutdown is killed mid-C++, which aborts the whole
    process (SIGABRT, "terminate called without an active exception")."""
    read, parse, convert = _options(layout, None, threads=True, block=block)
    batches: list[pa.RecordBatch] = []
    expected_rows = max(1.0, buf.size / layout.bytes_per_row)
    reader = None
    try:
        reader = pacsv.open_csv(
            pa.BufferReader(buf), read_options=read, parse_options=parse, convert_options=convert
        )
        rows = 0
        for batch in reader:
            batches.append(batch)
            rows += batch.num_rows
            reporter.step(min(rows / expected_rows, 0.99), f"Parsing {file}")
        schema = reader.schema
    except pa.ArrowInvalid as exc:
        if "straddl" in str(exc) and block <= buf.size:
            raise _RowTooLong from None
        # a ragged row or a broken quote; pyarrow's message may quote the row: never
        # pass it on, re-read single-threaded to name the line instead.
        raise _ragged_error(buf, layout, file=file) from None
    finally:
        if reader is not None:
            reader.close()
    if list(schema.names) != list(layout.header):
        raise _unreadable(buf, layout, file=file)
    table = pa.Table.from_batches(batches, schema=schema)
    if count_byte(buf, b'"') % 2:
        _check_quotes(buf, table, layout, file=file)
    return table


def _swallowed_tail(buf: pa.Buffer, table: pa.Table) -> bool | None:
    """Did the last value open a quote that never closed (so it runs to the end of the
    file)? ``None`` when the quick test cannot tell."""
    if not table.num_rows or not table.num_columns:
        return False
    last = table.column(table.num_columns - 1)[table.num_rows - 1].as_py()
    if not last:
        return None
    if '"' in last:
        return None  # escaped quotes: the raw bytes differ from the value
    raw = last.encode("utf-8")
    if len(raw) + 1 > buf.size:
        return None
    return buf.slice(buf.size - len(raw) - 1).to_pybytes() == b'"' + raw


def _check_quotes(buf: pa.Buffer, table: pa.Table, layout: Layout, *, file: str) -> None:
    """An odd number of quote marks: either harmless (5'10" inside a field) or a quoted
    field that never closes and swallows the rest of the file (an unclosed quote in an
    earlier column shows as a row with too few fields instead)."""
    swallowed = _swallowed_tail(buf, table)
    if swallowed is False:
        return
    if swallowed:
        raise _unclosed(file, table.num_rows + 1)
    text = buf.to_pybytes().decode("utf-8", errors="replace")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=layout.delimiter, strict=True)
    records = 0
    try:
        for _ in reader:
            records += 1
    except csv.Error:
        raise _unclosed(file, records + 1) from None  # the cause may quote data


def _unclosed(file: str, line: int) -> InputError:
    return InputError(
        "A quoted field is not closed properly, so the rest of the file would be read as one value",
        file=file,
        row=line,
        hint="Check the quotes on that line in a text editor, or export the extract again.",
    )


def _ragged_error(buf: pa.Buffer, layout: Layout, *, file: str) -> InputError:
    """Re-read single-threaded so pyarrow numbers the rows, and name the first bad one."""
    bad = _BadRows()
    read, parse, convert = _options(layout, bad, threads=False)
    try:
        pacsv.read_csv(
            pa.BufferReader(buf), read_options=read, parse_options=parse, convert_options=convert
        )
    except pa.ArrowInvalid:
        return _unreadable(buf, layout, file=file)
    if not bad.count:
        return _unreadable(buf, layout, file=file)
    line = bad.first_line
    if line is None:  # pragma: no cover - pyarrow numbers rows when single-threaded
        line, _ = _locate_with_python(buf, layout)
    noun = "row has" if bad.count == 1 else "rows have"
    return InputError(
        f"{bad.count} {noun} a different number of fields than the header "
        f"({bad.expected} expected); the first has {bad.found}",
        file=file,
        row=line,
        hint="A field may hold an unquoted delimiter or a stray quote; fix that line "
        "(and the others) in the source, or export the extract again.",
    )


def _locate_with_python(buf: pa.Buffer, layout: Layout) -> tuple[int | None, int]:
    """First record (1-based, header = 1) whose field count is off, and how many are."""
    text = buf.to_pybytes().decode("utf-8", errors="replace")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=layout.delimiter)
    width, first, count = len(layout.header), None, 0
    try:
        for number, record in enumerate(reader, start=1):
            if record and len(record) != width:
                count += 1
                first = first or number
    except csv.Error:
        return reader.line_num, count + 1
    return first, count


def _unreadable(buf: pa.Buffer, layout: Layout, *, file: str) -> InputError:
    line, _ = _locate_with_python(buf, layout)
    return InputError(
        "The file could not be read as CSV; a quote that is opened and never closed is "
        "the usual cause",
        file=file,
        row=line,
        hint="Check the quotes around that line in a text editor, or export the extract again.",
    )


def read_csv_table(
    path: Path,
    *,
    name: str | None = None,
    expected_sha256: str | None = None,
    reporter: Reporter | None = None,
) -> LoadedTable:
    """Read a delimited text file; every column as text, only empty cells missing."""
    reporter = reporter or Reporter()
    file = path.name
    raw = read_bytes(path, reporter.sub(0.0, 0.25))
    digest = sha256_bytes(raw)
    if expected_sha256 is not None and digest != expected_sha256:
        raise changed_file_error(file)
    reporter.step(0.3, f"Checking {file}")
    decoded = decode(raw, file=file)
    del raw
    layout = sniff_layout(decoded.data, file=file)
    check_header(layout.header, file=file)
    table = _parse(decoded.data, layout, reporter.sub(0.3, 0.95), file=file)
    frame = arrow_to_frame(table)
    del table
    frame, trailing = drop_trailing_empty_rows(frame)
    warnings = [*decoded.warnings, *header_warnings(layout.header)]
    if trailing:
        warnings.append(empty_rows_warning(trailing))
    if frame.empty:
        warnings.append("The file has a header but no data rows.")
    reporter.step(1.0, f"Read {file}")
    report = LoadReport(
        file=file,
        rows=len(frame),
        columns=frame.shape[1],
        encoding=ENCODING_LABELS[decoded.encoding],
        delimiter=layout.delimiter,
        warnings=tuple(warnings),
    )
    return LoadedTable(name=name or path.stem, path=path, sha256=digest, frame=frame, report=report)
