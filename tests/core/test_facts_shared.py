"""Facts computed once and shared (core.facts.shared), and the build's faster forms of
year text, pooled ages and small cells: each equal to the plain form it replaces."""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core import engine
from deid_desktop.core.demo import write_demo
from deid_desktop.core.facts import shared
from deid_desktop.core.facts.dates import DateCache
from deid_desktop.core.facts.persons import all_positions, spec_for
from deid_desktop.core.facts.shared import facts_for
from deid_desktop.core.model import ColumnClass, Role
from deid_desktop.core.pathways.number_text import pool_ages, year_text
from deid_desktop.core.risk.cells import small_cells
from deid_desktop.core.verify.base import VerifyContext

S = pd.StringDtype("pyarrow")


def _date_tags(project, table):  # type: ignore[no-untyped-def]
    spec = spec_for(project, table)
    return [
        t
        for t in spec.columns
        if t.cls == ColumnClass.DATE or t.role in (Role.BIRTH_DATE, Role.INDEX_DATE)
    ]


def test_the_load_hands_positions_and_dates_to_the_build_and_the_gate(tmp_path: Path) -> None:
    path = write_demo(tmp_path / "demo", rows=300)
    project, _ = engine.open_project(path)
    extract = engine.load(project, path)
    facts = facts_for(extract, project)
    assert facts_for(extract, project) is facts  # one set of facts per extract and project
    # the positions the relation check found are the ones found from scratch
    assert "positions" in facts.__dict__
    fresh = all_positions(extract, project)
    assert set(fresh) == set(facts.positions)
    for name, positions in fresh.items():
        np.testing.assert_array_equal(facts.positions[name], positions)
    # the dates the load parsed are the ones a fresh cache parses, with the same format
    cold = DateCache(extract)
    checked = 0
    for table in extract.tables:
        for tag in _date_tags(project, table):
            assert (table.name, tag.name) in facts.dates._cache
            pd.testing.assert_series_equal(
                facts.dates.get(table.name, tag), cold.get(table.name, tag)
            )
            key = f"{table.name}.{tag.name}"
            assert facts.dates.formats[key] == cold.formats[key]
            checked += 1
    assert checked >= 3
    # the gate reads the same facts as the pathway
    ctx = VerifyContext(extract, project)
    assert ctx.positions is facts.positions and ctx.dates is facts.dates
    assert ctx.ages is facts.ages(project.transform.age_reference)
    # another project object is another set of facts (a changed tag cannot read stale ones)
    other, _ = engine.open_project(path)
    assert facts_for(extract, other) is not facts


def test_the_facts_go_with_the_extract(tmp_path: Path) -> None:
    path = write_demo(tmp_path / "demo", rows=120)
    project, _ = engine.open_project(path)
    extract = engine.load(project, path)
    facts_for(extract, project).ages(project.transform.age_reference)
    key = (id(extract), id(project))
    assert key in shared._FACTS
    del extract
    gc.collect()
    assert key not in shared._FACTS  # the facts held the extract only weakly


_DAYS = st.one_of(st.none(), st.integers(-25_000, 25_000))


@settings(max_examples=60, deadline=None)
@given(days=st.lists(_DAYS, min_size=1, max_size=40), data=st.data())
def test_year_text_is_the_year_as_text_blanked_and_in_order(
    days: list[int | None], data: st.DataObject
) -> None:
    n = len(days)
    dates = pd.Series(
        [pd.NaT if d is None else pd.Timestamp("1970-01-01") + pd.Timedelta(days=d) for d in days],
        dtype="datetime64[ns]",
    )
    blank = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    order = np.array(data.draw(st.permutations(range(n))), dtype=np.int64)
    plain = dates.dt.year.astype("Int64").astype(S)
    plain[blank] = pd.NA
    expected = plain.iloc[order].reset_index(drop=True)
    pd.testing.assert_series_equal(year_text(dates, blank, order), expected, check_names=False)
    pd.testing.assert_series_equal(
        year_text(dates), dates.dt.year.astype("Int64").astype(S), check_names=False
    )


@settings(max_examples=60, deadline=None)
@given(
    ages=st.lists(st.one_of(st.none(), st.integers(-3, 130)), min_size=1, max_size=40),
    data=st.data(),
)
def test_pooled_ages_are_the_plain_text_with_90_plus(
    ages: list[int | None], data: st.DataObject
) -> None:
    n = len(ages)
    numbers = pd.Series(ages, dtype="Int64", name="age")
    force = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    order = np.array(data.draw(st.permutations(range(n))), dtype=np.int64)
    over = (numbers > 89).fillna(False).to_numpy(dtype=bool) | (force & numbers.notna().to_numpy())
    plain = numbers.astype(S).where(~over, "90+")
    pd.testing.assert_series_equal(pool_ages(numbers, force), plain)
    pd.testing.assert_series_equal(
        pool_ages(numbers, force, order), plain.iloc[order].reset_index(drop=True)
    )


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["S01", "S02", "S03", "S04", "S05"]),
            st.one_of(st.none(), st.sampled_from(list("abcdef"))),
        ),
        min_size=1,
        max_size=40,
    ),
    k=st.integers(2, 5),
)
def test_small_cells_of_a_release_in_id_order_equal_those_in_any_order(
    rows: list[tuple[str, str | None]], k: int
) -> None:
    frame = pd.DataFrame(rows, columns=["subject", "dx"]).astype(S)
    ordered = frame.sort_values("subject", kind="stable").reset_index(drop=True)
    (shuffled_cells,) = small_cells(frame, table="t", person="subject", columns=["dx"], k=k)
    (ordered_cells,) = small_cells(ordered, table="t", person="subject", columns=["dx"], k=k)
    assert ordered_cells.to_dict() == shuffled_cells.to_dict()
    assert dict(ordered_cells.values) == dict(shuffled_cells.values)
    holders = frame.dropna().groupby("dx")["subject"].nunique()
    assert ordered_cells.small == int((holders < k).sum())
