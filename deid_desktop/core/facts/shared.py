"""Facts about one extract under one project, computed once and shared by the pathway
that builds the release, the gate that checks it and the risk that scores it: the
parsed dates (``DateCache``), each row's person position and who is over 89.

``facts_for(extract, project)`` returns the same ``ExtractFacts`` for the same two
objects (both frozen: a changed project or a reloaded extract is a new object, so a
stale fact cannot be read). The facts live exactly as long as the extract: they hold
it only weakly, and are dropped when it goes (``engine.run`` lets the loaded frames go
before the export, and so do these).
"""

from __future__ import annotations

import threading
import weakref
from functools import cached_property

import numpy as np

from deid_desktop.core.facts.ages import AgeFacts, assess_ages
from deid_desktop.core.facts.dates import DateCache
from deid_desktop.core.facts.persons import all_positions
from deid_desktop.core.model import Extract, Project


class ExtractFacts:
    """Dates, positions and ages of one extract under one project (each on first use)."""

    def __init__(self, extract: Extract, project: Project) -> None:
        self._extract = weakref.ref(extract)
        self._project = weakref.ref(project)
        self._ages: dict[str, AgeFacts] = {}
        self._lock = threading.Lock()

    def _objects(self) -> tuple[Extract, Project]:
        extract, project = self._extract(), self._project()
        if extract is None or project is None:  # pragma: no cover - held by the caller
            raise RuntimeError("the extract or project of these facts is gone")
        return extract, project

    @cached_property
    def dates(self) -> DateCache:
        return DateCache(self._objects()[0])

    @cached_property
    def positions(self) -> dict[str, np.ndarray]:
        """Table name -> person row position of each row (``facts.persons``)."""
        return all_positions(*self._objects())

    def seed_positions(self, positions: dict[str, np.ndarray]) -> None:
        """Positions already found (the load's relation check encodes every key)."""
        extract, _project = self._objects()
        if set(positions) == {t.name for t in extract.tables}:
            self.__dict__["positions"] = positions

    def ages(self, reference: str) -> AgeFacts:
        """Who is over 89 with ages taken at ``reference`` ("index" or an ISO date)."""
        found = self._ages.get(reference)
        if found is None:
            extract, project = self._objects()
            found = assess_ages(extract, project, self.dates, self.positions, reference)
            self._ages[reference] = found
        return found


def event_keys_linked(extract: Extract, project: Project) -> bool:
    """Whether every event table's key value is a person key, byte for byte (the load's
    relation check found each event row's person): the event tables' keys then add no
    value to a list of the person keys."""
    try:
        facts_for(extract, project).positions  # noqa: B018 - raises when one is not
    except Exception:
        return False
    return True


_FACTS: dict[tuple[int, int], ExtractFacts] = {}
_FACTS_LOCK = threading.Lock()


def facts_for(extract: Extract, project: Project) -> ExtractFacts:
    """The shared facts of ``extract`` under ``project`` (made on first call)."""
    key = (id(extract), id(project))
    with _FACTS_LOCK:
        found = _FACTS.get(key)
        if found is not None and found._extract() is extract and found._project() is project:
            return found
        found = ExtractFacts(extract, project)
        _FACTS[key] = found
    weakref.finalize(extract, _forget, key, weakref.ref(found))
    weakref.finalize(project, _forget, key, weakref.ref(found))
    return found


def _forget(key: tuple[int, int], facts: weakref.ref[ExtractFacts]) -> None:
    with _FACTS_LOCK:
        found = facts()
        if found is not None and _FACTS.get(key) is found:
            del _FACTS[key]
