"""`deid salt` / `deid pathway` / `deid check` / `deid run` for the linkable release, as a
user runs them: demo extract, salt in a keyring, release, crosswalk, record, register,
escrow - and the salt in none of the files the app wrote."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import keyring
import keyring.backends.fail
import pandas as pd
import pytest

from deid_desktop import secrets as salts
from deid_desktop.cli import main
from deid_desktop.core.project import load_project
from tests.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401

PASSPHRASE = "a passphrase long enough"
ROWS = 240


def deid(*args: str | Path) -> int:
    return main([str(a) for a in args])


@pytest.fixture
def demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert deid("demo", "--out", tmp_path / "demo", "--rows", ROWS) == 0
    capsys.readouterr()
    return tmp_path / "demo" / "demo.deid.json"


def _salt_forms(salt: bytes) -> list[bytes]:
    b64 = base64.b64encode(salt)
    url = base64.urlsafe_b64encode(salt)
    return [
        salt,
        salt.hex().encode(),
        salt.hex().upper().encode(),
        b64,
        b64.rstrip(b"="),
        url,
        url.rstrip(b"="),
    ]


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def test_linkable_release_end_to_end_and_the_salt_is_in_no_file(
    memory_keyring: MemoryKeyring,  # noqa: F811
    demo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert deid("pathway", demo, "linkable", "--offset-days", "120", "--json") == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["pathway"] == "linkable" and shown["offset_days"] == 120
    assert shown["salt"] == {"exists": False, "fingerprint": None}
    project = load_project(demo)
    assert project.linkable.offset_days == 120

    # no salt yet: check stops with the hint
    assert deid("check", demo) == 2
    assert "deid salt create" in capsys.readouterr().err

    assert deid("salt", "create", demo, "--json") == 0
    status = json.loads(capsys.readouterr().out)
    salt = salts.get_salt(project.project_id)
    assert status["exists"] is True and status["fingerprint"] == salts.fingerprint(salt)

    assert deid("check", demo, "--json") == 0
    checked = json.loads(capsys.readouterr().out)
    assert "Expert Determination" in json.dumps(checked)

    out, cw, register = tmp_path / "release", tmp_path / "crosswalk", tmp_path / "register.jsonl"
    code = deid(
        "run", demo, "--out", out, "--crosswalk-out", cw, "--register", register,
        "--accept-risk", "test: the residual risk is not under test",
        "--purpose", "linkage study", "--recipient", "analyst", "--retention", "2 years",
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    escrow = tmp_path / "escrow" / "salt.json"
    escrow.parent.mkdir()
    (tmp_path / "pass.txt").write_text(PASSPHRASE + "\n", encoding="utf-8")
    assert deid("salt", "export", demo, "--out", escrow, "--passphrase-file",
                tmp_path / "pass.txt") == 0  # fmt: skip

    # what a user checks: the label, the link keys, the intervals on the demo
    readme = (out / "README.txt").read_text(encoding="utf-8")
    assert "requires Expert Determination" in readme
    assert "anonymous" not in readme.lower()
    record = json.loads((out / "export_record.json").read_text(encoding="utf-8"))
    assert "Expert Determination" in json.dumps(record)
    _assert_intervals_preserved(demo, out, cw)

    # the salt: in no file the app wrote (release, crosswalk, project, record, register)
    written = [*_files(out), *_files(cw), demo, register]
    assert len(written) >= 8
    forms = _salt_forms(salt)
    for path in written:
        data = path.read_bytes()
        for form in forms:
            assert form not in data, f"salt found in {path.name}"
    # the escrow file holds it only encrypted
    escrow_bytes = escrow.read_bytes()
    assert not any(form in escrow_bytes for form in forms)


def _assert_intervals_preserved(project_path: Path, out: Path, cw_dir: Path) -> None:
    """Every date of every person moved by one offset, in all three demo tables."""
    src = project_path.parent
    crosswalk = pd.read_csv(next(cw_dir.glob("crosswalk*.csv")), dtype=str)
    key = "patient_id"
    to_link = dict(zip(crosswalk[key], crosswalk["link_key"], strict=True))
    deltas: list[pd.DataFrame] = []
    for table, column in (
        ("demographics", "dob"),
        ("baseline", "discharge_date"),
        ("visits", "visit_date"),
    ):
        before = pd.read_csv(src / f"{table}.csv", dtype=str)
        after = pd.read_csv(out / f"{table}.csv", dtype=str)
        before["link_key"] = before[key].map(to_link)
        before = before.sort_values("link_key", kind="stable").reset_index(drop=True)
        assert before["link_key"].tolist() == after["link_key"].tolist()
        fmt = "%m/%d/%Y" if before[column].dropna().str.contains("/").any() else "%Y-%m-%d"
        b = pd.to_datetime(before[column], format=fmt)
        a = pd.to_datetime(after[column], format="%Y-%m-%d")
        both = b.notna() & a.notna()
        deltas.append(pd.DataFrame({"k": after["link_key"][both], "d": (a - b)[both].dt.days}))
    frame = pd.concat(deltas)
    per_person = frame.groupby("k")["d"].nunique()
    assert (per_person == 1).all()
    assert (frame["d"] != 0).all() and frame["d"].abs().max() <= 120
    assert frame.groupby("k")["d"].first().nunique() > 50


def test_no_keyring_gives_the_plain_message(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        assert deid("salt", "status", demo) == 4
        err = capsys.readouterr().err
        assert "No usable keyring" in err and "gnome-keyring" in err
        assert deid("pathway", demo, "linkable") == 0  # choosing it still works, with a warning
        assert "No usable keyring" in capsys.readouterr().out
        assert deid("check", demo) == 4
        err = capsys.readouterr().err
        assert "No usable keyring" in err and "Traceback" not in err
    finally:
        keyring.set_keyring(previous)


def test_rotate_needs_yes_and_warns(
    memory_keyring: MemoryKeyring,  # noqa: F811
    demo: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert deid("salt", "create", demo, "--json") == 0
    before = json.loads(capsys.readouterr().out)["fingerprint"]
    assert deid("salt", "rotate", demo) == 2
    assert "linkage with every earlier release" in capsys.readouterr().err
    assert deid("salt", "rotate", demo, "--yes", "--json") == 0
    captured = capsys.readouterr()
    assert "warning" in captured.err and "broken" in captured.err
    assert json.loads(captured.out)["fingerprint"] != before


def test_escrow_round_trip_and_wrong_passphrase(
    memory_keyring: MemoryKeyring,  # noqa: F811
    demo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert deid("salt", "create", demo, "--json") == 0
    fp = json.loads(capsys.readouterr().out)["fingerprint"]
    escrow = tmp_path / "salt.escrow.json"
    monkeypatch.setenv("DEID_PASSPHRASE", PASSPHRASE)
    assert deid("salt", "export", demo, "--out", escrow) == 0
    assert fp in capsys.readouterr().out
    memory_keyring.store.clear()  # another workstation

    monkeypatch.setenv("DEID_PASSPHRASE", "not the passphrase")
    assert deid("salt", "import", demo, escrow) == 4
    err = capsys.readouterr().err
    assert "passphrase does not open" in err and "Traceback" not in err
    assert memory_keyring.store == {}

    monkeypatch.setenv("DEID_PASSPHRASE", PASSPHRASE)
    assert deid("salt", "import", demo, escrow, "--json") == 0
    assert json.loads(capsys.readouterr().out)["fingerprint"] == fp
    assert deid("salt", "status", demo) == 0
    assert fp in capsys.readouterr().out


def test_passphrase_is_never_read_from_a_pipe_prompt(
    memory_keyring: MemoryKeyring,  # noqa: F811
    demo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DEID_PASSPHRASE", raising=False)
    assert deid("salt", "create", demo) == 0
    assert deid("salt", "export", demo, "--out", tmp_path / "e.json") == 2
    assert "--passphrase-file" in capsys.readouterr().err
    assert not (tmp_path / "e.json").exists()


def test_pathway_limited_data_set_needs_a_dua(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert deid("pathway", demo, "limited-data-set") == 0
    assert "data use agreement" in capsys.readouterr().out
    assert deid("check", demo) == 3  # dua_present fails: nothing may go out
    assert "dua" in capsys.readouterr().out.lower()
    assert deid("pathway", demo, "limited-data-set", "--dua", "DUA-2026-01", "--json") == 0
    assert json.loads(capsys.readouterr().out)["dua"] == "DUA-2026-01"
    out = tmp_path / "lds"
    capsys.readouterr()
    # k is below the target: a limited data set goes out only with an accepted reason
    assert deid("run", demo, "--out", out, "--crosswalk-out", tmp_path / "cw",
                "--register", tmp_path / "reg.jsonl") == 3  # fmt: skip
    assert '--accept-risk "REASON"' in capsys.readouterr().err
    assert not out.exists()
    assert deid("run", demo, "--out", out, "--crosswalk-out", tmp_path / "cw",
                "--register", tmp_path / "reg.jsonl",
                "--accept-risk", "recipient's enclave only") == 0  # fmt: skip
    record = json.loads((out / "export_record.json").read_text(encoding="utf-8"))
    assert record["verdict"]["risk_accepted"]["reason"] == "recipient's enclave only"
    assert record["verdict"]["headline"] in (out / "README.txt").read_text(encoding="utf-8")
    demographics = pd.read_csv(out / "demographics.csv", dtype=str)
    assert "dob" in demographics.columns and "zip" in demographics.columns
    assert "mrn" not in demographics.columns and "first_name" not in demographics.columns
    assert "data use agreement required" in (out / "README.txt").read_text(encoding="utf-8")


def test_bad_pathway_options_are_usage_errors(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert deid("pathway", demo, "linkable", "--offset-days", "0") == 2
    assert deid("pathway", demo, "linkable", "--key-length", "8") == 2
    assert deid("pathway", demo, "linkable", "--age-reference", "31/12/2024") == 2
    assert load_project(demo).pathway.value == "safe_harbor"  # nothing saved
    capsys.readouterr()
    assert deid("pathway", demo, "safe-harbor", "--age-reference", "2024-12-31", "--json") == 0
    assert json.loads(capsys.readouterr().out)["age_reference"] == "2024-12-31"
    assert load_project(demo).transform.age_reference == "2024-12-31"


_BUILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from pathlib import Path
    from dataclasses import replace
    from deid_desktop.core import engine
    from deid_desktop.core.model import LoadedTable, Extract
    from deid_desktop.core.pathways import build_release

    salt = bytes.fromhex(sys.stdin.readline().strip())  # the core receives bytes
    path, subset = Path(sys.argv[1]), sys.argv[2] == "subset"
    project, _ = engine.open_project(path)
    extract = engine.load(project, path)
    if subset:  # a later extract: persons in another order, one in three left out
        person = extract.person.frame
        keep = np.random.default_rng(7).permutation(len(person))
        keep = keep[keep % 3 != 0]
        frame = person.iloc[keep].reset_index(drop=True)
        kept_ids = set(frame["patient_id"])
        events = tuple(
            replace(t, frame=t.frame[t.frame["patient_id"].isin(kept_ids)].reset_index(drop=True))
            for t in extract.events
        )
        extract = Extract(replace(extract.person, frame=frame), events)
    release = build_release(extract, project, salt=salt)
    cw = release.crosswalk
    dob = release.tables["demographics"].set_index("link_key")["dob"].astype(object)
    dob = dob.where(dob.notna(), None).to_dict()
    out = {pid: [key, dob[key]] for pid, key in zip(cw["patient_id"], cw["link_key"])}
    print(json.dumps(out))
    """
)


def test_keys_and_shifts_are_stable_across_extracts_made_in_separate_processes(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert deid("pathway", demo, "linkable") == 0
    salt = os.urandom(32)

    def build(kind: str) -> dict[str, list[str | None]]:
        done = subprocess.run(
            [sys.executable, "-c", _BUILD, str(demo), kind],
            input=salt.hex() + "\n",
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "random"},
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout)

    first, later = build("full"), build("subset")
    assert len(first) == ROWS and 0 < len(later) < ROWS
    for pid, (key, dob) in later.items():
        assert first[pid][0] == key  # same person, same link key
        assert first[pid][1] == dob  # same keyed shift in the later extract
    assert len({k for k, _ in first.values()}) == ROWS
    assert salt.hex() not in json.dumps(first)


@pytest.mark.keyring
@pytest.mark.skipif(
    os.environ.get("DEID_REAL_KEYRING") != "1",
    reason="needs a real Secret Service: run via scripts/test (private D-Bus session)",
)
def test_linkable_run_with_the_real_secret_service(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import keyring.core

    keyring.core.init_backend()
    project = load_project(demo)
    try:
        assert deid("pathway", demo, "linkable") == 0
        assert deid("salt", "create", demo) == 0
        assert "SecretService" in capsys.readouterr().out.replace(" ", "")
        assert deid("run", demo, "--out", tmp_path / "rel", "--crosswalk-out",
                    tmp_path / "cw", "--register", tmp_path / "reg.jsonl",
                    "--accept-risk", "test") == 0  # fmt: skip
        salt = salts.get_salt(project.project_id)
        for path in [*_files(tmp_path / "rel"), *_files(tmp_path / "cw"), demo]:
            data = path.read_bytes()
            assert not any(form in data for form in _salt_forms(salt)), path.name
    finally:
        keyring.delete_password(salts.SERVICE, project.project_id)
