"""Formula-injection neutralisation for exported cells (CSV and XLSX).

A spreadsheet program treats a cell that begins with ``=``, ``+``, ``-`` or ``@`` (and,
in some programs, a tab or carriage return) as a formula; a crafted value could then run
a command or leak data when the recipient opens the file. Such cells are prefixed with a
single quote ``'`` so they are shown as text.

Decision on numbers: a value that parses *entirely* as a decimal number (``-1.5``,
``+3``, ``-2e-3``) is not a formula in any spreadsheet program and is left unchanged,
so negative lab values and changes from baseline stay numbers. Anything else that starts
with one of those characters (``-``, ``--1``, ``-1+2``, ``=1``, ``@SUM(A1)``) is prefixed.

Speed: the first byte of every cell is read straight from the Arrow buffers (all six
trigger characters are ASCII), so only the few cells that start with one are examined
further; a million-row column costs milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import pandas as pd
import pyarrow as pa

from deid_desktop.core.export.csvout import may_hold

FORMULA_CHARS = "=+-@\t\r"
PLAIN_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
PREFIX = "'"
TEXT = pd.StringDtype("pyarrow")
_FORMULA_CODES = tuple(ord(c) for c in FORMULA_CHARS)
_FORMULA_LOOKUP = np.zeros(256, dtype=bool)  # first byte -> may start a formula
_FORMULA_LOOKUP[list(_FORMULA_CODES)] = True


def _first_bytes(values: pd.Series) -> np.ndarray:
    """The first byte of every cell (0 for missing and empty cells)."""
    col = pa.chunked_array(values.array.__arrow_array__())
    parts: list[np.ndarray] = []
    for chunk in col.chunks:
        n = len(chunk)
        first = np.zeros(n, dtype=np.uint8)
        _validity, offsets, data = chunk.buffers()
        if n and data is not None and data.size:
            width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
            offs = np.frombuffer(offsets, dtype=width, count=chunk.offset + n + 1)[chunk.offset :]
            starts = offs[:-1]
            filled = offs[1:] > starts
            if chunk.null_count:
                filled &= chunk.is_valid().to_numpy(zero_copy_only=False)
            first[filled] = np.frombuffer(data, dtype=np.uint8)[starts[filled]]
        parts.append(first)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint8)


def neutralise_series(values: pd.Series) -> tuple[pd.Series, int]:
    """(values with formula-like cells prefixed by ``'``, how many were prefixed)."""
    text = values if values.dtype == TEXT else values.astype(TEXT)
    if not may_hold(pa.chunked_array(text.array.__arrow_array__()), _FORMULA_CODES):
        return values, 0  # no cell holds such a byte at all, let alone first
    starts = _FORMULA_LOOKUP[_first_bytes(text)]
    if not starts.any():
        return values, 0
    where = np.flatnonzero(starts)
    candidates = text.iloc[where]
    risky = ~candidates.str.fullmatch(PLAIN_NUMBER, na=False).to_numpy(dtype=bool)
    where = where[risky]
    if where.size == 0:
        return values, 0
    out = text.copy()
    out.iloc[where] = PREFIX + text.iloc[where]
    return out, int(where.size)


def neutralise_frame(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """A copy of ``frame`` safe to open in a spreadsheet, and the number of cells changed.

    Column names are neutralised too (a header is a cell like any other).
    """
    if frame.columns.has_duplicates:
        raise ValueError("a released table has duplicate column names")
    changed = 0
    out: dict[str, pd.Series] = {}
    for name in frame.columns:
        col, n = neutralise_series(frame[name])
        out[name] = col
        changed += n
    header, n_header = neutralise_series(pd.Series([str(c) for c in frame.columns], dtype=TEXT))
    changed += n_header
    result = pd.DataFrame(out, index=frame.index)
    result.columns = list(header)
    return result, changed


def formula_like(text: str) -> bool:
    """True when ``text`` would be read as a formula at the start of a cell."""
    return bool(text) and text[0] in FORMULA_CHARS and re.fullmatch(PLAIN_NUMBER, text) is None


def neutralise_names(text: str, names: Iterable[str]) -> str:
    """``text`` (a README or record) with each formula-like name in ``names`` (column
    and table names, which the user's file chose) prefixed by ``'`` wherever it stands
    at the start of a word, as the released tables' headers are."""
    risky = sorted({n for n in names if formula_like(n)}, key=len, reverse=True)
    if not risky:
        return text
    pattern = re.compile(
        r"(?<![\w'])(?:" + "|".join(re.escape(n) for n in risky) + r")", re.MULTILINE
    )
    return pattern.sub(lambda m: PREFIX + m.group(0), text)
