"""Issue 9's open items and issue 17 item 3, on extracts generated here:

* a ZIP column tagged direct with the ZIP role is removed (Safe Harbor, linkable), kept
  as a 5-digit ZIP in a limited data set;
* short events that cross New Year are counted by a warning (not refused);
* a linkable release refuses a date column tagged clinical (left unshifted), naming the
  column and how to tag it; tagged as a date, the same column is shifted and passes.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from deid_desktop.core.model import (
    ColumnTag,
    ExportMeta,
    Extract,
    IdentifierCategory,
    Pathway,
    Project,
    Role,
    TableSpec,
)
from deid_desktop.core.pathways import build_release
from deid_desktop.core.verify import verify_release
from tests.core.support import CL, DT, TEXT, D, Q, loaded
from tests.core.test_safe_harbor_support import (
    PEOPLE_TAGS,
    make_case,
    replace_frame,
    tag,
    with_tag,
)

SALT = bytes(range(7, 39))
KEY = ColumnTag("pid", D, Role.PERSON_KEY, IdentifierCategory.R)


def _labs_case(persons: int = 172, per_person: int = 3, fmt: str = "%Y-%m-%d", seed: int = 5):
    """A person table and a lab table of ``persons * per_person`` rows whose
    ``collected`` date (written with ``fmt``) is tagged clinical; ``drawn`` is a date."""
    rng = np.random.default_rng(seed)
    pids = [f"P{i:04d}" for i in range(persons)]
    born = [
        dt.date(1950, 1, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 15000, persons)
    ]
    people = pd.DataFrame(
        {
            "pid": pd.array(pids, dtype=TEXT),
            "dob": pd.array([b.isoformat() for b in born], dtype=TEXT),
            "sex": pd.array(rng.choice(["F", "M"], persons).tolist(), dtype=TEXT),
        }
    )
    rows = [(p, j) for p in pids for j in range(per_person)]
    start = dt.date(2023, 1, 1)
    drawn = [start + dt.timedelta(days=int(d)) for d in rng.integers(0, 700, len(rows))]
    labs = pd.DataFrame(
        {
            "pid": pd.array([p for p, _ in rows], dtype=TEXT),
            "drawn": pd.array([d.isoformat() for d in drawn], dtype=TEXT),
            "collected": pd.array(
                [(d + dt.timedelta(days=1)).strftime(fmt) for d in drawn], dtype=TEXT
            ),
            "value": pd.array([str(v) for v in rng.integers(1, 400, len(rows))], dtype=TEXT),
        }
    )
    people_tags = (KEY, ColumnTag("dob", DT, Role.BIRTH_DATE), ColumnTag("sex", Q, Role.SEX))
    lab_tags = (
        KEY,
        ColumnTag("drawn", DT, Role.INDEX_DATE),
        ColumnTag("collected", CL),
        ColumnTag("value", CL),
    )
    project = Project(
        "0" * 32,
        "labs",
        (
            TableSpec("people", "people.csv", "0" * 64, "pid", True, people_tags),
            TableSpec("labs", "labs.csv", "0" * 64, "pid", False, lab_tags),
        ),
        pathway=Pathway.LINKABLE,
        export=ExportMeta(dua="DUA-1"),
    )
    return Extract(loaded("people", people), (loaded("labs", labs),)), project


@pytest.mark.parametrize("fmt", ["%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%Y-%m-%dT%H:%M:%S"])
def test_a_linkable_release_refuses_an_unshifted_date_column(fmt: str) -> None:
    extract, project = _labs_case(fmt=fmt)
    release = build_release(extract, project, salt=SALT)
    verification = verify_release(extract, release, project)
    outcome = verification.outcome("linkable_no_unshifted_dates")
    assert not outcome.passed
    assert outcome.count == 516
    assert outcome.detail["cells_by_column"] == {"labs.collected": 516}
    (message,) = outcome.detail["messages"]
    assert message.startswith("Column labs.collected holds 516 dates that were not shifted")
    assert "tag it as a date" in message
    assert [o.check.id for o in verification.blocking_failures] == ["linkable_no_unshifted_dates"]


def test_the_same_column_tagged_as_a_date_is_shifted_and_passes() -> None:
    extract, project = _labs_case()
    spec = project.table("labs").with_column(ColumnTag("collected", DT))
    project = replace(project, tables=(project.tables[0], spec))
    release = build_release(extract, project, salt=SALT)
    verification = verify_release(extract, release, project)
    assert verification.passed, [o.check.id for o in verification.blocking_failures]
    assert verification.outcome("linkable_no_unshifted_dates").count == 0


# ------------------------------------------------------------------ ZIP tagged direct


def _zip_direct(pathway: Pathway):  # type: ignore[no-untyped-def]
    tags = with_tag(PEOPLE_TAGS, tag("zip", D, role=Role.ZIP, category=IdentifierCategory.B))
    extract, project = make_case(people_tags=tags)
    return extract, replace(project, pathway=pathway, export=ExportMeta(dua="DUA-1"))


@pytest.mark.parametrize("pathway", [Pathway.SAFE_HARBOR, Pathway.LINKABLE])
def test_a_zip_tagged_direct_is_removed(pathway: Pathway) -> None:
    extract, project = _zip_direct(pathway)
    release = build_release(extract, project, salt=SALT)
    people = release.tables["people"]
    assert "zip" not in people.columns and "zip3" not in people.columns
    assert any("people.zip" in s for s in release.transformations)


def test_a_zip_tagged_direct_stays_a_zip_in_a_limited_data_set() -> None:
    extract, project = _zip_direct(Pathway.LIMITED_DATA_SET)
    release = build_release(extract, project)
    zips = release.tables["people"]["zip"].dropna()
    assert len(zips) and zips.str.fullmatch(r"\d{5}").all()


# ------------------------------------------------------------------ New Year


def test_short_events_across_new_year_are_counted_in_a_warning() -> None:
    extract, project = make_case(12)
    stays = extract.table("stays").frame.copy()
    admit = ["2023-12-31"] * 3 + ["2023-12-20"] * 2 + ["2024-01-28"] * 7
    discharge = ["2024-01-01"] * 3 + ["2024-01-10"] * 2 + ["2024-02-01"] * 7
    stays["admit_date"] = pd.array(admit, dtype=TEXT)
    stays["discharge_date"] = pd.array(discharge, dtype=TEXT)
    extract = replace_frame(extract, "stays", stays)
    release = build_release(extract, project)
    verification = verify_release(extract, release, project)
    outcome = verification.outcome("new_year_events")
    assert outcome.check.severity == "warning"
    assert verification.passed  # a warning does not refuse the release
    # rows 0-2 cross New Year in 1 day; rows 3-4 in 21 days (not short); row 1 of
    # the people table (line 3) is 94 and has no year released
    old = {1, 1 + 6}
    expected = sum(1 for i in range(3) if i not in old)
    assert outcome.count == expected
    assert outcome.detail["events_by_column_pair"] == {
        "stays.admit_date and stays.discharge_date": expected
    }
    assert "span New Year within 7 days" in outcome.detail["messages"][0]


def test_no_short_event_across_new_year_passes() -> None:
    extract, project = make_case(6)
    release = build_release(extract, project)
    outcome = verify_release(extract, release, project).outcome("new_year_events")
    assert outcome.passed and outcome.count == 0
