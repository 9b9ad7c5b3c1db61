"""Golden bytes: the release files of the demo and of two Synthea extracts
(tests/data/synthea), under every pathway, hash exactly as they did before the gate
moved into its own package.

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
from deid_desktop.core.model import Pathway, Project, SafeHarborOptions, TableSpec
from deid_desktop.core.project import _keyed, save_project, store_path
from deid_desktop.core.resources import resources_dir
from deid_desktop.core.tagging import suggest_tags
from tests.core.support import sha

SALT = bytes(range(40, 72))
DUA = "DUA-GOLDEN-1"
#: byte-for-byte copies of shared/data/synthea (tests/data/synthea/PROVENANCE.md)
DATA = Path(__file__).resolve().parents[1] / "data" / "synthea"
NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
EXTRACTS: dict[str, tuple[tuple[str, str], ...]] = {
    "unmc_crane_2023": (
        ("patients", "Id"),
        ("encounters", "PATIENT"),
        ("conditions", "PATIENT"),
        ("medications", "PATIENT"),
    ),
    "ds4biomed_apr2020": (
        ("patients", "Id"),
        ("conditions", "PATIENT"),
        ("immunizations", "PATIENT"),
    ),
}
PATHWAYS = (Pathway.SAFE_HARBOR, Pathway.LINKABLE, Pathway.LIMITED_DATA_SET)

GOLDEN: dict[str, dict[str, str]] = {
    "demo/safe_harbor": {
        "README.txt": ("acf4037ccae9cd3cb384d8ec88567b3bad7911fd8d5e17bd36a1422d86ab31e4"),
        "baseline.csv": ("79cf828a92860e27fac169bc6e70714009bab63e7d5d0b4ae6c97cc84eb78565"),
        "data_dictionary.csv": ("c3372a445b4cabcdba0bcf5d8bf098bbdf51a988440a784cf613c9401d193fd6"),
        "demographics.csv": ("7eb5e82fc85fc9624477e478b4758f07a7f94a626d7aa22c8eaad31abb742bd9"),
        "visits.csv": ("421b9ff0ea5bf07fb463de1ed4b31ea446a471b8ec172cb50ffeec8e56ddd9fe"),
        "export_record.json#stable": (
            "92d069e33fe6a38d4342cb21625ea2187be24ae9f1bbf14fc1f661732de72dbc"
        ),
    },
    "demo/linkable": {
        "README.txt": ("43ad73196ea18853842bc7e8a1c01ee2243843ae98554bbcb82041ff9934ff34"),
        "baseline.csv": ("744648b9fe5af6538802024b6ec5222ca56e1f0ab8ccb47586d43726f4098e73"),
        "data_dictionary.csv": ("92d79074ff297566b025f7c3e6a123c331f48770d0593b5ac5c269d43c6369d2"),
        "demographics.csv": ("d9ad717d3a4c4637b203faf71273812a79397fdd81884a54ba90142ad76dd3c8"),
        "visits.csv": ("a7d164c4fe4301da54a0ba5a655503a0814d0bed447b92903b8365ad9634c07f"),
        "export_record.json#stable": (
            "6659c15590aef3ec75aa2fd325fbb58af5b1c952ebfd020d71cfd630cf7fea53"
        ),
    },
    "demo/limited_data_set": {
        "README.txt": ("6b3eac3bdcb6c4d05693618784071e8a554bf287c5b30a839cae1a5d0a63003b"),
        "baseline.csv": ("a0a2f4369ad18a13264a14d46ff3bbdc08c01c8650b06089d4d3325f2db0b350"),
        "data_dictionary.csv": ("96ec541b60c5841ce403477a33bbca7ec0e8572a530a9cb07b5880c8f3c7ebaa"),
        "demographics.csv": ("653e687c1cd5fe522b97e822f7fa6e69c37179c06255ea17567a578c8ac743f6"),
        "visits.csv": ("b9abeab87e68d9e79efa8a82b81e64fc218943d5b276e7ee2869e62c5ae07283"),
        "export_record.json#stable": (
            "f9bc9a8b010dcfa998290d050a7f36ab073ed9c49124d89c287d17c7951613c9"
        ),
    },
    "unmc_crane_2023/safe_harbor": {
        "README.txt": ("2bfe50dfdf186735d1075b762dee43cadec5487c28fffcd6f1d10095afa5ff24"),
        "conditions.csv": ("1171dba1ca38a088cf3c7ed19558e61237dc93b8f684fbb2849b4e675a01492c"),
        "data_dictionary.csv": ("b08caf76087577ff78218555232c513771ac37ac3191ebb86b98a7f698a8c377"),
        "encounters.csv": ("371e2135f24d7a5c8d8aca2ecad8703a092edbd7c9566404f9fcae5f36ffdf95"),
        "medications.csv": ("9336fda424da58148e5ddbed1e6270fc8cf284dccc8a3ee59eb9eb7293931898"),
        "patients.csv": ("4a3571314cb79eb4e30b8050c17dcb0377e323ecd4f34ba1e232666aa05f8623"),
        "export_record.json#stable": (
            "09d007d871d2dc703afb6c0ef48ef97caf09bc0207a759dde87dbc61ef9cffdc"
        ),
    },
    "unmc_crane_2023/linkable": {
        "README.txt": ("ae3ee508fae852f7b28cc92c146c94943a1056fc323773d889ae8e6f32240a94"),
        "conditions.csv": ("4542e5f4490fd3a9faf6c62ad917d7a0454507b178bd7eeeeff639b841f55c59"),
        "data_dictionary.csv": ("92eef8cce2b575c3cbd5aa9be678053ffd9b9459b02f3ec2a483477d07f12ebb"),
        "encounters.csv": ("67a8e368a9082dad8969d722d66f03a055a79a7ec8333717af936cd813f2969b"),
        "medications.csv": ("a76abded4101754d3fe1b96e16d0d494e1fd4e808f58f5a1d9942c8383f2bab0"),
        "patients.csv": ("a3e0b38a5dbc7e1a0e95af31182d5f36e153127ca619ad89ecfa4e4f3d08e86c"),
        "export_record.json#stable": (
            "bfc4e127cb61930dc769645cc6de169248e5116e95f02919f4c61672bff7ee17"
        ),
    },
    "unmc_crane_2023/limited_data_set": {
        "README.txt": ("ce2bdf97b1a45667a1e5c4719ba14b1359a7ad812fe1b351a675c1c1237aff66"),
        "conditions.csv": ("17f16e1a10570b145995ceb39b2548e261ee1a2df9827b830ea2b5173c3fe7c0"),
        "data_dictionary.csv": ("442dd976f639d60de4c67593e2935775df1314ba8140198152061dd0e5529f8a"),
        "encounters.csv": ("ebface18d205fd7aab0c50b99fbb6f90bc7cfe587690ad65fe95fc551f8465a6"),
        "medications.csv": ("e16d8d724e989ddcab7248a800e04fdd2ac911b6bb71c5cbd41d7cd5dff6d564"),
        "patients.csv": ("2351eac5b7da515839de629c9ebdbd381b00553c74970782ae441896dc1aae7e"),
        "export_record.json#stable": (
            "5b8a8840156717e0afea06ba67c42d43547dd385714033b809abebd964e95b6c"
        ),
    },
    "ds4biomed_apr2020/safe_harbor": {
        "README.txt": ("9b191c94746db58051ec3e10e3b87b64b93ac77eae00d74144faa24ebeaddda7"),
        "conditions.csv": ("03ec2d2adeec177738fbd0d3bc0d7d104469483a845ab00f51ddac7d32253aee"),
        "data_dictionary.csv": ("c2a0fd320c6557b2396d3125aa2f8084cd5ae865268c3aede733b52e179922be"),
        "immunizations.csv": ("541ec98d9ef14ca97bcd814e641e1497a7894972baf79f9ab05bb23a3946a82d"),
        "patients.csv": ("26e3503ce92239b285e59620a07b6975f20de41f097890a8fcec3cfd21d180c0"),
        "export_record.json#stable": (
            "2545bcaf13e801c6de2fd2c1f5948bc8ed5c858842013dec9726ba81ad34c15b"
        ),
    },
    "ds4biomed_apr2020/linkable": {
        "README.txt": ("6c7d596b77761ad2f93b3ff1f1c2d896054f5da6c5c7afac9d1d5b0c5b81efae"),
        "conditions.csv": ("5df6bc42c37baac51a30722a28e1ea0000533e1173ed07d457c8a9a192a0c7cf"),
        "data_dictionary.csv": ("f92fc6bc870e43d57621dd8644040c49c2c47290d2f0ea2e9c7e51e0dae2b09b"),
        "immunizations.csv": ("bebd33947b5f2cba9b2f49648ce5c0f558700c7cc953b2148ed9c72f32c1f25b"),
        "patients.csv": ("1a052654633f092f45d61731e37381e1942b9681bcae9409843a0873dff3e2b1"),
        "export_record.json#stable": (
            "f249be47dc3317cf228b9e101fb5187056b59947c48dd8dbf005f4301e5870fc"
        ),
    },
    "ds4biomed_apr2020/limited_data_set": {
        "README.txt": ("c46ecb9a2a8589b9cb2fe0655fd92a40984e05b8c7933fe4d0bb6d964cfda112"),
        "conditions.csv": ("dc7c4170b9bce484f216265c1d5e43f62e6db5ae5785924d6fd0e8e8ab947b50"),
        "data_dictionary.csv": ("6b45d2455f6c8fc38934d5fcab76e6618e4db32ad631e1f4c9891edc830ae9fa"),
        "immunizations.csv": ("71acdd5978ce7be75fda9d4f86254ab75fa2bf000fef7b99597824fcf91d0d5f"),
        "patients.csv": ("02fcd6020be808607b019f13bd2afb2364d3260641429d43f2a3b49ecffc87fe"),
        "export_record.json#stable": (
            "b6794af74d98ed1357173784e4694cd93677816d393fe9542e0dc0874836f899"
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
        tags = _keyed(suggest_tags(table.frame, table=name, is_person=person), key)
        path = store_path(table.path, project_path)
        specs.append(TableSpec(name, path, table.sha256, key, person, tags, rows=len(table.frame)))
    project = Project(
        uuid.UUID(int=len(tables)).hex,
        "synthea",
        tuple(specs),
        safe_harbor=SafeHarborOptions(age_reference="2024-01-01"),
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
