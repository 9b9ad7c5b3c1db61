"""The rescue analysis (how many lone records would share their class with another
record if one quasi-identifier were left out) equals a plain group-by over the other
quasi-identifiers, whether the columns' ranges are small (counted directly) or so large
that the keys must be compacted first."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.risk import risk_report
from deid_desktop.core.risk.classes import equivalence_classes, rescued_counts


def _brute(frame: pd.DataFrame, qis: list[str]) -> list[int]:
    sizes = frame.groupby(qis, dropna=False)[qis[0]].transform("size")
    lone = (sizes == 1).to_numpy()
    out = []
    for q in qis:
        others = [c for c in qis if c != q]
        if others:
            rest = frame.groupby(others, dropna=False)[qis[0]].transform("size").to_numpy()
        else:
            rest = np.full(len(frame), len(frame))
        out.append(int((rest[lone] > 1).sum()))
    return out


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", None]), st.integers(0, 3), st.integers(0, 2)),
        min_size=1,
        max_size=40,
    )
)
def test_rescue_counts_equal_a_group_by(rows: list[tuple[str | None, int, int]]) -> None:
    frame = pd.DataFrame(rows, columns=["x", "y", "z"]).astype("string")
    qis = ["x", "y", "z"]
    report = risk_report(frame, qis, k_target=2)
    got = {r.quasi_identifier: r.rescued for r in report.rescue}
    expected = dict(zip(qis, _brute(frame, qis), strict=True)) if report.lone else {}
    assert got == expected


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=2, max_size=30), st.integers(0, 2**20))
def test_huge_ranges_are_compacted_and_count_the_same(codes: list[int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = len(codes)
    a = np.asarray(codes, dtype=np.int64)
    b = rng.integers(0, 3, n).astype(np.int64)
    # cardinalities whose product overflows the mixed-radix key (forces compaction)
    columns = [(a, 2**40), (b, 2**30), (a[::-1].copy(), 2**20)]
    frame = pd.DataFrame({"a": a, "b": b, "c": a[::-1]})
    classes = equivalence_classes(columns, n)
    assert classes.keys is None  # the key was compacted: no mixed-radix key to split
    sizes = frame.groupby(["a", "b", "c"])["a"].transform("size").to_numpy()
    assert sorted(classes.alone_rows.tolist()) == np.flatnonzero(sizes == 1).tolist()
    assert rescued_counts(classes, columns) == _brute(frame, ["a", "b", "c"])
