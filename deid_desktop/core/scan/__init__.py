"""Free-text scan: a dictionary from the extract's own identifier columns, patterns and
cues, matched whole-word and case/accent-insensitively; hits as spans, never text.

A scan can never prove a note clean (see ``DISCLAIMER``).
"""

from __future__ import annotations

from deid_desktop.core.scan.dictionary import (
    ScanDictionary,
    build_dictionary,
    build_dictionary_from_values,
    dictionary_kind,
)
from deid_desktop.core.scan.engine import (
    ScanOptions,
    TextHits,
    at_level,
    scan_frames,
    scan_text_arrays,
    scan_texts,
)
from deid_desktop.core.scan.gazetteer import Gazetteer, load_gazetteer
from deid_desktop.core.scan.redact import (
    REDACT_LEVELS,
    Redacted,
    merge_spans,
    redact_column,
    redact_spans,
    redact_text,
)
from deid_desktop.core.scan.report import (
    DISCLAIMER,
    KINDS,
    ColumnScan,
    ColumnSpans,
    Hit,
    ScanReport,
)
from deid_desktop.core.scan.rules import LEVELS
from deid_desktop.core.scan.wordlist import (
    WORD_KINDS,
    WordList,
    add_word,
    load_site_list,
    load_word_list,
    site_list_path,
    word_list_path,
)
from deid_desktop.core.scan.written import (
    WrittenHit,
    WrittenScan,
    scan_written,
    xlsx_properties,
)

__all__ = [
    "DISCLAIMER",
    "KINDS",
    "LEVELS",
    "REDACT_LEVELS",
    "WORD_KINDS",
    "ColumnScan",
    "ColumnSpans",
    "Gazetteer",
    "Hit",
    "Redacted",
    "ScanDictionary",
    "ScanOptions",
    "ScanReport",
    "TextHits",
    "WordList",
    "WrittenHit",
    "WrittenScan",
    "add_word",
    "at_level",
    "build_dictionary",
    "build_dictionary_from_values",
    "dictionary_kind",
    "load_gazetteer",
    "load_site_list",
    "load_word_list",
    "merge_spans",
    "redact_column",
    "redact_spans",
    "redact_text",
    "scan_frames",
    "scan_text_arrays",
    "scan_texts",
    "scan_written",
    "site_list_path",
    "word_list_path",
    "xlsx_properties",
]
