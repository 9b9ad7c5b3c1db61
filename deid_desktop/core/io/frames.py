"""From parsed cells to the engine's frame: pyarrow-backed strings, missing = <NA>."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

TEXT = pd.StringDtype("pyarrow")


def arrow_to_frame(table: pa.Table) -> pd.DataFrame:
    """A frame of ``string[pyarrow]`` columns sharing the Arrow buffers (no copy)."""
    columns = {}
    for name, column in zip(table.column_names, table.columns, strict=True):
        if not pa.types.is_large_string(column.type):
            column = column.cast(pa.large_string())
        if column.num_chunks > 1:  # one contiguous array: every later Arrow pass reads it
            column = pa.chunked_array([column.combine_chunks()])  # as it is, never combined again
        columns[name] = pd.Series(TEXT.__from_arrow__(column), name=name, copy=False)
    frame = pd.DataFrame(columns, copy=False)
    if frame.shape[1] != len(table.column_names):  # pragma: no cover - names are unique
        raise ValueError("duplicate column names")
    return frame


def drop_trailing_empty_rows(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Remove rows with no value at all after the last row that has one.

    Spreadsheets and editors leave such rows at the end; empty rows in the middle are
    kept so line numbers stay true.
    """
    if frame.empty or frame.shape[1] == 0 or frame.iloc[-1].notna().any():
        return frame, 0
    has_value = frame.notna().any(axis=1).to_numpy()
    last = int(has_value.nonzero()[0][-1]) + 1 if has_value.any() else 0
    return frame.iloc[:last].reset_index(drop=True), len(frame) - last


def empty_rows_warning(count: int) -> str:
    noun = "row" if count == 1 else "rows"
    verb = "was" if count == 1 else "were"
    return f"{count} empty {noun} at the end of the file {verb} ignored."
