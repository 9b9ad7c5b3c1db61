"""Export: write a verified release, its held-back crosswalk and its record, atomically.

``export_release`` refuses before writing anything when a blocking check failed or the
crosswalk folder is not apart from the release folder; see ``release.py``.
"""

from __future__ import annotations

from deid_desktop.core.export.cells import neutralise_frame, neutralise_series
from deid_desktop.core.export.record import (
    FULL_RECORD_JSON,
    FULL_RECORD_TXT,
    RECORD_JSON,
    RECORD_TXT,
)
from deid_desktop.core.export.release import (
    CROSSWALK_FILE,
    CROSSWALK_README,
    DICTIONARY,
    README,
    ExportRecord,
    check_placement,
    export_release,
    sha256_of,
)
from deid_desktop.core.export.summaries import (
    SCAN_DISCLAIMER,
    SCAN_SKIPPED_NOTE,
    check_rows,
    risk_summary,
    scan_skipped_summary,
    scan_summary,
)

__all__ = [
    "CROSSWALK_FILE",
    "CROSSWALK_README",
    "DICTIONARY",
    "FULL_RECORD_JSON",
    "FULL_RECORD_TXT",
    "README",
    "RECORD_JSON",
    "RECORD_TXT",
    "SCAN_DISCLAIMER",
    "SCAN_SKIPPED_NOTE",
    "ExportRecord",
    "check_placement",
    "check_rows",
    "export_release",
    "neutralise_frame",
    "neutralise_series",
    "risk_summary",
    "scan_skipped_summary",
    "scan_summary",
    "sha256_of",
]
