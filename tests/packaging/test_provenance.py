"""A release can be traced to the build that made it: the export record (release and
full copies, text and JSON) and the register entry carry the version and the commit."""

from __future__ import annotations

import json
from pathlib import Path

from deid_desktop import __version__, buildinfo
from deid_desktop.core.export import FULL_RECORD_JSON, RECORD_JSON, RECORD_TXT
from deid_desktop.core.register import read_register
from tests.core.test_export import run_export


def test_the_export_record_and_the_register_carry_version_and_commit(tmp_path: Path) -> None:
    run_export(tmp_path)
    app = {"name": "deid-desktop", "version": __version__, "commit": buildinfo.commit()}
    assert buildinfo.commit() != buildinfo.UNKNOWN  # the tests run in a git checkout
    release = json.loads((tmp_path / "release" / RECORD_JSON).read_text())
    full = json.loads((tmp_path / "crosswalk" / FULL_RECORD_JSON).read_text())
    assert release["app"] == app and full["app"] == app
    text = (tmp_path / "release" / RECORD_TXT).read_text()
    assert f"deid-desktop {__version__}" in text
    assert f"Build commit: {buildinfo.commit()}" in " ".join(text.split())
    (entry,) = read_register(tmp_path / "reg" / "register.jsonl")
    assert entry["app"] == app
