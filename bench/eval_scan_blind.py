"""Recall, precision and F1 of the free-text scan by kind, on the BLIND corpus
(tests/scan_blind: other templates and other name and place sources than the corpus the
scan was tuned on), scored as tests/scan_eval/score.py scores, by style too.

    .venv/bin/python bench/eval_scan_blind.py [--notes 2400] [--misses 0] [--level low]
        [--no-sites] [--false 0]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scan_blind.generate import generate  # noqa: E402
from tests.scan_eval.run import scan_corpus  # noqa: E402
from tests.scan_eval.score import score, table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=2400)
    ap.add_argument("--misses", type=int, default=0, help="print this many missed spans")
    ap.add_argument("--false", type=int, default=0, help="print this many false hits")
    ap.add_argument("--level", default="low", help="high, medium or low (all hits)")
    ap.add_argument("--no-sites", action="store_true", help="without the corpus site list")
    ap.add_argument("--styles", action="store_true", help="recall and precision by style")
    args = ap.parse_args()
    corpus = generate(args.notes)
    hits = scan_corpus(corpus, level=args.level, sites=not args.no_sites)  # type: ignore[arg-type]
    scores = score(corpus.notes, corpus.spans, hits)
    misses = list(getattr(score, "misses", []))
    print(
        f"[blind] {len(corpus.notes):,} notes, {scores['ALL'].gold:,} gold spans; "
        f"hits of confidence {args.level} and above" + ("; no site list" if args.no_sites else "")
    )
    print(table(scores))
    if args.styles:
        for style in sorted(set(corpus.styles)):
            ids = [i for i, s in enumerate(corpus.styles) if s == style]
            where = {i: j for j, i in enumerate(ids)}
            sub = [(where[n], s, e, k) for n, s, e, k in hits if n in where]
            st = score([corpus.notes[i] for i in ids], [corpus.spans[i] for i in ids], sub)
            a = st["ALL"]
            print(f"  {style:<14} recall {a.recall:.3f} precision {a.precision:.3f}")
    for i, s, e, kind in misses[: args.misses]:
        text = corpus.notes[i]
        print(f"  missed {kind}: {text[max(0, s - 30) : s]}[[{text[s:e]}]]{text[e : e + 20]}")
    shown = 0
    for n, s, e, kind in hits:
        if shown >= args.false:
            break
        if not any(s < ge and gs < e for gs, ge, _ in corpus.spans[n]):
            text = corpus.notes[n]
            print(f"  false {kind}: {text[max(0, s - 30) : s]}[[{text[s:e]}]]{text[e : e + 20]}")
            shown += 1


if __name__ == "__main__":
    main()
