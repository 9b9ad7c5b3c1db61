"""Benchmark: the demo generator and project files at 100k and 1M persons.

For each size, in a fresh subprocess (so peak RSS belongs to that size alone): generate
the demo frames, write the demo (three CSVs + project), save and load the project, and
run ``check_inputs`` on unchanged inputs (hashes every input). Prints seconds, rows/s,
MB written and peak RSS. Run: ``.venv/bin/python bench/bench_project.py [ROWS ...]``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _common import child_json

SIZES = (100_000, 1_000_000)

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from deid_desktop.core import demo
from deid_desktop.core.project import check_inputs, load_project, save_project

rows, out = int(sys.argv[1]), Path(sys.argv[2])
t = time.perf_counter(); frames = demo.make_demo_frames(rows); gen = time.perf_counter() - t
visits = len(frames["visits"]); del frames
t = time.perf_counter(); path = demo.write_demo(out, rows=rows); write = time.perf_counter() - t
mb = sum(p.stat().st_size for p in out.iterdir()) / 1e6
t = time.perf_counter(); project = load_project(path); save_project(project, path)
load_project(path); roundtrip = time.perf_counter() - t
t = time.perf_counter(); problems = check_inputs(project, path); check = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(dict(rows=rows, visits=visits, gen=gen, write=write, mb=mb,
                      roundtrip=roundtrip, check=check, problems=len(problems), peak=peak)))
"""


def main(sizes: tuple[int, ...]) -> None:
    print(
        f"{'persons':>9} {'visits':>9} {'generate s':>10} {'persons/s':>10} "
        f"{'write s':>8} {'MB':>7} {'save+load s':>11} {'check s':>8} {'peak MB':>8}"
    )
    for rows in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            r = child_json("-c", CHILD, str(rows), Path(tmp) / "demo")
        assert r["problems"] == 0
        print(
            f"{r['rows']:>9,} {r['visits']:>9,} {r['gen']:>10.2f} {r['rows'] / r['gen']:>10,.0f} "
            f"{r['write']:>8.2f} {r['mb']:>7.1f} {r['roundtrip']:>11.3f} {r['check']:>8.2f} "
            f"{r['peak']:>8.0f}"
        )


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
