"""Free-text scan throughput and recall, side by side with one `re` alternation.

Synthetic notes (~200-600 characters) with planted names, MRNs, phones, dates, e-mails,
doctor and relative cues; a dictionary of ~10,000 entries (names from the PhysioNet deid
lists - GPL data, used here only, never shipped). Prints MB/s of the scan, MB/s of a
single regex alternation of the same dictionary terms (whole words, ignore case) on the
same text, their ratio, recall on the planted spans and peak RSS.

    .venv/bin/python bench/bench_scan.py [--mb 30] [--baseline-mb 2]
"""

from __future__ import annotations

import argparse
import re
import resource
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deid_desktop.core.scan import scan_frames  # noqa: E402
from tests.core.test_scan_synth import make_notes  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=30.0, help="MB of note text to scan")
    ap.add_argument("--baseline-mb", type=float, default=0.5, help="MB for the regex baseline")
    args = ap.parse_args()

    t = time.perf_counter()
    n = int(args.mb * 1e6 / 400)
    notes, truth, dictionary = make_notes(SHARED, n=n, seed=5, dictionary_size=10_000)
    megabytes = sum(len(x) for x in notes) / 1e6
    print(
        f"generated {len(notes):,} notes, {megabytes:.1f} MB, dictionary {len(dictionary):,} "
        f"entries ({dictionary.counts()}) in {time.perf_counter() - t:.1f} s"
    )
    series = pd.Series(notes, dtype="string")
    frames = {"notes": pd.DataFrame({"text": series})}
    dictionary.matcher  # build once, as the app does when the dictionary is made  # noqa: B018

    t = time.perf_counter()
    report = scan_frames(frames, {"notes": ["text"]}, dictionary)
    scan_s = time.perf_counter() - t
    scan_rate = megabytes / scan_s
    print(f"scan: {scan_s:.2f} s, {scan_rate:.1f} MB/s, {report.total_hits:,} hits")

    covered = {(h.row, h.start, h.end) for h in report.hits}
    chars = {(h.row, i) for h in report.hits for i in range(h.start, h.end)}
    exact = sum(1 for r, s, e, _ in truth if (r, s, e) in covered)
    anyway = sum(1 for r, s, e, _ in truth if all((r, i) in chars for i in range(s, e)))
    by_kind: dict[str, list[int]] = {}
    for r, s, e, k in truth:
        got = all((r, i) in chars for i in range(s, e))
        by_kind.setdefault(k, [0, 0])[0] += got
        by_kind[k][1] += 1
    print(
        f"recall on {len(truth):,} planted spans: exact span {exact / len(truth):.4f}, "
        f"covered {anyway / len(truth):.4f}; by kind "
        + ", ".join(f"{k} {a / b:.4f}" for k, (a, b) in sorted(by_kind.items()))
    )

    # baseline: one regex alternation of the same dictionary terms, on a slice of the text
    terms = sorted(dictionary.terms, key=len, reverse=True)
    t = time.perf_counter()
    alternation = re.compile(
        r"\b(?:" + "|".join(re.escape(x).replace(r"\ ", r"\W") for x in terms) + r")\b",
        re.IGNORECASE,
    )
    compile_s = time.perf_counter() - t
    sample: list[str] = []
    size = 0
    for x in notes:
        if size >= args.baseline_mb * 1e6:
            break
        sample.append(x)
        size += len(x)
    t = time.perf_counter()
    base_hits = sum(1 for x in sample for _ in alternation.finditer(x))
    base_s = time.perf_counter() - t
    base_rate = size / 1e6 / base_s

    sample_frames = {"notes": pd.DataFrame({"text": pd.Series(sample, dtype="string")})}
    t = time.perf_counter()
    same = scan_frames(sample_frames, {"notes": ["text"]}, dictionary)
    same_rate = size / 1e6 / (time.perf_counter() - t)
    print(
        f"re alternation of {len(terms):,} terms: compile {compile_s:.2f} s, "
        f"{base_s:.2f} s on {size / 1e6:.1f} MB = {base_rate:.2f} MB/s ({base_hits:,} hits, "
        "dictionary only)"
    )
    print(
        f"scan on the same {size / 1e6:.1f} MB: {same_rate:.1f} MB/s ({same.total_hits:,} hits, "
        "dictionary + patterns + cues)"
    )
    print(f"ratio scan / re alternation: {same_rate / base_rate:.0f}x")
    print(f"peak RSS: {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
