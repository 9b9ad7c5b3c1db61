"""The bundled public-domain name lists (resources/names/, see PROVENANCE.md there).

Lists are read once and cached. Lookups are meant for folded text: lowercase ASCII with
accents removed (see :func:`fold`), which is how the lists are stored.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from deid_desktop.core.resources import resource

GIVEN_NAMES_FILE = "given_names.txt"
SURNAMES_FILE = "surnames.txt"


def fold(text: str) -> str:
    """Lowercase ``text`` and strip accents: "Gómez" -> "gomez"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


@lru_cache(maxsize=8)
def _read_list(filename: str) -> frozenset[str]:
    text = resource("names", filename).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def given_names() -> frozenset[str]:
    """Common US given names (1990 Census), folded."""
    return _read_list(GIVEN_NAMES_FILE)


def surnames() -> frozenset[str]:
    """The 20,000 most frequent US surnames (1990 Census), folded."""
    return _read_list(SURNAMES_FILE)


@lru_cache(maxsize=1)
def all_names() -> frozenset[str]:
    """Given names and surnames together."""
    return given_names() | surnames()
