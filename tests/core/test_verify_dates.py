"""The gate's date-element check (``verify.dates``): under Safe Harbor no released cell
is a date finer than a year, in any column and any format; counts, never values."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from deid_desktop.core.model import Pathway
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import Finding, VerifyContext, checks_for
from deid_desktop.core.verify.dates import check_no_date_elements
from tests.core.support import TEXT
from tests.core.test_safe_harbor_support import make_case

EXTRACT, PROJECT = make_case(n=12)
CLEAN = build_safe_harbor(EXTRACT, PROJECT)


def judge(cells: list[str], name: str = "label") -> Finding:
    person = EXTRACT.person.name
    frame = CLEAN.tables[person].copy()
    frame[name] = pd.array((cells + ["Baseline"] * len(frame))[: len(frame)], dtype=TEXT)
    release = replace(CLEAN, tables={**CLEAN.tables, person: frame})
    return check_no_date_elements(EXTRACT, release, PROJECT, VerifyContext(EXTRACT, PROJECT))


def test_clean_release_passes() -> None:
    assert judge([]).passed


@pytest.mark.parametrize(
    "value",
    ["2024-03", "March 2024", "03/2024", "12-Mar-24", "12 Mar", "Mar. 12", "20240312 1015",
     "2024-W11", "Sept. 3, 2023"],
)  # fmt: skip
def test_a_date_finer_than_a_year_fails_in_any_format(value: str) -> None:
    found = judge([value, value])
    assert not found.passed and found.count == 2
    (message,) = found.detail["messages"]
    assert "'label'" in message and "2 cells" in message and value not in message


def test_excel_serials_fail_in_a_date_named_column_only() -> None:
    serials = [str(45363 + i) for i in range(12)]
    assert not judge(serials, name="sample_date").passed
    assert judge(serials, name="sodium_level").passed


def test_unix_times_fail_whatever_the_column_name() -> None:
    # a visit's time kept as epoch milliseconds under a clinical tag (seen in EHR exports)
    stamps = [str(1644796800000 + 86_400_000 * 37 * i) for i in range(12)]
    found = judge(stamps, name="admit_ms")
    assert not found.passed and found.count == 12
    (message,) = found.detail["messages"]
    assert "Unix time" in message and "direct identifier" in message
    assert not any(s in message for s in stamps)


def test_an_enrolment_month_kept_as_a_number_fails_whatever_the_column_name() -> None:
    """``enroll_ym`` of 201906 under a clinical tag passed the gate: the month of a date."""
    months = [f"{2015 + i % 9}{1 + i % 12:02d}" for i in range(12)]
    found = judge(months, name="enroll_ym")
    assert not found.passed and found.count == 12
    (message,) = found.detail["messages"]
    assert "YYYYMM" in message and "direct identifier" in message
    assert not any(m in message for m in months)


def test_years_and_numbers_pass() -> None:
    assert judge(["2024", "1999", "120/80", "5.4", "12-15", "Week 4"]).passed


def test_registered_for_safe_harbor_only() -> None:
    assert "no_date_elements" in {c.id for c in checks_for(Pathway.SAFE_HARBOR)}
    assert "no_date_elements" not in {c.id for c in checks_for(Pathway.LINKABLE)}
