"""Every pathway on a loaded extract large enough to arrive in several Arrow chunks.

Small fixtures load as one chunk; real extracts do not. A pyarrow call that only works on
a single chunk once crashed the linkable pathway at 20,000 persons.
"""

from __future__ import annotations

import dataclasses

import pytest

from deid_desktop.core import engine
from deid_desktop.core.demo import write_demo
from deid_desktop.core.model import ExportMeta, Pathway

SALT = bytes(range(32))


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory):
    project_path = write_demo(tmp_path_factory.mktemp("big") / "demo", rows=20_000)
    project, _ = engine.open_project(project_path)
    extract = engine.load(project, project_path)
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
