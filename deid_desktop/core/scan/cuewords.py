"""Small groups of cue words, found among a batch's words by their hash.

``group_ids(w, hashes)`` gives each word of a batch the group of the cue word it is (0:
none), as one array padded like ``Words`` (the sentinels are 0). Only the words whose
hash's top 16 bits hit the table are compared exactly, so the cost is one gather over
the batch's words and a sort of the few candidates.
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.fold import ascii_projection
from deid_desktop.core.scan.lexicon import word_hash
from deid_desktop.core.scan.words import Words

IS, SPOKE, WITH, COVERING, FROM, ROLE, COUNTY, SAINT, ADDRESS, UNIT, ADMIT, STREET2 = range(1, 13)
CRED, GENERIC, PLACE_IN = 13, 14, 15
GROUPS: dict[int, tuple[str, ...]] = {
    IS: ("is", "was", "named"),
    SPOKE: ("spoke", "talked", "spoken", "speaking", "met", "discussed"),
    WITH: ("with", "to", "w"),
    COVERING: ("covering", "attending", "pcp", "cc", "covered"),
    FROM: ("from", "of"),
    ROLE: ("pt", "ot", "sw", "case", "social", "nutrition", "pharmacy", "rehab", "chaplaincy",
           "hospice", "vna", "transport", "radiology", "lab", "admitting", "billing", "psych",
           "dietary", "speech", "slp", "cm", "palliative", "pastoral", "security"),
    COUNTY: ("county", "parish", "cnty"),
    SAINT: ("st", "saint", "ste"),
    ADDRESS: ("address", "addr", "lives", "resides", "residing", "living", "located",
              "home", "apartment"),
    UNIT: ("apt", "unit", "suite", "ste", "apartment", "fl", "floor", "rm", "lot"),
    ADMIT: ("admitted", "transferred", "moved", "tx", "transfer", "sent", "returned", "back"),
    STREET2: ("alley", "annex", "bay", "bend", "bluff", "bridge", "brook", "burg", "bypass",
              "byway", "camp", "canyon", "cape", "causeway", "center", "cliff", "club",
              "common", "commons", "corner", "corners", "course", "cove", "creek", "crescent",
              "crest", "crossing", "crossroad", "curve", "dale", "dam", "divide", "estate",
              "estates", "expressway", "extension", "falls", "ferry", "field", "fields", "flat",
              "flats", "ford", "forest", "forge", "fork", "fort", "freeway", "garden",
              "gardens", "gateway", "glen", "green", "grove", "harbor", "haven", "heights",
              "hill", "hills", "hollow", "inlet", "island", "isle", "junction", "key", "knoll",
              "lake", "landing", "light", "loaf", "lock", "lodge", "loop", "mall", "manor",
              "meadow", "meadows", "mews", "mill", "mission", "motorway", "mount", "mountain",
              "neck", "orchard", "oval", "overpass", "park", "parks", "pass", "passage",
              "pine", "pines", "plain", "plaza", "point", "port", "prairie", "radial", "ramp",
              "ranch", "rapid", "rest", "ridge", "river", "route", "row", "run", "shoal",
              "shore", "shores", "skyway", "spring", "springs", "spur", "station",
              "stravenue", "stream", "summit", "throughway", "trace", "track", "trafficway",
              "tunnel", "underpass", "union", "valley", "viaduct", "view", "views", "village",
              "ville", "vista", "walk", "wall", "well", "wells", "esplanade", "parade",
              "hwy", "rte"),
    CRED: ("np", "rn", "md", "lpn", "cna", "aprn", "crna", "fnp", "pac", "licsw", "lcsw",
           "rrt", "dpm", "dds", "anp", "cnp"),
    GENERIC: ("outside", "another", "local", "nearby", "area", "other", "different", "previous",
              "prior", "same", "nearest", "private", "general", "community", "any", "a", "an",
              "osh", "her", "his", "their", "our", "this", "that", "state", "veterans"),
    PLACE_IN: ("in", "from", "near", "lives", "live", "living", "moved", "resides", "reside",
               "residing", "outside", "born", "raised", "grew"),
}  # fmt: skip
_WORDS = [(w, g) for g, ws in GROUPS.items() for w in ws]
_SEEN: dict[str, int] = {}
for _w, _g in _WORDS:
    _SEEN.setdefault(_w, _g)  # a word of two groups keeps its first ("ste": a saint)
_KEYS = list(_SEEN)
_HASH = word_hash(
    b"".join(k.encode().ljust(16, b" ") for k in _KEYS) + bytes(16),
    np.arange(len(_KEYS), dtype=np.int64) * 16,
    np.array([len(k) for k in _KEYS], dtype=np.int64),
)
_ORDER = np.argsort(_HASH)
_SORTED = _HASH[_ORDER]
_GROUP = np.array([_SEEN[k] for k in _KEYS], dtype=np.int8)[_ORDER]
_TABLE = np.zeros(1 << 16, dtype=bool)
_TABLE[(_HASH >> np.uint64(48)).astype(np.int64)] = True
_LITTLE = sys.byteorder == "little"


def group_ids(w: Words, folded: str, hashes: np.ndarray | None = None) -> np.ndarray:
    """The cue group of every word of the batch (0: none), padded like ``w``'s arrays."""
    n = w.size
    out = np.zeros(w.start.size, dtype=np.int8)
    if n == 0:
        return out
    if hashes is None:
        hashes = word_hash(ascii_projection(folded) + bytes(16), w.start[:n], w.lengths[:n])
    if _LITTLE and hashes.flags.c_contiguous:
        top = hashes.view(np.uint16)[3::4]
    else:
        top = (hashes >> np.uint64(48)).astype(np.intp)
    maybe = np.flatnonzero(np.take(_TABLE, top))
    if maybe.size:
        h = hashes[maybe]
        k = np.minimum(np.searchsorted(_SORTED, h), _SORTED.size - 1)
        hit = _SORTED[k] == h
        out[maybe[hit]] = _GROUP[k[hit]]
    return out


@functools.cache
def _english() -> np.ndarray:
    """The sorted hashes of the bundled English words (web2), read once (1.7 MB)."""
    words = [w for w in lx._words("words", "english_web2.txt") if len(w) <= 16]
    buf = b"".join(w.encode("ascii").ljust(16, b"\0") for w in words) + bytes(16)
    starts = np.arange(len(words), dtype=np.int64) * 16
    length = np.array([len(w) for w in words], dtype=np.int64)
    return np.sort(word_hash(buf, starts, length))


def english(w: Words, folded: str, i: np.ndarray) -> np.ndarray:
    """Whether the words at ``i`` are English words (of the bundled list)."""
    if i.size == 0:
        return np.zeros(0, dtype=bool)
    fb = ascii_projection(folded) + bytes(16)
    h = word_hash(fb, w.start[i], w.lengths[i])
    table = _english()
    k = np.minimum(np.searchsorted(table, h), table.size - 1)
    return table[k] == h
