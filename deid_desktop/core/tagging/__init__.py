"""Column tagging: suggest each column's class, role and Safe Harbor category, with reasons.

``suggest_tags(frame, table=..., is_person=...)`` is the entry point. The evidence of
each suggestion is a tuple of plain sentences built from the column name, shares of
sampled values matching patterns, and counts; never a value from the data.

Labels and explanations of classes and categories live in ``core.model``
(``CLASS_LABELS``, ``CATEGORY_TITLES``); :func:`explain_class` and :func:`describe_tag`
only put them into sentences.
"""

from __future__ import annotations

from deid_desktop.core.model import ColumnClass, ColumnTag
from deid_desktop.core.tagging.namelists import given_names, surnames
from deid_desktop.core.tagging.suggest import suggest_tags

__all__ = ["describe_tag", "explain_class", "given_names", "suggest_tags", "surnames"]


def explain_class(cls: ColumnClass) -> str:
    """ "Direct identifier: Identifies a person on its own ..." """
    return f"{cls.label}: {cls.explanation}"


def describe_tag(tag: ColumnTag) -> str:
    """One line for a tag: class, category, role, and whether the suggestion is unsure."""
    text = tag.cls.label
    if tag.category is not None:
        text += f" ({tag.category.value}: {tag.category.title})"
    if tag.role is not None:
        text += f", role {tag.role.value}"
    if tag.unsure:
        text += " - unsure, please check"
    return text
