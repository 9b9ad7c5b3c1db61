"""The intruder's list is the release built for everyone; with nobody suppressed that is
the reviewed release itself, so the test links on it instead of building it again (at a
million persons ~25 s and hundreds of MB), with the same figures."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import deid_desktop.core.pathways as pathways
from deid_desktop.core import engine
from deid_desktop.core.attack import motivated_intruder
from deid_desktop.core.demo import write_demo
from deid_desktop.core.project import load_project


def test_without_suppression_the_reviewed_release_is_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_demo(tmp_path / "demo", rows=400)
    project = load_project(path)
    assert not project.risk.suppress_below_k
    extract = engine.load(project, path)
    review = engine.review(project, extract, salt=b"1" * 32, scan=False)
    builds: list[str] = []
    real = pathways.build_release

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        builds.append("built")
        return real(*args, **kwargs)

    monkeypatch.setattr(pathways, "build_release", counting)
    reused = motivated_intruder(project, extract, review, salt=b"1" * 32)
    assert builds == []
    # the same project under another name is not the reviewed one: the list is built
    renamed = replace(project, name=project.name + " (copy)")
    built = motivated_intruder(renamed, extract, review, salt=b"1" * 32)
    assert builds == ["built"]
    assert reused == built and reused.targets > 0

    # with suppression the list (everyone) differs from the release: it is built
    suppressing = replace(project, risk=replace(project.risk, suppress_below_k=True))
    review = engine.review(suppressing, extract, salt=b"1" * 32, scan=False)
    before = len(builds)
    motivated_intruder(suppressing, extract, review, salt=b"1" * 32)
    assert len(builds) == before + 1
