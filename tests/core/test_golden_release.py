"""Golden bytes: the release files of the demo and of two Synthea extracts
(tests/data/synthea), under every pathway, hash exactly as they did before the gate
moved into its own package (README.txt re-hashed once, when it gained the risk verdict).

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
from deid_desktop.core.project import save_project, store_path
from deid_desktop.core.resources import resources_dir
from deid_desktop.core.tagging import suggest_tags
from deid_desktop.core.tagging.retag import keyed_tags
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
        "README.txt": ("0cb8faf3b22a2038b5f0a4b95a9b30fba2bece2f957f582c3f9f0ad0aea8c99d"),
        "baseline.csv": ("79cf828a92860e27fac169bc6e70714009bab63e7d5d0b4ae6c97cc84eb78565"),
        "data_dictionary.csv": ("c3372a445b4cabcdba0bcf5d8bf098bbdf51a988440a784cf613c9401d193fd6"),
        "demographics.csv": ("7eb5e82fc85fc9624477e478b4758f07a7f94a626d7aa22c8eaad31abb742bd9"),
        "visits.csv": ("421b9ff0ea5bf07fb463de1ed4b31ea446a471b8ec172cb50ffeec8e56ddd9fe"),
        "export_record.json#stable": (
            "f5a4f3aa1b4245cf864555f32a17e7b484a3a5443b8373bb76e8f79f6c85802d"
        ),
    },
    "demo/linkable": {
        "README.txt": ("09fba5d3a4e20952b606688902e82d6c92b92a50cde702a1dbaa1e627c40348c"),
        "baseline.csv": ("744648b9fe5af6538802024b6ec5222ca56e1f0ab8ccb47586d43726f4098e73"),
        "data_dictionary.csv": ("92d79074ff297566b025f7c3e6a123c331f48770d0593b5ac5c269d43c6369d2"),
        "demographics.csv": ("d9ad717d3a4c4637b203faf71273812a79397fdd81884a54ba90142ad76dd3c8"),
        "visits.csv": ("a7d164c4fe4301da54a0ba5a655503a0814d0bed447b92903b8365ad9634c07f"),
        "export_record.json#stable": (
            "ad953208f32383a8dd32fe0f94c607607623b9e6dbdae59eede7777e35a27bfc"
        ),
    },
    "demo/limited_data_set": {
        "README.txt": ("f091854261d71f35a981c6ef3899fe6fdb262cfe16d6a458ef969b5552095f08"),
        "baseline.csv": ("a0a2f4369ad18a13264a14d46ff3bbdc08c01c8650b06089d4d3325f2db0b350"),
        "data_dictionary.csv": ("96ec541b60c5841ce403477a33bbca7ec0e8572a530a9cb07b5880c8f3c7ebaa"),
        "demographics.csv": ("653e687c1cd5fe522b97e822f7fa6e69c37179c06255ea17567a578c8ac743f6"),
        "visits.csv": ("b9abeab87e68d9e79efa8a82b81e64fc218943d5b276e7ee2869e62c5ae07283"),
        "export_record.json#stable": (
            "0a8a9bd65b6bfefa2396980beb5d735217f80ae8e71dd45ccad82396139adb05"
        ),
    },
    "unmc_crane_2023/safe_harbor": {
        "README.txt": ("710ad6816ac380d9460a27c62216327cca9e99b0593fdc5ef3a0eda01bc72dd5"),
        "conditions.csv": ("1171dba1ca38a088cf3c7ed19558e61237dc93b8f684fbb2849b4e675a01492c"),
        "data_dictionary.csv": ("b08caf76087577ff78218555232c513771ac37ac3191ebb86b98a7f698a8c377"),
        "encounters.csv": ("371e2135f24d7a5c8d8aca2ecad8703a092edbd7c9566404f9fcae5f36ffdf95"),
        "medications.csv": ("9336fda424da58148e5ddbed1e6270fc8cf284dccc8a3ee59eb9eb7293931898"),
        "patients.csv": ("4a3571314cb79eb4e30b8050c17dcb0377e323ecd4f34ba1e232666aa05f8623"),
        "export_record.json#stable": (
            "44867577b2285c016032c61f6d6a9d743974955ab887810997f83b479f1c0e0f"
        ),
    },
    "unmc_crane_2023/linkable": {
        "README.txt": ("e329bc315808362905b0c027a358a149b955169ec6700fdaaf8fac4244dfe0e2"),
        "conditions.csv": ("4542e5f4490fd3a9faf6c62ad917d7a0454507b178bd7eeeeff639b841f55c59"),
        "data_dictionary.csv": ("92eef8cce2b575c3cbd5aa9be678053ffd9b9459b02f3ec2a483477d07f12ebb"),
        "encounters.csv": ("67a8e368a9082dad8969d722d66f03a055a79a7ec8333717af936cd813f2969b"),
        "medications.csv": ("a76abded4101754d3fe1b96e16d0d494e1fd4e808f58f5a1d9942c8383f2bab0"),
        "patients.csv": ("a3e0b38a5dbc7e1a0e95af31182d5f36e153127ca619ad89ecfa4e4f3d08e86c"),
        "export_record.json#stable": (
            "a31c7359adffa717ba50a5ceb57e02826177a5c7163c116b832808ff62f753cf"
        ),
    },
    "unmc_crane_2023/limited_data_set": {
        "README.txt": ("ee67db21a55c2bab9a54c82aacaa04778d99c0e932d6de60cf45e3e4319b8d0e"),
        "conditions.csv": ("17f16e1a10570b145995ceb39b2548e261ee1a2df9827b830ea2b5173c3fe7c0"),
        "data_dictionary.csv": ("442dd976f639d60de4c67593e2935775df1314ba8140198152061dd0e5529f8a"),
        "encounters.csv": ("ebface18d205fd7aab0c50b99fbb6f90bc7cfe587690ad65fe95fc551f8465a6"),
        "medications.csv": ("e16d8d724e989ddcab7248a800e04fdd2ac911b6bb71c5cbd41d7cd5dff6d564"),
        "patients.csv": ("2351eac5b7da515839de629c9ebdbd381b00553c74970782ae441896dc1aae7e"),
        "export_record.json#stable": (
            "0750750b43f593c41c65611e2a9afe77529cbb36a56551bce7260569ed797842"
        ),
    },
    "ds4biomed_apr2020/safe_harbor": {
        "README.txt": ("d40b2c507785726a7625b102a7a424d2a8f3015dbdc304d5ce5f134ff1848600"),
        "conditions.csv": ("03ec2d2adeec177738fbd0d3bc0d7d104469483a845ab00f51ddac7d32253aee"),
        "data_dictionary.csv": ("c2a0fd320c6557b2396d3125aa2f8084cd5ae865268c3aede733b52e179922be"),
        "immunizations.csv": ("541ec98d9ef14ca97bcd814e641e1497a7894972baf79f9ab05bb23a3946a82d"),
        "patients.csv": ("26e3503ce92239b285e59620a07b6975f20de41f097890a8fcec3cfd21d180c0"),
        "export_record.json#stable": (
            "3601cca3ba9f905e419f9bd3c7ff63f0edcaa4a825b41ac8ed310575a83ce6f4"
        ),
    },
    "ds4biomed_apr2020/linkable": {
        "README.txt": ("67d153c78018bba4575468a4b59775363eefe064dff86d19d426eb1c76d67e3a"),
        "conditions.csv": ("5df6bc42c37baac51a30722a28e1ea0000533e1173ed07d457c8a9a192a0c7cf"),
        "data_dictionary.csv": ("f92fc6bc870e43d57621dd8644040c49c2c47290d2f0ea2e9c7e51e0dae2b09b"),
        "immunizations.csv": ("bebd33947b5f2cba9b2f49648ce5c0f558700c7cc953b2148ed9c72f32c1f25b"),
        "patients.csv": ("1a052654633f092f45d61731e37381e1942b9681bcae9409843a0873dff3e2b1"),
        "export_record.json#stable": (
            "fa1398d715bfe3003d26cebcabc07fac3cdefc2b63a6d99caaf04938e76861c2"
        ),
    },
    "ds4biomed_apr2020/limited_data_set": {
        "README.txt": ("1c14b7ce3692d9acd2e549c915854c1bb4faf7663dc0f3f57dbeec1f986fefbc"),
        "conditions.csv": ("dc7c4170b9bce484f216265c1d5e43f62e6db5ae5785924d6fd0e8e8ab947b50"),
        "data_dictionary.csv": ("6b45d2455f6c8fc38934d5fcab76e6618e4db32ad631e1f4c9891edc830ae9fa"),
        "immunizations.csv": ("71acdd5978ce7be75fda9d4f86254ab75fa2bf000fef7b99597824fcf91d0d5f"),
        "patients.csv": ("02fcd6020be808607b019f13bd2afb2364d3260641429d43f2a3b49ecffc87fe"),
        "export_record.json#stable": (
            "a3b1ac63f3dc1b88618646cb341295ec2c176014d837b6a21c1ce8384921d874"
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
