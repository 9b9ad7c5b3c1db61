"""Clinicians' and visitors' names in nursing notes, where no title stands before them
(called from ``context_notes``):

- a signature: one or two names before a credential, no comma ("WENZEL BREIT RN",
  "buggs emelina rn", "LANGDON AKINS NP");
- one or two names before "aware", "notified", "paged", "called" ("SHEATS ROTZ AWARE",
  "joan hovey called to bedside");
- one or two names after "per" ("PER GUTIEREZ WILL HOLD", "per karmen leite").

A name here is a word of letters that no bundled list knows as an English, clinical or
common word (nor a cue, a unit or a measure); the word beside the cue must be a name of
the Census lists ("hovey"), the other may be a word no list knows ("rotz").
"""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan import cuegroups as cg
from deid_desktop.core.scan import cuewords as cw
from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.rules import CODE
from deid_desktop.core.scan.words import _CUE, _LOW, _UP, Words, ambiguous_cue

Out = list[tuple[np.ndarray, np.ndarray, int]]
C_STAFF = CODE[("NAME", "notes:staff-name")]
_NOT = (
    lx.COMMON | lx.CLINICAL | lx.MONTH | lx.SEASON | lx.FACILITY | lx.STREET | lx.STATE
    | lx.STATE_CODE | _CUE
)  # fmt: skip
_NAMES = lx.GIVEN | lx.SURNAME
#: words after which the names are told of ("X Y aware")
TOLD_WORDS = ("aware", "notified", "paged", "called", "informed", "updated")
#: the cue words' hashes, sorted, and for each whether it is "per"
_CUES = np.concatenate((lx.hash_set(TOLD_WORDS), lx.hash_set(("per",))))
_IS_PER = np.arange(_CUES.size) == _CUES.size - 1
_ORDER = np.argsort(_CUES)
_PAC = lx.hash_set(("pac",))
_CUES, _IS_PER = _CUES[_ORDER], _IS_PER[_ORDER]
#: The cue words by the low bits of their hashes: every word's hash is read there first
#: (one gather), and only the few words it lets through are searched in ``_CUES``.
_LOW_BITS = (1 << 12) - 1
_MAY_BE_CUE = np.zeros(_LOW_BITS + 1, dtype=bool)
_MAY_BE_CUE[(_CUES & np.uint64(_LOW_BITS)).astype(np.intp)] = True


def find_staff(w: Words, g: cw.Cues, out: Out) -> None:
    """Append the candidate hits of this module to ``out``."""
    n = w.size
    if n < 2:
        return
    h = w.hashes
    cred = g.flagged(lx.CREDENTIAL)
    cred = cred[(w.caps[cred] | (g.group(cred) == cg.CRED)) & w.gap(cred).space]
    may = np.flatnonzero(np.take(_MAY_BE_CUE, h.view(np.int64) & _LOW_BITS))
    k = np.minimum(np.searchsorted(_CUES, h[may]), _CUES.size - 1)
    found = _CUES[k] == h[may]
    hit = may[found]
    per = _IS_PER[k[found]]
    told = hit[~per]
    told = told[w.gap(told).space]
    # a credential no clinical abbreviation shares ("AKINS NP"; not "IJ PA LINE", "OCC PAC")
    cred = cred[~ambiguous_cue(w, cred) & ~lx.in_set(h[np.minimum(cred, n - 1)], _PAC)]
    _before(w, g, cred - 1, out, listed=False)
    _before(w, g, told - 1, out, listed=True)  # "aware": a Census name
    _after(w, g, hit[per] + 1, out)


def _name(w: Words, g: cw.Cues, i: np.ndarray, listed: bool) -> np.ndarray:
    """Whether the words at ``i`` may be names: letters, two or more, no listed word of
    another kind, no English word; ``listed``: a Census name too."""
    i = np.clip(i, 0, w.size - 1)
    ok = ((w.c0[i] & (_UP | _LOW)) != 0) & ~w.digits[i] & (w.length(i) >= 2) & w.valid(i)
    ok &= (w.flags[i] & _NOT) == 0
    if listed:
        ok &= (w.flags[i] & _NAMES) != 0
    ok &= ~w.title[i] | w.capsnotes[i]  # capitalised in a mixed note: other rules read it
    at = np.flatnonzero(ok)
    ok[at] = ~g.english(i[at])  # a surname may end in "s" ("Akins"): no plural read
    return ok


def _listed(w: Words, i: np.ndarray) -> np.ndarray:
    """A Census name before a name, English word or not ("WENZEL BREIT"), in capitals
    or small letters: no other kind of listed word."""
    i = np.clip(i, 0, w.size - 1)
    ok = ((w.flags[i] & _NAMES) != 0) & ((w.flags[i] & _NOT) == 0) & (w.length(i) >= 3)
    return ok & (w.caps[i] | w.lower[i]) & ~w.digits[i]


def _before(w: Words, g: cw.Cues, last: np.ndarray, out: Out, *, listed: bool) -> None:
    last = last[last >= 0]
    last = last[_name(w, g, last, listed)]
    if last.size == 0:
        return
    prev = last - 1
    two = (prev >= 0) & w.gap(last).space & (_name(w, g, prev, False) | _listed(w, prev))
    out.append((np.where(two, w.start[np.maximum(prev, 0)], w.start[last]), w.end[last], C_STAFF))


def _after(w: Words, g: cw.Cues, first: np.ndarray, out: Out) -> None:
    first = first[(first < w.size) & w.gap(np.minimum(first, w.size - 1)).space]
    first = first[_name(w, g, first, True)]
    if first.size == 0:
        return
    nx = first + 1
    two = (nx < w.size) & w.gap(np.minimum(nx, w.size - 1)).space & _name(w, g, nx, False)
    out.append(
        (w.start[first], np.where(two, w.end[np.minimum(nx, w.size - 1)], w.end[first]), C_STAFF)
    )
