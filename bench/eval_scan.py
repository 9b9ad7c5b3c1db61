"""Recall, precision and F1 of the free-text scan by kind, on the generated evaluation
corpus (tests/scan_eval): the "dev" split it was tuned on and the "heldout" split (other
seed, other half of the name and place lists, partly other templates).

    .venv/bin/python bench/eval_scan.py [--notes 2400] [--misses 0] [--level low] [--no-sites]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scan_eval.generate import generate  # noqa: E402
from tests.scan_eval.run import evaluate  # noqa: E402
from tests.scan_eval.score import score, table  # noqa: E402


def parser() -> argparse.ArgumentParser:
    """The options every evaluation bench takes (bench/eval_scan_blind.py adds its own)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=2400)
    ap.add_argument("--misses", type=int, default=0, help="print this many missed spans")
    ap.add_argument("--level", default="low", help="high, medium or low (all hits)")
    ap.add_argument("--no-sites", action="store_true", help="without the corpus site list")
    return ap


def show(kind: str, text: str, s: int, e: int, what: str = "missed") -> None:
    """One missed (or false) span with a little of the text around it."""
    print(f"  {what} {kind}: {text[max(0, s - 30) : s]}[[{text[s:e]}]]{text[e : e + 20]}")


def main() -> None:
    args = parser().parse_args()
    for split in ("dev", "heldout"):
        corpus = generate(split, args.notes)
        scores = evaluate(corpus, level=args.level, sites=not args.no_sites)
        print(
            f"[{split}] {len(corpus.notes):,} notes, {scores['ALL'].gold:,} gold spans; "
            f"hits of confidence {args.level} and above"
            + ("; no site list" if args.no_sites else "")
        )
        print(table(scores))
        for i, s, e, kind in getattr(score, "misses", [])[: args.misses]:
            show(kind, corpus.notes[i], s, e)
        print()


if __name__ == "__main__":
    main()
