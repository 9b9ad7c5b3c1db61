"""The whole risk report equals a plain reference: pandas ``groupby(dropna=False)`` for
the classes, one Python loop a class for l-diversity, exact fractions for t-closeness.

The report computes everything from integer codes (one sort of a mixed-radix key, the
rescue from the class keys, l and t over the classes of two or more records, classes of
one measured once per value). Random small frames with missing values, numbers written
two ways ("1" and "1.0"), categories, and both counting paths (bincount over a small
range, sort over a large one; a mixed-radix key, or one compacted on the way).
"""

from __future__ import annotations

import math
from collections import Counter
from contextlib import nullcontext
from fractions import Fraction
from typing import Any
from unittest import mock

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.risk import classes as classes_module
from deid_desktop.core.risk import risk_report

POOLS = (
    ("a", "b", None),
    ("1", "2", "1.0", " 3", "10", None),
    ("x", "y", "z", "w"),
    ("5", "6"),
    (None,),
    ("F", "M", "U", None),
)


def _plain(value: Any) -> str | None:
    return None if value is None or value is pd.NA or value != value else str(value)


def _number(value: str) -> float | None:
    got = pd.to_numeric(pd.Series([value.strip()]), errors="coerce").iloc[0]
    return None if pd.isna(got) else float(got)


def _groups(frame: pd.DataFrame, columns: list[str]) -> list[list[int]]:
    """Row positions of each class (a missing value is a value)."""
    if not len(frame):
        return []
    if not columns:
        return [list(range(len(frame)))]
    grouped = frame.reset_index(drop=True).groupby(columns, dropna=False, sort=False)
    return [list(rows) for rows in grouped.indices.values()]


def _t_exact(groups: list[list[int]], values: list[str | None]) -> tuple[Fraction, str]:
    filled = sorted({v for v in values if v is not None})
    numbers = {v: _number(v) for v in filled}
    numeric = bool(filled) and all(n is not None for n in numbers.values())
    if numeric:  # ordered distance over the distinct numbers, missing last
        scale = sorted(set(numbers.values()))
        position = {v: scale.index(numbers[v]) for v in filled} | {None: len(scale)}
        m = len(scale) + (1 if None in values else 0)
    else:  # equal distance over the categories, missing one of them
        categories = filled + ([None] if None in values else [])
        position = {v: i for i, v in enumerate(categories)}
        m = len(categories)
    n = len(values)
    table = Counter(position[v] for v in values)
    q = [Fraction(table[i], n) for i in range(m)]
    worst = Fraction(0)
    for rows in groups if m > 1 else []:
        here = Counter(position[values[r]] for r in rows)
        p = [Fraction(here[i], len(rows)) for i in range(m)]
        if numeric:
            cum, total = Fraction(0), Fraction(0)
            for i in range(m - 1):
                cum += p[i] - q[i]
                total += abs(cum)
            distance = total / (m - 1)
        else:
            distance = sum((abs(a - b) for a, b in zip(p, q, strict=True)), Fraction(0)) / 2
        worst = max(worst, distance)
    return worst, "ordered" if numeric else "equal"


def _diversity(groups: list[list[int]], values: list[str | None], c: float) -> dict[str, Any]:
    l_least, l1_classes, l1_records = None, 0, 0
    entropy, recursive = math.inf, math.inf
    for rows in groups:
        counts = Counter(values[r] for r in rows if values[r] is not None)
        distinct = max(len(counts), 1)
        l_least = distinct if l_least is None else min(l_least, distinct)
        if distinct == 1:
            l1_classes += 1
            l1_records += len(rows)
        filled = sum(counts.values())
        h = -sum(k / filled * math.log(k / filled) for k in counts.values()) if filled else 0.0
        entropy = min(entropy, math.exp(h))
        r = sorted(counts.values(), reverse=True)
        best = max([1] + [i + 1 for i in range(len(r)) if r[0] < c * sum(r[i:])])
        recursive = min(recursive, best)
    if not groups:
        return {"l": None, "classes_with_l1": 0, "records_with_l1": 0, "l_entropy": None}
    t, kind = _t_exact(groups, values)
    return {
        "l": l_least,
        "classes_with_l1": l1_classes,
        "records_with_l1": l1_records,
        "l_entropy": entropy,
        "l_recursive": recursive,
        "t_closeness": t,
        "t_distance": kind,
    }


def _reference(
    frame: pd.DataFrame, qis: list[str], k_target: int, sensitive: list[str], c: float
) -> dict[str, Any]:
    groups = _groups(frame, qis)
    sizes = [len(g) for g in groups]
    lone_rows = sorted(g[0] for g in groups if len(g) == 1)
    rescue = []
    if lone_rows:
        for q in qis:
            size_without = {}
            for g in _groups(frame, [x for x in qis if x != q]):
                size_without.update(dict.fromkeys(g, len(g)))
            rescue.append((q, sum(size_without[r] > 1 for r in lone_rows)))
        rescue.sort(key=lambda item: (-item[1], qis.index(item[0])))
    by_size = Counter(sizes)
    return {
        "rows": len(frame),
        "classes": len(groups),
        "k": min(sizes) if sizes else None,
        "lone": len(lone_rows),
        "below_k": sum(s for s in sizes if s < k_target),
        "below_k_classes": sum(1 for s in sizes if s < k_target),
        "missing_counts": {q: int(frame[q].isna().sum()) for q in qis},
        "class_size_distribution": [
            {"size": s, "classes": by_size[s], "records": s * by_size[s]} for s in sorted(by_size)
        ],
        "rescue": [{"quasi_identifier": q, "rescued": n} for q, n in rescue],
        "lone_records": [
            {"row": r, "values": {q: _plain(frame[q].iloc[r]) for q in qis}} for r in lone_rows
        ],
        "prosecutor_risk_mean": len(groups) / len(frame) if len(frame) else 0.0,
        "prosecutor_risk_max": 1.0 / min(sizes) if sizes else 0.0,
        "diversity": {s: _diversity(groups, [_plain(v) for v in frame[s]], c) for s in sensitive},
    }


@st.composite
def _cases(draw: st.DrawFn) -> tuple[pd.DataFrame, list[str], list[str], int, float, bool]:
    n_columns = draw(st.integers(1, 5))
    rows = draw(st.integers(0, 40))
    data = {}
    for j in range(n_columns):
        pool = draw(st.sampled_from(POOLS))
        values = draw(st.lists(st.sampled_from(pool), min_size=rows, max_size=rows))
        dtype = draw(st.sampled_from(["string[pyarrow]", "string[pyarrow]", "object"]))
        data[f"c{j}"] = pd.Series(values, dtype=dtype)
    frame = pd.DataFrame(data)
    columns = list(frame.columns)
    qis = draw(st.lists(st.sampled_from(columns), unique=True, max_size=min(4, n_columns)))
    rest = [c for c in columns if c not in qis]
    sensitive = draw(st.lists(st.sampled_from(rest), unique=True, max_size=2)) if rest else []
    k_target = draw(st.integers(1, 4))
    c = draw(st.sampled_from([1.0, 2.0, 3.5, 4.0]))
    tight = draw(st.booleans())  # force the sort and compaction paths on a small frame
    return frame, qis, sensitive, k_target, c, tight


@settings(max_examples=200, deadline=None)
@given(_cases())
def test_the_report_equals_a_plain_group_by(
    case: tuple[pd.DataFrame, list[str], list[str], int, float, bool],
) -> None:
    frame, qis, sensitive, k_target, c, tight = case
    limits = {"_BINCOUNT_LIMIT": 0, "_KEY_LIMIT": 4} if tight else {}
    with mock.patch.multiple(classes_module, **limits) if tight else nullcontext():
        report = risk_report(frame, qis, k_target=k_target, sensitive=sensitive, c=c)
    got = report.to_dict(include_values=True)
    want = _reference(frame, qis, k_target, sensitive, c)
    for key in (
        "rows",
        "classes",
        "k",
        "lone",
        "below_k",
        "below_k_classes",
        "missing_counts",
        "class_size_distribution",
        "rescue",
        "lone_records",
    ):
        assert got[key] == want[key], key
    assert got["prosecutor_risk_mean"] == want["prosecutor_risk_mean"]
    assert got["prosecutor_risk_max"] == want["prosecutor_risk_max"]
    assert report.lone_rows.tolist() == [r["row"] for r in want["lone_records"]]
    assert [d.column for d in report.diversity] == sensitive
    for d in report.diversity:
        ref = want["diversity"][d.column]
        assert (d.l, d.classes_with_l1, d.records_with_l1) == (
            ref["l"],
            ref["classes_with_l1"],
            ref["records_with_l1"],
        )
        if ref["l_entropy"] is None:  # no rows
            assert d.l_entropy is None and d.t_closeness is None
            continue
        assert d.l_recursive == ref["l_recursive"]
        # reported to 6 decimals: within half a unit of the 6th decimal of the exact value
        assert abs(d.l_entropy - ref["l_entropy"]) <= 5e-7 + 1e-9
        assert abs(Fraction(d.t_closeness) - ref["t_closeness"]) <= Fraction(5, 10**7) + Fraction(
            1, 10**12
        )
        assert d.t_distance == ref["t_distance"]
