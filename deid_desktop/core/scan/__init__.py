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
from deid_desktop.core.scan.engine import TextHits, scan_frames, scan_text_arrays, scan_texts
from deid_desktop.core.scan.redact import merge_spans, redact_column, redact_text
from deid_desktop.core.scan.report import (
    DISCLAIMER,
    KINDS,
    ColumnScan,
    ColumnSpans,
    Hit,
    ScanReport,
)

__all__ = [
    "DISCLAIMER",
    "KINDS",
    "ColumnScan",
    "ColumnSpans",
    "Hit",
    "ScanDictionary",
    "ScanReport",
    "TextHits",
    "build_dictionary",
    "build_dictionary_from_values",
    "dictionary_kind",
    "merge_spans",
    "redact_column",
    "redact_text",
    "scan_frames",
    "scan_text_arrays",
    "scan_texts",
]
