"""Cross-release check: a new release of 1M persons against 3 earlier releases.

Each earlier release's held-back quasi-identifier file is written as the export writes it
(Parquet, keyed by person key) with different quasi-identifier sets (sex + ZIP3; age band
+ race; ethnicity + birth year). Timed: the new release's persons mapped through its
crosswalk (``released_quasi_identifiers``), then ``check_cross_release`` reads the register's
entries, verifies each file's SHA-256, joins on the person and measures each combination
and all three together. Runs in a fresh subprocess so the peak RSS is its own. Prints
wall and CPU seconds of the check and peak RSS (the whole child, frames included).

    .venv/bin/python bench/bench_cross_release.py [PERSONS]
"""

from __future__ import annotations

import sys

from _common import child_json

CHILD = r"""
import json, resource, sys, tempfile, time
from pathlib import Path
import numpy as np
import pandas as pd
from deid_desktop.core.cross_release import (
    PERSON, QI_FILE, QI_RECORD_KEY, check_cross_release, released_quasi_identifiers,
    write_quasi_identifiers,
)

n = int(sys.argv[1])
rng = np.random.default_rng(20260423)
S = pd.StringDtype("pyarrow")
def col(values):
    return pd.array(np.asarray(values).astype(str).astype(object), dtype=S)
keys = col([f"MRN{i:08d}" for i in rng.permutation(n)])
age = rng.integers(18, 95, n)
base = {
    "sex": col(rng.choice(["F", "M"], n)),
    "zip3": col(rng.integers(0, 900, n)),
    "age_band": col((age // 10) * 10),
    "race": col(rng.choice(["White", "Black", "Asian", "Other"], n)),
    "ethnicity": col(rng.choice(["Hispanic", "Not Hispanic"], n)),
    "birth_year": col(2026 - age),
    "age": col(age),
}
tmp = Path(tempfile.mkdtemp())
entries = []
for i, qis in enumerate([("sex", "zip3"), ("age_band", "race"), ("ethnicity", "birth_year")]):
    keep = rng.random(n) < 0.95  # an earlier release missed a few persons
    frame = pd.DataFrame({PERSON: keys[keep], **{q: base[q][keep] for q in qis}})
    folder = tmp / f"xw{i}"
    folder.mkdir()
    info = write_quasi_identifiers(frame, folder / QI_FILE)
    entries.append({"project": {"id": "p"}, "time_utc": f"t{i}", "meta": {},
                    "outputs": {"folder": f"out{i}"},
                    "crosswalk": {"folder": str(folder), QI_RECORD_KEY: info}})
ids = col([f"S{i:07d}" for i in range(n)])
person = pd.DataFrame({"subject_id": ids, "sex": base["sex"], "age": base["age"],
                       "race": base["race"]}).iloc[rng.permutation(n)].reset_index(drop=True)
crosswalk = pd.DataFrame({"subject_id": ids, "mrn": keys})
del base
t = time.perf_counter(); c = time.process_time()
new = released_quasi_identifiers(person, crosswalk, ["sex", "age", "race"])
rep = check_cross_release(new, project_id="p", k_target=5, entries=entries)
wall, cpu = time.perf_counter() - t, time.process_time() - c
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"persons": n, "wall": wall, "cpu": cpu, "rss_mb": rss,
                  "affected": [(r.lone, r.below_k) for r in rep.releases],
                  "all": (rep.all_lone, rep.all_below_k)}))
"""


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    got = child_json("-c", CHILD, str(n))
    print(
        f"cross-release check, {got['persons']:,} persons x 3 earlier releases: "
        f"{got['wall']:.2f} s wall, {got['cpu']:.2f} s CPU, peak RSS {got['rss_mb']:.0f} MB "
        "(target < 10 s)"
    )
    print(f"  persons (lone, below k) per earlier release: {got['affected']}; all: {got['all']}")


if __name__ == "__main__":
    main()
