"""Column tagging speed: demo-like 14-column tables of 100k and 1M rows.

Run: .venv/bin/python bench/bench_tag.py [--rows 100000 1000000] [--repeat 3]
Prints, per table size: seconds to tag the table (best of --repeat, after one warm-up;
wall-clock and CPU time, which differ when the machine is busy), columns per second,
rows per second, and the process's peak RSS (mostly the test frame itself).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from _common import peak_rss_mb

from deid_desktop.core.tagging import suggest_tags

FIRST = np.array(["Maria", "James", "Ana", "Robert", "Linda", "José", "Wei", "Fatima", "Emily"])
LAST = np.array(["Smith", "Garcia", "Nguyen", "Johnson", "Brown", "Müller", "Okafor", "Lee"])
NOTES = np.array(
    [
        "Patient seen with daughter; reports shortness of breath on exertion, no chest pain.",
        "Follow-up call scheduled. Weight stable, ankle swelling improved since discharge.",
        "Discussed diuretic dose with patient and spouse; will recheck labs next week.",
        "",
    ]
)


def demo_like_frame(rows: int, seed: int = 7) -> pd.DataFrame:
    """Strings, as the loader delivers them: 14 columns like the demo extract."""
    rng = np.random.default_rng(seed)
    ids = np.arange(1, rows + 1)
    dob = pd.Timestamp("1930-01-01") + pd.to_timedelta(rng.integers(0, 25000, rows), unit="D")
    dis = pd.Timestamp("2022-01-01") + pd.to_timedelta(rng.integers(0, 700, rows), unit="D")
    area = rng.integers(200, 999, rows).astype(str)
    line = rng.integers(0, 10000, rows).astype(str)
    cols = {
        "patient_id": np.char.add("P", np.char.zfill(ids.astype(str), 7)),
        "mrn": np.char.add("SYN-", (1_000_000 + ids).astype(str)),
        "first_name": rng.choice(FIRST, rows),
        "last_name": rng.choice(LAST, rows),
        "dob": dob.strftime("%Y-%m-%d").to_numpy(),
        "age": rng.integers(18, 101, rows).astype(str),
        "sex": rng.choice(np.array(["F", "M"]), rows),
        "race": rng.choice(np.array(["White", "Black", "Asian", "Other"]), rows),
        "ethnicity": rng.choice(np.array(["Hispanic", "Not Hispanic"]), rows),
        "zip": np.char.zfill(rng.integers(500, 99999, rows).astype(str), 5),
        "phone": np.char.add(np.char.add(np.char.add("(", area), ") 555-"), np.char.zfill(line, 4)),
        "notes": rng.choice(NOTES, rows),
        "lvef": rng.integers(10, 70, rows).astype(str),
        "discharge_date": dis.strftime("%Y-%m-%d").to_numpy(),
    }
    frame = pd.DataFrame({k: pd.array(v, dtype=pd.StringDtype("pyarrow")) for k, v in cols.items()})
    return frame.mask(frame == "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for rows in args.rows:
        frame = demo_like_frame(rows)
        suggest_tags(frame, table="demographics")  # warm-up: name lists, imports
        times, cpu_times = [], []
        for _ in range(args.repeat):
            start, cpu_start = time.perf_counter(), time.process_time()
            tags = suggest_tags(frame, table="demographics")
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu_start)
        best = min(times)
        peak_mb = peak_rss_mb()
        print(
            f"{rows:>9,} rows x {len(tags)} columns: {best:.3f} s per table "
            f"(median {sorted(times)[len(times) // 2]:.3f} s, CPU {min(cpu_times):.3f} s), "
            f"{len(tags) / best:,.0f} columns/s, {rows / best:,.0f} rows/s, "
            f"peak RSS {peak_mb:,.0f} MB"
        )


if __name__ == "__main__":
    main()
