"""The release transaction's journal, the start-up recovery and the staging sweep, in
process (the subprocess SIGKILL tests are in tests/e2e/test_crash_kill.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from deid_desktop.cli import main
from deid_desktop.core import transaction
from deid_desktop.core.register import read_register, register_line
from deid_desktop.core.shred import remove_tree, shred_file
from deid_desktop.core.transaction import (
    ReleaseTransaction,
    recover_pending,
    sweep_staging,
)


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _txn(tmp_path: Path, **kw: object) -> ReleaseTransaction:
    return ReleaseTransaction(
        [tmp_path / "out" / "rel", tmp_path / "secret" / "xw"],
        private=[False, True],
        register=tmp_path / "reg" / "register.jsonl",
        journal_folder=tmp_path / "journal",
        **kw,  # type: ignore[arg-type]
    )


def _crash(txn: ReleaseTransaction) -> None:
    """What a kill leaves: the process's lock is gone, nothing was tidied."""
    txn._release_lock()


def test_journal_names_the_staging_folders_before_they_exist(tmp_path: Path, monkeypatch) -> None:
    seen: list[dict] = []
    real_open = transaction.StagedDirectory.open

    def open_(self):  # type: ignore[no-untyped-def]
        (journal,) = (tmp_path / "journal").glob("*.json")
        seen.append(json.loads(journal.read_text()))
        return real_open(self)

    monkeypatch.setattr(transaction.StagedDirectory, "open", open_)
    txn = _txn(tmp_path).begin()
    assert [j["state"] for j in seen] == ["staging", "staging"]
    assert [f["staging"] for f in seen[0]["folders"]] == [str(f.path) for f in txn.folders]
    assert seen[0]["folders"][1]["private"] is True
    text = json.dumps(seen[0])
    assert set(seen[0]) == {
        "format",
        "id",
        "started_utc",
        "state",
        "folders",
        "register",
        "pending",
    }
    assert "crosswalk" not in text  # paths and a state only
    txn.abort()
    assert _tree(tmp_path) == {"journal"}  # created parents removed too


def test_a_crash_while_staging_is_undone_at_the_next_start(tmp_path: Path) -> None:
    txn = _txn(tmp_path).begin()
    txn.folders[0].write_text("a.csv", "released\n")
    txn.folders[1].write_text("crosswalk.csv", "id,key\n")
    _crash(txn)
    told: list[str] = []
    assert recover_pending(told.append, tmp_path / "journal") == 1
    assert len(told) == 1 and "was undone: nothing of it was kept" in told[0]
    assert "crosswalk parts overwritten first" in told[0]
    assert _tree(tmp_path) == {"journal"}
    assert recover_pending(told.append, tmp_path / "journal") == 0  # once only


def test_a_crash_after_the_commit_point_is_rolled_forward(tmp_path: Path, monkeypatch) -> None:
    txn = _txn(tmp_path).begin()
    txn.folders[0].write_text("a.csv", "released\n")
    txn.folders[1].write_text("crosswalk.csv", "id,key\n")

    class Kill(BaseException):
        pass

    def killed(label: str) -> None:
        if label == "folder moved into place":
            raise Kill

    monkeypatch.setattr(transaction, "fault_point", killed)
    # a kill runs no handler: no "rollback" state, no tidying
    monkeypatch.setattr(ReleaseTransaction, "abort", _crash)
    real_save = ReleaseTransaction._save
    monkeypatch.setattr(
        ReleaseTransaction, "_save", lambda self, st: st != "rollback" and real_save(self, st)
    )
    with pytest.raises(Kill):
        txn.commit(register_line({"n": 1}, txn.id))
    monkeypatch.undo()
    assert (tmp_path / "out" / "rel").is_dir() and not (tmp_path / "secret" / "xw").exists()
    told: list[str] = []
    assert recover_pending(told.append, tmp_path / "journal") == 1
    assert "was completed" in told[0] and "recorded in the register" in told[0]
    assert (tmp_path / "secret" / "xw" / "crosswalk.csv").read_text() == "id,key\n"
    assert read_register(tmp_path / "reg" / "register.jsonl") == [{"n": 1}]
    assert _tree(tmp_path) == {
        "journal", "out", "out/rel", "out/rel/a.csv", "secret", "secret/xw",
        "secret/xw/crosswalk.csv", "reg", "reg/register.jsonl",
    }  # fmt: skip


def test_a_running_export_is_left_alone(tmp_path: Path) -> None:
    txn = _txn(tmp_path).begin()
    told: list[str] = []
    assert recover_pending(told.append, tmp_path / "journal") == 0 and told == []
    assert (
        sweep_staging([tmp_path / "out", tmp_path / "secret"], told.append, tmp_path / "journal")
        == 0
    )
    assert all(f.path.is_dir() for f in txn.folders)
    txn.commit(None)
    assert (tmp_path / "out" / "rel").is_dir()


def test_a_failed_commit_puts_an_earlier_release_back(tmp_path: Path, monkeypatch) -> None:
    first = _txn(tmp_path).begin()
    first.folders[0].write_text("a.csv", "old\n")
    first.folders[1].write_text("x.csv", "old\n")
    first.commit(register_line({"n": 1}, first.id))
    before = {p: (tmp_path / p).read_bytes() for p in _tree(tmp_path) if (tmp_path / p).is_file()}

    def no_space(*_a: object) -> None:
        raise OSError(28, "No space left on device")

    second = ReleaseTransaction(
        [tmp_path / "out" / "rel", tmp_path / "secret" / "xw"],
        overwrite=True,
        private=[False, True],
        register=tmp_path / "reg" / "register.jsonl",
        journal_folder=tmp_path / "journal",
    ).begin()
    second.folders[0].write_text("a.csv", "new\n")
    second.folders[1].write_text("x.csv", "new\n")
    monkeypatch.setattr(transaction, "append_line", no_space)
    with pytest.raises(OSError):
        second.commit(register_line({"n": 2}, second.id))
    after = {p: (tmp_path / p).read_bytes() for p in _tree(tmp_path) if (tmp_path / p).is_file()}
    assert after == before


def test_orphan_staging_folders_are_shredded_and_removed(tmp_path: Path) -> None:
    orphan = tmp_path / "out" / ".deid-staging-rel-0123456789ab"
    orphan.mkdir(parents=True)
    (orphan / "crosswalk-DO-NOT-DISCLOSE.csv").write_text("id,key\n")
    keep = tmp_path / "out" / "other"
    keep.mkdir()
    told: list[str] = []
    n = sweep_staging([tmp_path / "out", tmp_path / "missing"], told.append, tmp_path / "j")
    assert n == 1 and not orphan.exists() and keep.is_dir()
    assert told == [
        f"Removed 1 unfinished export folder left by an interrupted export in "
        f"{tmp_path / 'out'} (files overwritten first)."
    ]


def test_a_run_removes_orphan_staging_beside_its_folders(
    tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--out", str(tmp_path / "demo"), "--rows", "60"]) == 0
    for parent in ("rels", "xws"):
        orphan = tmp_path / parent / ".deid-staging-old-0123456789ab"
        orphan.mkdir(parents=True)
        (orphan / "part.csv").write_text("x\n")
    monkeypatch.setenv("DEID_JOURNAL_DIR", str(tmp_path / "journal"))
    monkeypatch.setenv("DEID_REGISTER", str(tmp_path / "reg.jsonl"))
    capsys.readouterr()
    project = str(tmp_path / "demo" / "demo.deid.json")
    rel, xw = str(tmp_path / "rels" / "r1"), str(tmp_path / "xws" / "x1")
    assert main(["run", project, "--out", rel, "--crosswalk-out", xw]) == 0
    err = capsys.readouterr().err
    assert "Removed 2 unfinished export folders left by an interrupted export" in err
    assert sorted(os.listdir(tmp_path / "rels")) == ["r1"]
    assert sorted(os.listdir(tmp_path / "xws")) == ["x1"]


def test_the_cli_tells_what_it_recovered_at_start(
    tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    txn = _txn(tmp_path).begin()
    _crash(txn)
    monkeypatch.setenv("DEID_JOURNAL_DIR", str(tmp_path / "journal"))
    assert main(["demo", "--out", str(tmp_path / "demo"), "--rows", "60"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("deid: An export interrupted at ") and "was undone" in err
    assert not (tmp_path / "out").exists()


def test_shredding_overwrites_the_bytes_before_unlinking(tmp_path: Path) -> None:
    part = tmp_path / "crosswalk.csv"
    part.write_bytes(b"subject,key\n" * 1000)
    witness = tmp_path / "witness"
    os.link(part, witness)  # a second name for the same blocks
    shred_file(part)
    assert not part.exists()
    assert witness.read_bytes() == bytes(12000)
    folder = tmp_path / "xw"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep" / "a").write_bytes(b"secret")
    os.link(folder / "deep" / "a", tmp_path / "witness2")
    remove_tree(folder, shred=True)
    assert not folder.exists() and (tmp_path / "witness2").read_bytes() == bytes(6)
