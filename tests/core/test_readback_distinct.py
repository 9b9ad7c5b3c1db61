"""The read-back gate scans each distinct cell text of the staged release once
(``readback_scan.scan_distinct``): it must find exactly what scanning every cell finds
(``scan.scan_written``) - the same hits, in the same order, the same files and cells -
whatever the files hold: repeated values, identifiers in some cells, shapes in free text
and elsewhere, XLSX files beside the CSVs."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid_desktop.core.export import readback_scan
from deid_desktop.core.export.csvout import write_csv
from deid_desktop.core.export.readback import ReadbackValues
from deid_desktop.core.export.readback_scan import scan_distinct
from deid_desktop.core.export.tables import write_xlsx
from deid_desktop.core.facts.text import remember_codes
from deid_desktop.core.scan import build_dictionary_from_values, scan_written
from deid_desktop.core.scan.direct_values import DirectValues

TEXT = pd.StringDtype("pyarrow")
VALUES = {"name": ["Ann Quigg"], "mrn": ["MR778812"], "id": ["HF0042", "5551234567"]}
DICT = build_dictionary_from_values(VALUES)
#: The same values as the read-back keeps them: columns, made into a dictionary of the
#: values the written cells may hold.
DIRECT = DirectValues.from_columns({k: [pd.Series(v)] for k, v in VALUES.items()})
COLS = tuple(DIRECT.columns.items())
CELLS = (
    "S0001", "S0002", "S0003", "2019", "2020", "90+", "921", "000", "", "stable",
    "Quigg", "Ann Quigg called", "MR778812", "hf0042", "HF0042 seen", "5551234567",
    "call 617-555-0199", "seen 03/04/2021", "age 93", "55512345", "a,b", 'say "hi"',
    "Zoë Quigg", "12 Main Street", "two\nlines", " pad ", "NA", "nan", "\ufeffbom",
    "S5551234567", "0123456789abcdef", "HF0042", "ann quigg",
)  # fmt: skip
cell = st.sampled_from(CELLS)


@st.composite
def tables(draw: st.DrawFn) -> dict[str, pd.DataFrame]:
    out = {}
    for name in draw(
        st.lists(st.sampled_from(["visits", "people", "labs"]), min_size=1, max_size=3, unique=True)
    ):
        rows = draw(st.integers(0, 12))
        cols = draw(
            st.lists(
                st.sampled_from(["id", "note", "year", "Quigg"]),
                min_size=1,
                max_size=4,
                unique=True,
            )
        )
        out[name] = pd.DataFrame(
            {c: draw(st.lists(cell, min_size=rows, max_size=rows)) for c in cols}, dtype="string"
        )
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_distinct_scan_finds_what_the_cell_by_cell_scan_finds(
    frames: dict[str, pd.DataFrame], xlsx: bool, all_shapes: bool, id_made: bool, direct: bool
) -> None:
    """``id_made``: the "id" column is the release's own ID column (numbers do not count
    there; the distinct scan skips its ID-shaped texts altogether). ``direct``: the
    distinct scan is given the values as columns (``DirectValues``)."""
    made = ("id",) if id_made else ()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, frame in frames.items():
            frame.to_csv(folder / f"{name}.csv", index=False)
            if xlsx:
                write_xlsx(frame, folder / f"{name}.xlsx", sheet=name)
        shapes = None if all_shapes else {name: {"note"} for name in frames}
        expected = scan_written(folder, DICT, shape_columns=shapes, generated=made)
        given = DIRECT if direct else DICT
        got = scan_distinct(folder, given, shape_columns=shapes, generated=made)
    assert got == expected


def test_a_repeated_identifier_is_a_hit_in_every_cell_that_holds_it(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"id": ["S1", "S2", "S3", "S4"], "note": ["MR778812", "ok", "MR778812", "MR778812"]},
        dtype="string",
    )
    frame.to_csv(tmp_path / "visits.csv", index=False)
    wb = openpyxl.Workbook()
    wb.properties.creator = "Dr Someone"
    wb.save(tmp_path / "x.xlsx")
    found = scan_distinct(tmp_path, DICT, shape_columns={"visits": set()})
    assert [(h.file, h.column, h.row) for h in found.hits] == [
        ("visits.csv", "note", 0),
        ("visits.csv", "note", 2),
        ("visits.csv", "note", 3),
        ("x.xlsx", "creator", -1),
    ]
    assert found.cells == 8  # the empty sheet has no data cells
    assert found == scan_written(tmp_path, DICT, shape_columns={"visits": set()})
    assert found == scan_distinct(tmp_path, DIRECT, shape_columns={"visits": set()})


def _coded(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each column's codes noted, as the pathway notes them (the read-back
    then reads a column's distinct texts from its codes)."""
    out = {}
    for c in frame.columns:
        arr = pa.array(frame[c].array, type=pa.large_string())
        encoded = arr.dictionary_encode()
        codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int32)
        series = pd.Series(TEXT.__from_arrow__(pa.chunked_array([arr])), copy=False)
        out[c] = remember_codes(series, codes, encoded.dictionary)
    return pd.DataFrame(out, copy=False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.booleans(), st.booleans(), st.booleans())
def test_files_the_export_wrote_are_scanned_from_their_frames_with_the_same_findings(
    frames: dict[str, pd.DataFrame], all_shapes: bool, id_made: bool, coded: bool
) -> None:
    """A CSV read back with the SHA-256 its writer computed has its cells taken from the
    frame it was written from: the findings are those of parsing the file. ``coded``:
    the frame's columns carry the codes the pathway notes (distinct texts from them)."""
    made = ("id",) if id_made else ()
    if coded:
        frames = {name: _coded(frame) for name, frame in frames.items()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        written = {
            f"{name}.csv": (write_csv(frame, folder / f"{name}.csv"), frame)
            for name, frame in frames.items()
        }
        shapes = None if all_shapes else {name: {"note"} for name in frames}
        expected = scan_written(folder, DICT, shape_columns=shapes, generated=made)
        got = scan_distinct(folder, DIRECT, shape_columns=shapes, generated=made, written=written)
        # each kind's chunks joined into one array, its values not deduplicated first
        chunked = {k: tuple(a.slice(i, 1) for a in v for i in range(len(a))) for k, v in COLS}
        joined = ReadbackValues(chunked, single=frozenset(chunked))
        again = scan_distinct(folder, joined, shape_columns=shapes, generated=made, written=written)
    assert got == expected
    assert again == expected


def test_a_coded_column_is_read_back_from_its_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A written column whose codes the pathway noted is not hashed again: its distinct
    texts come from the codes (a missing cell read back as ""), with the same findings
    as parsing the file."""
    frame = _coded(
        pd.DataFrame(
            {"id": ["S1", "S2", "S3", "S4"], "note": ["ok", None, "Ann Quigg", "ok"]},
            dtype="string",
        )
    )
    written = {"visits.csv": (write_csv(frame, tmp_path / "visits.csv"), frame)}
    hashed: list[int] = []
    unique = readback_scan.pc.unique
    monkeypatch.setattr(readback_scan.pc, "unique", lambda a: hashed.append(len(a)) or unique(a))
    found = scan_distinct(tmp_path, DIRECT, shape_columns={"visits": {"note"}}, written=written)
    assert 4 not in hashed  # no column of four cells was hashed
    assert {(h.column, h.row) for h in found.hits} == {("note", 2)}
    assert found == scan_written(tmp_path, DICT, shape_columns={"visits": {"note"}})


def test_a_file_changed_after_writing_is_scanned_as_it_is_on_disk(tmp_path: Path) -> None:
    """The frame stands for the file only while the bytes on disk are the ones written:
    a name put into the file after writing is found (and one removed is not)."""
    frame = pd.DataFrame({"id": ["S1", "S2"], "note": ["ok", "Ann Quigg"]}, dtype="string")
    digest = write_csv(frame, tmp_path / "visits.csv")
    written = {"visits.csv": (digest, frame)}
    shapes = {"visits": {"note"}}
    found = scan_distinct(tmp_path, DIRECT, shape_columns=shapes, written=written)
    assert {(h.column, h.row) for h in found.hits} == {("note", 1)}

    (tmp_path / "visits.csv").write_text("id,note\nS1,Ann Quigg\nS2,ok\n", encoding="utf-8")
    found = scan_distinct(tmp_path, DIRECT, shape_columns=shapes, written=written)
    assert {(h.column, h.row) for h in found.hits} == {("note", 0)}
    assert found == scan_written(tmp_path, DICT, shape_columns=shapes)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.from_regex(r"[A-Za-z][0-9]{3}", fullmatch=True),
            st.text(alphabet="Sx9/0é@[ ", min_size=0, max_size=5),
        ),
        min_size=1,
        max_size=8,
    ),
    st.booleans(),
)
def test_ids_told_from_the_bytes_are_those_the_shape_regex_takes(
    cells: list[str], chunked: bool
) -> None:
    # The byte test says "all ID-shaped" only where the regex does; IDs of one letter and
    # digits of one width (subject IDs) it always tells.
    import pyarrow as pa
    import pyarrow.compute as pc

    from deid_desktop.core.export.readback_scan import _ID_SHAPE, _letter_and_digits

    arr = pa.array(cells, type=pa.large_string())
    values = pa.chunked_array([arr.slice(0, 1), arr.slice(1)]) if chunked else arr
    regex = bool(pc.all(pc.match_substring_regex(arr, _ID_SHAPE)).as_py())
    if _letter_and_digits(values):
        assert regex
    if all(len(c) == 4 and c[0].isascii() and c[0].isalpha() and c[1:].isdigit() for c in cells):
        assert _letter_and_digits(values)
    ids = pa.array([f"S{i:05d}" for i in range(len(cells))], type=pa.string())
    assert _letter_and_digits(ids)
    assert not _letter_and_digits(pa.array(["S0001", None], type=pa.large_string()))
