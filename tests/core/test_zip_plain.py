"""A ZIP column of plain five-digit ZIPs (the usual one) is read from its bytes, with no
regex pass: the same restored values, counts and ZIP3s as the regexes give."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core import zip3 as zip3_module
from deid_desktop.core.facts.digits import five_digit_values
from deid_desktop.core.io import zips
from deid_desktop.core.zip3 import load_bundled_zip3, zip3_or_000

TEXT = pd.StringDtype("pyarrow")
zip_like = st.one_of(
    st.none(),
    st.from_regex(r"[0-9]{5}", fullmatch=True),
    st.sampled_from(["2139", "02139-1234", "2139.0", "", " 92119", "9211", "ab123", "٣٣٣٣٣"]),
)


def _all(values: pd.Series) -> tuple[list[object], int, int, list[object]]:
    restored, n = zips.restore_zip_zeros(values)
    cut = zip3_or_000(restored, load_bundled_zip3())
    return list(restored), n, zips.count_not_zip_like(restored), list(cut)


def test_plain_zips_read_no_regex(monkeypatch: pytest.MonkeyPatch) -> None:
    values = pd.Series(["92119", None, "00501", "10001"], dtype=TEXT)
    for name in ("_FLOAT", "_SHORT", "_ZIP_LIKE"):  # any regex pass would now fail
        monkeypatch.setattr(zips, name, "(")
    monkeypatch.setattr(zip3_module, "_ZIP_SHAPE", "(")
    restored, n, odd, cut = _all(values)
    assert restored[0] == "92119" and pd.isna(restored[1]) and (n, odd) == (0, 0)
    assert cut[1] == "000" and cut[0] == "921"


@settings(max_examples=80, deadline=None)
@given(st.lists(zip_like, max_size=12))
def test_the_byte_test_agrees_with_the_regexes(values: list[str | None]) -> None:
    series = pd.Series(values, dtype=TEXT)
    fast = _all(series)
    with pytest.MonkeyPatch.context() as mp:  # the regexes alone
        mp.setattr(zips, "five_digit_values", lambda _a: False)
        mp.setattr(zip3_module, "five_digit_values", lambda _a: False)
        slow = _all(series)
    assert [None if pd.isna(v) else v for v in fast[0]] == [
        None if pd.isna(v) else v for v in slow[0]
    ]
    assert fast[1:3] == slow[1:3]
    assert [None if pd.isna(v) else v for v in fast[3]] == [
        None if pd.isna(v) else v for v in slow[3]
    ]
    plain = [v for v in values if v is not None]
    assert five_digit_values(pa.array(values, pa.string())) == all(
        len(v) == 5 and v.isascii() and v.isdigit() for v in plain
    )
