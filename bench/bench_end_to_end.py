"""Benchmark: a whole Safe Harbor run, stage by stage and end to end, at 100k and 1M persons.

The extract is the demo generator's (``core.demo.write_demo``: demographics and baseline
one row per person, about 2.5 visits per person, free-text notes), written once as CSV
files with its project under a cache folder. Then, per size, two fresh subprocesses:

- *stages*: open the project, load (read + hash-check + relations), build the release,
  verify it, measure risk, scan the notes, export (CSV) - each timed on its own;
- *run*: ``engine.run`` exactly as ``deid run`` calls it - the whole run, timed inside the
  process and from outside (interpreter start and imports included), with peak RSS.

Peak RSS comes from ``resource.getrusage`` in each child, so a size's figure is its own.
Each stage shows wall seconds and the process's CPU seconds: on a shared machine the CPU
figure is the steadier one (the load average is printed with the results).
Targets (2-core machine): whole Safe Harbor run of 1M persons under 20 s and 2 GB.

    .venv/bin/python bench/bench_end_to_end.py [PERSONS ...] [--cache DIR] [--xlsx]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from _common import ROOT, cached_demo, child_json, peak_rss_mb

T = TypeVar("T")
SIZES = (100_000, 1_000_000)
TARGET_SECONDS = 20.0
TARGET_RSS_MB = 2048.0


def _stages(project_path: Path, work: Path, xlsx: bool) -> dict[str, float]:
    from deid_desktop.core import engine
    from deid_desktop.core.export import export_release
    from deid_desktop.core.pathways import build_release
    from deid_desktop.core.risk import risk_report
    from deid_desktop.core.scan import build_dictionary, scan_frames
    from deid_desktop.core.verify import verify_release

    out: dict[str, float] = {}

    def timed(name: str, fn: Callable[[], T]) -> T:
        t0, c0 = time.perf_counter(), time.process_time()
        value = fn()
        out[f"{name}_s"] = time.perf_counter() - t0
        out[f"{name}_cpu"] = time.process_time() - c0
        return value

    project, _ = timed("open", lambda: engine.open_project(project_path))
    extract = timed("load", lambda: engine.load(project, project_path))
    out["input_mb"] = sum(t.path.stat().st_size for t in extract.tables) / 1e6
    out["rows"] = sum(len(t.frame) for t in extract.tables)
    out["persons"] = len(extract.person.frame)
    release = timed("build", lambda: build_release(extract, project))
    verification = timed("verify", lambda: verify_release(extract, release, project))
    if not verification.passed:
        failed = [o.check.id for o in verification.blocking_failures]
        raise SystemExit(f"blocking checks failed: {failed}")
    person = release.tables[project.person_table.name]
    qis = engine.quasi_identifiers_for(project, release)
    risk = timed("risk", lambda: risk_report(person, qis, k_target=project.risk.k_target))
    texts = engine.text_columns_for(project, extract)
    frames = {name: extract.table(name).frame for name in texts}
    out["notes_mb"] = (
        sum(
            float(frames[t][c].str.len().sum(skipna=True))
            for t, cols in texts.items()
            for c in cols
        )
        / 1e6
    )
    scan = timed("scan", lambda: scan_frames(frames, texts, build_dictionary(extract, project)))
    review = engine.ReviewResult(project, release, verification, risk, scan)
    meta = project.export
    if xlsx:
        from dataclasses import replace

        meta = replace(meta, formats=("csv", "xlsx"))
    timed(
        "export",
        lambda: export_release(
            review.release,
            review.verification,
            project=project,
            extract_inputs={t.name: (t.path, t.sha256) for t in extract.tables},
            risk=risk,
            scan=scan,
            out_dir=work / "release",
            crosswalk_dir=work / "crosswalk",
            meta=meta,
            register_path=work / "register.jsonl",
        ),
    )
    out["output_mb"] = sum(p.stat().st_size for p in (work / "release").iterdir()) / 1e6
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def _run(project_path: Path, work: Path) -> dict[str, float]:
    from deid_desktop.core import engine

    t0, c0 = time.perf_counter(), time.process_time()
    engine.run(
        project_path,
        out_dir=work / "release",
        crosswalk_dir=work / "crosswalk",
        register_path=work / "register.jsonl",
    )
    return {
        "run_s": time.perf_counter() - t0,
        "run_cpu": time.process_time() - c0,
        "peak_rss_mb": peak_rss_mb(),
    }


def _child(mode: str, project_path: Path, xlsx: bool) -> dict[str, float]:
    work = Path(tempfile.mkdtemp(prefix="deid-bench-"))
    args = [__file__, "--child", mode, project_path, work, *(["--xlsx"] if xlsx else [])]
    t0 = time.perf_counter()
    try:
        figures = child_json(*args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    figures["process_s"] = time.perf_counter() - t0
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("persons", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "deid-bench")
    parser.add_argument("--xlsx", action="store_true", help="stages: also export XLSX")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "PROJECT", "WORK"))
    args = parser.parse_args()
    if args.child:
        mode, project, work = args.child
        sys.path.insert(0, str(ROOT))
        fn = _stages if mode == "stages" else _run
        kwargs = {"xlsx": args.xlsx} if mode == "stages" else {}
        print(json.dumps(fn(Path(project), Path(work), **kwargs)))
        return

    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    for persons in args.persons:
        print(f"\n{persons:,} persons", flush=True)
        project = cached_demo(args.cache, persons)
        st = _child("stages", project, args.xlsx)
        print(
            f"  input  {st['rows']:,.0f} rows in 3 tables, {st['input_mb']:.0f} MB CSV "
            f"({st['notes_mb']:.1f} MB of notes)"
        )
        for stage in ("open", "load", "build", "verify", "risk", "scan", "export"):
            s = st[f"{stage}_s"]
            extra = ""
            if stage == "load":
                extra = f"  {st['input_mb'] / s:,.0f} MB/s, {st['rows'] / s:,.0f} rows/s"
            elif stage in ("build", "verify"):
                extra = f"  {st['rows'] / s:,.0f} rows/s"
            elif stage == "risk":
                extra = f"  {st['persons'] / s:,.0f} persons/s"
            elif stage == "scan":
                extra = f"  {st['notes_mb'] / s:,.1f} MB/s of notes"
            elif stage == "export":
                extra = f"  {st['output_mb'] / s:,.0f} MB/s ({st['output_mb']:.0f} MB written)"
            print(f"  {stage:7} {s:7.2f} s (CPU {st[f'{stage}_cpu']:6.2f} s){extra}")
        print(f"  stages peak RSS {st['peak_rss_mb']:,.0f} MB")
        run = _child("run", project, False)
        verdict = ""
        if persons == 1_000_000:
            ok = run["process_s"] < TARGET_SECONDS and run["peak_rss_mb"] < TARGET_RSS_MB
            verdict = f"  [target {TARGET_SECONDS:.0f} s / {TARGET_RSS_MB:.0f} MB: "
            verdict += "met]" if ok else "NOT met]"
        print(
            f"  whole run (engine.run = deid run): {run['run_s']:.2f} s in process "
            f"(CPU {run['run_cpu']:.2f} s), {run['process_s']:.2f} s with start-up, "
            f"peak RSS {run['peak_rss_mb']:,.0f} MB" + verdict,
            flush=True,
        )


if __name__ == "__main__":
    main()
