"""The residual-risk report: k, equivalence classes, lone records, l-diversity, risk.

All figures are computed on the chosen quasi-identifiers exactly as they are in the
frame. A missing value is a value: it forms its own class and is never dropped from
any count. Lone-record values stay in the report object for the UI; ``summary_dict``
and ``to_dict()`` (the default) carry counts and row numbers only, never values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from deid_desktop.core.errors import UsageError, did_you_mean
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.core.risk.classes import column_codes, equivalence_classes, rescued_counts
from deid_desktop.core.risk.diversity import DEFAULT_C, MISSING_CONVENTION, Diversity, diversity

#: The formula behind every risk figure, named in the report and the export record.
FORMULAS: MappingProxyType[str, str] = MappingProxyType(
    {
        "k": "k = smallest equivalence-class size on the quasi-identifiers",
        "prosecutor_max": "prosecutor risk (max) = 1 / smallest class size = 1 / k",
        "prosecutor_mean": (
            "prosecutor risk (record-weighted mean) = (1/n) * sum over records of "
            "1 / size of the record's class = classes / rows"
        ),
        "journalist": (
            "journalist risk = 1 / size of the matching class in the population; with no "
            "population table the release stands in for the population, so it equals the "
            "prosecutor risk (an upper bound)"
        ),
        "marketer": (
            "marketer risk = expected share of records re-identified when every record "
            "is targeted = classes / rows"
        ),
        "l_diversity": (
            "distinct l = smallest number of distinct filled values of the sensitive column "
            "within a class (Machanavajjhala et al. 2006)"
        ),
        "l_entropy": (
            "entropy l = smallest exp(H) over the classes, H = -sum p ln p of the class's "
            "filled sensitive values (Machanavajjhala et al. 2006, def. 4.1)"
        ),
        "l_recursive": (
            "recursive (c,l): the largest l with r1 < c * (r_l + ... + r_m) in every class, "
            "r_i the sensitive-value counts, most frequent first (Machanavajjhala et al. 2006, "
            "def. 4.2)"
        ),
        "t_closeness": (
            "t = largest Earth Mover's Distance between a class's sensitive-value distribution "
            "and the table's: equal distance (half the total variation) for categories, "
            "ordered distance for numbers (Li, Li and Venkatasubramanian 2007)"
        ),
        "missing_sensitive": MISSING_CONVENTION,
    }
)


@dataclass(frozen=True)
class ClassSize:
    """How many equivalence classes have this size, and how many records they hold."""

    size: int
    classes: int
    records: int


@dataclass(frozen=True)
class Rescue:
    """Lone records that stop being lone if ``quasi_identifier`` is generalized away."""

    quasi_identifier: str
    rescued: int


@dataclass(frozen=True, eq=False)
class RiskReport:
    """Residual risk of one frame on its quasi-identifiers. Counts; values only in
    ``lone_records`` (for the UI, never for logs)."""

    rows: int
    classes: int
    k: int | None  # None when there are no rows
    k_target: int
    lone: int
    below_k: int  # records in classes smaller than k_target
    below_k_classes: int
    quasi_identifiers: tuple[str, ...]
    class_size_distribution: tuple[ClassSize, ...]
    #: one row per lone record: "row" (0-based position in the frame) + the QI values
    lone_records: pd.DataFrame
    rescue: tuple[Rescue, ...]  # best first
    diversity: tuple[Diversity, ...]
    prosecutor_max: float
    prosecutor_mean: float
    journalist_max: float
    journalist_mean: float
    marketer: float
    missing_counts: dict[str, int]
    missing_is_value: bool = True
    #: released columns that identify in combination but were left out of this count
    released_not_counted: tuple[str, ...] = ()
    formulas: MappingProxyType[str, str] = field(default_factory=lambda: FORMULAS)
    notes: tuple[str, ...] = ()

    @property
    def best_rescue(self) -> Rescue | None:
        """The single quasi-identifier whose generalization would rescue most lone records."""
        return self.rescue[0] if self.rescue and self.rescue[0].rescued > 0 else None

    @property
    def l(self) -> int | None:  # noqa: E743
        """The smallest l over the sensitive columns (None when none was given)."""
        values = [d.l for d in self.diversity if d.l is not None]
        return min(values) if values else None

    @property
    def lone_rows(self) -> np.ndarray:
        return self.lone_records["row"].to_numpy(dtype=np.int64)

    def summary_dict(self) -> dict[str, Any]:
        """Counts only: safe for logs, the export record and ``--json``."""
        out: dict[str, Any] = {
            "rows": self.rows,
            "classes": self.classes,
            "k": self.k,
            "k_target": self.k_target,
            "lone": self.lone,
            "below_k": self.below_k,
            "below_k_classes": self.below_k_classes,
            "quasi_identifiers": list(self.quasi_identifiers),
            "counted_columns": list(self.quasi_identifiers),
            "released_not_counted": list(self.released_not_counted),
            "prosecutor_risk_max": self.prosecutor_max,
            "prosecutor_risk_mean": self.prosecutor_mean,
            "journalist_risk_max": self.journalist_max,
            "journalist_risk_mean": self.journalist_mean,
            "marketer_risk": self.marketer,
            "missing_is_value": self.missing_is_value,
            "missing_counts": dict(self.missing_counts),
            "best_rescue": (
                {
                    "quasi_identifier": self.best_rescue.quasi_identifier,
                    "rescued": self.best_rescue.rescued,
                }
                if self.best_rescue
                else None
            ),
        }
        if self.diversity:
            out["l"] = self.l
            out["l_entropy"] = _least(d.l_entropy for d in self.diversity)
            out["l_recursive"] = {
                "c": self.diversity[0].c,
                "l": _least(d.l_recursive for d in self.diversity),
            }
            out["t_closeness"] = _most(d.t_closeness for d in self.diversity)
            out["l_diversity"] = {
                d.column: {
                    "l": d.l,
                    "classes_with_l1": d.classes_with_l1,
                    "records_with_l1": d.records_with_l1,
                    "l_entropy": d.l_entropy,
                    "l_recursive": d.l_recursive,
                    "c": d.c,
                    "t_closeness": d.t_closeness,
                    "t_distance": d.t_distance,
                }
                for d in self.diversity
            }
            out["missing_sensitive"] = MISSING_CONVENTION
        return out

    def to_dict(
        self, *, include_values: bool = False, include_lone_rows: bool = True
    ) -> dict[str, Any]:
        """Everything in the report. Lone-record values only when ``include_values``
        (for the screen, never for a log, the record or the CLI)."""
        out = self.summary_dict()
        out["class_size_distribution"] = [
            {"size": c.size, "classes": c.classes, "records": c.records}
            for c in self.class_size_distribution
        ]
        out["rescue"] = [
            {"quasi_identifier": r.quasi_identifier, "rescued": r.rescued} for r in self.rescue
        ]
        out["formulas"] = dict(self.formulas)
        out["notes"] = list(self.notes)
        if include_lone_rows:
            if include_values:
                out["lone_records"] = [
                    {
                        "row": int(rec["row"]),
                        "values": {q: _plain(rec[q]) for q in self.quasi_identifiers},
                    }
                    for rec in self.lone_records.to_dict("records")
                ]
            else:
                out["lone_rows"] = [int(r) for r in self.lone_rows]
        return out


def _least(values: Iterable[float | int | None]) -> float | int | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def _most(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _plain(value: object) -> str | None:
    return (
        None
        if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))
        else str(value)
    )


def _check_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise UsageError(
            f"The {what} column(s) {', '.join(repr(c) for c in missing)} are not in the table.",
            hint=did_you_mean(str(missing[0]), map(str, frame.columns))
            + "Choose among: "
            + ", ".join(str(c) for c in frame.columns),
        )


def risk_report(
    frame: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    *,
    k_target: int = 5,
    sensitive: Sequence[str] = (),
    c: float = DEFAULT_C,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> RiskReport:
    """k, classes, lone records, rescue analysis, l-diversity and risk on the given QIs."""
    qis = tuple(dict.fromkeys(quasi_identifiers))
    sens = tuple(dict.fromkeys(sensitive))
    if k_target < 1:
        raise UsageError("The k target must be 1 or more.", hint="A usual target is 5.")
    _check_columns(frame, qis, "quasi-identifier")
    _check_columns(frame, sens, "sensitive")
    rep = Reporter(progress, cancel)
    rows = len(frame)
    notes: list[str] = ["A missing value is a value: it forms its own class and is counted."]
    if not qis:
        notes.append("No quasi-identifier was chosen: every record is in one class.")

    total_steps = len(qis) * 2 + len(sens) + 1
    # each quasi-identifier coded once; the codes serve the classes and the rescue
    codes: list[tuple[np.ndarray, int]] = []
    missing_counts: dict[str, int] = {}
    for i, q in enumerate(qis):
        rep.step(i / total_steps, "Grouping quasi-identifiers")
        column, n, n_missing = column_codes(frame[q])
        codes.append((column, n))
        missing_counts[q] = n_missing

    # the key's columns by falling cardinality: the last one's rescue is the cheapest
    # (sorted neighbours), and leaving out the one with the fewest values would
    # otherwise need the largest count. No figure depends on the order of the classes.
    radix = sorted(range(len(qis)), key=lambda i: -codes[i][1])
    classes = equivalence_classes([codes[i] for i in radix], rows)
    sizes, n_classes = classes.sizes, classes.n
    lone_classes = sizes == 1
    below_classes = sizes < k_target
    lone = int(lone_classes.sum())

    if rows == 0:
        notes.append("The table has no rows, so k is undefined and every count is 0.")
    k = int(sizes.min()) if n_classes else None

    by_size = np.bincount(sizes)
    distribution = tuple(
        ClassSize(int(size), int(by_size[size]), int(size) * int(by_size[size]))
        for size in np.flatnonzero(by_size).tolist()
    )

    lone_pos = np.sort(classes.order[classes.starts[lone_classes]])
    lone_records = frame[list(qis)].iloc[lone_pos].reset_index(drop=True)  # QI columns only
    lone_records.insert(0, "row", lone_pos)

    rescues: list[Rescue] = []
    if lone:
        rep.step(len(qis) / total_steps, "Finding what would rescue lone records")
        by_radix = rescued_counts(classes, [codes[i] for i in radix])
        counts = [0] * len(qis)
        for position, i in enumerate(radix):
            counts[i] = by_radix[position]
        rescues.extend(Rescue(q, n) for q, n in zip(qis, counts, strict=True))
        rescues.sort(key=lambda r: (-r.rescued, qis.index(r.quasi_identifier)))

    diversities = []
    for j, s in enumerate(sens):
        rep.step((2 * len(qis) + j) / total_steps, "Measuring l-diversity")
        diversities.append(diversity(s, frame[s], classes, c=c))

    prosecutor_max = 1.0 / k if k else 0.0
    prosecutor_mean = n_classes / rows if rows else 0.0
    rep.step(1.0, "Risk measured")
    return RiskReport(
        rows=rows,
        classes=n_classes,
        k=k,
        k_target=k_target,
        lone=lone,
        below_k=int(sizes[below_classes].sum()),
        below_k_classes=int(below_classes.sum()),
        quasi_identifiers=qis,
        class_size_distribution=distribution,
        lone_records=lone_records,
        rescue=tuple(rescues),
        diversity=tuple(diversities),
        prosecutor_max=prosecutor_max,
        prosecutor_mean=prosecutor_mean,
        journalist_max=prosecutor_max,
        journalist_mean=prosecutor_mean,
        marketer=prosecutor_mean,
        missing_counts=missing_counts,
        notes=tuple(notes),
    )
