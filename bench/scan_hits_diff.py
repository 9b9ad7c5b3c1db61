"""Are the scan's hits unchanged? For speed work on the scan: save every hit (note,
start, end, kind, rule) of the evaluation corpus (both splits; with and without the site
list and the high-recall mode; a variant with typographic characters) and of the bench's
synthetic notes (and those notes with a dictionary of 200,000 more IDs and MRNs, large
enough for the word index's presence bitmaps), then compare two saves.

    .venv/bin/python bench/scan_hits_diff.py save before.pkl      # on the old code
    .venv/bin/python bench/scan_hits_diff.py save after.pkl       # on the new code
    .venv/bin/python bench/scan_hits_diff.py compare before.pkl after.pkl

The files hold spans and rule names only, no note text.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from types import MappingProxyType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deid_desktop.core.scan import (  # noqa: E402
    ScanDictionary,
    build_dictionary_from_values,
    scan_texts,
)
from tests.core.test_scan_synth import make_notes  # noqa: E402
from tests.scan_eval.generate import generate  # noqa: E402
from tests.scan_eval.run import scan_corpus  # noqa: E402

SHARED = next(
    (p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
    ROOT.parent / "shared" / "data",
)
Hits = dict[tuple[object, ...], list[tuple[object, ...]]]


def typographic(text: str) -> str:
    """Same length, some non-ASCII characters: a fraction slash, a subscript two."""
    return text.replace("/", "\u2044").replace("2", "\u2082")


def collect(notes: int, bench_notes: int) -> Hits:
    out: Hits = {}
    for split in ("dev", "heldout"):
        corpus = generate(split, notes)
        for high_recall in (False, True):
            for sites in (True, False):
                key = (split, "high-recall" if high_recall else "default", sites)
                out[key] = list(scan_corpus(corpus, sites=sites, high_recall=high_recall))
        values = corpus.dictionary_values()
        values["site"] = corpus.sites
        owners = [(p.key, f"{p.first} {p.last}") for p in corpus.people]
        dictionary = build_dictionary_from_values(values, owners)
        out[(split, "rules")] = scan_texts(corpus.notes, dictionary, persons=corpus.persons)
        mixed = [typographic(x) if i % 3 == 0 else x for i, x in enumerate(corpus.notes)]
        out[(split, "typographic")] = scan_texts(mixed, dictionary, persons=corpus.persons)
    for share, typo in ((1.0, False), (0.3, True)):
        texts, _, dictionary = make_notes(
            SHARED, n=bench_notes, seed=5, dictionary_size=10_000, identified_share=share
        )
        if typo:
            texts = [x.replace("132/84", "132\u204484").replace("SpO2", "SpO\u2082") for x in texts]
        out[("bench", share, typo)] = scan_texts(texts, dictionary)
    # a dictionary of millions of entries' shape (presence bitmaps on the word index):
    # the bench's terms and 200,000 numeric IDs and two-word MRNs, some in the notes
    texts, _, dictionary = make_notes(
        SHARED, n=bench_notes, seed=5, dictionary_size=10_000, identified_share=1.0
    )
    bulk = build_dictionary_from_values(
        {
            "id": [f"{i:07d}" for i in range(0, 10_000_000, 50)],
            "mrn": [f"syn {i:07d}" for i in range(0, 10_000_000, 50)],
        }
    )
    big = ScanDictionary(
        MappingProxyType({**dictionary.terms, **bulk.terms}),
        MappingProxyType({**dictionary.digits, **bulk.digits}),
    )
    out[("bench", "large dictionary")] = scan_texts(texts, big)
    return out


def compare(before: Hits, after: Hits) -> int:
    differ = 0
    for key in sorted(set(before) | set(after), key=str):
        a, b = before.get(key, []), after.get(key, [])
        if a == b:
            print(f"{key}: same, {len(a):,} hits")
            continue
        differ += 1
        only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
        print(f"{key}: DIFFER, {len(a):,} -> {len(b):,} hits")
        print(f"  only before ({len(only_a):,}): {only_a[:5]}")
        print(f"  only after ({len(only_b):,}): {only_b[:5]}")
    print("identical" if not differ else f"{differ} set(s) differ")
    return 1 if differ else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    save = sub.add_parser("save")
    save.add_argument("file", type=Path)
    save.add_argument("--notes", type=int, default=2400, help="notes per evaluation split")
    save.add_argument("--bench-notes", type=int, default=6000)
    cmp = sub.add_parser("compare")
    cmp.add_argument("before", type=Path)
    cmp.add_argument("after", type=Path)
    args = ap.parse_args()
    if args.cmd == "save":
        hits = collect(args.notes, args.bench_notes)
        args.file.write_bytes(pickle.dumps(hits))
        print(f"{sum(map(len, hits.values())):,} hits in {len(hits)} sets -> {args.file}")
    else:
        before = pickle.loads(args.before.read_bytes())
        after = pickle.loads(args.after.read_bytes())
        sys.exit(compare(before, after))


if __name__ == "__main__":
    main()
