"""Cold start of the packaged app: ask the kernel to read the bundle's libraries ahead.

After a reboot the first start reads ~150 MB of shared libraries through page faults,
a few pages at a time, while Python imports one module after another. On Linux,
``posix_fadvise(WILLNEED)`` on each library (in the order the start needs them: Qt
first) starts the kernel's read-ahead for the whole file at once, from a background
thread, so the reads overlap the imports. Only in a frozen bundle (a source checkout
has no bundle folder), and only on Linux: elsewhere nothing is done.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

#: read first: what the window needs before it can be shown
FIRST = ("PySide6", "shiboken6", "libpython", "python3", "base_library.zip")


def bundle_files(root: Path) -> list[Path]:
    """Libraries and archives of the bundle at ``root``, those the window needs first."""
    files = [
        p
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and (".so" in p.name or p.suffix == ".zip")
    ]
    return sorted(files, key=lambda p: (not str(p.relative_to(root)).startswith(FIRST), str(p)))


def advise(files: list[Path]) -> int:
    """``posix_fadvise(WILLNEED)`` on each file; how many were advised."""
    done = 0
    for path in files:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
            done += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    return done


def start() -> threading.Thread | None:
    """Start the read-ahead in a daemon thread; None where it does not apply."""
    bundle = getattr(sys, "_MEIPASS", None)
    if not getattr(sys, "frozen", False) or bundle is None:
        return None
    if sys.platform.startswith("linux") and hasattr(os, "posix_fadvise"):
        root, exe = Path(bundle), Path(sys.executable)  # exe: holds the Python archive
        thread = threading.Thread(
            target=lambda: advise([exe, *bundle_files(root)]), name="prefetch", daemon=True
        )
        thread.start()
        return thread
    return None  # Windows and macOS: their loaders read ahead on their own terms
