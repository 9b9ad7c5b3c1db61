"""Benchmark: finding each event table's person key in ``new_project``.

For each size (persons), in a fresh subprocess (so peak RSS belongs to that size alone):
a person table keyed ``Id`` and an event table of 3 rows per person with eight columns,
none named like the key, so the key is found by its values (the slowest rule: every
column compared on a sample, the key column then in full). Prints the seconds for
``resolve_event_key`` alone and for the whole ``new_project`` (tagging and the relation
check included), event rows/s and peak RSS. The frames are built in memory (no CSV
parse). Run: ``.venv/bin/python bench/bench_project_keys.py [PERSONS ...]``.
"""

from __future__ import annotations

import sys

from _common import child_json

SIZES = (100_000, 1_000_000)

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import numpy as np, pandas as pd
from deid_desktop.core.event_keys import person_key_set, resolve_event_key
from deid_desktop.core.model import LoadedTable, LoadReport
from deid_desktop.core.project import new_project
from deid_desktop.core.tagging import suggest_tags

n = int(sys.argv[1]); rows = 3 * n
S = pd.StringDtype("pyarrow")
rng = np.random.default_rng(7)
ids = pd.Series([f"{i:08x}-p" for i in range(n)], dtype=S)
def table(name, frame):
    frame = frame.astype(S)
    return LoadedTable(name, Path(f"{name}.csv"), "0" * 64, frame,
                       LoadReport(f"{name}.csv", len(frame), frame.shape[1]))
people = table("patients", pd.DataFrame({"Id": ids, "sex": rng.choice(["F", "M"], n)}))
owner = ids.iloc[rng.integers(0, n, rows)].reset_index(drop=True)
events = table("labs", pd.DataFrame({
    "sample": [f"s{i:09d}" for i in range(rows)],
    "drawn": pd.Series(rng.integers(0, 3650, rows)).astype(str),
    "test": rng.choice(["hb", "na", "k", "crp"], rows),
    "value": pd.Series(rng.normal(5, 2, rows).round(1)).astype(str),
    "owner": owner,
    "unit": rng.choice(["g/L", "mmol/L"], rows),
    "flag": rng.choice(["", "H", "L"], rows),
    "lab": rng.choice(["north", "south"], rows),
}))
tags = suggest_tags(events.frame, table="labs", is_person=False)
t = time.perf_counter()
keys = person_key_set(people, "Id")
choice = resolve_event_key(events, tags, person=people, person_key="Id", keys=keys)
resolve = time.perf_counter() - t
assert choice.column == "owner", choice
t = time.perf_counter()
project = new_project([people, events], person="patients", key="Id", project_path=Path("p"))
whole = time.perf_counter() - t
assert project.table("labs").key == "owner"
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(dict(persons=n, rows=rows, resolve=resolve, whole=whole, peak=peak)))
"""


def main(sizes: tuple[int, ...]) -> None:
    print(f"{'persons':>10} {'event rows':>11} {'find key s':>11} {'rows/s':>12} "
          f"{'new_project s':>14} {'peak RSS MB':>12}")  # fmt: skip
    for n in sizes:
        r = child_json("-c", CHILD, str(n))
        print(
            f"{r['persons']:>10,} {r['rows']:>11,} {r['resolve']:>11.2f} "
            f"{r['rows'] / r['resolve']:>12,.0f} {r['whole']:>14.2f} {r['peak']:>12,.0f}"
        )


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
