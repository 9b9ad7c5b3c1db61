"""Date shapes finer than a year: every way a month, day or week is written is found,
and values that only look numeric-ish (versions, ratios, blood pressures) are not."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.io.date_shapes import (
    COMPACT_DATE,
    COMPACT_YEAR_MONTH,
    EXCEL_SERIAL,
    MONTH_DAY,
    MONTH_NAME,
    UNIX_TIME,
    count_finer_than_year,
    date_shape_of,
    finer_than_year,
    name_says_date,
    serial_to_date,
    shape_counts,
)

TEXT = "string[pyarrow]"

#: Every shape issue 16 found released under the Safe Harbor label, and the usual ones.
DATES = [
    "2024-03",
    "03/2024",
    "2024/03",
    "March 2024",
    "Mar 2024",
    "Mar. 2024",
    "SEPT 2023",
    "12 Mar",
    "Mar. 12",
    "12-Mar",
    "March 12th",
    "12-Mar-24",
    "12 March 2024",
    "March 12, 2024",
    "Mar-24",
    "20240312 1015",
    "20240312T1015",
    "20240312T101500",
    "2024-W11",
    "2024W113",
    "2024-03-12",
    "2024-03-12T10:15:00Z",
    "2024-03-12 10:15",
    "03/12/2024",
    "12.03.2024",
    "3/12/2024 10:15 pm",
    "12/03/24",
    "10.12.24",
    "2024-072",
    "Q1 2024",
    "2024-Q3",
    " 2024-03 ",
]
NOT_DATES = [
    "2024",
    "1999",
    "5.4",
    "10.1/4.72",
    "120/80",
    "1.2.3",
    "1.2.24",
    "v1.2.24",
    "2.10",
    "12-15",
    "3/4",
    "7/10",
    "2.5-3.0",
    "45",
    "-3.2",
    "1e5",
    "20240312",
    "45000",
    "A-12",
    "12 mg",
    "100 mL",
    "May",
    "may be",
    "marked",
    "MRN0012345",
    "555-0134",
    "",
    "13/2024",
    "2024-13",
    "32 Mar",
]


def _col(values: list[str | None]) -> pd.Series:
    return pd.Series(values, dtype=TEXT)


@pytest.mark.parametrize("value", DATES)
def test_each_date_shape_is_finer_than_a_year(value: str) -> None:
    assert finer_than_year(_col([value])).tolist() == [True]


@pytest.mark.parametrize("value", NOT_DATES)
def test_numbers_versions_ratios_and_words_are_not_dates(value: str) -> None:
    assert finer_than_year(_col([value])).tolist() == [False]


def test_labels_name_the_shape_and_missing_stays_missing() -> None:
    shapes = date_shape_of(_col(["2024-03", None, "2024-W11", "120/80", "12 Mar"]))
    assert shapes.iloc[0] == "year-month"
    assert shapes.iloc[2] == "ISO week"
    assert shapes.iloc[4] == "day month-name"
    assert shapes.isna().tolist() == [False, True, False, True, False]
    assert count_finer_than_year(_col(["2024-03", None, "x"])) == 1
    assert shape_counts(_col(["2024-03", "2025-01", "Mar 2024"])) == {
        "year-month": 2,
        "month-name year": 1,
    }


def test_excel_serials_count_only_in_a_date_named_column() -> None:
    serials = _col(["45363", "45364.5", "38000", "41000", None])
    assert count_finer_than_year(serials, column="visit_date") == 4
    assert date_shape_of(serials, column="visit_date").iloc[0] == EXCEL_SERIAL
    assert count_finer_than_year(serials, column="amount") == 0
    assert count_finer_than_year(serials) == 0


def test_a_date_column_of_small_numbers_is_not_serials() -> None:
    # days since admission in a column named admit_day: counts, not serial dates
    assert count_finer_than_year(_col([str(n) for n in range(1, 60)]), column="admit_day") == 0


def test_a_few_compact_dates_count_only_in_a_date_named_column() -> None:
    values = _col(["20240312", "19991231", "A1234", "B5678", "C9012"])
    assert date_shape_of(values, column="DOB").tolist()[:2] == [COMPACT_DATE] * 2
    assert count_finer_than_year(values, column="lot_number") == 0


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.dates(date(1900, 1, 1), date(2099, 12, 28)), min_size=3, max_size=40),
    st.sampled_from(["%Y%m", "%Y%m%d"]),
    st.sampled_from(["enroll_ym", "cohort", "x"]),
)
def test_a_column_of_compact_year_months_or_dates_is_dates_whatever_its_name(
    days: list[date], fmt: str, name: str
) -> None:
    """An enrolment month kept as ``201906`` in a clinical column passed the gate."""
    values = _col([d.strftime(fmt) for d in days])
    assert finer_than_year(values, column=name).all()
    label = COMPACT_YEAR_MONTH if fmt == "%Y%m" else COMPACT_DATE
    assert set(date_shape_of(values, column=name)) == {label}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(100_000, 999_999), min_size=20, max_size=60, unique=True))
def test_six_digit_counts_are_not_year_months(counts: list[int]) -> None:
    """Platelet counts, steps or codes of six digits drawn over their range."""
    assert not finer_than_year(_col([str(n) for n in counts]), column="platelets").any()


def test_serial_numbers_in_both_date_systems() -> None:
    assert serial_to_date(45363) == date(2024, 3, 12)
    assert serial_to_date(1) == date(1900, 1, 1)
    assert serial_to_date(45363 - 1462, system=1904) == date(2024, 3, 12)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("visit_date", True),
        ("DOB", True),
        ("AdmitDate", True),
        ("admitted_on", True),
        ("birth_dt", True),
        ("fecha_nacimiento", True),
        ("update_count", False),
        ("candidate", False),
        ("lab_value", False),
        ("systolic", False),
    ],
)
def test_date_names(name: str, says: bool) -> None:
    assert name_says_date(name) is says


MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
days = st.dates(min_value=date(1900, 1, 1), max_value=date(2099, 12, 31))


@settings(max_examples=60, deadline=None)
@given(
    days,
    st.sampled_from(
        [
            "%Y-%m",
            "%m/%Y",
            "%B %Y",
            "%b. %Y",
            "%d %b",
            "%b. %d",
            "%d-%b-%y",
            "%Y%m%d %H%M",
            "%Y%m%dT%H%M",
            "%G-W%V",
            "%Y-%m-%d",
            "%m/%d/%Y",
            "%d.%m.%Y",
            "%B %d, %Y",
        ]
    ),
)
def test_any_day_in_any_shape_is_found(day: date, fmt: str) -> None:
    assert finer_than_year(_col([day.strftime(fmt)])).tolist() == [True]


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), st.integers(0, 4))
def test_plain_numbers_are_never_dates(x: float, digits: int) -> None:
    assert not finer_than_year(_col([f"{x:.{digits}f}", str(int(x))])).any()


@settings(max_examples=60, deadline=None)
@given(st.integers(40, 260), st.integers(20, 160))
def test_blood_pressures_and_ratios_are_not_dates(systolic: int, diastolic: int) -> None:
    values = [f"{systolic}/{diastolic}", f"{systolic / 10:.1f}/{diastolic / 10:.2f}"]
    assert not finer_than_year(_col(values)).any()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=2, max_size=4).filter(
        # 10.12.24 is also how much of Europe writes 10 December 2024: a date it stays
        lambda parts: not (len(parts) == 3 and all(p >= 10 for p in parts))
    )
)
def test_versions_are_not_dates(parts: list[int]) -> None:
    version = ".".join(str(p) for p in parts)
    assert not finer_than_year(_col([version, "v" + version])).any()


@settings(max_examples=40, deadline=None)
@given(st.lists(days, min_size=1, max_size=30))
def test_serial_date_column_is_found_whole(chosen: list[date]) -> None:
    recent = [d for d in chosen if d >= date(1920, 1, 1)] or [date(2000, 1, 1)]
    serials = [str((d - date(1899, 12, 30)).days) for d in recent]
    assert finer_than_year(_col(serials), column="Date of visit").all()


def test_a_long_column_mixes_dates_and_numbers() -> None:
    months = [f"{MONTHS[i % 12]} {1950 + i % 70}" for i in range(50_000)]
    numbers = [f"{i / 7:.2f}" for i in range(50_000)]
    assert count_finer_than_year(_col(months + numbers)) == 50_000


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.datetimes(min_value=datetime(2001, 9, 10), max_value=datetime(2029, 12, 31)),
        min_size=1,
        max_size=20,
    ),
    st.sampled_from(["s", "ms", "s.frac"]),
)
def test_a_column_of_unix_times_is_dates_whatever_its_name(
    chosen: list[datetime], unit: str
) -> None:
    stamps = [d.replace(tzinfo=UTC).timestamp() for d in chosen]
    cells = {
        "s": [str(int(t)) for t in stamps],
        "ms": [str(int(t * 1000)) for t in stamps],
        "s.frac": [f"{t:.3f}" for t in stamps],
    }[unit]
    shapes = date_shape_of(_col(cells), column="admit_ms")
    assert (shapes == UNIX_TIME).all()
    assert finer_than_year(_col(cells), column="lab_value").all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(2_000_000_000, 9_999_999_999), min_size=1, max_size=20))
def test_ten_digit_phone_numbers_are_not_unix_times(phones: list[int]) -> None:
    # US area codes start at 2, so a 10-digit phone is never 1xxxxxxxxx
    assert not finer_than_year(_col([str(p) for p in phones])).any()


def test_provider_npis_are_not_unix_times() -> None:
    # NPIs are 10 digits starting with 1 whose Luhn check (prefix 80840) holds
    def npi(body: int) -> str:
        digits = [int(c) for c in "80840" + str(body)]
        total = 0
        for i, d in enumerate(reversed(digits)):
            d = d * 2 if i % 2 == 0 else d
            total += d - 9 if d > 9 else d
        return f"{body}{(10 - total % 10) % 10}"

    npis = [npi(123456789 + 7919 * i) for i in range(50)]
    assert npis[0] == "1234567893"  # the CMS example
    assert not finer_than_year(_col(npis)).any()


def test_a_few_unix_looking_numbers_among_others_are_not_dates() -> None:
    cells = ["1611975491", "1636079976"] + [str(120 + i) for i in range(20)]
    assert not finer_than_year(_col(cells)).any()


def test_one_unix_time_repeated_is_dates_even_when_it_passes_the_npi_check() -> None:
    # a Unix time of 2021 whose digits happen to pass the NPI check digit: a column that
    # repeats it (five visits stamped the same second) is still a column of times
    import numpy as np

    from deid_desktop.core.io.date_shapes import _npi_valid

    start = int(datetime(2021, 3, 1, tzinfo=UTC).timestamp())
    stamp = next(t for t in range(start, start + 100) if _npi_valid(np.array([t]))[0])
    assert finer_than_year(_col([str(stamp)] * 5), column="lab_value").all()


def test_a_column_of_days_as_two_numbers_is_dates_but_fractions_and_scores_are_not() -> None:
    """A birthday kept without its year (``8/31``, ``31/8``, ``08-31``) is an element of
    a date; fractions, pain scores and murmur grades have the shape but not the spread
    of days a calendar has."""
    days = [(1 + i % 12, 1 + (i * 7) % 28) for i in range(60)]
    for cells in (
        [f"{m}/{d}" for m, d in days],
        [f"{d}/{m}" for m, d in days],
        [f"{m:02d}-{d:02d}" for m, d in days],
    ):
        assert (date_shape_of(_col(cells), column="v_misc") == MONTH_DAY).all()
    assert finer_than_year(_col(["8/31", "12/3", "1/9"]), column="bday").all()
    for cells in (
        ["1/2", "3/4", "2/3", "1/4"] * 10,
        [f"{i % 11}/10" for i in range(60)],
        [f"{1 + i % 6}/6" for i in range(60)],
        [f"{100 + i}/{60 + i % 30}" for i in range(60)],
    ):
        assert not finer_than_year(_col(cells), column="score").any()


def test_a_column_of_month_names_alone_is_dates_but_not_a_row_of_headers() -> None:
    months = ["August", "Mar", "December", "jan"] * 5
    assert (date_shape_of(_col(months), column="v_misc") == MONTH_NAME).all()
    assert not finer_than_year(_col(["May", "Mark", "Grace"] * 5), column="first").any()
    assert not finer_than_year(_col(["Jan", "Feb", "Mar"])).any()  # header cells
