"""Risk across releases: the held-back quasi-identifier file and the combination check."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core import engine
from deid_desktop.core.cross_release import (
    PERSON,
    QI_FILE,
    QI_RECORD_KEY,
    check_cross_release,
    check_review,
    released_quasi_identifiers,
    write_quasi_identifiers,
)
from deid_desktop.core.demo import write_demo
from deid_desktop.core.facts.text import STRING
from deid_desktop.core.project import load_project, save_project
from deid_desktop.core.register import read_register


def _frame(persons: list[str], **cols: list[str]) -> pd.DataFrame:
    data = {PERSON: pd.array(persons, dtype=STRING)}
    data.update({c: pd.array(v, dtype=STRING) for c, v in cols.items()})
    return pd.DataFrame(data)


def _entry(tmp: Path, name: str, frame: pd.DataFrame, **extra: object) -> dict[str, object]:
    folder = tmp / f"xw-{name}"
    folder.mkdir()
    info = write_quasi_identifiers(frame, folder / QI_FILE)
    return {
        "project": {"id": "p1"},
        "time_utc": f"2026-01-0{len(name)}T00:00:00Z",
        "meta": {"recipient": f"Lab {name}"},
        "outputs": {"folder": str(tmp / f"out-{name}")},
        "crosswalk": {"folder": str(folder), QI_RECORD_KEY: info},
        **extra,
    }


# 8 persons: ages in two bands of 4; zip3 in two groups of 4 crossing the bands, so each
# combination (band, zip3) holds 2 persons, and person h alone has zip3 "999".
PERSONS = list("abcdefgh")
NEW = _frame(PERSONS, age=["20-29"] * 4 + ["30-39"] * 4)
ZIPS = ["100", "100", "200", "200", "100", "100", "200", "999"]


def test_combination_counts_persons_isolated_only_by_it(tmp_path: Path) -> None:
    earlier = _entry(tmp_path, "A", _frame(PERSONS, zip3=ZIPS))
    rep = check_cross_release(NEW, project_id="p1", k_target=2, entries=[earlier])
    assert rep is not None and rep.persons == 8
    (r,) = rep.releases
    assert r.status == "checked" and r.persons_in_both == 8
    assert r.quasi_identifiers == ("zip3",)
    # (30-39, 200) holds g alone, (30-39, 999) holds h alone: both lone, both below k=2
    assert (r.lone, r.below_k) == (2, 2)
    (w,) = rep.warnings
    assert "2 persons become lone" in w and "Lab A" in w and "out-A" in w
    assert "999" not in json.dumps(rep.to_dict())  # counts, never a value


def test_a_single_release_or_the_same_quasi_identifiers_warn_of_nothing(tmp_path: Path) -> None:
    assert check_cross_release(NEW, project_id="p1", k_target=2, entries=[]) is None
    other = _entry(tmp_path, "B", _frame(PERSONS, zip3=ZIPS), project={"id": "other"})
    assert check_cross_release(NEW, project_id="p1", k_target=2, entries=[other]) is None
    same = _entry(tmp_path, "CC", NEW.copy())
    rep = check_cross_release(NEW, project_id="p1", k_target=2, entries=[same])
    assert rep is not None and rep.warnings == ()
    assert (rep.releases[0].lone, rep.releases[0].below_k) == (0, 0)


def test_same_source_by_input_hash_when_the_project_differs(tmp_path: Path) -> None:
    e = _entry(tmp_path, "D", _frame(PERSONS, zip3=ZIPS), project={"id": "old"})
    e["inputs"] = [{"table": "demographics", "sha256": "abc"}]
    rep = check_cross_release(NEW, project_id="p1", k_target=2, input_hashes=["abc"], entries=[e])
    assert rep is not None and rep.releases[0].lone == 2


def test_missing_or_changed_file_is_a_warning_naming_the_release(tmp_path: Path) -> None:
    gone = _entry(tmp_path, "E", _frame(PERSONS, zip3=ZIPS))
    changed = _entry(tmp_path, "FF", _frame(PERSONS, zip3=ZIPS))
    (Path(gone["crosswalk"]["folder"]) / QI_FILE).unlink()  # type: ignore[index]
    target = Path(changed["crosswalk"]["folder"]) / QI_FILE  # type: ignore[index]
    target.write_bytes(target.read_bytes() + b"x")
    rep = check_cross_release(NEW, project_id="p1", k_target=2, entries=[gone, changed])
    assert rep is not None
    assert [r.status for r in rep.releases] == ["missing", "changed"]
    assert len(rep.warnings) == 2
    assert "Lab E" in rep.warnings[0] and "is missing" in rep.warnings[0]
    assert "Lab FF" in rep.warnings[1] and "is changed" in rep.warnings[1]


def test_persons_absent_from_the_earlier_release_and_all_combined(tmp_path: Path) -> None:
    half = _entry(tmp_path, "G", _frame(PERSONS[:4], zip3=ZIPS[:4]))
    full = _entry(tmp_path, "HH", _frame(PERSONS, sex=["F", "M"] * 4))
    rep = check_cross_release(NEW, project_id="p1", k_target=2, entries=[half, full])
    assert rep is not None
    assert rep.releases[0].persons_in_both == 4
    assert (rep.releases[0].lone, rep.releases[0].below_k) == (0, 0)  # classes of 2
    assert (rep.releases[1].lone, rep.releases[1].below_k) == (0, 0)  # (band, sex): 2 each
    assert (rep.all_lone, rep.all_below_k) == (4, 4)  # (band, zip3, sex) splits the first 4


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("ab"), st.sampled_from("xyz"), st.booleans()),
        min_size=1,
        max_size=40,
    ),
    st.integers(min_value=1, max_value=4),
)
def test_counts_match_a_plain_group_by(rows: list[tuple[str, str, bool]], k: int) -> None:
    persons = [f"p{i}" for i in range(len(rows))]
    new = _frame(persons, q=[r[0] for r in rows])
    kept = [i for i, r in enumerate(rows) if r[2]]
    old = _frame([persons[i] for i in kept], z=[rows[i][1] for i in kept])
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        e = _entry(Path(tmp), "P", old)
        rep = check_cross_release(new, project_id="p1", k_target=k, entries=[e])
    assert rep is not None
    both = pd.DataFrame(
        {"q": [r[0] for r in rows], "z": [r[1] if r[2] else "<absent>" for r in rows]}
    )
    new_size = both.groupby("q", dropna=False)["q"].transform("size")
    size = both.groupby(["q", "z"], dropna=False)["q"].transform("size")
    r = rep.releases[0]
    assert r.lone == int(((size == 1) & (new_size > 1)).sum())
    assert r.below_k == int(((size < k) & (new_size >= k)).sum())


def test_released_quasi_identifiers_follow_the_crosswalk() -> None:
    person = pd.DataFrame({"subject_id": ["S2", "S1"], "age": ["40", "50"], "x": ["1", "2"]})
    crosswalk = pd.DataFrame({"subject_id": ["S1", "S2"], "mrn": ["M1", "M2"]})
    got = released_quasi_identifiers(person, crosswalk, ["age"])
    assert got is not None and list(got.columns) == [PERSON, "age"]
    assert got[PERSON].tolist() == ["M2", "M1"] and got["age"].tolist() == ["40", "50"]
    assert released_quasi_identifiers(person, None, ["age"]) is None
    assert released_quasi_identifiers(person, crosswalk, []) is None


def _export(project_path: Path, tmp: Path, name: str, register: Path) -> engine.ExportRecord:
    return engine.run(
        project_path,
        out_dir=tmp / f"out-{name}",
        crosswalk_dir=tmp / f"xw-{name}",
        register_path=register,
    )


def _set_risk(path: Path, **changes: object) -> None:
    project = load_project(path)
    save_project(
        dataclasses.replace(project, risk=dataclasses.replace(project.risk, **changes)), path
    )


def test_demo_releases_with_different_quasi_identifiers(tmp_path: Path) -> None:
    path = write_demo(tmp_path / "demo", rows=400)
    register = tmp_path / "register.jsonl"
    _set_risk(path, quasi_identifiers=("sex", "zip3"))
    first = _export(path, tmp_path, "1", register)
    held = first.crosswalk_dir / QI_FILE  # type: ignore[operator]
    assert held.is_file() and held in first.crosswalk_files
    assert not (first.out_dir / QI_FILE).exists()
    assert "quasi_identifiers_file" not in (first.out_dir / "export_record.json").read_text()
    (entry,) = read_register(register)
    info = entry["crosswalk"][QI_RECORD_KEY]  # type: ignore[index]
    assert info["rows"] == 400 and info["columns"] == ["sex", "zip3"]
    earlier = pd.read_feather(held)
    raw = register.read_text()
    for key in earlier[PERSON].head(20):
        assert f'"{key}"' not in raw  # no person key (nor any value) in the register

    # the same settings again: the combination adds nothing
    project = load_project(path)
    review = engine.review(project, engine.load(project, path), salt=None)
    same = check_review(
        project, review.release, review.quasi_identifiers, review.inputs, register_path=register
    )
    assert same is not None and same.warnings == ()
    assert (
        check_review(project, review.release, review.quasi_identifiers, review.inputs, entries=[])
        is None
    )

    # the next release counts banded age instead of ZIP3
    _set_risk(path, quasi_identifiers=("sex", "age"), age_bands=(0, 30, 50, 70, 90))
    project = load_project(path)
    review = engine.review(project, engine.load(project, path), salt=None)
    assert review.risk is not None and review.risk.lone == 0
    rep = check_review(
        project, review.release, review.quasi_identifiers, review.inputs, register_path=register
    )
    assert rep is not None and len(rep.releases) == 1
    r = rep.releases[0]
    assert r.status == "checked" and r.persons_in_both == 400 and r.lone > 0
    # the same figures by a plain group-by over the two releases joined per person
    new = released_quasi_identifiers(
        review.release.tables["demographics"], review.release.crosswalk, ["sex", "age"]
    )
    assert new is not None
    both = new.merge(earlier.rename(columns={"sex": "sex0"}), on=PERSON, how="left")
    new_size = both.groupby(["sex", "age"], dropna=False)[PERSON].transform("size")
    size = both.groupby(["sex", "age", "sex0", "zip3"], dropna=False)[PERSON].transform("size")
    assert r.lone == int(((size == 1) & (new_size > 1)).sum())
    assert r.below_k == int(((size < 5) & (new_size >= 5)).sum())
    assert any(f"{r.lone} persons become lone" in w for w in rep.warnings)


def test_held_quasi_identifiers_pair_each_person_with_their_key_in_any_crosswalk_order() -> None:
    """The crosswalk in the person table's order needs no join; in another order the
    join gives each released person the same key."""
    from deid_desktop.core.cross_release import PERSON, released_quasi_identifiers

    text = "string[pyarrow]"
    person = pd.DataFrame(
        {"subject_id": ["S1", "S2", "S3"], "zip3": ["920", "000", "921"]}, dtype=text
    )
    crosswalk = pd.DataFrame(
        {"subject_id": ["S1", "S2", "S3"], "patient_id": ["k7", "k2", "k9"]}, dtype=text
    )
    aligned = released_quasi_identifiers(person, crosswalk, ["zip3"])
    shuffled = released_quasi_identifiers(person, crosswalk.iloc[[2, 0, 1]], ["zip3"])
    assert aligned is not None and shuffled is not None
    assert aligned[PERSON].tolist() == ["k7", "k2", "k9"]
    assert shuffled.equals(aligned)
    repeated = pd.DataFrame({"subject_id": ["S1", "S1"], "zip3": ["920", "921"]}, dtype=text)
    xw = pd.DataFrame({"subject_id": ["S1", "S1"], "patient_id": ["k1", "k2"]}, dtype=text)
    again = released_quasi_identifiers(repeated, xw, ["zip3"])
    assert again is not None and again[PERSON].tolist() == ["k1", "k1"]  # first match


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from("ab"), st.sampled_from("xy"), st.sampled_from("uvw"), st.booleans()
        ),
        min_size=1,
        max_size=30,
    ),
    st.integers(min_value=1, max_value=3),
)
def test_all_releases_together_match_a_plain_group_by(
    rows: list[tuple[str, str, str, bool]], k: int
) -> None:
    """Three earlier releases (the last one lacks some persons), combined all together."""
    persons = [f"p{i}" for i in range(len(rows))]
    new = _frame(persons, q=[r[0] for r in rows])
    kept = [i for i, r in enumerate(rows) if r[3]]
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        entries = [
            _entry(Path(tmp), "A", _frame(persons, z=[r[1] for r in rows])),
            _entry(Path(tmp), "BB", _frame(persons, w=[r[2] for r in rows])),
            _entry(
                Path(tmp), "CCC", _frame([persons[i] for i in kept], z=[rows[i][1] for i in kept])
            ),
        ]
        rep = check_cross_release(new, project_id="p1", k_target=k, entries=entries)
    assert rep is not None and rep.checked == 3
    both = pd.DataFrame(
        {
            "q": [r[0] for r in rows],
            "z": [r[1] for r in rows],
            "w": [r[2] for r in rows],
            "z2": [r[1] if r[3] else "<absent>" for r in rows],
        }
    )
    new_size = both.groupby("q")["q"].transform("size")
    size = both.groupby(["q", "z", "w", "z2"])["q"].transform("size")
    assert rep.all_lone == int(((size == 1) & (new_size > 1)).sum())
    assert rep.all_below_k == int(((size < k) & (new_size >= k)).sum())


def test_an_earlier_release_in_another_order_is_joined_per_person(tmp_path: Path) -> None:
    """The same persons in the same order are read row for row; in any other order (or
    with a person twice) they are joined by key: the counts are the same."""
    ordered = _entry(tmp_path, "I", _frame(PERSONS, zip3=ZIPS))
    backwards = _entry(tmp_path, "JJ", _frame(PERSONS[::-1], zip3=ZIPS[::-1]))
    for entry in (ordered, backwards):
        rep = check_cross_release(NEW, project_id="p1", k_target=2, entries=[entry])
        assert rep is not None and (rep.releases[0].lone, rep.releases[0].below_k) == (2, 2)
    # a person twice (in both): each row reads the person's first row there, as a join
    twice = _frame(list("aabb"), age=["20-29"] * 4)
    held = _entry(tmp_path, "KKK", _frame(list("aabb"), zip3=["100", "200", "300", "300"]))
    rep = check_cross_release(twice, project_id="p1", k_target=2, entries=[held])
    assert rep is not None and (rep.releases[0].lone, rep.releases[0].below_k) == (0, 0)
