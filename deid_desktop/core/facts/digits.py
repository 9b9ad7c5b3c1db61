"""Digits in text, in numpy over the UTF-8 bytes of an Arrow array: each value's digit
count, its digits alone, whether it is only digits. Shared by the gate's direct-value
checks (``verify.direct``, ``verify.own_values``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def _digit_counts(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a large_string array without nulls: its bytes, which of them are ASCII
    digits, and per value its digit count and its size in bytes (memory: one flag per
    byte)."""
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.empty(0, "u1")
    chunk = data[offsets[0] : offsets[-1]]
    flags = np.zeros(len(chunk) + 1, dtype=bool)  # one more: every start indexes, even a last ""
    digit = flags[:-1]
    np.less(chunk - np.uint8(48), 10, out=digit)  # bytes below '0' wrap round to >= 10
    starts = offsets[:-1] - offsets[0]
    size = np.diff(offsets)
    # Summed as bytes (a wider sum would first copy every flag to the wider type): exact
    # up to 255 bytes per value; the rare longer values are counted by Arrow.
    counts = np.add.reduceat(flags.view(np.uint8), starts, dtype=np.uint8).astype(np.int64)
    counts[size == 0] = 0  # reduceat gives the next byte's flag for an empty value
    long = np.flatnonzero(size > 255)
    if len(long):
        only = pc.replace_substring_regex(arr.take(pa.array(long)), r"\D", "")
        counts[long] = pc.binary_length(only).to_numpy(zero_copy_only=False)
    return chunk, digit, counts, size


def only_digits(arr: pa.Array) -> pa.Array:
    """Each value with every character other than 0-9 removed (RE2's ``\\D`` -> "";
    a UTF-8 byte of another character is never an ASCII digit), with numpy."""
    if arr.null_count or len(arr) == 0:
        return pc.replace_substring_regex(arr, r"\D", "")
    chunk, digit, counts, _size = _digit_counts(arr)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    return pa.LargeStringArray.from_buffers(
        len(arr), pa.py_buffer(offsets), pa.py_buffer(chunk[digit])
    )


def digits_and_counts(arr: pa.Array) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """``only_digits(arr)``, each value's digit count and ``all_digits(arr)``, from one
    read of the bytes (a large_string array without nulls; else each as its own)."""
    if arr.null_count or len(arr) == 0:
        digits = only_digits(arr)
        counts = pc.utf8_length(digits).to_numpy(zero_copy_only=False).astype(np.int64)
        return digits, counts, all_digits(arr)
    chunk, digit, counts, size = _digit_counts(arr)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    digits = pa.LargeStringArray.from_buffers(
        len(arr), pa.py_buffer(offsets), pa.py_buffer(chunk[digit])
    )
    return digits, counts, (size > 0) & (counts == size)


def all_digits(arr: pa.Array) -> np.ndarray:
    """Per value: one or more characters, all 0-9 (RE2's ``^\\d+$``), with numpy."""
    if arr.null_count or len(arr) == 0:
        return pc.match_substring_regex(arr, r"^\d+$").to_numpy(zero_copy_only=False)
    _chunk, _digit, counts, size = _digit_counts(arr)
    return (size > 0) & (counts == size)


def five_digit_values(arr: pa.Array | pa.ChunkedArray) -> bool:
    """Whether every non-missing value is exactly five ASCII digits (a plain ZIP code),
    told from the bytes in numpy: what the ZIP regexes would each find in a pass of
    their own. False when it is not so, or not text."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return False
    if arr.null_count:
        arr = arr.drop_null()
    if len(arr) == 0:
        return True
    bufs = arr.buffers()
    width = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(bufs[1], dtype=width)[arr.offset : arr.offset + len(arr) + 1]
    if int(offsets[-1] - offsets[0]) != 5 * len(arr) or not (np.diff(offsets) == 5).all():
        return False
    data = np.frombuffer(bufs[2], dtype=np.uint8)[int(offsets[0]) : int(offsets[-1])]
    return bool((data - np.uint8(48) < 10).all())  # bytes below '0' wrap round
