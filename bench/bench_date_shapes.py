"""The date-shape detector (core/io/date_shapes.py) on 1M values: a column of month-year
labels (every value a date), a column of lab values (none), and a date-named column of
Excel serials. Prints seconds (best of three) and values per second.

    .venv/bin/python bench/bench_date_shapes.py [N]
"""

from __future__ import annotations

import random
import sys
import time

import pandas as pd
from _common import peak_rss_mb

from deid_desktop.core.io.date_shapes import count_finer_than_year

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _columns(n: int) -> dict[str, tuple[pd.Series, str]]:
    rng = random.Random(16)
    text = "string[pyarrow]"
    labels = [f"{rng.choice(MONTHS)} {rng.randint(1950, 2024)}" for _ in range(n)]
    labs = [f"{rng.uniform(0, 300):.1f}" for _ in range(n)]
    serials = [str(rng.randint(20000, 45000)) for _ in range(n)]
    return {
        "month-year labels": (pd.Series(labels, dtype=text), "label"),
        "lab values": (pd.Series(labs, dtype=text), "result"),
        "Excel serials": (pd.Series(serials, dtype=text), "visit_date"),
    }


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    for name, (values, column) in _columns(n).items():
        best, found = float("inf"), 0
        for _ in range(3):
            start = time.perf_counter()
            found = count_finer_than_year(values, column=column)
            best = min(best, time.perf_counter() - start)
        print(f"{name:18s} {n:,} values: {best:.2f} s ({n / best:,.0f}/s), {found:,} dates")
    print(f"peak RSS {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
