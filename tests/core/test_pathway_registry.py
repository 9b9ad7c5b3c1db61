"""The pathway registry: one spec per pathway, read by every front end and export."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pandas as pd
import pytest

from deid_desktop import secrets
from deid_desktop.core.errors import UsageError
from deid_desktop.core.export.documents import data_dictionary
from deid_desktop.core.model import PATHWAY_LABELS, ExportMeta, Pathway, Release
from deid_desktop.core.pathways import registry
from tests.core.test_export_support import project as demo_project


def test_every_pathway_member_has_one_spec_in_enum_order() -> None:
    specs = registry.all_specs()
    assert [s.id for s in specs] == list(Pathway)
    assert len({s.cli_name for s in specs}) == len(specs)
    assert all("anonymous" not in s.label.lower() for s in specs)
    assert "not Safe Harbor" in registry.pathway_spec(Pathway.LINKABLE).label
    assert {s.id: s.label for s in specs} == dict(PATHWAY_LABELS)  # the gate's view


def test_only_the_linkable_release_needs_the_salt(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    monkeypatch.setattr(secrets, "get_salt", lambda pid: asked.append(pid) or b"s" * 32)
    project = demo_project()
    for spec in registry.all_specs():
        salt = secrets.salt_for_project(replace(project, pathway=spec.id))
        assert (salt is not None) == spec.needs_salt == (spec.id == Pathway.LINKABLE)
    assert len(asked) == 1


def test_the_limited_data_set_needs_its_dua_before_export() -> None:
    project = demo_project()
    lds = replace(project, pathway=Pathway.LIMITED_DATA_SET)
    assert [p.severity for p in registry.preconditions(lds)] == ["error"]
    signed = replace(lds, export=ExportMeta(dua="DUA-1"))
    assert registry.preconditions(signed) == []
    assert registry.preconditions(project) == []


def test_export_of_an_unknown_pathway_is_a_clear_error_not_a_key_error() -> None:
    release = Release(
        pathway="no_such_pathway",  # type: ignore[arg-type]
        label="x",
        tables={"t": pd.DataFrame({"a": ["1"]}, dtype="string")},
        crosswalk=None,
        id_column="subject_id",
    )
    with pytest.raises(UsageError, match="does not know") as info:
        data_dictionary(release, demo_project())
    assert "safe-harbor" in (info.value.hint or "")


def test_the_cli_reads_the_specs_without_loading_a_builder() -> None:
    code = (
        "import json, sys, deid_desktop.cli as c\n"
        "c.build_parser()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    assert "deid_desktop.core.pathways.specs.linkable" in loaded  # the choices
    builders = {f"deid_desktop.core.pathways.{m}" for m in ("safe_harbor", "linkable", "limited")}
    assert not loaded & {"pandas", *builders}
