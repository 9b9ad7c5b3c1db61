"""The seed and the crosswalk's whereabouts never reach the recipient (164.514(c)(2)).

Safe Harbor subject IDs are a permutation drawn from the project's seed: with the seed
and the input order anyone could rebuild the crosswalk. So the release folder names
neither the seed nor the crosswalk folder or hash; the full record (seed, crosswalk
path and SHA-256) is written beside the crosswalk and appended to the register.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

from deid_desktop.core.export import (
    CROSSWALK_FILE,
    FULL_RECORD_JSON,
    FULL_RECORD_TXT,
    RECORD_JSON,
    export_release,
)
from deid_desktop.core.model import ExportMeta
from deid_desktop.core.register import read_register
from tests.core import test_export_support as sup
from tests.core.support import sha

SEED = 987654321
NOW = dt.datetime(2026, 11, 29, 14, 30, tzinfo=dt.UTC)


def _export(tmp_path: Path, out: str = "release", xw: str = "crosswalk"):
    project = dataclasses.replace(sup.project(), seed=SEED)
    release = sup.release()
    release = dataclasses.replace(
        release,
        # the wording a pathway may use (the limited data set's names the seed)
        transformations=(
            *release.transformations,
            f"Replaced patient_id by a random subject ID (S + 4 digits, seed {SEED}).",
        ),
        parameters={**release.parameters, "seed": SEED},
    )
    return export_release(
        release,
        sup.verification(),
        project=project,
        extract_inputs=sup.inputs(tmp_path / "in"),
        out_dir=tmp_path / out,
        crosswalk_dir=tmp_path / xw,
        meta=ExportMeta(purpose="study", formats=("csv", "xlsx")),
        register_path=tmp_path / "reg" / "register.jsonl",
        now=NOW,
        input_rows={"demographics": 4, "visits": 5},
    )


def test_release_folder_never_names_the_seed_nor_the_crosswalk(tmp_path: Path) -> None:
    rec = _export(tmp_path)
    xw = tmp_path / "crosswalk"
    crosswalk_sha = sha(xw / CROSSWALK_FILE)
    for p in (tmp_path / "release").iterdir():
        data = p.read_bytes()
        if p.suffix == ".xlsx":  # a zip: read the sheets as text too
            import zipfile

            with zipfile.ZipFile(p) as z:
                data = b"".join(z.read(n) for n in z.namelist())
        text = data.decode("utf-8", errors="replace")
        assert str(SEED) not in text, p.name
        assert str(xw) not in text and "crosswalk-DO-NOT" not in text, p.name
        assert crosswalk_sha not in text, p.name
    public = json.loads((tmp_path / "release" / RECORD_JSON).read_text())
    assert public["seed"] == "held back with the crosswalk"
    assert public["parameters"]["release"]["seed"] == "held back with the crosswalk"
    assert public["crosswalk"] == {"held_back": True, "where": "held back with the crosswalk"}
    assert public["full_record"] == "held back with the crosswalk"
    assert any("seed held back" in t for t in public["transformations"])
    readme = (tmp_path / "release" / "README.txt").read_text()
    assert "seed held back" in readme
    assert rec.record == public


def test_full_record_beside_the_crosswalk_and_in_the_register(tmp_path: Path) -> None:
    rec = _export(tmp_path)
    xw = tmp_path / "crosswalk"
    full = json.loads((xw / FULL_RECORD_JSON).read_text())
    assert full == rec.full_record
    assert full["seed"] == SEED and full["parameters"]["release"]["seed"] == SEED
    assert full["crosswalk"]["folder"] == str(xw)
    assert full["crosswalk"]["sha256"] == sha(xw / CROSSWALK_FILE)
    assert any(f"seed {SEED}" in t for t in full["transformations"])
    text = (xw / FULL_RECORD_TXT).read_text()
    assert f"Seed: {SEED}" in text and str(xw) in text
    assert {xw / FULL_RECORD_JSON, xw / FULL_RECORD_TXT} <= set(rec.crosswalk_files)
    (entry,) = read_register(tmp_path / "reg" / "register.jsonl")
    assert entry["seed"] == SEED and entry["crosswalk"]["sha256"] == full["crosswalk"]["sha256"]
    assert entry["record_path"] == str(tmp_path / "release" / RECORD_JSON)
    assert entry["full_record_path"] == str(xw / FULL_RECORD_JSON)
    # the rest of the record is the same in both places
    public = rec.record
    assert public["outputs"] == full["outputs"] and public["checks"] == full["checks"]


def test_release_data_byte_identical_across_two_exports(tmp_path: Path) -> None:
    _export(tmp_path, out="a", xw="xa")
    _export(tmp_path, out="b", xw="xb")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        if name not in {RECORD_JSON, "export_record.txt"}:
            assert sha(tmp_path / "a" / name) == sha(tmp_path / "b" / name), name
    a, b = (json.loads((tmp_path / d / RECORD_JSON).read_text()) for d in ("a", "b"))
    assert a.pop("outputs")["files"] == b.pop("outputs")["files"]
    assert a == b  # same time: the release records differ only by the release folder
