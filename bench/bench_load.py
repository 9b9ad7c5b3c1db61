"""Benchmark: load a 14-column clinical-ish CSV of 100k and 1M rows with ``read_table``.

Each size is generated once in a temporary folder and measured in a fresh subprocess, so
the peak RSS (``resource.getrusage``) belongs to that load alone. Prints seconds, rows/s,
MB/s and peak RSS. Run: ``.venv/bin/python bench/bench_load.py [ROWS ...]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from _common import child_json, peak_rss_mb

if TYPE_CHECKING:
    import pandas as pd

# The parent process stays small (no pandas): on Linux a child's peak RSS starts from
# its parent's, so data is generated and loaded in children of a lean parent.

SIZES = (100_000, 1_000_000)
XLSX_ROWS = 20_000
GIVEN = ("Maria", "José", "Li", "Aisha", "John", "Chloé", "Dmitri", "Fatima", "Noah", "Zoë")
FAMILY = ("Smith", "García", "Nguyen", "O'Brien", "Kowalski", "Müller", "Okafor", "Haddad")
NOTES = (
    "Stable, no complaints.",
    'Pt reports "mild" dyspnea, on furosemide; follow-up in 2 weeks',
    "Daughter called re: appointment, see note",
    "",
    "BP elevated, recheck\nnext visit",
)


def make_frame(rows: int, seed: int = 7) -> pd.DataFrame:
    """A synthetic extract: ids, names, dates, ZIP with leading zeros, phone, numbers, notes."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    idx = np.arange(rows)
    base = np.datetime64("1930-01-01")
    dob = base + rng.integers(0, 365 * 80, rows).astype("timedelta64[D]")
    visit = np.datetime64("2020-01-01") + rng.integers(0, 1500, rows).astype("timedelta64[D]")
    zips = rng.integers(600, 99950, rows)
    phone = rng.integers(2_000_000_000, 9_999_999_999, rows).astype(str)
    frame = pd.DataFrame(
        {
            "patient_id": pd.Series(idx).map("P{:07d}".format),
            "mrn": pd.Series(rng.integers(10**7, 10**8, rows)).astype(str),
            "first_name": np.asarray(GIVEN)[rng.integers(0, len(GIVEN), rows)],
            "last_name": np.asarray(FAMILY)[rng.integers(0, len(FAMILY), rows)],
            "dob": pd.Series(dob).dt.strftime("%Y-%m-%d"),
            "sex": np.asarray(("F", "M", "U"))[rng.integers(0, 3, rows)],
            "zip": pd.Series(zips).map("{:05d}".format),
            "phone": pd.Series(phone).str.slice(0, 3)
            + "-"
            + pd.Series(phone).str.slice(3, 6)
            + "-"
            + pd.Series(phone).str.slice(6, 10),
            "visit_date": pd.Series(visit).dt.strftime("%m/%d/%Y"),
            "weight_kg": np.round(rng.normal(80, 15, rows), 1).astype(str),
            "ef_percent": rng.integers(10, 70, rows).astype(str),
            "nt_probnp": rng.integers(50, 30000, rows).astype(str),
            "diagnosis": np.asarray(("I50.9", "I50.22", "I11.0", "NA"))[rng.integers(0, 4, rows)],
            "notes": np.asarray(NOTES)[rng.integers(0, len(NOTES), rows)],
        }
    )
    return frame


def write_csv(rows: int, folder: Path) -> Path:
    path = folder / f"extract_{rows}.csv"
    make_frame(rows).to_csv(path, index=False)
    return path


def write_xlsx(rows: int, folder: Path) -> Path:
    """As pandas writes it (openpyxl, inline strings, with a dimension record)."""
    path = folder / f"extract_{rows}.xlsx"
    make_frame(rows).to_excel(path, index=False, sheet_name="extract")
    return path


def measure(path: Path) -> dict[str, float]:
    """Runs in the child process: one load, its time and the process's peak RSS; then
    the date-format check of two date columns (every value)."""
    from deid_desktop.core.io import infer_date_format, read_table

    start = time.perf_counter()
    table = read_table(path)
    seconds = time.perf_counter() - start
    peak_mb = peak_rss_mb()
    start = time.perf_counter()
    for column in ("dob", "visit_date"):
        infer_date_format(table.frame[column], file=path.name, column=column)
    dates_seconds = (time.perf_counter() - start) / 2
    return {
        "rows": table.report.rows,
        "columns": table.report.columns,
        "seconds": seconds,
        "peak_rss_mb": peak_mb,
        "mb": path.stat().st_size / 1e6,
        "dates_seconds": dates_seconds,
    }


def _child(*args: str) -> str:
    out = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, check=True
    )
    return out.stdout


def run_child(path: Path, kind: str) -> None:
    r = child_json(__file__, "--child", path)
    print(
        f"load {kind} {r['rows']:>9,} rows x {r['columns']} cols  {r['mb']:7.1f} MB  "
        f"{r['seconds']:6.2f} s  {r['rows'] / r['seconds']:>11,.0f} rows/s  "
        f"{r['mb'] / r['seconds']:6.1f} MB/s  peak RSS {r['peak_rss_mb']:7.0f} MB  "
        f"| date format check {r['dates_seconds']:.2f} s per column"
    )


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--child":
        print(json.dumps(measure(Path(argv[1]))))
        return 0
    if len(argv) == 4 and argv[0] == "--generate":
        writer = write_xlsx if argv[1] == "xlsx" else write_csv
        print(writer(int(argv[2]), Path(argv[3])))
        return 0
    sizes = tuple(int(a) for a in argv) or SIZES
    with tempfile.TemporaryDirectory(prefix="deid-bench-") as tmp:
        for rows in sizes:
            run_child(Path(_child("--generate", "csv", str(rows), tmp).strip()), "CSV ")
        xlsx = _child("--generate", "xlsx", str(XLSX_ROWS), tmp).strip()
        run_child(Path(xlsx), "XLSX")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
