"""Formula-injection neutralisation for exported cells (CSV and XLSX).

A spreadsheet program treats a cell that begins with ``=``, ``+``, ``-`` or ``@`` (and,
in some programs, a tab or carriage return) as a formula; a crafted value could then run
a command or leak data when the recipient opens the file. Such cells are prefixed with a
single quote ``'`` so they are shown as text.

Decision on numbers: a value that parses *entirely* as a decimal number (``-1.5``,
``+3``, ``-2e-3``) is not a formula in any spreadsheet program and is left unchanged,
so negative lab values and changes from baseline stay numbers. Anything else that starts
with one of those characters (``-``, ``--1``, ``-1+2``, ``=1``, ``@SUM(A1)``) is prefixed.
"""

from __future__ import annotations

import pandas as pd

FORMULA_START = r"[=+\-@\t\r]"
PLAIN_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
PREFIX = "'"


def neutralise_series(values: pd.Series) -> tuple[pd.Series, int]:
    """(values with formula-like cells prefixed by ``'``, how many were prefixed)."""
    text = values if isinstance(values.dtype, pd.StringDtype) else values.astype("string")
    risky = text.str.match(FORMULA_START, na=False)
    if not bool(risky.any()):
        return values, 0
    risky &= ~text.str.fullmatch(PLAIN_NUMBER, na=False)
    count = int(risky.sum())
    if count == 0:
        return values, 0
    return text.mask(risky, PREFIX + text), count


def neutralise_frame(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """A copy of ``frame`` safe to open in a spreadsheet, and the number of cells changed.

    Column names are neutralised too (a header is a cell like any other).
    """
    changed = 0
    out: dict[str, pd.Series] = {}
    for name in frame.columns:
        col, n = neutralise_series(frame[name])
        out[name] = col
        changed += n
    header, n_header = neutralise_series(pd.Series([str(c) for c in frame.columns], dtype="string"))
    changed += n_header
    result = pd.DataFrame(out, index=frame.index)
    result.columns = list(header)
    return result, changed
