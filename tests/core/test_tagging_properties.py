"""Properties that must hold for any extract: identifiers are never clinical, evidence never
shows a value, and an unknown code column is flagged."""

from __future__ import annotations

import string
from datetime import date

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid_desktop.core.model import ColumnClass, Role
from deid_desktop.core.tagging import suggest_tags

IDENTIFIER_WORDS = (
    "phone",
    "telephone",
    "email",
    "fax",
    "ssn",
    "mrn",
    "passport",
    "address",
    "url",
    "account",
    "licence",
    "udi",
    "surname",
    "first_name",
    "beneficiary",
)
OTHER_WORDS = (
    "lvef",
    "value",
    "result",
    "code",
    "type",
    "cost",
    "count",
    "date",
    "age",
    "visit",
    "notes",
    "sex",
    "zip",
    "id",
    "x",
    "2",
    "home",
    "primary",
    "baseline",
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

any_values = st.lists(
    st.one_of(
        st.none(),
        st.text(max_size=30),
        st.integers(-10_000, 10_000).map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f"{f:.3g}"),
    ),
    min_size=0,
    max_size=40,
)


@st.composite
def identifier_column_names(draw: st.DrawFn) -> str:
    before = draw(st.lists(st.sampled_from(OTHER_WORDS), max_size=2))
    after = draw(st.lists(st.sampled_from(OTHER_WORDS), max_size=2))
    word = draw(st.sampled_from(IDENTIFIER_WORDS))
    style = draw(st.sampled_from(("_", " ", "-", "upper", "camel")))
    parts = [*before, word, *after]
    if style == "upper":
        return "_".join(parts).upper()
    if style == "camel":
        return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    return style.join(parts)


def _frame(columns: dict[str, list[str | None]]) -> pd.DataFrame:
    return pd.DataFrame(
        {k: pd.array(v, dtype=pd.StringDtype("pyarrow")) for k, v in columns.items()}
    )


@SETTINGS
@given(name=identifier_column_names(), values=any_values, is_person=st.booleans())
def test_a_column_named_as_an_identifier_is_direct_whatever_its_values(
    name: str, values: list[str | None], is_person: bool
) -> None:
    (tag,) = suggest_tags(_frame({name: values}), table="t", is_person=is_person)
    assert tag.cls is ColumnClass.DIRECT, (name, tag.evidence)
    assert tag.category is not None


emails = st.emails().filter(lambda e: len(e) <= 200)


@SETTINGS
@given(
    name=st.text(alphabet=string.ascii_letters + "_ ", min_size=1, max_size=20),
    addresses=st.lists(emails, min_size=1, max_size=40),
    is_person=st.booleans(),
)
def test_a_column_full_of_emails_is_never_clinical(
    name: str, addresses: list[str], is_person: bool
) -> None:
    (tag,) = suggest_tags(_frame({name: list(addresses)}), table="t", is_person=is_person)
    assert tag.cls is ColumnClass.DIRECT, (name, tag.evidence)


@SETTINGS
@given(
    name=st.sampled_from((*OTHER_WORDS, "col", "field_7", "misc")),
    phones=st.lists(
        st.tuples(st.integers(200, 999), st.integers(200, 999), st.integers(0, 9999)).map(
            lambda t: f"({t[0]}) {t[1]}-{t[2]:04d}"
        ),
        min_size=1,
        max_size=40,
    ),
)
def test_a_column_full_of_phone_numbers_is_never_clinical(name: str, phones: list[str]) -> None:
    (tag,) = suggest_tags(_frame({name: list(phones)}), table="t", is_person=False)
    assert tag.cls is ColumnClass.DIRECT, (name, tag.evidence)


@SETTINGS
@given(
    name=st.sampled_from(
        ("lvef", "value", "result", "count", "date", "age", "col", "admit_ms", "event_ts")
    ),
    stamps=st.lists(st.integers(1_000_000_000, 1_893_455_999), min_size=1, max_size=40),
    millis=st.booleans(),
    is_person=st.booleans(),
)
def test_a_column_of_unix_times_is_never_clinical_nor_a_date_to_parse(
    name: str, stamps: list[int], millis: bool, is_person: bool
) -> None:
    # the loader reads dates written as text only: a date tag would stop the load, a
    # clinical one would release the day; direct removes the column
    cells = [str(t * 1000 if millis else t) for t in stamps]
    (tag,) = suggest_tags(_frame({name: cells}), table="t", is_person=is_person)
    assert tag.cls is ColumnClass.DIRECT, (name, tag.evidence)
    assert tag.role is not Role.PERSON_KEY  # distinct timestamps are no person key
    assert "Unix time" in " ".join(tag.evidence)


# Values that cannot occur in our own sentences: a fixed odd prefix plus random letters.
planted = st.text(alphabet=string.ascii_letters + string.digits, min_size=3, max_size=12).map(
    lambda s: "Qzx" + s
)


COLUMN_NAMES = ("patient_id", "notes", "result", "zip", "first_name", "misc", "dob")


@st.composite
def planted_frames(draw: st.DrawFn) -> dict[str, list[str | None]]:
    rows = draw(st.integers(1, 30))
    names = draw(st.lists(st.sampled_from(COLUMN_NAMES), min_size=1, max_size=4, unique=True))
    cell = st.one_of(planted, st.none())
    return {n: draw(st.lists(cell, min_size=rows, max_size=rows)) for n in names}


@SETTINGS
@given(columns=planted_frames(), is_person=st.booleans())
def test_evidence_never_contains_a_value(
    columns: dict[str, list[str | None]], is_person: bool
) -> None:
    frame = _frame(columns)
    for tag in suggest_tags(frame, table="t", is_person=is_person):
        text = " ".join(tag.evidence).lower()
        assert "qzx" not in text, tag.name
        assert tag.evidence, tag.name


@SETTINGS
@given(
    prefix=st.text(alphabet=string.ascii_uppercase, min_size=1, max_size=3),
    start=st.integers(0, 10**6),
    rows=st.integers(30, 300),
    name=st.sampled_from(("ref", "col_3", "xref", "token")),
)
def test_an_unknown_column_of_unique_codes_is_direct_and_flagged_unsure(
    prefix: str, start: int, rows: int, name: str
) -> None:
    codes = [f"{prefix}{start + 7 * i:08d}" for i in range(rows)]
    (tag,) = suggest_tags(_frame({name: codes}), table="t", is_person=False)
    assert tag.cls is ColumnClass.DIRECT
    assert tag.unsure
    assert any(e.startswith("unsure: ") for e in tag.evidence)


@SETTINGS
@given(
    name=st.sampled_from(("enroll_ym", "cohort", "value", "dx_period", "col")),
    days=st.lists(st.dates(date(1950, 1, 1), date(2030, 12, 28)), min_size=3, max_size=40),
    fmt=st.sampled_from(("%Y%m", "%Y%m%d")),
)
def test_a_column_of_compact_year_months_or_dates_is_suggested_as_direct(
    name: str, days: list[date], fmt: str
) -> None:
    cells = [d.strftime(fmt) for d in days]
    (tag,) = suggest_tags(_frame({name: cells}), table="t", is_person=False)
    assert tag.cls is ColumnClass.DIRECT, (name, tag.evidence)
    assert "YYYYMM" in " ".join(tag.evidence)


def test_a_lone_column_of_distinct_unix_times_is_not_chosen_as_the_person_key() -> None:
    cells = [str(1_000_000_000 + 86_400 * 37 * i) for i in range(50)]
    (tag,) = suggest_tags(_frame({"col": cells}), table="t", is_person=True)
    assert tag.cls is ColumnClass.DIRECT and tag.role is None
    assert "Unix time" in " ".join(tag.evidence)
