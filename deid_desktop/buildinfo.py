"""Which build this is: the version, and the git commit it was built from.

The commit is read, in order, from:

1. ``BUILD_COMMIT`` beside this module: written at build time (build.spec puts it in the
   bundle), so the frozen app never runs a subprocess to learn it;
2. HEAD read from git's files when this module sits in a git checkout (development,
   tests), with no subprocess; ``git_commit`` (build time only) adds the dirty mark;
3. otherwise ``"unknown"``.

Imports nothing from Qt; core's export record and both front ends read it.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path

from deid_desktop import __version__

VERSION = __version__
UNKNOWN = "unknown"
STAMP_FILE = "BUILD_COMMIT"
#: A full or abbreviated commit id, with "+dirty" when the tree had uncommitted changes.
_COMMIT = re.compile(r"[0-9a-f]{7,64}(\+dirty)?")


def _valid(text: str) -> str | None:
    text = text.strip()
    return text if _COMMIT.fullmatch(text) else None


def read_stamp(folder: Path) -> str | None:
    """The commit baked into ``folder/BUILD_COMMIT`` at build time, if any."""
    try:
        return _valid((folder / STAMP_FILE).read_text(encoding="ascii", errors="replace"))
    except OSError:
        return None


def git_commit(root: Path) -> str | None:
    """HEAD of the git checkout at ``root`` (+dirty for uncommitted tracked changes)."""
    if not (root / ".git").exists():  # a file in a worktree, a folder in a clone
        return None
    import subprocess  # only here: never imported by a frozen app that has its stamp

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    head = _valid(git("rev-parse", "HEAD") or "")
    if head is None:
        return None
    status = git("status", "--porcelain", "--untracked-files=no")
    return head + "+dirty" if status else head


@functools.cache
def commit() -> str:
    """The build's git commit, or "unknown"; computed once per process."""
    here = Path(__file__).resolve().parent
    stamped = read_stamp(here)
    if stamped is not None:
        return stamped
    if getattr(sys, "frozen", False):
        return UNKNOWN  # a frozen build without its stamp: never shell out
    return head_from_files(here.parent) or UNKNOWN


def head_from_files(root: Path) -> str | None:
    """HEAD of the checkout at ``root`` read from git's own files (no subprocess: a run
    spawns nothing, issue 17); without the dirty mark, which only the build stamps."""
    dot = root / ".git"
    try:
        if dot.is_file():  # a worktree: "gitdir: PATH"
            dot = Path(dot.read_text(encoding="utf-8").split(":", 1)[1].strip())
        head = (dot / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref:"):
            return _valid(head)
        ref = head.split(":", 1)[1].strip()
        common = dot
        if (dot / "commondir").is_file():  # refs of a worktree live in the main .git
            common = (dot / (dot / "commondir").read_text(encoding="utf-8").strip()).resolve()
        for folder in (dot, common):
            if (folder / ref).is_file():
                return _valid((folder / ref).read_text(encoding="utf-8"))
        for line in (common / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref):
                return _valid(line.split(" ", 1)[0])
    except (OSError, IndexError):
        return None
    return None


def version_line(program: str) -> str:
    """``deid 0.1.0 (commit 1a2b3c…)``: what ``--version`` prints."""
    return f"{program} {VERSION} (commit {commit()})"


class VersionAction(argparse.Action):
    """``--version`` that looks the commit up only when asked (argparse's own "version"
    action formats its text when the parser is built, on every run)."""

    def __init__(self, option_strings: list[str], program: str, **kwargs: object) -> None:
        super().__init__(
            option_strings,
            dest=argparse.SUPPRESS,
            default=argparse.SUPPRESS,
            nargs=0,
            help="show the version and the build's git commit, then exit",
        )
        self.program = program

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(version_line(self.program))
        parser.exit()
