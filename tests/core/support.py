"""Small builders the core tests share: text frames and loaded tables made in memory."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

from deid_desktop.core.model import ColumnClass, LoadedTable, LoadReport

D, Q, DT, FT, CL = (
    ColumnClass.DIRECT,
    ColumnClass.QUASI,
    ColumnClass.DATE,
    ColumnClass.FREE_TEXT,
    ColumnClass.CLINICAL,
)
TEXT = pd.StringDtype("pyarrow")


def sha(path: Path) -> str:
    """Hex SHA-256 of a file's bytes (to compare outputs byte for byte)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def text_frame(columns: dict[str, list[str | None]]) -> pd.DataFrame:
    """A frame of text columns (pyarrow strings), like a loaded file."""
    return pd.DataFrame({k: pd.array(v, dtype=TEXT) for k, v in columns.items()})


def loaded(name: str, frame: pd.DataFrame) -> LoadedTable:
    """``frame`` as the loader would return table ``name`` (read from ``name.csv``)."""
    return LoadedTable(
        name=name,
        path=Path(f"{name}.csv"),
        sha256="0" * 64,
        frame=frame,
        report=LoadReport(f"{name}.csv", len(frame), len(frame.columns)),
    )
