"""Benchmark: the free-text scan of a whole project, and a run that redacts the notes.

The extract is the demo generator's (``core.demo.write_demo``: one note per person,
about a third of them written, with the patient's name, a phone or a date), written once
as CSV files with its project under a cache folder. Per size, fresh subprocesses:

- *scan*: open and load the project, then what ``deid scan PROJECT`` does - build the
  dictionary from every direct column (names, MRNs, phones; each name's owner) and scan
  every free-text column, person-aware - each step timed on its own (wall and CPU
  seconds), with the peak RSS of the process;
- *redact*: ``engine.run`` exactly as ``deid run`` calls it, on a copy of the project
  whose notes are set to "redact hits" (so the run scans, redacts and reads back the
  release), timed inside the process, with its peak RSS.

Each figure is the median of ``--repeat`` runs (3 by default), interleaved. The load
average is printed: on a shared machine the CPU seconds are the steadier figure.
Targets at 1M persons: the project scan under 20 s and 2 GB; the redacting run at most
15 s of CPU and 2 GB.

    .venv/bin/python bench/bench_project_scan.py [PERSONS ...] [--cache DIR] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import cached_demo, child_json, cpu_seconds, peak_rss_mb

SIZES = (1_000_000,)
TARGET_SCAN_S = 20.0
TARGET_RUN_CPU = 15.0
TARGET_MB = 2048.0


def _scan(project_path: Path) -> dict[str, float]:
    from deid_desktop.core import engine
    from deid_desktop.core.scan import build_dictionary, scan_frames

    project, _ = engine.open_project(project_path)
    extract = engine.load(project, project_path)
    texts = engine.text_columns_for(project, extract)
    frames = {name: extract.table(name).frame for name in texts}
    out: dict[str, float] = {
        "notes_mb": sum(
            float(frames[t][c].str.len().sum(skipna=True))
            for t, cols in texts.items()
            for c in cols
        )
        / 1e6,
        "loaded_rss_mb": peak_rss_mb(),
    }
    t0, c0 = time.perf_counter(), cpu_seconds()
    dictionary = build_dictionary(extract, project)
    dictionary.matcher  # noqa: B018 - the word index is made on first use: count it here
    out["dictionary_s"], out["dictionary_cpu"] = time.perf_counter() - t0, cpu_seconds() - c0
    out["entries"] = len(dictionary)
    t0, c0 = time.perf_counter(), cpu_seconds()
    report = scan_frames(
        frames, texts, dictionary, person_keys={t.name: t.key for t in project.tables}
    )
    out["scan_s"], out["scan_cpu"] = time.perf_counter() - t0, cpu_seconds() - c0
    out["hits"] = report.total_hits
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def _redact(project_path: Path, work: Path) -> dict[str, float]:
    from deid_desktop.core import engine
    from deid_desktop.core.errors import CheckFailed

    t0, c0 = time.perf_counter(), cpu_seconds()
    refused, redacted = 0.0, -1.0
    try:
        record = engine.run(
            project_path,
            out_dir=work / "release",
            crosswalk_dir=work / "crosswalk",
            register_path=work / "register.jsonl",
        )
        done = record.record["parameters"]["release"]["free_text_hits_redacted"]
        redacted = float(sum(done.values()))
    except CheckFailed:  # the read-back refused the release: the run did all its work
        refused = 1.0
    return {
        "run_s": time.perf_counter() - t0,
        "run_cpu": cpu_seconds() - c0,
        "peak_rss_mb": peak_rss_mb(),
        "redacted": redacted,
        "refused": refused,
    }


def redacting_project(project_path: Path) -> Path:
    """A copy of the demo project (beside it, same inputs) with every free-text column
    set to "redact hits"."""
    from dataclasses import replace

    from deid_desktop.core.model import ColumnClass, FreeTextAction
    from deid_desktop.core.project import load_project, save_project

    path = project_path.with_name("demo-redact.deid.json")
    if path.exists():
        return path
    project = load_project(project_path)
    chosen = {
        f"{spec.name}.{tag.name}": FreeTextAction.REDACT
        for spec in project.tables
        for tag in spec.by_class(ColumnClass.FREE_TEXT)
    }
    save_project(replace(project, transform=replace(project.transform, free_text=chosen)), path)
    return path


def _child(mode: str, project_path: Path) -> dict[str, float]:
    work = Path(tempfile.mkdtemp(prefix="deid-bench-scan-"))
    try:
        return child_json(__file__, "--child", mode, project_path, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("persons", nargs="*", type=int)
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "deid-bench")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        mode, project, work = args.child
        figures = _scan(Path(project)) if mode == "scan" else _redact(Path(project), Path(work))
        print(json.dumps(figures))
        return
    args.cache.mkdir(parents=True, exist_ok=True)
    for persons in args.persons or SIZES:
        project = cached_demo(args.cache, persons)
        redact = redacting_project(project)
        runs: dict[str, list[dict[str, float]]] = {"scan": [], "redact": []}
        for _ in range(args.repeat):
            runs["scan"].append(_child("scan", project))
            runs["redact"].append(_child("redact", redact))

        def med(mode: str, key: str, runs: dict[str, list[dict[str, float]]] = runs) -> float:
            return statistics.median(r[key] for r in runs[mode])

        load = os.getloadavg()
        s = runs["scan"][0]
        scan_s = med("scan", "dictionary_s") + med("scan", "scan_s")
        print(
            f"{persons:,} persons, {s['notes_mb']:.1f} MB of notes, dictionary of "
            f"{s['entries']:,.0f} entries; median of {args.repeat}; load average "
            f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} (2 cores)"
        )
        print(
            f"  project scan: dictionary {med('scan', 'dictionary_s'):.2f} s wall / "
            f"{med('scan', 'dictionary_cpu'):.2f} s CPU, scan {med('scan', 'scan_s'):.2f} s "
            f"wall / {med('scan', 'scan_cpu'):.2f} s CPU ({s['hits']:,.0f} hits); "
            f"total {scan_s:.2f} s (target < {TARGET_SCAN_S:.0f} s); peak "
            f"{med('scan', 'peak_rss_mb'):,.0f} MB (loaded extract "
            f"{med('scan', 'loaded_rss_mb'):,.0f} MB; target < {TARGET_MB:,.0f} MB)"
        )
        print(
            f"  deid run, notes 'redact hits': {med('redact', 'run_s'):.2f} s wall / "
            f"{med('redact', 'run_cpu'):.2f} s CPU (target <= {TARGET_RUN_CPU:.0f} s CPU), "
            + (
                "the read-back refused the release (nothing written); "
                if runs["redact"][0]["refused"]
                else f"{runs['redact'][0]['redacted']:,.0f} hits redacted; "
            )
            + f"peak {med('redact', 'peak_rss_mb'):,.0f} MB (target <= {TARGET_MB:,.0f} MB)"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
