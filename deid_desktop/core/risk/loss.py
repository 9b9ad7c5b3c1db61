"""Information-loss figures of one generalization (a node of the lattice).

Every figure is computed from the equivalence classes of the node: the records in a
class smaller than k are suppressed (left out of the release); a suppressed record
counts as fully generalized. The formulas, as ``LOSS_FORMULAS`` states them
(n records, m quasi-identifiers, r a record, i a quasi-identifier):

- ``loss`` (ARX's "Loss", Prasser et al., ARX's ``MetricMDNMLoss`` with its defaults:
  gs-factor 0.5, geometric mean): for each quasi-identifier, the domain share of a
  record's generalized value is s_i(r) = (hierarchy rows under that label) / (rows of
  the hierarchy), and 1 for a suppressed record; L_i = (sum_r s_i(r) - n/|D_i|) /
  (n - n/|D_i|), clipped at 0; loss = prod_i (1 + L_i)^(1/m) - 1. 0 = nothing changed,
  1 = everything pooled or suppressed.
- ``iyengar`` (Iyengar 2002, "LM"): (M - 1) / (|A| - 1) per value, where M is the number
  of the data's distinct values under the generalized label and |A| the number of the
  column's distinct values; a suppressed record (or a dropped column) counts 1; averaged
  over records, then over quasi-identifiers.
- ``discernibility`` (Bayardo & Agrawal 2005, DM*): sum over released classes of size^2,
  plus n for each suppressed record.
- ``aecs`` (LeFevre et al. 2006, as ARX computes it): n / number of classes, the
  suppressed records counting as one more class.
- ``entropy`` (non-uniform entropy, Gionis & Tassa 2009): sum over records and
  quasi-identifiers of -log2(freq(value) / freq(generalized label)), a suppressed value
  counting as pooled (-log2(freq(value) / n)); divided by its maximum (everything
  pooled), so 0..1.
- ``precision`` (Sweeney 2002): level / highest level per value, a suppressed record
  counting 1; averaged over records and quasi-identifiers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from deid_desktop.core.risk.hierarchy import EncodedColumn

METRICS: tuple[str, ...] = ("loss", "iyengar", "discernibility", "aecs", "entropy", "precision")

LOSS_FORMULAS: MappingProxyType[str, str] = MappingProxyType(
    {
        "loss": (
            "ARX 'Loss' (MetricMDNMLoss, gs-factor 0.5, geometric mean): per column "
            "L_i = (sum_r s_i(r) - n/|D_i|) / (n - n/|D_i|), s_i(r) = hierarchy rows under "
            "the record's label / hierarchy rows, 1 if suppressed; "
            "loss = prod_i (1 + L_i)^(1/m) - 1"
        ),
        "iyengar": (
            "Iyengar's LM: mean over records and columns of (M - 1) / (|A| - 1), M = the "
            "data's distinct values under the label, |A| = the column's distinct values; "
            "a suppressed record counts 1"
        ),
        "discernibility": "DM* = sum over released classes of size^2 + n per suppressed record",
        "aecs": "AECS = n / (released classes + 1 if any record is suppressed)",
        "entropy": (
            "non-uniform entropy = sum_r,i -log2(freq(value) / freq(label)), suppressed "
            "= pooled, divided by its value with everything pooled"
        ),
        "precision": "precision loss = mean over records and columns of level / top level; "
        "a suppressed record counts 1",
    }
)

#: One sentence each, for a clinician (README, the GUI's tooltips).
LOSS_EXPLAINED: MappingProxyType[str, str] = MappingProxyType(
    {
        "loss": "How much detail was given up, 0 (none) to 1 (every value pooled or removed).",
        "iyengar": "How many of the original categories a released value stands for, on "
        "average, 0 (exact values) to 1 (nothing left).",
        "discernibility": "How crowded the released groups are: lower means each record "
        "shares its combination with fewer others, so the data stay more specific.",
        "aecs": "The average number of records that share one combination of the chosen columns.",
        "entropy": "How much information, in bits, the coarser values lost, 0 (none) to 1 (all).",
        "precision": "How far up each column's hierarchy the values were moved, 0 (not at "
        "all) to 1 (to the top).",
        "suppressed": "Records left out of the release because their combination stayed too rare.",
    }
)


@dataclass(frozen=True)
class Figures:
    """Every figure of one node; counts only, never a value."""

    levels: tuple[int, ...]
    rows: int
    suppressed: int
    classes: int  # released classes (suppressed records not counted)
    k: int | None  # smallest released class (None when every record is suppressed)
    loss: float
    iyengar: float
    discernibility: float
    aecs: float
    entropy: float
    precision: float
    column_loss: tuple[float, ...]  # ARX's L_i per quasi-identifier
    #: with persons as the unit: persons in the table and persons suppressed (k, classes,
    #: discernibility and AECS then count persons; the other figures count rows)
    persons: int | None = None
    persons_suppressed: int | None = None

    def metric(self, name: str) -> float:
        return float(getattr(self, name))

    def to_dict(self, columns: Sequence[str]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "levels": dict(zip(columns, self.levels, strict=True)),
            "rows": self.rows,
            "suppressed": self.suppressed,
            "suppressed_share": self.suppressed / self.rows if self.rows else 0.0,
            "classes": self.classes,
            "min_class": self.k,
            "loss": round(self.loss, 6),
            "iyengar_loss": round(self.iyengar, 6),
            "discernibility": self.discernibility,
            "aecs": round(self.aecs, 6),
            "entropy": round(self.entropy, 6),
            "precision": round(self.precision, 6),
            "column_loss": {c: round(v, 6) for c, v in zip(columns, self.column_loss, strict=True)},
        }
        if self.persons is not None:
            out["persons"] = self.persons
            out["persons_suppressed"] = self.persons_suppressed
        return out


class LossTables:
    """Per column and level, the per-label costs every figure needs; built once."""

    def __init__(self, columns: Sequence[EncodedColumn], value_counts: Sequence[np.ndarray]):
        self.m = len(columns)
        self.heights = tuple(c.levels for c in columns)
        self.n = int(value_counts[0].sum()) if value_counts else 0
        n = max(self.n, 1)
        self.share: list[list[np.ndarray]] = []
        self.lm: list[list[np.ndarray]] = []
        self.domain_min: list[float] = []
        self.ent_max: list[float] = []
        #: per column, per level: sum over records of -log2(f(v)/f(label)) (no suppression)
        self.ent_level: list[np.ndarray] = []
        #: per column, per level: gen-only contributions (no suppression), the bounds
        self.loss_level: list[np.ndarray] = []
        self.lm_level: list[np.ndarray] = []
        #: per column, per level, per label code: -log2(freq(label) / n)
        self.label_log: list[list[np.ndarray]] = []
        for col, counts in zip(columns, value_counts, strict=True):
            dom = max(col.domain_size, 1)
            pres = max(col.present_size, 1)
            self.share.append([lv.astype(np.float64) / dom for lv in col.leaves])
            self.lm.append(
                [
                    (p.astype(np.float64) - 1.0) / (pres - 1) if pres > 1 else np.zeros(len(p))
                    for p in col.present_leaves
                ]
            )
            self.domain_min.append(n / dom)
            freq = counts.astype(np.float64)
            with np.errstate(divide="ignore"):
                logf = np.where(freq > 0, -np.log2(np.maximum(freq, 1) / n), 0.0)
            self.ent_max.append(float((freq * logf).sum()))
            ent, loss_l, lm_l, label_log = [], [], [], []
            for level in range(col.levels):
                label = col.maps[level]
                label_freq = np.bincount(label, weights=freq, minlength=col.cardinality(level))
                with np.errstate(divide="ignore", invalid="ignore"):
                    cost = np.where(freq > 0, -np.log2(freq / np.maximum(label_freq[label], 1)), 0)
                ent.append(float((freq * cost).sum()))
                with np.errstate(divide="ignore"):
                    label_log.append(
                        np.where(label_freq > 0, -np.log2(np.maximum(label_freq, 1) / n), 0.0)
                    )
                loss_l.append(
                    self._norm_loss(
                        float((freq * self.share[-1][level][label]).sum()), len(self.share) - 1
                    )
                )
                lm_l.append(float((freq * self.lm[-1][level][label]).sum()) / n)
            self.ent_level.append(np.asarray(ent))
            self.loss_level.append(np.asarray(loss_l))
            self.lm_level.append(np.asarray(lm_l))
            self.label_log.append(label_log)

    def _norm_loss(self, total: float, i: int) -> float:
        lo = self.domain_min[i]
        if self.n - lo <= 0:
            return 0.0
        return max(0.0, round((total - lo) / (self.n - lo), 12))

    def bounds(self, metric: str, nodes: np.ndarray, k: int) -> np.ndarray:
        """A lower bound of ``metric`` for every node (rows of ``nodes``), exact when
        nothing is suppressed: suppression only ever adds loss."""
        n = max(self.n, 1)
        if metric == "loss":
            acc = np.zeros(len(nodes))
            for i in range(self.m):
                acc += np.log1p(self.loss_level[i][nodes[:, i]])
            return np.expm1(acc / max(self.m, 1))
        if metric == "iyengar":
            return sum(self.lm_level[i][nodes[:, i]] for i in range(self.m)) / max(self.m, 1)
        if metric == "precision":
            acc = np.zeros(len(nodes))
            for i in range(self.m):
                acc += nodes[:, i] / max(self.heights[i] - 1, 1)
            return acc / max(self.m, 1)
        if metric == "entropy":
            total = sum(self.ent_max) or 1.0
            return sum(self.ent_level[i][nodes[:, i]] for i in range(self.m)) / total
        if metric == "discernibility":
            return np.full(len(nodes), float(n) * min(k, n))
        return np.zeros(len(nodes))  # aecs: no useful bound before counting

    def figures(
        self,
        levels: Sequence[int],
        codes: np.ndarray,
        counts: np.ndarray,
        k: int,
        *,
        kept: np.ndarray | None = None,
    ) -> Figures:
        """All figures of a node from its classes: ``codes`` (classes x m) label codes at
        ``levels`` and ``counts`` (records per class); ``kept`` overrides which classes
        are released (default: those of k records or more)."""
        n = self.n
        if kept is None:
            kept = counts >= k
        sup = ~kept
        kc = counts[kept].astype(np.float64)
        sc = counts[sup].astype(np.float64)
        suppressed = int(sc.sum())
        losses, lms, precs, ents = [], [], [], []
        for i, level in enumerate(levels):
            col_codes = codes[kept, i]
            total = float((kc * self.share[i][level][col_codes]).sum()) + suppressed
            losses.append(self._norm_loss(total, i))
            lms.append((float((kc * self.lm[i][level][col_codes]).sum()) + suppressed) / max(n, 1))
            top = max(self.heights[i] - 1, 1)
            precs.append((float(kc.sum()) * level / top + suppressed) / max(n, 1))
            # a suppressed record's cost rises from -log2(f/f_label) to -log2(f/n)
            extra = float((sc * self.label_log[i][level][codes[sup, i]]).sum())
            ents.append(float(self.ent_level[i][level]) + extra)
        m = max(self.m, 1)
        loss = float(np.expm1(np.log1p(np.asarray(losses)).sum() / m)) if losses else 0.0
        n_classes = int(kept.sum())
        aecs_classes = n_classes + (1 if suppressed else 0)
        return Figures(
            levels=tuple(int(v) for v in levels),
            rows=n,
            suppressed=suppressed,
            classes=n_classes,
            k=int(counts[kept].min()) if n_classes else None,
            loss=loss,
            iyengar=float(np.mean(lms)) if lms else 0.0,
            discernibility=float((kc * kc).sum()) + float(suppressed) * n,
            aecs=n / aecs_classes if aecs_classes else 0.0,
            entropy=sum(ents) / (sum(self.ent_max) or 1.0),
            precision=float(np.mean(precs)) if precs else 0.0,
            column_loss=tuple(float(v) for v in losses),
        )
