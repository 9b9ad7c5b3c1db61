"""Every pathway on an extract whose columns are held in several Arrow chunks.

The CSV loader joins each column into one array, but frames can arrive otherwise (a
caller's own, or a column a later step rebuilds in pieces). A pyarrow call that only
works on a single chunk once crashed the linkable pathway at 20,000 persons, so the
fixture splits every loaded column into three chunks.
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import pyarrow as pa
import pytest

from deid_desktop.core import engine
from deid_desktop.core.demo import write_demo
from deid_desktop.core.io.frames import TEXT
from deid_desktop.core.model import ExportMeta, Pathway

SALT = bytes(range(32))


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory):
    project_path = write_demo(tmp_path_factory.mktemp("big") / "demo", rows=20_000)
    project, _ = engine.open_project(project_path)
    extract = engine.load(project, project_path)
    for table in extract.tables:
        for name in table.frame.columns:
            arr = pa.array(table.frame[name].array)
            third = len(arr) // 3
            pieces = [arr.slice(0, third), arr.slice(third, third), arr.slice(2 * third)]
            table.frame[name] = pd.Series(
                TEXT.__from_arrow__(pa.chunked_array(pieces)), name=name, copy=False
            )
    chunks = [extract.person.frame[c].array._pa_array.num_chunks for c in ("patient_id", "mrn")]
    assert min(chunks) > 1, "the fixture must exercise multi-chunk columns"
    return project, extract


@pytest.mark.parametrize("pathway", list(Pathway))
def test_every_pathway_passes_its_gate_on_a_multi_chunk_extract(loaded, pathway) -> None:
    project, extract = loaded
    project = dataclasses.replace(project, pathway=pathway, export=ExportMeta(dua="DUA-TEST-1"))
    result = engine.review(
        project, extract, salt=SALT if pathway == Pathway.LINKABLE else None, scan=False
    )
    assert result.verification.passed, [o.check.id for o in result.verification.blocking_failures]
    assert len(result.release.tables["demographics"]) == 20_000
