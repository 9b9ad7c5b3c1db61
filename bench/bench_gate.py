"""Benchmark: the release gate (``core.verify``) check by check, at 100k and 1M persons.

The extract is the demo generator's (written once as CSV under a cache folder, like
``bench_end_to_end``), loaded and built as ``deid run`` does (not timed). Then, in a
fresh child process per size, the gate runs ``--reps`` times (default 3), each time
with a fresh ``VerifyContext``, every check in registry order exactly as
``verify_release`` runs them (what one check computes for the context - distinct
cells, parsed dates, person positions - is charged to the first check that asks).

Prints per check: median CPU seconds (``time.process_time``: steady on a shared
machine), median wall seconds, and its own peak memory: the process's peak RSS is reset
before the check (Linux ``/proc/self/clear_refs``) and read after it, minus the RSS it
started from. Then the whole gate (median CPU, wall), the peak RSS of the process, the
load average, and the targets (issue 15: the gate <= 4 s CPU at 1M persons).

    .venv/bin/python bench/bench_gate.py [PERSONS ...] [--reps N] [--cache DIR]
    .venv/bin/python bench/bench_gate.py 1000000 --profile no_direct_values
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, cached_demo, child_json, peak_rss_mb

SIZES = (100_000, 1_000_000)
TARGET_CPU_1M = 4.0


def _status_kib(field: str) -> int:
    """A field of /proc/self/status in KiB (0 where there is none)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _reset_peak() -> bool:
    """Reset this process's peak RSS (VmHWM); False where the OS does not allow it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _child(project_path: Path, reps: int, profile: str | None) -> dict[str, object]:
    from deid_desktop.core import engine
    from deid_desktop.core.pathways import build_release
    from deid_desktop.core.verify import VerifyContext, checks_for, run_check

    project, _ = engine.open_project(project_path)
    extract = engine.load(project, project_path)
    release = build_release(extract, project)
    checks = checks_for(release.pathway)
    cpu: dict[str, list[float]] = {c.id: [] for c in checks}
    wall: dict[str, list[float]] = {c.id: [] for c in checks}
    own_peak: dict[str, float] = {c.id: 0.0 for c in checks}
    failed: set[str] = set()
    if profile is not None:
        import cProfile
        import pstats

        ctx = VerifyContext(extract, project)
        wanted = [c for c in checks if c.id == profile]
        if not wanted:
            raise SystemExit(f"no check {profile!r}; checks: {[c.id for c in checks]}")
        for check in checks:  # what comes before shares the context
            if check.id == profile:
                break
            run_check(check, extract, release, project, ctx)
        prof = cProfile.Profile(time.process_time)  # CPU seconds: steady when shared
        prof.enable()
        run_check(wanted[0], extract, release, project, ctx)
        prof.disable()
        stats = pstats.Stats(prof, stream=sys.stderr)
        stats.sort_stats("cumulative").print_stats(35)
        stats.sort_stats("tottime").print_stats(20)
        return {"profiled": profile}
    resets = True
    for _ in range(reps):
        ctx = VerifyContext(extract, project)
        for check in checks:
            start_rss = _status_kib("VmRSS")
            resets &= _reset_peak()
            w0, c0 = time.perf_counter(), time.process_time()
            outcome = run_check(check, extract, release, project, ctx)
            cpu[check.id].append(time.process_time() - c0)
            wall[check.id].append(time.perf_counter() - w0)
            own = (_status_kib("VmHWM") - start_rss) / 1024
            own_peak[check.id] = max(own_peak[check.id], own)
            if not outcome.passed:
                failed.add(check.id)
    totals_cpu = [sum(cpu[c][i] for c in cpu) for i in range(reps)]
    totals_wall = [sum(wall[c][i] for c in wall) for i in range(reps)]
    return {
        "persons": len(extract.person.frame),
        "rows": sum(len(f) for f in release.tables.values()),
        "checks": [c.id for c in checks],
        "cpu": {c: statistics.median(v) for c, v in cpu.items()},
        "wall": {c: statistics.median(v) for c, v in wall.items()},
        "own_peak_mb": own_peak if resets else {},
        "gate_cpu": statistics.median(totals_cpu),
        "gate_wall": statistics.median(totals_wall),
        "gate_cpu_all": totals_cpu,
        "failed": sorted(failed),
        "peak_rss_mb": peak_rss_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("persons", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "deid-bench")
    parser.add_argument("--profile", metavar="CHECK_ID", help="cProfile one check (to stderr)")
    parser.add_argument("--child", metavar="PROJECT", type=Path)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(_child(args.child, args.reps, args.profile)))
        return

    args.cache.mkdir(parents=True, exist_ok=True)
    for persons in args.persons:
        project = cached_demo(args.cache, persons)
        load = os.getloadavg()
        extra = ["--profile", args.profile] if args.profile else []
        if args.profile:
            import subprocess

            subprocess.run(
                [sys.executable, __file__, "--child", str(project), *extra], check=True, cwd=ROOT
            )
            continue
        r = child_json(__file__, "--child", project, "--reps", str(args.reps))
        print(
            f"\n{persons:,} persons ({r['rows']:,} released rows), median of {args.reps}, "
            f"load average {load[0]:.1f} / {load[1]:.1f} on {os.cpu_count()} CPUs",
            flush=True,
        )
        print(f"  {'check':34} {'CPU s':>7} {'wall s':>7} {'own peak MB':>12}")
        peaks = r["own_peak_mb"]
        for check in r["checks"]:
            peak = f"{peaks[check]:12,.0f}" if peaks else f"{'n/a':>12}"
            print(f"  {check:34} {r['cpu'][check]:7.2f} {r['wall'][check]:7.2f} {peak}")
        verdict = ""
        if persons == 1_000_000:
            ok = r["gate_cpu"] <= TARGET_CPU_1M
            verdict = f"  [target <= {TARGET_CPU_1M:.0f} s CPU: {'met' if ok else 'NOT met'}]"
        runs = ", ".join(f"{s:.2f}" for s in r["gate_cpu_all"])
        print(
            f"  {'whole gate':34} {r['gate_cpu']:7.2f} {r['gate_wall']:7.2f}"
            f"  (CPU of each run: {runs}){verdict}"
        )
        print(f"  peak RSS of the process (load + build + gate): {r['peak_rss_mb']:,.0f} MB")
        if r["failed"]:
            print(f"  checks that failed: {', '.join(r['failed'])}")


if __name__ == "__main__":
    main()
