"""Text helpers every layer above shares: the pyarrow string dtype, contiguous Arrow text
and a vectorised membership test."""

from __future__ import annotations

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
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    return arr.cast(pa.large_string())
