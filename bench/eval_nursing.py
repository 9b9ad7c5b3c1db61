"""Recall and precision of the free-text scan on real nursing-note text with synthetic
identifiers put back: a corpus nobody on the team wrote.

The PhysioNet deid 1.1 package ships ``id.res``: its 2,434 ICU nursing notes as its own
tool left them, each identifier that tool found replaced by a tag such as
``[**Last Name (STitle) 3**]`` or ``[**04-18**]``, and ``id-phi.phrase``: where each of
the 1,779 gold-standard identifiers sits in the original text, its type and its words
(GPL; read from ../shared/data/physionet-deid, never copied into the repository; the
original text is not redistributable and is not used or rebuilt). A note is used when
its tags and its gold identifiers agree one for one (each tag sits where the gold list
puts an identifier, once the lengths of those before it are counted): 451 notes with
784 identifiers, and the 1,463 notes with neither (which test false hits). The other
520 notes, where the tool missed an identifier or tagged a plain word, are left out.

Each tag gets a made-up identifier of its gold type and written in the shape of the
gold words (capitals, small letters or title case; ``7/22`` -> another date of one
and two digits; ``92`` -> another two-digit year; a phone digit for digit): names from
the bundled Census name lists, places from the bundled gazetteer or made-up
abbreviations of the same length. The patients' own names (gold type PTName) are the
dictionary, as a project's name columns would be; clinicians' and relatives' names are
in no column.

    .venv/bin/python bench/eval_nursing.py [--seed 1] [--misses 20] [--false 20] [--level low]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deid_desktop.core.scan import build_dictionary_from_values, scan_texts  # noqa: E402
from tests.scan_eval.score import score, table  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "physionet-deid"
_TAG = re.compile(r"\[\*\*([^\]]*?)\*\*\]")
_RECORD = re.compile(
    r"START_OF_RECORD=(\d+)\|\|\|\|(\d+)\|\|\|\|\n(.*?)\|\|\|\|END_OF_RECORD", re.S
)


def _words(path: Path) -> list[str]:
    return [w.strip() for w in path.read_text().splitlines() if w.strip().isalpha()]


class Fill:
    """Synthetic values by kind, seeded."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        names = ROOT / "resources" / "names"
        self.given = _words(names / "given_names.txt")
        self.surnames = _words(names / "surnames.txt")
        from deid_desktop.core.scan.gazetteer import load_gazetteer

        gaz = load_gazetteer()
        self.places = sorted(p for p in gaz.places if p.isalpha() and len(p) > 3)


def _shaped(word: str, like: str) -> str:
    """``word`` in the case of ``like`` (capitals, small letters or a capital first)."""
    letters = [c for c in like if c.isalpha()]
    if letters and all(c.isupper() for c in letters) and len(letters) > 1:
        return word.upper()
    if letters and all(c.islower() for c in letters):
        return word.lower()
    return word.title()


def _digits_like(phrase: str, rng: random.Random, date: bool) -> str:
    """``phrase`` with each run of digits replaced by another of the same length (a date's
    month 1-12 and day 1-28, a year's other years; a phone's any digits)."""
    runs = re.split(r"(\d+)", phrase)
    out: list[str] = []
    number = 0
    for part in runs:
        if not part.isdigit():
            out.append(part)
            continue
        n = len(part)
        if date and number == 0 and n <= 2 and len(runs) > 3:
            value = str(rng.randint(1, 9) if n == 1 else rng.randint(10, 12))
        elif date and number == 1 and n <= 2:
            value = str(rng.randint(1, 9) if n == 1 else rng.randint(10, 28))
        elif date and n == 4:
            value = str(rng.randint(1950, 2005))
        else:
            value = "".join(str(rng.randint(1 if i == 0 else 0, 9)) for i in range(n))
        out.append(value)
        number += 1
    return "".join(out)


def _value(kind: str, phrase: str, fill: Fill, first: str, last: str) -> tuple[str, str]:
    """A made-up identifier of gold type ``kind`` in the shape of ``phrase``."""
    rng = fill.rng
    if kind in ("HCPName", "RelativeProxyName", "PTName", "PTNameInitial"):
        if kind == "PTNameInitial" or re.fullmatch(r"[A-Za-z]\.?\s*", phrase):
            return rng.choice("ABCDEFGHJKLMNPRSTW") + phrase[1:], "NAME"
        if kind == "PTName":
            word = last if rng.random() < 0.7 else first
        else:
            given = rng.random() < (0.7 if kind == "RelativeProxyName" else 0.2)
            word = rng.choice(fill.given if given else fill.surnames)
        return _shaped(word, phrase), "NAME"
    if kind == "Location":
        letters = re.sub(r"[^A-Za-z]", "", phrase)
        if len(letters) <= 4 and letters.isupper():
            return "".join(rng.choice("ABCDEFGHJKLMNPRSTW") for _ in letters), "LOCATION"
        words = phrase.split()
        return " ".join(_shaped(rng.choice(fill.places), w) for w in words), "LOCATION"
    if kind in ("Date", "DateYear"):
        if not any(c.isdigit() for c in phrase):
            holiday = rng.choice(("christmas", "thanksgiving", "easter", "halloween"))
            return _shaped(holiday, phrase), "DATE"
        return _digits_like(phrase, rng, True), "DATE"
    if kind == "Age":
        return str(rng.randint(90, 99)), "AGE"
    return _digits_like(phrase, rng, False), ("PHONE" if kind == "Phone" else "ID")


def _gold() -> dict[tuple[str, str], list[tuple[int, int, str, str]]]:
    out: dict[tuple[str, str], list[tuple[int, int, str, str]]] = {}
    for line in (DATA / "id-phi.phrase").read_text().splitlines():
        pid, note, start, end, kind, phrase = line.split(" ", 5)
        out.setdefault((pid, note), []).append((int(start), int(end), kind, phrase))
    return {k: sorted(v) for k, v in out.items()}


def _agree(body: str, tags: list[re.Match[str]], gold: list[tuple[int, int, str, str]]) -> bool:
    """Whether each tag sits where the gold list puts an identifier, one for one."""
    if len(tags) != len(gold):
        return False
    delta = 0
    for m, (start, end, _kind, _phrase) in zip(tags, gold, strict=True):
        if m.start() + delta != start:
            return False
        delta += (end - start) - (m.end() - m.start())
    return True


def build(seed: int) -> tuple[list[str], list[list[tuple[int, int, str]]], list[str], dict]:
    """(notes, gold spans per note, each note's person, the persons' names)."""
    fill = Fill(seed)
    gold_of = _gold()
    people: dict[str, tuple[str, str]] = {}
    notes: list[str] = []
    spans: list[list[tuple[int, int, str]]] = []
    persons: list[str] = []
    for pid, note, body in _RECORD.findall((DATA / "id.res").read_text()):
        tags = list(_TAG.finditer(body))
        gold = gold_of.get((pid, note), [])
        if not _agree(body, tags, gold):
            continue
        if pid not in people:
            people[pid] = (
                fill.rng.choice(fill.given).title(),
                fill.rng.choice(fill.surnames).title(),
            )
        first, last = people[pid]
        out: list[str] = []
        marked: list[tuple[int, int, str]] = []
        pos = at = 0
        for m, (_s, _e, kind, phrase) in zip(tags, gold, strict=True):
            out.append(body[pos : m.start()])
            at += m.start() - pos
            pos = m.end()
            value, scan_kind = _value(kind, phrase, fill, first, last)
            out.append(value)
            marked.append((at, at + len(value), scan_kind))
            at += len(value)
        out.append(body[pos:])
        notes.append("".join(out))
        spans.append(marked)
        persons.append(pid)
    return notes, spans, persons, people


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--misses", type=int, default=0)
    ap.add_argument("--false", type=int, default=0, help="print this many false hits")
    ap.add_argument("--level", default="low")
    args = ap.parse_args()
    if not (DATA / "id.res").is_file():
        sys.exit(f"{DATA}/id.res not found (the bench reads ../shared/data)")
    notes, gold, persons, people = build(args.seed)
    names = {"name": [n for pair in people.values() for n in pair]}
    owners = [(pid, f"{f} {ln}") for pid, (f, ln) in people.items()]
    dictionary = build_dictionary_from_values(names, owners)
    found = scan_texts(notes, dictionary, persons=persons, level=args.level)
    hits = [(n, s, e, k) for n, s, e, k, _ in found]
    rule_of = {(n, s, e): r for n, s, e, _k, r in found}
    if args.false:
        falses = Counter(
            rule_of[(n, s, e)]
            for n, s, e, _k in hits
            if not any(s < ge and gs < e for gs, ge, _ in gold[n])
        )
        print("false hits by rule:", falses.most_common(25))
    scores = score(notes, gold, hits)
    print(
        f"[nursing notes, seed {args.seed}] {len(notes):,} notes, {scores['ALL'].gold:,} gold "
        f"spans; hits of confidence {args.level} and above; no site list"
    )
    print(table(scores))
    misses = getattr(score, "misses", [])
    by_kind = Counter(k for *_, k in misses)
    print("misses by kind:", dict(by_kind))
    for i, s, e, kind in misses[: args.misses]:
        t = notes[i]
        print(f"  missed {kind}: {t[max(0, s - 40) : s]!r}[[{t[s:e]}]]{t[e : e + 25]!r}")
    if args.false:
        shown = 0
        for n, s, e, k in hits:
            if not any(s < ge and gs < e for gs, ge, _ in gold[n]):
                t = notes[n]
                rule = rule_of[(n, s, e)]
                print(f"  false {k} {rule}: {t[max(0, s - 30) : s]!r}[[{t[s:e]}]]{t[e : e + 20]!r}")
                shown += 1
                if shown >= args.false:
                    break


if __name__ == "__main__":
    main()
