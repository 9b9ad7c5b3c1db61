"""Properties of the linkable release on random extracts (hypothesis): the gate's date
checks pass on what the pathway builds, and catch any single date moved by a day."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import CheckFailed
from deid_desktop.core.model import OffsetMode
from deid_desktop.core.pathways.linkable import build_linkable
from deid_desktop.core.verify import verify_release
from tests.core.linkable_fixtures import SALT, extract_and_project

DATE_CHECKS = ("intervals_preserved", "no_true_dates", "offsets_per_person")


def _frames(seed: int, persons: int, visits: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    day = np.datetime64("1930-01-01")
    dob = day + rng.integers(0, 30_000, persons).astype("timedelta64[D]")
    discharge = np.datetime64("2015-01-01") + rng.integers(0, 3000, persons).astype(
        "timedelta64[D]"
    )
    ages = (discharge - dob).astype("timedelta64[D]").astype(int) // 366
    ids = [f"P{i:03d}" for i in range(persons)]

    def text(values: list[str | None]) -> pd.Series:
        return pd.Series(values, dtype="string[pyarrow]")

    person = pd.DataFrame(
        {
            "patient_id": text(ids),
            "mrn": text([f"M-{i:05d}" for i in rng.permutation(persons)]),
            "first_name": text(["Name"] * persons),
            "street": text([None] * persons),
            "city": text(["Town"] * persons),
            "state": text(["NE"] * persons),
            "zip": text(["68504"] * persons),
            "phone": text([None] * persons),
            "dob": text([str(d) for d in dob]),
            "age": text([str(a) for a in ages]),
            "sex": text(list(rng.choice(["F", "M"], persons))),
            "discharge": text([pd.Timestamp(d).strftime("%m/%d/%Y") for d in discharge]),
            "notes": text([None] * persons),
            "ef": text([str(v) for v in rng.integers(10, 70, persons)]),
        }
    )
    who = rng.integers(0, persons, visits)
    at = np.datetime64("2015-01-01T00:00:00") + rng.integers(0, 10**8, visits).astype(
        "timedelta64[s]"
    )
    visit = pd.DataFrame(
        {
            "patient_id": text([ids[i] for i in who]),
            "visit_at": text([pd.Timestamp(t).strftime("%Y-%m-%d %H:%M:%S") for t in at]),
            "kind": text(["clinic"] * visits),
            "sbp": text([str(v) for v in rng.integers(90, 180, visits)]),
        }
    )
    return person, visit


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    persons=st.integers(2, 30),
    visits=st.integers(0, 60),
    days=st.integers(1, 400),
    random_mode=st.booleans(),
)
def test_gate_passes_what_the_pathway_builds_and_catches_one_moved_date(
    seed: int, persons: int, visits: int, days: int, random_mode: bool
) -> None:
    person, visit = _frames(seed, persons, visits)
    extract, project = extract_and_project(
        person=person,
        visits=visit,
        days=days,
        mode=OffsetMode.RANDOM if random_mode else OffsetMode.KEYED,
    )
    try:
        release = build_linkable(extract, project, salt=SALT)
    except CheckFailed:
        return  # every person drew the same offset: refused, never released
    verdict = verify_release(extract, release, project)
    assert verdict.passed, [o.check.id for o in verdict.blocking_failures]

    tables = {k: v.copy() for k, v in release.tables.items()}
    frame = tables["patients"]
    with_two_dates = np.flatnonzero(frame["dob"].notna().to_numpy(dtype=bool))
    if not len(with_two_dates):
        return  # everyone over 89: no birth date to compare a moved discharge with
    row = int(np.random.default_rng(seed).choice(with_two_dates))
    moved = pd.Timestamp(frame.loc[row, "discharge"]) + pd.Timedelta(days=1)
    frame.loc[row, "discharge"] = moved.strftime("%Y-%m-%d")
    outcomes = {
        o.check.id: o.passed
        for o in verify_release(extract, replace(release, tables=tables), project).outcomes
    }
    # one date of one person moved by a day: their dates no longer move together, or the
    # moved date now equals the true one, or it left the offset range
    assert not all(outcomes[c] for c in DATE_CHECKS)
