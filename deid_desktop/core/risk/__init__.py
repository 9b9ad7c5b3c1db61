"""Residual risk on the quasi-identifiers of a release, and the tools to raise k.

``risk_report`` measures (k, equivalence classes, lone records, l-diversity,
prosecutor/journalist/marketer risk); ``generalize`` holds the pure functions that
change a frame to raise k (age bands, dropping a column, dates to year, suppression).
"""

from __future__ import annotations

from deid_desktop.core.risk.generalize import (
    GeneralizationStep,
    SuppressionPreview,
    age_band_labels,
    apply_age_bands,
    band_ages,
    drop_column,
    preview_suppression,
    suppress_below_k,
    to_year,
)
from deid_desktop.core.risk.report import (
    FORMULAS,
    ClassSize,
    Diversity,
    Rescue,
    RiskReport,
    risk_report,
)

__all__ = [
    "FORMULAS",
    "ClassSize",
    "Diversity",
    "GeneralizationStep",
    "Rescue",
    "RiskReport",
    "SuppressionPreview",
    "age_band_labels",
    "apply_age_bands",
    "band_ages",
    "drop_column",
    "preview_suppression",
    "risk_report",
    "suppress_below_k",
    "to_year",
]
