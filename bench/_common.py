"""What the benchmark scripts share: peak RSS and CPU time of this process, a measurement
run in a fresh child process (so its peak RSS is its own), and the cached demo extract.

The scripts are run as ``.venv/bin/python bench/bench_x.py``, so this folder is on
``sys.path`` and they import it as ``_common``.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def peak_rss_mb() -> float:
    """This process's peak resident set size in MB (ru_maxrss is bytes on macOS, KiB else)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def cpu_seconds() -> float:
    """User + system CPU seconds of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child_json(
    *args: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run ``python ARGS`` in a fresh process and read the JSON object it prints last.

    A failed child stops the benchmark with the end of its stderr.
    """
    done = subprocess.run(
        [sys.executable, *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env=env,
    )
    if done.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def loaded_table(name: str, frame: Any) -> Any:
    """``frame`` as the loader would return table ``name`` (a ``LoadedTable``, no file)."""
    from deid_desktop.core.model import LoadedTable, LoadReport

    report = LoadReport(f"{name}.csv", len(frame), len(frame.columns))
    return LoadedTable(name, Path(f"{name}.csv"), "0" * 64, frame, report)


def cached_demo(cache: Path, persons: int) -> Path:
    """The demo extract of ``persons`` persons under ``cache`` (generated once, then
    reused); returns its project file."""
    folder = cache / f"demo-{persons}"
    project = folder / "demo.deid.json"
    if project.exists():
        return project
    from deid_desktop.core.demo import write_demo

    t0 = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(dir=cache, prefix=".gen-"))
    write_demo(tmp, rows=persons)
    tmp.rename(folder)
    print(f"  generated {persons:,} persons in {time.perf_counter() - t0:.1f} s", flush=True)
    return project


def cached_keyed_demo(cache: Path, persons: int) -> Path:
    """The demo extract of ``persons`` persons with its person key written ``HF`` +
    digits (the demo's own keys are bare digits), generated once under ``cache``;
    returns its project file.

    The demo numbers persons 0001, 0002, ... and the release numbers subjects S0001,
    S0002, ... in a random order; from 100,000 persons on, the read-back gate finds
    every subject ID's digits among the person keys and refuses the release. An
    extract whose keys carry letters is released as a real one would be.
    """
    folder = cache / f"keyed-{persons}"
    project = folder / "demo.deid.json"
    if project.exists():
        return project
    import hashlib

    import pandas as pd

    from deid_desktop.core import demo
    from deid_desktop.core.atomic import atomic_write_bytes
    from deid_desktop.core.project import project_to_json

    t0 = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(dir=cache, prefix=".gen-"))
    frames = demo.make_demo_frames(persons, demo.DEFAULT_SEED)
    digests: dict[str, str] = {}
    for name, file in demo.TABLE_FILES.items():
        frame = frames[name]
        frame["patient_id"] = ("HF" + frame["patient_id"]).astype(pd.StringDtype("pyarrow"))
        data = demo._csv_bytes(frame)
        digests[name] = hashlib.sha256(data).hexdigest()
        atomic_write_bytes(tmp / file, data)
    spec = demo.demo_project(frames, digests, demo.DEFAULT_SEED)
    atomic_write_bytes(tmp / demo.PROJECT_FILE, project_to_json(spec).encode("utf-8"))
    tmp.rename(folder)
    print(f"  generated {persons:,} persons in {time.perf_counter() - t0:.1f} s", flush=True)
    return project
