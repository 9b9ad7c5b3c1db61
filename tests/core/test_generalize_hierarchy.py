"""Generalization hierarchies: ARX's CSV format in and out, the checks on a file, coding a
column onto its hierarchy, and the built-ins (ages, years, dates, ZIP, race, ICD codes)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core.errors import InputError, UsageError
from deid_desktop.core.risk.builtin_hierarchies import builtin_hierarchy, guess_kind
from deid_desktop.core.risk.hierarchy import (
    encode,
    parse_arx_csv,
    read_arx_csv,
    read_hierarchy_dir,
    write_arx_csv,
)

ADULT = Path(__file__).resolve().parents[1] / "data" / "adult"


def _s(values: list[str | None]) -> pd.Series:
    return pd.Series(values, dtype=pd.StringDtype("pyarrow"), name="col")


def test_reads_arx_hierarchy_files_by_column_name() -> None:
    found = read_hierarchy_dir(ADULT, ["age", "education", "sex", "not-there"])
    assert sorted(found) == ["age", "education", "sex"]
    age = found["age"]
    assert age.levels == 5 and len(age.rows) == 100
    assert age.mapping(3)["39"] == "20-39"  # ARX's 20-year band
    assert age.mapping(4)["39"] == "*"
    assert found["education"].mapping(1)["Bachelors"] == "Undergraduate"


def test_plain_column_file_wins_over_arx_name(tmp_path: Path) -> None:
    (tmp_path / "data_hierarchy_sex.csv").write_text("Male;*\nFemale;*\n", encoding="utf-8")
    (tmp_path / "sex.csv").write_text("Male;M;*\nFemale;F;*\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
    assert read_hierarchy_dir(tmp_path, ["sex"])["sex"].levels == 3


def test_round_trip_with_another_separator(tmp_path: Path) -> None:
    original = read_arx_csv(ADULT / "adult_hierarchy_occupation.csv")
    out = tmp_path / "occupation.csv"
    write_arx_csv(original, out, sep=",")
    assert "," in out.read_text(encoding="utf-8").splitlines()[0]
    again = read_arx_csv(out, sep=",")
    assert again.rows == original.rows and again.column == "occupation"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("a;x;*\nb;x\n", 2, "levels"),
        ("a;x;*\na;y;*\n", 2, "twice"),
        ("a;x;G1;*\nb;x;G2;*\n", 2, "two different labels"),
    ],
)
def test_a_broken_file_is_refused_by_line_without_values(text: str, line: int, words: str) -> None:
    with pytest.raises(InputError) as err:
        parse_arx_csv(text, column="c", name="c.csv")
    message = str(err.value)
    assert words in message and f"line {line}" in message and "c.csv" in message
    for value in ("G1", "G2", "x;"):
        assert value not in message


def test_a_value_missing_from_the_hierarchy_is_counted_not_shown() -> None:
    h = parse_arx_csv("Male;*\nFemale;*\n", column="sex", name="sex.csv")
    with pytest.raises(InputError) as err:
        encode(_s(["Male", "Secretvalue", "Secretvalue"]), h)
    assert "2 value(s)" in str(err.value) and "Secretvalue" not in str(err.value)


def test_missing_is_its_own_value_until_the_pooled_top() -> None:
    h = parse_arx_csv("a;AB;*\nb;AB;*\nc;C;*\n", column="col", name="col.csv")
    enc = encode(_s(["a", None, "b", None]), h)
    level1 = enc.maps[1][enc.codes]
    assert level1[0] == level1[2] and level1[1] == level1[3] and level1[0] != level1[1]
    assert len(set(enc.maps[2][enc.codes].tolist())) == 1  # all pooled at the top
    out = h.generalize(_s(["a", None, "c"]), 1)
    assert out.iloc[0] == "AB" and pd.isna(out.iloc[1]) and out.iloc[2] == "C"


def test_builtin_ages_band_and_top_code() -> None:
    h = builtin_hierarchy("age", _s(["3", "44", "89", "90", "104", "90+", None]))
    assert h.levels == 5
    assert h.mapping(1)["44"] == "40-44" and h.mapping(2)["44"] == "40-49"
    assert h.mapping(3)["44"] == "40-59" and h.mapping(3)["89"] == "80-89"
    for level in (1, 2, 3):
        assert {h.mapping(level)[v] for v in ("90", "104", "90+")} == {"90+"}
    with pytest.raises(InputError, match="1 value"):
        builtin_hierarchy("age", _s(["40", "forty"]))


def test_builtin_years_and_dates() -> None:
    years = builtin_hierarchy("year", _s(["1987", "2003"]))
    assert years.rows[0] == ("1987", "1985-1989", "1980-1989", "*")
    dates = builtin_hierarchy("date", _s(["2003-07-14", "1999-01-02"]))
    assert (
        dates.mapping(1)["2003-07-14"] == "2003" and dates.mapping(3)["1999-01-02"] == "1990-1999"
    )


def test_builtin_zip_goes_through_safe_harbor_zip3_then_000() -> None:
    h = builtin_hierarchy("zip", _s(["02139", "03601", "10001"]))
    assert h.mapping(1) == {"02139": "021", "03601": "000", "10001": "100"}
    assert set(h.level_labels(2)) == {"000"}
    assert builtin_hierarchy("zip", _s(["021", "100"])).rows == (("021", "000"), ("100", "000"))


def test_builtin_race_marital_education_tables() -> None:
    race = builtin_hierarchy("race", _s(["White", "Amer-Indian-Eskimo", "black", "Klingon"]))
    assert race.mapping(1) == {
        "White": "White",
        "Amer-Indian-Eskimo": "American Indian or Alaska Native",
        "black": "Black or African American",
        "Klingon": "Other or unknown",
    }
    marital = builtin_hierarchy("marital", _s(["Married-civ-spouse", "Divorced"]))
    assert marital.mapping(2) == {
        "Married-civ-spouse": "Married or partnered",
        "Divorced": "Not married",
    }
    edu = builtin_hierarchy("education", _s(["Masters", "11th"]))
    assert edu.mapping(1) == {"Masters": "Graduate degree", "11th": "Less than high school"}


def test_builtin_icd10_code_category_block_chapter() -> None:
    h = builtin_hierarchy("icd10", _s(["E11.9", "E119", "J45.909", "C7A.01", "Q99"]))
    assert h.rows[h.values.index("E11.9")] == (
        "E11.9",
        "E11",
        "E08-E13",
        "Chapter 4 (E00-E89)",
        "*",
    )
    assert h.mapping(2)["E119"] == "E08-E13"
    assert h.mapping(3)["J45.909"] == "Chapter 10 (J00-J99)"
    assert h.mapping(2)["C7A.01"] == "C7A"
    assert h.mapping(3)["C7A.01"] == "Chapter 2 (C00-D49)"


def test_builtin_icd9_code_category_chapter() -> None:
    h = builtin_hierarchy("icd9", _s(["250.00", "401.9", "V70.0", "E880.9"]))
    assert h.mapping(1) == {"250.00": "250", "401.9": "401", "V70.0": "V70", "E880.9": "E880"}
    assert h.mapping(2)["250.00"] == "Chapter 3 (240-279)"
    assert h.mapping(2)["E880.9"].startswith("Supplementary E")


def test_builtins_export_as_arx_files(tmp_path: Path) -> None:
    h = builtin_hierarchy("age", _s(["30", "95"]), "age")
    write_arx_csv(h, tmp_path / "age.csv")
    assert read_hierarchy_dir(tmp_path, ["age"])["age"].rows == h.rows


def test_guess_kind_and_unknown_builtin() -> None:
    assert guess_kind("patient_age") == "age" and guess_kind("page") is None
    assert guess_kind("Diagnosis code") == "icd10" and guess_kind("ZIP") == "zip"
    with pytest.raises(UsageError):
        builtin_hierarchy("shoe-size", _s(["40"]))
