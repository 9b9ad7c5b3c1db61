"""Free-text scan throughput and recall, side by side with one `re` alternation.

Synthetic notes (~200-600 characters) with planted names, MRNs, phones, dates, e-mails,
doctor and relative cues; a dictionary of ~10,000 entries (names from the PhysioNet deid
lists - GPL data, used here only, never shipped). Three mixes: every note carrying 3-6
identifiers ("dense"), 30% of notes carrying them ("mixed"), and the mixed notes with
typographic characters (a fraction slash in '132/84', a subscript in 'SpO2') in about
half of them, as real notes have curly quotes and degree signs. Prints wall-clock MB/s
and MB per CPU-second (the machine may be shared), recall on the planted spans, MB/s of
a single regex alternation of the same dictionary terms (whole words, ignore case) on
the same text beside the scan's, their ratio, and peak RSS.

    .venv/bin/python bench/bench_scan.py [--mb 30] [--baseline-mb 0.5]
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

from deid_desktop.core.scan import ScanReport, scan_frames  # noqa: E402
from tests.core.test_scan_synth import make_notes  # noqa: E402

try:  # the context finders' lexicon (absent before issue 12)
    from deid_desktop.core.scan.lexicon import load_lexicon
except ImportError:  # pragma: no cover - the bench also runs on older checkouts
    load_lexicon = None  # type: ignore[assignment]

SHARED = next(
    (p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
    ROOT.parent / "shared" / "data",
)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def recall(report: ScanReport, truth: list[tuple[int, int, int, str]]) -> str:
    spans = {(h.row, h.start, h.end) for h in report.hits}
    chars = {(h.row, i) for h in report.hits for i in range(h.start, h.end)}
    exact = sum(1 for r, s, e, _ in truth if (r, s, e) in spans)
    by_kind: dict[str, list[int]] = {}
    for r, s, e, k in truth:
        got = all((r, i) in chars for i in range(s, e))
        by_kind.setdefault(k, [0, 0])[0] += got
        by_kind[k][1] += 1
    covered = sum(a for a, _ in by_kind.values())
    return (
        f"recall on {len(truth):,} planted spans: exact span {exact / len(truth):.4f}, "
        f"covered {covered / len(truth):.4f}; by kind "
        + ", ".join(f"{k} {a / b:.4f}" for k, (a, b) in sorted(by_kind.items()))
    )


def scan(notes: list[str], dictionary: object) -> tuple[ScanReport, float, float]:
    frames = {"notes": pd.DataFrame({"text": pd.Series(notes, dtype="string")})}
    t, c = time.perf_counter(), time.process_time()
    report = scan_frames(frames, {"notes": ["text"]}, dictionary)  # type: ignore[arg-type]
    return report, time.perf_counter() - t, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=30.0, help="MB of note text per mix")
    ap.add_argument("--baseline-mb", type=float, default=0.5, help="MB for the regex baseline")
    args = ap.parse_args()
    n = int(args.mb * 1e6 / 400)
    last = None
    for label, share, typographic in (
        ("dense", 1.0, False),
        ("mixed", 0.3, False),
        ("mixed, typographic", 0.3, True),
    ):
        t = time.perf_counter()
        notes, truth, dictionary = make_notes(
            SHARED, n=n, seed=5, dictionary_size=10_000, identified_share=share
        )
        if typographic:  # same lengths, so the planted spans stay where they are
            notes = [x.replace("132/84", "132\u204484").replace("SpO2", "SpO\u2082") for x in notes]
        mb = sum(len(x) for x in notes) / 1e6
        dictionary.matcher  # built once, when the dictionary is made  # noqa: B018
        if load_lexicon is not None:  # the bundled word lists: read once per process
            t_lex = time.perf_counter()
            load_lexicon()
            lexicon_s = time.perf_counter() - t_lex
            if lexicon_s > 0.01:
                print(f"  bundled word, name and place lists read in {lexicon_s:.2f} s (once)")
        extra = (
            f", {sum(not x.isascii() for x in notes) / len(notes):.0%} with non-ASCII characters"
            if typographic
            else ""
        )
        print(
            f"[{label}: {share:.0%} of notes carry identifiers{extra}] {len(notes):,} notes, "
            f"{mb:.1f} MB; dictionary {len(dictionary):,} entries {dictionary.counts()} "
            f"(made in {time.perf_counter() - t:.1f} s)"
        )
        report, wall, cpu = scan(notes, dictionary)
        print(
            f"  scan: {wall:.2f} s wall = {mb / wall:.1f} MB/s; {cpu:.2f} s CPU = "
            f"{mb / cpu:.1f} MB per CPU-second; {report.total_hits:,} hits"
        )
        print("  " + recall(report, truth))
        if not typographic:
            last = (notes, dictionary)

    assert last is not None
    notes, dictionary = last
    sample: list[str] = []
    size = 0
    for x in notes:
        if size >= args.baseline_mb * 1e6:
            break
        sample.append(x)
        size += len(x)
    terms = sorted(dictionary.terms, key=len, reverse=True)
    t = time.perf_counter()
    alternation = re.compile(
        r"\b(?:" + "|".join(re.escape(x).replace(r"\ ", r"\W") for x in terms) + r")\b",
        re.IGNORECASE,
    )
    compile_s = time.perf_counter() - t
    t, c = time.perf_counter(), time.process_time()
    base_hits = sum(1 for x in sample for _ in alternation.finditer(x))
    base_wall, base_cpu = time.perf_counter() - t, time.process_time() - c
    report, wall, cpu = scan(sample, dictionary)
    mb = size / 1e6
    print(
        f"side by side on the same {mb:.2f} MB (mixed notes):\n"
        f"  re alternation of {len(terms):,} dictionary terms (compile {compile_s:.1f} s): "
        f"{mb / base_wall:.3f} MB/s wall, {mb / base_cpu:.3f} MB per CPU-second, "
        f"{base_hits:,} hits (dictionary only)\n"
        f"  scan (dictionary + patterns + cues): {mb / wall:.1f} MB/s wall, "
        f"{mb / cpu:.1f} MB per CPU-second, {report.total_hits:,} hits\n"
        f"  ratio scan / re alternation: {base_wall / wall:.0f}x wall, {base_cpu / cpu:.0f}x CPU"
    )
    print(f"peak RSS: {peak_rss_mb():.0f} MB (includes the generated notes and the recall sets)")


if __name__ == "__main__":
    main()
