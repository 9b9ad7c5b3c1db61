"""Text-level detection for CSV files: encoding, NUL bytes, delimiter and header.

Works on the raw bytes. Everything is turned into UTF-8 bytes (a zero-copy view for UTF-8
files) so the parser downstream sees one encoding. Error messages name the file and line,
never the bytes found there.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from deid_desktop.core.errors import InputError

DELIMITERS = (",", ";", "\t", "|")
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
SAMPLE_BYTES = 256 * 1024
SAMPLE_RECORDS = 200

UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")

#: How each encoding is named to the user.
ENCODING_LABELS = {
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8 with BOM",
    "utf-16": "UTF-16",
    "cp1252": "Windows-1252",
    "latin-1": "Latin-1 (ISO-8859-1)",
}

SAVE_AS_UTF8 = "Open it in a spreadsheet or text editor and save it as 'CSV UTF-8'."


@dataclass(frozen=True)
class DecodedText:
    """The file's content as UTF-8 bytes, and the encoding it was read with."""

    data: pa.Buffer
    encoding: str  # a key of ENCODING_LABELS
    warnings: tuple[str, ...] = ()


def line_of(data: bytes | bytearray | memoryview | pa.Buffer, pos: int) -> int:
    """1-based physical line number of byte offset ``pos``."""
    view = np.frombuffer(data, dtype=np.uint8, count=pos)
    return int(np.count_nonzero(view == 0x0A)) + 1


def _is_utf8(buf: pa.Buffer) -> bool:
    offsets = pa.py_buffer(np.array([0, buf.size], dtype=np.int64).tobytes())
    arr = pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, buf])
    try:
        arr.cast(pa.large_string())
    except pa.ArrowInvalid:
        return False
    return True


def decode(raw: bytes | bytearray | pa.Buffer, *, file: str) -> DecodedText:
    """Detect the encoding (BOM, UTF-8, else Windows-1252, Latin-1 last) and check for NULs.
    An Arrow buffer (``csv_reader.read_bytes``) is used as it is, with no copy."""
    size = raw.size if isinstance(raw, pa.Buffer) else len(raw)
    head = bytes(memoryview(raw)[:4])
    if size <= SAMPLE_BYTES and not bytes(raw).strip(b" \t\r\n" + UTF8_BOM):
        raise InputError(
            "The file is empty", file=file, hint="Choose the file that holds the extract."
        )
    if head.startswith(UTF16_BOMS):
        try:
            text = bytes(raw).decode("utf-16")
        except UnicodeDecodeError:
            raise InputError(
                "The file starts as UTF-16 text but has bytes that are not UTF-16",
                file=file,
                hint=SAVE_AS_UTF8,
            ) from None  # the cause may quote data
        return _checked(owned_buffer(text.encode("utf-8")), "utf-16", file=file)
    buf = raw if isinstance(raw, pa.Buffer) else owned_buffer(raw)
    if head.startswith(UTF8_BOM):
        body = buf.slice(len(UTF8_BOM))
        if not _is_utf8(body):
            raise _not_utf8(body, file=file, why="starts with a UTF-8 marker (BOM)")
        return _checked(body, "utf-8-sig", file=file)
    _reject_nul(buf, file=file)
    if _is_utf8(buf):
        return DecodedText(buf, "utf-8")
    first_bad = _first_invalid_utf8(buf)
    if np.any(np.frombuffer(buf, dtype=np.uint8, count=first_bad) >= 0x80):
        # Valid UTF-8 accents before the first invalid byte: a file pasted together
        # from two encodings. Reading it as Windows-1252 would garble the UTF-8 part.
        raise _not_utf8(buf, file=file, why="holds UTF-8 text")
    for encoding in ("cp1252", "latin-1"):
        try:
            text = bytes(buf).decode(encoding)
        except UnicodeDecodeError:
            continue
        label = ENCODING_LABELS[encoding]
        warning = (
            f"Read as {label} text (not UTF-8); accented letters were converted. "
            "If any look wrong, save the file as 'CSV UTF-8' and load it again."
        )
        return DecodedText(owned_buffer(text.encode("utf-8")), encoding, (warning,))
    raise AssertionError("latin-1 decodes every byte")  # pragma: no cover


def owned_buffer(data: bytes | bytearray | memoryview) -> pa.Buffer:
    """A copy of ``data`` in memory Arrow owns.

    ``pa.py_buffer`` keeps a Python object alive from C++: when one of Arrow's reader
    threads drops the last slice of such a buffer it must take the GIL to release it,
    and a thread doing so while the interpreter shuts down is killed mid-C++ ("terminate
    called without an active exception", SIGABRT). Arrow-owned memory needs no GIL.
    """
    src = np.frombuffer(data, dtype=np.uint8)
    out = pa.allocate_buffer(src.size)
    if src.size:
        np.frombuffer(out, dtype=np.uint8)[:] = src
    return out


def _checked(buf: pa.Buffer, encoding: str, *, file: str) -> DecodedText:
    _reject_nul(buf, file=file)
    return DecodedText(buf, encoding)


def _reject_nul(buf: pa.Buffer, *, file: str) -> None:
    pos = _find_nul(buf)
    if pos >= 0:
        raise InputError(
            "The file holds NUL bytes, so it is not plain text (it may be a binary file, "
            "UTF-16 text without a marker, or damaged)",
            file=file,
            row=line_of(buf, pos),
            hint="Export the extract again as CSV (UTF-8).",
        )


#: Bytes compared per step by ``_equal_blocks`` (its one flag buffer stays in cache).
_FLAG_BLOCK = 1 << 20


def _equal_blocks(buf: pa.Buffer, byte: int) -> Iterator[tuple[int, np.ndarray]]:
    """(offset, flags) over ``buf``: which bytes of each block equal ``byte``, compared
    in numpy straight from the buffer into one reused flag array (no copy of the file,
    no fresh memory per block)."""
    data = np.frombuffer(buf, dtype=np.uint8) if buf.size else np.empty(0, dtype=np.uint8)
    flags = np.empty(min(_FLAG_BLOCK, data.size), dtype=bool)
    for start in range(0, data.size, _FLAG_BLOCK):
        block = data[start : start + _FLAG_BLOCK]
        here = flags[: block.size]
        np.equal(block, byte, out=here)
        yield start, here


def _find_nul(buf: pa.Buffer) -> int:
    """Offset of the first NUL byte, scanning in blocks (no copy of the whole file)."""
    for start, flags in _equal_blocks(buf, 0):
        if flags.any():
            return start + int(flags.argmax())
    return -1


def count_byte(buf: pa.Buffer, byte: bytes) -> int:
    """How many times ``byte`` (one byte) occurs in ``buf``, scanning in blocks."""
    if len(byte) != 1:
        raise ValueError("count_byte counts one byte")
    return sum(int(np.count_nonzero(flags)) for _, flags in _equal_blocks(buf, byte[0]))


def _first_invalid_utf8(buf: pa.Buffer) -> int:
    try:
        str(memoryview(buf), "utf-8")  # no copy of the buffer
    except UnicodeDecodeError as exc:
        return exc.start
    return buf.size  # pragma: no cover - only called on invalid UTF-8


def _not_utf8(buf: pa.Buffer, *, file: str, why: str) -> InputError:
    pos = _first_invalid_utf8(buf)
    return InputError(
        f"The file {why} but also bytes that are not valid UTF-8 (mixed encodings?)",
        file=file,
        row=line_of(buf, pos),
        hint=SAVE_AS_UTF8,
    )


@dataclass(frozen=True)
class Layout:
    """The delimiter and the header found at the start of the file."""

    delimiter: str
    header: tuple[str, ...]
    bytes_per_row: float = 100.0  # from the sample; for progress estimates


def _sample(buf: pa.Buffer) -> tuple[str, bool]:
    """Decode the first ``SAMPLE_BYTES`` (cut at a line end); ``True`` if that is all."""
    whole = buf.size <= SAMPLE_BYTES
    chunk = bytes(buf.slice(0, min(buf.size, SAMPLE_BYTES)))
    if not whole:
        cut = chunk.rfind(b"\n")
        chunk = chunk[: cut + 1] if cut > 0 else chunk
    return chunk.decode("utf-8", errors="replace"), whole


def _records(sample: str, delimiter: str, whole: bool) -> list[list[str]]:
    reader = csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter, strict=False)
    records: list[list[str]] = []
    try:
        for record in reader:
            records.append(record)
            if len(records) > SAMPLE_RECORDS:
                break
    except csv.Error:
        pass
    if not whole and len(records) <= SAMPLE_RECORDS and len(records) > 1:
        records.pop()  # the last record of a cut sample may be incomplete
    return records


def sniff_layout(buf: pa.Buffer, *, file: str) -> Layout:
    """Choose the delimiter among , ; tab | by field counts (quotes respected).

    A delimiter that splits the header wins over one that does not; then the share of
    sampled rows with as many fields as the header, then more columns, then the order
    above. A one-column file gets the delimiter that splits none of its rows.
    """
    sample, whole = _sample(buf)
    best: tuple[bool, float, int, int] | None = None
    chosen = ","
    parsed: dict[str, list[list[str]]] = {}
    for rank, delimiter in enumerate(DELIMITERS):
        records = [r for r in _records(sample, delimiter, whole) if r]
        parsed[delimiter] = records
        if not records:
            continue
        width = len(records[0])
        rest = records[1:]
        share = sum(len(r) == width for r in rest) / len(rest) if rest else 1.0
        score = (width >= 2, share, width, -rank)
        if best is None or score > best:
            best, chosen = score, delimiter
    records = parsed[chosen]
    if not records:
        raise InputError("The file has no header line", file=file, hint=SAVE_AS_UTF8)
    header = tuple(records[0])
    per_row = len(sample.encode("utf-8")) / max(1, len(records))
    return Layout(chosen, header, bytes_per_row=per_row)
