"""The demo extract: shape, planted hard cases, determinism, the shipped copy, and the
no-data/no-salt guarantee of its project."""

from __future__ import annotations

import io
import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from deid_desktop.core import demo
from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import ColumnClass, Pathway, Role
from deid_desktop.core.project import load_project, resolve_path
from deid_desktop.core.resources import resources_dir
from deid_desktop.core.zip3 import load_bundled_zip3

SHIPPED = resources_dir() / "demo"


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    return demo.make_demo_frames()


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo.write_demo(tmp_path_factory.mktemp("demo"))


# -------------------------------------------------------------------------------- shape


def test_tables_columns_and_types(frames: dict[str, pd.DataFrame]) -> None:
    assert list(frames) == ["demographics", "baseline", "visits"]
    assert list(frames["demographics"].columns) == [
        "patient_id", "mrn", "first_name", "last_name", "dob", "age", "sex", "race",
        "ethnicity", "zip", "phone", "notes",
    ]  # fmt: skip
    assert list(frames["baseline"].columns) == [
        "patient_id", "discharge_date", "lvef", "nt_probnp", "sbp", "creatinine", "nyha_class",
    ]  # fmt: skip
    assert list(frames["visits"].columns) == ["patient_id", "visit_date", "visit_type", "visit_day"]
    for frame in frames.values():
        assert all(dt == pd.StringDtype("pyarrow") for dt in frame.dtypes)


def test_identifiers_look_like_hf_home(frames: dict[str, pd.DataFrame]) -> None:
    d = frames["demographics"]
    assert len(d) == 2432
    assert d["patient_id"].iloc[0] == "0001" and d["patient_id"].is_unique
    assert d["mrn"].str.fullmatch(r"SYN-\d{7}").all() and d["mrn"].is_unique
    phones = d["phone"].dropna()
    assert phones.str.fullmatch(r"\((858|619|760)\) 555-01\d\d").all()  # fictional exchange
    assert d["dob"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert set(d["sex"]) == {"F", "M"}
    assert frames["baseline"]["patient_id"].equals(d["patient_id"])
    discharge = pd.to_datetime(frames["baseline"]["discharge_date"], format="%Y-%m-%d")
    assert discharge.dt.year.between(2023, 2025).all()


def test_age_is_completed_years_at_discharge(frames: dict[str, pd.DataFrame]) -> None:
    dob = pd.to_datetime(frames["demographics"]["dob"], format="%Y-%m-%d")
    dis = pd.to_datetime(frames["baseline"]["discharge_date"], format="%Y-%m-%d")
    before = (dis.dt.month * 100 + dis.dt.day) < (dob.dt.month * 100 + dob.dt.day)
    expected = dis.dt.year - dob.dt.year - before.astype(int)
    assert (frames["demographics"]["age"].astype(int) == expected).all()


def test_visits_about_two_and_a_half_per_person_and_visit_day_exact(
    frames: dict[str, pd.DataFrame],
) -> None:
    v, b = frames["visits"], frames["baseline"]
    assert 2.3 <= len(v) / len(b) <= 2.7
    assert v["patient_id"].isin(b["patient_id"]).all()
    merged = v.merge(b[["patient_id", "discharge_date"]], on="patient_id", how="left")
    gap = pd.to_datetime(merged["visit_date"], format="%Y-%m-%d") - pd.to_datetime(
        merged["discharge_date"], format="%Y-%m-%d"
    )
    assert (gap.dt.days == merged["visit_day"].astype(int)).all()
    assert {"Day 7", "Day 30", "Day 90", "Day 180"} <= set(v["visit_type"])
    assert (merged["visit_day"].astype(int) > 0).all()


# ------------------------------------------------------------------------ planted cases


def test_leading_zero_zips_are_kept_as_text(frames: dict[str, pd.DataFrame]) -> None:
    zips = frames["demographics"]["zip"].dropna()
    assert zips.str.fullmatch(r"\d{5}").all()
    leading = zips[zips.str.startswith("0")]
    assert len(leading) >= 50
    assert {"02139", "01013", "06511"} & set(leading)


def test_restricted_prefixes_come_from_the_shipped_table(frames: dict[str, pd.DataFrame]) -> None:
    table = load_bundled_zip3()
    zip3 = frames["demographics"]["zip"].dropna().str[:3]
    restricted = zip3[~zip3.map(table.allowed).astype(bool)]
    assert len(restricted) >= 10
    assert set(restricted) <= set(table.restricted)
    assert restricted.nunique() >= 3  # spread over several prefixes, as in HF-HOME
    assert set(demo.restricted_prefixes()) <= set(table.restricted)


def test_every_fixed_zip_is_a_populous_prefix() -> None:
    table = load_bundled_zip3()
    fixed = demo._SAN_DIEGO_ZIPS + demo._LEADING_ZERO_ZIPS
    assert [z for z in fixed if not table.allowed(z[:3])] == []


def test_no_prefix_literal_in_the_generator() -> None:
    source = Path(demo.__file__).read_text(encoding="utf-8")
    for prefix in load_bundled_zip3().restricted:
        assert not re.search(rf"[\"']{prefix}\d{{0,2}}[\"']", source), prefix


def test_ages_over_89(frames: dict[str, pd.DataFrame]) -> None:
    age = frames["demographics"]["age"].astype(int)
    assert 0.03 <= (age > 89).mean() <= 0.07
    assert age.max() <= 103 and age.min() >= 30


def test_missing_values(frames: dict[str, pd.DataFrame]) -> None:
    d = frames["demographics"]
    for col in ("race", "ethnicity", "zip", "phone", "notes"):
        assert d[col].isna().sum() > 0, col
    for col in ("patient_id", "mrn", "first_name", "last_name", "dob", "age", "sex"):
        assert d[col].notna().all(), col
    assert frames["baseline"][["lvef", "nt_probnp"]].isna().any().all()


def test_non_ascii_names(frames: dict[str, pd.DataFrame]) -> None:
    d = frames["demographics"]
    names = set(d["first_name"]) | set(d["last_name"])
    assert {"Peña", "Müller", "Nguyễn", "Zoë", "José"} <= names
    assert all(unicodedata.is_normalized("NFC", n) for n in names)
    non_ascii = ~d["first_name"].str.isascii() | ~d["last_name"].str.isascii()
    assert non_ascii.sum() >= 40


def test_names_are_common_names_from_the_bundled_lists() -> None:
    root = resources_dir() / "names"
    given = set((root / "given_names.txt").read_text(encoding="utf-8").split())
    surnames = set((root / "surnames.txt").read_text(encoding="utf-8").split())
    first = demo._FEMALE + demo._MALE
    assert sum(n.lower() in given for n in first) / len(first) >= 0.9
    assert sum(n.lower() in surnames for n in demo._SURNAMES) / len(demo._SURNAMES) >= 0.9
    # the relative named in a note is a common name, and in no column
    assert "sarah" in given and "Sarah" not in first


def test_notes_plant_own_names_a_relative_a_phone_and_a_date(
    frames: dict[str, pd.DataFrame],
) -> None:
    d = frames["demographics"]
    notes = d["notes"].fillna("")
    own_last = pd.Series(
        [
            f"{'Ms.' if s == 'F' else 'Mr.'} {n}"
            for s, n in zip(d["sex"], d["last_name"], strict=True)
        ]
    )
    mentions_self = pd.Series([o in t for o, t in zip(own_last, notes, strict=True)])
    assert mentions_self.sum() >= 100
    assert (notes == demo.RELATIVE_NOTE).sum() == 1
    for col in d.columns.drop("notes"):
        assert not d[col].fillna("").str.contains("Sarah").any(), col
    assert notes.str.contains(r"\(\d{3}\) 555-01\d\d").sum() >= 10
    assert notes.str.contains(r"\b\d{1,2}/\d{1,2}/\d{4}\b").sum() >= 10
    assert notes.str.contains(",").any() and notes.str.contains('"').any()  # CSV quoting


# ---------------------------------------------------------------------------- determinism


def test_same_seed_same_frames_different_seed_different_frames() -> None:
    a, b = demo.make_demo_frames(300, 5), demo.make_demo_frames(300, 5)
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name])
    c = demo.make_demo_frames(300, 6)
    assert not a["demographics"].equals(c["demographics"])


def test_same_seed_gives_byte_identical_files(tmp_path: Path) -> None:
    demo.write_demo(tmp_path / "a", rows=400, seed=9)
    demo.write_demo(tmp_path / "b", rows=400, seed=9)
    demo.write_demo(tmp_path / "c", rows=400, seed=10)
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == ["baseline.csv", "demo.deid.json", "demographics.csv", "visits.csv"]
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
        assert (tmp_path / "a" / f).read_bytes() != (tmp_path / "c" / f).read_bytes(), f


def test_shipped_demo_matches_the_generator(written: Path) -> None:
    """resources/demo is exactly what `deid demo --out resources/demo` writes."""
    for f in ("demographics.csv", "baseline.csv", "visits.csv", "demo.deid.json"):
        shipped = SHIPPED / f
        assert shipped.exists(), f"resources/demo/{f} missing: run `deid demo --out resources/demo`"
        assert shipped.read_bytes() == (written.parent / f).read_bytes(), (
            f"resources/demo/{f} drifted from the generator: run `deid demo --out resources/demo`"
        )


@pytest.mark.parametrize("rows", [0, 49, 5_000_001])
def test_rows_out_of_range(rows: int) -> None:
    with pytest.raises(UsageError, match="between 50"):
        demo.make_demo_frames(rows)


def test_smallest_demo_still_plants_everything() -> None:
    d = demo.make_demo_frames(demo.MIN_ROWS, 1)["demographics"]
    assert (d["notes"] == demo.RELATIVE_NOTE).sum() == 1
    assert d["zip"].fillna("").str.startswith("0").sum() >= 3
    assert {"Zoë", "José"} <= set(d["first_name"])


# ----------------------------------------------------------------------- the demo project


def test_demo_project_is_ready(written: Path) -> None:
    p = load_project(written)
    assert p.pathway is Pathway.SAFE_HARBOR
    assert p.person_table.name == "demographics" and p.person_table.key == "patient_id"
    assert p.risk.k_target == 5
    person = p.person_table
    assert person.column("mrn").cls is ColumnClass.DIRECT
    assert person.column("zip").role is Role.ZIP and person.column("zip").cls is ColumnClass.QUASI
    assert person.column("dob").role is Role.BIRTH_DATE
    assert person.column("age").role is Role.AGE
    assert p.table("baseline").column("discharge_date").role is Role.INDEX_DATE
    quasi = {c.name for c in person.by_class(ColumnClass.QUASI)}
    assert quasi == {"age", "sex", "race", "ethnicity", "zip"}
    for t in p.tables:
        assert resolve_path(written, t.path).is_file()
        assert t.path == demo.TABLE_FILES[t.name]  # relative: the folder can move whole
        assert [c.name for c in t.columns] == list(demo.make_demo_frames()[t.name].columns)


_HEX = re.compile(r"[0-9a-f]{32}|[0-9a-f]{64}")


def _walk_keys(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for v in node.values() for k in _walk_keys(v)}
    if isinstance(node, list):
        return {k for v in node for k in _walk_keys(v)}
    return set()


def _strings(node: Any) -> list[str]:
    """Every key and string value in a JSON document."""
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in (k, *_strings(v))]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return [node] if isinstance(node, str) else []


def assert_no_data_and_no_salt(project_text: str, frames: dict[str, pd.DataFrame], tags) -> None:
    """No cell value (length >= 4) of any non-clinical column appears in any text of the
    project (keys and string values).

    SHA-256 digests and the project id are left out (a short ID such as "0093" occurs in
    a hex digest by chance), as are JSON numbers (the seed 20260423 contains "0260"), and
    values that are only digits must have at least 6 (a 4-digit patient ID such as
    "1990" matches the app's own wording, "1990 US Census lists", by chance).
    """
    strings = [s for s in _strings(json.loads(project_text)) if not _HEX.fullmatch(s)]
    text = "\n".join(strings)
    checked = 0
    for table, frame in frames.items():
        for tag in tags[table]:
            if tag.cls is ColumnClass.CLINICAL:
                continue
            values = frame[tag.name].dropna().unique()
            values = [v for v in values if len(v) >= (6 if v.isdigit() else 4)]
            checked += len(values)
            leaked = [v for v in values if v in text]
            assert leaked == [], f"{table}.{tag.name}: {len(leaked)} values in the project"
    assert checked > 5000
    assert not any("salt" in k.lower() for k in _walk_keys(json.loads(project_text)))
    assert "salt" not in project_text.lower()


def test_demo_project_holds_no_data_value_and_no_salt(written: Path) -> None:
    frames = demo.make_demo_frames()
    p = load_project(written)
    tags = {t.name: t.columns for t in p.tables}
    assert_no_data_and_no_salt(written.read_text(encoding="utf-8"), frames, tags)


def test_demo_csv_parses_back_to_the_frames(written: Path) -> None:
    frames = demo.make_demo_frames()
    for name, file in demo.TABLE_FILES.items():
        back = pd.read_csv(
            written.parent / file, dtype=str, keep_default_na=False, encoding="utf-8"
        ).replace("", np.nan)
        expected = frames[name].astype(object).where(frames[name].notna(), np.nan)
        pd.testing.assert_frame_equal(back, expected, check_dtype=False)


def test_the_no_data_guard_catches_a_leak(written: Path) -> None:
    frames = demo.make_demo_frames()
    p = load_project(written)
    tags = {t.name: t.columns for t in p.tables}
    doc = json.loads(written.read_text(encoding="utf-8"))
    doc["tables"][0]["columns"][1]["evidence"].append(
        f"values look like {frames['demographics']['mrn'].iloc[5]}"
    )
    with pytest.raises(AssertionError, match="values in the project"):
        assert_no_data_and_no_salt(json.dumps(doc), frames, tags)


def test_csv_writer_quotes_only_what_needs_it() -> None:
    text = pd.StringDtype("pyarrow")
    frame = pd.DataFrame(
        {
            "id": pd.Series(["0001", "0002", "0003", "0004"], dtype=text),
            "note, free": pd.Series(['said "ok"', None, "two\nlines", "a, b"], dtype=text),
            "zip": pd.Series(["02139", None, "92093", "01013"], dtype=text),
        }
    )
    data = demo._csv_bytes(frame)
    assert data.decode("utf-8").splitlines()[0] == 'id,"note, free",zip'
    assert b'0001,"said ""ok""",02139\n0002,,\n' in data
    back = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    assert back["note, free"].tolist() == ['said "ok"', "", "two\nlines", "a, b"]
    assert back["zip"].tolist() == ["02139", "", "92093", "01013"]
    lone = pd.DataFrame({"a": pd.Series(["x", None], dtype=text)})
    assert demo._csv_bytes(lone) == b'a\nx\n""\n'  # a lone empty field is not a blank line
    assert demo._csv_bytes(lone.iloc[:0]) == b"a\n"
