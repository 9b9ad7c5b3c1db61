"""Benchmark: the Safe Harbor release and its verification gate at 100k and 1M persons.

The extract is the demo generator's (demographics + baseline one row per person, about
2.5 visits per person, notes included), built in memory. Each size runs in a fresh
subprocess so the peak RSS (``resource.getrusage``) belongs to that size alone. Prints
seconds and rows/s for the build and for the verification separately, and peak RSS.
Targets (2-core machine): whole Safe Harbor run of 1M persons under 20 s and 2 GB.

    .venv/bin/python bench/bench_safe_harbor.py [PERSONS ...]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

SIZES = (100_000, 1_000_000)
ROOT = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    """CPU seconds of this process (user + system): what the run costs when the
    machine is shared, where wall time also counts waiting for a core."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _one(persons: int) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    from deid_desktop.core.demo import demo_project, make_demo_frames
    from deid_desktop.core.model import Extract, LoadedTable, LoadReport
    from deid_desktop.core.pathways import build_release
    from deid_desktop.core.verify import verify_release

    t0 = time.perf_counter()
    frames = make_demo_frames(persons)
    generate = time.perf_counter() - t0
    project = demo_project(frames, dict.fromkeys(frames, "0" * 64), 20260423)

    def loaded(name: str) -> LoadedTable:
        frame = frames[name]
        report = LoadReport(f"{name}.csv", len(frame), len(frame.columns))
        return LoadedTable(name, Path(f"{name}.csv"), "0" * 64, frame, report)

    extract = Extract(loaded("demographics"), (loaded("baseline"), loaded("visits")))
    rows = sum(len(f) for f in frames.values())
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    t0, c0 = time.perf_counter(), _cpu()
    release = build_release(extract, project)
    build, build_cpu = time.perf_counter() - t0, _cpu() - c0
    t0, c0 = time.perf_counter(), _cpu()
    verification = verify_release(extract, release, project)
    verify, verify_cpu = time.perf_counter() - t0, _cpu() - c0
    if not verification.passed:
        raise SystemExit(
            f"verification failed: {[o.check.id for o in verification.blocking_failures]}"
        )
    return {
        "persons": persons,
        "rows": rows,
        "generate_s": generate,
        "build_s": build,
        "verify_s": verify,
        "build_cpu_s": build_cpu,
        "verify_cpu_s": verify_cpu,
        "load_average": os.getloadavg()[0],
        "rss_after_generate_mb": rss_before,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        print(json.dumps(_one(int(argv[1]))))
        return 0
    sizes = tuple(int(a) for a in argv) or SIZES
    print(f"{'persons':>10} {'rows':>10} {'build s':>8} {'rows/s':>11} {'verify s':>9} "
          f"{'rows/s':>11} {'total s':>8} {'peak RSS MB':>12}")  # fmt: skip
    for persons in sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(persons)],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        total = r["build_s"] + r["verify_s"]
        print(
            f"{r['persons']:>10,} {r['rows']:>10,} {r['build_s']:>8.2f} "
            f"{r['rows'] / r['build_s']:>11,.0f} {r['verify_s']:>9.2f} "
            f"{r['rows'] / r['verify_s']:>11,.0f} {total:>8.2f} {r['peak_rss_mb']:>12,.0f}"
        )
        print(
            f"{'':>10} CPU s: build {r['build_cpu_s']:.2f}, verify {r['verify_cpu_s']:.2f}, "
            f"total {r['build_cpu_s'] + r['verify_cpu_s']:.2f}; load average "
            f"{r['load_average']:.1f}; demo generation {r['generate_s']:.1f} s (not counted), "
            f"RSS after generation {r['rss_after_generate_mb']:,.0f} MB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
