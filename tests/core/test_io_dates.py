"""Date format inference and parsing; ZIP restoration. Table-driven cases."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import InputError
from deid_desktop.core.io import (
    DATE_FORMAT_LABELS,
    infer_date_format,
    parse_dates,
    read_dates,
    restore_zip_zeros,
)


def text(values: list[str | None]) -> pd.Series:
    return pd.Series(values, dtype=pd.StringDtype("pyarrow"), name="d")


def infer(values: list[str | None]) -> str:
    return infer_date_format(text(values), file="visits.csv", column="visit_date")


def infer_error(values: list[str | None]) -> InputError:
    with pytest.raises(InputError) as info:
        infer(values)
    err = info.value
    assert err.file == "visits.csv" and err.column == "visit_date"
    for value in values:
        if value:
            assert value not in str(err), "a date value leaked into the message"
    return err


CASES = [
    (["2024-01-31", None, "2024-2-5"], "%Y-%m-%d"),
    (["2024-01-31 14:05:00", "2024-02-01 00:00:00"], "%Y-%m-%d %H:%M:%S"),
    (["2024-01-31T14:05:00"], "%Y-%m-%dT%H:%M:%S"),
    (["2022-07-20T07:13:55Z", "2022-07-21"], "%Y-%m-%dT%H:%M:%SZ"),  # Synthea's UTC times
    (["2024-01-31 14:05", "2024-01-30"], "%Y-%m-%d %H:%M"),  # bare dates mix with one time form
    (["01/31/2024", "2/1/2024"], "%m/%d/%Y"),
    (["12/25/2023 08:00", "1/2/2024 17:30"], "%m/%d/%Y %H:%M"),
    (["31/01/2024", "01/02/2024"], "%d/%m/%Y"),
    (["31-01-2024", "1-2-2024"], "%d-%m-%Y"),
    (["31.01.2024 10:00:00", "01.02.2024"], "%d.%m.%Y %H:%M:%S"),
    (["2024/01/31", "2024/12/01"], "%Y/%m/%d"),
    (["01/01/2024", "02/02/2024"], "%m/%d/%Y"),  # day == month everywhere: both read alike
    ([None, None], "%Y-%m-%d"),
]


@pytest.mark.parametrize(("values", "fmt"), CASES)
def test_format_is_inferred_from_all_values(values: list[str | None], fmt: str) -> None:
    assert infer(values) == fmt
    assert fmt in DATE_FORMAT_LABELS


@pytest.mark.parametrize(("values", "fmt"), CASES)
def test_read_dates_infers_and_parses_like_the_two_steps(
    values: list[str | None], fmt: str
) -> None:
    found, parsed = read_dates(text(values), file="visits.csv", column="visit_date")
    assert found == fmt
    expected = parse_dates(text(values), fmt)
    assert parsed.equals(expected) and parsed.dtype == expected.dtype
    assert read_dates(text(values), fmt)[1].equals(expected)


def test_read_dates_raises_what_inference_raises() -> None:
    values = text(["2024-01-31", "31/01/2024"])
    with pytest.raises(InputError) as info:
        read_dates(values, file="visits.csv", column="visit_date")
    assert info.value.row == 3 and "more than one format" in str(info.value)


def test_uniform_and_mixed_columns_parse_alike() -> None:
    """A column of one shape (read without per-byte class look-ups) and the same values
    among others of other lengths and shapes give the same datetimes."""
    days = pd.date_range("1899-12-25", periods=5_000, freq="D")
    iso = list(days.strftime("%Y-%m-%d"))
    uniform = parse_dates(text(iso), "%Y-%m-%d %H:%M")
    mixed_values = [v if i % 7 else f"{v} 0{i % 10}:3{i % 6}" for i, v in enumerate(iso)]
    mixed_values[3] = "2024-2-29"
    mixed = parse_dates(text(mixed_values), "%Y-%m-%d %H:%M")
    assert uniform.tolist() == list(days)
    keep = [i for i in range(len(iso)) if i % 7 == 0 or i == 3]
    same = [i for i in range(len(iso)) if i not in keep]
    assert mixed.iloc[same].tolist() == uniform.iloc[same].tolist()
    assert mixed.iloc[3] == pd.Timestamp("2024-02-29")
    assert mixed.iloc[14] == days[14] + pd.Timedelta(hours=4, minutes=32)


def test_ambiguous_month_day_is_an_error_naming_both_formats() -> None:
    err = infer_error(["01/02/2024", "03/04/2024", "12/11/2023"])
    assert "month/day or day/month" in err.message
    assert "US month/day/year (01/31/2024)" in err.message
    assert "day/month/year (31/01/2024)" in err.message


def test_mixed_layouts_name_the_formats_and_first_offending_line() -> None:
    err = infer_error(["2023-07-04", "2024-02-01", "02/03/2024", "2024-02-04"])
    assert "ISO (2024-01-31)" in err.message and "more than one format" in err.message
    assert err.row == 4  # data row 2 -> file line 4


def test_month_first_and_day_first_values_together_are_mixed() -> None:
    err = infer_error(["01/13/2024", "01/14/2024", "13/01/2024", "02/15/2024"])
    assert err.row == 4 and "US month/day/year" in err.message


def test_two_time_forms_are_mixed() -> None:
    err = infer_error(["2023-07-04 10:00:00", "2023-07-04T10:00:00"])
    assert err.row == 3


@pytest.mark.parametrize(
    ("values", "line"),
    [
        (["2023-07-04", "2023-02-30"], 3),  # 30 February
        (["2024-13-01"], 2),
        (["2023-07-04 25:00"], 2),
        (["12/31/2024", "02/30/2024"], 3),
        (["2023-07-04", None, "unknown"], 4),
        (["2023-07-04", "2023-07-04 "], 3),  # trailing space: not silently stripped
        (["31/01/24"], 2),  # two-digit years are not guessed
    ],
)
def test_impossible_or_unknown_values_name_their_line(values: list[str | None], line: int) -> None:
    assert infer_error(values).row == line


def test_repeated_missing_marker_gets_a_hint_without_its_text() -> None:
    err = infer_error(["2023-07-04", "NA", "NA"])
    assert err.row == 3 and "same text" in err.hint and "2 values" in err.message


def test_parse_dates_gives_datetimes_and_nat_for_missing() -> None:
    values = text(["31/01/2024 10:30:00", None, "01/02/2024"])
    parsed = parse_dates(values, "%d/%m/%Y %H:%M:%S")
    assert str(parsed.dtype) == "datetime64[ns]"
    assert parsed.tolist()[0] == pd.Timestamp("2024-01-31 10:30:00")
    assert pd.isna(parsed.iloc[1]) and parsed.iloc[2] == pd.Timestamp("2024-02-01")
    assert parsed.index.equals(values.index)


def test_parse_dates_refuses_values_in_another_format() -> None:
    with pytest.raises(InputError) as info:
        parse_dates(text(["2024-01-31", "01/31/2024"]), "%Y-%m-%d", file="v.csv", column="d")
    assert info.value.row == 3 and "ISO (2024-01-31)" in info.value.message
    with pytest.raises(InputError, match="Unknown date format"):
        parse_dates(text(["2024"]), "%Y")


def test_every_value_of_a_large_column_is_checked() -> None:
    days = pd.date_range("1930-01-01", periods=300_000, freq="h").strftime("%m/%d/%Y")
    values = text(list(days))
    values.iloc[299_998] = "02/30/2024"
    with pytest.raises(InputError) as info:
        infer_date_format(values, file="big.csv", column="d")
    assert info.value.row == 300_000


FORMATS = sorted(DATE_FORMAT_LABELS)


@settings(max_examples=200, deadline=None)
@given(
    fmt=st.sampled_from(FORMATS),
    stamps=st.lists(
        st.datetimes(min_value=datetime(1800, 1, 1), max_value=datetime(2200, 12, 31)),
        min_size=1,
        max_size=20,
    ),
)
def test_parse_reads_back_what_strftime_wrote(fmt: str, stamps: list[datetime]) -> None:
    stamps = [s.replace(microsecond=0, second=0 if "%S" not in fmt else s.second) for s in stamps]
    if "%H" not in fmt:
        stamps = [s.replace(hour=0, minute=0, second=0) for s in stamps]
    values = text([s.strftime(fmt) for s in stamps])
    assert parse_dates(values, fmt).tolist() == [pd.Timestamp(s) for s in stamps]


ZIPS = [
    ("2139", "02139", 1),
    ("02139", "02139", 0),
    ("501", "00501", 1),
    ("2139-1234", "02139-1234", 1),
    ("2139.0", "02139", 1),
    ("12345", "12345", 0),
    ("021391234", "021391234", 0),
    ("abc", "abc", 0),
    ("12", "12", 0),
    (None, None, 0),
]


@pytest.mark.parametrize(("value", "restored", "count"), ZIPS)
def test_zip_zeros_are_restored(value: str | None, restored: str | None, count: int) -> None:
    series, n = restore_zip_zeros(text([value]))
    assert n == count
    got = series.iloc[0]
    assert (pd.isna(got) and restored is None) or got == restored
    assert series.dtype == pd.StringDtype("pyarrow")


def test_zips_with_nothing_to_restore_are_returned_as_they_are() -> None:
    zips = text(["92119", "02139-1234", "abc", None])
    series, n = restore_zip_zeros(zips)
    assert n == 0
    assert series is zips  # no column-wide padding made and thrown away
    as_objects = pd.Series(["92119", None], dtype=object)
    series, n = restore_zip_zeros(as_objects)
    assert n == 0 and series.dtype == pd.StringDtype("pyarrow")
    assert series.tolist()[0] == "92119" and pd.isna(series.tolist()[1])
