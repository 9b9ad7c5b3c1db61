"""The value check of the gate ("no released column looks like an identifier") on the
demo's Safe Harbor release at 100k and 1M persons (visits about 2.5 rows per person).

Prints, per size: rows and columns read, seconds for the check (best of three), ms per
column, and the same with mrn, phone, first_name, last_name and zip re-tagged clinical
(so five identifier columns are released and found). The release itself is built once
per size and not timed.

    .venv/bin/python bench/bench_verify_values.py [PERSONS ...]
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

from _common import loaded_table, peak_rss_mb

from deid_desktop.core.demo import demo_project, make_demo_frames
from deid_desktop.core.model import ColumnClass, Extract, Project
from deid_desktop.core.pathways import build_release
from deid_desktop.core.verify import VerifyContext
from deid_desktop.core.verify.values import check_no_identifier_columns

SIZES = (100_000, 1_000_000)
RETAGGED = ("mrn", "phone", "first_name", "last_name", "zip")


def _retagged(project: Project) -> Project:
    def loosen(spec):  # type: ignore[no-untyped-def]
        cols = tuple(
            replace(t, cls=ColumnClass.CLINICAL, role=None, category=None)
            if t.name in RETAGGED
            else t
            for t in spec.columns
        )
        return replace(spec, columns=cols)

    return replace(project, tables=tuple(loosen(s) for s in project.tables))


def _time(extract: Extract, project: Project) -> tuple[float, int, int, int]:
    release = build_release(extract, project)
    ctx = VerifyContext(extract, project)
    best = float("inf")
    found = None
    for _ in range(3):
        start = time.perf_counter()
        found = check_no_identifier_columns(extract, release, project, ctx)
        best = min(best, time.perf_counter() - start)
    assert found is not None
    rows = sum(len(f) for f in release.tables.values())
    return best, int(found.detail["columns_read"]), found.count, rows  # type: ignore[call-overload]


def main(sizes: tuple[int, ...]) -> None:
    for persons in sizes:
        frames = make_demo_frames(persons)
        project = demo_project(frames, dict.fromkeys(frames, "0" * 64), 20260423)
        extract = Extract(
            loaded_table("demographics", frames["demographics"]),
            (
                loaded_table("baseline", frames["baseline"]),
                loaded_table("visits", frames["visits"]),
            ),
        )
        for label, proj in (("demo tags", project), ("5 retagged", _retagged(project))):
            secs, cols, bad, rows = _time(extract, proj)
            print(
                f"{persons:>9,} persons {label:>10}: {rows:>10,} released rows, {cols} columns "
                f"read in {secs:.3f} s ({secs / cols * 1000:.1f} ms/column), "
                f"{bad} flagged; peak RSS {peak_rss_mb():,.0f} MB"
            )


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
