"""The bundled US gazetteer (resources/gazetteer, GeoNames data, CC BY 4.0): states,
counties, and populated places (cities, towns, villages) of at least 500 people.

``load_gazetteer()`` reads it once. ``is_place(values)`` says which values name a US
county, city or town - a geographic subdivision smaller than a state, which Safe Harbor
removes (a name that is also a state's is read as the state); ``is_state(values)`` which
name a state (which it keeps). Values are compared
folded (case, accents and punctuation ignored, spaces collapsed); a trailing state
("Springfield, MA", "Springfield, Illinois") is read off first.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from deid_desktop.core.resources import resource
from deid_desktop.core.scan.fold import fold


def fold_words(value: object) -> str:
    """``value`` folded to lower-case words joined by single spaces."""
    return " ".join(fold(str(value)).split())


def _rows(file: str) -> list[tuple[str, str]]:
    with resource("gazetteer", file).open(encoding="utf-8", newline="") as f:
        return [(a, b) for a, b in list(csv.reader(f, delimiter="\t"))[1:]]


@dataclass(frozen=True, eq=False)
class Gazetteer:
    """Folded names: ``states`` (and ``state_codes``, lower case), ``counties`` (each with
    and without its "County"/"Parish"/"Borough" word) and ``places``."""

    states: frozenset[str]
    state_codes: frozenset[str]
    counties: frozenset[str]
    places: frozenset[str]

    @functools.cached_property
    def below_state(self) -> frozenset[str]:
        """Counties and places, less the names that are also states ("Texas", "New
        York"): a state may be released, so a bare state name is read as the state."""
        return (self.counties | self.places) - self.states

    def _strip_state(self, folded: str) -> str:
        head, sep, tail = folded.rpartition(" ")
        if sep and head and (tail in self.state_codes or tail in self.states):
            return head
        for state in self.states:  # two-word states: "new york", "north carolina"
            if " " in state and folded.endswith(" " + state) and len(folded) > len(state) + 1:
                return folded[: -len(state) - 1]
        return folded

    def _mask(self, values: Iterable[object], names: frozenset[str], strip: bool) -> np.ndarray:
        out: list[bool] = []
        seen: dict[object, bool] = {}
        for v in values:
            if v is None or (isinstance(v, float) and v != v) or str(v) == "<NA>":
                out.append(False)
                continue
            hit = seen.get(v)
            if hit is None:
                f = fold_words(v)
                hit = bool(f) and (f in names or (strip and self._strip_state(f) in names))
                seen[v] = hit
            out.append(hit)
        return np.asarray(out, dtype=bool)

    def is_place(self, values: Iterable[object]) -> np.ndarray:
        """Per value: does it name a US county, city or town (below state level)?"""
        return self._mask(values, self.below_state, strip=True)

    def is_state(self, values: Iterable[object]) -> np.ndarray:
        """Per value: does it name a US state (or its postal code)?"""
        return self._mask(values, self.states | self.state_codes, strip=False)


_COUNTY_WORDS = ("county", "parish", "borough", "census area", "municipality", "city and borough")


@functools.cache
def load_gazetteer() -> Gazetteer:
    """The bundled gazetteer (read once per process)."""
    states = _rows("us_states.tsv")
    counties: set[str] = set()
    for name, _ in _rows("us_counties.tsv"):
        f = fold_words(name)
        counties.add(f)
        for word in _COUNTY_WORDS:
            if f.endswith(" " + word):
                counties.add(f[: -len(word) - 1])
                break
    return Gazetteer(
        states=frozenset(fold_words(n) for n, _ in states),
        state_codes=frozenset(c.lower() for _, c in states),
        counties=frozenset(counties),
        places=frozenset(fold_words(n) for n, _ in _rows("us_places.tsv")),
    )
