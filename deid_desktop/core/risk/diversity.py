"""What a class of look-alike records still tells about a sensitive value.

k says how many records share a combination of quasi-identifiers; these figures say what
an intruder who finds a person's class learns about that person's sensitive value
(diagnosis, income class, outcome):

- **distinct l-diversity** (Machanavajjhala et al., "l-Diversity: Privacy Beyond
  k-Anonymity", ICDE 2006, def. 3.1 in the distinct reading used by ARX): the smallest
  number of different sensitive values in any class;
- **entropy l-diversity** (same paper, def. 4.1): the smallest ``exp(H)`` over the
  classes, H being the entropy (natural logarithm) of the class's sensitive values; a
  class with l_entropy = 2 is as uncertain as two equally likely values;
- **recursive (c, l)-diversity** (same paper, def. 4.2): a class is (c, l)-diverse when
  ``r1 < c * (r_l + r_(l+1) + ... + r_m)``, r_i being the counts of its sensitive values
  from the most to the least frequent; the figure is the largest l every class meets;
- **t-closeness** (Li, Li and Venkatasubramanian, "t-Closeness: Privacy Beyond
  k-Anonymity and l-Diversity", ICDE 2007, sec. 4): the largest Earth Mover's Distance
  between a class's distribution of the sensitive value and the whole table's; the
  equal-distance EMD (half the total variation) for categories, the ordered-distance
  EMD ``(1/(m-1)) * sum_i |sum_(j<=i) (p_j - q_j)|`` over the sorted distinct values
  for a column whose every filled value is a number.

**Missing sensitive values** (the convention, stated in every report): a missing value
tells the intruder nothing about the person's real value, so it never adds diversity.
l counts only filled values, and a class whose values are all missing counts as l = 1
(the intruder learns "unknown" for sure): {x, x, missing} has l = 1, never 2. The same
holds for the entropy and recursive figures (computed over filled values, at least 1).
For t-closeness a missing value is a category of its own, in the class and in the whole
table alike (knowing a test was not done can be the disclosure).

Everything is vectorised over class numbers from ``classes.combine`` (numpy, no Python
loop over classes), so a million rows take a fraction of a second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from deid_desktop.core.risk.classes import factorize_column

_BINCOUNT_LIMIT = 1 << 24

#: The c of recursive (c, l)-diversity when the user gives none (ARX's default is 4 too).
DEFAULT_C = 4.0

MISSING_CONVENTION = (
    "A missing sensitive value adds no diversity: l counts filled values only, and a class "
    "whose values are all missing counts as l = 1. For t-closeness a missing value is a "
    "category of its own."
)


@dataclass(frozen=True)
class Diversity:
    """What one sensitive column's values reveal inside the equivalence classes."""

    column: str
    l: int | None  # noqa: E741 - the literature's name; distinct l-diversity
    classes_with_l1: int  # classes where every filled value is the same (or none is filled)
    records_with_l1: int
    l_entropy: float | None = None
    l_recursive: int | None = None
    c: float = DEFAULT_C
    t_closeness: float | None = None
    t_distance: str = "equal"  # "equal" (categories) or "ordered" (numbers)


def _pair_counts(
    ids: np.ndarray, n_classes: int, values: np.ndarray, n_values: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(class, value, count) of every pair present, sorted by class then value."""
    pairs = ids * n_values + values
    cardinality = n_classes * n_values
    if cardinality <= max(_BINCOUNT_LIMIT, 4 * pairs.size):  # no sort: one counting pass
        all_counts = np.bincount(pairs, minlength=cardinality)
        uniq = np.flatnonzero(all_counts)
        counts = all_counts[uniq]
    else:
        uniq, counts = np.unique(pairs, return_counts=True)
    return uniq // n_values, uniq % n_values, counts.astype(np.int64)


def _factorize(series: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """``pd.factorize(series)`` (-1 where missing), by one Arrow dictionary encode for
    pyarrow strings."""
    if isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow":
        arr = pa.array(series.array)
        encoded = (
            arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
        ).dictionary_encode()
        codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
        return codes, pd.Index(series.dtype.__from_arrow__(encoded.dictionary))
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64), pd.Index(uniques)


def _numeric_order(series: pd.Series, uniques: pd.Index) -> np.ndarray | None:
    """Rank of each distinct filled value when every filled value is a number, else None."""
    filled = pd.Series(uniques, dtype=object).dropna()
    if filled.empty:
        return None
    numbers = pd.to_numeric(filled.astype(str).str.strip(), errors="coerce")
    if numbers.isna().any():
        return None
    order = np.empty(len(uniques), dtype=np.int64)
    order[:] = -1
    ranks = numbers.rank(method="dense").astype(np.int64).to_numpy() - 1
    order[filled.index.to_numpy()] = ranks
    return order


def diversity(
    column: str,
    series: pd.Series,
    ids: np.ndarray,
    n_classes: int,
    sizes: np.ndarray,
    *,
    c: float = DEFAULT_C,
) -> Diversity:
    """Distinct, entropy and recursive (c, l)-diversity and t-closeness of one column."""
    if n_classes == 0:
        return Diversity(column, None, 0, 0, c=c)
    codes, uniques = _factorize(series)
    # The (class, value, count) pairs of every record, missing as a value of its own
    # (t-closeness counts it). For categories l takes the same pairs less the missing
    # value's; numbers are ranked by value ("1" and "1.0" one rank), so l counts its own.
    values, n_values, missing_value, order = _t_values(series, codes, uniques)
    cls_all, val_all, cnt_all = _pair_counts(ids, n_classes, values, max(n_values, 1))
    if order is None:
        filled_pair = val_all != missing_value
        cls, cnt = cls_all[filled_pair], cnt_all[filled_pair]
    else:
        filled = codes >= 0
        cls, _, cnt = _pair_counts(ids[filled], n_classes, codes[filled], max(len(uniques), 1))

    # l over filled values only (the missing-value convention above)
    distinct = np.bincount(cls, minlength=n_classes)
    l_per_class = np.maximum(distinct, 1)
    l1 = l_per_class == 1
    filled_per_class = np.bincount(cls, weights=cnt, minlength=n_classes)

    # entropy over filled values: H = -sum p log p, l_entropy = exp(H)
    p = cnt / filled_per_class[cls]
    h = np.bincount(cls, weights=-p * np.log(p), minlength=n_classes)
    l_entropy = float(np.exp(h).min())

    # recursive (c, l): largest l with r1 < c * (r_l + ... + r_m), per class. A class
    # with one filled value or none has l = 1 (r1 < c * r1), the least there is.
    l_recursive = 1 if l1.any() else _recursive_l(cls, cnt, n_classes, c)

    t, kind = _t_closeness(cls_all, val_all, cnt_all, values, n_values, order, n_classes, sizes)
    return Diversity(
        column,
        int(l_per_class.min()),
        int(l1.sum()),
        int(sizes[l1].sum()),
        l_entropy=round(l_entropy, 6),
        l_recursive=l_recursive,
        c=c,
        t_closeness=t,
        t_distance=kind,
    )


def _recursive_l(cls: np.ndarray, cnt: np.ndarray, n_classes: int, c: float) -> int:
    """The largest l every class meets, r1 < c * (r_l + ... + r_m), from the (class,
    count) pairs of filled values sorted by class."""
    order = np.lexsort((-cnt, cls))  # by class, then count descending
    cls_s, cnt_s = cls[order], cnt[order]
    starts = np.flatnonzero(np.r_[True, cls_s[1:] != cls_s[:-1]]) if cls_s.size else cls_s
    rank = np.arange(cls_s.size) - np.repeat(starts, np.diff(np.r_[starts, cls_s.size]))
    totals = np.bincount(cls_s, weights=cnt_s, minlength=n_classes)
    before = np.cumsum(cnt_s) - cnt_s  # counts before this position overall
    class_before = np.repeat(before[starts], np.diff(np.r_[starts, cls_s.size]))
    tail = totals[cls_s] - (before - class_before)  # r_rank + ... + r_m (1-based l = rank+1)
    r1 = np.zeros(n_classes, dtype=np.float64)
    r1[cls_s[starts]] = cnt_s[starts]
    meets = r1[cls_s] < c * tail
    best = np.ones(n_classes, dtype=np.int64)
    np.maximum.at(best, cls_s[meets], rank[meets] + 1)
    return int(best.min())


def _t_values(
    series: pd.Series, codes: np.ndarray, uniques: pd.Index
) -> tuple[np.ndarray, int, int, np.ndarray | None]:
    """Each record's value for t-closeness (missing a category of its own; for numbers,
    the rank of the value, missing last), how many values, the missing value's number
    (-1 when none is missing) and the numeric order (None for categories)."""
    order = _numeric_order(series, uniques)
    values = codes.copy()
    missing = values < 0
    values[missing] = len(uniques)  # missing is a category of its own
    n_values = len(uniques) + int(missing.any())
    if order is not None:
        # ordered distance over the sorted filled values; missing sorts last
        ranks = np.append(order, int(order.max()) + 1)
        values = ranks[values]
        n_values = int(values.max()) + 1
    any_missing = bool(missing.any())
    missing_value = -1
    if any_missing:
        missing_value = len(uniques) if order is None else int(order.max()) + 1
    return values, n_values, missing_value, order


def _t_closeness(
    cls: np.ndarray,
    val: np.ndarray,
    cnt: np.ndarray,
    values: np.ndarray,
    n_values: int,
    order: np.ndarray | None,
    n_classes: int,
    sizes: np.ndarray,
) -> tuple[float, str]:
    """The largest EMD between a class's distribution and the table's (missing = category),
    from the (class, value, count) pairs of every record (``_t_values``)."""
    overall = np.bincount(values, minlength=n_values) / max(len(values), 1)
    if n_values <= 1:
        return 0.0, "ordered" if order is not None else "equal"
    if order is None:
        # equal distance: 0.5 * sum |p - q|; absent values of a class contribute q each
        p = cnt / sizes[cls]
        diff = np.abs(p - overall[val]) - overall[val]
        per_class = 0.5 * (np.bincount(cls, weights=diff, minlength=n_classes) + overall.sum())
        return round(float(per_class.max()), 6), "equal"
    # ordered distance: the class's cumulative distribution is a step function that
    # changes only at its own values, so sum |P(i) - Q(i)| segment by segment, with Q
    # (the table's cumulative distribution) monotone and its prefix sums precomputed
    q_cum = np.cumsum(overall)[:-1]  # Q(i) for i = 0 .. m-2
    q_pre = np.r_[0.0, np.cumsum(q_cum)]  # sum of Q(i) for i < x
    last = n_values - 1
    p = cnt / sizes[cls]
    starts = np.r_[True, cls[1:] != cls[:-1]]
    group_start = np.flatnonzero(starts)
    p_cum = np.cumsum(p)
    p_cum -= np.repeat(p_cum[group_start] - p[group_start], np.diff(np.r_[group_start, p.size]))
    nxt = np.r_[val[1:], last]
    nxt[np.r_[starts[1:], True]] = last
    seg_cls = np.r_[cls[group_start], cls]
    seg_lo = np.r_[np.zeros(group_start.size, dtype=np.int64), val]
    seg_hi = np.r_[val[group_start], nxt]
    seg_a = np.r_[np.zeros(group_start.size), p_cum]
    seg_lo, seg_hi = np.minimum(seg_lo, last), np.minimum(seg_hi, last)
    cut = np.clip(np.searchsorted(q_cum, seg_a, side="left"), seg_lo, seg_hi)
    below = seg_a * (cut - seg_lo) - (q_pre[cut] - q_pre[seg_lo])
    above = (q_pre[seg_hi] - q_pre[cut]) - seg_a * (seg_hi - cut)
    per_class = np.bincount(seg_cls, weights=below + above, minlength=n_classes) / last
    return round(float(per_class.max()), 6), "ordered"


__all__ = ["DEFAULT_C", "MISSING_CONVENTION", "Diversity", "diversity", "factorize_column"]
