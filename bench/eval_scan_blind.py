"""Recall, precision and F1 of the free-text scan by kind, on the BLIND corpus
(tests/scan_blind: other templates and other name and place sources than the corpus the
scan was tuned on), scored as tests/scan_eval/score.py scores, by style too.

    .venv/bin/python bench/eval_scan_blind.py [--notes 2400] [--misses 0] [--level low]
        [--no-sites] [--false 0]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eval_scan import parser, show  # noqa: E402

from tests.scan_blind.generate import generate  # noqa: E402
from tests.scan_eval.run import scan_corpus  # noqa: E402
from tests.scan_eval.score import score, table  # noqa: E402


def main() -> None:
    ap = parser()
    ap.add_argument("--false", type=int, default=0, help="print this many false hits")
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
        show(kind, corpus.notes[i], s, e)
    shown = 0
    for n, s, e, kind in hits:
        if shown >= args.false:
            break
        if not any(s < ge and gs < e for gs, ge, _ in corpus.spans[n]):
            show(kind, corpus.notes[n], s, e, "false")
            shown += 1


if __name__ == "__main__":
    main()
