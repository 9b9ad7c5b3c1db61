"""The optimal generalization search on adult cycled to 1M rows (age jittered +-5).

ARX's adult data set and hierarchies (../shared/data/adult), 8 quasi-identifiers, k = 5,
5 % suppression limit, ARX's loss metric. The table is built in the child before the
clock starts (as the loader would hand it: pyarrow-backed strings); the measured part is
the whole search: coding the columns once, the lattice search, the figures. Each run is a
fresh subprocess, so its peak RSS is its own; prints the median of RUNS runs of CPU
seconds, wall seconds and peak RSS, and the solution (levels, rows suppressed, loss).

    .venv/bin/python bench/bench_generalize.py [ROWS] [RUNS]

ARX 3.9 on the same input (issue 10): 2.85 s CPU (warm JVM), 1.32 GB, 8,030 suppressed.
"""

from __future__ import annotations

import statistics
import sys

from _common import ROOT, child_json

DATA = ROOT.parent / "shared" / "data" / "adult"
if not DATA.is_dir():
    DATA = ROOT.parents[1] / "shared" / "data" / "adult"
QIS = (
    "age",
    "education",
    "marital-status",
    "native-country",
    "workclass",
    "occupation",
    "race",
    "sex",
)

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import numpy as np
import pandas as pd
from deid_desktop.core.risk.hierarchy import read_hierarchy_dir
from deid_desktop.core.risk.lattice import Prepared, search

data, n = Path(sys.argv[1]), int(sys.argv[2])
qis = sys.argv[3].split(",")
adult = pd.read_csv(data / "adult.csv", sep=";", dtype=pd.StringDtype("pyarrow"))
big = adult.iloc[np.arange(n) % len(adult)].reset_index(drop=True)
rng = np.random.default_rng(20260423)
age = big["age"].astype(int).to_numpy() + rng.integers(-5, 6, n)
big["age"] = pd.array(age.astype(str), dtype=pd.StringDtype("pyarrow"))
hierarchies = read_hierarchy_dir(data, qis)
del adult, age
usage0 = resource.getrusage(resource.RUSAGE_SELF)
wall0 = time.perf_counter()
prepared = Prepared(big, qis, hierarchies)
result = search(prepared, k=5, max_suppression=0.05, metric="loss")
wall = time.perf_counter() - wall0
usage1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)
best = result.best
print(json.dumps({
    "cpu": cpu, "wall": wall, "rss_mb": usage1.ru_maxrss / 1024,
    "levels": list(best.levels), "suppressed": best.suppressed, "classes": best.classes,
    "loss": best.loss, "evaluated": result.evaluated, "lattice": result.lattice_size,
}))
"""


def main(argv: list[str]) -> None:
    rows = int(argv[0]) if argv else 1_000_000
    runs = int(argv[1]) if len(argv) > 1 else 3
    results = [child_json("-c", CHILD, DATA, rows, ",".join(QIS)) for _ in range(max(runs, 1))]
    last = results[-1]
    print(f"generalize: {rows:,} rows, {len(QIS)} quasi-identifiers, k=5, 5 % limit, loss")
    print(f"  runs: {len(results)} (medians below)")
    print(f"  CPU seconds:   {statistics.median(r['cpu'] for r in results):.2f}")
    print(f"  wall seconds:  {statistics.median(r['wall'] for r in results):.2f}")
    print(f"  peak RSS (MB): {statistics.median(r['rss_mb'] for r in results):.0f}")
    print(f"  levels:        {dict(zip(QIS, last['levels'], strict=True))}")
    print(f"  suppressed:    {last['suppressed']:,} rows ({last['suppressed'] / rows:.2%})")
    print(f"  classes:       {last['classes']:,}")
    print(f"  loss (ARX):    {last['loss']:.4f}")
    print(f"  nodes counted: {last['evaluated']:,} of {last['lattice']:,}")


if __name__ == "__main__":
    main(sys.argv[1:])
