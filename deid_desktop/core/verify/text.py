"""The gate's text check: every released text cell is read by the free-text scanner,
whatever the column's tag.

A comments column tagged clinical or quasi is released as it is; the other checks read
it only for the extract's own direct values and for a few shapes. Here the free-text
scanner (``core.scan``: patterns, cues, context finders) runs over the
released text of every column that is not tagged free text (those are suppressed or
redacted by the pathway from the same scanner), the release's own ID excepted and the
columns the user accepted after review (``transform.accepted_text_columns``) excepted.

Kept fast: a column is scanned only when some distinct value holds a space or is longer
than a code (``CODE_LENGTH``): numbers, dates and short codes are the other checks'
business. Only the column's distinct values are scanned (once each), then counted over
the rows holding them.

The scanner runs with its patterns, cues and context finders but without the extract's
dictionary: the extract's own names, record numbers, phones and e-mails are searched in
every released cell by ``direct.check_no_direct_values`` (rebuilding them here would
cost about ten seconds at a million persons). A hit fails the release when it is of a
kind the pathway removes and the scanner is sure of it: names (after a cue such as
'Mr.' or 'daughter'), record numbers (a code with letters, or digits after a record word such as
'MRN' or 'chart'), phones, e-mails, SSNs, web and IP addresses, street addresses and
dates, a day and month without a year included (in a limited data set: not dates and
not places, which it may keep). Ten
digits run together are a phone only when they make a plausible North American number
after a cue ('call', 'cell', 'phone' ...) or in a column named for a phone. A cell
that is exactly one name held by ``CATEGORY_ROWS`` rows or more is a category label
(race 'White'), as in the direct-value search. The outcome names the column, the kinds
and the number of cells; never a value. The hits (positions in the released frames)
are kept for the Review page (``Verification.text_scan``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.text import arrow_text
from deid_desktop.core.model import ColumnClass, Extract, Pathway, Project, Release
from deid_desktop.core.pathways.limited import lds_keeps
from deid_desktop.core.scan import rules as scan_rules
from deid_desktop.core.scan.engine import TextHits
from deid_desktop.core.scan.report import ColumnScan, ColumnSpans, ScanReport
from deid_desktop.core.verify.base import (
    BLOCKING,
    LIMITED,
    Check,
    Finding,
    VerifyContext,
)

#: A value without a space and at most this long is a code, a number or a date: a
#: column holding only such values is not scanned.
CODE_LENGTH = 24
#: A cell that is exactly a name and is held by this many rows is a category label.
CATEGORY_ROWS = 20
#: Where the gate keeps the scan of the released text on the context.
MEMO_KEY = "text_scan"

#: What each kind is called in a sentence.
KIND_WORDS: dict[str, str] = {
    "NAME": "person names",
    "MRN": "record numbers",
    "ID": "identifying numbers",
    "PHONE": "phone numbers",
    "EMAIL": "e-mail addresses",
    "SSN": "Social Security numbers",
    "URL": "web addresses",
    "IP": "IP addresses",
    "DATE": "dates (a day and month, with or without the year)",
    "LOCATION": "street addresses or places",
    "AGE": "ages over 89",
    "ZIP": "ZIP codes",
}
#: Kinds a limited data set may keep (164.514(e)(2) lists neither dates nor towns).
LDS_KEEPS_KINDS = frozenset({"DATE", "AGE", "ZIP"})
_LDS_KEEPS_RULES = frozenset({"gazetteer", "facility"})
_PHONE_WORD = re.compile(
    r"(?i)\b(?:phone|phoned|tel|telephone|cell|mobile|call|called|calling|ph|contact|fax|"
    r"pager|text|texted|reach|reached)\b"
)
_PHONE_NAME = re.compile(r"(?i)phone|tel|mobile|cell|fax|contact")
#: A North American number: area code and exchange each start with 2-9.
_NANP = re.compile(r"(?:\+?1[ .-]?)?\(?[2-9]\d\d\)?[ .-]?[2-9]\d\d[ .-]?\d{4}")
_RECORD_WORD = re.compile(
    r"(?i)\b(?:mrn|mr|record|records|chart|acct|account|hospital|medical|patient|pt|case|"
    r"file|reg|registration|id|no|number|#)\W{0,3}$"
)


def _confidence_high() -> np.ndarray:
    """Per scanner rule: is the scanner sure of its hits (``scan.rules.CONFIDENCE``)?"""
    return np.asarray(scan_rules.CONFIDENCE) == scan_rules.HIGH


def _gating(pathway: Pathway) -> np.ndarray:
    """Per scanner rule: does a hit fail a release of ``pathway``? A sure hit of a kind
    the pathway removes does, and so does any date (a day and month without a year,
    ``7/22`` or ``the 3rd``, is an element of a date: the scanner's guards keep doses,
    scores and ratios out). Record-number patterns are judged per hit
    (``_record_numbers``)."""
    kinds = scan_rules.KIND_OF
    rule_names = scan_rules.RULE_OF
    wanted = np.array([k in KIND_WORDS for k in kinds], dtype=bool)
    if pathway is Pathway.LIMITED_DATA_SET:
        wanted &= np.array([k not in LDS_KEEPS_KINDS for k in kinds], dtype=bool)
        wanted &= np.array([r not in _LDS_KEEPS_RULES for r in rule_names], dtype=bool)
    dates = np.array(
        [k == "DATE" and r not in YEAR_ONLY_RULES for k, r in zip(kinds, rule_names, strict=True)],
        dtype=bool,
    )
    return wanted & (_confidence_high() | dates)


#: Date rules whose hits state a year alone or an ordinal without a month ("s/p CABG
#: 2002", "MI '96", "the 20th"): Safe Harbor keeps years, so they never fail a release.
YEAR_ONLY_RULES = frozenset({"date:year", "date:year-apostrophe", "date:ordinal"})


_MRN_PATTERN = np.array([r == "pattern:mrn" for r in scan_rules.RULE_OF], dtype=bool)
_PHONE_PATTERN = np.array([r == "pattern:phone" for r in scan_rules.RULE_OF], dtype=bool)


@dataclass(frozen=True)
class TextColumn:
    """One released column read by the check: its distinct values and the row of each."""

    table: str
    column: str
    values: list[str]  # distinct non-missing cells
    codes: np.ndarray  # per row: index into values, -1 when missing
    persons: pd.Series | None = None  # per row: the release's subject ID (or link key)


def is_free_text(project: Project, table: str, column: str) -> bool:
    try:
        tag = project.table(table).column(column)
    except KeyError:
        return False
    return tag.cls is ColumnClass.FREE_TEXT


def accepted(project: Project, table: str, column: str) -> bool:
    """Whether the user accepted ``table.column`` after reviewing its hits."""
    return f"{table}.{column}" in project.transform.accepted_text_columns


def text_columns(release: Release, project: Project) -> tuple[list[TextColumn], list[str]]:
    """The released columns the check reads (with their distinct values), and those it
    does not read because the user accepted them."""
    out: list[TextColumn] = []
    skipped: list[str] = []
    for table, frame in release.tables.items():
        for column in frame.columns:
            if column == release.id_column or is_free_text(project, table, column):
                continue
            values = frame[column]
            if not (pd.api.types.is_string_dtype(values) or values.dtype == object):
                continue
            if accepted(project, table, column):
                skipped.append(f"{table}.{column}")
                continue
            text = arrow_text(values)
            if _short_and_unspaced(text):  # no value could hold prose: no hash pass
                continue
            encoded = text.dictionary_encode()
            distinct = encoded.dictionary
            if len(distinct) == 0 or not _may_hold_prose(distinct):
                continue
            codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
            persons = frame[release.id_column] if release.id_column in frame.columns else None
            out.append(
                TextColumn(table, column, distinct.to_pylist(), codes.astype(np.int64), persons)
            )
    return out, sorted(skipped)


#: ASCII whitespace (RE2's ``\s``, and the vertical tab)
_SPACE_BYTES = np.array([9, 10, 11, 12, 13, 32], dtype=np.uint8)


def _short_and_unspaced(text: pa.Array) -> bool:
    """Every value at most ``CODE_LENGTH`` bytes and no whitespace byte anywhere: then
    no distinct value can pass ``_may_hold_prose``. Read from the Arrow buffers."""
    if len(text) == 0:
        return True
    _validity, offsets_buf, data_buf = text.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)[text.offset : text.offset + len(text) + 1]
    if int(np.diff(offsets).max()) > CODE_LENGTH:
        return False
    if data_buf is None:
        return True
    used = np.frombuffer(data_buf, dtype=np.uint8)[offsets[0] : offsets[-1]]
    # a comparison per byte value (np.isin would sort the buffer)
    return all(not (used == code).any() for code in _SPACE_BYTES)


def _may_hold_prose(distinct: pa.Array) -> bool:
    """Some distinct value holds a space or is longer than a code."""
    spaced = pc.match_substring_regex(distinct, r"\s")
    long = pc.greater(pc.utf8_length(distinct), CODE_LENGTH)
    return bool(pc.any(pc.or_(spaced, long)).as_py())


def _record_numbers(values: list[str], note: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Which record-number-like hits are record numbers: a code with letters, or digits
    right after a record word ('MRN', 'chart', 'record no.')."""
    out = np.zeros(note.size, dtype=bool)
    for i, (n, s) in enumerate(zip(note.tolist(), start.tolist(), strict=True)):
        text = values[n]
        out[i] = text[s].isalpha() or _RECORD_WORD.search(text, max(0, s - 24), s) is not None
    return out


def _phones(
    values: list[str], column: str, note: np.ndarray, start: np.ndarray, end: np.ndarray
) -> np.ndarray:
    """Which phone-pattern hits are phone numbers: written with separators, or (ten
    digits run together, which lab values and IDs also are) a plausible North American
    number (area code and exchange not starting with 0 or 1) after a cue ('call',
    'phone', 'cell' ...) or in a column named for a phone."""
    named = _PHONE_NAME.search(column) is not None
    out = np.zeros(note.size, dtype=bool)
    rows = zip(note.tolist(), start.tolist(), end.tolist(), strict=True)
    for i, (n, s, e) in enumerate(rows):
        text = values[n][s:e]
        if not text.isdigit():
            out[i] = True
            continue
        plausible = _NANP.fullmatch(text) is not None
        cue = _PHONE_WORD.search(values[n], max(0, s - 32), s) is not None
        out[i] = plausible and (named or cue)
    return out


def _category_names(
    col: TextColumn, counts: np.ndarray, note: np.ndarray, start: np.ndarray, end: np.ndarray,
    kind: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Name hits that are a whole cell held by ``CATEGORY_ROWS`` rows or more."""
    lengths = np.fromiter((len(col.values[n]) for n in note.tolist()), np.int64, note.size)
    whole = (start == 0) & (end == lengths)
    return (kind == "NAME") & whole & (counts[note] >= CATEGORY_ROWS)


def _shared_codes(col: TextColumn, found: TextHits) -> np.ndarray:
    """Record-number and ID hits whose text appears in the rows of two persons or more,
    or in ``CATEGORY_ROWS`` rows or more: a code shared like that (a drug's application
    number in every row naming the drug) is no one person's record number."""
    out = np.zeros(found.note.size, dtype=bool)
    at = np.flatnonzero(np.isin(found.kinds, ("MRN", "ID")))
    if at.size == 0:
        return out
    notes, starts, ends = found.note[at], found.start[at], found.end[at]
    texts = [
        col.values[n][s:e].casefold()
        for n, s, e in zip(notes.tolist(), starts.tolist(), ends.tolist(), strict=True)
    ]
    rows = np.flatnonzero(np.isin(col.codes, notes))
    held = pd.DataFrame(
        {
            "value": col.codes[rows],
            "who": (col.persons.to_numpy()[rows] if col.persons is not None else rows),
        }
    )
    hits = pd.DataFrame({"value": notes, "text": texts}).drop_duplicates()
    both = hits.merge(held, on="value", how="left")
    by_text = both.groupby("text", dropna=False, sort=False)["who"]
    persons, rows_held = by_text.nunique(dropna=False), by_text.size()
    wide = (rows_held >= CATEGORY_ROWS) | ((persons >= 2) & (col.persons is not None))
    shared = set(wide.index[wide.to_numpy()])
    out[at] = [t in shared for t in texts]
    return out


def scan_released_text(
    extract: Extract, release: Release, project: Project
) -> tuple[ScanReport, list[str], int]:
    """Scan the released text of every column the check reads: (report of the hits that
    fail the release, as rows of the released frames; columns accepted by the user;
    columns read)."""
    from deid_desktop.core.scan import build_dictionary_from_values, scan_text_arrays

    columns, skipped = text_columns(release, project)
    if release.pathway is Pathway.LIMITED_DATA_SET:  # the town, city, state and ZIP it keeps
        columns = [c for c in columns if not lds_keeps(project, c.table, c.column)]
    gating = _gating(release.pathway)
    spans: list[ColumnSpans] = []
    scans: list[ColumnScan] = []
    # The extract's own direct values are searched in every released cell by
    # ``no_direct_values``; built again here they would cost ~10 s at a million persons.
    dictionary = build_dictionary_from_values({}) if columns else None
    for col in columns:
        assert dictionary is not None
        found = scan_text_arrays(col.values, dictionary)
        counts = np.bincount(col.codes[col.codes >= 0], minlength=len(col.values))
        keep = gating[found.code]
        mrn = _MRN_PATTERN[found.code]
        if mrn.any():
            keep[mrn] = _record_numbers(col.values, found.note[mrn], found.start[mrn])
        phone = _PHONE_PATTERN[found.code]
        if phone.any():
            keep[phone] &= _phones(
                col.values, col.column, found.note[phone], found.start[phone], found.end[phone]
            )
        keep &= ~_category_names(col, counts, found.note, found.start, found.end, found.kinds)
        keep &= ~_shared_codes(col, found)
        note, start, end, code = (a[keep] for a in found)
        spans.append(_as_rows(col, note, start, end, code))
        scans.append(_column_scan(col, counts, note, code))
    report = ScanReport(
        spans=tuple(spans),
        columns=tuple(scans),
        dictionary_entries=len(dictionary) if dictionary is not None else 0,
    )
    return report, skipped, len(columns)


def _as_rows(
    col: TextColumn, note: np.ndarray, start: np.ndarray, end: np.ndarray, code: np.ndarray
) -> ColumnSpans:
    """Hits on distinct values -> hits on every row holding that value. Only the rows
    holding a value with a hit are sorted (none, in a clean column)."""
    held = np.flatnonzero(np.isin(col.codes, note))
    order = held[np.argsort(col.codes[held], kind="stable")]
    sorted_codes = col.codes[order]
    lo = np.searchsorted(sorted_codes, note, side="left")
    hi = np.searchsorted(sorted_codes, note, side="right")
    n = hi - lo
    which = np.repeat(np.arange(note.size), n)
    offsets = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    rows = order[np.repeat(lo, n) + offsets]
    by_row = np.lexsort((start[which], rows))
    which, rows = which[by_row], rows[by_row]
    return ColumnSpans(
        col.table,
        col.column,
        rows,
        start[which],
        end[which],
        scan_rules.KIND_OF[code[which]],
        scan_rules.RULE_OF[code[which]],
    )


def _column_scan(
    col: TextColumn, counts: np.ndarray, note: np.ndarray, code: np.ndarray
) -> ColumnScan:
    by_kind: dict[str, int] = {}
    kinds = scan_rules.KIND_OF[code]
    for kind in sorted(set(kinds.tolist())):
        holding = np.unique(note[kinds == kind])
        by_kind[str(kind)] = int(counts[holding].sum())  # cells, not hits
    return ColumnScan(
        table=col.table,
        column=col.column,
        notes=int(counts.sum()),
        notes_with_hits=int(counts[np.unique(note)].sum()),
        characters=sum(map(len, col.values)),
        hits_by_kind=by_kind,
    )


def sentence(scan: ColumnScan) -> str:
    """One plain sentence for a column with hits: column, kinds, counts; no value."""
    kinds = ", ".join(
        f"{n:,} cell{'s' if n != 1 else ''} with {KIND_WORDS.get(k, k.lower())}"
        for k, n in sorted(scan.hits_by_kind.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return (
        f"Column '{scan.column}' of table '{scan.table}' holds {kinds} found by the "
        "free-text scanner; tag it free text (suppressed or redacted), or accept it after "
        "reviewing its hits."
    )


def check_no_identifiers_in_text(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    report, skipped, read = scan_released_text(extract, release, project)
    ctx.memo[MEMO_KEY] = report
    failing = [c for c in report.columns if c.notes_with_hits]
    detail: dict[str, object] = {
        "columns": [f"{c.table}.{c.column}" for c in failing],
        "cells_by_column": {f"{c.table}.{c.column}": c.notes_with_hits for c in failing},
        "cells_by_kind": {f"{c.table}.{c.column}": dict(c.hits_by_kind) for c in failing},
        "messages": [sentence(c) for c in failing],
        "columns_read": read,
        "accepted_after_review": skipped,
    }
    count = sum(c.notes_with_hits for c in failing)
    return Finding(count == 0, count, detail)


_EXPLAIN = (
    "The free-text scanner reads every released text cell of every column not tagged free "
    "text (the release's ID and columns accepted after review excepted; columns of only "
    "numbers, dates or short codes are left to the other checks) and finds no "
)

CHECKS: tuple[Check, ...] = (
    Check(
        "no_identifiers_in_text",
        "No identifier in released text",
        "45 CFR 164.514(b)(2)(i)(A)-(R)",
        BLOCKING,
        _EXPLAIN + "name after a cue, record number, phone number, e-mail, SSN, web or IP "
        "address or street address it is sure of, or any date (a full date, or a day and "
        "month such as 7/22; the extract's own values are searched by the direct-value "
        "check).",
        check_no_identifiers_in_text,
        frozenset({Pathway.SAFE_HARBOR, Pathway.LINKABLE}),
    ),
    Check(
        "lds_no_identifiers_in_text",
        "No identifier in released text",
        "45 CFR 164.514(e)(2)",
        BLOCKING,
        _EXPLAIN + "name after a cue, record number, phone number, e-mail, SSN, web or IP "
        "address or street address it is sure of.",
        check_no_identifiers_in_text,
        LIMITED,
    ),
)
