"""Run pairs of `deid run` at once on a project whose date column is ambiguous, and count
exit codes. Every run must end with exit 4 (bad input); an abort (exit 134, SIGABRT) or
any other code is a bug (issue 16: 'terminate called without an active exception').

    python bench/stress_concurrent_runs.py [PAIRS]   (default 200)

Prints the tally of exit codes and the wall time; exits 1 when a run ended otherwise.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

DEID = [sys.executable, "-m", "deid_desktop"]


def make_project(folder: Path) -> Path:
    rng = random.Random(16)
    lines = ["mrn,birth_date,sex,zip"]
    for i in range(2000):
        born = f"{rng.randint(1, 12):02d}/{rng.randint(1, 12):02d}/{rng.randint(1940, 2000)}"
        lines.append(f"MRN{i:06d},{born},F,{rng.randint(10000, 99999)}")
    (folder / "persons.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    project = folder / "p.deid.json"
    subprocess.run(
        [*DEID, "init", str(folder / "persons.csv"), "-o", str(project)],
        check=True,
        capture_output=True,
    )
    return project


def run_pair(project: Path, folder: Path, n: int) -> list[tuple[int, str]]:
    register = ["--register", str(folder / "register.jsonl")]
    procs = [
        subprocess.Popen(
            [*DEID, "run", str(project), "--out", str(folder / f"out{n}_{k}"), *register],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(2)
    ]
    results = []
    for proc in procs:
        _out, err = proc.communicate(timeout=120)
        results.append((proc.returncode, err))
    return results


def main() -> int:
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    codes: Counter[int] = Counter()
    odd: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        project = make_project(folder)
        start = time.perf_counter()
        for n in range(pairs):
            for code, err in run_pair(project, folder, n):
                codes[code] += 1
                if code != 4:
                    print(f"pair {n}: exit {code}", flush=True)
                    if len(odd) < 5:
                        odd.append(f"exit {code}: {err.strip()[-300:]}")
        elapsed = time.perf_counter() - start
    print(f"{pairs} concurrent pairs, {2 * pairs} runs in {elapsed:.1f} s")
    for code, count in sorted(codes.items()):
        print(f"  exit {code}: {count}")
    for line in odd:
        print("  " + line)
    return 0 if set(codes) == {4} else 1


if __name__ == "__main__":
    sys.exit(main())
