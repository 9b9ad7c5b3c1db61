"""Persons, not rows, as the unit of k: for tables with several rows per person (an
event table: visits, diagnoses).

A person's combination at a node is the *set* of the generalized quasi-identifier
tuples of all their rows (a diagnosis code in a visits table counts per person: two
people share a class only when they show exactly the same set). k counts persons per
class; the suppression limit counts persons; a suppressed person's rows all go.

The figures: ``k``, ``classes``, ``discernibility`` and ``aecs`` count persons;
``loss``, ``iyengar``, ``entropy`` and ``precision`` are measured over rows (a row of a
suppressed person counts as suppressed); ``suppressed`` is rows, ``persons_suppressed``
persons. Nodes are counted from the person-level table each time (no roll-up), so this
is slower than the row search: it is the core API, not yet the GUI's default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from deid_desktop.core.errors import UsageError
from deid_desktop.core.risk.classes import combine
from deid_desktop.core.risk.hierarchy import Hierarchy
from deid_desktop.core.risk.loss import Figures
from deid_desktop.core.risk.prepared import Prepared


class PersonPrepared:
    """A table coded once, with the person key of every row."""

    def __init__(
        self,
        frame: pd.DataFrame,
        columns: Sequence[str],
        hierarchies: Mapping[str, Hierarchy],
        person: str,
    ) -> None:
        if person not in frame.columns:
            raise UsageError(
                f"The person key column '{person}' is not in the table.",
                hint="Choose the column that holds the person identifier.",
            )
        if person in columns:
            raise UsageError(
                "The person key cannot be a quasi-identifier.", hint="Leave it out of --qi."
            )
        self.rows_view = Prepared(frame, columns, hierarchies)
        self.columns = self.rows_view.columns
        self.heights = self.rows_view.heights
        self.tables = self.rows_view.tables
        self.rows = self.rows_view.rows
        pcodes, puniq = pd.factorize(frame[person].astype("string"), use_na_sentinel=False)
        self.persons = len(puniq)
        encoded = self.rows_view.encoded
        # distinct (person, value combination) pairs, with their row counts
        ids, n = combine(
            [(np.asarray(pcodes, dtype=np.int64), self.persons)]
            + [(e.codes.astype(np.int64), e.n_values) for e in encoded],
            self.rows,
        )
        self.pair_counts = np.bincount(ids, minlength=n).astype(np.int64)
        first = np.empty(n, dtype=np.int64)
        first[ids[::-1]] = np.arange(self.rows - 1, -1, -1, dtype=np.int64)
        self.pair_person = np.asarray(pcodes, dtype=np.int64)[first]
        self.pair_values = np.stack(  # level-0 label codes, as the row search holds them
            [e.maps[0][e.codes[first]] for e in encoded], axis=1
        ).astype(np.int32)

    @property
    def units(self) -> int:
        """What k and the suppression limit count: persons."""
        return self.persons

    def assess(self, levels: tuple[int, ...], k: int, limit: int) -> Figures | None:
        """The node's figures, or None when more than ``limit`` persons are suppressed."""
        figures = self.figures(levels, k)
        return figures if (figures.persons_suppressed or 0) <= limit else None

    def figures(self, levels: Sequence[int], k: int) -> Figures:
        lv = tuple(int(v) for v in levels)
        view = self.rows_view
        labels = [view.up(i, 0, b)[self.pair_values[:, i]] for i, b in enumerate(lv)]
        tup, n_tup = combine(
            [(c.astype(np.int64), view.cards[i][lv[i]]) for i, c in enumerate(labels)],
            len(self.pair_counts),
        )
        signature = _signatures(self.pair_person, tup, n_tup, self.persons)
        sig_ids, sig_uniq = pd.factorize(signature)
        per_class = np.bincount(sig_ids, minlength=len(sig_uniq))
        person_unsafe = per_class[sig_ids] < k
        # rows: one group per (generalized tuple, released or not)
        unsafe_pair = person_unsafe[self.pair_person]
        gid, n_g = combine(
            [(tup, max(n_tup, 1)), (unsafe_pair.astype(np.int64), 2)], len(self.pair_counts)
        )
        g_counts = np.bincount(gid, weights=self.pair_counts, minlength=n_g).astype(np.int64)
        first = np.empty(n_g, dtype=np.int64)
        first[gid[::-1]] = np.arange(len(gid) - 1, -1, -1, dtype=np.int64)
        g_codes = np.stack([c[first] for c in labels], axis=1).astype(np.int32)
        g_kept = ~unsafe_pair[first]
        fig = self.tables.figures(lv, g_codes, g_counts, k, kept=g_kept)
        kept_classes = per_class[per_class >= k]
        persons_suppressed = int(per_class[per_class < k].sum())
        n_cls = len(kept_classes)
        return dataclasses.replace(
            fig,
            classes=n_cls,
            k=int(kept_classes.min()) if n_cls else None,
            discernibility=float((kept_classes.astype(np.float64) ** 2).sum())
            + float(persons_suppressed) * self.persons,
            aecs=self.persons / (n_cls + (1 if persons_suppressed else 0))
            if (n_cls or persons_suppressed)
            else 0.0,
            persons=self.persons,
            persons_suppressed=persons_suppressed,
        )


def _signatures(person: np.ndarray, tup: np.ndarray, n_tup: int, persons: int) -> np.ndarray:
    """One hashable signature per person: the bytes of their sorted distinct tuple ids."""
    width = max(n_tup, 1)
    pair = np.unique(person * width + tup)  # sorted: by person, then tuple
    out = np.empty(persons, dtype=object)
    if not len(pair):
        return out
    who = pair // width
    what = (pair % width).astype(np.int64)
    cuts = np.flatnonzero(np.diff(who)) + 1
    starts = np.concatenate(([0], cuts))
    out[who[starts]] = [part.tobytes() for part in np.split(what, cuts)]
    return out
