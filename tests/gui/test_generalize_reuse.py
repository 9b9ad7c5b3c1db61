"""The generalization search starts from the review's own person table when it is the
one the search would build (no generalization chosen, no "suppress below k"): the same
frame and quasi-identifiers as ``engine.unapplied_person``, without building the release
again (at a million persons ~30 s and hundreds of MB)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from deid_desktop.core import engine
from deid_desktop.core.model import Generalization, GeneralizedColumn
from deid_desktop.core.resources import resources_dir
from deid_desktop.gui import backend
from deid_desktop.gui.pages.review_generalize import reviewed_person

DEMO = resources_dir() / "demo" / "demo.deid.json"


def test_the_review_s_person_table_is_the_one_the_search_would_build(tmp_path: Path) -> None:
    project, _ = engine.open_project(DEMO)
    extract = engine.load(project, DEMO)
    review = backend.review(extract, project, held_back=tmp_path)
    reused = reviewed_person(review, project)
    assert reused is not None
    built, qis = engine.unapplied_person(project, extract, backend.salt_for(project))
    pd.testing.assert_frame_equal(reused[0], built)
    assert reused[1] == qis and qis

    # otherwise the search builds its own: another project, a generalization, suppression
    other = replace(project, risk=replace(project.risk, k_target=project.risk.k_target + 1))
    assert reviewed_person(review, other) is None
    suppress = replace(project, risk=replace(project.risk, suppress_below_k=True))
    assert reviewed_person(replace(review, project=suppress), suppress) is None
    chosen = Generalization((GeneralizedColumn(qis[0], 1, builtin="age"),), k=2)
    general = replace(project, generalization=chosen)
    assert reviewed_person(replace(review, project=general), general) is None
    assert reviewed_person(None, project) is None
