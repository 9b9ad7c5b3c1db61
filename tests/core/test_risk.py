"""Residual risk: golden figures on the adult data, small hand-checked frames, and the
rule that a missing value is a value."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from deid_desktop.core.errors import UsageError
from deid_desktop.core.risk import FORMULAS, risk_report

ADULT_QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]


def _read(path: Path, sep: str, strip: bool) -> pd.DataFrame:
    frame = pd.read_csv(path, sep=sep, dtype="string", keep_default_na=False)
    if strip:
        frame = frame.rename(columns=str.strip)
        frame = frame.apply(lambda c: c.str.strip())
    return frame


GOLDEN = [
    # file, sep, strip, rows, classes, k, lone, below 5
    ("adult.csv", ";", False, 30162, 18109, 1, 14021, 21977),
    ("adult_uci_raw.csv", ",", True, 32561, 19805, 1, 15480, 23905),
    ("adult_uci_raw.csv", ",", False, 32561, 19805, 1, 15480, 23905),
]


@pytest.mark.parametrize(("name", "sep", "strip", "rows", "classes", "k", "lone", "below"), GOLDEN)
def test_adult_golden(
    public_data: Path,
    name: str,
    sep: str,
    strip: bool,
    rows: int,
    classes: int,
    k: int,
    lone: int,
    below: int,
) -> None:
    frame = _read(public_data / "adult" / name, sep, strip)
    report = risk_report(frame, ADULT_QIS, k_target=5)
    assert (report.rows, report.classes, report.k, report.lone, report.below_k) == (
        rows,
        classes,
        k,
        lone,
        below,
    )
    assert sum(c.records for c in report.class_size_distribution) == rows
    assert sum(c.classes for c in report.class_size_distribution) == classes
    assert len(report.lone_records) == lone


def test_adult_raw_question_mark_is_a_value(public_data: Path) -> None:
    frame = _read(public_data / "adult" / "adult_uci_raw.csv", ",", True)
    assert (frame["workclass"] == "?").sum() > 0
    report = risk_report(frame, ADULT_QIS)
    assert report.missing_counts["workclass"] == 0  # "?" is kept as a value, not missing


def _small() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": ["30", "30", "30", "40", "40", "50", None, None],
            "sex": ["F", "F", "F", "M", "M", "F", "M", "M"],
            "dx": ["a", "b", "a", "c", "c", "d", "e", "e"],
        },
        dtype="string",
    )


def test_small_frame_by_hand() -> None:
    r = risk_report(_small(), ["age", "sex"], k_target=3, sensitive=["dx"])
    # classes: (30,F)x3, (40,M)x2, (50,F)x1, (NA,M)x2
    assert (r.rows, r.classes, r.k, r.lone, r.below_k, r.below_k_classes) == (8, 4, 1, 1, 5, 3)
    assert [(c.size, c.classes, c.records) for c in r.class_size_distribution] == [
        (1, 1, 1),
        (2, 2, 4),
        (3, 1, 3),
    ]
    assert r.lone_rows.tolist() == [5]
    assert r.lone_records.loc[0, "age"] == "50"
    assert r.prosecutor_max == 1.0
    assert r.prosecutor_mean == pytest.approx(4 / 8)
    assert r.marketer == pytest.approx(4 / 8)
    # dx: (30,F) has a,b -> 2; (40,M) c -> 1; (50,F) d -> 1; (NA,M) e -> 1
    (d,) = r.diversity
    assert (d.column, d.l, d.classes_with_l1, d.records_with_l1) == ("dx", 1, 3, 5)
    assert r.l == 1


def test_missing_value_forms_its_own_class_and_is_declared() -> None:
    frame = pd.DataFrame({"zip3": pd.array(["100", None, None, "100"], dtype="string")})
    r = risk_report(frame, ["zip3"], k_target=2)
    assert r.classes == 2 and r.k == 2 and r.rows == 4
    assert r.missing_is_value is True
    assert r.missing_counts == {"zip3": 2}
    assert any("missing" in n.lower() for n in r.notes)


def test_rescue_names_the_quasi_identifier_that_frees_most_lone_records() -> None:
    frame = pd.DataFrame(
        {
            "age": ["31", "32", "33", "34", "35", "36"],
            "sex": ["F", "F", "F", "M", "M", "M"],
            "zip3": ["100", "100", "100", "100", "100", "200"],
        },
        dtype="string",
    )
    r = risk_report(frame, ["age", "sex", "zip3"])
    assert r.lone == 6
    by_qi = {x.quasi_identifier: x.rescued for x in r.rescue}
    # without age: (F,100)x3, (M,100)x2, (M,200)x1 -> 5 rescued
    assert by_qi == {"age": 5, "sex": 0, "zip3": 0}
    assert r.best_rescue is not None and r.best_rescue.quasi_identifier == "age"


def test_empty_frame_has_no_k_and_says_so() -> None:
    r = risk_report(pd.DataFrame({"a": pd.array([], dtype="string")}), ["a"])
    assert (r.rows, r.classes, r.k, r.lone, r.below_k) == (0, 0, None, 0, 0)
    assert any("no rows" in n for n in r.notes)
    assert r.summary_dict()["k"] is None


def test_no_quasi_identifier_puts_everyone_in_one_class() -> None:
    r = risk_report(_small(), [])
    assert (r.classes, r.k, r.lone) == (1, 8, 0)


def test_unknown_column_is_a_usage_error_naming_it() -> None:
    with pytest.raises(UsageError, match="'zip'"):
        risk_report(_small(), ["age", "zip"])
    with pytest.raises(UsageError):
        risk_report(_small(), ["age"], k_target=0)


def test_dicts_for_logs_carry_no_values() -> None:
    r = risk_report(_small(), ["age", "sex"], sensitive=["dx"])
    for d in (r.summary_dict(), r.to_dict()):
        text = json.dumps(d)
        assert '"50"' not in text and '"F"' not in text
        assert d["rows"] == 8
    full = r.to_dict()
    assert full["lone_rows"] == [5]
    assert "class_size_distribution" in full and "formulas" in full
    shown = r.to_dict(include_values=True)
    assert shown["lone_records"] == [{"row": 5, "values": {"age": "50", "sex": "F"}}]


def test_formulas_are_named() -> None:
    r = risk_report(_small(), ["age"])
    assert set(FORMULAS) <= set(r.formulas)
    assert "1 / k" in r.formulas["prosecutor_max"]
    assert "classes / rows" in r.formulas["marketer"]


def test_many_high_cardinality_columns_do_not_overflow() -> None:
    rng = np.random.default_rng(7)
    n = 5000
    frame = pd.DataFrame(
        {f"c{i}": rng.integers(0, 4000, n).astype(str) for i in range(8)}, dtype="string"
    )
    frame.iloc[1] = frame.iloc[0]
    r = risk_report(frame, list(frame.columns))
    expected = frame.groupby(list(frame.columns), dropna=False).size()
    assert r.classes == len(expected)
    assert r.lone == int((expected == 1).sum())
    assert r.k == 1


def test_matches_pandas_groupby_with_missing() -> None:
    rng = np.random.default_rng(3)
    n = 2000
    frame = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", None], n),
            "b": rng.choice(["1", "2", "3", None], n),
            "c": rng.choice(["p", "q"], n),
        }
    ).astype("string")
    r = risk_report(frame, ["a", "b", "c"], k_target=100)
    sizes = frame.groupby(["a", "b", "c"], dropna=False).size()
    assert r.classes == len(sizes)
    assert r.k == int(sizes.min())
    assert r.below_k == int(sizes[sizes < 100].sum())


def test_progress_reported_and_cancel_honoured() -> None:
    from deid_desktop.core.errors import Cancelled
    from deid_desktop.core.progress import CancelToken

    seen: list[float] = []
    risk_report(_small(), ["age", "sex"], progress=lambda f, s: seen.append(f))
    assert seen and seen[-1] == 1.0
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        risk_report(_small(), ["age", "sex"], cancel=token)
