"""The optimal generalization search: the golden test against ARX's published solution on
adult, and hypothesis properties (every candidate reaches k within the limit; no node of
an exhaustively enumerated small lattice beats the reported optimum)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import UsageError
from deid_desktop.core.risk.hierarchy import Hierarchy, read_hierarchy_dir
from deid_desktop.core.risk.lattice import Prepared, evaluate, search
from deid_desktop.core.risk.loss import METRICS

ADULT = Path(__file__).resolve().parents[1] / "data" / "adult"
QIS = [
    "age",
    "education",
    "marital-status",
    "native-country",
    "workclass",
    "occupation",
    "race",
    "sex",
]
ARX_LEVELS = (3, 1, 0, 1, 1, 2, 0, 0)  # ARX 3.9's optimum (issue 10)


@pytest.fixture(scope="module")
def adult() -> Prepared:
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=pd.StringDtype("pyarrow"))
    return Prepared(frame, QIS, read_hierarchy_dir(ADULT, QIS))


def test_arx_solution_scores_as_arx_reports_it(adult: Prepared) -> None:
    arx = evaluate(adult, ARX_LEVELS, k=5)
    assert (arx.suppressed, arx.classes, arx.k) == (1458, 399, 5)
    assert round(arx.loss, 3) == 0.252  # ARX's "Loss"
    assert round(arx.iyengar, 3) == 0.292  # Iyengar's LM, as issue 10 scores it


def test_golden_adult_k5_five_percent(adult: Prepared) -> None:
    arx = evaluate(adult, ARX_LEVELS, k=5)
    result = search(adult, k=5, max_suppression=0.05, metric="loss")
    best = result.best
    assert best is not None and result.complete
    assert best.suppressed <= 1458
    assert best.loss <= 0.252
    assert round(best.iyengar, 3) <= 0.292  # ARX's node scores 0.29232, published as 0.292
    assert best.discernibility <= arx.discernibility
    assert best.aecs <= arx.aecs
    assert best.k is not None and best.k >= 5
    assert result.evaluated < result.lattice_size  # pruning did work
    again = search(adult, k=5, max_suppression=0.05, metric="loss")
    assert again.best == best  # deterministic


def test_every_metric_finds_a_feasible_node(adult: Prepared) -> None:
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=pd.StringDtype("pyarrow")).head(4000)
    qis = QIS[:5]
    small = Prepared(frame, qis, read_hierarchy_dir(ADULT, qis))
    for metric in METRICS:
        result = search(small, k=5, metric=metric)
        best = result.best
        assert best is not None and best.suppressed <= 0.05 * best.rows and result.complete
    with pytest.raises(UsageError):
        search(adult, k=5, metric="nonsense")


def test_time_limit_gives_best_effort(adult: Prepared) -> None:
    result = search(adult, k=5, metric="discernibility", time_limit=0.0)
    assert not result.complete
    assert result.evaluated < result.lattice_size


def test_zero_suppression_limit_and_k1(adult: Prepared) -> None:
    strict = search(adult, k=5, max_suppression=0.0).best
    assert strict is not None and strict.suppressed == 0
    trivial = search(adult, k=1).best
    assert trivial is not None and trivial.levels == (0,) * len(QIS) and trivial.loss == 0.0


# ----------------------------------------------------------------- hypothesis properties


def _hierarchy(column: str, n_values: int, shape: list[int]) -> Hierarchy:
    """Values v0..v{n-1}; level j groups them by integer division with growing widths."""
    rows = []
    for v in range(n_values):
        row = [f"v{v}"]
        width = 1
        for w in shape:
            width *= w
            row.append(f"g{width}_{v // width}")
        row.append("*")
        rows.append(tuple(row))
    return Hierarchy(column, tuple(rows))


@st.composite
def problems(draw: st.DrawFn) -> tuple[pd.DataFrame, dict[str, Hierarchy], int, float]:
    m = draw(st.integers(1, 3))
    n = draw(st.integers(1, 60))
    columns, hierarchies = [], {}
    for i in range(m):
        name = f"q{i}"
        n_values = draw(st.integers(1, 6))
        shape = draw(st.lists(st.integers(2, 3), max_size=2))
        codes = draw(st.lists(st.integers(0, n_values - 1), min_size=n, max_size=n))
        missing = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        col = [None if gone else f"v{c}" for c, gone in zip(codes, missing, strict=True)]
        columns.append(pd.Series(col, dtype=pd.StringDtype("pyarrow"), name=name))
        hierarchies[name] = _hierarchy(name, n_values, shape)
    k = draw(st.integers(1, 5))
    limit = draw(st.sampled_from([0.0, 0.05, 0.2, 0.5]))
    return pd.concat(columns, axis=1), hierarchies, k, limit


def _suppressed_by_pandas(
    frame: pd.DataFrame, hierarchies: dict[str, Hierarchy], levels: tuple[int, ...], k: int
) -> int:
    """Rows in classes smaller than k, counted independently with pandas."""
    gen = pd.DataFrame(
        {
            c: hierarchies[c].generalize(frame[c], lv)
            for c, lv in zip(frame.columns, levels, strict=True)
        }
    )
    sizes = gen.groupby(list(gen.columns), dropna=False, observed=True)[gen.columns[0]].transform(
        "size"
    )
    return int((sizes.to_numpy() < k).sum())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(METRICS))
def test_candidates_reach_k_and_the_optimum_is_not_beaten(
    problem: tuple[pd.DataFrame, dict[str, Hierarchy], int, float], metric: str
) -> None:
    frame, hierarchies, k, limit = problem
    prepared = Prepared(frame, list(frame.columns), hierarchies)
    result = search(prepared, k=k, max_suppression=limit, metric=metric)
    allowed = np.floor(limit * len(frame) + 1e-9)
    for cand in result.candidates:
        assert _suppressed_by_pandas(frame, hierarchies, cand.levels, k) == cand.suppressed
        assert cand.suppressed <= allowed
        assert cand.k is None or cand.k >= k
    feasible = []
    for levels in itertools.product(*(range(h) for h in prepared.heights)):
        if _suppressed_by_pandas(frame, hierarchies, levels, k) <= allowed:
            feasible.append(evaluate(prepared, levels, k=k))
    # the top node pools everything: it is always feasible when k <= rows or all suppressed
    if not feasible:
        assert result.best is None
        return
    assert result.best is not None
    best_value = result.best.metric(metric)
    assert all(f.metric(metric) >= best_value - 1e-9 for f in feasible)


def test_too_large_a_lattice_gets_a_greedy_best_effort(
    adult: Prepared, monkeypatch: pytest.MonkeyPatch
) -> None:
    import deid_desktop.core.risk.lattice as lattice

    optimum = search(adult, k=5).best
    monkeypatch.setattr(lattice, "NODE_LIMIT", 100)
    result = search(adult, k=5)
    assert not result.complete and result.best is not None and optimum is not None
    assert result.best.suppressed <= 0.05 * result.best.rows and result.best.k >= 5
    assert result.best.loss >= optimum.loss  # never better than the proven optimum
    assert result.evaluated < 200


def test_an_empty_table_is_trivially_k_anonymous() -> None:
    frame = pd.DataFrame({"a": pd.Series([], dtype=pd.StringDtype("pyarrow"))})
    h = {"a": Hierarchy("a", (("x", "*"),))}
    best = search(Prepared(frame, ["a"], h), k=5).best
    assert best is not None and best.levels == (0,) and best.rows == 0 and best.suppressed == 0
