"""Atomic writes: the one place the product writes files that must never be half-written.

- ``atomic_write_bytes`` / ``atomic_write_text``: one file. The bytes go to a hidden
  temporary file in the target's own folder, are flushed and fsynced, then renamed over
  the target (``os.replace``), and the folder is fsynced. A crash or an error leaves the
  old file (or nothing), never a torn one.
- ``StagedDirectory``: a whole folder. Every file is written into a hidden staging folder
  beside the target (same parent, so the final rename never crosses file systems); only
  when the ``with`` block ends cleanly is the staging folder fsynced and renamed into
  place. An exception (including ``Cancelled``) inside the block removes the staging
  folder: nothing new remains.
- ``staged_directories``: several folders that appear together or not at all (a release
  and its crosswalk): all are staged; on success all are swapped in, and if one swap or
  the ``on_commit`` hook fails, the ones already swapped are put back.

Temporary names never carry a data value: they are built from the target's own name and
a random token.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType

from deid_desktop.core.errors import UsageError
from deid_desktop.core.shred import remove_tree

STAGING_PREFIX = ".deid-staging-"
OLD_PREFIX = ".deid-replaced-"
_STAGING_PREFIX, _OLD_PREFIX = STAGING_PREFIX, OLD_PREFIX


def fsync_dir(path: Path) -> None:
    """Make a rename inside ``path`` durable. A no-op where folders cannot be opened (Windows)."""
    if os.name == "nt":  # pragma: no cover - Windows has no directory fsync
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_file(path: Path) -> None:
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Read once at import (single-threaded then); new files get the usual 0o666 & ~umask.
_UMASK = _current_umask()


def _mode_for(path: Path) -> int:
    """An existing file keeps its permissions; a new one gets what ``open`` would give."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~_UMASK


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, rename).

    The file keeps its permissions when it already exists; a new file gets the user's
    default (umask), as with ``open``.
    """
    path = Path(path)
    mode = _mode_for(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` atomically. No newline translation: "\\n" stays "\\n" on every platform."""
    atomic_write_bytes(path, text.encode(encoding))


def _is_empty_dir(path: Path, keep: Sequence[str] = ()) -> bool:
    """No entry in ``path`` but the user's own files named in ``keep``."""
    return path.is_dir() and all(p.name in keep and p.is_file() for p in path.iterdir())


def _token() -> str:
    return secrets.token_hex(6)


class StagedDirectory:
    """Build a folder's content out of sight, then make it appear in one rename.

    ``target`` may not exist yet, or be empty. An existing non-empty ``target`` is refused
    (``UsageError``) unless ``overwrite`` is set *and* it holds ``marker`` (a file only the
    product writes, e.g. ``export_record.json``) - so an accidental ``--overwrite`` on a
    home or documents folder can never wipe it. A replaced folder is swapped out whole and
    deleted only after the new one is in place. ``keep``: names of the user's own files
    the folder may hold (the project word list beside a crosswalk): they do not make it
    "not empty", and they are carried into the new folder unchanged.

    Use as a context manager: ``with StagedDirectory(p) as st: st.write_bytes("a.csv", b)``,
    or write into ``st.file("a.csv")`` directly (streaming). Names are plain file names.
    """

    def __init__(
        self,
        target: Path,
        *,
        overwrite: bool = False,
        marker: str | None = None,
        private: bool = False,
        keep: Sequence[str] = (),
    ) -> None:
        self.target = Path(target).absolute()
        self.keep = tuple(keep)
        self.overwrite = overwrite
        self.marker = marker
        self.private = private  # folder readable by its owner only (e.g. a crosswalk)
        parent, name = self.target.parent, self.target.name
        #: where the files are staged and where a replaced folder is parked: chosen now,
        #: so a journal can name them before anything is created
        self.staging_path = parent / f"{_STAGING_PREFIX}{name}-{_token()}"
        self.old_path = parent / f"{_OLD_PREFIX}{name}-{_token()}"
        self._staging: Path | None = None
        self._old: Path | None = None
        self._created_parents: list[Path] = []
        self._swapped = False
        self.check_target()

    # -- checks -----------------------------------------------------------------------
    def check_target(self) -> None:
        """Raise ``UsageError`` if the target cannot be (re)placed. Writes nothing."""
        t = self.target
        if t.exists() and not t.is_dir():
            raise UsageError(
                f"{t} exists and is a file, not a folder.",
                hint="Choose a new folder name for the output.",
            )
        if t.is_dir() and not _is_empty_dir(t, self.keep):
            if not self.overwrite:
                raise UsageError(
                    f"The folder {t} is not empty; nothing was written.",
                    hint="Choose a new or empty folder. Command line: or add --overwrite "
                    "to replace an earlier output of deid-desktop. Desktop app: choose "
                    "another folder.",
                )
            if self.marker is not None and not (t / self.marker).is_file():
                raise UsageError(
                    f"The folder {t} is not empty and was not written by deid-desktop "
                    f"(it has no {self.marker}); it will not be overwritten.",
                    hint="Choose a new or empty folder.",
                )

    # -- staging ----------------------------------------------------------------------
    @property
    def path(self) -> Path:
        """The hidden staging folder files are written into."""
        if self._staging is None:
            raise RuntimeError("StagedDirectory is not open")
        return self._staging

    def missing_parents(self) -> list[Path]:
        """The target's parent folders that do not exist yet, outermost first."""
        missing: list[Path] = []
        p = self.target.parent
        while not p.exists():
            missing.append(p)
            p = p.parent
        return missing[::-1]

    def open(self) -> StagedDirectory:
        for d in self.missing_parents():
            d.mkdir()
            self._created_parents.append(d)
        staging = self.staging_path
        staging.mkdir()  # the user's umask, like any folder they create
        if self.private:
            staging.chmod(0o700)
        self._staging = staging
        for name in self.keep:  # the user's own files stay with the folder
            if (self.target / name).is_file():
                self.write_bytes(name, (self.target / name).read_bytes())
        return self

    def file(self, name: str) -> Path:
        """Path of ``name`` inside the staging folder (a plain file name, no folders)."""
        if not name or Path(name).name != name or name in {".", ".."}:
            raise ValueError(f"not a plain file name: {name!r}")
        return self.path / name

    def write_bytes(self, name: str, data: bytes) -> Path:
        p = self.file(name)
        with open(p, "wb") as fh:
            fh.write(data)
        return p

    def write_text(self, name: str, text: str, *, encoding: str = "utf-8") -> Path:
        return self.write_bytes(name, text.encode(encoding))

    def staged_files(self) -> list[Path]:
        return sorted(p for p in self.path.iterdir() if p.is_file())

    # -- commit -----------------------------------------------------------------------
    def swap(self) -> None:
        """fsync every staged file and the folder, then rename staging -> target."""
        staging = self.path
        for f in self.staged_files():
            fsync_file(f)
        fsync_dir(staging)
        self.check_target()  # the world may have changed since we started
        t = self.target
        if t.is_dir():
            if _is_empty_dir(t):
                t.rmdir()
            else:
                old = self.old_path
                os.rename(t, old)
                self._old = old
        try:
            os.rename(staging, t)
        except BaseException:
            if self._old is not None:
                os.rename(self._old, t)
                self._old = None
            raise
        self._staging = None
        self._swapped = True
        fsync_dir(t.parent)

    def undo(self) -> None:
        """Reverse a ``swap``: the new folder goes away, the replaced one (if any) returns."""
        if not self._swapped:
            return
        t = self.target
        remove_tree(t, shred=self.private)
        if self._old is not None:
            os.rename(self._old, t)
            self._old = None
        self._swapped = False
        if t.parent.exists():
            fsync_dir(t.parent)
        self._remove_created_parents()

    def finalize(self) -> None:
        """Delete the replaced folder, once the new one is in place for good."""
        if self._old is not None:
            remove_tree(self._old, shred=self.private)
            self._old = None

    def discard(self) -> None:
        """Remove everything staged; leave the target as it was."""
        if self._staging is not None:
            remove_tree(self._staging, shred=self.private)  # a crosswalk part: shredded
            self._staging = None
        if not self._swapped:
            self._remove_created_parents()

    def _remove_created_parents(self) -> None:
        for d in reversed(self._created_parents):
            with contextlib.suppress(OSError):
                d.rmdir()  # only if still empty
        self._created_parents.clear()

    def commit(self) -> None:
        self.swap()
        self.finalize()

    def __enter__(self) -> StagedDirectory:
        return self.open()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None:
            self.discard()
            return
        try:
            self.commit()
        except BaseException:
            self.undo()
            self.discard()
            raise


@contextlib.contextmanager
def staged_directories(
    targets: Sequence[Path],
    *,
    overwrite: bool = False,
    markers: Sequence[str | None] | None = None,
    private: Sequence[bool] | None = None,
    on_commit: Callable[[], None] | None = None,
) -> Iterator[list[StagedDirectory]]:
    """Stage several folders that must appear together or not at all.

    Every target is checked before anything is created. After the block: all are swapped
    in, then ``on_commit`` runs (e.g. appending to the register); if any of that fails the
    swapped folders are put back as they were and the error propagates.
    """
    marks = list(markers) if markers is not None else [None] * len(targets)
    privacy = list(private) if private is not None else [False] * len(targets)
    staged = [
        StagedDirectory(t, overwrite=overwrite, marker=m, private=p)
        for t, m, p in zip(targets, marks, privacy, strict=True)
    ]
    opened: list[StagedDirectory] = []
    try:
        for s in staged:
            opened.append(s.open())
        yield staged
    except BaseException:
        for s in reversed(opened):
            s.discard()
        raise
    swapped: list[StagedDirectory] = []
    try:
        for s in staged:
            s.swap()
            swapped.append(s)
        if on_commit is not None:
            on_commit()
    except BaseException:
        for s in reversed(swapped):
            s.undo()
        for s in reversed(staged):
            s.discard()
        raise
    for s in staged:
        s.finalize()
