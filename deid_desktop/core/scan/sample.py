"""Sample review: a seeded random sample of at least 5% of the notes, read by a person
who marks each one clean or "missed something" (with the kind missed). The result holds
counts and positions only, for the record: notes in the sample, notes reviewed, misses
marked by kind, and who reviewed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from deid_desktop.core.errors import UsageError

#: The share of notes a sample review covers at least.
SAMPLE_SHARE = 0.05
#: What a reviewer can say was missed.
MISS_KINDS = ("NAME", "DATE", "AGE", "LOCATION", "PHONE", "ID", "CONTACT", "OTHER")


def draw_sample(n_notes: int, *, seed: int, share: float = SAMPLE_SHARE) -> list[int]:
    """Sorted positions of ``ceil(share * n_notes)`` notes (at least one when there is
    any), drawn with ``seed``: the same seed and count give the same sample."""
    if not 0 < share <= 1:
        raise UsageError("The sample share must be above 0 and at most 1.", hint="Use 0.05.")
    if n_notes <= 0:
        return []
    size = min(n_notes, max(1, math.ceil(share * n_notes)))
    return sorted(random.Random(seed).sample(range(n_notes), size))


@dataclass
class SampleReview:
    """Marks on a drawn sample: position -> None (clean) or the kind missed."""

    sample: list[int]
    reviewer: str = ""
    marks: dict[int, str | None] = field(default_factory=dict)

    def mark_clean(self, position: int) -> None:
        self._check(position)
        self.marks[position] = None

    def mark_missed(self, position: int, kind: str) -> None:
        self._check(position)
        if kind not in MISS_KINDS:
            raise UsageError(f"Unknown kind '{kind}'.", hint="Use " + ", ".join(MISS_KINDS))
        self.marks[position] = kind

    def _check(self, position: int) -> None:
        if position not in self.sample:
            raise UsageError("That note is not in the sample.", hint="Review sampled notes.")

    @property
    def reviewed(self) -> int:
        return len(self.marks)

    @property
    def missed(self) -> int:
        return sum(kind is not None for kind in self.marks.values())

    @property
    def complete(self) -> bool:
        return self.reviewed == len(self.sample)

    def missed_by_kind(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for kind in self.marks.values():
            if kind is not None:
                out[kind] = out.get(kind, 0) + 1
        return dict(sorted(out.items()))

    def summary_dict(self) -> dict[str, Any]:
        """For the record: counts and who reviewed, never note text."""
        return {
            "notes_in_sample": len(self.sample),
            "notes_reviewed": self.reviewed,
            "notes_with_misses": self.missed,
            "misses_by_kind": self.missed_by_kind(),
            "reviewer": self.reviewer,
        }
