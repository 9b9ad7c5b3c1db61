"""Which re-tag makes a column less protective (the GUI asks before it; one rule).

What each class does to a column, most protective first: a direct identifier is removed;
free text is suppressed (or redacted); a date is cut to its year or shifted; a
quasi-identifier is generalized and counted in k; a clinical value is kept as it is.
"""

from __future__ import annotations

from deid_desktop.core.model import ColumnClass

PROTECTION: dict[ColumnClass, int] = {
    ColumnClass.DIRECT: 4,
    ColumnClass.FREE_TEXT: 3,
    ColumnClass.DATE: 2,
    ColumnClass.QUASI: 2,
    ColumnClass.CLINICAL: 0,
}


def less_protective(old: ColumnClass | None, new: ColumnClass | None) -> bool:
    """True when ``new`` keeps more of the column than ``old`` (direct -> quasi or
    clinical, free text -> clinical, ...); a first tag (``old`` None) never is."""
    if old is None or new is None:
        return False
    return PROTECTION[new] < PROTECTION[old]


__all__ = ["PROTECTION", "less_protective"]
