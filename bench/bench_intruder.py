"""The motivated-intruder link at 100k and 1M persons: the release's person table against
the intruder's list (every person, generalized as released) on five quasi-identifiers.

Each size runs in a fresh subprocess (its own peak RSS). Prints wall and CPU seconds of
``simulate_intruder`` alone, persons re-identified with certainty and peak RSS. The list
is the release itself plus 5 % extra persons (an intruder's list is larger than the
release).

    .venv/bin/python bench/bench_intruder.py [PERSONS ...]
"""

from __future__ import annotations

import sys

from _common import child_json

SIZES = (100_000, 1_000_000)

CHILD = r"""
import json, resource, sys, time
import numpy as np
import pandas as pd
from deid_desktop.core.risk.intruder import simulate_intruder

n = int(sys.argv[1])
rng = np.random.default_rng(20261130)
S = pd.StringDtype("pyarrow")
def frame(m, offset):
    return pd.DataFrame({
        "key": pd.array((np.arange(m) + offset).astype(str).astype(object), dtype=S),
        "age": pd.array(rng.integers(18, 90, m).astype(str).astype(object), dtype=S),
        "sex": pd.array(rng.choice(np.array(["F", "M"], dtype=object), m), dtype=S),
        "race": pd.array(rng.choice(np.array(list("ABCDEF"), dtype=object), m), dtype=S),
        "year": pd.array(rng.integers(1930, 2020, m).astype(str).astype(object), dtype=S),
        "zip3": pd.array(rng.integers(0, 900, m).astype(str).astype(object), dtype=S),
    })
release = frame(n, 0)
listed = pd.concat([release, frame(n // 20, n)], ignore_index=True)
on = ["age", "sex", "race", "year", "zip3"]
simulate_intruder(release.head(1000), listed.head(1000), on,
                  release_keys=release["key"].head(1000), identified_keys=listed["key"].head(1000))
t = time.perf_counter(); c = time.process_time()
report = simulate_intruder(release, listed, on, release_keys=release["key"],
                           identified_keys=listed["key"])
print(json.dumps({"persons": n, "seconds": time.perf_counter() - t,
                  "cpu": time.process_time() - c, "certain": report.certain,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    for n in [int(a) for a in sys.argv[1:]] or list(SIZES):
        r = child_json("-c", CHILD, str(n))
        print(
            f"{r['persons']:>9,} persons: intruder link {r['seconds']:.2f} s wall, "
            f"{r['cpu']:.2f} s CPU; {r['certain']:,} re-identified with certainty; "
            f"peak RSS {r['peak_rss_mb']:.0f} MB"
        )


if __name__ == "__main__":
    main()
