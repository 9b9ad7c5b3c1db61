"""Pure functions that raise k: generalize first (age bands, drop a column, dates to
year), suppress last (rows in classes below k, previewed before the user commits).

Each returns a new frame (the input is never changed) and says what it did in plain
words, without any value from the data.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from deid_desktop.core.errors import InputError, UsageError
from deid_desktop.core.risk.classes import class_sizes, combine, factorize_column

_TOP_CODED = re.compile(r"^\s*(\d+)\s*\+\s*$")  # "90+"


@dataclass(frozen=True)
class GeneralizationStep:
    """What one generalization did, for the screen, the README and the export record."""

    action: str  # "age_bands" | "drop_column" | "to_year" | "suppress_below_k"
    column: str
    description: str
    rows_removed: int = 0


@dataclass(frozen=True)
class SuppressionPreview:
    """What ``suppress_below_k`` would remove, shown before the user commits."""

    rows: int
    rows_removed: int
    classes_removed: int
    share: float  # rows_removed / rows (0.0 for an empty frame)
    k_target: int


def _check_breaks(breaks: Sequence[int]) -> tuple[int, ...]:
    edges = tuple(int(b) for b in breaks)
    if not edges:
        raise UsageError(
            "Age bands need at least one break.", hint="For example 0,18,30,45,65,75,90."
        )
    if any(b < 0 for b in edges) or any(b >= c for b, c in itertools.pairwise(edges)):
        raise UsageError(
            "Age band breaks must be whole numbers, 0 or more, in increasing order.",
            hint="For example 0,18,30,45,65,75,90.",
        )
    return edges


def age_band_labels(breaks: Sequence[int]) -> tuple[str, ...]:
    """Labels of the bands: "18-29" for [18, 30), and "90+" for the last lower edge."""
    edges = _check_breaks(breaks)
    labels = [f"{lo}-{hi - 1}" for lo, hi in itertools.pairwise(edges)]
    labels.append(f"{edges[-1]}+")
    return tuple(labels)


def apply_age_bands(
    series: pd.Series, breaks: Sequence[int], *, column: str | None = None
) -> pd.Series:
    """Ages as band labels. ``breaks`` are the bands' lower edges; the last band is open
    ("90+"). A top-coded value such as "90+" stays in the open band, so no break may sit
    above its edge. Missing stays missing; an age that is not a number is an error."""
    edges = _check_breaks(breaks)
    labels = np.array([*age_band_labels(edges), f"<{edges[0]}"], dtype=object)
    name = column or str(series.name)
    text = series.astype("string").str.strip()
    missing = text.isna() | (text == "")
    top = text.str.extract(_TOP_CODED, expand=False)
    is_top = top.notna().to_numpy(dtype=bool)
    numbers = pd.to_numeric(text.where(~top.notna(), top), errors="coerce")
    bad = (~missing.to_numpy(dtype=bool)) & numbers.isna().to_numpy(dtype=bool)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{int(bad.sum())} age value(s) are not numbers, so they cannot be banded",
            column=name,
            row=first + 2,
            hint="Correct the age column, or tag it differently.",
        )
    if is_top.any():
        lowest_top = float(numbers[is_top].min())
        if edges[-1] > lowest_top:
            raise UsageError(
                f"An age band break above {int(lowest_top)} would split the top-coded ages "
                f"of column '{name}'.",
                hint=f"Make the last break {int(lowest_top)} or lower.",
            )
    values = numbers.to_numpy(dtype=float, na_value=np.nan)
    idx = np.searchsorted(np.asarray(edges, dtype=float), np.floor(values), side="right") - 1
    idx = np.where(idx < 0, len(edges), idx)  # below the first edge
    out = pd.Series(labels[np.where(np.isnan(values), 0, idx)], index=series.index, dtype="string")
    out[np.isnan(values)] = pd.NA
    return out.rename(series.name)


def band_ages(
    frame: pd.DataFrame, column: str, breaks: Sequence[int]
) -> tuple[pd.DataFrame, GeneralizationStep]:
    """A copy of ``frame`` with ``column`` in age bands."""
    _require(frame, column)
    out = frame.copy()
    out[column] = apply_age_bands(frame[column], breaks, column=column)
    labels = ", ".join(age_band_labels(breaks))
    return out, GeneralizationStep(
        "age_bands", column, f"Ages in '{column}' grouped into bands {labels}."
    )


def drop_column(frame: pd.DataFrame, column: str) -> tuple[pd.DataFrame, GeneralizationStep]:
    """A copy of ``frame`` without ``column`` (e.g. ZIP3 -> none)."""
    _require(frame, column)
    return frame.drop(columns=[column]), GeneralizationStep(
        "drop_column", column, f"Column '{column}' removed from the release."
    )


def to_year(frame: pd.DataFrame, column: str, fmt: str) -> tuple[pd.DataFrame, GeneralizationStep]:
    """A copy of ``frame`` with the dates of ``column`` (strptime ``fmt``) reduced to the
    year. A value that is already a 4-digit year is kept; missing stays missing."""
    _require(frame, column)
    text = frame[column].astype("string").str.strip()
    missing = (text.isna() | (text == "")).to_numpy(dtype=bool)
    already = text.str.fullmatch(r"\d{4}").fillna(False).to_numpy(dtype=bool)
    parsed = pd.to_datetime(text.where(~missing & ~already), format=fmt, errors="coerce")
    bad = ~missing & ~already & parsed.isna().to_numpy(dtype=bool)
    if bad.any():
        raise InputError(
            f"{int(bad.sum())} value(s) do not match the date format {fmt}",
            column=column,
            row=int(np.flatnonzero(bad)[0]) + 2,
            hint="Check the date format chosen for this column.",
        )
    years = parsed.dt.year.astype("Int64").astype("string")
    years = years.where(~already, text)
    years[missing] = pd.NA
    out = frame.copy()
    out[column] = years.astype("string")
    return out, GeneralizationStep("to_year", column, f"Dates in '{column}' reduced to the year.")


def _below_mask(
    frame: pd.DataFrame, quasi_identifiers: Sequence[str], k: int
) -> tuple[np.ndarray, int]:
    qis = tuple(dict.fromkeys(quasi_identifiers))
    for q in qis:
        _require(frame, q)
    if k < 1:
        raise UsageError("The k target must be 1 or more.", hint="A usual target is 5.")
    codes = [factorize_column(frame[q]) for q in qis]
    ids, n = combine(codes, len(frame))
    sizes, per_record = class_sizes(ids, n)
    return per_record < k, int((sizes < k).sum())


def preview_suppression(
    frame: pd.DataFrame, quasi_identifiers: Sequence[str], k: int
) -> SuppressionPreview:
    """How many rows (and what share) suppression below ``k`` would remove."""
    mask, classes = _below_mask(frame, quasi_identifiers, k)
    removed = int(mask.sum())
    rows = len(frame)
    return SuppressionPreview(rows, removed, classes, removed / rows if rows else 0.0, k)


def suppress_below_k(
    frame: pd.DataFrame, quasi_identifiers: Sequence[str], k: int
) -> tuple[pd.DataFrame, int, float]:
    """Remove the rows in classes smaller than ``k``: (new frame, rows removed, share).

    Whole classes go, so every class left has at least ``k`` records. The index of the
    kept rows is preserved, so the caller can tell which rows went."""
    mask, _ = _below_mask(frame, quasi_identifiers, k)
    removed = int(mask.sum())
    rows = len(frame)
    return frame.loc[~mask].copy(), removed, (removed / rows if rows else 0.0)


def _require(frame: pd.DataFrame, column: str) -> None:
    if column not in frame.columns:
        raise UsageError(
            f"The column '{column}' is not in the table.",
            hint="Choose among: " + ", ".join(str(c) for c in frame.columns),
        )
