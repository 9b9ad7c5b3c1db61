"""The scan of a project's notes makes its dictionary of the direct values that may be
found in those notes (``notes_dictionary``), not of every value: the scan must find
exactly what it finds with the whole dictionary (spans, rules and the person-aware
confidence of names), and the record must still count the whole dictionary's entries
(``entry_count``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from deid_desktop.core import engine
from deid_desktop.core.demo import write_demo
from deid_desktop.core.scan import build_dictionary, scan_frames
from deid_desktop.core.scan.dictionary import (
    DictionarySource,
    _owner_table,
    dictionary_from_columns,
)
from deid_desktop.core.scan.engine import scan_text_arrays
from deid_desktop.core.scan.notes_dictionary import NotesValues, entry_count, notes_dictionary
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
