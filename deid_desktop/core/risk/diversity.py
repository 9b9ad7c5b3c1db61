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

Everything is vectorised over the classes of ``classes.equivalence_classes`` (numpy, no
Python loop over classes): the (class, value, count) pairs are counted once a column,
over the classes of two or more records; a class of one record has l = 1 and the
distance of its value alone, so those are measured once per value, not once per class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from deid_desktop.core.facts.text import one_array
from deid_desktop.core.risk.classes import Classes, factorize_column

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


def _factorize(series: pd.Series) -> tuple[np.ndarray, pd.Index, int]:
    """Each record's value code (``pd.factorize`` order; a missing value gets the code
    ``len(uniques)``), the distinct filled values, and how many values are missing. One
    Arrow dictionary encode for pyarrow strings."""
    if isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow":
        arr = pa.array(series.array)
        arr = one_array(arr)
        encoded = arr.dictionary_encode()
        n_missing = arr.null_count
        indices = encoded.indices
        if n_missing:
            indices = indices.fill_null(len(encoded.dictionary))
        codes = indices.to_numpy(zero_copy_only=False)
        return codes, pd.Index(series.dtype.__from_arrow__(encoded.dictionary)), n_missing
    raw, uniques = pd.factorize(series, use_na_sentinel=True)
    codes = np.asarray(raw, dtype=np.int64)
    missing = codes < 0
    n_missing = int(missing.sum())
    if n_missing:
        codes[missing] = len(uniques)
    return codes, pd.Index(uniques), n_missing


def _numeric_order(uniques: pd.Index) -> np.ndarray | None:
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
    classes: Classes,
    *,
    c: float = DEFAULT_C,
) -> Diversity:
    """Distinct, entropy and recursive (c, l)-diversity and t-closeness of one column.

    A class of one record has l = 1 whatever its value, and its distance to the table
    depends on its value alone: those classes are measured once per value, and the pairs
    (class, value, count) are counted over the classes of two or more records only."""
    if classes.n == 0:
        return Diversity(column, None, 0, 0, c=c)
    codes, uniques, n_missing = _factorize(series)
    n_filled = len(uniques)
    n_codes = n_filled + (1 if n_missing else 0)  # a missing value is the last code
    ranks = _numeric_order(uniques)
    renumber: np.ndarray | None = None
    if ranks is not None:
        # numbers: codes renumbered by rank (ties by code), so that pairs sorted by code
        # are sorted by rank too; the missing value ranks last
        by_rank = np.lexsort((np.arange(n_filled), ranks))
        renumber = np.empty(n_codes, dtype=np.int64)
        renumber[by_rank] = np.arange(n_filled)
        renumber[n_filled:] = n_filled
        rank_of = np.append(ranks[by_rank], int(ranks.max()) + 1)[:n_codes]  # new code's
        code_rank = rank_of[renumber]  # rank of each code as factorized
    else:
        rank_of = code_rank = np.arange(n_codes)
    n_values = int(rank_of[-1]) + 1 if n_codes else 0  # t's values: categories or ranks
    shared = classes.shared
    cls_all, val_all, cnt_all = shared.pair_counts(codes, max(n_codes, 1), renumber)

    # l over filled values only (the missing-value convention above)
    if n_missing:
        filled_pair = val_all != n_filled
        cls, cnt = cls_all[filled_pair], cnt_all[filled_pair]
    else:
        cls, cnt = cls_all, cnt_all
    alone = classes.n - shared.n  # classes of one record: l = 1
    distinct = np.bincount(cls, minlength=shared.n)
    l1 = distinct <= 1
    l_least = 1 if alone or l1.any() else int(distinct.min())
    any_l1 = l_least == 1
    # entropy over filled values: H = -sum p log p >= 0, l_entropy = exp(H); a class with
    # one filled value or none has H = 0 exactly, so the least is then 1 exactly.
    l_entropy = 1.0 if any_l1 else _entropy_l(cls, cnt, shared.n)
    # recursive (c, l): largest l with r1 < c * (r_l + ... + r_m), per class. A class
    # with one filled value or none has l = 1 (r1 < c * r1), the least there is.
    l_recursive = 1 if any_l1 else _recursive_l(cls, cnt, shared.n, c)

    # t: the table's distribution over all records; a class of one is the distance of
    # its value alone, measured once per value present in such classes
    rank_counts = np.bincount(
        code_rank, weights=np.bincount(codes, minlength=n_codes), minlength=n_values
    )
    overall = rank_counts / max(classes.rows, 1)
    t = 0.0
    kind = "equal" if ranks is None else "ordered"
    if n_values > 1:
        t_val = val_all if ranks is None else rank_of[val_all]
        if shared.n:
            pairs = (
                (cls_all, t_val, cnt_all)
                if ranks is None
                else _merge_ranks(cls_all, t_val, cnt_all, n_values)
            )
            t = _t_closeness(*pairs, overall, ranks is not None, shared.n, shared.sizes)
        if alone:
            # the values of the records alone: all records' less those in shared classes
            rank_counts -= np.bincount(t_val, weights=cnt_all, minlength=n_values)
            present = np.flatnonzero(rank_counts > 0)
            ones = np.ones(present.size, dtype=np.int64)
            t = max(
                t,
                _t_closeness(
                    np.arange(present.size),
                    present,
                    ones,
                    overall,
                    ranks is not None,
                    present.size,
                    ones,
                ),
            )
    return Diversity(
        column,
        l_least,
        alone + int(l1.sum()),
        alone + int(shared.sizes[l1].sum()),
        l_entropy=round(l_entropy, 6),
        l_recursive=l_recursive,
        c=c,
        t_closeness=round(t, 6),
        t_distance=kind,
    )


def _merge_ranks(
    cls: np.ndarray, val: np.ndarray, cnt: np.ndarray, n_values: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(class, rank, count) pairs from pairs sorted by class then rank, where two codes of
    one rank ("1" and "1.0") are merged into one pair."""
    key = cls * n_values + val
    if key.size < 2 or bool((key[1:] != key[:-1]).all()):
        return cls, val, cnt
    new = np.r_[True, key[1:] != key[:-1]]
    starts = np.flatnonzero(new)
    return cls[starts], val[starts], np.add.reduceat(cnt, starts)


def _entropy_l(cls: np.ndarray, cnt: np.ndarray, n_classes: int) -> float:
    """The least exp(H) over the classes, H the entropy of the class's filled values."""
    filled_per_class = np.bincount(cls, weights=cnt, minlength=n_classes)
    p = cnt / filled_per_class[cls]
    h = np.bincount(cls, weights=-p * np.log(p), minlength=n_classes)
    return float(np.exp(h).min())


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


def _t_closeness(
    cls: np.ndarray,
    val: np.ndarray,
    cnt: np.ndarray,
    overall: np.ndarray,
    numeric: bool,
    n_classes: int,
    sizes: np.ndarray,
) -> float:
    """The largest EMD between a class's distribution and the table's (``overall``;
    missing = category), from the (class, value, count) pairs sorted by class then value,
    every class 0..n_classes-1 holding at least one pair; for numbers the values are the
    ranks of the numbers, missing last."""
    if not numeric:
        # equal distance: 0.5 * sum |p - q|; absent values of a class contribute q each
        p = cnt / sizes[cls]
        q = overall[val]
        diff = np.abs(p - q) - q
        per_class = 0.5 * (np.bincount(cls, weights=diff, minlength=n_classes) + overall.sum())
        return float(per_class.max())
    # ordered distance: the class's cumulative distribution P is a step function that
    # changes only at its own values, so sum |P(i) - Q(i)| segment by segment, with Q
    # (the table's cumulative distribution) monotone and its prefix sums precomputed:
    # before the class's first value P = 0; from each value to the next, P = the share
    # of the class up to that value (counted in integers, so exact to the last digit)
    q_cum = np.cumsum(overall)[:-1]  # Q(i) for i = 0 .. m-2
    q_pre = np.r_[0.0, np.cumsum(q_cum)]  # sum of Q(i) for i < x
    last = overall.size - 1
    first = np.empty(cls.size, dtype=bool)
    first[:1] = True
    np.not_equal(cls[1:], cls[:-1], out=first[1:])
    group_start = np.flatnonzero(first)
    share = np.cumsum(cnt)  # records up to this pair, then up to it within its class
    share -= (share[group_start] - cnt[group_start])[cls]
    a = share / sizes[cls]  # P on the segment from this pair's value to the next one's
    del share
    hi = np.empty_like(val)
    hi[:-1] = val[1:]
    hi[group_start[1:] - 1] = last  # a class's last value runs to the end
    hi[-1] = last
    cut = np.searchsorted(q_cum, a, side="left")  # the first i of the segment with Q >= P
    np.clip(cut, val, hi, out=cut)
    # sum over [val, hi) of |P - Q(i)| = P * (2 cut - val - hi) + Qpre(val) + Qpre(hi)
    # - 2 Qpre(cut); from 0 to the class's first value P = 0: Qpre(first value)
    seg = q_pre[cut]
    seg *= -2.0
    seg += q_pre[val]
    seg += q_pre[hi]
    cut *= 2
    cut -= val
    cut -= hi
    a *= cut
    seg += a
    seg[group_start] += q_pre[val[group_start]]
    per_class = np.bincount(cls, weights=seg, minlength=n_classes) / last
    return float(per_class.max())


__all__ = ["DEFAULT_C", "MISSING_CONVENTION", "Diversity", "diversity", "factorize_column"]
