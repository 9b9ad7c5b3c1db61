"""`deid generalize`: the generalization that reaches k with the least information loss.

FILE mode reads one CSV/XLSX table; PROJECT mode (a .deid.json) searches the released
person table as `deid risk` measures it (built in memory; nothing is written). Each
quasi-identifier needs a hierarchy: a file in --hierarchies DIR (``COLUMN.csv`` or ARX's
``NAME_hierarchy_COLUMN.csv``), else a built-in (--builtin COLUMN=KIND, or the one the
column's name suggests). Output carries levels, counts and figures, never a value.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid_desktop.cli.output import print_json
from deid_desktop.core.errors import CheckFailed, UsageError

if TYPE_CHECKING:  # pandas and the risk package load when the command runs
    import pandas as pd

    from deid_desktop.core.model import Project
    from deid_desktop.core.risk.hierarchy import Hierarchy
    from deid_desktop.core.risk.lattice import SearchResult

METRIC_CHOICES = ("loss", "discernibility", "aecs", "entropy", "precision", "iyengar")


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "generalize",
        help="find the generalization that reaches k with the least information loss",
        description="Search every combination of hierarchy levels of the quasi-identifiers "
        "for the one that reaches k while suppressing at most the given share of records, "
        "with the least information loss. Prints the levels and what was traded away.",
    )
    p.add_argument("source", help="a project (.deid.json) or a CSV/XLSX file")
    p.add_argument("--qi", help="quasi-identifier columns, comma-separated")
    p.add_argument("--k", type=int, default=None, help="k target (default 5; project: its k)")
    p.add_argument(
        "--max-suppression",
        type=float,
        default=0.05,
        help="largest share of records that may be suppressed, 0..1 (default 0.05)",
    )
    p.add_argument("--hierarchies", type=Path, help="folder of hierarchy files (ARX CSV)")
    p.add_argument(
        "--builtin",
        action="append",
        default=[],
        metavar="COLUMN=KIND",
        help="use a built-in hierarchy for a column (age, year, date, zip, sex, race, "
        "ethnicity, marital, education, icd10, icd9); repeatable",
    )
    p.add_argument("--metric", choices=METRIC_CHOICES, default="loss", help="what to minimise")
    p.add_argument("--sep", default=";", help="separator of the hierarchy files (default ;)")
    p.add_argument("--data-sep", help="FILE mode: the table's delimiter (overrides detection)")
    p.add_argument(
        "--time-limit", type=float, default=None, help="stop after this many seconds (best effort)"
    )
    p.add_argument(
        "--export-hierarchies",
        type=Path,
        metavar="DIR",
        help="write the hierarchies used, as ARX CSV files COLUMN.csv, into DIR",
    )
    p.add_argument(
        "--local-suppression",
        action="store_true",
        help="after the search, blank cells instead of removing the rows below k",
    )
    p.add_argument(
        "--priority",
        help="with --local-suppression: columns to blank first, comma-separated",
    )
    p.add_argument(
        "--person",
        metavar="COLUMN",
        help="FILE mode: the person key; k and the limit then count persons, not rows",
    )
    p.add_argument(
        "--apply",
        action="store_true",
        help="PROJECT mode: save the chosen levels and hierarchies into the project, so "
        "deid run releases exactly that",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run_generalize)


def run_generalize(args: argparse.Namespace) -> int:
    from deid_desktop.cli.risk_scan_cmds import _columns, _is_project, _read_file
    from deid_desktop.core.risk.lattice import Prepared, search
    from deid_desktop.core.risk.persons import PersonPrepared

    source = Path(args.source)
    qis = _columns(args.qi)
    k = args.k
    project = None
    if args.apply and (not _is_project(source) or args.person or args.local_suppression):
        raise UsageError(
            "--apply saves the choice into a project (.deid.json), searched on its "
            "released person table.",
            hint="Give a project, without --person or --local-suppression.",
        )
    if _is_project(source):
        project, frame, qis, k = _unapplied_person(source, qis, k)
    else:
        if not qis:
            raise UsageError(
                "Name the quasi-identifier columns with --qi.", hint="For example --qi age,sex,zip3"
            )
        frame = _read_file(source, args.data_sep, False)
    k = 5 if k is None else k
    kinds: dict[str, str] = {}
    hierarchies = _hierarchies(frame, qis, args, kinds)
    if args.export_hierarchies:
        _export(hierarchies, args.export_hierarchies, args.sep)
    started = time.process_time()
    prepared = (
        PersonPrepared(frame, qis, hierarchies, args.person)
        if args.person
        else Prepared(frame, qis, hierarchies)
    )
    result = search(
        prepared,
        k=k,
        max_suppression=args.max_suppression,
        metric=args.metric,
        time_limit=args.time_limit,
    )
    seconds = time.process_time() - started
    out = result.to_dict()
    out["seconds"] = round(seconds, 3)
    out["hierarchies"] = {c: hierarchies[c].source or "file" for c in prepared.columns}
    out["top_levels"] = {c: h - 1 for c, h in zip(prepared.columns, prepared.heights, strict=True)}
    out["unit"] = "persons" if args.person else "rows"
    if args.local_suppression and result.best is not None:
        out["local_suppression"] = _local(frame, hierarchies, result, args, k)
    if args.apply and result.best is not None and project is not None:
        _apply(project, source, hierarchies, kinds, result, args)
        out["applied"] = source.name
    if args.json:
        print_json(out)
    else:
        print(_text(result, out))
        if out.get("applied"):
            print(f"Saved into {source.name}: deid run releases these levels.")
    if result.best is None:
        raise CheckFailed(
            f"No generalization reaches k = {k} with at most "
            f"{args.max_suppression:.1%} of the records suppressed.",
            hint="Allow more suppression (--max-suppression) or lower k.",
        )
    return 0


def _unapplied_person(
    source: Path, qis: list[str], k: int | None
) -> tuple[Project, pd.DataFrame, list[str], int | None]:
    """The project, its released person table as the generalization step receives it (no
    generalization yet, no suppression), its quasi-identifiers and k unless overridden."""
    from deid_desktop import secrets
    from deid_desktop.cli.risk_scan_cmds import _load_project
    from deid_desktop.core import engine

    project, extract = _load_project(source)
    frame, counted = engine.unapplied_person(project, extract, secrets.salt_for_project(project))
    return project, frame, qis or list(counted), k or project.risk.k_target


def _apply(
    project: Project,
    source: Path,
    hierarchies: dict[str, Hierarchy],
    kinds: dict[str, str],
    result: SearchResult,
    args: argparse.Namespace,
) -> None:
    """Save the chosen levels and hierarchies into the project (atomic)."""
    from dataclasses import replace

    from deid_desktop.core import engine
    from deid_desktop.core.project import save_project

    assert result.best is not None
    levels = dict(zip(result.columns, result.best.levels, strict=True))
    sources: dict[str, tuple[str, str | Path]] = {
        col: ("builtin", kinds[col])
        if col in kinds
        else (args.sep, Path(args.hierarchies) / hierarchies[col].source)
        for col in result.columns
    }
    chosen = engine.chosen_generalization(
        source,
        levels,
        sources,
        k=result.k,
        max_suppression=result.max_suppression,
        metric=result.metric,
    )
    risk = replace(project.risk, k_target=result.k)
    if args.qi:
        risk = replace(risk, quasi_identifiers=tuple(result.columns))
    save_project(replace(project, generalization=chosen, risk=risk), source)


def _hierarchies(
    frame: pd.DataFrame,
    qis: list[str],
    args: argparse.Namespace,
    kinds: dict[str, str] | None = None,
) -> dict[str, Hierarchy]:
    """The hierarchy of each column; ``kinds`` receives the built-in kind of the columns
    that use one (the others use a file of --hierarchies)."""
    from deid_desktop.core.risk.builtin_hierarchies import builtin_hierarchy, guess_kind
    from deid_desktop.core.risk.hierarchy import read_hierarchy_dir

    missing = [c for c in qis if c not in frame.columns]
    if missing:
        raise UsageError(
            "Column(s) " + ", ".join(repr(c) for c in missing) + " are not in the table.",
            hint="Choose among: " + ", ".join(str(c) for c in frame.columns),
        )
    chosen: dict[str, str] = {}
    for item in args.builtin:
        column, sep, kind = item.partition("=")
        if not sep or not column.strip() or not kind.strip():
            raise UsageError("Write --builtin COLUMN=KIND.", hint="For example --builtin age=age")
        chosen[column.strip()] = kind.strip()
    found = read_hierarchy_dir(args.hierarchies, qis, sep=args.sep) if args.hierarchies else {}
    out: dict[str, Hierarchy] = {}
    lacking = []
    for col in qis:
        if col in found and col not in chosen:
            out[col] = found[col]
            continue
        kind = chosen.get(col) or guess_kind(col)
        if kind is None:
            lacking.append(col)
            continue
        out[col] = builtin_hierarchy(kind, frame[col], col)
        if kinds is not None:
            kinds[col] = kind
    if lacking:
        raise UsageError(
            "No hierarchy for column(s) " + ", ".join(repr(c) for c in lacking) + ".",
            hint="Put COLUMN.csv (ARX format) in --hierarchies DIR, or name a built-in with "
            "--builtin COLUMN=KIND.",
        )
    return out


def _local(
    frame: pd.DataFrame,
    hierarchies: dict[str, Hierarchy],
    result: SearchResult,
    args: argparse.Namespace,
    k: int,
) -> dict[str, Any]:
    """Cells blanked (instead of rows removed) at the chosen levels."""
    from deid_desktop.cli.risk_scan_cmds import _columns
    from deid_desktop.core.risk.hierarchy import apply_levels
    from deid_desktop.core.risk.local_suppression import suppress_cells

    if args.person:
        raise UsageError(
            "Local suppression counts rows; it cannot be combined with --person yet.",
            hint="Leave out --person or --local-suppression.",
        )
    assert result.best is not None
    levels = dict(zip(result.columns, result.best.levels, strict=True))
    generalized = apply_levels(frame, hierarchies, levels)
    done = suppress_cells(generalized, result.columns, k, priority=_columns(args.priority))
    return done.to_dict()


def _export(hierarchies: dict[str, Hierarchy], folder: Path, sep: str) -> None:
    from deid_desktop.core.risk.hierarchy import write_arx_csv

    folder.mkdir(parents=True, exist_ok=True)
    for col, h in hierarchies.items():
        write_arx_csv(h, folder / f"{col}.csv", sep=sep)


def _text(result: SearchResult, out: dict[str, Any]) -> str:
    from deid_desktop.core.risk.loss import LOSS_EXPLAINED

    best = result.best
    how = "optimal" if result.complete else "best found before the time limit"
    lines = [
        f"Generalization for k = {result.k}, at most {result.max_suppression:.1%} suppressed, "
        f"least {result.metric} ({how}; {result.evaluated:,} of {result.lattice_size:,} "
        f"combinations counted, {out['seconds']:.2f} s)."
    ]
    if best is None:
        lines.append("No combination of levels reaches k within the suppression limit.")
        return "\n".join(lines)
    width = max(len(c) for c in result.columns)
    for col, level in zip(result.columns, best.levels, strict=True):
        lines.append(
            f"  {col:<{width}}  level {level} of {out['top_levels'][col]}"
            f"  ({out['hierarchies'][col]})"
        )
    share = best.suppressed / best.rows if best.rows else 0.0
    lines += [
        f"Rows suppressed:  {best.suppressed:,} of {best.rows:,} ({share:.2%}). "
        + LOSS_EXPLAINED["suppressed"],
        f"Classes:          {best.classes:,} (smallest {best.k}).",
        f"Loss (ARX):       {best.loss:.3f}. " + LOSS_EXPLAINED["loss"],
        f"Iyengar's loss:   {best.iyengar:.3f}. " + LOSS_EXPLAINED["iyengar"],
        f"Discernibility:   {best.discernibility:,.0f}. " + LOSS_EXPLAINED["discernibility"],
        f"Average class:    {best.aecs:.1f}. " + LOSS_EXPLAINED["aecs"],
        f"Entropy loss:     {best.entropy:.3f}. " + LOSS_EXPLAINED["entropy"],
        f"Precision loss:   {best.precision:.3f}. " + LOSS_EXPLAINED["precision"],
    ]
    if best.persons is not None:
        lines.insert(
            len(result.columns) + 1,
            f"Persons suppressed: {best.persons_suppressed:,} of {best.persons:,} "
            "(k and the limit count persons).",
        )
    local = out.get("local_suppression")
    if local:
        lines.append(
            f"Local suppression instead: {local['cells_blanked']:,} cells blanked in "
            f"{local['rows_touched']:,} rows, {local['rows_suppressed']:,} rows still removed."
        )
    return "\n".join(lines)
