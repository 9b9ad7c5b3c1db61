"""The information-loss figures recomputed independently (pandas, from the definitions),
local suppression (cells, not rows, in the user's priority), and persons as the unit."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid_desktop.core.risk import risk_report
from deid_desktop.core.risk.hierarchy import Hierarchy, apply_levels, read_hierarchy_dir
from deid_desktop.core.risk.lattice import Prepared, evaluate, search
from deid_desktop.core.risk.local_suppression import BLANK, suppress_cells
from deid_desktop.core.risk.persons import PersonPrepared
from tests.core.test_generalize_search import ADULT, ARX_LEVELS, QIS, problems


def _reference(
    frame: pd.DataFrame, hierarchies: dict[str, Hierarchy], levels: tuple[int, ...], k: int
) -> dict[str, float]:
    """Every figure from its textbook definition, row by row (slow, plain pandas)."""
    cols = list(frame.columns)
    n = len(frame)
    gen = pd.DataFrame(
        {c: hierarchies[c].generalize(frame[c], lv) for c, lv in zip(cols, levels, strict=True)}
    ).fillna("<missing>")
    size = gen.groupby(cols, dropna=False)[cols[0]].transform("size").to_numpy()
    sup = size < k
    loss_i, lm_i, ent, ent_max, prec = [], [], 0.0, 0.0, []
    for c, lv in zip(cols, levels, strict=True):
        h = hierarchies[c]
        orig = frame[c].astype(object).where(frame[c].notna(), "<missing>")
        has_missing = bool(frame[c].isna().any())
        rows_h = [r for r in h.rows] + ([("<missing>",) * h.levels] if has_missing else [])
        if has_missing and len(set(h.level_labels(h.max_level))) == 1 and h.levels > 1:
            rows_h[-1] = (*rows_h[-1][:-1], h.rows[0][-1])
        label_of = {r[0]: r[lv] for r in rows_h}
        labels = orig.map(label_of)
        leaves = pd.Series([r[lv] for r in rows_h]).value_counts()
        share = labels.map(leaves).to_numpy(float) / len(rows_h)
        s = np.where(sup, 1.0, share).sum()
        lo = n / len(rows_h)
        loss_i.append(max(0.0, (s - lo) / (n - lo)) if n > lo else 0.0)
        present = [r for r in rows_h if r[0] in set(orig)]
        m_under = pd.Series([r[lv] for r in present]).value_counts()
        a = len(present)
        lm = (labels.map(m_under).to_numpy(float) - 1) / (a - 1) if a > 1 else np.zeros(n)
        lm_i.append(np.where(sup, 1.0, lm).mean())
        f = orig.map(orig.value_counts()).to_numpy(float)
        fl = labels.map(labels.value_counts()).to_numpy(float)
        ent += np.where(sup, -np.log2(f / n), -np.log2(f / fl)).sum()
        ent_max += (-np.log2(f / n)).sum()
        prec.append(np.where(sup, 1.0, lv / max(h.levels - 1, 1)).mean())
    kept_sizes = gen[~sup].groupby(cols, dropna=False).size().to_numpy()
    classes = len(kept_sizes)
    return {
        "loss": math.prod(1 + v for v in loss_i) ** (1 / len(cols)) - 1,
        "iyengar": float(np.mean(lm_i)),
        "entropy": ent / ent_max if ent_max else 0.0,
        "precision": float(np.mean(prec)),
        "discernibility": float((kept_sizes.astype(float) ** 2).sum()) + float(sup.sum()) * n,
        "aecs": n / (classes + (1 if sup.any() else 0)) if (classes or sup.any()) else 0.0,
        "suppressed": float(sup.sum()),
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.data())
def test_figures_match_their_definitions(problem, data: st.DataObject) -> None:  # type: ignore[no-untyped-def]
    frame, hierarchies, k, _ = problem
    prepared = Prepared(frame, list(frame.columns), hierarchies)
    levels = tuple(data.draw(st.integers(0, h - 1)) for h in prepared.heights)
    got = evaluate(prepared, levels, k=k)
    want = _reference(frame, hierarchies, levels, k)
    assert got.suppressed == want["suppressed"]
    for name in ("loss", "iyengar", "entropy", "precision", "discernibility", "aecs"):
        assert got.metric(name) == pytest.approx(want[name], rel=1e-9, abs=1e-9), name


# ------------------------------------------------------------------ local suppression


@pytest.fixture(scope="module")
def adult_at_arx_levels() -> pd.DataFrame:
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=pd.StringDtype("pyarrow"))
    hierarchies = read_hierarchy_dir(ADULT, QIS)
    return apply_levels(frame, hierarchies, dict(zip(QIS, ARX_LEVELS, strict=True)))


def test_local_suppression_blanks_cells_instead_of_1458_rows(
    adult_at_arx_levels: pd.DataFrame,
) -> None:
    result = suppress_cells(adult_at_arx_levels, QIS, 5, priority=["native-country", "race"])
    assert result.rows_suppressed == 0 and len(result.frame) == 30162  # no row lost
    assert result.rows_touched <= 1458  # only records of the classes below k
    assert result.cells_blanked < 1458 * 2  # far fewer cells than the rows' 8 values each
    assert result.by_column["native-country"] >= result.by_column["education"]
    assert risk_report(result.frame, QIS, k_target=5).k >= 5


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.data())
def test_local_suppression_reaches_k_and_leaves_safe_records_alone(problem, data) -> None:  # type: ignore[no-untyped-def]
    frame, _, k, _ = problem
    cols = list(frame.columns)
    priority = data.draw(st.permutations(cols))
    result = suppress_cells(frame, cols, k, priority=priority)
    out = result.frame
    assert len(out) + result.rows_suppressed == len(frame)
    if len(out):
        assert risk_report(out, cols, k_target=k).k >= k
    before = risk_report(frame, cols, k_target=k)
    safe_rows = np.setdiff1d(np.arange(len(frame)), np.flatnonzero(_below(frame, cols, k)))
    kept = out.index.intersection(frame.index[safe_rows])
    assert len(kept) == len(safe_rows)  # a record that was safe stays, unchanged
    pd.testing.assert_frame_equal(out.loc[kept, cols], frame.loc[kept, cols], check_dtype=False)
    assert result.cells_blanked == int((out[cols] == BLANK).sum().sum())
    assert before.below_k >= result.rows_touched + result.rows_suppressed


def _below(frame: pd.DataFrame, cols: list[str], k: int) -> np.ndarray:
    size = frame.groupby(cols, dropna=False)[cols[0]].transform("size")
    return size.to_numpy() < k


def test_priority_decides_which_column_is_blanked() -> None:
    # four lone records: blanking 'a' pairs them by 'b', blanking 'b' pairs them by 'a'
    frame = pd.DataFrame(
        {"a": ["x"] * 5 + ["y", "y", "z", "z"], "b": ["p"] * 5 + ["q", "r", "q", "r"]},
        dtype=pd.StringDtype("pyarrow"),
    )
    first_a = suppress_cells(frame, ["a", "b"], 2, priority=["a"])
    assert first_a.by_column == {"a": 4, "b": 0} and first_a.rows_suppressed == 0
    first_b = suppress_cells(frame, ["a", "b"], 2, priority=["b"])
    assert first_b.by_column == {"a": 0, "b": 4} and first_b.rows_suppressed == 0
    # a lone record that no blanking can pair is suppressed, and its blanks are not counted
    lone = suppress_cells(frame.head(6), ["a", "b"], 2, priority=["a"])
    assert lone.rows_suppressed == 1 and lone.cells_blanked == 0 and len(lone.frame) == 5


# ------------------------------------------------------------------ persons as the unit


def test_one_row_per_person_gives_the_row_answer() -> None:
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=pd.StringDtype("pyarrow")).head(3000)
    qis = ["age", "education", "sex"]
    hierarchies = read_hierarchy_dir(ADULT, qis)
    frame["pid"] = pd.array([f"p{i}" for i in range(len(frame))], dtype=pd.StringDtype("pyarrow"))
    rows = search(Prepared(frame, qis, hierarchies), k=5).best
    persons = search(PersonPrepared(frame, qis, hierarchies, "pid"), k=5).best
    assert rows is not None and persons is not None
    assert persons.levels == rows.levels and persons.suppressed == rows.suppressed
    assert persons.persons_suppressed == rows.suppressed and persons.classes == rows.classes


def test_k_counts_persons_and_event_values_per_person() -> None:
    # 4 persons, 2 visits each with a diagnosis; person-level sets decide the classes
    frame = pd.DataFrame(
        {
            "pid": ["1", "1", "2", "2", "3", "3", "4", "4"],
            "dx": ["A", "B", "A", "B", "A", "A", "B", "B"],
        },
        dtype=pd.StringDtype("pyarrow"),
    )
    h = {"dx": Hierarchy("dx", (("A", "AB", "*"), ("B", "AB", "*")))}
    people = PersonPrepared(frame, ["dx"], h, "pid")
    at0 = people.figures((0,), 2)
    # persons 1 and 2 share {A, B}; 3 has {A}, 4 has {B}: two persons alone
    assert at0.persons_suppressed == 2 and at0.suppressed == 4 and at0.classes == 1
    # by rows, 'A' and 'B' each appear 4 times: rows alone would call this k = 4
    assert evaluate(Prepared(frame, ["dx"], h), (0,), k=2).suppressed == 0
    best = search(people, k=2, max_suppression=0.0).best
    assert best is not None and best.levels == (1,) and best.persons_suppressed == 0
