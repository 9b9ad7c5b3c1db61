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

import re

import numpy as np

from deid_desktop.core.scan import cuegroups as cg
from deid_desktop.core.scan import cuewords as cw
from deid_desktop.core.scan import lexicon as lx
from deid_desktop.core.scan.rules import CODE
from deid_desktop.core.scan.screen import register
from deid_desktop.core.scan.words import _CUE, _LOW, _UP, Words, ambiguous_cue

Out = list[tuple[np.ndarray, np.ndarray, int]]
C_STAFF = CODE[("NAME", "notes:staff-name")]
_NOT = (
    lx.COMMON | lx.CLINICAL | lx.MONTH | lx.SEASON | lx.FACILITY | lx.STREET | lx.STATE
    | lx.STATE_CODE | _CUE
)  # fmt: skip
_NAMES = lx.GIVEN | lx.SURNAME
#: words after which the names are told of ("X Y aware")
TOLD_WORDS = ("aware", "notified", "paged", "called", "informed", "updated", "visited")
#: two-word cues a name follows ("significant other Georgetta", "accompanied by Beery"):
#: the first word, for each last word
PHRASES = {
    "other": ("significant",),
    "by": ("accompanied", "visited", "dictated", "signed", "transcribed", "reviewed"),
    "person": ("contact",),
}
_TOLD, _PER, _PHRASE = 0, 1, 2
#: the cue words' hashes, sorted, and for each its kind (told, "per", a phrase's end)
_CUES = np.concatenate((lx.hash_set(TOLD_WORDS), lx.hash_set(("per",)), lx.hash_set(PHRASES)))
_KIND = np.repeat(np.array([_TOLD, _PER, _PHRASE]), [len(TOLD_WORDS), 1, len(PHRASES)])
_HEADS = np.unique(lx.hash_set(tuple(h for heads in PHRASES.values() for h in heads)))
_ORDER = np.argsort(_CUES)
_PAC = lx.hash_set(("pac",))
_CUES, _KIND = _CUES[_ORDER], _KIND[_ORDER]
#: The cue words' bit in the batch's word screen: only the few words it lets through
#: are searched in ``_CUES``.
_SCREEN = register(_CUES)


#: a credential written with full stops ("R.N.", "m.d.", "R.R.T.")
_PAIRS = np.sort(
    np.array(
        [ord(a) * 256 + ord(b) for a, b in ("rn", "lp", "md", "np", "pa", "rr", "cn", "ms", "do")]
    )
)
_DOTTED = re.compile(r"(?:R\.N|L\.P\.N|M\.D|N\.P|P\.A|R\.R\.T|C\.N\.A|M\.S\.W|D\.O)\.", re.I)


def find_staff(text: str, w: Words, g: cw.Cues, out: Out) -> None:
    """Append the candidate hits of this module to ``out``."""
    n = w.size
    if n < 2:
        return
    _dotted(text, w, g, out)
    _signature(w, g, out)
    h = w.hashes
    cred = g.flagged(lx.CREDENTIAL)
    cred = cred[(w.caps[cred] | (g.group(cred) == cg.CRED)) & w.gap(cred).space]
    may = w.screen(_SCREEN)
    k = np.minimum(np.searchsorted(_CUES, h[may]), _CUES.size - 1)
    found = _CUES[k] == h[may]
    hit = may[found]
    kind = _KIND[k[found]]
    told = hit[kind == _TOLD]
    told = told[w.gap(told).space]
    # "significant other X", "accompanied by X" (any pair of the first and last words)
    phrase = hit[kind == _PHRASE]
    phrase = phrase[(phrase > 0) & w.gap(phrase).space]
    phrase = phrase[lx.in_set(h[np.maximum(phrase - 1, 0)], _HEADS)]
    # a credential no clinical abbreviation shares ("AKINS NP"; not "IJ PA LINE", "OCC PAC")
    cred = cred[~ambiguous_cue(w, cred) & ~lx.in_set(h[np.minimum(cred, n - 1)], _PAC)]
    _before(w, g, cred - 1, out, listed=False, english=lx.GIVEN)
    _before(w, g, told - 1, out, listed=True)  # "aware": a Census name
    _after(w, g, hit[kind == _PER] + 1, out)
    _after(w, g, phrase + 1, out, phrase=True)


def _name(
    w: Words,
    g: cw.Cues,
    i: np.ndarray,
    listed: bool,
    english_names: int = 0,
    titled: bool = False,
) -> np.ndarray:
    """Whether the words at ``i`` may be names: letters, two or more, no listed word of
    another kind, no English word; ``listed``: a Census name too; ``english_names``: the
    Census lists (``lx.GIVEN``, ``_NAMES``) whose names may be English words too ("PEARL
    RRT", "Caster, R.N.");
    ``titled``: capitalised in a mixed note too (after a two-word cue no other rule reads)."""
    i = np.clip(i, 0, w.size - 1)
    ok = ((w.c0[i] & (_UP | _LOW)) != 0) & ~w.digits[i] & (w.length(i) >= 2) & w.valid(i)
    ok &= (w.flags[i] & _NOT) == 0
    if listed:
        ok &= (w.flags[i] & _NAMES) != 0
    if not titled:  # capitalised in a mixed note: other rules read it
        ok &= ~w.title[i] | w.capsnotes[i]
    at = np.flatnonzero(ok)
    # an English given name ("PEARL RRT"), not an English surname ("CANNOT TELL RN")
    f = w.flags[i[at]]
    named = (f & english_names) != 0
    # a Census surname may end in "s" ("Akins"); another word no plural ("HOURS MD")
    listed_at = (f & _NAMES) != 0
    plain = np.empty(at.size, dtype=bool)
    plain[listed_at] = ~g.english(i[at[listed_at]])
    plain[~listed_at] = ~g.wordlike(i[at[~listed_at]])
    ok[at] = named | plain
    return ok


def _listed(w: Words, i: np.ndarray) -> np.ndarray:
    """A Census name before a name, English word or not ("WENZEL BREIT"), in capitals
    or small letters: no other kind of listed word."""
    i = np.clip(i, 0, w.size - 1)
    ok = ((w.flags[i] & _NAMES) != 0) & ((w.flags[i] & _NOT) == 0) & (w.length(i) >= 3)
    return ok & (w.caps[i] | w.lower[i]) & ~w.digits[i]


def _before(
    w: Words,
    g: cw.Cues,
    last: np.ndarray,
    out: Out,
    *,
    listed: bool,
    english: int = 0,
    titled: bool = False,
) -> None:
    last = last[last >= 0]
    last = last[_name(w, g, last, listed, english, titled)]
    if last.size == 0:
        return
    prev = last - 1
    two = _name(w, g, prev, False, titled=titled) | _listed(w, prev)
    two &= (prev >= 0) & w.gap(last).space
    out.append((np.where(two, w.start[np.maximum(prev, 0)], w.start[last]), w.end[last], C_STAFF))


def _after(w: Words, g: cw.Cues, first: np.ndarray, out: Out, phrase: bool = False) -> None:
    """One or two names after "per" or (``phrase``) a two-word cue, where a bracket may
    open before the name ("CONTACT PERSON (TROST)") and a capitalised name is read."""
    first = first[first < w.size]
    gf = w.gap(first)
    # "CONTACT PERSON (TROST)", "Dictated By: NOVAK, ROSALIND"
    near = gf.space | (
        phrase
        & (gf.length == 2)
        & (((gf.first == 32) & (w.raw[w.start[first] - 1] == 40)) | (gf.first == 58))
    )
    first = first[near]
    # "per K pellegrini": an initial, then the name
    initial = (w.length(first) == 1) & ((w.c0[first] & (_UP | _LOW)) != 0) & ~phrase
    initial &= w.gap(np.minimum(first + 1, w.size - 1)).space & (first + 1 < w.size)
    lead = w.start[first]
    first = np.where(initial, first + 1, first)
    keep = _name(w, g, first, True, english_names=_NAMES if phrase else 0, titled=phrase)
    first, lead = first[keep], lead[keep]
    if first.size == 0:
        return
    nx = np.minimum(first + 1, w.size - 1)
    gn = w.gap(nx)
    two = (first + 1 < w.size) & gn.space & _name(w, g, nx, False)
    # "NOVAK, ROSALIND": surname, comma, a given name of the Census list
    two |= phrase & gn.comma & (gn.length <= 2) & _name(w, g, nx, True, titled=True)
    two &= first + 1 < w.size
    out.append((lead, np.where(two, w.end[nx], w.end[first]), C_STAFF))


def _dotted(text: str, w: Words, g: cw.Cues, out: Out) -> None:
    """One or two names before a credential written with full stops ("Norred Caster,
    R.N.", "j smith m.d."): a Census name, English word or not, or a word no list knows.
    Only single letters followed by a full stop and another single letter are read."""
    n = w.size
    one = np.flatnonzero(w.lengths[: n - 1] == 1)
    nx = one + 1
    one = one[(w.lengths[nx] == 1) & (w.gaps.length[nx] == 1) & (w.gaps.first[nx] == 46)]
    s0 = w.start[one]
    pair = (w.raw[s0].astype(np.int64) | 32) * 256 + (w.raw[s0 + 2] | 32)
    one = one[lx.in_set(pair, _PAIRS) & (s0 > 0)]
    at = [
        i
        for i, s in zip(one.tolist(), w.start[one].tolist(), strict=True)
        if text[s - 1] in " ," and _DOTTED.match(text, s)
    ]
    if at:
        last = np.asarray(at, dtype=np.int64) - 1
        _before(w, g, last, out, listed=False, english=_NAMES, titled=True)


def _signature(w: Words, g: cw.Cues, out: Out) -> None:
    """A note's last sentence or line of one or two names no list knows as words, its
    writer's signature ("...NOT 1400U/HR. TROJANOWSKI"): letters, three or more, no
    English, clinical, cue or listed word of another kind, no full stop after."""
    n = w.size
    if n == 0:
        return
    b = w.bounds
    last = b[1:][b[1:] - b[:-1] >= 3] - 1  # each note's last word, two words before it
    # the last sentence or line: "\nTROJANOWSKI", "...1400U/HR. TROJANOWSKI", no full
    # stop after ("Cont PSV.")
    last = last[w.raw[np.minimum(w.end[last], w.raw.size - 1)] != 46]
    last = last[w.length(last) >= 4]
    line = w.gap(last).stop
    one = last[line]
    prev = last - 1
    two = ~line & w.gap(last).space & w.gap(prev).stop
    one = one[_signed(w, g, one)]
    out.append((w.start[one], w.end[one], C_STAFF))
    at = last[two]
    p = at - 1  # two words: one of them a Census name ("brenda kowalczyk")
    ok = _signed(w, g, at) & _signed(w, g, p) & ((w.flags[at] | w.flags[p]) & _NAMES != 0)
    out.append((w.start[p[ok]], w.end[at[ok]], C_STAFF))


def _signed(w: Words, g: cw.Cues, i: np.ndarray) -> np.ndarray:
    ok = _name(w, g, i, False, titled=True) & (w.length(i) >= 3)
    at = np.flatnonzero(ok)
    ok[at] = ~g.wordlike(i[at])
    return ok
