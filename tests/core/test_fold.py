"""Text as a reader sees it: values written to look like an identifier are read as it."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.facts.fold import fold_text, folded
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import verify_release
from tests.core.test_verify_own_values import N, _case


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("S\u200bc\u200bo\u200bt\u200bt", "Scott"),  # zero-width spaces
        ("Sc\u00adott\ufeff", "Scott"),  # a soft hyphen, a byte-order mark
        ("\u0405\u0441\u043ett", "Scott"),  # Cyrillic S, s, o
        ("\u039cark", "Mark"),  # Greek capital mu
        ("(\uff18\uff15\uff18) \uff15\uff15\uff15-\uff10\uff11\uff15\uff17", "(858) 555-0157"),
        ("M\u00fcller", "Muller"),
        ("Jose\u0301", "Jose"),  # a combining accent
        ("\U0001d412\U0001d41c\U0001d428\U0001d42d\U0001d42d", "Scott"),  # bold mathematical
        ("Mark\u00a0Scott", "Mark Scott"),  # a no-break space
    ],
)
def test_a_value_written_to_look_like_another_is_read_as_it(written: str, read: str) -> None:
    assert fold_text(written) == read


def test_cyrillic_letters_unlike_any_latin_one_are_kept() -> None:
    assert fold_text("\u0418\u0432\u0430\u043d") == "\u0418\u0432a\u043d"  # И, в, н kept


def test_ascii_text_is_returned_uncopied_and_nulls_stay_null() -> None:
    ascii_only = pa.array(["Scott", None, "555-0157"], pa.large_string())
    assert folded(ascii_only).buffers()[2].address == ascii_only.buffers()[2].address
    mixed = pa.array(["S\u200bcott", None, "Allen"], pa.large_string())
    assert folded(mixed).to_pylist() == ["Scott", None, "Allen"]


@given(st.lists(st.text(max_size=12) | st.none(), max_size=20))
def test_folding_an_array_folds_each_value(values: list[str | None]) -> None:
    expected = [None if v is None else fold_text(v) for v in values]
    assert folded(pa.array(values, pa.large_string())).to_pylist() == expected


def _surnames_as(write) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    return lambda p: [write(ln) for ln in p["last_name"]]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "write",
    [
        lambda s: "\u200b".join(s),
        lambda s: s.replace("o", "\u043e").replace("a", "\u0430").replace("e", "\u0435"),
        lambda s: s.upper().translate(str.maketrans("ABEKMHOPCTX", "АВЕКМНОРСТХ")),
        lambda s: s.replace("a", "\u00e1").replace("o", "\u00f6"),
    ],
    ids=["zero-width", "cyrillic-small", "cyrillic-capitals", "accents"],
)
def test_the_persons_own_surnames_in_disguise_fail_the_check(write) -> None:  # type: ignore[no-untyped-def]
    extract, project = _case({"ref_label": _surnames_as(write)})
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_direct_values")
    assert not outcome.passed
    assert outcome.detail["found"]["people.ref_label"]["rows"] == N


def test_the_persons_own_mrn_digits_in_full_width_fail_the_check() -> None:
    wide = str.maketrans("0123456789", "０１２３４５６７８９")
    extract, project = _case({"hosp_ref": lambda p: [m.translate(wide) for m in p["mrn"]]})
    release = build_safe_harbor(extract, project)
    outcome = verify_release(extract, release, project).outcome("no_direct_values")
    assert not outcome.passed
    assert outcome.detail["found"]["people.hosp_ref"]["rows"] == N


def test_a_columns_lower_folded_text_is_made_once_while_the_column_lives() -> None:
    from deid_desktop.core.facts.fold import lower_folded
    from deid_desktop.core.facts.text import STRING, lower

    column = pd.Series(["Müller", None, "ЅСОТТ", "Ann"], dtype=STRING)
    first = lower_folded(column)
    assert first.to_pylist() == lower(folded(pa.array(column.array))).to_pylist()
    assert first.to_pylist() == ["muller", None, "scott", "ann"]
    assert lower_folded(column.copy(deep=False)) is first  # the same data: made once
    other = pd.Series(["Müller", None, "ЅСОТТ", "Anne"], dtype=STRING)
    assert lower_folded(other).to_pylist()[-1] == "anne"  # other data: made for it


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(alphabet=" \t\u00a0\u3000\u2003aBİẞΣÉé\u200b"))))
def test_names_are_trimmed_and_lowered_in_either_order(values: list[str | None]) -> None:
    from deid_desktop.core.facts.text import STRING
    from deid_desktop.core.verify.direct import _lowered

    column = pd.Series(values, dtype=STRING)
    assert _lowered(column, names=True).to_pylist() == _lowered(column).to_pylist()
