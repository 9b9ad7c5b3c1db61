"""Raising k: age bands, dropping a column, dates to year, suppression (with preview),
and hypothesis properties of suppression and of the class counts."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import InputError, UsageError
from deid_desktop.core.risk import (
    age_band_labels,
    apply_age_bands,
    band_ages,
    drop_column,
    preview_suppression,
    risk_report,
    suppress_below_k,
    to_year,
)

BREAKS = (0, 18, 30, 45, 65, 75, 90)


def test_age_band_labels() -> None:
    assert age_band_labels(BREAKS) == (
        "0-17",
        "18-29",
        "30-44",
        "45-64",
        "65-74",
        "75-89",
        "90+",
    )
    assert age_band_labels((18, 30, 75))[-1] == "75+"


@pytest.mark.parametrize(
    ("age", "band"),
    [
        ("0", "0-17"),
        ("17", "0-17"),
        ("18", "18-29"),
        ("29", "18-29"),
        ("44.9", "30-44"),
        ("89", "75-89"),
        ("90", "90+"),
        ("90+", "90+"),
        (" 64 ", "45-64"),
    ],
)
def test_apply_age_bands(age: str, band: str) -> None:
    out = apply_age_bands(pd.Series([age], dtype="string"), BREAKS)
    assert out.iloc[0] == band


def test_age_bands_keep_missing_and_label_below_first_break() -> None:
    out = apply_age_bands(pd.Series(["12", None, "40"], dtype="string"), (18, 65))
    assert out.iloc[0] == "<18"
    assert pd.isna(out.iloc[1])
    assert out.iloc[2] == "18-64"


def test_age_bands_refuse_to_split_top_coded_ages() -> None:
    with pytest.raises(UsageError, match="top-coded"):
        apply_age_bands(pd.Series(["90+", "40"], dtype="string"), (0, 50, 95))
    assert apply_age_bands(pd.Series(["90+"], dtype="string"), (0, 75)).iloc[0] == "75+"


def test_age_bands_reject_text_without_showing_it() -> None:
    with pytest.raises(InputError) as err:
        apply_age_bands(pd.Series(["40", "forty"], dtype="string", name="age"), BREAKS)
    assert "forty" not in str(err.value)
    assert err.value.row == 3 and err.value.column == "age"


@pytest.mark.parametrize("breaks", [(), (30, 18), (0, 0, 5), (-1, 5)])
def test_bad_breaks(breaks: tuple[int, ...]) -> None:
    with pytest.raises(UsageError):
        apply_age_bands(pd.Series(["1"], dtype="string"), breaks)


def test_band_ages_returns_new_frame_and_what_it_did() -> None:
    frame = pd.DataFrame({"age": ["33", "91"], "sex": ["F", "M"]}, dtype="string")
    out, step = band_ages(frame, "age", BREAKS)
    assert out["age"].tolist() == ["30-44", "90+"]
    assert frame["age"].tolist() == ["33", "91"]  # input untouched
    assert step.action == "age_bands" and "30-44" in step.description


def test_drop_column_zip3_to_none_raises_k() -> None:
    frame = pd.DataFrame(
        {"sex": ["F", "F", "M", "M"], "zip3": ["100", "101", "102", "103"]}, dtype="string"
    )
    assert risk_report(frame, ["sex", "zip3"]).k == 1
    out, step = drop_column(frame, "zip3")
    assert "zip3" not in out.columns and "zip3" in frame.columns
    assert risk_report(out, ["sex"]).k == 2
    assert step.action == "drop_column"


def test_to_year() -> None:
    frame = pd.DataFrame({"admit": ["2024-03-05", None, "2023", "1999-12-31"]}, dtype="string")
    out, step = to_year(frame, "admit", "%Y-%m-%d")
    assert out["admit"].tolist()[0] == "2024"
    assert pd.isna(out["admit"].iloc[1])
    assert out["admit"].tolist()[2:] == ["2023", "1999"]
    assert step.action == "to_year"
    with pytest.raises(InputError) as err:
        to_year(pd.DataFrame({"d": ["03/05/2024"]}, dtype="string"), "d", "%Y-%m-%d")
    assert "03/05" not in str(err.value)


def test_suppression_preview_matches_commit() -> None:
    frame = pd.DataFrame(
        {"sex": ["F", "F", "F", "M", "M", "U"], "x": list("abcdef")}, dtype="string"
    )
    preview = preview_suppression(frame, ["sex"], 3)
    assert (preview.rows, preview.rows_removed, preview.classes_removed) == (6, 3, 2)
    assert preview.share == pytest.approx(0.5)
    kept, removed, share = suppress_below_k(frame, ["sex"], 3)
    assert removed == preview.rows_removed and share == preview.share
    assert kept["x"].tolist() == ["a", "b", "c"]
    assert kept.index.tolist() == [0, 1, 2]  # original index kept: caller sees which rows went
    assert len(frame) == 6


VALUES = st.sampled_from(["a", "b", "c", None])


@st.composite
def frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(min_value=0, max_value=60))
    cols = {name: draw(st.lists(VALUES, min_size=n, max_size=n)) for name in ("q1", "q2", "q3")}
    return pd.DataFrame(cols, dtype="string")


@settings(max_examples=150, deadline=None)
@given(frame=frames(), k=st.integers(min_value=1, max_value=6))
def test_property_suppression_reaches_k(frame: pd.DataFrame, k: int) -> None:
    qis = ["q1", "q2", "q3"]
    kept, removed, _ = suppress_below_k(frame, qis, k)
    assert removed + len(kept) == len(frame)
    after = risk_report(kept, qis, k_target=k)
    assert after.rows == 0 or (after.k is not None and after.k >= k)
    assert after.below_k == 0


@settings(max_examples=150, deadline=None)
@given(frame=frames())
def test_property_counts_sum_to_rows_and_missing_never_dropped(frame: pd.DataFrame) -> None:
    qis = ["q1", "q2", "q3"]
    r = risk_report(frame, qis, k_target=3)
    assert sum(c.records for c in r.class_size_distribution) == len(frame) == r.rows
    assert sum(c.classes for c in r.class_size_distribution) == r.classes
    assert r.missing_counts == {q: int(frame[q].isna().sum()) for q in qis}
    expected = frame.groupby(qis, dropna=False).size()
    assert r.classes == len(expected)
    assert r.lone == int((expected == 1).sum())
    assert r.below_k == int(expected[expected < 3].sum())
