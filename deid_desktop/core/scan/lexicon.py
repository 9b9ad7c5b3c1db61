"""The scan's background lexicon: bundled word lists read once, as flags per word, looked
up for every word of a batch at once (numpy).

Flags say what a word can be: a Census given name or surname (resources/names), an
English word (resources/words: web2, public domain), a very common word, a name that is
also a word, a clinical word, a US place or state (resources/gazetteer), or one of the
scan's own cue words (titles, relations and roles, credentials, facility, street, age,
season and month words).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from deid_desktop.core.resources import resource
from deid_desktop.core.scan.cuegroups import FLAGGED_WORDS
from deid_desktop.core.scan.fold import fold
from deid_desktop.core.scan.gazetteer import load_gazetteer
from deid_desktop.core.scan.regions import key_hash

GIVEN, SURNAME, ENGLISH, COMMON, NAME_WORD, CLINICAL = 1, 2, 4, 8, 16, 32
PLACE, STATE, TITLE, RELATION, CREDENTIAL, FACILITY = 64, 128, 256, 512, 1024, 2048
AGE_AFTER, AGE_BEFORE, AGE_WORD, SEASON, MONTH, STREET = 4096, 8192, 16384, 32768, 65536, 131072
BOX, PLACE_CUE, PLACE_HEAD, DATE_CUE, STATE_CODE = 262144, 524288, 1 << 20, 1 << 21, 1 << 22
NOTE_CUE = 1 << 23  # a cue word of context_notes / context_places (cuewords.FLAGGED_WORDS)

TITLES = ("mr", "mrs", "ms", "miss", "dr", "doctor", "prof", "rev", "rabbi", "reverend", "drs")
RELATIONS = (
    "daughter", "dtr", "son", "wife", "husband", "mother", "mom", "father", "dad", "sister",
    "brother", "grandson", "granddaughter", "grandmother", "grandfather", "niece", "nephew",
    "aunt", "uncle", "partner", "friend", "neighbor", "neighbour", "hcp", "pcp", "caregiver",
    "carer", "caretaker", "cousin", "fiance", "fiancee", "boyfriend", "girlfriend", "spouse",
    "proxy", "guardian",
    "roommate", "stepson", "stepdaughter", "sil", "dil", "gf", "bf", "attending", "resident",
    "nurse", "therapist", "coordinator", "worker", "chaplain", "pharmacist", "surgeon",
    "physician", "colleague", "landlord", "pastor", "oncologist", "cardiologist",
    "caseworker", "daugher", "duaghter", "daughther", "neice", "grandaughter",
)  # fmt: skip
CREDENTIALS = (
    "md", "np", "pa", "rn", "lpn", "cna", "pac", "aprn", "crna", "cnm", "dnp", "phd", "msw",
    "lcsw", "licsw", "rrt", "pharmd", "dpt", "otr", "slp", "bsn", "msn", "fnp", "anp", "do",
    "pt", "ot", "sw", "cm", "crt",
)  # fmt: skip
FACILITIES = (
    "hospital", "clinic", "center", "centre", "rehab", "rehabilitation", "hospice", "infirmary",
    "institute", "healthcare", "nursing", "manor", "facility", "snf", "pavilion", "home",
    "health", "medical", "memorial", "va", "sanatorium", "house", "village", "residence",
    "hosp",
)  # fmt: skip
STREETS = (
    "street", "st", "avenue", "ave", "road", "rd", "lane", "ln", "drive", "dr", "boulevard",
    "blvd", "way", "court", "ct", "place", "pl", "terrace", "ter", "circle", "cir", "highway",
    "hwy", "parkway", "pkwy", "square", "sq", "trail", "path", "pike", "turnpike",
)  # fmt: skip
AGE_AFTERS = ("yo", "yrs", "yr", "year", "years", "y", "yoM", "yof", "yom", "yowm", "yowf")
AGE_BEFORES = ("age", "aged", "ages")
AGE_WORDS = ("nonagenarian", "nonagenarians", "centenarian", "centenarians", "supercentenarian")
SEASONS = ("spring", "summer", "fall", "autumn", "winter")
MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
    "sept", "oct", "nov", "dec",
)  # fmt: skip
PLACE_CUES = ("in", "from", "to", "at", "near", "of", "lives", "live", "living", "moved", "via")
DATE_CUES = (
    "on", "since", "from", "until", "till", "by", "of", "dated", "last", "next", "s/p", "sp",
    "seen", "admitted", "discharged", "visit", "appt", "before", "after", "date", "dos", "thru",
)  # fmt: skip

_MASK = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
MAX_LEN = 16
#: Slots of the direct table: about 8 per word, so that few words share one and the
#: table (hash and flags per slot) stays in the cache.
_SLOTS_PER_WORD = 8
_MAX_SLOT_BITS = 20


def _words(*parts: str) -> list[str]:
    return resource(*parts).read_text(encoding="utf-8").split()


def read8(buf: bytes, at: np.ndarray) -> np.ndarray:
    """The little-endian 8-byte integers at ``at`` (``buf`` has 8 spare bytes)."""
    view = np.ndarray(shape=(len(buf) - 8,), dtype="<u8", buffer=buf, strides=(1,))
    return view[at]


def word_hash(buf: bytes, starts: np.ndarray, length: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each word (its first 16 characters and its length)."""
    n = np.minimum(length, 8)
    k0 = read8(buf, starts) & _MASK[n]
    k1 = read8(buf, starts + 8) & _MASK[np.clip(length - 8, 0, 8)]
    return key_hash(k0, k1, length)


@dataclass(frozen=True, eq=False)
class Lexicon:
    """Sorted word hashes and each word's flags; ``multi`` maps the first word of each
    multi-word place to the folded full names."""

    hashes: np.ndarray
    flags: np.ndarray
    multi: dict[str, tuple[str, ...]]

    @functools.cached_property
    def _table(self) -> tuple[np.ndarray, int]:
        """An open-addressing table (linear probing) by the top bits of the hash, about
        ``_SLOTS_PER_WORD`` slots per word, and its number of bits. Per slot one record
        of two integers: the hash of one word, then its flags (0: an empty slot; every
        word has a flag; they fit in 32 bits) with, above bit 32, how far beyond the slot
        the words whose home it is were placed (0: all at home, so a word found neither
        there is unknown without probing). A look-up reads one record, one cache line,
        per word (the table, some MB, is mostly out of the cache when a batch's words
        are looked up). Filled in rounds, a word per free slot."""
        wanted = max(int(self.hashes.size) * _SLOTS_PER_WORD, 2)
        bits = min(_MAX_SLOT_BITS, max(10, (wanted - 1).bit_length()))
        size = 1 << bits
        hashes = np.zeros(size, dtype=np.uint64)
        flags = np.zeros(size, dtype=np.int32)
        reach = np.zeros(size, dtype=np.uint16)
        home = (self.hashes >> np.uint64(64 - bits)).astype(np.int64)
        pending = np.arange(self.hashes.size)
        probe = 0
        while pending.size:
            slot = (home[pending] + probe) & (size - 1)
            free = flags[slot] == 0
            slots, first = np.unique(slot[free], return_index=True)
            placed = pending[free][first]
            hashes[slots] = self.hashes[placed]
            flags[slots] = self.flags[placed]
            reach[home[placed]] = probe  # rounds only grow: the last one placed is the farthest
            done = np.zeros(pending.size, dtype=bool)
            done[np.flatnonzero(free)[first]] = True
            pending = pending[~done]
            probe += 1 if pending.size else 0
        table = np.empty((size, 2), dtype=np.uint64)
        table[:, 0] = hashes
        table[:, 1] = flags.astype(np.uint64) | (reach.astype(np.uint64) << np.uint64(32))
        return table, bits

    @functools.cached_property
    def _second_words(self) -> np.ndarray:
        """The sorted ``word_hash`` of the second word of every multi-word place, as a
        batch is cut into words (its folded text cut at every other character than a
        letter or digit)."""
        words = (fold(name).split() for names in self.multi.values() for name in names)
        seconds = sorted({w[1] for w in words if len(w) > 1})
        slots = [w.encode("ascii", "replace")[:MAX_LEN] for w in seconds]
        buf = b"".join(w.ljust(MAX_LEN, b"\0") for w in slots) + bytes(16)
        starts = np.arange(len(seconds), dtype=np.int64) * MAX_LEN
        length = np.fromiter(map(len, seconds), dtype=np.int64, count=len(seconds))
        return np.sort(word_hash(buf, starts, length))

    def second_word(self, h: np.ndarray) -> np.ndarray:
        """Whether the words of hashes ``h`` (``word_hash`` of the folded word, other
        characters than ASCII read as '?') may be the second word of a multi-word place
        (every one that is, and few others)."""
        table = self._second_words
        if h.size == 0 or table.size == 0:
            return np.zeros(h.size, dtype=bool)
        return table[np.minimum(np.searchsorted(table, h), table.size - 1)] == h

    def lookup(self, buf: bytes, starts: np.ndarray, length: np.ndarray) -> np.ndarray:
        """Flags of the words at ``starts`` in the folded ASCII ``buf`` (0: unknown)."""
        if starts.size == 0 or self.hashes.size == 0:
            return np.zeros(starts.size, dtype=np.int64)
        return self.lookup_hashes(word_hash(buf, starts, length), length)

    def lookup_hashes(self, h: np.ndarray, length: np.ndarray) -> np.ndarray:
        """Flags of the words of hashes ``h`` (``word_hash``) and lengths ``length``."""
        if h.size == 0 or self.hashes.size == 0:
            return np.zeros(h.size, dtype=np.int64)
        table, bits = self._table
        slot = (h >> np.uint64(64 - bits)).view(np.int64)  # (below 2 ** bits: no copy)
        # one gather of (hash, flags | reach << 32) per word (np.take: faster than
        # indexing)
        rec = np.take(table, slot, axis=0)
        here = rec[:, 0] == h
        meta = rec[:, 1].view(np.int64)
        out = (meta & 0xFFFFFFFF) * here  # not np.where: slow on a random mask
        # probe on only where words of this home were placed beyond it (few)
        todo = np.flatnonzero(~here & (meta > 0xFFFFFFFF))
        if todo.size == 0:
            out[length > MAX_LEN] = 0
            return out
        mask = (1 << bits) - 1
        home, want, reach = slot[todo], h[todo], meta[todo] >> 32
        k = 0
        while todo.size:
            k += 1
            at = np.take(table, (home + k) & mask, axis=0)
            here = at[:, 0] == want
            out[todo[here]] = at[here, 1].view(np.int64) & 0xFFFFFFFF
            left = ~here & (reach > k)
            todo, home, want, reach = todo[left], home[left], want[left], reach[left]
        out[length > MAX_LEN] = 0
        return out

    def flags_of(self, word: str) -> int:
        b = word.encode("ascii", "replace") + bytes(16)
        return int(self.lookup(b, np.array([0]), np.array([len(word)]))[0])


def _add(table: dict[str, int], words: object, flag: int) -> None:
    for w in words:  # type: ignore[attr-defined]
        if w.isascii() and 0 < len(w) <= MAX_LEN:
            table[w] = table.get(w, 0) | flag


def load_lexicon(full: bool = False) -> Lexicon:
    """The lexicon of the bundled lists (read once per process). Not ``full``: English
    words only where they are also Census names or places (all the finders ask);
    ``full``: every English word (the high-recall mode flags words in no list)."""
    # one cache entry per lexicon: ``functools.cache`` keys ``load_lexicon()`` and
    # ``load_lexicon(False)`` apart, which built the same lexicon twice
    return _lexicon(bool(full))


@functools.cache
def _lexicon(full: bool) -> Lexicon:
    table: dict[str, int] = {}
    english = _words("words", "english_web2.txt")
    if full:
        _add(table, english, ENGLISH)
    _add(table, _words("words", "common.txt"), COMMON)
    _add(table, _words("words", "name_words.txt"), NAME_WORD)
    _add(table, _words("words", "clinical.txt"), CLINICAL)
    _add(table, _words("names", "given_names.txt"), GIVEN)
    _add(table, _words("names", "surnames.txt"), SURNAME)
    gaz = load_gazetteer()
    multi: dict[str, list[str]] = {}
    for name in gaz.below_state:
        if " " in name:
            multi.setdefault(name.split(" ", 1)[0], []).append(name)
        else:
            _add(table, [name], PLACE)
    for name in gaz.states:
        if " " in name:
            multi.setdefault(name.split(" ", 1)[0], []).append(name)
        else:
            _add(table, [name], STATE)
    _add(table, multi, PLACE_HEAD)
    _add(table, gaz.state_codes, STATE_CODE)
    for words, flag in (
        (TITLES, TITLE), (RELATIONS, RELATION), (CREDENTIALS, CREDENTIAL),
        (FACILITIES, FACILITY), (STREETS, STREET), (AGE_AFTERS, AGE_AFTER),
        (AGE_BEFORES, AGE_BEFORE), (AGE_WORDS, AGE_WORD), (SEASONS, SEASON), (MONTHS, MONTH),
        (("box",), BOX), (PLACE_CUES, PLACE_CUE), (DATE_CUES, DATE_CUE),
    ):  # fmt: skip
        _add(table, [w.lower() for w in words], flag)
    _add(table, FLAGGED_WORDS, NOTE_CUE)
    if not full:
        _add(table, [w for w in english if w in table], ENGLISH)
    words = list(table)
    buf = b"".join(w.encode("ascii").ljust(MAX_LEN, b"\0") for w in words) + bytes(16)
    starts = np.arange(len(words), dtype=np.int64) * MAX_LEN
    length = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    h = word_hash(buf, starts, length)
    order = np.argsort(h)
    flags = np.fromiter(table.values(), dtype=np.int64, count=len(words))
    lexicon = Lexicon(
        hashes=h[order],
        flags=flags[order],
        multi={k: tuple(sorted(v, key=len, reverse=True)) for k, v in multi.items()},
    )
    # the look-up tables too, once per process with the lists, not in a first scan
    lexicon._table  # noqa: B018
    lexicon._second_words  # noqa: B018
    return lexicon


def hash_set(words: tuple[str, ...]) -> np.ndarray:
    """The sorted ``word_hash`` of each of ``words`` (lower case, at most 16 letters):
    a small set a finder looks a batch's words up in (``Words.hashes``)."""
    encoded = [x.encode("ascii") for x in words]
    buf = b"".join(x.ljust(MAX_LEN, b"\0") for x in encoded) + bytes(16)
    starts = np.arange(len(encoded), dtype=np.int64) * MAX_LEN
    return np.sort(word_hash(buf, starts, np.array([len(x) for x in encoded], dtype=np.int64)))


def in_set(values: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``np.isin(values, table)`` for a sorted ``table`` (a ``hash_set``): one binary
    search per value. (np.isin sorts both arrays together on every call: some hundred
    microseconds for a few thousand words, a tenth of a batch over its dozen calls.)"""
    if table.size == 0:
        return np.zeros(np.shape(values), dtype=bool)
    return table[np.minimum(np.searchsorted(table, values), table.size - 1)] == values
