"""Every older project format still opens: each migration step, and a real version-1 file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deid_desktop.core.errors import ProjectError
from deid_desktop.core.model import SCHEMA_VERSION, FreeTextAction, TransformOptions
from deid_desktop.core.project import (
    MIGRATIONS,
    content_sha256,
    load_project,
    project_from_dict,
    project_to_dict,
    save_project,
)
from deid_desktop.core.resources import resources_dir
from tests.core.test_project import make_project, version_0_body

V1_DEMO = Path(__file__).parent.parent / "data" / "project_v1" / "demo_v1.deid.json"
SHIPPED_DEMO = resources_dir() / "demo" / "demo.deid.json"


def test_every_older_version_has_a_step_and_each_step_moves_up_by_one() -> None:
    assert sorted(MIGRATIONS) == list(range(SCHEMA_VERSION))
    body: dict[str, Any] = version_0_body()
    for version in range(SCHEMA_VERSION):
        body = MIGRATIONS[version](body)
        assert body["schema_version"] == version + 1


def v1_body() -> dict[str, Any]:
    """``make_project`` as version 1 wrote it: the shared options under ``safe_harbor``."""
    body = project_to_dict(make_project())
    body["safe_harbor"] = body.pop("transform")
    body["schema_version"] = 1
    return body


def test_version_1_options_move_to_transform() -> None:
    p = project_from_dict(v1_body())
    assert p == make_project()
    assert p.transform.free_text == {"demographics.notes": FreeTextAction.REDACT}
    assert p.transform.age_reference == "2024-01-01"


def test_version_1_file_keeps_its_stamp_and_is_saved_as_current(tmp_path: Path) -> None:
    body = v1_body()
    body["content_sha256"] = content_sha256(body)
    path = tmp_path / "v1.deid.json"
    path.write_text(json.dumps(body, indent=2), encoding="utf-8")
    p = load_project(path)
    save_project(p, path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["schema_version"] == SCHEMA_VERSION
    assert "safe_harbor" not in doc and doc["transform"]["zip3_table"] == "/data/census.csv"
    assert load_project(path) == p


def test_a_hand_edited_version_1_file_is_still_refused(tmp_path: Path) -> None:
    body = v1_body()
    body["content_sha256"] = content_sha256(body)
    body["safe_harbor"]["free_text"] = {}  # edited after stamping
    path = tmp_path / "v1.deid.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    with pytest.raises(ProjectError, match="changed outside deid-desktop"):
        load_project(path)


def test_the_real_version_1_demo_opens_and_saves_as_the_shipped_demo(tmp_path: Path) -> None:
    """The demo file version 1 shipped, opened today, saves byte for byte as today's demo."""
    assert json.loads(V1_DEMO.read_text(encoding="utf-8"))["schema_version"] == 1
    p = load_project(V1_DEMO)
    assert p == load_project(SHIPPED_DEMO)
    assert p.transform == TransformOptions(age_reference="index")
    out = tmp_path / "demo.deid.json"
    save_project(p, out)
    assert out.read_bytes() == SHIPPED_DEMO.read_bytes()


def test_a_version_1_file_with_a_transform_block_is_not_valid() -> None:
    body = v1_body()
    body["transform"] = body["safe_harbor"]
    with pytest.raises(ProjectError, match="safe_harbor is not a known field"):
        project_from_dict(body)
