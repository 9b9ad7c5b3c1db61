"""Benchmark: link keys for 1M persons, date shifts for 3M event rows, and the whole
linkable release (build + gate) on the demo extract.

Targets (2-core machine): link keys for 1M persons under 3 s; shifting 3M event dates
under 2 s. Each part runs in a fresh subprocess so its peak RSS (``resource.getrusage``)
is its own. Prints wall seconds, CPU seconds, rows/s and peak RSS.

    .venv/bin/python bench/bench_linkage.py [--persons N] [--events N] [--release N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from _common import ROOT, child_json, cpu_seconds, loaded_table, peak_rss_mb

SALT = bytes(range(32))


def _timed(fn):  # type: ignore[no-untyped-def]
    t0, c0 = time.perf_counter(), cpu_seconds()
    out = fn()
    return out, time.perf_counter() - t0, cpu_seconds() - c0


def part_keys(persons: int) -> dict[str, float]:
    import numpy as np
    import pandas as pd

    from deid_desktop.core.linkage import date_offsets, link_keys

    rng = np.random.default_rng(1)
    mrns = pd.Series(
        [f"MRN-{n:09d}" for n in rng.permutation(persons * 3)[:persons]],
        dtype="string[pyarrow]",
    )
    keys, wall, cpu = _timed(lambda: link_keys(mrns, SALT))
    _, off_wall, off_cpu = _timed(
        lambda: date_offsets(keys, mode="keyed", days=180, seed=1, salt=SALT)
    )
    return {
        "persons": persons,
        "keys_s": wall,
        "keys_cpu_s": cpu,
        "offsets_s": off_wall,
        "offsets_cpu_s": off_cpu,
        "peak_rss_mb": peak_rss_mb(),
    }


def part_shift(events: int) -> dict[str, float]:
    import numpy as np
    import pandas as pd

    from deid_desktop.core.linkage import iso_strings, shift_dates

    rng = np.random.default_rng(2)
    persons = max(events // 3, 1)
    per_person = rng.integers(-180, 181, persons)
    per_person[per_person == 0] = 1
    person_of_row = rng.integers(0, persons, events)
    days = rng.integers(0, 20 * 365, events).astype("timedelta64[D]")
    dates = pd.Series(np.datetime64("2000-01-01") + days).astype("datetime64[ns]")

    def shift() -> pd.Series:
        return shift_dates(dates, per_person[person_of_row])  # per-row offset gather + add

    shifted, wall, cpu = _timed(shift)
    _, iso_wall, iso_cpu = _timed(lambda: iso_strings(shifted, with_time=False))
    return {
        "events": events,
        "shift_s": wall,
        "shift_cpu_s": cpu,
        "iso_s": iso_wall,
        "iso_cpu_s": iso_cpu,
        "peak_rss_mb": peak_rss_mb(),
    }


def part_release(persons: int) -> dict[str, float]:
    from dataclasses import replace

    from deid_desktop.core.demo import demo_project, make_demo_frames
    from deid_desktop.core.model import Extract, Pathway
    from deid_desktop.core.pathways import build_release
    from deid_desktop.core.verify import verify_release

    frames = make_demo_frames(persons)
    project = demo_project(frames, dict.fromkeys(frames, "0" * 64), 20260423)
    project = replace(project, pathway=Pathway.LINKABLE)

    loaded = {name: loaded_table(name, frame) for name, frame in frames.items()}
    extract = Extract(loaded["demographics"], (loaded["baseline"], loaded["visits"]))
    rows = sum(len(f) for f in frames.values())
    release, build, build_cpu = _timed(lambda: build_release(extract, project, salt=SALT))
    verdict, verify, verify_cpu = _timed(lambda: verify_release(extract, release, project))
    if not verdict.passed:
        raise SystemExit(f"gate failed: {[o.check.id for o in verdict.blocking_failures]}")
    return {
        "persons": persons,
        "rows": rows,
        "build_s": build,
        "build_cpu_s": build_cpu,
        "verify_s": verify,
        "verify_cpu_s": verify_cpu,
        "peak_rss_mb": peak_rss_mb(),
    }


PARTS = {"keys": part_keys, "shift": part_shift, "release": part_release}


def _spawn(part: str, n: int) -> dict[str, float]:
    return child_json(
        __file__, "--child", part, str(n), env={**os.environ, "PYTHONPATH": str(ROOT)}
    )


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        sys.path.insert(0, str(ROOT))
        print(json.dumps(PARTS[sys.argv[2]](int(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--persons", type=int, default=1_000_000)
    parser.add_argument("--events", type=int, default=3_000_000)
    parser.add_argument("--release", type=int, default=100_000, help="0 to skip")
    args = parser.parse_args()

    k = _spawn("keys", args.persons)
    print(
        f"link keys   {k['persons']:>10,} persons  {k['keys_s']:6.2f} s "
        f"(cpu {k['keys_cpu_s']:.2f} s, {k['persons'] / k['keys_s']:,.0f} persons/s)  "
        f"target < 3 s  {'OK' if k['keys_s'] < 3 else 'MISSED'}"
    )
    print(
        f"offsets     {k['persons']:>10,} persons  {k['offsets_s']:6.2f} s "
        f"(cpu {k['offsets_cpu_s']:.2f} s)  peak RSS {k['peak_rss_mb']:,.0f} MB"
    )
    s = _spawn("shift", args.events)
    print(
        f"date shift  {s['events']:>10,} rows     {s['shift_s']:6.2f} s "
        f"(cpu {s['shift_cpu_s']:.2f} s, {s['events'] / s['shift_s']:,.0f} rows/s)  "
        f"target < 2 s  {'OK' if s['shift_s'] < 2 else 'MISSED'}"
    )
    print(
        f"ISO text    {s['events']:>10,} rows     {s['iso_s']:6.2f} s "
        f"(cpu {s['iso_cpu_s']:.2f} s)  peak RSS {s['peak_rss_mb']:,.0f} MB"
    )
    if args.release:
        r = _spawn("release", args.release)
        print(
            f"linkable    {r['persons']:>10,} persons ({r['rows']:,} rows)  build "
            f"{r['build_s']:.2f} s (cpu {r['build_cpu_s']:.2f}), gate {r['verify_s']:.2f} s "
            f"(cpu {r['verify_cpu_s']:.2f}), peak RSS {r['peak_rss_mb']:,.0f} MB"
        )


if __name__ == "__main__":
    main()
