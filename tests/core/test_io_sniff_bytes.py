"""``io.sniff`` counts and finds bytes across its scanning blocks."""

from __future__ import annotations

import pyarrow as pa
import pytest

from deid_desktop.core.io import sniff


@pytest.mark.parametrize("size", [0, 1, 5, 1 << 20, (1 << 20) + 3, 3 * (1 << 20) + 1])
def test_count_and_find_across_blocks(size: int) -> None:
    data = bytearray(b"a" * size)
    for at in (0, size // 2, size - 1, (1 << 20) - 1, 1 << 20):
        if 0 <= at < size:
            data[at] = ord('"')
    buf = pa.py_buffer(bytes(data))
    assert sniff.count_byte(buf, b'"') == bytes(data).count(b'"')
    assert sniff._find_nul(buf) == -1
    if size:
        data[size - 1] = 0
        assert sniff._find_nul(pa.py_buffer(bytes(data))) == size - 1
        data[size // 3] = 0
        assert sniff._find_nul(pa.py_buffer(bytes(data))) == size // 3


def test_count_byte_counts_one_byte() -> None:
    with pytest.raises(ValueError):
        sniff.count_byte(pa.py_buffer(b"ab"), b"ab")
