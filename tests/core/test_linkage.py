"""core/linkage: keyed link keys, per-person offsets, vectorised date shifts."""

from __future__ import annotations

import hashlib
import hmac

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import CheckFailed, DeidError, InputError
from deid_desktop.core.linkage import (
    date_offsets,
    iso_strings,
    link_keys,
    normalise_identifiers,
    shift_dates,
)
from deid_desktop.core.model import OffsetMode

SALT = bytes(range(32))
OTHER_SALT = bytes(range(1, 33))


def _s(values: list[str | None]) -> pd.Series:
    return pd.Series(values, dtype="string[pyarrow]")


def test_link_key_is_hmac_sha256_of_the_normalised_identifier() -> None:
    keys = link_keys(_s(["MRN-0042", "  mrn-0042 ", "0042"]), SALT)
    expected = hmac.new(SALT, b"MRN-0042", hashlib.sha256).hexdigest()[:16]
    assert keys.tolist()[:2] == [expected, expected]
    assert keys.iloc[2] == hmac.new(SALT, b"0042", hashlib.sha256).hexdigest()[:16]
    assert keys.iloc[2] != link_keys(_s(["42"]), SALT).iloc[0]  # leading zeros matter


def test_normalisation_is_nfkc_strip_upper_and_keeps_missing() -> None:
    out = normalise_identifiers(_s(["\u00a0ab-1 ", "ＡＢ-1", "é1", "E\u03011", None]))
    assert out.tolist()[:4] == ["AB-1", "AB-1", "É1", "É1"]
    assert out.isna().tolist() == [False, False, False, False, True]


def test_same_identifier_and_salt_give_the_same_key_in_every_extract() -> None:
    first = link_keys(_s(["a", "b", "c"]), SALT)
    later = link_keys(_s(["c", "x", "a"]), SALT)
    assert later.iloc[0] == first.iloc[2] and later.iloc[2] == first.iloc[0]
    assert link_keys(_s(["a"]), OTHER_SALT).iloc[0] != first.iloc[0]


def test_length_is_configurable_and_bounded() -> None:
    assert len(link_keys(_s(["a"]), SALT, length=32).iloc[0]) == 32
    with pytest.raises(DeidError, match="between 12 and 64"):
        link_keys(_s(["a"]), SALT, length=4)


def test_missing_identifier_is_an_input_error_with_count_only() -> None:
    with pytest.raises(InputError) as err:
        link_keys(_s(["SECRET-1", None, "  "]), SALT, file="p.csv", column="mrn")
    text = str(err.value)
    assert "2 row(s)" in text and "p.csv" in text and "mrn" in text
    assert "SECRET-1" not in text


def test_short_salt_is_refused_without_showing_it() -> None:
    with pytest.raises(DeidError) as err:
        link_keys(_s(["a"]), b"short")
    assert "short" not in err.value.message.replace("too short", "")


def test_collisions_are_reported_with_a_count(monkeypatch: pytest.MonkeyPatch) -> None:
    from deid_desktop.core import linkage

    monkeypatch.setattr(
        linkage._Hmac, "hexdigests", lambda self, msgs, length: ["0" * length for _ in msgs]
    )
    with pytest.raises(CheckFailed, match="2 link key collision") as err:
        link_keys(_s(["a", "b", "c", "a"]), SALT)
    assert "longer" in err.value.hint


@pytest.mark.parametrize("mode", [OffsetMode.KEYED, OffsetMode.RANDOM])
def test_offsets_are_per_person_nonzero_and_within_range(mode: OffsetMode) -> None:
    keys = link_keys(_s([f"P{i}" for i in range(5000)]), SALT)
    off = date_offsets(keys, mode=mode, days=30, seed=7, salt=SALT)
    assert off.dtype == np.int64 and off.shape == (5000,)
    assert off.min() == -30 and off.max() == 30
    assert not (off == 0).any()
    assert len(np.unique(off)) == 60  # every value in [-30,-1] U [1,30] used, never one


def test_equal_keys_get_equal_offsets() -> None:
    keys = _s(["k1", "k2", "k1", "k1"])
    off = date_offsets(keys, mode="keyed", days=180, seed=1, salt=SALT)
    assert off[0] == off[2] == off[3]


def test_keyed_offsets_ignore_seed_and_row_order_random_ones_follow_the_seed() -> None:
    keys = link_keys(_s([f"P{i}" for i in range(200)]), SALT)
    k1 = date_offsets(keys, mode="keyed", days=180, seed=1, salt=SALT)
    k2 = date_offsets(keys[::-1], mode="keyed", days=180, seed=2, salt=SALT)
    assert (k1 == k2[::-1]).all()
    r1 = date_offsets(keys, mode="random", days=180, seed=1, salt=SALT)
    r1b = date_offsets(keys[::-1], mode="random", days=180, seed=1, salt=SALT)
    r2 = date_offsets(keys, mode="random", days=180, seed=2, salt=SALT)
    assert (r1 == r1b[::-1]).all()  # reproducible and independent of row order
    assert (r1 != r2).mean() > 0.9
    assert (r1 != k1).mean() > 0.9
    # without the salt, the seed alone does not give the offsets
    assert (date_offsets(keys, mode="random", days=180, seed=1, salt=OTHER_SALT) != r1).any()


def test_one_offset_for_everyone_raises() -> None:
    # with a one-day range each person gets -1 or +1: two persons agree half the time
    for i in range(100):
        try:
            date_offsets(_s([f"a{i}", f"b{i}"]), mode="keyed", days=1, seed=0, salt=SALT)
        except CheckFailed as err:
            assert "study-wide" in err.message
            return
    pytest.fail("expected an all-equal draw among 100 tries")


@pytest.mark.parametrize("days", [0, -5, 100_000])
def test_offset_range_is_validated(days: int) -> None:
    with pytest.raises(DeidError, match="offset range"):
        date_offsets(_s(["a", "b"]), mode="keyed", days=days, seed=0, salt=SALT)


def test_shift_dates_moves_each_row_by_its_offset_and_keeps_nat() -> None:
    dates = pd.Series(
        pd.to_datetime(["2020-02-28", "2020-03-01 08:30:00", None, "1999-12-31"], format="ISO8601")
    )
    out = shift_dates(dates, np.array([1, -1, 50, 1]))
    assert out.tolist()[:2] == [pd.Timestamp("2020-02-29"), pd.Timestamp("2020-02-29 08:30")]
    assert pd.isna(out.iloc[2])
    assert out.iloc[3] == pd.Timestamp("2000-01-01")
    with pytest.raises(ValueError):
        shift_dates(dates, np.array([1, 2]))


def test_iso_strings() -> None:
    dates = pd.Series(pd.to_datetime(["2020-02-29 08:30:05", None], format="ISO8601"))
    assert iso_strings(dates, with_time=False).tolist()[0] == "2020-02-29"
    assert iso_strings(dates, with_time=True).tolist()[0] == "2020-02-29T08:30:05"
    assert iso_strings(dates, with_time=True).isna().tolist() == [False, True]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(-20000, 20000)), min_size=2, max_size=60),
    st.integers(1, 400),
)
def test_within_person_intervals_survive_the_shift(rows: list[tuple[int, int]], days: int) -> None:
    persons = _s([f"P{p}" for p, _ in rows])
    dates = pd.Series(np.datetime64("2000-01-01") + np.array([d for _, d in rows], dtype="m8[D]"))
    try:
        off = date_offsets(persons, mode="keyed", days=days, seed=0, salt=SALT)
    except CheckFailed:
        return  # an all-equal draw is refused, never released
    shifted = shift_dates(dates, off)
    frame = pd.DataFrame({"p": persons, "before": dates, "after": shifted})
    frame["delta"] = frame["after"] - frame["before"]
    assert (frame.groupby("p", dropna=False)["delta"].nunique() == 1).all()
    assert (frame["delta"] != pd.Timedelta(0)).all()


def test_keys_and_offsets_do_not_depend_on_how_arrow_chunks_the_column() -> None:

    salt = bytes(range(32))
    values = ["A1", "B2", "C3", "D4", "E5"]

    def chunked(items: list[str]) -> pd.Series:
        arr = pa.chunked_array([items[:2], items[2:]])
        return pd.Series(pd.array(arr, dtype=pd.StringDtype("pyarrow")))

    whole = link_keys(pd.Series(values, dtype="string[pyarrow]"), salt)
    assert link_keys(chunked(values), salt).tolist() == whole.tolist()
    one = date_offsets(whole, mode="keyed", days=180, seed=1, salt=salt)
    split = date_offsets(chunked(whole.tolist()), mode="keyed", days=180, seed=1, salt=salt)
    assert split.tolist() == one.tolist()
