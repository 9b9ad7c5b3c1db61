"""Text helpers every layer above shares: the pyarrow string dtype, contiguous Arrow text,
a vectorised membership test, and the columns whose cells are known by integer codes."""

from __future__ import annotations

import weakref

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

STRING = pd.StringDtype("pyarrow")


def in_set(values: pd.Series | pd.Index | np.ndarray, allowed: object) -> np.ndarray:
    """Vectorised membership test on text (a pyarrow hash set); missing -> False.

    pandas' ``isin`` on pyarrow strings walks the candidate values in Python, which
    takes seconds at a million rows; this stays in C.
    """
    if isinstance(allowed, (set, frozenset)):
        allowed = sorted(allowed)
    value_set = arrow_text(allowed)  # type: ignore[arg-type]
    found = pc.is_in(arrow_text(values), value_set=value_set, skip_nulls=True)
    return found.to_numpy(zero_copy_only=False)


def arrow_text(values: pd.Series | pd.Index | np.ndarray | pa.Array) -> pa.Array:
    """Text values as one contiguous pyarrow large_string array (nulls kept)."""
    arr = (
        values
        if isinstance(values, pa.Array | pa.ChunkedArray)
        else pa.array(values, from_pandas=True)
    )
    return one_array(arr).cast(pa.large_string())


def one_array(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``arr`` as one Arrow array: a chunked array of one chunk is that chunk (no copy:
    Arrow's ``combine_chunks`` copies even a single chunk), of several, joined."""
    if not isinstance(arr, pa.ChunkedArray):
        return arr
    return arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()


# --------------------------------------------------------------------------- fast paths


def value_bytes(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(the bytes the values use, where each value starts in them, where it ends) of a
    string array; None for any other array."""
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return None
    _validity, offsets_buf, data_buf = arr.buffers()
    width = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(offsets_buf, dtype=width, count=arr.offset + len(arr) + 1)
    offsets = offsets[arr.offset :].astype(np.int64)
    lo = int(offsets[0])
    if data_buf is None or int(offsets[-1]) == lo:
        return np.empty(0, dtype=np.uint8), offsets[:-1] - lo, offsets[1:] - lo
    data = np.frombuffer(data_buf, dtype=np.uint8)[lo : int(offsets[-1])]
    return data, offsets[:-1] - lo, offsets[1:] - lo


def char_lengths(values: pa.Array) -> np.ndarray:
    """``pc.utf8_length(values)`` as int64 numpy, for a string array without nulls: text
    all ASCII (its bytes below 0x80) is one character a byte, read from the offsets."""
    plain = isinstance(values, pa.Array) and not values.null_count
    found = value_bytes(values) if plain else None
    if found is not None and (found[0].size == 0 or int(found[0].max()) < 0x80):
        return found[2] - found[1]
    return np.asarray(pc.utf8_length(values).to_numpy(zero_copy_only=False), dtype=np.int64)


def lower(values: pa.Array) -> pa.Array:
    """``pc.utf8_lower(values)``: the same array. Text all ASCII (its bytes, nulls' slots
    included, below 0x80) is lowered by the ASCII kernel, which maps A-Z as the Unicode
    one does and reads a million values in a fraction of its time."""
    found = value_bytes(values) if isinstance(values, pa.Array) else None
    if found is not None and (found[0].size == 0 or int(found[0].max()) < 0x80):
        return pc.ascii_lower(values)
    return pc.utf8_lower(values)


def _untrimmed(values: pa.Array, characters: str | None) -> bool:
    """Whether trimming whitespace (``characters``: None for Unicode's, or characters
    each an ASCII control or space or a non-ASCII one) leaves every value as it is:
    each value that holds a byte begins and ends with a printable ASCII byte (0x21 to
    0x7E), which is no such character nor part of one."""
    if characters is not None and any(0x20 < ord(c) < 0x7F for c in characters):
        return False
    found = value_bytes(values) if isinstance(values, pa.Array) else None
    if found is None:
        return False
    data, starts, ends = found
    filled = ends > starts
    if not filled.any():
        return True
    edges = np.concatenate((data[starts[filled]], data[ends[filled] - 1]))
    return bool(((edges > 0x20) & (edges < 0x7F)).all())


def trim_whitespace(values: pa.Array) -> pa.Array:
    """``pc.utf8_trim_whitespace(values)``: ``values`` itself when no value begins or
    ends with whitespace (told from the first and last byte of each, no copy)."""
    return values if _untrimmed(values, None) else pc.utf8_trim_whitespace(values)


def trim(values: pa.Array, characters: str) -> pa.Array:
    """``pc.utf8_trim(values, characters)``: ``values`` itself when no value can begin or
    end with one of ``characters`` (see ``_untrimmed``)."""
    return values if _untrimmed(values, characters) else pc.utf8_trim(values, characters)


# --------------------------------------------------------------------------- known cells

#: Text columns whose cells were made from integer codes into a few distinct values (a
#: year looked up among the years, a category taken through its dictionary): id of the
#: column's Arrow data (immutable; a frame holding the column shares it) -> (that data,
#: weakly; the codes, -1 missing; the distinct values). The gate counts such a column's
#: distinct cells from the codes, never hashing its text again.
_KNOWN: dict[int, tuple[weakref.ref[object], np.ndarray, pa.Array]] = {}


def arrow_data(values: pd.Series) -> object | None:
    """The Arrow data of an Arrow-backed column (None: another column): the same object
    for every frame and series sharing the column, gone when its data goes."""
    arrow = getattr(values.array, "__arrow_array__", None)
    return None if arrow is None else arrow()


def remember_codes(values: pd.Series, codes: np.ndarray, dictionary: pa.Array) -> pd.Series:
    """Note that each cell of ``values`` is ``dictionary[code]`` (-1: missing); returns
    ``values``. Forgotten when its data goes; a changed column is new data."""
    data = arrow_data(values)
    if data is None:  # not an Arrow array: not noted
        return values
    key = id(data)
    _KNOWN[key] = (weakref.ref(data), codes, dictionary)
    weakref.finalize(data, _KNOWN.pop, key, None)
    return values


def known_codes(values: pd.Series | pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """(codes, -1 missing; distinct values) of a column noted by ``remember_codes``."""
    data = values if isinstance(values, pa.ChunkedArray) else None
    if isinstance(values, pd.Series):
        data = arrow_data(values)
    found = _KNOWN.get(id(data)) if data is not None else None
    if found is None or found[0]() is not data:
        return None
    return found[1], found[2]


def known_cells(values: pd.Series) -> pd.Series | None:
    """``distinct_cells`` of a column noted by ``remember_codes`` (None: not noted):
    distinct non-missing cells in order of first appearance -> rows holding each, from
    the codes (a count per code, no hashing of text)."""
    found = known_codes(values)
    if found is None:
        return None
    codes, dictionary = found
    present = codes[codes >= 0] if (codes < 0).any() else codes
    counts = np.bincount(present, minlength=len(dictionary))
    return _in_first_order(values, present, counts, dictionary)


def _in_first_order(
    values: pd.Series, present: np.ndarray, counts: np.ndarray, dictionary: pa.Array
) -> pd.Series:
    """The counted codes as ``value_counts(sort=False)`` gives them: in order of first
    appearance, read from the shortest head of the rows that holds every code used."""
    used = int(np.count_nonzero(counts))
    head = 1024
    while True:
        first = pd.unique(present[:head])  # order of first appearance (integers hashed)
        if len(first) == used or head >= len(present):
            break
        head *= 8
    counts = counts[first]
    index = pd.Index(
        pd.arrays.ArrowStringArray(dictionary.take(pa.array(first)).cast(pa.large_string())),
        name=values.name,
    )
    return pd.Series(pd.array(counts, dtype="int64[pyarrow]"), index=index, name="count")
