"""A motivated intruder, simulated on the sender's machine.

"A de-identification you have not attacked with your own data is unverified." The
intruder holds an identified list (a voter roll, an obituary list, or by default the
source extract's own demographics) and links it to the release on the quasi-identifiers
they plausibly know, generalized the way the release generalized them. For every person
of the release (a target) the simulation counts the people of the identified list who
look the same (the target *hides among* them), and reports:

- ``certain``: targets whose look-alike is exactly one person, and the right one;
- ``hidden_among``: how many targets hide among 0, 1, 2, 3-4, 5-9, 10-19 and 20 or more
  people (0 = the target is not in the intruder's list as it looks in the release);
- ``expected_matches``: the number of correct re-identifications an intruder who picks
  one look-alike at random per target can expect, the sum of 1 / (look-alikes) over the
  targets whose true identity is among them (the "marketer" view of linkage,
  El Emam 2013, ch. 12).

Identities are compared only on the sender's machine, through keys the caller gives (the
person key behind the crosswalk); the report holds counts only, never a value or a key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from deid_desktop.core.errors import UsageError
from deid_desktop.core.risk.classes import combine, factorize_column

#: Buckets of "hides among" (inclusive lower bounds); the last is open.
BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("0", 0, 0),
    ("1", 1, 1),
    ("2", 2, 2),
    ("3-4", 3, 4),
    ("5-9", 5, 9),
    ("10-19", 10, 19),
    ("20+", 20, None),
)


@dataclass(frozen=True)
class IntruderReport:
    """What linking the release to an identified list achieves (counts only)."""

    targets: int
    on: tuple[str, ...]
    certain: int
    hidden_among: dict[str, int]
    expected_matches: float

    def to_dict(self) -> dict[str, object]:
        return {
            "targets": self.targets,
            "on": list(self.on),
            "certain": self.certain,
            "hidden_among": dict(self.hidden_among),
            "expected_matches": round(self.expected_matches, 3),
        }


def simulate_intruder(
    release: pd.DataFrame,
    identified: pd.DataFrame,
    on: Sequence[str],
    *,
    release_keys: pd.Series,
    identified_keys: pd.Series,
) -> IntruderReport:
    """Link ``release`` to ``identified`` on the columns ``on`` (equal values; a missing
    value matches a missing value) and score the links against the true identities:
    ``release_keys[i]`` and ``identified_keys[j]`` name the same person when equal."""
    on = tuple(dict.fromkeys(on))
    for frame, what in ((release, "release"), (identified, "identified list")):
        missing = [c for c in on if c not in frame.columns]
        if missing:
            raise UsageError(
                f"The {what} has no column {', '.join(repr(c) for c in missing)} to link on.",
                hint="Choose columns both hold (--on).",
            )
    n_rel, n_id = len(release), len(identified)
    if not on:
        raise UsageError("Name at least one column to link on.", hint="For example --on age,sex")
    codes = [
        factorize_column(pd.concat([release[c], identified[c]], ignore_index=True)) for c in on
    ]
    classes, n_classes = combine(codes, n_rel + n_id)
    rel_class, id_class = classes[:n_rel], classes[n_rel:]
    lookalikes = np.bincount(id_class, minlength=n_classes)[rel_class]

    # where each target's true identity sits in the identified list (-1: absent)
    key_codes, _ = pd.factorize(
        pd.concat([release_keys, identified_keys], ignore_index=True), use_na_sentinel=True
    )
    rel_key, id_key = key_codes[:n_rel], key_codes[n_rel:]
    class_of_key = np.full(int(key_codes.max()) + 2 if key_codes.size else 1, -1, np.int64)
    filled = id_key >= 0
    class_of_key[id_key[filled]] = id_class[filled]
    true_class = np.where(rel_key >= 0, class_of_key[np.maximum(rel_key, 0)], -1)
    found = true_class == rel_class

    certain = int((found & (lookalikes == 1)).sum())
    expected = float((found / np.maximum(lookalikes, 1)).sum())
    hidden = {
        label: int(((lookalikes >= lo) & (True if hi is None else lookalikes <= hi)).sum())
        for label, lo, hi in BUCKETS
    }
    return IntruderReport(n_rel, on, certain, hidden, expected)


__all__ = ["BUCKETS", "IntruderReport", "simulate_intruder"]
