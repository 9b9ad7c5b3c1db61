"""CSV loading: real files written byte by byte, each loader error named by file and line."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import Cancelled, InputError
from deid_desktop.core.io import read_table, sha256_file
from deid_desktop.core.io.headers import looks_like_data
from deid_desktop.core.progress import CancelToken


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def error_for(path: Path) -> InputError:
    with pytest.raises(InputError) as info:
        read_table(path)
    return info.value


def assert_no_values(err: Exception, *values: str) -> None:
    text = str(err)
    for value in values:
        assert value not in text, f"error message leaks a cell value: {value!r}"


def test_utf8_every_column_is_text_and_only_empty_is_missing(tmp_path: Path) -> None:
    data = b"id,zip,note,score\nP1,02139,NA,007\nP2,00501,null, 3.50 \nP3,,?,\n"
    path = write(tmp_path, "people.csv", data)
    table = read_table(path)
    frame = table.frame
    assert list(frame.columns) == ["id", "zip", "note", "score"]
    assert all(dtype == pd.StringDtype("pyarrow") for dtype in frame.dtypes)
    assert frame["zip"].tolist()[:2] == ["02139", "00501"]
    assert frame["note"].tolist() == ["NA", "null", "?"]  # markers stay values
    assert frame["score"].tolist()[:2] == ["007", " 3.50 "]  # nothing stripped
    assert frame["zip"].isna().tolist() == [False, False, True]
    assert frame["score"].isna().tolist() == [False, False, True]
    report = table.report
    assert (report.file, report.rows, report.columns) == ("people.csv", 3, 4)
    assert (report.encoding, report.delimiter) == ("UTF-8", ",")
    assert report.warnings == ()
    assert table.name == "people"
    assert table.sha256 == hashlib.sha256(data).hexdigest() == sha256_file(path)


def test_bom_is_stripped_from_the_first_header(tmp_path: Path) -> None:
    path = write(tmp_path, "bom.csv", b"\xef\xbb\xbfpatient_id,city\r\nP1,Montr\xc3\xa9al\r\n")
    table = read_table(path)
    assert list(table.frame.columns) == ["patient_id", "city"]
    assert table.frame["city"].tolist() == ["Montréal"]
    assert table.report.encoding == "UTF-8 with BOM"


def test_cp1252_file_is_decoded_and_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "win.csv", b"id,name,price\n1,Ren\xe9e,\x80 5\n2,Zo\xeb,\x93q\x94\n")
    table = read_table(path)
    assert table.frame["name"].tolist() == ["Renée", "Zoë"]
    assert table.frame["price"].tolist() == ["€ 5", "“q”"]
    assert table.report.encoding == "Windows-1252"
    assert any("Windows-1252" in w for w in table.report.warnings)


def test_latin1_is_the_last_resort(tmp_path: Path) -> None:
    # 0x81 is undefined in Windows-1252, so only Latin-1 reads this file.
    path = write(tmp_path, "latin.csv", b"id,name\n1,Ren\xe9e\x81\n")
    table = read_table(path)
    assert table.report.encoding == "Latin-1 (ISO-8859-1)"
    assert table.frame["name"].tolist() == ["Renée\x81"]


def test_mixed_encodings_name_the_first_bad_line(tmp_path: Path) -> None:
    data = b"id,name\n1,Ren\xc3\xa9e\n2,Paul\n3,Ren\xe9e\n"
    err = error_for(write(tmp_path, "mixed.csv", data))
    assert err.row == 4 and err.file == "mixed.csv"
    assert "UTF-8" in str(err)
    assert_no_values(err, "Ren")


@pytest.mark.parametrize(
    ("delimiter", "label"), [(b";", ";"), (b"\t", "\t"), (b"|", "|"), (b",", ",")]
)
def test_delimiter_is_detected(tmp_path: Path, delimiter: bytes, label: str) -> None:
    rows = [b"id", b"weight", b"note"], [b"P1", b"1,5", b"a"], [b"P2", b"2", b"b c"]
    if delimiter == b",":
        rows = [b"id", b"weight", b"note"], [b"P1", b'"1,5"', b"a"], [b"P2", b"2", b"b c"]
    data = b"\n".join(delimiter.join(r) for r in rows) + b"\n"
    table = read_table(write(tmp_path, "d.csv", data))
    assert table.report.delimiter == label
    assert list(table.frame.columns) == ["id", "weight", "note"]
    assert table.frame["weight"].tolist() == ["1,5", "2"]


def test_semicolon_file_with_commas_in_notes(tmp_path: Path) -> None:
    data = b"id;note;age\nP1;fever, cough, rest;40\nP2;ok;51\nP3;a,b,c,d,e;60\n"
    table = read_table(write(tmp_path, "eu.csv", data))
    assert table.report.delimiter == ";"
    assert table.frame["note"].tolist() == ["fever, cough, rest", "ok", "a,b,c,d,e"]


def test_quoted_fields_keep_delimiters_quotes_and_newlines(tmp_path: Path) -> None:
    data = b'id,note,zip\nP1,"Seen, then ""sent"" home\nnext line",02139\nP2,plain,10001\n'
    table = read_table(write(tmp_path, "q.csv", data))
    assert table.frame["note"].tolist() == ['Seen, then "sent" home\nnext line', "plain"]
    assert table.frame["zip"].tolist() == ["02139", "10001"]
    assert table.report.rows == 2


def test_large_file_with_multiline_notes_across_blocks(tmp_path: Path) -> None:
    # Several parser blocks, with quoted newlines everywhere: nothing may be split.
    rows = [f'P{i:06d},"line one\nline {i}, two",{i % 97:05d}' for i in range(60_000)]
    path = write(tmp_path, "big.csv", ("id,note,zip\n" + "\n".join(rows) + "\n").encode())
    frame = read_table(path).frame
    assert len(frame) == 60_000
    assert frame["note"].iloc[59_999] == "line one\nline 59999, two"
    assert frame["zip"].iloc[5] == "00005"


def test_a_file_of_several_blocks_gives_one_array_per_column(tmp_path: Path) -> None:
    # Parsed block by block, each column is joined once at load: every later Arrow pass
    # (hashing, take, the gate's checks) reads it as it is, never joining it again.
    rows = [f"P{i:06d},note number {i} of a longer text,{i % 97:05d}" for i in range(60_000)]
    path = write(tmp_path, "big.csv", ("id,note,zip\n" + "\n".join(rows) + "\n").encode())
    frame = read_table(path).frame
    for name in frame.columns:
        assert frame[name].array._pa_array.num_chunks == 1
    assert frame["note"].iloc[59_999] == "note number 59999 of a longer text"


def test_ragged_row_names_first_line_and_count(tmp_path: Path) -> None:
    data = b"id,name,zip\nP1,Ann,02139\nP2,Bob,02140\nP3,Cy,02141\nP4,Secretname\nP5,Eve,1,2\n"
    err = error_for(write(tmp_path, "ragged.csv", data))
    assert err.row == 5
    assert err.file == "ragged.csv"
    assert "2 rows" in err.message and "3 expected" in err.message
    assert "the first has 2" in err.message
    assert_no_values(err, "Secretname", "P4", "Eve")


def test_ragged_row_after_a_multiline_value_counts_records(tmp_path: Path) -> None:
    data = b'id,note\nP1,"two\nlines"\nP2,ok,Zyxq\n'
    err = error_for(write(tmp_path, "r.csv", data))
    assert err.row == 3  # the third record, as a spreadsheet shows it
    assert_no_values(err, "Zyxq")


@pytest.mark.parametrize("data", [b"", b"\n\n  \r\n", b"\xef\xbb\xbf"])
def test_empty_file_is_an_error(tmp_path: Path, data: bytes) -> None:
    err = error_for(write(tmp_path, "empty.csv", data))
    assert "empty" in err.message and err.file == "empty.csv"


def test_header_only_gives_zero_rows_and_a_warning(tmp_path: Path) -> None:
    table = read_table(write(tmp_path, "h.csv", b"id,name,zip\n"))
    assert table.report.rows == 0 and list(table.frame.columns) == ["id", "name", "zip"]
    assert any("no data rows" in w for w in table.report.warnings)


def test_duplicate_headers_are_named(tmp_path: Path) -> None:
    err = error_for(write(tmp_path, "dup.csv", b"id,zip,name,zip\nP1,1,2,3\n"))
    assert "'zip'" in err.message and err.row == 1 and err.file == "dup.csv"
    assert "'id'" not in err.message


def test_names_with_outer_spaces_are_kept_and_flagged(tmp_path: Path) -> None:
    table = read_table(write(tmp_path, "sp.csv", b"id, zip\nP1,02139\n"))
    assert list(table.frame.columns) == ["id", " zip"]
    assert any("' zip'" in w for w in table.report.warnings)


def test_blank_header_names_its_position(tmp_path: Path) -> None:
    err = error_for(write(tmp_path, "blank.csv", b"id, ,zip\nP1,x,1\n"))
    assert "position 2 (B)" in err.message and err.row == 1


def test_nul_byte_names_the_line(tmp_path: Path) -> None:
    err = error_for(write(tmp_path, "nul.csv", b"id,name\nP1,Ann\nP2,B\x00b\n"))
    assert err.row == 3 and "NUL" in err.message


def test_utf16_with_bom_is_read(tmp_path: Path) -> None:
    text = "id\tname\r\nP1\tZoë\r\n"
    table = read_table(write(tmp_path, "u16.txt", text.encode("utf-16")))  # with its BOM
    assert table.report.encoding == "UTF-16"
    assert table.frame["name"].tolist() == ["Zoë"]


def test_unclosed_quote_is_a_clear_error(tmp_path: Path) -> None:
    data = b'id,note\nP1,ok\nP2,"never closed, Secret\nP3,x\n'
    err = error_for(write(tmp_path, "quote.csv", data))
    assert "quote" in err.message and err.file == "quote.csv" and err.row == 3
    assert_no_values(err, "Secret")


def test_unclosed_quote_with_escaped_quotes_inside(tmp_path: Path) -> None:
    data = b'id,note\nP1,ok\nP2,ok\nP3,"she said ""no"" then\nP4,x\n'
    err = error_for(write(tmp_path, "quote2.csv", data))
    assert "not closed properly" in err.message and err.row == 4


def test_a_lone_inch_mark_inside_a_field_is_fine(tmp_path: Path) -> None:
    table = read_table(write(tmp_path, "inch.csv", b"id,height,note\nP1,5'10\",tall\nP2,6,x\n"))
    assert table.frame["height"].tolist() == ["5'10\"", "6"]


def test_trailing_empty_rows_are_dropped_middle_ones_kept(tmp_path: Path) -> None:
    data = b"id,zip\nP1,1\n,\nP3,3\n,\n\n"
    table = read_table(write(tmp_path, "t.csv", data))
    assert table.frame["id"].tolist()[::2] == ["P1", "P3"]
    assert table.frame.iloc[1].isna().all()  # line 3 stays a row: line numbers stay true
    assert table.report.rows == 3
    assert any("2 empty rows at the end" in w for w in table.report.warnings)


def test_single_column_file(tmp_path: Path) -> None:
    table = read_table(write(tmp_path, "one.csv", b"zip\n02139\n\n00501\n"))
    assert table.frame["zip"].tolist()[0] == "02139" and table.report.rows == 3


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    err = error_for(tmp_path / "gone.csv")
    assert err.file == "gone.csv"


def test_source_file_is_not_modified(tmp_path: Path) -> None:
    path = write(tmp_path, "keep.csv", b"id,zip\nP1,2139\n")
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    read_table(path)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_progress_is_reported_and_cancel_stops(tmp_path: Path) -> None:
    path = write(tmp_path, "p.csv", b"id,zip\n" + b"P1,02139\n" * 1000)
    seen: list[tuple[float, str]] = []
    read_table(path, progress=lambda f, stage: seen.append((f, stage)))
    assert seen and seen[-1][0] == pytest.approx(1.0)
    assert all("02139" not in stage for _, stage in seen)
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        read_table(path, cancel=token)


NAMES = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=8),
    min_size=1,
    max_size=5,
    unique=True,
).filter(lambda names: looks_like_data(names) is None)  # a header, not a row of data
CELLS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=12,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(names=NAMES, delimiter=st.sampled_from([",", ";", "\t", "|"]), data=st.data())
def test_text_frames_round_trip_through_csv(
    tmp_path: Path, names: list[str], delimiter: str, data
) -> None:
    rows = data.draw(
        st.lists(st.lists(CELLS, min_size=len(names), max_size=len(names)), max_size=8)
    )
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=delimiter)
    writer.writerow(names)
    writer.writerows(rows)
    path = tmp_path / "roundtrip.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8"))
    table = read_table(path)
    frame = table.frame
    if len(names) > 1:
        assert table.report.delimiter == delimiter
    expected = pd.DataFrame(rows, columns=names, dtype=object).replace({"": None})
    while len(expected) and expected.iloc[-1].isna().all():
        expected = expected.iloc[:-1]  # trailing empty rows are dropped by design
    assert list(frame.columns) == names
    assert len(frame) == len(expected)
    for name in names:
        got = [None if pd.isna(v) else v for v in frame[name].tolist()]
        want = [None if v is None else v for v in expected[name].tolist()]
        assert got == want
