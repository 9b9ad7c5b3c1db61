"""Recall, precision and F1 of scan hits against the gold spans of a corpus, by kind.

A gold span is found when every letter and digit of it lies inside some hit (of any
kind: a redacted name is redacted whatever it was called). A hit is right when it
overlaps some gold span. Scan kinds are read as gold kinds (ZIP is a LOCATION; MRN, SSN
and ID an ID; EMAIL, URL and IP a CONTACT).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

GOLD_OF = {
    "NAME": "NAME", "DATE": "DATE", "AGE": "AGE", "LOCATION": "LOCATION", "ZIP": "LOCATION",
    "PHONE": "PHONE", "MRN": "ID", "SSN": "ID", "ID": "ID",
    "EMAIL": "CONTACT", "URL": "CONTACT", "IP": "CONTACT",
}  # fmt: skip


@dataclass
class KindScore:
    found: int = 0
    gold: int = 0
    right: int = 0
    hits: int = 0

    @property
    def recall(self) -> float:
        return self.found / self.gold if self.gold else 1.0

    @property
    def precision(self) -> float:
        return self.right / self.hits if self.hits else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def score(
    notes: Sequence[str],
    gold: Sequence[Sequence[tuple[int, int, str]]],
    hits: Iterable[tuple[int, int, int, str]],
) -> dict[str, KindScore]:
    """Scores by gold kind, and "ALL". ``hits``: (note, start, end, scan kind)."""
    by_note: dict[int, list[tuple[int, int, str]]] = {}
    for note, start, end, kind in hits:
        by_note.setdefault(note, []).append((start, end, GOLD_OF.get(kind, kind)))
    out: dict[str, KindScore] = {}
    total = out.setdefault("ALL", KindScore())
    misses: list[tuple[int, int, int, str]] = []
    for i, text in enumerate(notes):
        found = by_note.get(i, [])
        covered = bytearray(len(text))
        for s, e, _ in found:
            covered[s:e] = b"\x01" * (e - s)
        for s, e, kind in gold[i]:
            k = out.setdefault(kind, KindScore())
            ok = all(covered[j] for j in range(s, e) if text[j].isalnum())
            k.gold += 1
            total.gold += 1
            k.found += ok
            total.found += ok
            if not ok:
                misses.append((i, s, e, kind))
        for s, e, kind in found:
            right = any(s < ge and gs < e for gs, ge, _ in gold[i])
            k = out.setdefault(kind, KindScore())
            k.hits += 1
            k.right += right
            total.hits += 1
            total.right += right
    score.misses = misses  # type: ignore[attr-defined]
    return out


def table(scores: dict[str, KindScore]) -> str:
    rows = [f"{'kind':<9} {'gold':>6} {'recall':>7} {'hits':>6} {'precision':>9} {'F1':>6}"]
    for kind in sorted(scores, key=lambda k: (k == "ALL", k)):
        s = scores[kind]
        rows.append(
            f"{kind:<9} {s.gold:>6} {s.recall:>7.3f} {s.hits:>6} {s.precision:>9.3f} {s.f1:>6.3f}"
        )
    return "\n".join(rows)
