"""Golden bytes: the release files of the demo and of two Synthea extracts
(tests/data/synthea), under every pathway, hash exactly as they did before the gate
moved into its own package (README.txt re-hashed when it gained the risk verdict).

A regression guard for refactors that must not change a single released byte: each
case reviews and exports through the engine (fixed salt, fixed DUA, fixed clock) and
compares the SHA-256 of every file in the release folder. The export record is not
hashed whole (it names the temporary folders and the app version); its stable parts -
the checks run, the transformations and the release parameters - are hashed instead.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import shutil
import uuid
from pathlib import Path

import pytest

from deid_desktop.core import engine
from deid_desktop.core.export import RECORD_JSON, RECORD_TXT
from deid_desktop.core.io import read_table
from deid_desktop.core.model import Pathway, Project, TableSpec, TransformOptions
from deid_desktop.core.project import save_project, store_path
from deid_desktop.core.resources import resources_dir
from deid_desktop.core.tagging import suggest_tags
from deid_desktop.core.tagging.retag import keyed_tags
from tests.core.support import sha
from tests.core.synthea_cases import DATA, SETS

SALT = bytes(range(40, 72))
DUA = "DUA-GOLDEN-1"
NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
#: the Synthea extracts and each table's person key (tests/data/synthea/PROVENANCE.md)
EXTRACTS = SETS
PATHWAYS = (Pathway.SAFE_HARBOR, Pathway.LINKABLE, Pathway.LIMITED_DATA_SET)

GOLDEN: dict[str, dict[str, str]] = {
    "demo/safe_harbor": {
        "README.txt": ("861f04a36e1cda70cd796315177876fc79dadb44bfbed2fad74cfa2f73cae941"),
        "baseline.csv": ("9140ef420ad5d9a62abcb7ac6b52c2dad1343d7b4768d4f6cc2fb7e004aab5f1"),
        "data_dictionary.csv": ("aefd1a94b27ae4b78ad5ce8fe97e844b1784fe5ecb08d592d7a2649c40624710"),
        "demographics.csv": ("0651c0f2eda6db045370ee5dc9ac17ee6c1ce65ac45a808793d039cdd4ed02fa"),
        "visits.csv": ("6a210bb042b276083e15bb8b104720c36a566d491699913570ac25c0e46e438d"),
        "export_record.json#stable": (
            "a2a2034a2bfe89e76a7508ee9229bb5a5e488137e33bbb23d104eb6c6a9a0149"
        ),
    },
    "demo/linkable": {
        "README.txt": ("a7a06dd8105642ec3c3833dcacbf82d11ec4b68f5e23bcd0b781212c2c98a7b6"),
        "baseline.csv": ("744648b9fe5af6538802024b6ec5222ca56e1f0ab8ccb47586d43726f4098e73"),
        "data_dictionary.csv": ("47aa06004f82ca43a066a2a21d2da7a88ff6c54ff765e321f7d544ae4cf2db91"),
        "demographics.csv": ("a0cda1da62c5bbfebb9637c5e6d3e7948f6511420e4ad6a451ac634f71e73c24"),
        "visits.csv": ("a7d164c4fe4301da54a0ba5a655503a0814d0bed447b92903b8365ad9634c07f"),
        "export_record.json#stable": (
            "c1ab01aa4bc44f76dd58c78a36c4713e0ca82c7ca63f43a718897add9c847eff"
        ),
    },
    "demo/limited_data_set": {
        "README.txt": ("8dd3e190a831aaab88a954c387222710de7c895f85729f422fa71e3bf9a989a1"),
        "baseline.csv": ("a0a2f4369ad18a13264a14d46ff3bbdc08c01c8650b06089d4d3325f2db0b350"),
        "data_dictionary.csv": ("97b930af4ea645c8a0582aa0f7c78332e485f99ebacd705b4e444b81b2ceceb0"),
        "demographics.csv": ("653e687c1cd5fe522b97e822f7fa6e69c37179c06255ea17567a578c8ac743f6"),
        "visits.csv": ("b9abeab87e68d9e79efa8a82b81e64fc218943d5b276e7ee2869e62c5ae07283"),
        "export_record.json#stable": (
            "ce8d5f3e5a9e44d99fe3a6a6215218dd9fa91fc6df5adacac7b869c192fc7bef"
        ),
    },
    "unmc_crane_2023/safe_harbor": {
        "README.txt": ("2414c6fbe3ec4d52e1310a87e6268a875abc11f8e45b589374d3a73d56415b0e"),
        "conditions.csv": ("1171dba1ca38a088cf3c7ed19558e61237dc93b8f684fbb2849b4e675a01492c"),
        "data_dictionary.csv": ("c69842de1c036edcc0f60bb2178bb821ab8a967ebb89454fa634b1bdb667188f"),
        "encounters.csv": ("371e2135f24d7a5c8d8aca2ecad8703a092edbd7c9566404f9fcae5f36ffdf95"),
        "medications.csv": ("9336fda424da58148e5ddbed1e6270fc8cf284dccc8a3ee59eb9eb7293931898"),
        "patients.csv": ("4a3571314cb79eb4e30b8050c17dcb0377e323ecd4f34ba1e232666aa05f8623"),
        "export_record.json#stable": (
            "3441c9fb2c9ce27f701e5de60f171c3244258b937020e8aee50db7fd9251d4f7"
        ),
    },
    "unmc_crane_2023/linkable": {
        "README.txt": ("f8fa711605df7782fe50a880e34e485a78af89d7e00632b41c24d092909f91dd"),
        "conditions.csv": ("4542e5f4490fd3a9faf6c62ad917d7a0454507b178bd7eeeeff639b841f55c59"),
        "data_dictionary.csv": ("51550183b096f6e1f20dd6d04c4f88385e1f096606fb245f95fb88c90e721b76"),
        "encounters.csv": ("67a8e368a9082dad8969d722d66f03a055a79a7ec8333717af936cd813f2969b"),
        "medications.csv": ("a76abded4101754d3fe1b96e16d0d494e1fd4e808f58f5a1d9942c8383f2bab0"),
        "patients.csv": ("a3e0b38a5dbc7e1a0e95af31182d5f36e153127ca619ad89ecfa4e4f3d08e86c"),
        "export_record.json#stable": (
            "162fd06379213e26cb91f692552b22a44c8b645df88d2132b61f2fe8ef524e61"
        ),
    },
    "unmc_crane_2023/limited_data_set": {
        "README.txt": ("2259bf280ca188610455cd42796ecf526f3d0e02f4057a375516b396c965caf0"),
        "conditions.csv": ("17f16e1a10570b145995ceb39b2548e261ee1a2df9827b830ea2b5173c3fe7c0"),
        "data_dictionary.csv": ("1b43be98ec1943993ca760a72f10202fa7316e6eee12e84e90962b57e15d0e3e"),
        "encounters.csv": ("ebface18d205fd7aab0c50b99fbb6f90bc7cfe587690ad65fe95fc551f8465a6"),
        "medications.csv": ("e16d8d724e989ddcab7248a800e04fdd2ac911b6bb71c5cbd41d7cd5dff6d564"),
        "patients.csv": ("2351eac5b7da515839de629c9ebdbd381b00553c74970782ae441896dc1aae7e"),
        "export_record.json#stable": (
            "35492c00137f7560c9ab4621d5f99f69c8f001a406f687841b05b242f473c9ea"
        ),
    },
    "ds4biomed_apr2020/safe_harbor": {
        "README.txt": ("b40083e8b6fc2b6319bb7823ad39e16fca9a37656f8a55f75cd85a2b41092278"),
        "conditions.csv": ("03ec2d2adeec177738fbd0d3bc0d7d104469483a845ab00f51ddac7d32253aee"),
        "data_dictionary.csv": ("4cfff6e5d0910377f23263ecd4f5f1b46d0ad94960ab313cda1abedbefbae1f0"),
        "immunizations.csv": ("541ec98d9ef14ca97bcd814e641e1497a7894972baf79f9ab05bb23a3946a82d"),
        "patients.csv": ("26e3503ce92239b285e59620a07b6975f20de41f097890a8fcec3cfd21d180c0"),
        "export_record.json#stable": (
            "aa66d0a3e9ef51a37a6008485c51dfd7b31abe2b9d2afef153901dbb3fe9921b"
        ),
    },
    "ds4biomed_apr2020/linkable": {
        "README.txt": ("3212d21c22d9dd0768518fbad92a88ab162d6286a4f713f63fdfc0bc08555cb4"),
        "conditions.csv": ("5df6bc42c37baac51a30722a28e1ea0000533e1173ed07d457c8a9a192a0c7cf"),
        "data_dictionary.csv": ("33b209ffaa8e63940daba2791b76298a10df71360266d7d385008c3a6e97b9d9"),
        "immunizations.csv": ("bebd33947b5f2cba9b2f49648ce5c0f558700c7cc953b2148ed9c72f32c1f25b"),
        "patients.csv": ("1a052654633f092f45d61731e37381e1942b9681bcae9409843a0873dff3e2b1"),
        "export_record.json#stable": (
            "4052ecacf55b8ce3fd71b4782a8db077d65b3ebeff671079b34daeb48bedc77d"
        ),
    },
    "ds4biomed_apr2020/limited_data_set": {
        "README.txt": ("1d609e85dfe6628decddef449bae0dbe834cafd8401b74d8ddf75a0576ab66ee"),
        "conditions.csv": ("dc7c4170b9bce484f216265c1d5e43f62e6db5ae5785924d6fd0e8e8ab947b50"),
        "data_dictionary.csv": ("09427269dcd371bc0d983d55b0a03b66f50e8c9b1f8aafd60e6c7aa986d09be9"),
        "immunizations.csv": ("71acdd5978ce7be75fda9d4f86254ab75fa2bf000fef7b99597824fcf91d0d5f"),
        "patients.csv": ("02fcd6020be808607b019f13bd2afb2364d3260641429d43f2a3b49ecffc87fe"),
        "export_record.json#stable": (
            "d7cbc57e54250b7375f0ef11b1e35474429bc80e2f47102767f6b3b7524013ef"
        ),
    },
}


def _synthea(src: Path, folder: Path, tables: tuple[tuple[str, str], ...]) -> Path:
    """The extract copied into ``folder``, auto-tagged and saved (ages at a fixed date)."""
    project_path = folder / "synthea.deid.json"
    specs = []
    for name, key in tables:
        shutil.copyfile(src / f"{name}.csv", folder / f"{name}.csv")
        table = read_table(folder / f"{name}.csv")
        person = name == "patients"
        tags = keyed_tags(suggest_tags(table.frame, table=name, is_person=person), key)
        path = store_path(table.path, project_path)
        specs.append(TableSpec(name, path, table.sha256, key, person, tags, rows=len(table.frame)))
    project = Project(
        uuid.UUID(int=len(tables)).hex,
        "synthea",
        tuple(specs),
        transform=TransformOptions(age_reference="2024-01-01"),
    )
    save_project(project, project_path)
    return project_path


def _stable_record(path: Path) -> str:
    record = json.loads(path.read_text(encoding="utf-8"))
    stable = {k: record[k] for k in ("checks", "transformations", "parameters") if k in record}
    return hashlib.sha256(json.dumps(stable, sort_keys=True).encode()).hexdigest()


def release_hashes(project_path: Path, pathway: Pathway, out: Path) -> dict[str, str]:
    project, _ = engine.open_project(project_path)
    project = dataclasses.replace(
        project, pathway=pathway, export=dataclasses.replace(project.export, dua=DUA)
    )
    extract = engine.load(project, project_path)
    result = engine.review(project, extract, salt=SALT)
    assert result.passed, [o.check.id for o in result.verification.blocking_failures]
    engine.export(
        project,
        None,
        result,
        out_dir=out / "release",
        crosswalk_dir=out / "crosswalk",
        register_path=out / "register.jsonl",
        accept_risk="golden bytes: the residual risk is not under test",
        now=NOW,
    )
    files = sorted((out / "release").iterdir())
    hashes = {p.name: sha(p) for p in files if p.name not in (RECORD_JSON, RECORD_TXT)}
    hashes[f"{RECORD_JSON}#stable"] = _stable_record(out / "release" / RECORD_JSON)
    return hashes


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {"demo": resources_dir() / "demo" / "demo.deid.json"}
    for name, tables in EXTRACTS.items():
        folder = tmp_path_factory.mktemp(name)
        out[name] = _synthea(DATA / name, folder, tables)
    return out


@pytest.mark.parametrize("pathway", PATHWAYS, ids=[p.value for p in PATHWAYS])
@pytest.mark.parametrize("extract", ["demo", *EXTRACTS])
def test_release_bytes_unchanged(
    projects: dict[str, Path], extract: str, pathway: Pathway, tmp_path: Path
) -> None:
    got = release_hashes(projects[extract], pathway, tmp_path)
    assert got == GOLDEN[f"{extract}/{pathway.value}"]
