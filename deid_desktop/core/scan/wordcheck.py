"""Checks on hits of the word pass, read from the batch's words (``context.Words``):
a dictionary name that is also an everyday word counts only where it is capitalised or
cued; what an old cue rule caught must not be a common word; a two-word cue capture is
cut back to its first word when the second is no name."""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.cuewords import english_at, inflected
from deid_desktop.core.scan.words import _CUE, Words, breaks, first_of_note, verb_ending


def word_at(w: Words, start: np.ndarray) -> np.ndarray:
    """The word index of each hit start (-1, a sentinel, where no word starts there):
    what the checks below read, found once per batch for each kind of hit."""
    at = np.minimum(np.searchsorted(w.start[: w.size], start), max(w.size - 1, 0))
    return np.where((w.size > 0) & (w.start[at] == start), at, -1)


def keep_dictionary_hits(w: Words, at: np.ndarray, cued: np.ndarray) -> np.ndarray:
    """Which dictionary name hits to keep: a name that is also an English word only
    where it is capitalised in a mixed-case note, or ``cued`` (an everyday word only
    after a title: "mrs young", where "son will visit" is a verb after a relation)."""
    if at.size == 0 or w.size == 0:
        return np.ones(at.size, dtype=bool)
    f = w.f(at)
    title, caps = w.title[at], w.caps[at]
    wordlike = (f & (lx.COMMON | lx.NAME_WORD)) != 0
    shows = (title | caps) & ~w.capsnote(at)
    return ~wordlike | shows | (cued & ((f & lx.COMMON) == 0)) | _after_title(w, at)


#: verbs after which a capitalised word at a sentence's start is its subject
_MODALS = lx.hash_set(("will", "would", "can", "could", "may", "might", "should", "must"))


def _word_at_start(w: Words, at: np.ndarray) -> np.ndarray:
    """A capitalised word read as a word, not a name: at a sentence's start and before
    a lower-case word that is no verb of a person ("May need", "Back to bed", "Will
    call"; not "Will reports", "Dawn visited", "Rose is", "Summer asking", "Hope will
    bring")."""
    at = np.maximum(at, 0)
    nx = np.minimum(at + 1, w.start.size - 1)
    person = (w.raw[w.end[nx] - 1] | 32) == 115  # "reports", "is", "has"
    ed, ing = verb_ending(w, nx)
    person |= (ed & (w.lengths[nx] >= 5)) | ing  # "called", "asking"; not "need"
    person |= lx.in_set(w.hashes[np.minimum(nx, w.size - 1)], _MODALS)  # "Hope will bring"
    # a sentence's start: a stop and a space or a line's break before; not "E.Carter",
    # "J. Fox", "Dr. Young" (after an initial or a title)
    prev = at - 1
    broken = breaks(w, at)  # a line's or a note's start
    after = (w.gaps.length[at] >= 2) & (w.length(prev) > 1) & ~w.has(prev, lx.TITLE)
    start = broken | (w.gaps.stop[at] & after)
    joined = w.gaps.space[nx] | ((w.gaps.first[nx] == 45) & (w.gaps.length[nx] == 1))  # "Post-op"
    return start & joined & w.lower[nx] & ~person & w.valid(nx)


def english_uncued(w: Words, at: np.ndarray, cued: np.ndarray) -> np.ndarray:
    """Which dictionary name hits ``at`` are words of the English word list (not an
    everyday word: those ``keep_dictionary_hits`` reads) written as a word is: neither
    capitalised in a mixed-case note, nor cued, nor after a title ("unable to wedge");
    and which everyday or English words are capitalised only as a sentence's first word
    ("May need", "Post transfusion"). Such a hit is a name in its own person's notes, a
    word in another's (``engine``)."""
    if at.size == 0 or w.size == 0:
        return np.zeros(at.size, dtype=bool)
    f = w.f(at)
    title, caps, _, _ = w.case(at)
    shows = (title | caps) & ~w.capsnote(at)
    english = ((f & lx.ENGLISH) != 0) & ((f & (lx.COMMON | lx.NAME_WORD)) == 0)
    clinical = (f & lx.CLINICAL) != 0  # "NG tube", "Wedge 16": capitalised or not
    wordlike = (f & (lx.ENGLISH | lx.COMMON | lx.NAME_WORD)) != 0
    first = shows & wordlike
    may = np.flatnonzero(first)  # few: read the sentence's start for these only
    first[may] = _word_at_start(w, at[may])
    return ((english & ~shows) | clinical | first) & ~cued & ~_after_title(w, at)


def _after_title(w: Words, at: np.ndarray) -> np.ndarray:
    """Does a title (Mr, Mrs, Ms, Dr...) stand right before each word ``at``?"""
    prev = np.where(at > 0, at - 1, -1)
    return ((w.f(prev) & lx.TITLE) != 0) & (prev >= 0)


def cue_before(w: Words, at: np.ndarray) -> np.ndarray:
    """Does a cue word stand right before each word ``at``?"""
    if at.size == 0 or w.size == 0:
        return np.zeros(at.size, dtype=bool)
    prev = np.where(at > 0, at - 1, -1)
    f = w.f(prev)
    caps = w.caps[prev]
    cue = (f & (lx.TITLE | lx.RELATION)) != 0
    cue |= ((f & lx.CREDENTIAL) != 0) & caps & ~w.capsnote(prev)
    return cue & (prev >= 0) & ~first_of_note(w, at)  # not the last note's "... NP."


def common_capture(w: Words, at: np.ndarray) -> np.ndarray:
    """Is each word ``at`` a common word that is no name (what an old cue rule caught
    in "WIFE IN TO VISIT" or "Son At bedside")?"""
    if at.size == 0 or w.size == 0:
        return np.zeros(at.size, dtype=bool)
    f = w.f(at)
    title, lower = w.title[at], w.lower[at]
    capsnote = w.capsnote(at)
    named = title & ~capsnote  # "Dr. Aki", "father Thu": Title-case after a cue
    bad = ((f & lx.COMMON) != 0) & ~(((f & lx.NAME_WORD) != 0) & named)
    bad |= ((f & lx.CLINICAL) != 0) & ~named
    lower_word = (capsnote | lower) & ((f & (lx.GIVEN | lx.SURNAME)) == 0)
    at = np.where(lower_word, at, -1)  # the English list read for these words only
    english = ((f & lx.ENGLISH) != 0) | english_at(w, at)
    english |= inflected(w, np.where(_after_title(w, at), -1, at))  # "dr lavely": a name
    return bad | (lower_word & english)


def trim_cue_names(w: Words, at: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The ends of two-word cue captures cut back to the first word when the second is
    a common or clinical word, or the note is in capitals and the second word is no
    Census name ("DR. JONES AWARE")."""
    if at.size == 0 or w.size == 0:
        return end
    nx = np.where(at >= 0, at + 1, -1)
    valid = w.valid(nx) & (at >= 0)
    two = valid & (w.end[w.at(nx)] <= end) & (w.end[w.at(at)] < end)
    f = w.f(nx)
    bad = (f & (lx.COMMON | lx.CLINICAL | _CUE)) != 0
    bad |= w.capsnote(nx) & ((f & (lx.GIVEN | lx.SURNAME)) == 0)
    return np.where(two & bad, w.end[w.at(at)], end)
