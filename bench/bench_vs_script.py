"""Benchmark: ``deid run`` (Safe Harbor) against a plain hand-written pandas script that
makes the same Safe Harbor transformations with no checks, side by side on one extract.

The extract is the demo generator's (``core.demo.make_demo_frames``: demographics and
baseline one row per person, about 2.5 visits per person, free-text notes), with its
person key written ``HF`` + digits (see ``_common.cached_keyed_demo``), written once as
CSV under a cache folder. Per size, three rounds, interleaved (deid, script, deid,
script, ...), each program a fresh child process whose own CPU seconds (user + system)
and peak RSS come from ``os.wait4``. The script (``SCRIPT`` below) reads the three CSVs as
text, drops the direct columns and the notes, replaces the key by a seeded random subject
ID, reduces dates to years, pools ages over 89 as "90+" with every year of those
persons removed, cuts ZIP to ZIP3 ("000" for restricted prefixes and missing or
malformed ZIPs), orders rows by subject ID and writes three CSVs - what a statistician
writes in an afternoon. On this extract its three CSVs are byte for byte ``deid run``'s
(years are also removed for persons turning 90 by the extract's last year and for years
91 or more apart, as the product does). ``deid run`` also verifies the release, scores
its risk, reads it back and writes the record and crosswalk.

Prints, per size, the median CPU seconds, wall seconds and peak RSS of each, their CPU
ratio (script / deid: above 1 means deid is the faster), and across sizes the exponent
of CPU cost against size (least squares on log-log; 1.0 is linear). The load average
is printed with the results: on a shared machine the CPU figure is the steadier one.

    .venv/bin/python bench/bench_vs_script.py [--sizes 100000,1000000,3000000]
        [--rounds 3] [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, cached_keyed_demo

SIZES = (100_000, 1_000_000)
#: The environment as the user started the bench, before importing the engine (which
#: sets Arrow's allocator for itself): the script runs in it, as a user would run it.
USER_ENV = dict(os.environ)

#: The hand-written script: plain pandas, no checks. argv: source folder, output folder,
#: seed, restricted ZIP3 prefixes (comma-separated).
SCRIPT = r"""
import sys
from pathlib import Path
import numpy as np
import pandas as pd

src, out, seed, restricted = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
restricted = set(restricted.split(","))
read = dict(dtype=str, keep_default_na=False, na_values=[""])
demo = pd.read_csv(src / "demographics.csv", **read)
base = pd.read_csv(src / "baseline.csv", **read)
visits = pd.read_csv(src / "visits.csv", **read)

n = len(demo)
width = max(4, len(str(n)))
numbers = np.random.default_rng(seed).permutation(n) + 1
subject = pd.Series(["S" + str(i).zfill(width) for i in numbers], index=demo["patient_id"])

age = pd.to_numeric(demo["age"])
dob = pd.to_datetime(demo["dob"], format="%Y-%m-%d")
discharge = pd.to_datetime(base["discharge_date"], format="%Y-%m-%d")
visit = pd.to_datetime(visits["visit_date"], format="%Y-%m-%d")
# every year of a person goes who is over 89, turns 90 by the year of the latest date,
# or whose years lie 91 or more apart
last = max(discharge.max(), visit.max())
latest = pd.concat([discharge.dt.year.groupby(base["patient_id"]).max(),
                    visit.dt.year.groupby(visits["patient_id"]).max()]).groupby(level=0).max()
span = latest.reindex(demo["patient_id"]).to_numpy() - dob.dt.year.to_numpy()
old = age >= 90
blank = (old | (last.year - dob.dt.year >= 90) | (span >= 91)).to_numpy()
old_keys = set(demo.loc[blank, "patient_id"])

zip3 = demo["zip"].str[:3]
ok = demo["zip"].str.fullmatch(r"\d{5}").fillna(False) & ~zip3.isin(restricted)
zip3 = zip3.where(ok, "000")

def year(dates, blank):
    y = pd.to_datetime(dates, format="%Y-%m-%d").dt.year.astype("Int64")
    return y.mask(blank)

demo_out = pd.DataFrame({
    "subject_id": subject.to_numpy(),
    "dob_year": year(demo["dob"], blank),
    "age": age.astype("Int64").astype(str).where(~old, "90+"),
    "sex": demo["sex"], "race": demo["race"], "ethnicity": demo["ethnicity"],
    "zip3": zip3,
}).sort_values("subject_id")
base_out = base.drop(columns=["patient_id", "discharge_date"])
blank_base = base["patient_id"].isin(old_keys)
base_out.insert(0, "discharge_year", year(base["discharge_date"], blank_base))
base_out.insert(0, "subject_id", base["patient_id"].map(subject))
visits_out = visits.drop(columns=["patient_id", "visit_date"])
visits_out.insert(0, "visit_year", year(visits["visit_date"], visits["patient_id"].isin(old_keys)))
visits_out.insert(0, "subject_id", visits["patient_id"].map(subject))
base_out = base_out.sort_values("subject_id", kind="stable")
visits_out = visits_out.sort_values("subject_id", kind="stable")

out.mkdir(parents=True, exist_ok=True)
demo_out.to_csv(out / "demographics.csv", index=False)
base_out.to_csv(out / "baseline.csv", index=False)
visits_out.to_csv(out / "visits.csv", index=False)
"""


def _measured(argv: list[str], env: dict[str, str] | None = None) -> dict[str, float]:
    """Run ``argv`` as a child; its own CPU seconds, wall seconds and peak RSS (MB)."""
    t0 = time.perf_counter()
    child = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if child.returncode != 0:
        raise SystemExit(f"benchmark child failed: {argv[:3]}\n{err.decode()[-3000:]}")
    rss = usage.ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else usage.ru_maxrss / 1024
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "peak_mb": rss}


def _byte_compiled() -> str:
    """Byte-compile the engine's modules into their ``__pycache__`` folders, as pip and the
    packaged app do when they install it, so that ``deid run`` is timed as a user runs it
    (pandas, which the script imports, is compiled at its install too). A checkout run
    with PYTHONDONTWRITEBYTECODE set (as the development sessions' shells are) otherwise
    compiles some 200 modules from source in every run: about 0.3 s CPU per run."""
    done = subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "deid_desktop")],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return f"no (compileall failed: {done.stdout[-200:]}{done.stderr[-200:]})"
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE")
    return "yes" + (" (PYTHONDONTWRITEBYTECODE is set in this shell)" if flag else "")


def _deid(project: Path, work: Path) -> dict[str, float]:
    shutil.rmtree(work, ignore_errors=True)
    deid = Path(sys.executable).with_name("deid")
    argv = [str(deid), "run", str(project), "--out", str(work / "release")]
    argv += ["--crosswalk-out", str(work / "crosswalk"), "--register", str(work / "reg.jsonl")]
    return _measured(argv)


def _script(project: Path, work: Path, seed: int, restricted: str) -> dict[str, float]:
    shutil.rmtree(work, ignore_errors=True)
    argv = [sys.executable, "-c", SCRIPT, str(project.parent), str(work / "out"), str(seed)]
    return _measured([*argv, restricted], env=USER_ENV)


STAGES_CHILD = r"""
import json, resource, shutil, sys, time
from pathlib import Path
import deid_desktop.core.export.readback as readback
import deid_desktop.core.export.release as release
import deid_desktop.core.pathways as pathways
import deid_desktop.core.risk as risk
import deid_desktop.core.verify as verify
from deid_desktop.core import engine

project_path, work = Path(sys.argv[1]), Path(sys.argv[2])
out = {}
def timed(name, fn):
    c0 = time.process_time()
    value = fn()
    out[name] = {"cpu": time.process_time() - c0,
                 "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    return value
def wrap(module, attr, name):  # time the function where engine.run calls it
    fn = getattr(module, attr)
    setattr(module, attr, lambda *a, **k: timed(name, lambda: fn(*a, **k)))
wrap(pathways, "build_release", "build")
wrap(readback, "readback_dictionary", "read-back dictionary")
wrap(risk, "risk_report", "risk")
wrap(verify, "verify_release", "verify")
wrap(release, "readback_gate", "read-back")
project, _ = timed("open", lambda: engine.open_project(project_path))
extract = timed("load", lambda: engine.load(project, project_path))
result = timed("review", lambda: engine.review(project, extract))
assert result.passed
del extract
timed("export", lambda: engine.export(
    project, project_path, result, out_dir=work / "release", crosswalk_dir=work / "crosswalk",
    register_path=work / "reg.jsonl"))
out["export (without read-back)"] = {
    "cpu": out["export"]["cpu"] - out["read-back"]["cpu"], "peak_mb": out["export"]["peak_mb"]}
print(json.dumps(out))
"""


def _stages(project: Path, work: Path) -> dict[str, dict[str, float]]:
    shutil.rmtree(work, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-c", STAGES_CHILD, str(project), str(work)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise SystemExit(f"stages child failed:\n{done.stderr[-3000:]}")
    figures: dict[str, dict[str, float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _print_stages(runs: list[dict[str, dict[str, float]]]) -> None:
    print(
        "  stages of one run in one process, as engine.run calls them (median CPU s; the\n"
        "  process's peak RSS when the stage ends; review = build + read-back dictionary +\n"
        "  risk + verify; export includes the read-back):"
    )
    for stage in runs[0]:
        cpu = statistics.median(r[stage]["cpu"] for r in runs)
        peak = statistics.median(r[stage]["peak_mb"] for r in runs)
        print(f"    {stage:28} {cpu:6.2f} s  peak {peak:,.0f} MB")


def exponent(sizes: list[int], costs: list[float]) -> float:
    """Least-squares slope of log(cost) on log(size)."""
    xs, ys = [math.log(s) for s in sizes], [math.log(c) for c in costs]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    num = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    return num / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        default=",".join(map(str, SIZES)),
        help="persons per extract, comma-separated (e.g. 100000,1000000,3000000)",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--stages", action="store_true", help="also time each stage of the run, per round"
    )
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "deid-bench")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    args.cache.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    from deid_desktop.core.demo import DEFAULT_SEED, restricted_prefixes
    from deid_desktop.core.zip3 import load_bundled_zip3

    restricted = ",".join(load_bundled_zip3().restricted)
    assert restricted_prefixes()  # the demo plants ZIPs in restricted prefixes
    compiled = _byte_compiled()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    print(f"deid_desktop byte-compiled before the rounds: {compiled}", flush=True)
    medians: dict[str, list[float]] = {"deid": [], "script": []}
    for persons in sizes:
        project = cached_keyed_demo(args.cache, persons)
        work = Path(tempfile.mkdtemp(prefix="deid-vs-script-"))
        runs: dict[str, list[dict[str, float]]] = {"deid": [], "script": []}
        stage_runs: list[dict[str, dict[str, float]]] = []
        try:
            for _ in range(args.rounds):
                runs["deid"].append(_deid(project, work))
                runs["script"].append(_script(project, work, DEFAULT_SEED, restricted))
                if args.stages:
                    stage_runs.append(_stages(project, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(f"\n{persons:,} persons ({args.rounds} rounds, interleaved; median [range])")
        med: dict[str, dict[str, float]] = {}
        for who, label in (("deid", "deid run"), ("script", "script  ")):
            rs = runs[who]
            med[who] = {k: statistics.median(r[k] for r in rs) for k in ("cpu", "wall", "peak_mb")}
            cpus = sorted(r["cpu"] for r in rs)
            print(
                f"  {label} CPU {med[who]['cpu']:6.2f} s [{cpus[0]:.2f}-{cpus[-1]:.2f}]  "
                f"wall {med[who]['wall']:6.2f} s  peak RSS {med[who]['peak_mb']:,.0f} MB "
                f"({med[who]['peak_mb'] / 1024:.2f} GiB)"
            )
            medians[who].append(med[who]["cpu"])
        if stage_runs:
            _print_stages(stage_runs)
        ratio = med["script"]["cpu"] / med["deid"]["cpu"]
        print(
            f"  CPU ratio script / deid run: {ratio:.2f} "
            f"({'deid run faster' if ratio > 1 else 'script faster'}); "
            f"peak deid / script: {med['deid']['peak_mb'] / med['script']['peak_mb']:.2f}",
            flush=True,
        )
    if len(sizes) > 1:
        print(
            f"\nCPU cost exponent against size (log-log least squares, "
            f"{sizes[0]:,}-{sizes[-1]:,}): deid run {exponent(sizes, medians['deid']):.2f}, "
            f"script {exponent(sizes, medians['script']):.2f}"
        )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
