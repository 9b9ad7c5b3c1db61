"""The Arrow CSV writer gives the bytes pandas ``to_csv`` gives (and quotes a bare CR)."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid_desktop.core.export import csvout
from deid_desktop.core.export.cells import neutralise_series

S = pd.StringDtype("pyarrow")
cell = st.one_of(
    st.none(),
    st.text(alphabet=st.sampled_from(list("ab ,\"\n\té€0-=+@'")), max_size=8),
    st.text(max_size=6).filter(lambda s: "\r" not in s),
)


def pandas_bytes(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False, lineterminator="\n").encode("utf-8")


def ours(frame: pd.DataFrame, tmp: Path) -> bytes:
    path = tmp / "t.csv"
    digest = csvout.write_csv(frame, path)
    data = path.read_bytes()
    assert digest == hashlib.sha256(data).hexdigest()
    return data


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    columns=st.integers(min_value=1, max_value=4),
    rows=st.lists(st.lists(cell, min_size=4, max_size=4), max_size=12),
)
def test_same_bytes_as_pandas(tmp_path: Path, columns: int, rows: list[list[str | None]]) -> None:
    names = ["id", "a,b", 'q"x', "é"][:columns]
    frame = pd.DataFrame({n: pd.Series([r[i] for r in rows], dtype=S) for i, n in enumerate(names)})
    assert ours(frame, tmp_path) == pandas_bytes(frame)


def test_chunks_join_seamlessly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(csvout, "CHUNK_ROWS", 3)
    frame = pd.DataFrame(
        {
            "a": pd.Series([str(i) for i in range(10)], dtype=S),
            "b": pd.Series(['x,"y"' if i % 4 == 0 else None for i in range(10)], dtype=S),
        }
    )
    sliced = frame.iloc[2:9]  # an offset into the Arrow buffers
    assert ours(frame, tmp_path) == pandas_bytes(frame)
    assert ours(sliced, tmp_path) == pandas_bytes(sliced)


def test_plain_tables_go_through_arrows_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table of two columns or more with no comma, quote or line break anywhere is
    written by Arrow's writer, unquoted, in chunks, one writer for all of them (its line
    buffer reused): the same bytes as pandas (missing cells empty, a sliced frame, chunk
    ends). One special byte anywhere, or a single column, keeps the quoting path."""
    monkeypatch.setattr(csvout, "CHUNK_ROWS", 4)
    calls: list[int] = []
    writers: set[int] = set()
    plain = csvout._plain_lines

    def counted(table: pa.Table, writer: pacsv.CSVWriter) -> None:
        calls.append(table.num_rows)
        writers.add(id(writer))
        plain(table, writer)

    monkeypatch.setattr(csvout, "_plain_lines", counted)
    frame = pd.DataFrame(
        {
            "a": pd.Series([f"S{i:03d}" for i in range(11)], dtype=S),
            "b": pd.Series([None if i % 3 == 0 else "x y" for i in range(11)], dtype=S),
            "c": pd.Series([str(i * 7) for i in range(11)], dtype=S),
        }
    )
    assert ours(frame, tmp_path) == pandas_bytes(frame)
    assert calls == [4, 4, 3]
    assert len(writers) == 1
    calls.clear()
    assert ours(frame.iloc[1:10], tmp_path) == pandas_bytes(frame.iloc[1:10])
    assert calls == [4, 4, 1]
    calls.clear()
    quoted = frame.assign(b=frame["b"].where(frame.index != 7, 'x,"y"'))
    assert ours(quoted, tmp_path) == pandas_bytes(quoted)
    assert ours(frame[["b"]], tmp_path) == pandas_bytes(frame[["b"]])
    assert calls == []
    table = csvout.to_arrow(quoted)
    writer = pacsv.CSVWriter(pa.BufferOutputStream(), table.schema, write_options=csvout._PLAIN)
    with pytest.raises(pa.ArrowInvalid):  # never unquoted: Arrow refuses a comma there
        plain(table, writer)


def test_bare_carriage_return_is_quoted(tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": pd.Series(["x\ry", "z"], dtype=S), "b": pd.Series(["1", "2"])})
    assert ours(frame, tmp_path) == b'a,b\n"x\ry",1\nz,2\n'
    back = pd.read_csv(io.BytesIO(ours(frame, tmp_path)), dtype=str)
    assert list(back["a"]) == ["x\ry", "z"]


def test_non_string_columns_and_empty_tables(tmp_path: Path) -> None:
    frame = pd.DataFrame({"n": [1, 2], "f": ["a", None]})
    assert ours(frame, tmp_path) == b"n,f\n1,a\n2,\n"
    empty = pd.DataFrame({"a": pd.Series([], dtype=S), "b": pd.Series([], dtype=S)})
    assert ours(empty, tmp_path) == b"a,b\n"


@given(st.lists(cell, max_size=20))
def test_neutralised_cells_never_start_a_formula(values: list[str | None]) -> None:
    out, n = neutralise_series(pd.Series(values, dtype=S))
    changed = 0
    for before, after in zip(values, out, strict=True):
        if before is None:
            assert pd.isna(after)
            continue
        if after != before:
            changed += 1
            assert after == "'" + before
        assert (
            not after[:1]
            or after[0] not in "=+-@\t\r"
            or after.lstrip("+-")[:1].isdigit()
            or after.lstrip("+-")[:1] == "."
        )
    assert changed == n
