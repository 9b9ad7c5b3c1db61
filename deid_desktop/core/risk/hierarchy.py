"""Generalization hierarchies as data, in ARX's CSV format.

A hierarchy has one row per original value and one column per level: level 0 is the
value itself, each further column a coarser label, the last usually ``*`` (everything
pooled). This is the file format ARX reads and writes (``;``-separated, no header), so
an ARX user brings theirs and takes ours back.

Rules a file must follow (checked on read, reported by file, line and counts, never a
value): every row has the same number of levels; a level-0 value appears once; a label
at one level always goes to the same label at the next (a tree, not a tangle).

``encode`` maps a column onto its hierarchy once: one integer code per distinct value,
and per level an array from that code to the level's label code. A missing value is a
value: it keeps its own code at every level below the top, and joins the top label
when the top pools everything into one.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from deid_desktop.core.atomic import atomic_write_text
from deid_desktop.core.errors import InputError, UsageError

DEFAULT_SEP = ";"
_ARX_NAME = re.compile(r"^(?:.*_)?hierarchy_(?P<column>.+)\.csv$", re.IGNORECASE)


@dataclass(frozen=True)
class Hierarchy:
    """One column's generalization levels: ``rows[i][j]`` is value i's label at level j."""

    column: str
    rows: tuple[tuple[str, ...], ...]
    source: str = ""  # "built-in: ages", a file name, ...

    @property
    def levels(self) -> int:
        """Number of levels, level 0 (the value itself) included."""
        return len(self.rows[0]) if self.rows else 1

    @property
    def max_level(self) -> int:
        return self.levels - 1

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(r[0] for r in self.rows)

    def level_labels(self, level: int) -> tuple[str, ...]:
        return tuple(r[level] for r in self.rows)

    def mapping(self, level: int) -> dict[str, str]:
        """Original value -> its label at ``level``."""
        return {r[0]: r[level] for r in self.rows}

    def generalize(self, series: pd.Series, level: int) -> pd.Series:
        """``series`` with every value replaced by its label at ``level`` (missing stays
        missing below the top; see the module docstring)."""
        codes = encode(series, self)
        labels = codes.labels[level]
        out = pd.Series(
            np.asarray(labels, dtype=object)[codes.maps[level][codes.codes]],
            index=series.index,
            dtype="string",
        )
        return out.rename(series.name)


def validate(rows: Sequence[Sequence[str]], *, name: str) -> tuple[tuple[str, ...], ...]:
    """The rows as tuples, or an InputError naming the file, the line and counts."""
    if not rows:
        raise InputError("The hierarchy file has no rows.", file=name)
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise InputError(
                f"A hierarchy row has {len(row)} levels where the first has {width}.",
                file=name,
                row=i + 1,
                hint="Every row needs one value per level, separated by the same character.",
            )
    out = tuple(tuple(str(v) for v in row) for row in rows)
    seen: dict[str, int] = {}
    for i, row in enumerate(out):
        if row[0] in seen:
            raise InputError(
                f"A value appears twice in the first column (lines {seen[row[0]] + 1} "
                f"and {i + 1}).",
                file=name,
                row=i + 1,
                hint="List each original value once.",
            )
        seen[row[0]] = i
    for level in range(1, width - 1):
        parent: dict[str, str] = {}
        for i, row in enumerate(out):
            if parent.setdefault(row[level], row[level + 1]) != row[level + 1]:
                raise InputError(
                    f"A label at level {level} goes to two different labels at level {level + 1}.",
                    file=name,
                    row=i + 1,
                    hint="Each group must sit inside exactly one coarser group.",
                )
    return out


def parse_arx_csv(text: str, *, column: str, name: str, sep: str = DEFAULT_SEP) -> Hierarchy:
    """A hierarchy from the text of an ARX CSV file (no header, one row per value)."""
    if len(sep) != 1:
        raise UsageError("The separator must be one character.", hint="ARX uses ';'.")
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    rows = [row for row in reader if row and any(cell != "" for cell in row)]
    return Hierarchy(column, validate(rows, name=name), source=name)


def read_arx_csv(path: Path, *, column: str | None = None, sep: str = DEFAULT_SEP) -> Hierarchy:
    """Read one ARX hierarchy file. ``column`` defaults to the name found in the file name."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(
            f"The hierarchy file cannot be read ({type(exc).__name__}).", file=path.name
        ) from None
    except UnicodeDecodeError:
        raise InputError("The hierarchy file is not UTF-8 text.", file=path.name) from None
    return parse_arx_csv(text, column=column or column_of(path), name=path.name, sep=sep)


def to_arx_csv(hierarchy: Hierarchy, *, sep: str = DEFAULT_SEP) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=sep, lineterminator="\n")
    writer.writerows(hierarchy.rows)
    return buf.getvalue()


def write_arx_csv(hierarchy: Hierarchy, path: Path, *, sep: str = DEFAULT_SEP) -> None:
    """Write ``hierarchy`` as an ARX CSV file, atomically."""
    atomic_write_text(path, to_arx_csv(hierarchy, sep=sep))


def column_of(path: Path) -> str:
    """The column a hierarchy file is for: ``COLUMN.csv`` or ARX's ``NAME_hierarchy_COLUMN.csv``."""
    m = _ARX_NAME.match(path.name)
    return m.group("column") if m else path.stem


def read_hierarchy_dir(
    folder: Path, columns: Iterable[str], *, sep: str = DEFAULT_SEP
) -> dict[str, Hierarchy]:
    """The hierarchies in ``folder`` for the given columns (other files are ignored).
    ``COLUMN.csv`` wins over ``*_hierarchy_COLUMN.csv`` when both exist."""
    if not folder.is_dir():
        raise UsageError(
            f"The hierarchy folder '{folder.name}' does not exist.",
            hint="Give a folder holding COLUMN.csv or NAME_hierarchy_COLUMN.csv files.",
        )
    wanted = set(columns)
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.csv")):
        m = _ARX_NAME.match(path.name)
        if m and m.group("column") in wanted:
            found.setdefault(m.group("column"), path)
    for col in wanted:
        plain = folder / f"{col}.csv"
        if plain.is_file():
            found[col] = plain
    return {col: read_arx_csv(path, column=col, sep=sep) for col, path in sorted(found.items())}


@dataclass(frozen=True, eq=False)
class EncodedColumn:
    """A column mapped onto its hierarchy: ``codes`` (one per record) index the column's
    distinct values; ``maps[level][code]`` is that value's label code at ``level``."""

    column: str
    codes: np.ndarray  # int32, one per record
    n_values: int
    maps: tuple[np.ndarray, ...]  # per level: int32 array of length n_values
    labels: tuple[tuple[str | None, ...], ...]  # per level: label of each label code
    #: per level: number of hierarchy rows under each label code (ARX's domain share)
    leaves: tuple[np.ndarray, ...]
    #: per level: number of values present in the data under each label code
    present_leaves: tuple[np.ndarray, ...]
    domain_size: int  # hierarchy rows (+1 when missing values occur)
    present_size: int  # distinct values in the data

    @property
    def levels(self) -> int:
        return len(self.maps)

    def cardinality(self, level: int) -> int:
        return len(self.labels[level])


def encode(series: pd.Series, hierarchy: Hierarchy) -> EncodedColumn:
    """Map ``series`` onto ``hierarchy`` once. Every non-missing value must be in it."""
    name = hierarchy.column
    codes, uniques = pd.factorize(series.astype("string"), use_na_sentinel=False)
    index = {v: i for i, v in enumerate(hierarchy.values)}
    uniq = list(uniques)
    rows: list[int] = []
    missing_code = -1
    unknown = 0
    for j, value in enumerate(uniq):
        if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
            missing_code = j
            rows.append(-1)
            continue
        pos = index.get(str(value))
        if pos is None:
            unknown += int((codes == j).sum())
            rows.append(-1)
        else:
            rows.append(pos)
    if unknown:
        raise InputError(
            f"{unknown} value(s) are not in the column's hierarchy, so they cannot be generalized",
            column=name,
            hint="Add a row for every value to the hierarchy file (ARX format).",
        )
    row_of = np.asarray(rows, dtype=np.int64)
    maps: list[np.ndarray] = []
    labels: list[tuple[str | None, ...]] = []
    leaves: list[np.ndarray] = []
    present: list[np.ndarray] = []
    n_levels = hierarchy.levels
    for level in range(n_levels):
        level_labels = hierarchy.level_labels(level)
        lab_codes, lab_uniques = pd.factorize(pd.Series(level_labels, dtype=object))
        lab_list: list[str | None] = [str(v) for v in lab_uniques]
        lab_codes = np.asarray(lab_codes, dtype=np.int64)
        counts = np.bincount(lab_codes, minlength=len(lab_list)).astype(np.int64)
        value_map = np.where(row_of >= 0, lab_codes[np.maximum(row_of, 0)], -1)
        if missing_code >= 0:
            top_pooled = level == n_levels - 1 and len(lab_list) == 1 and n_levels > 1
            if top_pooled:
                value_map[missing_code] = 0
                counts[0] += 1
            else:
                value_map[missing_code] = len(lab_list)
                lab_list.append(None)
                counts = np.append(counts, 1)
        maps.append(value_map.astype(np.int32))
        labels.append(tuple(lab_list))
        leaves.append(counts)
        present.append(np.bincount(value_map, minlength=len(lab_list)).astype(np.int64))
    return EncodedColumn(
        column=name,
        codes=np.asarray(codes, dtype=np.int32),
        n_values=len(uniq),
        maps=tuple(maps),
        labels=tuple(labels),
        leaves=tuple(leaves),
        present_leaves=tuple(present),
        domain_size=len(hierarchy.rows) + (1 if missing_code >= 0 else 0),
        present_size=len(uniq),
    )


def apply_levels(
    frame: pd.DataFrame, hierarchies: Mapping[str, Hierarchy], levels: Mapping[str, int]
) -> pd.DataFrame:
    """A copy of ``frame`` with each column of ``levels`` replaced by its labels at that
    level (level 0 leaves the column as it is)."""
    out = frame.copy()
    for column, level in levels.items():
        if level:
            out[column] = hierarchies[column].generalize(frame[column], int(level))
    return out


def check_hierarchies(columns: Sequence[str], hierarchies: Mapping[str, Hierarchy]) -> None:
    """Every quasi-identifier needs a hierarchy."""
    missing = [c for c in columns if c not in hierarchies]
    if missing:
        raise UsageError(
            "No hierarchy for column(s) " + ", ".join(repr(c) for c in missing) + ".",
            hint="Put COLUMN.csv (ARX format) in the hierarchy folder, or use a built-in.",
        )
