"""The motivated-intruder simulation, recomputed by a plain join."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import UsageError
from deid_desktop.core.risk.intruder import simulate_intruder

S = "string[pyarrow]"


def _by_join(rel: pd.DataFrame, ident: pd.DataFrame, on: list[str]) -> tuple[int, float, int]:
    """certain, expected matches, targets hiding among nobody: by pandas merge."""
    r = rel.astype(object).fillna("<NA>").reset_index(names="r")
    i = ident.astype(object).fillna("<NA>")
    pairs = r.merge(i, on=on, how="left", suffixes=("", "_id"), indicator=True)
    pairs["hit"] = pairs["key"] == pairs["key_id"]
    sizes = pairs[pairs["_merge"] == "both"].groupby("r").size()
    hits = pairs.groupby("r")["hit"].any()
    per = pd.DataFrame({"size": sizes, "hit": hits}).fillna({"size": 0})
    certain = int(((per["size"] == 1) & per["hit"]).sum())
    expected = float((per["hit"] / per["size"].clip(lower=1)).sum())
    return certain, expected, int((per["size"] == 0).sum())


@settings(max_examples=80, deadline=None)
@given(
    people=st.lists(
        st.tuples(st.sampled_from(["F", "M", None]), st.sampled_from(["30-39", "40-49", "90+"])),
        min_size=1,
        max_size=30,
    ),
    released=st.lists(st.booleans(), min_size=30, max_size=30),
    roll=st.lists(st.booleans(), min_size=30, max_size=30),
)
def test_figures_equal_a_plain_join(
    people: list[tuple[str | None, str]], released: list[bool], roll: list[bool]
) -> None:
    everyone = pd.DataFrame(
        {"key": [f"p{i}" for i in range(len(people))], "sex": [p[0] for p in people],
         "age": [p[1] for p in people]}
    ).astype(S)  # fmt: skip
    rel = everyone[[released[i] for i in range(len(people))]].reset_index(drop=True)
    ident = everyone[[roll[i] or not released[i] for i in range(len(people))]]
    ident = ident.reset_index(drop=True)
    report = simulate_intruder(
        rel, ident, ["sex", "age"], release_keys=rel["key"], identified_keys=ident["key"]
    )
    certain, expected, none = _by_join(rel, ident, ["sex", "age"])
    assert report.targets == len(rel)
    assert report.certain == certain
    assert report.expected_matches == pytest.approx(expected)
    assert report.hidden_among["0"] == none
    assert sum(report.hidden_among.values()) == len(rel)


def test_a_unique_person_is_found_for_sure_and_a_pair_half_each() -> None:
    rel = pd.DataFrame({"key": ["a", "b", "c"], "age": ["40-49", "50-59", "50-59"]}).astype(S)
    report = simulate_intruder(rel, rel, ["age"], release_keys=rel["key"],
                               identified_keys=rel["key"])  # fmt: skip
    assert report.certain == 1
    assert report.expected_matches == pytest.approx(2.0)
    assert report.hidden_among == {"0": 0, "1": 1, "2": 2, "3-4": 0, "5-9": 0, "10-19": 0,
                                   "20+": 0}  # fmt: skip
    assert "40-49" not in str(report.to_dict())  # counts only


def test_unknown_link_column_is_a_usage_error() -> None:
    rel = pd.DataFrame({"key": ["a"], "age": ["1"]}).astype(S)
    with pytest.raises(UsageError, match="no column 'zip3'"):
        simulate_intruder(rel, rel, ["zip3"], release_keys=rel["key"], identified_keys=rel["key"])


def test_many_targets_on_three_columns() -> None:
    rng = np.random.default_rng(5)
    n = 300_000
    frame = pd.DataFrame(
        {"key": np.arange(n).astype(str), "age": rng.integers(0, 90, n).astype(str),
         "sex": rng.choice(["F", "M"], n), "zip3": rng.integers(0, 900, n).astype(str)}
    ).astype(S)  # fmt: skip
    report = simulate_intruder(frame, frame, ["age", "sex", "zip3"], release_keys=frame["key"],
                               identified_keys=frame["key"])  # fmt: skip
    assert report.targets == n and 0 < report.certain < n
