"""The scan of a project's notes makes its dictionary of the direct values that may be
found in those notes (``notes_dictionary``), not of every value: the scan must find
exactly what it finds with the whole dictionary (spans, rules and the person-aware
confidence of names), and the record must still count the whole dictionary's entries
(``entry_count``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from deid_desktop.core import engine
from deid_desktop.core.demo import write_demo
from deid_desktop.core.model import ColumnClass
from deid_desktop.core.scan import build_dictionary, scan_frames
from deid_desktop.core.scan.dictionary import (
    DictionarySource,
    _owner_table,
    dictionary_from_columns,
    dictionary_kind,
    dictionary_source,
)
from deid_desktop.core.scan.engine import scan_text_arrays
from deid_desktop.core.scan.notes_dictionary import (
    _SAMPLE,
    NotesValues,
    _distinct_count,
    entry_count,
    note_persons,
    noted_rows,
    notes_dictionary,
)
from tests.core.test_direct_values import KINDS, _columns, text, value

columns_st = st.dictionaries(
    st.sampled_from(KINDS),
    st.lists(st.lists(value, min_size=0, max_size=6), min_size=1, max_size=2),
    max_size=4,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(columns_st)
@example({"name": [["Dr Ann  Quigg", "ann", "12 Mr", "Zoë Øst", "٣٤٥ x", "MR. JR"]]})
@example({"phone": [["1 (858) 555-0133", "5550133", "555-013"]], "ssn": [["٣٤٥-٣٤-٥٦٧٨"]]})
@example({"mrn": [["0042", " 0042 ", "ab"]], "id": [["0042", "３４５"]], "name": [["Mrn"]]})
def test_the_entry_count_is_the_whole_dictionarys(values: dict[str, list[list[str]]]) -> None:
    columns = _columns(values)
    assert entry_count(columns) == len(dictionary_from_columns(columns))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.sampled_from("PQR"), value), min_size=0, max_size=8),
    columns_st,
    st.lists(st.tuples(st.sampled_from("PQRS"), text), min_size=0, max_size=6),
)
@example([("P", "AnnAnn")], {"name": [["Ann"]]}, [("P", "Ann")])  # no owner word in the notes
@example(  # everyday words that are names, beside another word of their own person's name
    [("P", "Mark Miller"), ("Q", "May Will")],
    {},
    [("P", "spoke w/ mark miller"), ("P", "PT MILLER, MARK NO SHOW"), ("Q", "may shower")],
)
@example([("P", "AnnMain St")], {}, [("P", "Main St0042")])  # a name glued to digits
@example(
    [("P", "Ann Quigg"), ("Q", "Will Peña"), ("R", "Quigg")],
    {"mrn": [["SYN-8365111"]]},
    [("P", "Quigg saw Will"), ("Q", "will PEÑA, ann"), ("S", "SYN 8365111")],
)
def test_the_notes_dictionary_finds_what_the_whole_one_finds(
    names: list[tuple[str, str]],
    values: dict[str, list[list[str]]],
    notes: list[tuple[str, str]],
) -> None:
    columns = _columns(values)
    pairs = pd.DataFrame({"key": [p for p, _ in names], "name": [n for _, n in names]})
    if names:
        columns.setdefault("name", []).append(pairs["name"])
    source = DictionarySource(columns, [pairs] if names else [], frozenset())
    whole = source.finish(
        dictionary_from_columns(columns), _owner_table(list(pairs["key"]), list(pairs["name"]))
    )
    texts = [t for _, t in notes]
    persons = [p for p, _ in notes]
    expected = scan_text_arrays(texts, whole, persons=persons)
    keys = pa.array(sorted(set(persons)), type=pa.large_string())
    for small in (
        notes_dictionary(source, [texts]),
        NotesValues(source, keys).dictionary_for([texts]),
    ):
        got = scan_text_arrays(texts, small, persons=persons)
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_array_equal(a, b)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="ab\x00é -", max_size=20), max_size=30), max_size=3))
@example([["abcdefgh", "abcdefgh", "abcdefg", "abcdefg\x00"], ["abcdefghi", "abcdefghi"]])
@example([["", "", "a"], ["aaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaab", "é" * 9]])
@example([["0000001", "0000001", "0000002", "0000010", "0000100"], ["ab", "ab", "b", "ba"]])
@example([["0000002", "0000001", "0000010"], ["ba", "ab"]])
def test_distinct_values_are_counted_as_arrow_counts_them(parts: list[list[str]]) -> None:
    """Short values counted from their bytes as numbers, long ones by hash (Arrow's
    count when two hash equal): the number of distinct values, whatever their lengths."""
    arrays = [pa.array(p, type=pa.large_string()) for p in parts]
    expected = len(pc.unique(pa.concat_arrays(arrays))) if any(parts) else 0
    assert _distinct_count(arrays) == expected


@pytest.mark.parametrize("repeat", [False, True])
def test_a_column_of_distinct_values_is_not_hashed_first(repeat: bool) -> None:
    """One column whose first values do not repeat (IDs) is read as it is, not made
    distinct first: the dictionary of the notes (its entries in order, those too short)
    and the count of the whole one are those of the same values made distinct first (a
    kind of two columns, the same column twice, is made distinct)."""
    ids = [f"SYN-{i:07d}" for i in range(_SAMPLE + 50)] + ["SYN-0000007", " SYN-0000008 ", "12"]
    if repeat:
        ids = ids[:3] * (_SAMPLE // 2) + ids
    column = pd.Series(ids, dtype=object)
    texts = ["seen SYN 0000007 and syn-0000008", "id 12 and SYN-0000009"]
    one = NotesValues(DictionarySource({"mrn": [column]}, [], frozenset()))
    two = NotesValues(DictionarySource({"mrn": [column, column]}, [], frozenset()))
    assert ("mrn" in one.repeated) is not repeat and not two.repeated
    got, expected = one.dictionary_for([texts]), two.dictionary_for([texts])
    assert list(got.terms.items()) == list(expected.terms.items()) != []
    assert list(got.digits.items()) == list(expected.digits.items())
    assert got.skipped == expected.skipped
    assert one.entry_count() == two.entry_count() == len(dictionary_from_columns({"mrn": [column]}))


def test_a_project_scan_reports_what_the_whole_dictionary_finds(tmp_path: Path) -> None:
    project_path = write_demo(tmp_path / "demo", rows=400)
    project, _ = engine.open_project(project_path)
    extract = engine.load(project, project_path)
    texts = engine.text_columns_for(project, extract)
    frames = {name: extract.table(name).frame for name in texts}
    whole = build_dictionary(extract, project)
    expected = scan_frames(
        frames, texts, whole, person_keys={t.name: t.key for t in project.tables}
    )
    got = engine.scan_extract(project, extract)
    assert got is not None and expected.total_hits > 0
    assert got.dictionary_entries == expected.dictionary_entries == len(whole)
    assert got.columns == expected.columns
    assert [h.__dict__ if hasattr(h, "__dict__") else h for h in got.hits] == [
        h.__dict__ if hasattr(h, "__dict__") else h for h in expected.hits
    ]


def _visit_keys(project_path: Path, change: bool) -> tuple[list[str], int, int]:
    """The columns of the scan dictionary's ID kind, its entries, and the entries of the
    dictionary of every direct column read whole (event keys too)."""
    project, _ = engine.open_project(project_path)
    extract = engine.load(project, project_path)
    if change:  # a visit whose key is no person's (the load refuses it; made by hand here)
        visits = extract.events[0]
        frame = visits.frame.copy()
        frame.loc[0, project.table(visits.name).key] = "NOT-A-PERSON-9"
        extract = replace(extract, events=(replace(visits, frame=frame), *extract.events[1:]))
    source = dictionary_source(extract, project)
    every: dict[str, list[pd.Series]] = {}
    for spec in project.tables:
        frame = extract.table(spec.name).frame
        for tag in spec.by_class(ColumnClass.DIRECT):
            every.setdefault(dictionary_kind(tag.category), []).append(frame[tag.name].dropna())
    whole = len(dictionary_from_columns(every))
    return (
        [str(c.name) for c in source.columns["id"]],
        len(build_dictionary(extract, project)),
        whole,
    )


def test_event_keys_that_are_person_keys_are_read_once(tmp_path: Path) -> None:
    """Every visit's key is a person's: the dictionary reads the person keys only (the
    visit keys add no value, only rows to hash) and holds every entry all of them make;
    a visit key that is no person's is read, so its value is in the dictionary."""
    project_path = write_demo(tmp_path / "demo", rows=300)
    columns, entries, whole = _visit_keys(project_path, change=False)
    assert columns == ["patient_id"]
    assert entries == whole
    columns, entries, whole = _visit_keys(project_path, change=True)
    assert columns == ["patient_id"] * 3
    assert entries == whole


def test_rows_whose_person_has_a_note_are_told_by_position(tmp_path: Path) -> None:
    """``noted_rows`` tells each row whether its person has a note, as the keys of the
    notes do, and the owner entries made with it are those made by key; with a visit key
    that is no person's there are no positions, so it tells nothing."""
    project_path = write_demo(tmp_path / "demo", rows=300)
    project, _ = engine.open_project(project_path)
    extract = engine.load(project, project_path)
    texts = engine.text_columns_for(project, extract)
    persons = note_persons(extract, project, texts)
    noted = noted_rows(extract, project, texts)
    assert persons is not None and noted is not None
    for spec in project.tables:
        keys = extract.table(spec.name).frame[spec.key].astype(str)
        expected = keys.isin(set(persons.to_pylist())).to_numpy()
        assert noted[spec.name].tolist() == expected.tolist()
        assert 0 < expected.sum() < expected.size  # some persons have no note
    source = dictionary_source(extract, project)
    by_key = NotesValues(source, persons)
    names = by_key.values["name"]
    by_row = NotesValues(source, persons, noted)
    np.testing.assert_array_equal(by_row._owners(names), by_key._owners(names))
    visits = extract.events[0]
    frame = visits.frame.copy()
    frame.loc[0, project.table(visits.name).key] = "NOT-A-PERSON-9"
    orphan = replace(extract, events=(replace(visits, frame=frame), *extract.events[1:]))
    assert noted_rows(orphan, project, texts) is None


def test_owner_entries_of_text_names_are_made_from_arrow_codes(tmp_path: Path) -> None:
    """Names held as text are read as Arrow codes, each person's key hashed once for the
    names of its table: the owner table is the one made pair by pair in Python, by row
    and by key, and for a part of the names."""
    project_path = write_demo(tmp_path / "demo", rows=300)
    project, _ = engine.open_project(project_path)
    extract = engine.load(project, project_path)
    texts = engine.text_columns_for(project, extract)
    source = dictionary_source(extract, project)
    assert len(source.name_pairs) == 2
    assert all(isinstance(p.iloc[:, 1].dtype, pd.StringDtype) for p in source.name_pairs)
    for values in (
        NotesValues(source, note_persons(extract, project, texts)),
        NotesValues(source, None, noted_rows(extract, project, texts)),
        NotesValues(source),
    ):
        names = values.values["name"]
        for some in (names, names.slice(0, len(names) // 3)):
            own = values._owners(some)
            assert own.size > 0
            np.testing.assert_array_equal(own, values._owners_listed(some))
