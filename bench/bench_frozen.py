"""Benchmark: the packaged app (PyInstaller one-folder build) — bundle size and cold start.

Build first:  .venv/bin/pyinstaller --noconfirm --clean build.spec
Then:         .venv/bin/python bench/bench_frozen.py [--runs 3] [--dist dist/deid-desktop]

"Cold start" is the wall time of ``deid-desktop --selftest`` run offscreen: process
start, unpacking nothing (one-folder), importing Qt and pandas, opening the main window,
copying and loading the demo project and running its review, then quitting with 0.
Before the first run the bundle's own files are dropped from the page cache
(posix_fadvise DONTNEED, file by file: no root needed, nothing else on the machine is
touched), so run 1 reads the bundle from disk as after a reboot; system libraries stay
cached. ``--no-evict`` skips that. Every run is printed. Targets: cold start under 3 s,
bundle under 250 MB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_START_S = 3.0
TARGET_SIZE_MB = 250.0


def folder_size_mb(folder: Path) -> tuple[float, int]:
    total, files = 0, 0
    for p in folder.rglob("*"):
        if p.is_file() and not p.is_symlink():
            total += p.stat().st_size
            files += 1
    return total / 1e6, files


def biggest(folder: Path, n: int = 8) -> list[tuple[float, str]]:
    sizes = [
        (p.stat().st_size / 1e6, str(p.relative_to(folder)))
        for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink()
    ]
    return sorted(sizes, reverse=True)[:n]


def by_folder(folder: Path, n: int = 10) -> list[tuple[float, str]]:
    """Size of each top-level entry of the bundle's _internal folder (du-like), biggest first."""
    internal = folder / "_internal"
    if not internal.is_dir():
        return []
    sizes: list[tuple[float, str]] = []
    for entry in internal.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            mb = folder_size_mb(entry)[0]
        elif entry.is_file() and not entry.is_symlink():
            mb = entry.stat().st_size / 1e6
        else:
            continue
        sizes.append((mb, entry.name))
    return sorted(sizes, reverse=True)[:n]


def evict_from_page_cache(folder: Path) -> int:
    """Ask the kernel to drop the cached pages of every file in the bundle; count them."""
    if not hasattr(os, "posix_fadvise"):
        return 0
    evicted = 0
    for p in folder.rglob("*"):
        if not p.is_file() or p.is_symlink():
            continue
        fd = os.open(p, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            evicted += 1
        finally:
            os.close(fd)
    return evicted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dist", type=Path, default=ROOT / "dist" / "deid-desktop")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--no-evict", action="store_true", help="keep the bundle in the page cache for run 1"
    )
    args = parser.parse_args()
    exe = args.dist / ("deid-desktop.exe" if sys.platform == "win32" else "deid-desktop")
    if not exe.exists():
        print(f"no bundle at {args.dist}: build it with pyinstaller build.spec", file=sys.stderr)
        return 2
    size, files = folder_size_mb(args.dist)
    verdict = "meets" if size < TARGET_SIZE_MB else "MISSES"
    print(
        f"bundle: {size:.0f} MB in {files:,} files ({verdict} the {TARGET_SIZE_MB:.0f} MB target)"
    )
    print("largest entries of _internal:")
    for mb, name in by_folder(args.dist):
        print(f"  {mb:6.1f} MB  {name}")
    print("largest files:")
    for mb, name in biggest(args.dist):
        print(f"  {mb:6.1f} MB  {name}")
    if not args.no_evict:
        n = evict_from_page_cache(args.dist)
        print(f"dropped {n:,} bundle files from the page cache before run 1")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    times: list[float] = []
    shown: list[float] = []
    for i in range(args.runs):
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [str(exe), "--selftest"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        lines: list[str] = []
        window_at = None
        for line in proc.stdout:
            lines.append(line)
            if window_at is None and "window shown" in line:
                window_at = time.perf_counter() - t0
        err = proc.stderr.read() if proc.stderr else ""
        code = proc.wait()
        seconds = time.perf_counter() - t0
        ok = code == 0 and any("selftest: ok" in x for x in lines)
        print(
            f"run {i + 1}: main window shown after {window_at or 0:.2f} s; demo loaded and "
            f"reviewed, --selftest {'ok' if ok else 'FAILED'} after {seconds:.2f} s"
        )
        if not ok:
            print("".join(lines)[-2000:], err[-2000:], sep="\n", file=sys.stderr)
            return 1
        times.append(seconds)
        shown.append(window_at or seconds)
    print(
        f"{'cold' if not args.no_evict else 'first-run'} start to the main window "
        f"{shown[0]:.2f} s, warm best {min(shown):.2f} s"
    )
    verdict = "meets" if shown[0] < TARGET_START_S else "MISSES"
    print(
        f"whole --selftest (first run) {times[0]:.2f} s, warm best {min(times):.2f} s; "
        f"start to window {verdict} the {TARGET_START_S:.0f} s target"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
