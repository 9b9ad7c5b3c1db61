"""The generalization chosen by ``deid generalize --apply``, released.

``project.generalization`` names, per released person-table column, a hierarchy (a
built-in kind, or an ARX CSV file stored relative to the project with its SHA-256) and
a level. At release time the columns are replaced by their labels at those levels and
the records still in classes smaller than k are suppressed: exactly what the search
measured, since the search ran on the same released table (before this step) and the
figures are counted again here by the same code (``lattice.evaluate``).

Messages name files, columns and counts, never a value.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from deid_desktop.core.errors import InputError
from deid_desktop.core.model import Generalization, Project
from deid_desktop.core.risk.hierarchy import Hierarchy, apply_levels, parse_arx_csv
from deid_desktop.core.risk.loss import LOSS_EXPLAINED, Figures

_RERUN = "Run deid generalize PROJECT --apply again to choose with the hierarchy as it is now."


def read_hierarchy_files(project: Project, resolve: Callable[[str], Path]) -> dict[str, Hierarchy]:
    """Column -> hierarchy for each file of ``project.generalization`` (``resolve`` turns
    a stored path into a file: ``core.project.resolve_path`` against the project file); a
    missing file or one whose SHA-256 changed is an ``InputError`` (exit 4) naming it."""
    chosen = project.generalization
    out: dict[str, Hierarchy] = {}
    if chosen is None:
        return out
    for col in chosen.columns:
        if col.path is None:
            continue
        path = resolve(col.path)
        try:
            data = path.read_bytes()
        except OSError:
            raise InputError(
                f"The hierarchy file of column '{col.name}' is missing or cannot be read.",
                file=path.name,
                hint="Put the file back where the project expects it. " + _RERUN,
            ) from None
        if hashlib.sha256(data).hexdigest() != col.sha256:
            raise InputError(
                f"The hierarchy file of column '{col.name}' changed since the "
                "generalization was chosen (its SHA-256 differs).",
                file=path.name,
                hint=_RERUN,
            )
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("The hierarchy file is not UTF-8 text.", file=path.name) from None
        out[col.name] = parse_arx_csv(text, column=col.name, name=path.name, sep=col.sep)
    return out


def hierarchies_for(
    chosen: Generalization, frame: pd.DataFrame, files: Mapping[str, Hierarchy]
) -> dict[str, Hierarchy]:
    """The hierarchy of each column: the file read at load, or the built-in built for
    the column's released values (as the search built it)."""
    from deid_desktop.core.risk.builtin_hierarchies import builtin_hierarchy, builtin_kinds

    out: dict[str, Hierarchy] = {}
    for col in chosen.columns:
        if col.builtin is not None and col.builtin not in builtin_kinds():
            raise InputError(
                f"The project names an unknown built-in hierarchy for column '{col.name}'.",
                hint="Choose " + ", ".join(builtin_kinds()) + ". " + _RERUN,
            )
        if col.name not in frame.columns:
            raise InputError(
                f"Column '{col.name}' of the chosen generalization is not in the released "
                "person table.",
                hint=_RERUN,
            )
        if col.builtin is not None:
            out[col.name] = builtin_hierarchy(col.builtin, frame[col.name], col.name)
        elif col.name in files:
            out[col.name] = files[col.name]
        else:
            raise InputError(
                f"The hierarchy file of column '{col.name}' was not read with the project.",
                file=Path(col.path or "").name or None,
                hint="Open the project again (deid run PROJECT reads it).",
            )
    return out


@dataclass(frozen=True)
class Generalized:
    """The person table at the chosen levels (before suppression) and its figures."""

    frame: pd.DataFrame
    figures: Figures
    columns: tuple[str, ...]
    hierarchies: dict[str, Hierarchy]


def generalize_person(
    frame: pd.DataFrame, chosen: Generalization, files: Mapping[str, Hierarchy]
) -> Generalized:
    """``frame`` with each chosen column at its level, and the search's figures for it."""
    from deid_desktop.core.facts.text import STRING
    from deid_desktop.core.risk.lattice import evaluate
    from deid_desktop.core.risk.prepared import Prepared

    hierarchies = hierarchies_for(chosen, frame, files)
    columns = tuple(c.name for c in chosen.columns)
    levels = {c.name: int(c.level or 0) for c in chosen.columns}
    figures = evaluate(
        Prepared(frame, columns, hierarchies), [levels[c] for c in columns], k=chosen.k
    )
    out = apply_levels(frame, hierarchies, levels)
    for col, level in levels.items():
        if level:
            out[col] = out[col].astype(STRING)
    return Generalized(out, figures, columns, hierarchies)


def sentences(done: Generalized, chosen: Generalization, removed: int, persons: int) -> list[str]:
    """What was traded away, one plain sentence each (README and export record)."""
    fig = done.figures
    parts = []
    for col in chosen.columns:
        h = done.hierarchies[col.name]
        source = f"built-in {col.builtin}" if col.builtin else Path(col.path or "").name
        parts.append(f"{col.name} level {int(col.level or 0)} of {h.max_level} ({source})")
    share = removed / persons if persons else 0.0
    return [
        "Generalized the person table to the levels chosen by the optimal search (k = "
        f"{chosen.k}, at most {chosen.max_suppression:.1%} suppressed, least {chosen.metric}): "
        + "; ".join(parts)
        + ". Level 0 is the value as released; each level above pools values into "
        "coarser groups.",
        f"Suppressed {removed:,} of {persons:,} persons ({share:.2%}) whose combination of "
        + ", ".join(done.columns)
        + f" stayed in a group smaller than k = {chosen.k} after generalization, with "
        "their event rows. " + LOSS_EXPLAINED["suppressed"],
        f"Information loss (ARX): {fig.loss:.3f}. " + LOSS_EXPLAINED["loss"],
        f"Iyengar's loss: {fig.iyengar:.3f}. " + LOSS_EXPLAINED["iyengar"],
        f"Discernibility: {fig.discernibility:,.0f}. " + LOSS_EXPLAINED["discernibility"],
        f"Average group size (AECS): {fig.aecs:.1f}. " + LOSS_EXPLAINED["aecs"],
        f"Entropy loss: {fig.entropy:.3f}. " + LOSS_EXPLAINED["entropy"],
        f"Precision loss: {fig.precision:.3f}. " + LOSS_EXPLAINED["precision"],
    ]
