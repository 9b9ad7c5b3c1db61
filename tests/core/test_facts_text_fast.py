"""The ASCII fast paths of ``facts.text`` give what the Unicode kernels give."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from deid_desktop.core.facts.text import lower, trim, trim_whitespace
from deid_desktop.core.scan.dictionary import _SPACES

CASES = [
    ["Dana", " Reyes", "MEI ", "", None, "ab\tc"],
    ["ÉCOLE", "Straße", "ǅ"],  # not ASCII: the Unicode kernel
    ["x\u00a0", "\u00a0y", "q\x1c", "\x85z"],  # edges that are whitespace beyond ASCII
    ["AbC", "DEF", None, ""],
    [],
    [None],
]


def _variants(values: list[str | None]) -> list[pa.Array]:
    out = []
    for kind in (pa.string(), pa.large_string()):
        arr = pa.array(values, type=kind)
        out += [arr, arr.slice(1), arr.slice(0, max(len(arr) - 1, 0))]
    return out


@pytest.mark.parametrize("values", CASES)
def test_fast_paths_equal_the_unicode_kernels(values: list[str | None]) -> None:
    for arr in _variants(values):
        assert lower(arr).equals(pc.utf8_lower(arr))
        assert trim_whitespace(arr).equals(pc.utf8_trim_whitespace(arr))
        assert trim(arr, _SPACES).equals(pc.utf8_trim(arr, _SPACES))
        assert trim(arr, "ay").equals(pc.utf8_trim(arr, "ay"))


def test_untrimmed_text_is_returned_without_a_copy() -> None:
    arr = pa.array(["Dana", "Reyes", None, ""], type=pa.large_string())
    assert trim_whitespace(arr) is arr
    assert trim(arr, _SPACES) is arr
    spaced = pa.array(["Dana "], type=pa.large_string())
    assert trim_whitespace(spaced).to_pylist() == ["Dana"]
    assert trim(arr, "D").to_pylist() == ["ana", "Reyes", None, ""]
