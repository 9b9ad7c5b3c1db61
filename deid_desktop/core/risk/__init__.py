"""Residual risk on the quasi-identifiers of a release, and the tools to raise k.

``risk_report`` measures (k, equivalence classes, lone records, l-diversity,
prosecutor/journalist/marketer risk); ``generalize`` holds the pure functions that
change a frame to raise k (age bands, dropping a column, dates to year, suppression);
``hierarchy`` / ``builtin_hierarchies`` the generalization hierarchies (ARX's CSV
format), ``lattice`` the optimal search over them and ``loss`` its figures.
"""

from __future__ import annotations

from deid_desktop.core.risk.builtin_hierarchies import builtin_hierarchy, guess_kind
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
from deid_desktop.core.risk.hierarchy import (
    Hierarchy,
    apply_levels,
    read_arx_csv,
    read_hierarchy_dir,
    write_arx_csv,
)
from deid_desktop.core.risk.lattice import Prepared, SearchResult, evaluate, search
from deid_desktop.core.risk.local_suppression import LocalSuppression, suppress_cells
from deid_desktop.core.risk.loss import LOSS_EXPLAINED, LOSS_FORMULAS, METRICS, Figures
from deid_desktop.core.risk.persons import PersonPrepared
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
    "LOSS_EXPLAINED",
    "LOSS_FORMULAS",
    "METRICS",
    "ClassSize",
    "Diversity",
    "Figures",
    "GeneralizationStep",
    "Hierarchy",
    "LocalSuppression",
    "PersonPrepared",
    "Prepared",
    "Rescue",
    "RiskReport",
    "SearchResult",
    "SuppressionPreview",
    "age_band_labels",
    "apply_age_bands",
    "apply_levels",
    "band_ages",
    "builtin_hierarchy",
    "drop_column",
    "evaluate",
    "guess_kind",
    "preview_suppression",
    "read_arx_csv",
    "read_hierarchy_dir",
    "risk_report",
    "search",
    "suppress_below_k",
    "suppress_cells",
    "to_year",
    "write_arx_csv",
]
