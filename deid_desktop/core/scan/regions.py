"""The word pass over a folded ASCII batch without running the automaton over all of it.

Every word of the text up to 16 characters is read as two 8-byte integers (an exact
key) and hashed. A one-word term alone in its hash bucket ("easy") is found by comparing
keys. The other terms ("hard": several words, longer than 16 characters, or sharing a
bucket) are found by the hard-term automatons, split by the bucket of the first word and
at most 50k terms each (building one is a single call that holds the GIL; millions of
terms in one froze the window), each run only over the parts of the text around words
that could begin one of its terms: every match of " term " begins at a text word equal
to the term's first word and ends within the term's length of it. A hash collision only adds
work, never loses a match. The result is the set of matches the full automaton finds,
in the same order (by end, longest first).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ahocorasick
import numpy as np

from deid_desktop.core.gc_pause import CHUNK, array_list, map_array

_BITS = 18  # 256k buckets: the tables stay in cache
_EXACT = 16  # characters of a word read exactly (two 8-byte integers)
#: Hard terms per automaton. Building one automaton is a single call that holds the GIL
#: (about 0.3 s per million terms): hard terms are split by the bucket of their first
#: word into automatons of about this many, each run only around its own candidates.
_SHARD_TERMS = 50_000
_M0 = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xC2B2AE3D27D4EB4F)
_SHIFT = np.uint64(64 - _BITS)
#: Bytes kept of an 8-byte read, by the number of characters that belong to the word.
_MASK = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
_EMPTY = np.empty(0, dtype=np.int64)
#: ``WordIndex.easy`` of a bucket shared by several one-word terms (-1: no term).
_SHARED = -2


def _read8(buf: bytes, at: np.ndarray) -> np.ndarray:
    """The little-endian 8-byte integers starting at ``at`` (``buf`` has 8 spare bytes)."""
    view = np.ndarray(shape=(len(buf) - 8,), dtype="<u8", buffer=buf, strides=(1,))
    return view[at]


def _keys(buf: bytes, starts: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact keys of the words at ``starts`` (their first 16 characters)."""
    k0 = _read8(buf, starts) & _MASK[np.minimum(length, 8)]
    k1 = np.zeros(starts.size, dtype=np.uint64)
    long = np.flatnonzero(length > 8)
    if long.size:
        k1[long] = _read8(buf, starts[long] + 8) & _MASK[np.minimum(length[long] - 8, 8)]
    return k0, k1


def key_hash(k0: np.ndarray, k1: np.ndarray, length: np.ndarray) -> np.ndarray:
    """A 64-bit hash of a word from its two 8-byte keys and its length (the first 8
    characters, then the next 8 of a longer word, else 0): the word pass hashes each
    text word once, for the direct table, the sorted terms and the lexicon."""
    with np.errstate(over="ignore"):
        h = (k0 * _M0) ^ ((k1 + length.astype(np.uint64)) * _M1)
        h ^= h >> np.uint64(29)
        h *= _M0
    return h


def _bucket_of(h: np.ndarray) -> np.ndarray:
    return (h >> _SHIFT).view(np.int64)


def _bucket(k0: np.ndarray, k1: np.ndarray, length: np.ndarray) -> np.ndarray:
    return _bucket_of(key_hash(k0, k1, length))


@dataclass(frozen=True, eq=False)
class WordIndex:
    """Easy terms by bucket (``easy[bucket]`` = word number or -1, with its key), the
    hard-term automatons (``hard[k]`` holds the terms whose first word's bucket is k
    modulo their number, in automatons of at most ``_SHARD_TERMS`` terms: many terms can
    share one first word, as IDs "SYN 1", "SYN 2"... do), the longest hard term per bucket of its
    first word (``hard_span``; a word over 16 characters is bucketed by its first 16 and
    its length, as the words of the text are), and the length of every term."""

    easy: np.ndarray
    easy_k0: np.ndarray
    easy_k1: np.ndarray
    easy_len: np.ndarray
    hard: tuple[tuple[ahocorasick.Automaton, ...], ...]
    hard_span: np.ndarray
    term_len: np.ndarray
    pairs: _Pairs
    shared: _Sorted

    @classmethod
    def build(cls, terms: Sequence[str]) -> WordIndex:
        """``terms[i]`` is word number ``i`` (folded, no padding). The keys are read from
        one buffer of every term (numpy), so that no Python object is made per term."""
        n = len(terms)
        is_ascii = map_array(str.isascii, terms, bool)  # others: their own automaton
        term_len = map_array(len, terms, np.int64)
        buf = _joined(terms)
        tstart = np.cumsum(term_len + 1) - (term_len + 1)
        raw = np.frombuffer(buf, dtype=np.uint8)
        spaces = np.flatnonzero(raw == 32)
        owner = np.searchsorted(tstart, spaces, side="right") - 1
        n_spaces = np.bincount(owner, minlength=n)
        first_space = tstart + term_len  # no space: the term's end
        first_space[owner[::-1]] = spaces[::-1]  # the first space of each term
        first_len = first_space - tstart
        single = np.flatnonzero(is_ascii & (n_spaces == 0) & (term_len <= _EXACT))
        k0, k1 = _keys(buf, tstart[single], term_len[single])
        length = term_len[single]
        bucket = _bucket(k0, k1, length)
        per_bucket = np.bincount(bucket, minlength=1 << _BITS)
        alone = per_bucket[bucket] == 1
        easy = np.full(1 << _BITS, -1, dtype=np.int32)
        ids = single
        easy[bucket[alone]] = ids[alone]
        easy_k0 = np.zeros(n, dtype=np.uint64)
        easy_k1 = np.zeros(n, dtype=np.uint64)
        easy_len = np.full(n, -1, dtype=np.int64)
        easy_k0[ids[alone]], easy_k1[ids[alone]] = k0[alone], k1[alone]
        easy_len[ids[alone]] = length[alone]
        is_hard = is_ascii.copy()
        is_hard[ids[alone]] = False
        # words that share a bucket (at a million terms, most): by their sorted hashes
        shared = _Sorted.build(ids[~alone], k0[~alone], k1[~alone], length[~alone])
        is_hard[shared.ids] = False
        easy[bucket[~alone]] = _SHARED  # a text word there is looked up in ``shared``
        pairs = _Pairs.build(buf, tstart, term_len, first_len, is_ascii & (n_spaces == 1))
        is_hard[pairs.ids] = False
        hard_ids = np.flatnonzero(is_hard)
        hard_span = np.zeros(1 << _BITS, dtype=np.int32)
        shards = max(1, -(-hard_ids.size // _SHARD_TERMS))
        shard_of = np.zeros(hard_ids.size, dtype=np.int64)
        if hard_ids.size:
            # a text word is read as its first 16 characters and its length: the same key
            fl = first_len[hard_ids]
            f0, f1 = _keys(buf, tstart[hard_ids], np.minimum(fl, _EXACT))
            first_bucket = _bucket(f0, f1, fl)
            np.maximum.at(hard_span, first_bucket, term_len[hard_ids].astype(np.int32))
            shard_of = first_bucket % shards
        hard = tuple(
            tuple(
                _automaton(terms, array_list(members[at : at + _SHARD_TERMS]))
                for at in range(0, members.size, _SHARD_TERMS)
            )
            for members in (hard_ids[shard_of == k] for k in range(shards))
        )
        return cls(easy, easy_k0, easy_k1, easy_len, hard, hard_span, term_len, pairs, shared)

    def matches(
        self,
        padded: bytes,
        tokens: list[tuple[np.ndarray, ...]] | None = None,
        *,
        spare: int = 0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """End index (of the trailing space) in ``padded`` and word number of every match
        of " term " in ``padded``, a folded ASCII batch with a space at each end; in the
        automaton's order (by end, longest first). ``tokens``: receives the words of the
        text (starts, ends in ``padded``, and their two 8-byte keys) for the lexicon.
        ``spare``: zero bytes already after the batch in ``padded`` (8 spare bytes are
        read past it; fewer: it is copied with them)."""
        n = len(padded) - spare
        buf = padded if spare >= 8 else padded[:n] + bytes(8)
        raw = np.frombuffer(buf, dtype=np.uint8, count=n)
        word = raw != 32
        edges = np.flatnonzero(word[1:] != word[:-1]) + 1
        starts, ends = edges[0::2], edges[1::2]  # the first and last characters are spaces
        length = ends - starts
        k0, k1 = _keys(buf, starts, length)
        h = key_hash(k0, k1, length)
        if tokens is not None:
            tokens.append((starts, ends, k0, k1, h))
        bucket = _bucket_of(h)
        w0 = np.take(self.easy, bucket)  # (faster than indexing, for every word)
        hit = np.flatnonzero(w0 >= 0)
        w = w0[hit].astype(np.int64)
        ok = (
            (self.easy_len[w] == length[hit])
            & (self.easy_k0[w] == k0[hit])
            & (self.easy_k1[w] == k1[hit])
        )
        easy_last, easy_ids = ends[hit[ok]], w[ok]
        found: list[tuple[np.ndarray, np.ndarray]] = []
        if any(self.hard):  # (no hard term: no span to read)
            span = self.hard_span[bucket]
            shard = bucket % len(self.hard) if len(self.hard) > 1 else None
            found = [
                self._hard_matches(
                    raw, starts, span if shard is None else span * (shard == k), auto
                )
                for k, automatons in enumerate(self.hard)
                for auto in automatons
            ]
        cand = np.flatnonzero(w0 == _SHARED)
        found.append(self.shared.matches(ends[cand], length[cand], k0[cand], k1[cand], h[cand]))
        found.append(self.pairs.matches(starts, ends, length, k0, k1))
        hard_last = np.concatenate([f[0] for f in found])
        hard_ids = np.concatenate([f[1] for f in found])
        if hard_last.size == 0:
            return easy_last, easy_ids  # one word per match: already in order
        last = np.concatenate((easy_last, hard_last))
        ids = np.concatenate((easy_ids, hard_ids))
        order = end_order(last, self.term_len[ids])
        return last[order], ids[order]

    @staticmethod
    def _hard_matches(
        raw: np.ndarray, starts: np.ndarray, span: np.ndarray, auto: ahocorasick.Automaton
    ) -> tuple[np.ndarray, np.ndarray]:
        cand = np.flatnonzero(span)
        if cand.size == 0:
            return _EMPTY, _EMPTY
        n = raw.size
        r_start = starts[cand] - 1  # the space before the word
        r_end = np.minimum(starts[cand] + span[cand].astype(np.int64) + 1, n)  # space after
        reach = np.maximum.accumulate(r_end)
        heads = np.flatnonzero(np.concatenate(([True], r_start[1:] >= reach[:-1])))
        p_start = r_start[heads]
        p_len = np.maximum.reduceat(r_end, heads) - p_start
        at = np.cumsum(p_len + 1) - (p_len + 1)  # each part and a NUL after it
        total = int(at[-1] + p_len[-1])
        idx = np.arange(total, dtype=np.int64) + np.repeat(p_start - at, p_len + 1)[:total]
        chars = raw[np.minimum(idx, n - 1)]
        chars[at[1:] - 1] = 0
        text = chars.tobytes().decode("ascii")
        flat = np.fromiter((x for pair in auto.iter(text) for x in pair), dtype=np.int64)
        last, ids = flat[0::2], flat[1::2]
        part = np.searchsorted(at, last, side="right") - 1
        return last - at[part] + p_start[part], ids


def end_order(last: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The stable order by end, then longest first: ``np.lexsort((-length, last))``, as
    one sort of a packed key when it fits (the easy matches come in order: the sort
    merges the others into them)."""
    top = int(length.max(initial=0))
    bits = top.bit_length()
    if int(last.max(initial=0)).bit_length() + bits > 62 or length.min(initial=0) < 0:
        return np.lexsort((-length, last))
    return np.argsort((last << bits) | (top - length), kind="stable")


def _automaton(terms: Sequence[str], ids: Sequence[int]) -> ahocorasick.Automaton:
    """The automaton of " term " for the given word numbers (at least one)."""
    auto = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for i in ids:
        auto.add_word(f" {terms[i]} ", i)
    auto.make_automaton()
    return auto


def _joined(terms: Sequence[str]) -> bytes:
    """Every term and a newline after it, as ASCII (any other character read as '?', one
    byte each, so offsets stay those of the terms), with 16 spare bytes; joined a chunk
    at a time (one join of millions of terms would hold the GIL throughout)."""
    parts = [
        ("\n".join(terms[at : at + CHUNK]) + "\n").encode("ascii", "replace")
        for at in range(0, len(terms), CHUNK)
    ]
    return b"".join(parts) + bytes(16)


def _pair_hash(
    a0: np.ndarray, a1: np.ndarray, la: np.ndarray, b0: np.ndarray, b1: np.ndarray, lb: np.ndarray
) -> np.ndarray:
    with np.errstate(over="ignore"):
        h = (a0 * _M0) ^ (a1 * _M1) ^ la.astype(np.uint64)
        h = (h * _M1) ^ (b0 * _M0) ^ (b1 * _M1) ^ (lb.astype(np.uint64) << np.uint64(32))
        return h ^ (h >> np.uint64(31))


#: Sorted hash tables of at least this many terms get a presence bitmap (``_Presence``).
_PRESENCE_MIN = 1 << 16


@dataclass(frozen=True, eq=False)
class _Presence:
    """A bitmap of about 8 bits per hash of a sorted table, set by the hashes' top bits:
    a text word (or pair) whose bit is clear is in no entry of the table, so only the
    few others are searched. At millions of terms a binary search misses the cache at
    each of its ~20 steps; one bit read of a table of a few MB does not as often."""

    table: np.ndarray  # uint8, 2 ** (bits - 3) bytes
    shift: np.uint64  # 64 - bits

    @classmethod
    def of(cls, hashes: np.ndarray) -> _Presence | None:
        if hashes.size < _PRESENCE_MIN:
            return None
        bits = min(30, max(16, int(hashes.size * 8 - 1).bit_length()))
        shift = np.uint64(64 - bits)
        top = hashes >> shift
        table = np.zeros(1 << (bits - 3), dtype=np.uint8)
        byte = (top >> np.uint64(3)).astype(np.intp)
        np.bitwise_or.at(table, byte, np.left_shift(1, top & np.uint64(7)).astype(np.uint8))
        return cls(table, shift)

    def maybe(self, h: np.ndarray) -> np.ndarray:
        """Where a hash of ``h`` may be in the table (every one that is, and few more)."""
        top = h >> self.shift
        return (
            (self.table[(top >> np.uint64(3)).astype(np.intp)] >> (top & np.uint64(7))) & 1
        ) != 0


@dataclass(frozen=True, eq=False)
class _Pairs:
    """Terms of two words of 1-16 characters with one space between ("syn 8365111", an
    MRN with its prefix): found by the exact keys of two neighbouring text words, as
    one sorted hash per term and the four keys and two lengths that confirm it."""

    hashes: np.ndarray  # sorted
    ids: np.ndarray  # word number of each, in the order of ``hashes``
    keys: np.ndarray  # (6, n): first word k0, k1, length; second word k0, k1, length
    presence: _Presence | None = None

    @classmethod
    def build(
        cls,
        buf: bytes,
        tstart: np.ndarray,
        term_len: np.ndarray,
        first_len: np.ndarray,
        two_words: np.ndarray,
    ) -> _Pairs:
        la, lb = first_len, term_len - first_len - 1
        ok = two_words & (la >= 1) & (la <= _EXACT) & (lb >= 1) & (lb <= _EXACT)
        ids = np.flatnonzero(ok)
        a0, a1 = _keys(buf, tstart[ids], la[ids])
        b0, b1 = _keys(buf, tstart[ids] + la[ids] + 1, lb[ids])
        h = _pair_hash(a0, a1, la[ids], b0, b1, lb[ids])
        # not a stable sort: the terms of one hash are all dropped below, so the order
        # of those kept is that of their (distinct) hashes whatever the sort
        order = np.argsort(h)
        h = h[order]
        # two terms of one hash (never seen in practice) are left to the automatons
        dup = np.zeros(h.size, dtype=bool)
        if h.size > 1:
            same = h[1:] == h[:-1]
            dup[1:] |= same
            dup[:-1] |= same
        order = order[~dup]
        keys = np.stack(
            [a[order] for a in (a0, a1, la[ids].view(np.uint64), b0, b1, lb[ids].view(np.uint64))]
        )
        return cls(h[~dup], ids[order], keys, _Presence.of(h[~dup]))

    def matches(
        self,
        starts: np.ndarray,
        ends: np.ndarray,
        length: np.ndarray,
        k0: np.ndarray,
        k1: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """End index and word number of each pair term at two text words with one
        space between them."""
        if self.hashes.size == 0 or starts.size < 2:
            return _EMPTY, _EMPTY
        a = np.flatnonzero(starts[1:] == ends[:-1] + 1)
        b = a + 1
        ln = length.view(np.uint64)
        h = _pair_hash(k0[a], k1[a], length[a], k0[b], k1[b], length[b])
        if self.presence is not None:
            may = np.flatnonzero(self.presence.maybe(h))
            a, b, h = a[may], b[may], h[may]
        at = np.minimum(np.searchsorted(self.hashes, h), self.hashes.size - 1)
        hit = np.flatnonzero(self.hashes[at] == h)
        a, b, at = a[hit], b[hit], at[hit]
        kk = self.keys[:, at]
        exact = (kk[0] == k0[a]) & (kk[1] == k1[a]) & (kk[2] == ln[a])
        exact &= (kk[3] == k0[b]) & (kk[4] == k1[b]) & (kk[5] == ln[b])
        return ends[b[exact]], self.ids[at[exact]]


@dataclass(frozen=True, eq=False)
class _Sorted:
    """One-word terms of at most 16 characters that share a bucket of the direct table:
    one sorted 64-bit hash per term, confirmed by its exact keys and length."""

    hashes: np.ndarray
    ids: np.ndarray
    keys: np.ndarray  # (3, n): k0, k1, length
    presence: _Presence | None = None

    @classmethod
    def build(cls, ids: np.ndarray, k0: np.ndarray, k1: np.ndarray, length: np.ndarray) -> _Sorted:
        h = key_hash(k0, k1, length)
        order = np.argsort(h)  # the terms of one hash are dropped: any sort will do
        h = h[order]
        dup = np.zeros(h.size, dtype=bool)  # one hash for two terms: left to the automatons
        if h.size > 1:
            same = h[1:] == h[:-1]
            dup[1:] |= same
            dup[:-1] |= same
        order = order[~dup]
        keys = np.stack([a[order] for a in (k0, k1, length.view(np.uint64))])
        return cls(h[~dup], ids[order], keys, _Presence.of(h[~dup]))

    def matches(
        self, ends: np.ndarray, length: np.ndarray, k0: np.ndarray, k1: np.ndarray, h: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """End index and word number of each such term among the text words (``h``:
        their ``key_hash``)."""
        if self.hashes.size == 0 or ends.size == 0:
            return _EMPTY, _EMPTY
        cand = None if self.presence is None else np.flatnonzero(self.presence.maybe(h))
        hc = h if cand is None else h[cand]
        at = np.minimum(np.searchsorted(self.hashes, hc), self.hashes.size - 1)
        hit = np.flatnonzero(self.hashes[at] == hc)
        at = at[hit]
        if cand is not None:
            hit = cand[hit]
        kk = self.keys[:, at]
        exact = (kk[0] == k0[hit]) & (kk[1] == k1[hit]) & (kk[2] == length[hit].view(np.uint64))
        return ends[hit[exact]], self.ids[at[exact]]
