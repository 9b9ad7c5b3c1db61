"""scan_frames: run every finder over the text columns, in batches of joined notes.

Notes are grouped as ASCII or not (each group keeps its note order) and joined by
NOTE_SEP into batches of about BATCH_CHARS characters, cut with numpy. Candidate hits
travel as int arrays (start, end, rule code) from the finders to the report; a hit that
would run across two notes is dropped; Python objects are made once per final hit, and
only when asked for (``ScanReport.hits``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from deid_desktop.core.errors import UsageError
from deid_desktop.core.heap import keep_freed_pages
from deid_desktop.core.progress import CancelToken, ProgressFn, Reporter
from deid_desktop.core.scan import context, context_notes, shapes_more, wordcheck
from deid_desktop.core.scan.dictionary import ScanDictionary
from deid_desktop.core.scan.fold import NOTE_SEP, fold, fold_batch, forget
from deid_desktop.core.scan.glued import glued_names
from deid_desktop.core.scan.patterns import find_digits, find_emails_urls, find_words
from deid_desktop.core.scan.report import ColumnScan, ColumnSpans, ScanReport
from deid_desktop.core.scan.rules import (
    CODE,
    CONFIDENCE,
    CONFIDENCE_OF,
    CUE_WORDS,
    KIND_OF,
    LEVELS,
    PRIORITY,
    RULE_OF,
    dict_code,
)

#: Characters of note text joined into one batch. Each batch costs some milliseconds of
#: fixed Python work (over a thousand numpy calls): at 150k characters a dense scan ran
#: a third slower than at 450k. Larger batches page-faulted (at 4M characters ~0.3 s of
#: system time per 32 MB) until the heap kept its freed pages (``keep_freed_pages``);
#: with it, 900k ran ~5-10 % faster than 450k (the per-word arrays outgrow the cache,
#: but half the batches) for ~15 MB more at the peak.
BATCH_CHARS = 900_000
#: Notes turned into Python strings per pass before the scan.
ROWS_PER_PASS = 100_000
_NAME_CODE = dict_code("NAME")
_OTHER_CODE = CODE[("NAME", "dictionary:name-other")]
_WORD_CODE = CODE[("NAME", "word:own-name")]
_ENGLISH_CODE = CODE[("NAME", "word:english-name")]
#: Redaction-level names accepted as scan levels.
_LEVEL_ALIASES = {"high_medium": "medium", "all": "low"}
#: Bits of a rule's priority in the packed sort key of ``_span_order``.
_PRIO_BITS = max(1, int(PRIORITY.max()).bit_length())
_TIE_BITS = max(1, (int(PRIORITY.max()) * len(LEVELS) + len(LEVELS) - 1).bit_length())
_IS_OLD_CUE = np.zeros(len(KIND_OF), dtype=bool)  # by rule code
_IS_OLD_CUE[[CODE[("NAME", f"cue:{w}")] for w in CUE_WORDS]] = True


@dataclass(frozen=True)
class ScanOptions:
    """``high_recall``: also flag every capitalised word found in no bundled word list and
    not starting a sentence (noisy: expect many false hits; off by default)."""

    high_recall: bool = False


class TextHits(NamedTuple):
    """Hits in a list of notes, as parallel arrays sorted by note then start."""

    note: np.ndarray
    start: np.ndarray
    end: np.ndarray
    code: np.ndarray  # index into rules.RULES

    @property
    def kinds(self) -> np.ndarray:
        return KIND_OF[self.code]

    @property
    def rules(self) -> np.ndarray:
        return RULE_OF[self.code]

    @property
    def confidence(self) -> np.ndarray:
        return CONFIDENCE_OF[self.code]


def _empty() -> TextHits:
    e = np.empty(0, dtype=np.int64)
    return TextHits(e, e, e, e)


def scan_text_arrays(
    texts: Sequence[str],
    dictionary: ScanDictionary,
    rep: Reporter | None = None,
    *,
    persons: Sequence[object] | None = None,
    options: ScanOptions | None = None,
    lengths: np.ndarray | None = None,
    repeats: tuple[np.ndarray, list[str]] | None = None,
) -> TextHits:
    """Hits in a list of notes (note index, start, end, rule code). ``persons``: each
    note's person key, so that a dictionary name in a note of another person than its
    own is of medium confidence (without it every dictionary name is high);
    ``lengths``: the notes' lengths, when the caller has them; ``repeats``: (codes,
    distinct) with ``texts[i] == distinct[codes[i]]`` (``repeated_texts``): each
    distinct text is scanned once and its hits copied to every note that holds it,
    before the person-aware step (which reads each note's own person)."""
    if repeats is not None:
        codes, distinct = repeats
        found = _copied(_raw_hits(distinct, dictionary, rep, options, None), codes, len(distinct))
    else:
        found = _raw_hits(texts, dictionary, rep, options, lengths)
    return _personal(texts, found, persons, dictionary)


def _raw_hits(
    texts: Sequence[str],
    dictionary: ScanDictionary,
    rep: Reporter | None,
    options: ScanOptions | None,
    lengths: np.ndarray | None,
) -> TextHits:
    """The finders' hits in ``texts``, before the person-aware step."""
    options = options or ScanOptions()
    keep_freed_pages()  # each batch reuses the pages the one before freed
    n = len(texts)
    if lengths is None:
        lengths = note_lengths(texts)
    is_ascii = np.fromiter(map(str.isascii, texts), dtype=bool, count=n)
    total = int(lengths.sum()) or 1
    done = 0
    parts: list[TextHits] = []
    groups = [g for g in (np.flatnonzero(is_ascii), np.flatnonzero(~is_ascii)) if g.size]
    for group in groups:
        # batches of about BATCH_CHARS characters (each note plus its separator)
        ends = np.cumsum(lengths[group] + 1)
        cuts = np.searchsorted(ends, np.arange(BATCH_CHARS, int(ends[-1]), BATCH_CHARS))
        bounds = np.unique(np.concatenate(([0], cuts + 1, [group.size])))
        contiguous = int(group[-1]) - int(group[0]) + 1 == group.size
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            ids = group[lo:hi]
            if contiguous:
                notes = list(texts[int(ids[0]) : int(ids[-1]) + 1])
            else:
                notes = [texts[i] for i in ids.tolist()]
            parts.append(_scan_batch(notes, ids, lengths[ids], dictionary, options))
            done += int(lengths[ids].sum()) + ids.size
            if rep is not None:
                rep.step(min(done / total, 1.0), "Scanning free text")
    forget()  # the batches' cached code points
    if not parts:
        return _empty()
    out = TextHits(*(np.concatenate(arrays) for arrays in zip(*parts, strict=True)))
    if len(groups) == 2:  # each group is in note order; merge the two
        order = _note_order(out.note, out.start, out.end)
        out = TextHits(*(a[order] for a in out))
    return out


def _personal(
    texts: Sequence[str],
    out: TextHits,
    persons: Sequence[object] | None,
    dictionary: ScanDictionary,
) -> TextHits:
    """The person-aware step (``_person_aware``), or every name a name when whose it is
    is unknown; the everyday words that are no one's name dropped."""
    if persons is not None and dictionary.owners.size:
        out = _person_aware(texts, out, persons, dictionary)
    elif (out.code == _ENGLISH_CODE).any():  # whose name it is, unknown: a name
        out = TextHits(
            out.note, out.start, out.end, np.where(out.code == _ENGLISH_CODE, _NAME_CODE, out.code)
        )
    return _without(out, out.code == _WORD_CODE)


#: A column's first notes read to tell whether its notes repeat (``repeated_texts``).
_SAMPLE = 4096
#: Notes repeat when their distinct texts are at most this share of them.
_REPEATED = 0.5


def repeated_texts(texts: Sequence[str]) -> tuple[np.ndarray, list[str]] | None:
    """(codes, distinct texts) of notes that repeat (``texts[i] == distinct[codes[i]]``,
    in order of first place): a templated column (a demo's, or "Daily weights reviewed,
    no new edema." written for thousands) is scanned once per distinct text. None when
    its first ``_SAMPLE`` notes, or all of them, are mostly distinct."""
    sample = texts[:_SAMPLE]
    if len(sample) < 2 or len(set(sample)) > _REPEATED * len(sample):
        return None
    codes, distinct = pd.factorize(np.asarray(texts, dtype=object))
    if len(distinct) > _REPEATED * len(texts):
        return None
    return np.asarray(codes, dtype=np.int64), distinct.tolist()


def _copied(hits: TextHits, codes: np.ndarray, n_distinct: int) -> TextHits:
    """The hits of distinct texts (``hits.note``: a distinct text) copied to each note
    ``i`` holding it (``codes[i]``), in note order, each note's hits in the order found."""
    count = np.bincount(codes, minlength=n_distinct)
    holders = np.argsort(codes, kind="stable")  # the notes of each text, in order
    first = np.cumsum(count) - count
    per_hit = count[hits.note]
    hit = np.repeat(np.arange(hits.note.size), per_hit)
    within = np.arange(hit.size) - np.repeat(np.cumsum(per_hit) - per_hit, per_hit)
    note = holders[first[hits.note[hit]] + within]
    order = np.lexsort((hit, note))
    hit = hit[order]
    return TextHits(note[order], hits.start[hit], hits.end[hit], hits.code[hit])


def note_lengths(texts: Sequence[str]) -> np.ndarray:
    """The length of each note."""
    return np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))


def _without(hits: TextHits, drop: np.ndarray) -> TextHits:
    return TextHits(*(a[~drop] for a in hits)) if drop.any() else hits


def _person_aware(
    texts: Sequence[str], hits: TextHits, persons: Sequence[object], dictionary: ScanDictionary
) -> TextHits:
    """Dictionary names found in a note of another person than their own: medium. A
    name that is also an everyday word, uncapitalised and uncued (``word:own-name``),
    in its own person's note beside another word of their name: high
    (``dictionary:name``); elsewhere it is dropped. A name that is a rarer English word,
    uncapitalised and uncued (``word:english-name``): high in its own person's notes,
    dropped in another's."""
    at = np.flatnonzero(
        (hits.code == _NAME_CODE) | (hits.code == _WORD_CODE) | (hits.code == _ENGLISH_CODE)
    )
    if at.size == 0:
        return hits
    notes = hits.note[at].tolist()
    spans = [
        texts[n][s:e]
        for n, s, e in zip(notes, hits.start[at].tolist(), hits.end[at].tolist(), strict=True)
    ]
    # folded in one pass (fold keeps lengths), then cut back into the hits' words
    folded = fold("\n".join(spans))
    size = np.fromiter(map(len, spans), dtype=np.int64, count=len(spans))
    lo = (np.cumsum(size + 1) - (size + 1)).tolist()
    words = [" ".join(folded[a : a + n].split()) for a, n in zip(lo, size.tolist(), strict=True)]
    own = dictionary.owns([str(persons[n]) for n in notes], words)
    if dictionary.pinned:
        own |= np.isin(np.asarray(words, dtype=object), list(dictionary.pinned))
    code = hits.code.copy()
    code[at[~own & (code[at] == _NAME_CODE)]] = _OTHER_CODE
    english = code[at] == _ENGLISH_CODE  # a word in another's note, their name in theirs
    code[at[english]] = np.where(own[english], _NAME_CODE, _WORD_CODE)
    word = code[at] == _WORD_CODE
    code[at[own & word & _beside_own_name(texts, hits, at, own)]] = _NAME_CODE
    return TextHits(hits.note, hits.start, hits.end, code)


#: At most this many characters, none a letter or digit, between two words of one name.
_NAME_GAP = 3


def _beside_own_name(
    texts: Sequence[str], hits: TextHits, at: np.ndarray, own: np.ndarray
) -> np.ndarray:
    """Per name hit ``at`` (sorted by note, then start): does another word of its
    person's own name stand right before or after it ("mark miller", "MILLER, MARK")?
    An everyday word alone ("may shower" in May's note) is not taken for her name."""
    mine = at[own]
    beside = np.zeros(at.size, dtype=bool)
    if mine.size < 2:
        return beside
    note, start, end = hits.note[mine], hits.start[mine], hits.end[mine]
    word = hits.code[mine] == _WORD_CODE
    gap = start[1:] - end[:-1]
    close = (note[1:] == note[:-1]) & (gap >= 0) & (gap <= _NAME_GAP)
    close &= word[1:] | word[:-1]  # only a pair with an everyday word in it is read
    for i in np.flatnonzero(close).tolist():  # few: pairs with an everyday-word name
        between = texts[int(note[i])][int(end[i]) : int(start[i + 1])]
        close[i] = not any(ch.isalnum() for ch in between)
    pair = np.zeros(mine.size, dtype=bool)
    pair[:-1] |= close
    pair[1:] |= close
    beside[np.flatnonzero(own)] = pair
    return beside


def at_level(hits: TextHits, level: str) -> TextHits:
    """The hits of confidence ``level`` or above ("high", "medium" or "low" = all)."""
    keep = CONFIDENCE[hits.code] <= LEVELS.index(level)
    return TextHits(*(a[keep] for a in hits))


def scan_texts(
    texts: Sequence[str],
    dictionary: ScanDictionary,
    *,
    persons: Sequence[object] | None = None,
    options: ScanOptions | None = None,
    level: str = "low",
) -> list[tuple[int, int, int, str, str]]:
    """Hits in a list of notes: (note index, start, end, kind, rule), sorted; only those
    of confidence ``level`` or above (default: all)."""
    h = at_level(scan_text_arrays(texts, dictionary, persons=persons, options=options), level)
    return list(
        zip(
            h.note.tolist(),
            h.start.tolist(),
            h.end.tolist(),
            h.kinds.tolist(),
            h.rules.tolist(),
            strict=True,
        )
    )


def _scan_batch(
    notes: list[str],
    note_ids: np.ndarray,
    lengths: np.ndarray,
    dictionary: ScanDictionary,
    options: ScanOptions,
) -> TextHits:
    text = NOTE_SEP.join(notes)
    folded = fold_batch(text)
    tokens: list[tuple[np.ndarray, ...]] = []
    words, url_starts = find_words(text, folded, dictionary, tokens)
    extra, w = context.find_context(
        text, folded, high_recall=options.high_recall, tokens=tokens[0] if tokens else None
    )
    words = _checked_words(words, w)
    found = [
        words,
        glued_names(dictionary.matcher, w),
        find_digits(text, dictionary, w.digit_runs),
        find_emails_urls(text, folded, url_starts),
        extra,
        shapes_more.find_more(text, folded, w),
        context_notes.find_notes(text, folded, w, tokens[0][4] if tokens else None),
    ]
    start, end, code = (np.concatenate(a) for a in zip(*found, strict=True))
    if start.size == 0:
        return _empty()
    start, end, code = _dedupe(start, end, code)
    offsets = np.cumsum(lengths + 1) - (lengths + 1)
    note = np.searchsorted(offsets, start, side="right") - 1
    local_start = start - offsets[note]
    local_end = end - offsets[note]
    inside = local_end <= lengths[note]  # nothing may run across two notes
    return TextHits(note_ids[note[inside]], local_start[inside], local_end[inside], code[inside])


def _checked_words(
    found: tuple[np.ndarray, np.ndarray, np.ndarray], w: context.Words
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mark a dictionary name that is also an English word where it is neither
    capitalised nor cued ("will" for a patient called Will) as ``word:own-name`` (kept
    only in its own person's notes), and drop a cue's capture that is a common word
    ("WIFE IN TO VISIT")."""
    start, end, code = found
    keep = np.ones(start.size, dtype=bool)
    names = np.flatnonzero(code == _NAME_CODE)
    if names.size:
        at = wordcheck.word_at(w, start[names])
        cued = wordcheck.cue_before(w, at)
        shows = wordcheck.keep_dictionary_hits(w, at, cued)
        english = shows & wordcheck.english_uncued(w, at, cued)
        if not shows.all() or english.any():
            code = code.copy()
            code[names[~shows]] = _WORD_CODE
            code[names[english]] = _ENGLISH_CODE
    cues = np.flatnonzero(_IS_OLD_CUE[code])
    if cues.size:
        at = wordcheck.word_at(w, start[cues])
        keep[cues] = ~wordcheck.common_capture(w, at)
        end = end.copy()
        end[cues] = wordcheck.trim_cue_names(w, at, end[cues])
    if keep.all():
        return start, end, code
    return start[keep], end[keep], code[keep]


def _dedupe(
    start: np.ndarray, end: np.ndarray, code: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One hit per span (dictionary beats cue beats pattern), and no hit inside a longer
    one of the same or a higher confidence: the digits of an MRN are not also a ZIP, a
    4-digit ID inside a date or a phone is not counted again; a high-confidence name
    inside a medium one ("Peña" in "Maria Peña") is kept, so that redacting the high
    hits only still covers it. Sorted by start."""
    conf = CONFIDENCE[code]
    if conf.min(initial=0) == conf.max(initial=0):
        return _dedupe_tier(start, end, code)
    # each tier (the hits of a confidence or above) read in one order: a hit of the
    # tier's own confidence is kept when it ends past every earlier hit of the tier
    order = _span_order(start, end, PRIORITY[code])
    s, e, c, cf = start[order], end[order], code[order], conf[order]
    keep = np.zeros(s.size, dtype=bool)
    before = np.empty_like(e)
    before[0] = -1
    for level in range(len(LEVELS)):
        member = cf <= level
        reach = np.maximum.accumulate(e * member - ~member)  # the others read as -1
        before[1:] = reach[:-1]
        keep |= (cf == level) & (e > before)
    s, e, c = s[keep], e[keep], c[keep]
    # as the tiers' hits joined level by level, then sorted: ties in level order
    order = _span_order(s, e, PRIORITY[c] * len(LEVELS) + CONFIDENCE[c], _TIE_BITS)
    return s[order], e[order], c[order]


def _span_order(
    start: np.ndarray, end: np.ndarray, tie: np.ndarray, tie_bits: int | None = None
) -> np.ndarray:
    """The stable order by start, then longest first (end descending), then ``tie`` (the
    priority): ``np.lexsort((tie, -end, start))``, as one sort of a packed key when it
    fits."""
    tie_bits = _PRIO_BITS if tie_bits is None else tie_bits
    top = int(end.max(initial=0)) + 1
    bits = top.bit_length()
    if 2 * bits + tie_bits > 62:
        return np.lexsort((tie, -end, start))
    key = (start << (bits + tie_bits)) | ((top - end) << tie_bits) | tie
    return np.argsort(key, kind="stable")


def _note_order(note: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The stable order by note, then start, then end: ``np.lexsort((end, start,
    note))``, as one sort of a packed key when it fits (the two groups' hits, each in
    note order, are merged rather than sorted three times over)."""
    end_bits = int(end.max(initial=0)).bit_length()
    start_bits = int(start.max(initial=0)).bit_length()
    if int(note.max(initial=0)).bit_length() + start_bits + end_bits > 62:
        return np.lexsort((end, start, note))
    key = (note << (start_bits + end_bits)) | (start << end_bits) | end
    return np.argsort(key, kind="stable")


def _dedupe_tier(
    start: np.ndarray, end: np.ndarray, code: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    prio = PRIORITY[code]
    order = _span_order(start, end, prio)  # by start, longest first, then priority
    start, end, code = start[order], end[order], code[order]
    keep = np.ones(start.size, dtype=bool)
    keep[1:] = end[1:] > np.maximum.accumulate(end)[:-1]
    return start[keep], end[keep], code[keep]


def _texts(series: pd.Series, positions: np.ndarray) -> list[str]:
    """The notes at ``positions`` as Python strings, ``ROWS_PER_PASS`` at a time (one
    conversion of a million-row column holds the GIL for ~0.1 s)."""
    texts: list[str] = []
    strings = isinstance(series.dtype, pd.StringDtype)
    for at in range(0, positions.size, ROWS_PER_PASS):
        part = series.iloc[positions[at : at + ROWS_PER_PASS]]
        if strings:  # already strings: read as objects at once, no str() per note
            texts.extend(part.to_numpy(dtype=object).tolist())
        else:
            texts.extend(map(str, part.tolist()))
    return texts


def _distinct_sorted(values: np.ndarray) -> int:
    """Number of distinct values of a sorted array."""
    return int(values.size and 1 + np.count_nonzero(values[1:] != values[:-1]))


def scan_frames(
    frames: Mapping[str, pd.DataFrame],
    text_columns: Mapping[str, Sequence[str]],
    dictionary: ScanDictionary | Callable[[list[list[str]]], ScanDictionary],
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
    person_keys: Mapping[str, str] | None = None,
    options: ScanOptions | None = None,
    level: str = "low",
) -> ScanReport:
    """Scan the given text columns of the given tables. Rows are 0-based positions.
    ``person_keys``: table -> its person-key column, for person-aware confidence;
    ``level``: keep hits of this confidence or above ("high", "medium"/"high_medium",
    "low"/"all"). ``dictionary``: a dictionary, or what makes one from the texts of each
    column (``notes_dictionary``), called once they are read."""
    level = _LEVEL_ALIASES.get(level, level)
    if level not in LEVELS:
        raise UsageError(f"Unknown confidence level: {level}.", hint="Use high, medium or low.")
    jobs = [(t, c) for t, cols in text_columns.items() for c in cols]
    for table, column in jobs:
        if table not in frames:
            raise UsageError(f"There is no table '{table}' to scan.", hint="Check the table name.")
        if column not in frames[table].columns:
            raise UsageError(
                f"The table '{table}' has no column '{column}' to scan.",
                hint="Choose among: " + ", ".join(str(c) for c in frames[table].columns),
            )
    rep = Reporter(progress, cancel)
    spans: list[ColumnSpans] = []
    columns: list[ColumnScan] = []
    read: list[tuple[np.ndarray, list[str], tuple[np.ndarray, list[str]] | None] | None] = []
    for table, column in jobs:
        series = frames[table][column]
        positions = np.flatnonzero(series.notna().to_numpy(dtype=bool))
        texts = _texts(series, positions)
        read.append((positions, texts, repeated_texts(texts)))
    if callable(dictionary):  # made for the texts scanned (each distinct text once)
        dictionary = dictionary([r[1] if r[2] is None else r[2][1] for r in read if r])
    for j, (table, column) in enumerate(jobs):
        positions, texts, repeats = read[j] or (np.empty(0, dtype=np.int64), [], None)
        read[j] = None  # each column's texts are let go once it is scanned
        sub = rep.sub(j / len(jobs), (j + 1) / len(jobs))
        sub.step(0.0, "Scanning free text")
        key = (person_keys or {}).get(table)
        persons = None
        if key is not None and key in frames[table].columns and dictionary.owners.size:
            persons = frames[table][key].iloc[positions].astype(str).tolist()
        lengths = note_lengths(texts)
        found = scan_text_arrays(
            texts,
            dictionary,
            sub,
            persons=persons,
            options=options,
            lengths=lengths,
            repeats=repeats,
        )
        if level != "low":
            found = at_level(found, level)
        spans.append(
            ColumnSpans(
                table,
                column,
                positions[found.note],
                found.start,
                found.end,
                found.kinds,
                found.rules,
                found.confidence,
            )
        )
        by_code = np.bincount(found.code, minlength=len(KIND_OF))
        by_kind: dict[str, int] = {}
        for code in np.flatnonzero(by_code).tolist():
            kind = str(KIND_OF[code])
            by_kind[kind] = by_kind.get(kind, 0) + int(by_code[code])
        by_conf = np.bincount(CONFIDENCE[found.code], minlength=len(LEVELS))
        columns.append(
            ColumnScan(
                table=table,
                column=column,
                notes=len(texts),
                notes_with_hits=_distinct_sorted(found.note),
                characters=int(lengths.sum()),
                hits_by_kind=by_kind,
                hits_by_confidence={
                    lv: int(c) for lv, c in zip(LEVELS, by_conf.tolist(), strict=True) if c
                },
            )
        )
    rep.step(1.0, "Scan finished")
    return ScanReport(
        spans=tuple(spans), columns=tuple(columns), dictionary_entries=len(dictionary)
    )
