"""Benchmark: the packaged app (PyInstaller one-folder build) — bundle size and cold start.

Build first:  bash scripts/package   (or .venv/bin/pyinstaller --noconfirm --clean build.spec)
Then:         .venv/bin/python bench/bench_frozen.py [--runs 3] [--dist dist/deid-desktop]
              (--dist /opt/deid-desktop measures the installed .deb)

"Start to the main window" is the wall time from launching ``deid-desktop --selftest``
offscreen until it prints "window shown": process start, unpacking nothing (one-folder),
importing Qt, building and showing the main window. The whole self-test then copies,
loads and reviews the demo project and quits with 0.

Cold runs: before EACH of the ``--runs`` cold runs the page cache is emptied, so every run
reads the bundle from disk as after a reboot. As root that is the whole cache
(``sync; echo 3 > /proc/sys/vm/drop_caches``, system libraries included); otherwise the
bundle's own files are dropped one by one (posix_fadvise DONTNEED, like ``vmtouch -e``),
and system libraries stay cached. Then as many warm runs. Every run is printed, and the
median of each kind. ``deid --version`` is timed too (the command line's start).
Targets: cold start to the main window <= 2 s, bundle <= 250 MB (10^6 bytes).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_START_S = 2.0
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


def drop_page_cache(folder: Path) -> str:
    """Empty the page cache: all of it as root, else the bundle's files. Says which."""
    if hasattr(os, "geteuid") and os.geteuid() == 0 and Path("/proc/sys/vm/drop_caches").exists():
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return "whole page cache dropped (root)"
    n = evict_from_page_cache(folder)
    return f"{n:,} bundle files dropped from the page cache"


def run_selftest(exe: Path) -> tuple[float, float]:
    """(seconds to "window shown", seconds to exit 0) of one ``--selftest`` run."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
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
    if code != 0 or not any("selftest: ok" in x for x in lines):
        print("".join(lines)[-2000:], err[-2000:], sep="\n", file=sys.stderr)
        raise SystemExit(f"--selftest FAILED (exit {code})")
    return (window_at or seconds), seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dist", type=Path, default=ROOT / "dist" / "deid-desktop")
    parser.add_argument("--runs", type=int, default=3, help="cold runs, then as many warm")
    parser.add_argument("--no-evict", action="store_true", help="warm runs only")
    args = parser.parse_args()
    suffix = ".exe" if sys.platform == "win32" else ""
    exe = args.dist / f"deid-desktop{suffix}"
    cli = args.dist / f"deid{suffix}"
    if not exe.exists():
        print(f"no bundle at {args.dist}: build it with bash scripts/package", file=sys.stderr)
        return 2
    size, files = folder_size_mb(args.dist)
    verdict = "meets" if size <= TARGET_SIZE_MB else "MISSES"
    print(
        f"bundle: {size:.1f} MB ({size * 1e6 / 2**20:.1f} MiB) in {files:,} files "
        f"({verdict} the {TARGET_SIZE_MB:.0f} MB target)"
    )
    print("largest entries of _internal:")
    for mb, name in by_folder(args.dist):
        print(f"  {mb:6.1f} MB  {name}")
    print("largest files:")
    for mb, name in biggest(args.dist):
        print(f"  {mb:6.1f} MB  {name}")

    cold: list[tuple[float, float]] = []
    if not args.no_evict:
        for i in range(args.runs):
            how = drop_page_cache(args.dist)
            shown, total = run_selftest(exe)
            cold.append((shown, total))
            print(f"cold run {i + 1} ({how}): window after {shown:.2f} s, self-test {total:.2f} s")
    warm: list[tuple[float, float]] = []
    for i in range(args.runs):
        shown, total = run_selftest(exe)
        warm.append((shown, total))
        print(f"warm run {i + 1}: window after {shown:.2f} s, self-test {total:.2f} s")
    cli_times = []
    if cli.exists():
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([str(cli), "--version"], check=True, capture_output=True)
            cli_times.append(time.perf_counter() - t0)
        print(f"deid --version (warm): median {statistics.median(cli_times):.2f} s")
    if cold:
        med = statistics.median(s for s, _ in cold)
        verdict = "meets" if med <= TARGET_START_S else "MISSES"
        print(
            f"cold start to the main window: median {med:.2f} s of {len(cold)} "
            f"({verdict} the {TARGET_START_S:.0f} s target); whole self-test median "
            f"{statistics.median(t for _, t in cold):.2f} s"
        )
    print(
        f"warm start to the main window: median {statistics.median(s for s, _ in warm):.2f} s; "
        f"whole self-test median {statistics.median(t for _, t in warm):.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
