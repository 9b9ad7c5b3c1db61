"""Properties of the Safe Harbor release on random extracts (hypothesis): no restricted
ZIP3, no year of a person over 89 and no full date ever survive, and the gate passes."""

from __future__ import annotations

import datetime as dt

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid_desktop.core.model import TransformOptions
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import verify_release
from deid_desktop.core.zip3 import load_bundled_zip3
from tests.core.test_safe_harbor_support import (
    DT,
    PEOPLE_TAGS,
    STAYS_TAGS,
    make_case,
    people,
    replace_frame,
    tag,
    with_tag,
)

FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%Y/%m/%d")
TABLE = load_bundled_zip3()
BAD_PREFIXES = sorted(set(TABLE.restricted))

births = st.dates(dt.date(1915, 1, 1), dt.date(2005, 12, 31))
discharges = st.dates(dt.date(2019, 1, 1), dt.date(2025, 12, 31))
zips = st.one_of(
    st.text("0123456789", min_size=5, max_size=5),
    st.builds(
        lambda p, s: p + s,
        st.sampled_from(BAD_PREFIXES),
        st.text("0123456789", min_size=2, max_size=2),
    ),
    st.none(),
    st.text(max_size=6),
)  # fmt: skip


def _age(born: dt.date, on: dt.date) -> int:
    return on.year - born.year - ((on.month, on.day) < (born.month, born.day))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(st.tuples(births, discharges, zips), min_size=1, max_size=25),
    fmt=st.sampled_from(FORMATS),
    with_age=st.booleans(),
)
def test_random_extracts_leave_no_restricted_zip3_no_old_year_no_full_date(
    rows: list[tuple[dt.date, dt.date, str | None]], fmt: str, with_age: bool
) -> None:
    n = len(rows)
    data = people(n).copy() if n > 6 else people(6).iloc[:n].copy()
    data["dob"] = pd.array([b.strftime(fmt) for b, _, _ in rows], dtype="string")
    data["zip"] = pd.array([z for _, _, z in rows], dtype="string")
    data["age"] = pd.array([str(_age(b, d)) for b, d, _ in rows], dtype="string")
    tags = with_tag(PEOPLE_TAGS, tag("dob", DT, role=PEOPLE_TAGS[4].role, date_format=fmt))
    if not with_age:
        data = data.drop(columns=["age"])
        tags = tuple(t for t in tags if t.name != "age")
    extract, project = make_case(people_frame=data, people_tags=tags, options=TransformOptions())
    stays = extract.table("stays").frame.copy()
    stays["discharge_date"] = pd.array([d.isoformat() for _, d, _ in rows], dtype="string")
    extract = replace_frame(extract, "stays", stays)
    assert STAYS_TAGS[2].name == "discharge_date"

    release = build_safe_harbor(extract, project)
    verification = verify_release(extract, release, project)
    assert verification.passed, [o.check.id for o in verification.blocking_failures]

    people_out = release.tables["people"].merge(release.crosswalk, on="subject_id")
    people_out = people_out.set_index("pid").loc[data["pid"]]
    # Over 89 at discharge, years 91 or more apart among those released (birth,
    # discharge, and the support data's 2024 admissions and visits), or born 90 or more
    # years before the year of the cut-off (the latest date in the extract).
    cutoff_year = max(2024, *(d.year for _, d, _ in rows), *(b.year for b, _, _ in rows))
    old = [
        _age(b, d) > 89
        or max(d.year, 2024) - min(b.year, d.year, 2024) >= 91
        or cutoff_year - b.year >= 90
        for b, d, _ in rows
    ]
    years = people_out["dob_year"].tolist()
    for is_old, year, (born, _, _) in zip(old, years, rows, strict=True):
        assert pd.isna(year) if is_old else year == str(born.year)
    zip3 = people_out["zip3"]
    assert not zip3.isin(BAD_PREFIXES).any()
    assert zip3.map(lambda z: z == "000" or TABLE.allowed(z)).all()
    for frame in release.tables.values():
        for col in frame.columns:
            cells = frame[col].dropna().astype(str)
            assert not cells.str.contains(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}").any(), col
