"""The ZIP3 allow-list: shipped table, user-loaded Census files, and applying it."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import InputError
from deid_desktop.core.resources import resource
from deid_desktop.core.zip3 import (
    ZIP3_UNKNOWN,
    Zip3Table,
    load_bundled_zip3,
    load_census_file,
    read_zcta_populations,
    sha256_of,
    zip3_or_000,
)

CENSUS = "census"


def _prefixes(path: Path) -> set[str]:
    return set(pd.read_csv(path, dtype=str)["zip3"])


@pytest.fixture(scope="module")
def restricted_2020(public_data: Path) -> set[str]:
    return _prefixes(public_data / CENSUS / "restricted_zip3_2020.csv")


@pytest.fixture(scope="module")
def without_zcta(public_data: Path) -> set[str]:
    return _prefixes(public_data / CENSUS / "zip3_without_zcta_2020.csv")


def test_shipped_table_is_the_derivation_of_the_2020_dhc_file(public_data: Path) -> None:
    shipped = resource("zip3", "zip3_population_2020.csv")
    assert shipped.read_bytes() == (public_data / CENSUS / "zip3_population_2020.csv").read_bytes()
    meta = json.loads(resource("zip3", "zip3_population_2020.json").read_text())
    source = public_data / CENSUS / "DECENNIALDHC2020.P1-Data.csv"
    assert meta["source_sha256"] == sha256_of(source)
    assert meta["output_sha256"] == sha256_of(shipped)
    provenance = resource("zip3", "PROVENANCE.md").read_text()
    assert meta["source_sha256"] in provenance and meta["output_sha256"] in provenance


def test_reading_the_2020_file_passes_the_recorded_checks(
    public_data: Path, restricted_2020: set[str]
) -> None:
    path = public_data / CENSUS / "DECENNIALDHC2020.P1-Data.csv"
    zcta, vintage = read_zcta_populations(path)
    assert len(zcta) == 33_774
    assert int(zcta["population"].sum()) == 334_726_586
    assert vintage == "2020 Census DHC P1"
    table = load_census_file(path)
    assert len(table.populations) == 894
    assert set(table.restricted) == restricted_2020 and len(restricted_2020) == 18
    assert table == load_bundled_zip3()  # same derivation, same figures, same vintage
    assert table.source.startswith("DECENNIALDHC2020.P1-Data.csv sha256:")


def test_2010_sf1_layout_with_bom_quotes_and_trailing_column(public_data: Path) -> None:
    table = load_census_file(public_data / CENSUS / "DECENNIALSF12010.P1-Data.csv")
    assert table.vintage == "2010 Census SF1 P1"
    assert table.total_population == 312_462_997
    assert sum(table.zcta_counts.values()) == 33_120
    assert set(table.restricted) == _prefixes(public_data / CENSUS / "restricted_zip3_2010.csv")


def test_plain_zcta_population_file(tmp_path: Path, restricted_2020: set[str]) -> None:
    prefix = sorted(restricted_2020)[0]
    path = tmp_path / "newer.csv"
    path.write_text(f"zcta,population\n{prefix}01,25000\n10001,30000\n601,100\n")
    table = load_census_file(path)
    assert table.vintage == "user file newer.csv"
    assert table.allowed(prefix)  # a newer count above 20,000 lets the prefix back in
    assert table.allowed("100")
    assert not table.allowed("006")  # 00601 with its zeros lost by a spreadsheet: 100 people
    assert table.populations["006"] == 100


@pytest.mark.parametrize(
    ("content", "line", "words"),
    [
        ("zcta,population\n10001,30000\n10002,many\n", 3, "not whole numbers"),
        ("zcta,population\n10001,30000\nABCDE,5\n", 3, "not 5-digit"),
        ("zcta,population\n10001,30000\n10001,5\n", 3, "more than once"),
        ("zip,people\n10001,30000\n", 1, "neither the Census layout"),
        ("GEO_ID,NAME,P1_001N\nGeography,Name,Total\n860Z200US10001,Z,5\nbad,Z,5\n", 4, "GEO_ID"),
        ("zcta,population\n", None, "no data rows"),
    ],
)
def test_bad_population_file_names_file_and_line(
    tmp_path: Path, content: str, line: int | None, words: str
) -> None:
    path = tmp_path / "pop.csv"
    path.write_text(content)
    with pytest.raises(InputError) as info:
        load_census_file(path)
    assert info.value.file == "pop.csv"
    assert info.value.row == line
    assert words in info.value.message
    assert "many" not in str(info.value) and "ABCDE" not in str(info.value)


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_census_file(tmp_path / "nope.csv")


def test_zip3_or_000_cases(restricted_2020: set[str], without_zcta: set[str]) -> None:
    table = load_bundled_zip3()
    kept = sorted(table.allowed_prefixes)[100]
    restricted = sorted(restricted_2020)[0]
    absent = sorted(without_zcta)[0]
    zips = pd.Series(
        [
            f"{kept}23",
            f"{kept}23-4567",
            f"{kept}234567",
            f" {kept}23 ",
            f"{restricted}01",
            f"{absent}01",
            f"{kept}2",
            f"{kept}2A",
            "",
            None,
        ],
        dtype="string[pyarrow]",
        index=range(10, 20),
    )
    out = zip3_or_000(zips, table)
    assert list(out.index) == list(range(10, 20))
    assert out.tolist() == [kept, kept, kept, kept] + [ZIP3_UNKNOWN] * 6


def test_every_restricted_and_zcta_less_prefix_becomes_000(
    restricted_2020: set[str], without_zcta: set[str]
) -> None:
    table = load_bundled_zip3()
    prefixes = sorted(restricted_2020 | without_zcta)
    out = zip3_or_000(pd.Series([p + "00" for p in prefixes], dtype="string"), table)
    assert set(out) == {ZIP3_UNKNOWN}


def test_allowed_means_more_than_20000() -> None:
    table = Zip3Table("t", "s", {"111": 20_000, "222": 20_001})
    assert not table.allowed("111")
    assert table.allowed("222")
    assert zip3_or_000(pd.Series(["11111", "22222"]), table).tolist() == ["000", "222"]


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_no_restricted_zip3_ever_survives(
    data: st.DataObject, restricted_2020: set[str], without_zcta: set[str]
) -> None:
    bad = sorted(restricted_2020 | without_zcta)
    digits = st.text(alphabet="0123456789", min_size=5, max_size=5)
    planted = st.builds(
        lambda p, s: p + s, st.sampled_from(bad), st.text("0123456789", min_size=2, max_size=2)
    )
    junk = st.one_of(st.none(), st.text(max_size=8))
    values = data.draw(st.lists(st.one_of(digits, planted, junk), min_size=1, max_size=50))
    out = zip3_or_000(pd.Series(values, dtype="string"), load_bundled_zip3())
    assert not set(out) & set(bad)
    assert out.str.fullmatch(r"\d{3}").all()
    assert all(z == ZIP3_UNKNOWN or load_bundled_zip3().allowed(z) for z in out)
