"""Plain, value-free summaries of a verification, a risk report and a scan report.

The same dictionaries feed the export record, the register, the release README and
``deid check --json``, so every front end reports identical figures. They hold names,
counts, rule references and ratios only - never a cell value (the risk report's lone
record combinations and the scan's matched text stay out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from deid_desktop.core.scan.report import DISCLAIMER

#: The scan's own caveat (one wording everywhere: README, record, CLI, GUI).
SCAN_DISCLAIMER = DISCLAIMER


#: What the record and README say when every free-text column was suppressed, so the
#: run did not scan them (the scan would only have informed the review screen).
SCAN_SKIPPED_NOTE = "free text suppressed; not scanned in this run"


def scan_skipped_summary(columns: Sequence[str]) -> dict[str, Any]:
    """The scan entry of a record when the free-text columns were suppressed unscanned."""
    return {"scanned": False, "note": SCAN_SKIPPED_NOTE, "columns_not_scanned": list(columns)}


def check_rows(verification: Any) -> list[dict[str, Any]]:
    """Every check and its outcome, failed blocking checks first, then other failures."""
    rows = []
    for o in verification.outcomes:
        c = o.check
        rows.append(
            {
                "id": str(getattr(c, "id", c.name)),
                "name": str(c.name),
                "rule": str(getattr(c, "rule", "")),
                "severity": str(getattr(c, "severity", "blocking")),
                "passed": bool(o.passed),
                "count": int(o.count or 0),
            }
        )
    order = {False: 0, True: 1}
    rows.sort(key=lambda r: (order[r["passed"]], r["severity"] != "blocking"))
    return rows


def blocking_failures(verification: Any) -> list[Any]:
    return list(verification.blocking_failures)


def risk_summary(report: Any | None) -> dict[str, Any] | None:
    """k, classes, lone, below k, prosecutor risk... from a ``RiskReport`` (or a mapping)."""
    if report is None:
        return None
    if isinstance(report, Mapping):
        return dict(report)
    summary: dict[str, Any] = {
        "quasi_identifiers": list(report.quasi_identifiers),
        "counted_columns": list(report.quasi_identifiers),
        "released_not_counted": list(getattr(report, "released_not_counted", ())),
        "rows": int(report.rows),
        "classes": int(report.classes),
        "k": None if report.k is None else int(report.k),
        "k_target": int(report.k_target),
        "lone": int(report.lone),
        "below_k": int(report.below_k),
        "below_k_classes": int(getattr(report, "below_k_classes", 0)),
        "prosecutor_max": round(float(report.prosecutor_max), 6),
        "prosecutor_mean": round(float(report.prosecutor_mean), 6),
        "missing_is_value": bool(getattr(report, "missing_is_value", True)),
    }
    diversity = getattr(report, "diversity", ())
    if diversity:
        summary["l_diversity"] = {
            str(d.column): (None if d.l is None else int(d.l)) for d in diversity
        }
    formulas = getattr(report, "formulas", None)
    if formulas:
        summary["formulas"] = {
            k: str(v)
            for k, v in formulas.items()
            if k in {"k", "prosecutor_max", "prosecutor_mean"}
        }
    return summary


def scan_summary(
    report: Any | None, *, columns: Collection[str] | None = None
) -> dict[str, Any] | None:
    """Counts by kind, by confidence and by column, notes scanned and with hits; never
    the matched text. ``columns`` ("table.column"): only these columns' counts.

    Read from the per-column counts, so no hit object is ever built.
    """
    if report is None:
        return None
    if isinstance(report, Mapping):
        return dict(report)
    scans = [c for c in report.columns if columns is None or f"{c.table}.{c.column}" in columns]
    by_kind: Counter[str] = Counter()
    by_confidence: Counter[str] = Counter()
    for c in scans:
        by_kind.update({str(k): int(v) for k, v in c.hits_by_kind.items()})
        by_confidence.update({str(k): int(v) for k, v in c.hits_by_confidence.items()})
    levels = ("high", "medium", "low")
    return {
        "columns_scanned": [f"{c.table}.{c.column}" for c in scans],
        "notes": int(sum(c.notes for c in scans)),
        "rows_with_hits": int(sum(c.notes_with_hits for c in scans)),
        "hits": int(sum(by_kind.values())),
        "hits_by_kind": dict(sorted(by_kind.items())),
        "hits_by_confidence": {lv: by_confidence[lv] for lv in levels if by_confidence[lv]},
        "hits_by_column": {
            f"{c.table}.{c.column}": int(sum(c.hits_by_kind.values())) for c in scans
        },
        "dictionary_entries": int(getattr(report, "dictionary_entries", 0)),
        "disclaimer": str(getattr(report, "disclaimer", SCAN_DISCLAIMER)),
    }
