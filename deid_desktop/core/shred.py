"""Remove a folder that may hold crosswalk parts: overwrite every file, then delete it.

Each regular file is overwritten in place with zeros, flushed and fsynced before it is
unlinked; the folder tree is removed afterwards. Symbolic links are removed, never
followed. What this can and cannot guarantee is said in the README ("Crash safety"):
on SSDs, journaling and copy-on-write file systems the old blocks may survive elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

_CHUNK = 1 << 20


def shred_file(path: Path) -> None:
    """Overwrite ``path`` with zeros, fsync, then delete it. A symlink is only unlinked."""
    path = Path(path)
    st = path.lstat()
    if stat.S_ISREG(st.st_mode) and st.st_size > 0:
        zeros = bytes(min(_CHUNK, st.st_size))
        with open(path, "r+b", buffering=0) as fh:
            left = st.st_size
            while left > 0:
                left -= fh.write(zeros[: min(len(zeros), left)]) or 0
            os.fsync(fh.fileno())
    path.unlink()


def remove_tree(root: Path, *, shred: bool) -> None:
    """Delete ``root`` (a folder) and all it holds; with ``shred`` overwrite files first.

    Best effort: a file that cannot be overwritten is still deleted, and what cannot be
    deleted stays (the caller checks ``root.exists()`` when it matters).
    """
    root = Path(root)
    if not root.exists() and not root.is_symlink():
        return
    if root.is_symlink() or not root.is_dir():
        with contextlib.suppress(OSError):
            (shred_file if shred else Path.unlink)(root)
        return
    if shred:
        for folder, _dirs, files in os.walk(root):
            for name in files:
                p = Path(folder) / name
                try:
                    shred_file(p)
                except OSError:
                    with contextlib.suppress(OSError):
                        p.unlink()
    shutil.rmtree(root, ignore_errors=True)
