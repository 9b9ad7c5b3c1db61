"""l-diversity (distinct, entropy, recursive) and t-closeness: the published definitions,
the missing-value convention, and a brute-force recomputation by plain group-by."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.risk import risk_report

S = "string[pyarrow]"


def _frame(groups: list[str], values: list[str | None]) -> pd.DataFrame:
    return pd.DataFrame({"g": groups, "s": values}).astype(S)


def _one(frame: pd.DataFrame, *, c: float = 4.0):
    return risk_report(frame, ["g"], sensitive=["s"], c=c).diversity[0]


def test_missing_sensitive_value_adds_no_diversity() -> None:
    # {x, x, missing}: the intruder still learns x for the filled records -> l = 1, not 2
    d = _one(_frame(["a", "a", "a"], ["x", "x", None]))
    assert d.l == 1 and d.classes_with_l1 == 1 and d.records_with_l1 == 3
    assert d.l_entropy == 1.0 and d.l_recursive == 1


def test_all_missing_class_counts_as_one_value() -> None:
    d = _one(_frame(["a", "a", "b", "b"], [None, None, "x", "y"]))
    assert d.l == 1 and d.classes_with_l1 == 1 and d.records_with_l1 == 2


def test_entropy_and_recursive_by_hand() -> None:
    # class a: x x y y  -> exp(ln 2) = 2; r = (2, 2): l=2 needs 2 < c*2 -> true for c = 4
    # class b: x x x y  -> exp(H) with p = (3/4, 1/4); r = (3, 1): l=2 needs 3 < c*1
    frame = _frame(list("aaaabbbb"), list("xxyyxxxy"))
    h = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    d = _one(frame, c=4)
    assert d.l == 2
    assert d.l_entropy == pytest.approx(math.exp(h), abs=1e-6)
    assert d.l_recursive == 2
    assert _one(frame, c=3).l_recursive == 1  # 3 < 3*1 fails in class b


def test_t_closeness_equal_distance_by_hand() -> None:
    # table: x 1/2, y 1/2; class a all x -> 0.5 * (|1 - .5| + |0 - .5|) = 0.5
    d = _one(_frame(list("aabb"), list("xxxy")))
    assert d.t_distance == "equal"
    assert d.t_closeness == pytest.approx(0.5 * (abs(1 - 0.75) + abs(0 - 0.25)))


def test_t_closeness_ordered_distance_for_numbers() -> None:
    # values 1, 2, 3 equally often; class a holds only 1 -> cumulative differences
    # (1 - 1/3) + (1 - 2/3) over m - 1 = 2 -> 0.5
    frame = _frame(list("aabbcc"), ["1", "1", "2", "2", "3", "3"])
    d = _one(frame)
    assert d.t_distance == "ordered"
    assert d.t_closeness == pytest.approx(0.5)


def test_adult_salary_class_t(public_data: Path) -> None:
    frame = pd.read_csv(public_data / "adult" / "adult.csv", sep=";", dtype=S)
    qis = [c for c in frame.columns if c != "salary-class"]
    d = risk_report(frame, qis, sensitive=["salary-class"]).diversity[0]
    assert d.t_closeness == pytest.approx(0.7511, abs=5e-5)
    assert (d.l, d.l_entropy, d.l_recursive) == (1, 1.0, 1)


def _brute(frame: pd.DataFrame, c: float) -> tuple[int, float, int, float]:
    """The definitions computed class by class with a plain pandas group-by."""
    allv = frame["s"].astype(object).where(frame["s"].notna(), "<NA>")
    q = allv.value_counts(normalize=True)
    numbers = pd.to_numeric(frame["s"].dropna(), errors="coerce")
    numeric = len(numbers) > 0 and bool(numbers.notna().all())
    ls, les, lrs, ts = [], [], [], []
    for _, vals in frame.groupby("g", dropna=False)["s"]:
        counts = sorted(vals.dropna().value_counts().tolist(), reverse=True)
        total = sum(counts)
        ls.append(max(len(counts), 1))
        les.append(math.exp(-sum(n / total * math.log(n / total) for n in counts)) if counts else 1)
        lrs.append(
            max(
                [1] + [j for j in range(1, len(counts) + 1) if counts[0] < c * sum(counts[j - 1 :])]
            )
        )
        p = vals.astype(object).where(vals.notna(), "<NA>").value_counts(normalize=True)
        if not numeric:
            keys = set(q.index) | set(p.index)
            ts.append(0.5 * sum(abs(p.get(k, 0) - q.get(k, 0)) for k in keys))
            continue
        ranks: dict[object, list[str]] = {}
        for x in sorted((x for x in q.index if x != "<NA>"), key=float):
            ranks.setdefault(float(x), []).append(x)
        if "<NA>" in q.index:
            ranks["<NA>"] = ["<NA>"]
        cum, dist, groups = 0.0, 0.0, list(ranks.values())
        for xs in groups[:-1]:
            cum += sum(p.get(x, 0) - q.get(x, 0) for x in xs)
            dist += abs(cum)
        ts.append(dist / (len(groups) - 1) if len(groups) > 1 else 0.0)
    return min(ls), min(les), min(lrs), max(ts)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c", None]),
            st.one_of(st.none(), st.sampled_from(["x", "y", "z", "w"])),
        ),
        min_size=1,
        max_size=40,
    ),
    numeric=st.booleans(),
    c=st.sampled_from([1.5, 2.0, 4.0]),
)
def test_figures_equal_a_brute_force_group_by(
    rows: list[tuple[str | None, str | None]], numeric: bool, c: float
) -> None:
    to_num = {"x": "1", "y": "2.0", "z": "2", "w": "10"}
    values = [None if v is None else (to_num[v] if numeric else v) for _, v in rows]
    frame = _frame([g for g, _ in rows], values)
    d = _one(frame, c=c)
    brute = _brute(frame, c)
    assert d.l == brute[0]
    assert d.l_entropy == pytest.approx(brute[1], abs=1e-5)
    assert d.l_recursive == brute[2]
    assert d.t_closeness == pytest.approx(brute[3], abs=1e-5)
    assert 0.0 <= d.t_closeness <= 1.0 + 1e-9


def test_wide_numeric_sensitive_column_with_many_classes() -> None:
    rng = np.random.default_rng(3)
    n = 200_000
    frame = pd.DataFrame(
        {"g": rng.integers(0, 50_000, n).astype(str), "s": rng.integers(0, 90, n).astype(str)}
    ).astype(S)
    d = _one(frame)
    assert d.t_distance == "ordered" and d.l >= 1 and 0 < d.t_closeness <= 1
