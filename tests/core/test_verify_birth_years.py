"""A year of birth cut to two digits ("47" for 1947) under a neutral clinical name: the
rows of persons over 89 state their age, so the age-revealing-year check fails on them;
numbers of one or two digits that are not the persons' own pass."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import verify_release
from tests.core.support import CL, TEXT
from tests.core.test_safe_harbor_support import PEOPLE_TAGS, make_case, replace_frame, tag

CHECK = "no_age_revealing_year"


def _with(values_of):  # type: ignore[no-untyped-def]
    """The case with a clinical person column ``yb``: ``values_of(dob, row)`` per row."""
    extract, project = make_case(24)
    people = extract.person.frame.copy()
    people["yb"] = pd.array([values_of(d, i) for i, d in enumerate(people["dob"])], dtype=TEXT)
    extract = replace_frame(extract, "people", people)
    spec = replace(project.table("people"), columns=(*PEOPLE_TAGS, tag("yb", CL)))
    project = replace(project, tables=tuple(spec if t.is_person else t for t in project.tables))
    return verify_release(extract, build_safe_harbor(extract, project), project).outcome(CHECK)


def test_two_digit_birth_years_of_persons_over_89_fail() -> None:
    outcome = _with(lambda dob, i: str(dob)[2:4] if isinstance(dob, str) else "")
    assert not outcome.passed
    assert outcome.detail["cells_by_column"]["people.yb"] >= 1


def test_numbers_that_are_not_the_persons_own_years_pass() -> None:
    """Scores from 0 to 99, whatever the person: some agree by chance, not half."""
    outcome = _with(lambda dob, i: str((i * 37) % 100))
    assert "people.yb" not in outcome.detail["cells_by_column"]


def test_persons_over_89_are_found_through_the_crosswalk_rows_as_through_the_keys() -> None:
    """The crosswalk rows of persons whose years are withheld are read by position (each
    row's person, ``own_values.crosswalk_persons``), the same IDs as holding each row's
    key against the keys of those persons: with the pathway's rows, with a join on the
    keys, and with no positions at all."""
    import numpy as np

    from deid_desktop.core.verify import own_values, safe_harbor
    from deid_desktop.core.verify.base import VerifyContext

    extract, project = make_case(30)
    release = build_safe_harbor(extract, project)

    def known(release, positions: bool = True) -> list[str]:  # type: ignore[no-untyped-def]
        ctx = VerifyContext(extract, project)
        if not positions:
            ctx.memo[("crosswalk_persons", id(release))] = (release, None)
        found = safe_harbor._subjects_over_89(extract, release, project, ctx)
        return sorted(found.to_pylist())

    by_rows = known(release)
    assert by_rows and by_rows == known(release, positions=False)
    joined = replace(release, crosswalk_rows=None)  # the rows found by a join on the keys
    assert known(joined) == by_rows
    rows = own_values.crosswalk_persons(extract, project, release, VerifyContext(extract, project))
    assert rows is not None and (rows >= 0).all() and len(np.unique(rows)) == len(rows)


def test_persons_over_89_are_told_by_their_rows_as_by_their_ids() -> None:
    """Which released persons are over 89 is read from their own rows (the "90+" of the
    person table, the crosswalk in the same order) where the IDs are the rows, each
    once: the same persons as holding every ID against the IDs found; a crosswalk in
    another order is held against them."""
    from deid_desktop.core.facts.text import in_set
    from deid_desktop.core.verify import safe_harbor
    from deid_desktop.core.verify.base import VerifyContext

    extract, project = make_case(30)
    release = build_safe_harbor(extract, project)
    ctx = VerifyContext(extract, project)
    ry = safe_harbor._released_years(release, project, ctx)
    over = safe_harbor._over_89(extract, release, project, ctx)
    by_row = safe_harbor._known_by_row(extract, release, ry, over)
    assert by_row is not None and by_row.any()
    assert by_row.tolist() == in_set(ry.ids, over.ids).tolist()
    cw = release.crosswalk
    shuffled = replace(release, crosswalk=cw.iloc[::-1].reset_index(drop=True))
    assert safe_harbor._known_by_row(extract, shuffled, ry, over) is None
