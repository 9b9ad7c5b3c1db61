"""A release is one transaction: its folders and its register entry, all or nothing.

``ReleaseTransaction`` stages each folder (release, crosswalk) beside its target, like
``StagedDirectory``, and keeps a small *journal* - paths and a state, never a data value
- in the journal folder (``DEID_JOURNAL_DIR``, else ``<user data folder>/journal``):

1. ``begin``: the journal (state ``staging``) is written and fsynced *before* any
   staging folder is created, so it always knows where they are.
2. the caller writes every file into the staging folders.
3. ``commit(line)``: every staged file and folder is fsynced; the register line is
   written to a pending file beside the register and fsynced (a full disk fails here,
   before anything is committed); the journal turns to ``commit`` (the point of no
   return); then each folder is renamed into place (a replaced folder parked aside)
   and the line appended to the register; last the parked folders are removed
   (crosswalks shredded) and the journal deleted.

A failure before the register append puts everything back as it was (journal state
``rollback`` while it does). A crash anywhere is repaired by :func:`recover_pending` at
the next start of the app or the CLI: a ``staging`` or ``rollback`` journal is rolled
back (staging folders removed, crosswalk parts shredded first, replaced folders
returned); a ``commit`` journal is rolled forward (the remaining renames done and the
register entry appended once). Each recovery is told in one plain sentence.

A running export holds an exclusive lock on its journal's lock file, so another process
starting meanwhile never touches it. :func:`sweep_staging` removes staging folders no
journal knows of (left by a crash of an older version) in the folders a run writes to.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import platformdirs

from deid_desktop.core.atomic import (
    STAGING_PREFIX,
    StagedDirectory,
    atomic_write_bytes,
    fsync_dir,
    fsync_file,
)
from deid_desktop.core.faults import fault_point
from deid_desktop.core.register import append_line, has_transaction
from deid_desktop.core.shred import remove_tree

JOURNAL_ENV = "DEID_JOURNAL_DIR"
JOURNAL_FORMAT = "deid-desktop export journal v1"
STAGING, COMMIT, ROLLBACK = "staging", "commit", "rollback"

Journal = dict[str, Any]
Tell = Callable[[str], None]


def journal_dir() -> Path:
    """Where export journals live: ``DEID_JOURNAL_DIR``, else the user data folder."""
    env = os.environ.get(JOURNAL_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("deid-desktop", appauthor=False)) / "journal"


# -- locks: a live export's journal is never recovered by another process ---------------


def _try_lock(fd: int) -> bool:
    if os.name == "nt":  # pragma: no cover - Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[bool]:
    """Yield True when the journal's owner is gone (the lock could be taken)."""
    try:
        fd = os.open(lock_path, os.O_RDWR)
    except FileNotFoundError:
        yield True  # the owner removes its lock file last: it is gone
        return
    try:
        yield _try_lock(fd)
    finally:
        os.close(fd)


# -- the steps shared by an export in progress and by recovery ---------------------------


def _identity(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_dev, st.st_ino]


def _is_ours(path: Path, ident: Sequence[int] | None) -> bool:
    """Whether ``path`` is the folder that was staged (rename keeps device and inode)."""
    return ident is not None and path.is_dir() and _identity(path) == list(ident)


def _write_journal(path: Path, journal: Journal) -> None:
    atomic_write_bytes(path, (json.dumps(journal, indent=1, sort_keys=True) + "\n").encode())


def _remove_parents(folders: Iterable[str]) -> None:
    for d in reversed(list(folders)):
        with contextlib.suppress(OSError):
            Path(d).rmdir()  # only if still empty


def _roll_forward(journal: Journal, *, check_register: bool = True) -> None:
    """Do the renames still to do, then append the register line once. Idempotent."""
    for f in journal["folders"]:
        staging, target, old = Path(f["staging"]), Path(f["target"]), Path(f["old"])
        if not staging.is_dir():
            if not _is_ours(target, f.get("staged_id")):
                raise OSError(f"the staged folder for {target} is missing")
            continue  # already in place
        if target.exists() or target.is_symlink():
            if target.is_dir() and not any(target.iterdir()):
                target.rmdir()
            elif old.exists():
                raise OSError(f"{target} is in the way and cannot be moved aside")
            else:
                os.rename(target, old)
                fault_point("earlier folder moved aside")
        os.rename(staging, target)
        fsync_dir(target.parent)
        fault_point("folder moved into place")
    register, pending = journal.get("register"), journal.get("pending")
    if register and pending:
        if not (check_register and has_transaction(Path(register), journal["id"])):
            append_line(Path(register), Path(pending).read_bytes())
        fault_point("register entry appended")


def _roll_back(journal: Journal) -> None:
    """Put every folder back as it was and remove what was staged (crosswalks shredded)."""
    for f in reversed(journal["folders"]):
        staging, target, old = Path(f["staging"]), Path(f["target"]), Path(f["old"])
        private = bool(f.get("private"))
        if _is_ours(target, f.get("staged_id")):
            if staging.exists():
                remove_tree(target, shred=private)
            else:
                os.rename(target, staging)
        if old.exists() and not target.exists():
            os.rename(old, target)
        remove_tree(staging, shred=private)
        if staging.exists():
            raise OSError(f"the unfinished folder {staging} could not be removed")
        if target.parent.exists():
            fsync_dir(target.parent)
        _remove_parents(f.get("created", []))
    pending = journal.get("pending")
    if pending:
        with contextlib.suppress(FileNotFoundError):
            Path(pending).unlink()
    _remove_parents(journal.get("register_created", []))


def _finish(journal: Journal, journal_path: Path) -> None:
    """After the commit: remove parked folders (shredding crosswalks) and the journal."""
    for f in journal["folders"]:
        old = Path(f["old"])
        if old.exists():
            remove_tree(old, shred=bool(f.get("private")))
            fault_point("earlier folder removed")
    pending = journal.get("pending")
    if pending:
        with contextlib.suppress(FileNotFoundError):
            Path(pending).unlink()
    journal_path.unlink(missing_ok=True)
    fault_point("journal removed")


# -- an export in progress ----------------------------------------------------------------


class ReleaseTransaction:
    """Stage ``targets`` and commit them with one register line; see the module doc.

    ``folders[i]`` is the ``StagedDirectory`` of ``targets[i]`` (write files through it).
    Every target is checked (``UsageError``) before anything is created.
    """

    def __init__(
        self,
        targets: Sequence[Path],
        *,
        overwrite: bool = False,
        markers: Sequence[str | None] | None = None,
        private: Sequence[bool] | None = None,
        register: Path | None = None,
        journal_folder: Path | None = None,
        keep: Sequence[Sequence[str]] | None = None,
    ) -> None:
        marks = list(markers) if markers is not None else [None] * len(targets)
        privacy = list(private) if private is not None else [False] * len(targets)
        kept = list(keep) if keep is not None else [()] * len(targets)
        self.folders = [
            StagedDirectory(t, overwrite=overwrite, marker=m, private=p, keep=k)
            for t, m, p, k in zip(targets, marks, privacy, kept, strict=True)
        ]
        self.id = secrets.token_hex(12)
        self.register = None if register is None else Path(register).absolute()
        self.pending = (
            None
            if self.register is None
            else self.register.parent / f".{self.register.name}.pending-{self.id}"
        )
        self.journal_folder = Path(journal_folder or journal_dir()).absolute()
        self.journal_path = self.journal_folder / f"{self.id}.json"
        self.lock_path = self.journal_folder / f"{self.id}.lock"
        self._lock_fd: int | None = None
        self._journal: Journal = {}
        self._created: list[list[Path]] = [[] for _ in self.folders]

    # -- journal --------------------------------------------------------------------------
    def _save(self, state: str) -> None:
        self._journal["state"] = state
        _write_journal(self.journal_path, self._journal)

    def begin(self) -> ReleaseTransaction:
        """Write the journal (it names every folder to come), then create the staging folders."""
        self.journal_folder.mkdir(parents=True, exist_ok=True)
        self._lock_fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        _try_lock(self._lock_fd)
        self._created = [f.missing_parents() for f in self.folders]
        self._journal = {
            "format": JOURNAL_FORMAT,
            "id": self.id,
            "started_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "folders": [
                {
                    "target": str(f.target),
                    "staging": str(f.staging_path),
                    "old": str(f.old_path),
                    "private": f.private,
                    "created": [str(d) for d in created],
                }
                for f, created in zip(self.folders, self._created, strict=True)
            ],
            "register": None if self.register is None else str(self.register),
            "pending": None if self.pending is None else str(self.pending),
        }
        self._save(STAGING)
        fault_point("journal written")
        for f in self.folders:
            f.open()
            fault_point("staging folder created")
        return self

    def commit(self, line: bytes | None = None) -> None:
        """Make the staged folders and the register ``line`` appear together.

        Before the journal says ``commit`` a failure rolls back (``abort``); after it, a
        failure of a rename or of the register append is rolled back here, in process.
        """
        for f in self.folders:
            for p in f.staged_files():
                fsync_file(p)
            fsync_dir(f.path)
            fault_point("staged folder synced")
        if self.pending is not None and line is not None:
            folder = self.pending.parent
            missing = [d for d in (folder, *folder.parents) if not d.exists()][::-1]
            self._journal["register_created"] = [str(d) for d in missing]
            _write_journal(self.journal_path, self._journal)  # before the folders appear
            self.pending.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.pending, line)
            fault_point("register entry prepared")
        else:
            self._journal["pending"] = None
        for f in self.folders:
            f.check_target()  # the world may have changed since we started
        self._journal["folders"] = [
            {**j, "staged_id": _identity(f.path)}
            for j, f in zip(self._journal["folders"], self.folders, strict=True)
        ]
        self._save(COMMIT)
        fault_point("journal says commit")
        try:
            _roll_forward(self._journal, check_register=False)
        except BaseException:
            with contextlib.suppress(OSError):
                self._save(ROLLBACK)
            self.abort()
            raise
        for f in self.folders:
            f._staging = None  # moved into place
        with contextlib.suppress(OSError):  # committed: what is left is tidying up
            _finish(self._journal, self.journal_path)
        self._close()

    def abort(self) -> None:
        """Put everything back as it was (crosswalk parts shredded). Never raises: if that
        cannot be done now, the journal stays for the recovery at the next start."""
        try:
            if self._journal:
                _roll_back(self._journal)
            else:
                for f in self.folders:
                    f.discard()
        except OSError:
            self._release_lock()
            return
        self._close()

    def _release_lock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _close(self) -> None:
        for f in self.folders:
            f._staging = None
        if self._journal:
            self.journal_path.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                fsync_dir(self.journal_folder)
        if self._lock_fd is not None:
            self._release_lock()
            self.lock_path.unlink(missing_ok=True)
        self._journal = {}


# -- recovery at start ----------------------------------------------------------------------


def _read_journal(path: Path) -> Journal | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != JOURNAL_FORMAT:
        return None
    return doc


def _when(journal: Journal) -> str:
    started = str(journal.get("started_utc", ""))
    return started.replace("T", " ").replace("+00:00", " UTC") or "an unknown time"


def _folders_text(journal: Journal) -> str:
    return " and ".join(str(f["target"]) for f in journal["folders"])


def _journals(folder: Path) -> list[Path]:
    try:
        return sorted(folder.glob("*.json"))
    except OSError:
        return []


def recover_pending(tell: Tell, journal_folder: Path | None = None) -> int:
    """Finish or undo every export a crash interrupted; ``tell`` one sentence for each.

    Run once at the start of the app and of the CLI. Journals of exports still running
    (locked) are left alone. Never raises: a recovery that cannot be done now is told
    and tried again at the next start. Returns how many exports were recovered.
    """
    folder = Path(journal_folder or journal_dir())
    done = 0
    for path in _journals(folder):
        lock = path.with_suffix(".lock")
        with _locked(lock) as gone:
            if not gone:
                continue
            journal = _read_journal(path)
            if journal is None:
                if path.exists():
                    tell(f"An export journal could not be read and was left as it is: {path}.")
                continue
            try:
                done += _recover_one(journal, path, tell)
            except OSError as exc:
                tell(
                    f"An export interrupted at {_when(journal)} ({_folders_text(journal)}) "
                    f"could not be repaired now ({exc.strerror or exc}); this will be tried "
                    "again at the next start."
                )
                continue
        lock.unlink(missing_ok=True)
    return done


def _recover_one(journal: Journal, path: Path, tell: Tell) -> int:
    state = journal.get("state")
    register, txn = journal.get("register"), str(journal.get("id", ""))
    committed = state == COMMIT or (
        state == ROLLBACK and bool(register) and has_transaction(Path(register), txn)
    )
    where = _folders_text(journal)
    if committed:
        _roll_forward(journal)
        _finish(journal, path)
        tell(
            f"An export interrupted at {_when(journal)} was completed: {where} "
            f"{'are' if len(journal['folders']) > 1 else 'is'} in place"
            + (" and recorded in the register." if register else ".")
        )
        return 1
    _roll_back(journal)
    path.unlink(missing_ok=True)
    shredded = any(f.get("private") for f in journal["folders"])
    tell(
        f"An export interrupted at {_when(journal)} was undone: nothing of it was kept "
        f"in {where}; its unfinished files were removed"
        + (" (crosswalk parts overwritten first)." if shredded else ".")
    )
    return 1


def _journaled_paths(folder: Path) -> set[Path]:
    """Staging folders named by any journal (running or waiting for recovery)."""
    paths: set[Path] = set()
    for path in _journals(folder):
        journal = _read_journal(path)
        for f in (journal or {}).get("folders", []):
            paths.add(Path(f["staging"]))
    return paths


def sweep_staging(parents: Iterable[Path], tell: Tell, journal_folder: Path | None = None) -> int:
    """Remove staging folders that no journal knows of in ``parents`` (files shredded).

    They are remnants of a crash before journals existed (or of a lost journal); any
    of them may hold a crosswalk part, so every file is overwritten before deletion.
    """
    known = _journaled_paths(Path(journal_folder or journal_dir()))
    removed: list[Path] = []
    for parent in dict.fromkeys(Path(p) for p in parents):
        try:
            children = list(parent.iterdir()) if parent.is_dir() else []
        except OSError:
            continue
        for child in children:
            if child.name.startswith(STAGING_PREFIX) and child.is_dir() and child not in known:
                remove_tree(child, shred=True)
                if not child.exists():
                    removed.append(child)
    if removed:
        n = len(removed)
        tell(
            f"Removed {n} unfinished export folder{'s' if n != 1 else ''} left by an "
            f"interrupted export in {', '.join(sorted({str(p.parent) for p in removed}))} "
            "(files overwritten first)."
        )
    return len(removed)
