"""Dates parsed once per extract (honouring each tag's stored format), and the earliest
date per person."""

from __future__ import annotations

import weakref

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.model import ColumnClass, ColumnTag, Extract, Role


def is_person_date(tag: ColumnTag) -> bool:
    """A date about the person: DATE class, or a birth/index-date role not tagged direct."""
    if tag.cls == ColumnClass.DATE:
        return True
    return tag.role in (Role.BIRTH_DATE, Role.INDEX_DATE) and tag.cls != ColumnClass.DIRECT


class DateCache:
    """Parses each date column once (core.io.dates), honouring a tag's stored format."""

    def __init__(self, extract: Extract) -> None:
        # held weakly: a cache shared for the extract's life (``facts.shared``) must not
        # keep its frames alive
        self._extract_ref = weakref.ref(extract)
        self._cache: dict[tuple[str, str], pd.Series] = {}
        self._years: dict[tuple[str, str], np.ndarray] = {}
        self.formats: dict[str, str] = {}  # "table.column" -> strptime format used

    def seed(self, table: str, column: str, fmt: str, parsed: pd.Series) -> None:
        """Dates already parsed with ``fmt`` (the load checks every date column): what
        ``get`` would return for a tag of ``column`` with that stored or inferred format."""
        self._cache[(table, column)] = parsed
        self.formats[f"{table}.{column}"] = fmt

    @property
    def _extract(self) -> Extract:
        extract = self._extract_ref()
        if extract is None:  # pragma: no cover - the caller holds the extract
            raise RuntimeError("the extract of these dates is gone")
        return extract

    def get(self, table: str, tag: ColumnTag) -> pd.Series:
        cached = self._cache.get((table, tag.name))
        if cached is not None:
            return cached
        from deid_desktop.core.io.dates import read_dates

        loaded = self._extract.table(table)
        values = loaded.frame[tag.name]
        fmt, parsed = read_dates(
            values, tag.date_format or None, file=loaded.path.name, column=tag.name
        )
        self._cache[(table, tag.name)] = parsed
        self.formats[f"{table}.{tag.name}"] = fmt
        return parsed

    def years(self, table: str, tag: ColumnTag) -> np.ndarray:
        """The year of each date of a column as float64 (NaN: missing), read once and
        shared by whoever asks (the pathway's years, its spans, the gate)."""
        found = self._years.get((table, tag.name))
        if found is None:
            stamps = self.get(table, tag).to_numpy(dtype="datetime64[ns]")
            found = pd.DatetimeIndex(stamps).year.to_numpy(dtype=np.float64, na_value=np.nan)
            found.flags.writeable = False
            self._years[(table, tag.name)] = found
        return found

    def latest(self, table: str, tag: ColumnTag) -> pd.Timestamp | None:
        """The latest date of a column (None: no date): from the parsed column when it
        is cached, else by parsing only its distinct values (a few thousand dates in a
        million rows), with the same format and the same errors."""
        cached = self._cache.get((table, tag.name))
        if cached is None:
            from deid_desktop.core.io.dates import read_dates

            loaded = self._extract.table(table)
            text = pa.array(loaded.frame[tag.name].astype("string[pyarrow]").array)
            distinct = pd.Series(pd.arrays.ArrowStringArray(pc.unique(text).cast(pa.string())))
            fmt, cached = read_dates(
                distinct, tag.date_format or None, file=loaded.path.name, column=tag.name
            )
            self.formats.setdefault(f"{table}.{tag.name}", fmt)
        found = cached.max()
        return None if pd.isna(found) else pd.Timestamp(found)


def earliest_per_person(dates: pd.Series, positions: np.ndarray, n: int) -> pd.Series:
    """Per person row 0..n-1, the earliest of the dates of its rows (``positions``: each
    row's person); NaT for a person with no dated row. A group-by minimum done with
    numpy: one pass, or none when each person has exactly its own row."""
    stamps = dates.to_numpy(dtype="datetime64[ns]")
    if len(positions) == n and np.array_equal(positions, np.arange(n)):
        return pd.Series(stamps.copy(), index=pd.RangeIndex(n))
    nat = np.iinfo(np.int64).min  # NaT's integer
    values = stamps.view(np.int64)
    latest = np.iinfo(np.int64).max
    earliest = np.full(n, latest, dtype=np.int64)
    present = values != nat
    np.minimum.at(earliest, positions[present], values[present])
    earliest[earliest == latest] = nat
    return pd.Series(earliest.view("datetime64[ns]"), index=pd.RangeIndex(n))
