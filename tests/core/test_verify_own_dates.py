"""A person's own date kept as a number in a column tagged clinical fails the date-element
check: Unix seconds of a 1940s birth date (negative), milliseconds, days since 1970, an
Excel serial, the day of the year, MMDD. Each passed the gate before (no shape tells
such numbers from a measurement). Numbers that are not the person's own date pass."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.model import ColumnTag
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import verify_release
from deid_desktop.core.verify.own_dates import KIND
from tests.core.support import CL, TEXT
from tests.core.test_safe_harbor_support import PEOPLE_TAGS, make_case, replace_frame

N = 60


def _case(make: Callable[[date], str]):  # type: ignore[no-untyped-def]
    """The hand-built case with N persons and a clinical column ``code`` made from each
    person's birth date (empty where it is missing)."""
    extract, project = make_case(N)
    people = extract.person.frame.copy()
    dobs = [date.fromisoformat(d) if isinstance(d, str) else None for d in people["dob"]]
    people["code"] = pd.array([make(d) if d else None for d in dobs], dtype=TEXT)
    extract = replace_frame(extract, "people", people)
    spec = replace(project.table("people"), columns=(*PEOPLE_TAGS, ColumnTag("code", CL)))
    project = replace(project, tables=tuple(spec if t.is_person else t for t in project.tables))
    return extract, project


def _outcome(extract, project):  # type: ignore[no-untyped-def]
    return verify_release(extract, build_safe_harbor(extract, project), project).outcome(
        "no_date_elements"
    )


def _unix(d: date, hours: int = 0) -> int:
    return int(datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp()) + hours * 3600


FORMS = {
    "unix seconds": lambda d: str(_unix(d)),
    "unix seconds, local midnight east of UTC": lambda d: str(_unix(d, -2)),
    "unix milliseconds": lambda d: str(_unix(d, 5) * 1000),
    "days since 1970": lambda d: str((d - date(1970, 1, 1)).days),
    "excel serial": lambda d: str((d - date(1899, 12, 30)).days),
    "day of the year": lambda d: str(d.timetuple().tm_yday),
    "mmdd": lambda d: f"{d.month}{d.day:02d}",
}


@pytest.mark.parametrize("form", list(FORMS))
def test_a_persons_own_date_as_a_number_fails(form: str) -> None:
    extract, project = _case(FORMS[form])
    outcome = _outcome(extract, project)
    assert not outcome.passed, form
    assert KIND in outcome.detail["cells_by_shape"]["people.code"]
    filled = int(extract.person.frame["dob"].notna().sum())
    assert outcome.detail["cells_by_shape"]["people.code"][KIND] == filled
    assert "tag it as a direct identifier" in " ".join(outcome.detail["messages"])


def test_another_persons_date_passes() -> None:
    """The same numbers shifted by one person: each row holds someone else's date."""
    extract, project = _case(FORMS["unix seconds"])
    people = extract.person.frame.copy()
    codes = people["code"].tolist()
    people["code"] = pd.array(codes[1:] + codes[:1], dtype=TEXT)
    assert _outcome(replace_frame(extract, "people", people), project).passed


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_measurements_never_fail(seed: int) -> None:
    """Property: whole numbers drawn without looking at the person (pressures, counts,
    days, years) never fail the check, whatever the draw."""
    rng = random.Random(seed)
    extract, project = _case(lambda d: str(rng.choice([rng.randint(0, 400), rng.randint(1, 366)])))
    assert _outcome(extract, project).passed
