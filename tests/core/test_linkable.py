"""The linkable release: keys from the MRN, per-person shifts, the gate's checks."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from deid_desktop.core.errors import DeidError, InputError
from deid_desktop.core.model import (
    FreeTextAction,
    OffsetMode,
    Pathway,
    Release,
    RiskSettings,
    TransformOptions,
)
from deid_desktop.core.pathways import build_release
from deid_desktop.core.pathways.linkable import LINK_KEY, build_linkable
from deid_desktop.core.pathways.registry import pathway_spec
from deid_desktop.core.verify import verify_release
from tests.core.linkable_fixtures import (
    LINKABLE_CHECKS,
    PERSON_COLUMNS,
    SALT,
    extract_and_project,
    person_frame,
    visit_frame,
    with_linkable,
)


def _key(value: str, salt: bytes = SALT, length: int = 16) -> str:
    return hmac.new(salt, value.encode(), hashlib.sha256).hexdigest()[:length]


def _by_person(release: Release) -> dict[str, str]:
    cw = release.crosswalk
    assert cw is not None
    return dict(zip(cw["patient_id"], cw[LINK_KEY], strict=True))


@pytest.fixture
def built() -> tuple:
    extract, project = extract_and_project()
    return extract, project, build_linkable(extract, project, salt=SALT)


def test_label_is_honest(built) -> None:
    _, _, release = built
    assert release.pathway == Pathway.LINKABLE
    assert release.label == pathway_spec(Pathway.LINKABLE).label
    assert "requires Expert Determination" in release.label
    assert "anonym" not in release.label.lower()
    assert release.id_column == "link_key"


def test_link_key_is_the_keyed_hash_of_the_normalised_mrn(built) -> None:
    _, _, release = built
    keys = _by_person(release)
    assert keys["P001"] == _key("MRN-10001")
    assert keys["P004"] == _key("MRN-10004")  # "mrn-10004" normalised to upper case
    person = release.tables["patients"]
    assert person.columns[0] == LINK_KEY
    assert sorted(person[LINK_KEY]) == person[LINK_KEY].tolist()  # ordered by key
    assert release.parameters["link_key_source"] == "patients.mrn"


def test_without_an_mrn_column_the_person_key_is_used() -> None:
    extract, project = extract_and_project()
    tags = tuple(t for t in PERSON_COLUMNS if t.name != "mrn")
    spec = replace(project.person_table, columns=tags)
    project = project.with_table(spec)
    frame = person_frame().drop(columns=["mrn"])
    extract, _ = extract_and_project(person=frame)
    release = build_linkable(extract, project, salt=SALT)
    assert _by_person(release)["P003"] == _key("P003")


def test_direct_columns_and_free_text_are_gone_zip_is_cut(built) -> None:
    _, _, release = built
    person = release.tables["patients"]
    for gone in ("patient_id", "mrn", "first_name", "street", "city", "phone", "notes", "zip"):
        assert gone not in person.columns
    assert "patient_id" not in release.tables["visits"].columns
    keys = _by_person(release)
    zips = dict(zip(person[LINK_KEY], person["zip3"], strict=True))
    assert zips[keys["P001"]] == "685"
    assert zips[keys["P003"]] == "000"  # 036 is a restricted prefix
    assert person["state"].tolist().count("NE") == 4  # quasi columns stay


def _dates(frame: pd.DataFrame, column: str) -> pd.Series:
    return pd.to_datetime(frame[column], format="ISO8601")


def test_every_date_of_a_person_moves_by_the_same_nonzero_offset(built) -> None:
    extract, _, release = built
    keys = _by_person(release)
    person_in = extract.person.frame.set_index("patient_id")
    person_out = release.tables["patients"].set_index(LINK_KEY)
    visits_in = extract.table("visits").frame
    visits_out = release.tables["visits"]
    offsets: dict[str, set[pd.Timedelta]] = {}
    for pid, key in keys.items():
        found: set[pd.Timedelta] = set()
        d_in = pd.to_datetime(person_in.loc[pid, "discharge"], format="%m/%d/%Y")
        d_out = pd.to_datetime(person_out.loc[key, "discharge"], format="%Y-%m-%d")
        if not pd.isna(d_in):
            found.add(d_out - d_in)
        v_in = pd.to_datetime(
            visits_in.loc[visits_in["patient_id"] == pid, "visit_at"], format="%Y-%m-%d %H:%M:%S"
        ).tolist()
        v_out = _dates(visits_out.loc[visits_out[LINK_KEY] == key], "visit_at").tolist()
        assert len(v_in) == len(v_out)
        found |= {b - a for a, b in zip(v_in, v_out, strict=True) if not pd.isna(a)}
        offsets[pid] = found
    for pid, found in offsets.items():
        if found:
            assert len(found) == 1, pid  # one offset per person, in every table
            (delta,) = found
            assert delta != pd.Timedelta(0)
            assert delta.components.hours == delta.components.minutes == 0
            assert abs(delta.days) <= 180
    distinct = {next(iter(f)) for f in offsets.values() if f}
    assert len(distinct) > 1  # never one offset for the study


def test_time_of_day_is_kept_and_dates_are_iso(built) -> None:
    _, _, release = built
    visits = release.tables["visits"]["visit_at"].dropna()
    assert visits.str.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}").all()
    assert "23:59:59" in " ".join(visits)
    discharge = release.tables["patients"]["discharge"].dropna()
    assert discharge.str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()


def test_no_input_date_survives(built) -> None:
    extract, _, release = built
    released = set(release.tables["visits"]["visit_at"].dropna()) | set(
        release.tables["patients"]["dob"].dropna()
    )
    original = set(
        pd.to_datetime(extract.table("visits").frame["visit_at"], format="%Y-%m-%d %H:%M:%S")
        .dropna()
        .dt.strftime("%Y-%m-%dT%H:%M:%S")
    ) | set(extract.person.frame["dob"].dropna())
    assert not released & original


def test_over_89_age_pooled_and_birth_date_removed(built) -> None:
    _, _, release = built
    person = release.tables["patients"].set_index(LINK_KEY)
    old = _by_person(release)["P002"]  # age 91
    assert person.loc[old, "age"] == "90+"
    assert pd.isna(person.loc[old, "dob"])
    assert not person["age"].isin(["91"]).any()
    young = _by_person(release)["P001"]
    assert not pd.isna(person.loc[young, "dob"])


def test_zip_rule_drop_releases_no_zip() -> None:
    extract, project = extract_and_project()
    release = build_linkable(extract, with_linkable(project, zip_rule="drop"), salt=SALT)
    assert "zip3" not in release.tables["patients"].columns
    assert "zip" not in release.tables["patients"].columns
    assert verify_release(extract, release, with_linkable(project, zip_rule="drop")).passed


def test_free_text_redacted_on_request() -> None:
    extract, project = extract_and_project()
    project = replace(
        project,
        transform=TransformOptions(free_text={"patients.notes": FreeTextAction.REDACT}),
    )
    release = build_linkable(extract, project, salt=SALT)
    notes = " ".join(release.tables["patients"]["notes"].dropna())
    assert "402-555-0101" not in notes and "Ana" not in notes
    assert "[" in notes


def test_an_unmatched_event_row_stops_the_build_with_a_count() -> None:
    visits = visit_frame()
    visits.loc[1, "patient_id"] = "P999"
    visits.loc[2, "patient_id"] = "P998"
    extract, project = extract_and_project(visits=visits)
    with pytest.raises(InputError) as err:
        build_linkable(extract, project, salt=SALT)
    assert "2 rows" in str(err.value)
    assert "P999" not in str(err.value)


def test_two_persons_with_the_same_normalised_mrn_stop_the_build() -> None:
    person = person_frame()
    person.loc[1, "mrn"] = " mrn-10001"
    extract, project = extract_and_project(person=person)
    with pytest.raises(InputError, match="1 person share") as err:
        build_linkable(extract, project, salt=SALT)
    assert "10001" not in str(err.value)


def test_no_salt_no_release() -> None:
    extract, project = extract_and_project()
    with pytest.raises(DeidError, match="salt"):
        build_linkable(extract, project, salt=None)


def test_dispatcher_passes_the_salt(built) -> None:
    extract, project, release = built
    again = build_release(extract, project, salt=SALT)
    for name, frame in release.tables.items():
        pd.testing.assert_frame_equal(frame, again.tables[name])


def test_keyed_offsets_repeat_in_a_later_extract_random_ones_follow_the_seed() -> None:
    extract, project = extract_and_project()
    first = build_linkable(extract, project, salt=SALT)
    # a later extract: other persons first, one person gone, a new visit
    person = person_frame().iloc[[4, 2, 0, 1]].reset_index(drop=True)
    visits = visit_frame()
    visits = visits[visits["patient_id"] != "P004"]
    later_extract, _ = extract_and_project(person=person, visits=visits)
    later = build_linkable(later_extract, project, salt=SALT)
    a = first.tables["patients"].set_index(LINK_KEY)["discharge"]
    b = later.tables["patients"].set_index(LINK_KEY)["discharge"]
    common = a.index.intersection(b.index)
    assert len(common) == 4
    assert a[common].equals(b[common])

    rnd = with_linkable(project, offset_mode=OffsetMode.RANDOM)
    r1 = build_linkable(extract, rnd, salt=SALT).tables["patients"]["discharge"]
    r1b = build_linkable(extract, rnd, salt=SALT).tables["patients"]["discharge"]
    r2 = build_linkable(extract, replace(rnd, seed=rnd.seed + 1), salt=SALT).tables["patients"][
        "discharge"
    ]
    assert r1.equals(r1b)
    assert not r1.equals(r2)


def test_another_salt_gives_other_keys_and_other_offsets() -> None:
    extract, project = extract_and_project()
    a = build_linkable(extract, project, salt=SALT)
    b = build_linkable(extract, project, salt=bytes(32))
    assert not set(a.tables["patients"][LINK_KEY]) & set(b.tables["patients"][LINK_KEY])


# --------------------------------------------------------------------------- the gate


def _outcomes(extract, release, project) -> dict[str, tuple[bool, int]]:
    v = verify_release(extract, release, project)
    return {o.check.id: (o.passed, o.count) for o in v.outcomes}


def test_the_gate_passes_a_correct_release_and_runs_every_linkable_check(built) -> None:
    extract, project, release = built
    outcomes = _outcomes(extract, release, project)
    for check in (*LINKABLE_CHECKS, "no_direct_values"):
        assert outcomes[check] == (True, 0), check
    assert "no_full_dates" not in outcomes  # dates are the point of this pathway


def _tampered(release: Release, table: str, fn) -> Release:
    tables = {k: v.copy() for k, v in release.tables.items()}
    fn(tables[table])
    return replace(release, tables=tables)


def test_the_gate_catches_a_broken_interval(built) -> None:
    extract, project, release = built

    def shift_one(frame: pd.DataFrame) -> None:
        i = frame["visit_at"].first_valid_index()
        moved = pd.Timestamp(frame.loc[i, "visit_at"]) + pd.Timedelta(days=1)
        frame.loc[i, "visit_at"] = moved.strftime("%Y-%m-%dT%H:%M:%S")

    outcomes = _outcomes(extract, _tampered(release, "visits", shift_one), project)
    assert outcomes["intervals_preserved"] == (False, 1)


def test_the_gate_catches_a_true_date(built) -> None:
    extract, project, release = built
    keys = _by_person(release)

    def restore(frame: pd.DataFrame) -> None:
        frame.loc[frame[LINK_KEY] == keys["P001"], "dob"] = "1950-03-01"

    outcomes = _outcomes(extract, _tampered(release, "patients", restore), project)
    assert outcomes["no_true_dates"] == (False, 1)
    assert outcomes["intervals_preserved"][0] is False


def test_the_gate_catches_one_offset_for_everyone(monkeypatch: pytest.MonkeyPatch) -> None:
    from deid_desktop.core.pathways import linkable

    monkeypatch.setattr(
        linkable, "date_offsets", lambda keys, **_: np.full(len(keys), 7, dtype=np.int64)
    )
    extract, project = extract_and_project()
    release = build_linkable(extract, project, salt=SALT)
    outcomes = _outcomes(extract, release, project)
    assert outcomes["intervals_preserved"] == (True, 0)
    assert outcomes["offsets_per_person"] == (False, 1)


def test_the_gate_catches_duplicate_keys_and_orphan_events(built) -> None:
    extract, project, release = built

    def orphan(frame: pd.DataFrame) -> None:
        frame.loc[0, LINK_KEY] = "f" * 16

    outcomes = _outcomes(extract, _tampered(release, "visits", orphan), project)
    assert outcomes["events_link_to_persons"] == (False, 1)

    def duplicate(frame: pd.DataFrame) -> None:
        frame.loc[1, LINK_KEY] = frame.loc[0, LINK_KEY]

    outcomes = _outcomes(extract, _tampered(release, "patients", duplicate), project)
    assert outcomes["link_keys_unique"][0] is False


def test_the_gate_catches_a_birth_date_of_a_person_over_89(built) -> None:
    extract, project, release = built
    old = _by_person(release)["P002"]

    def leak(frame: pd.DataFrame) -> None:
        frame.loc[frame[LINK_KEY] == old, "dob"] = "1931-01-01"

    outcomes = _outcomes(extract, _tampered(release, "patients", leak), project)
    assert outcomes["linkable_birth_dates_over_89"] == (False, 1)


def test_the_gate_catches_a_surviving_direct_value(built) -> None:
    extract, project, release = built

    def leak(frame: pd.DataFrame) -> None:
        frame.loc[0, "kind"] = "402-555-0102"

    outcomes = _outcomes(extract, _tampered(release, "visits", leak), project)
    assert outcomes["no_direct_values"][0] is False


def test_suppressing_small_groups_keeps_the_gate_able_to_match_rows() -> None:
    extract, project = extract_and_project()
    project = replace(
        project,
        risk=RiskSettings(quasi_identifiers=("sex", "state"), k_target=2, suppress_below_k=True),
    )
    release = build_linkable(extract, project, salt=SALT)
    # the man in NE and the man in MA: alone in their groups; P002's two visits go too
    assert release.suppressed_rows == {"patients": 2, "visits": 2}
    assert len(release.tables["patients"]) == 3
    outcomes = _outcomes(extract, release, project)
    assert outcomes["intervals_preserved"] == (True, 0)
    assert outcomes["row_counts"] == (True, 0)
