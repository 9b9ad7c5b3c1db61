"""`deid risk` and `deid scan`: residual risk and the free-text scan, headless.

Both accept a project (a file ending in .deid.json) or a single CSV/XLSX file. Output
(text or --json) carries counts, names of columns and line numbers, never a value from
the data: this is a log-like surface.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from deid_desktop.cli.output import print_json, warn_problems
from deid_desktop.core.constants import DICT_KINDS, PROJECT_SUFFIX
from deid_desktop.core.errors import InputError, UsageError

if TYPE_CHECKING:  # pandas, risk and scan load when a command runs, not for `deid --help`
    import pandas as pd

    from deid_desktop.core.model import Extract, Project
    from deid_desktop.core.risk import RiskReport
    from deid_desktop.core.risk.population import PopulationUniqueness
    from deid_desktop.core.scan import ScanDictionary, ScanReport


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    risk = subparsers.add_parser(
        "risk",
        help="k, lone records and re-identification risk on chosen quasi-identifiers",
        description="Residual risk of a table on its quasi-identifiers: k (smallest group), "
        "equivalence classes, lone records, records below the k target, l-diversity "
        "(distinct, entropy, recursive (c,l)), t-closeness and prosecutor/journalist/marketer "
        "risk. A missing value counts as a value in the classes; a missing sensitive value "
        "adds no diversity.",
    )
    risk.add_argument("source", help="a project (.deid.json) or a CSV/XLSX file")
    risk.add_argument("--qi", help="quasi-identifier columns, comma-separated")
    risk.add_argument("--k", type=int, default=None, help="k target (default 5)")
    risk.add_argument(
        "--sensitive", action="append", default=[], help="sensitive column (repeatable)"
    )
    risk.add_argument(
        "--c",
        type=float,
        default=None,
        help="the c of recursive (c,l)-diversity (default 4)",
    )
    population = risk.add_mutually_exclusive_group()
    population.add_argument(
        "--population",
        type=int,
        default=None,
        help="the number of people the table was drawn from, for the population-uniqueness "
        "models (Pitman, Zayatz, SNB, Dankar); a project with ZIP3 released defaults to the "
        "2020 Census population of the released ZIP3 areas",
    )
    population.add_argument(
        "--sampling-fraction",
        type=float,
        default=None,
        help="the table's share of the population (0 < F <= 1), instead of --population",
    )
    _file_options(risk)
    risk.add_argument(
        "--list-lone",
        action="store_true",
        help="with --json: where each lone record is (FILE: its line number; PROJECT: its "
        "0-based row in the released person table)",
    )
    risk.add_argument("--json", action="store_true", help="machine-readable output")
    risk.set_defaults(func=run_risk)

    scan = subparsers.add_parser(
        "scan",
        help="scan free-text columns for identifiers (counts only)",
        description="Scan free-text columns for identifiers: values of the identifier "
        "columns, patterns (phones, SSNs, e-mails, dates, record numbers, URLs, IPs, ZIPs) "
        "and cues ('Dr. X', 'daughter X'). Reports counts and positions, never the text. "
        "A scan cannot prove a note clean.",
    )
    scan.add_argument("source", help="a project (.deid.json) or a CSV/XLSX file")
    scan.add_argument(
        "--text",
        help="text columns, comma-separated (project: table.column; default: "
        "the free-text columns)",
    )
    scan.add_argument(
        "--dict",
        dest="dict_cols",
        help="dictionary columns, comma-separated, each optionally with :kind "
        f"({', '.join(DICT_KINDS)}); project: table.column[:kind], added to the direct columns",
    )
    _file_options(scan)
    scan.add_argument(
        "--level",
        choices=("high", "high_medium", "all"),
        default="all",
        help="report only hits of this confidence or above (default: all)",
    )
    scan.add_argument(
        "--high-recall",
        action="store_true",
        help="also flag capitalised words found in no bundled word list (noisy: expect "
        "many false hits)",
    )
    scan.add_argument("--json", action="store_true", help="machine-readable output")
    scan.set_defaults(func=run_scan)


def _file_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sep", help="FILE mode: the delimiter (overrides detection)")
    parser.add_argument(
        "--strip", action="store_true", help="FILE mode: strip blanks around every value"
    )


# ---------------------------------------------------------------- loading


def _is_project(source: Path) -> bool:
    return source.name.endswith(PROJECT_SUFFIX)


def _read_file(path: Path, sep: str | None, strip: bool) -> pd.DataFrame:
    """A single table, every column as text, missing = <NA>."""
    import pandas as pd

    if not path.exists():
        raise InputError("The file does not exist", file=path.name, hint="Check the path.")
    frame: pd.DataFrame | None = None
    if sep is None:
        try:
            from deid_desktop.core.io import read_table
        except ImportError:  # loading module not available: plain reader below
            read_table = None  # type: ignore[assignment]
        if read_table is not None:
            frame = read_table(path).frame
    if frame is None:
        try:
            frame = pd.read_csv(
                path,
                sep=sep if sep else None,
                engine="python" if not sep else "c",
                dtype="string",
                keep_default_na=False,
                na_values=[""],
                encoding="utf-8-sig",
            )
        except (UnicodeDecodeError, pd.errors.ParserError, ValueError) as exc:
            raise InputError(
                f"The file cannot be read as delimited text ({type(exc).__name__})",
                file=path.name,
                hint="Check the delimiter (--sep) and that the file is UTF-8 text.",
            ) from None
    if strip:
        frame = frame.rename(columns=lambda c: str(c).strip())
        for col in frame.columns:
            stripped = frame[col].astype("string").str.strip()
            frame[col] = stripped.mask(stripped == "")
    return frame


def _load_project(path: Path) -> tuple[Project, Extract]:
    """The project and its extract, through the engine (as `deid check` reads them)."""
    from deid_desktop.core import engine

    project, problems = engine.open_project(path)
    warn_problems(problems)
    return project, engine.load(project, path)


def _columns(text: str | None) -> list[str]:
    return [c.strip() for c in (text or "").split(",") if c.strip()]


# ---------------------------------------------------------------- risk


def run_risk(args: argparse.Namespace) -> int:
    from deid_desktop.core.risk import risk_report
    from deid_desktop.core.risk.diversity import DEFAULT_C

    source = Path(args.source)
    qis = _columns(args.qi)
    sensitive = [s for item in args.sensitive for s in _columns(item)]
    k = args.k
    census: int | None = None
    not_counted: tuple[str, ...] = ()
    cells: dict[str, object] | None = None
    if _is_project(source):
        frame, qis, k, sensitive, census, not_counted, cells = _release_person(
            source, qis, k, sensitive
        )
    else:
        if not qis:
            raise UsageError(
                "Name the quasi-identifier columns with --qi.", hint="For example --qi age,sex,zip3"
            )
        frame = _read_file(source, args.sep, args.strip)
    k = 5 if k is None else k
    c = DEFAULT_C if args.c is None else args.c
    if c <= 0:
        raise UsageError("--c must be a positive number.", hint="A usual value is 4 (--c 4).")
    report = replace(
        risk_report(frame, qis, k_target=k, sensitive=sensitive, c=c),
        released_not_counted=not_counted,
    )
    uniqueness = _population_uniqueness(report, args.population, args.sampling_fraction, census)
    if args.json:
        out = report.to_dict(include_values=False, include_lone_rows=False)
        if uniqueness is not None:
            out.update(uniqueness.to_dict())
        if cells is not None:  # the event tables of a project: counts, never a value
            out["small_cells"] = cells
        if args.list_lone and _is_project(source):  # rows of the release, in subject-ID order
            out["lone_release_rows"] = [int(r) for r in report.lone_rows]
        elif args.list_lone:  # the file's line numbers (header = line 1)
            out["lone_lines"] = [int(r) + 2 for r in report.lone_rows]
        print_json(out)
    else:
        print(_risk_text(report))
        if uniqueness is not None:
            print(_population_text(uniqueness))
        if cells is not None:
            print(_cells_text(cells))
    return 0


def _cells_text(cells: dict[str, object]) -> str:
    columns = [c for c in cells["columns"] if c["small_cells"]]  # type: ignore[attr-defined]
    if not columns:
        return "small cells in event tables: none"
    listed = "; ".join(
        f"{c['table']}.{c['column']}: {c['small_cells']:,} values held by fewer than "
        f"{c['k']} persons ({c['persons']:,} persons hold one)"
        for c in columns
    )
    return f"small cells in event tables: {listed}"


def _population_uniqueness(
    report: RiskReport, population: int | None, fraction: float | None, census: int | None
) -> PopulationUniqueness | None:
    """Population uniqueness when a population is known (given, or the released ZIP3s')."""
    from deid_desktop.core.risk.population import population_uniqueness

    if fraction is not None:
        if not 0 < fraction <= 1:
            raise UsageError(
                "--sampling-fraction must be above 0 and at most 1.",
                hint="For example --sampling-fraction 0.01 for a 1 % sample.",
            )
        population = max(round(report.rows / fraction), report.rows)
    population = population if population is not None else census
    if population is None or report.rows == 0:
        return None
    histogram = {c.size: c.classes for c in report.class_size_distribution}
    return population_uniqueness(histogram, population=population)


def _population_text(u: PopulationUniqueness) -> str:
    chosen = "no sample unique" if u.dankar_model == "none" else f"{u.dankar_model} chosen"
    return (
        f"population uniqueness (population {u.population:,}, sampling fraction "
        f"{u.sampling_fraction:.3g}): Pitman {u.pitman:.6f}, Zayatz {u.zayatz:.6f}, "
        f"SNB {u.snb:.6f} (0 = no estimate); Dankar's rule {u.dankar:.6f} ({chosen})"
    )


class ReleasedPerson(NamedTuple):
    """The released person table of a project and what risk is measured on."""

    frame: pd.DataFrame
    qis: list[str]
    k: int
    sensitive: list[str]
    census: int | None  # the Census population of the released ZIP3 areas
    not_counted: tuple[str, ...]  # released identifying columns left out of the count
    cells: dict[str, object]  # small cells of the event tables (``cells_summary``)


def _release_person(
    source: Path, qis: list[str], k: int | None, sensitive: list[str]
) -> ReleasedPerson:
    """The released person table of the project, built in memory (nothing written), the
    project's quasi-identifiers, k target and sensitive columns unless overridden, the
    Census population of the released ZIP3 areas when ZIP3 is one of them, and the
    released identifying columns left out of the count (none when --qi is given)."""
    from deid_desktop import secrets
    from deid_desktop.core import engine
    from deid_desktop.core.pathways import build_release
    from deid_desktop.core.pathways.common import ZIP3_COLUMN

    project, extract = _load_project(source)
    release = build_release(extract, project, salt=secrets.salt_for_project(project))
    frame = release.tables[project.person_table.name]
    not_counted = () if qis else engine.released_not_counted_for(project, release)
    qis = qis or list(engine.quasi_identifiers_for(project, release))
    sensitive = sensitive or list(engine.sensitive_columns_for(project, release))
    census = None
    if ZIP3_COLUMN in qis and ZIP3_COLUMN in frame.columns:
        from deid_desktop.core.risk.population import released_zip3_population
        from deid_desktop.core.zip3 import load_table_for

        table = load_table_for(project.transform.zip3_table)
        census = released_zip3_population(
            frame[ZIP3_COLUMN].dropna().unique(), table.populations, table.restricted
        )
    k = project.risk.k_target if k is None else k
    from deid_desktop.core.risk.cells import cells_summary, event_small_cells

    cells = cells_summary(event_small_cells(project, release, k=k))
    return ReleasedPerson(frame, qis, k, sensitive, census, not_counted, cells)


def _risk_text(r: RiskReport) -> str:
    k = r.k if r.k is not None else "-"
    share = f" ({r.below_k / r.rows:.1%} of rows)" if r.rows else ""
    lines = [
        f"quasi-identifiers: {', '.join(r.quasi_identifiers) or '(none)'}",
        f"rows {r.rows:,} · equivalence classes {r.classes:,} · k = {k} (target {r.k_target})",
        f"lone records (class of 1): {r.lone:,}",
        f"records in classes below {r.k_target}: {r.below_k:,}{share}",
    ]
    if r.best_rescue:
        lines.append(
            f"generalizing '{r.best_rescue.quasi_identifier}' would rescue "
            f"{r.best_rescue.rescued:,} of the lone records"
        )
    for d in r.diversity:
        lines.append(
            f"l-diversity of '{d.column}': l = {d.l} ({d.classes_with_l1:,} classes, "
            f"{d.records_with_l1:,} records, with a single value); entropy l = "
            f"{d.l_entropy}; recursive (c={d.c:g}, l) l = {d.l_recursive}; t-closeness "
            f"t = {d.t_closeness} ({d.t_distance} distance)"
        )
    if r.diversity:
        lines.append("(a missing sensitive value adds no diversity)")
    lines.append(
        f"prosecutor risk: max {r.prosecutor_max:.3f}, mean {r.prosecutor_mean:.3f}; "
        f"marketer risk {r.marketer:.3f}"
    )
    sizes = ", ".join(f"{c.size}: {c.classes:,}" for c in r.class_size_distribution[:8])
    more = " ..." if len(r.class_size_distribution) > 8 else ""
    lines.append(f"classes by size: {sizes}{more}")
    missing = {q: n for q, n in r.missing_counts.items() if n}
    if missing:
        lines.append(
            "missing values (each forms its own class): "
            + ", ".join(f"{q} {n:,}" for q, n in missing.items())
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- scan


def _split_kind(item: str) -> tuple[str, str | None]:
    if ":" in item:
        col, kind = item.rsplit(":", 1)
        kind = kind.strip().lower()
        if kind not in DICT_KINDS:
            raise UsageError(
                f"Unknown dictionary kind '{kind}'.", hint=f"Use one of {', '.join(DICT_KINDS)}."
            )
        return col.strip(), kind
    return item, None


def guess_kind(column: str) -> str:
    """A dictionary kind from a column name, for FILE mode without :kind."""
    name = column.lower()
    for words, kind in (
        (("ssn", "social"), "ssn"),
        (("mail",), "email"),
        (("phone", "tel", "mobile", "fax"), "phone"),
        (("mrn", "record"), "mrn"),
        (("name",), "name"),
    ):
        if any(w in name for w in words):
            return kind
    return "id"


def run_scan(args: argparse.Namespace) -> int:
    from deid_desktop.core.scan import (
        ScanOptions,
        build_dictionary,
        build_dictionary_from_values,
        scan_frames,
    )

    source = Path(args.source)
    extra = [_split_kind(i) for i in _columns(args.dict_cols)]
    if _is_project(source):
        project, extract = _load_project(source)
        frames = {t.name: t.frame for t in extract.tables}
        dictionary_values: dict[str, list[Any]] = {}
        text_columns = _project_text_columns(project, extract, frames, _columns(args.text))
        from deid_desktop.core.held_back import project_word_list

        words = project_word_list(source, project.name)  # the held-back folder's word list
        base = build_dictionary(extract, project, words=words.by_dictionary_kind())
        person_keys: dict[str, str] | None = {t.name: t.key for t in project.tables}
        for item, kind in extra:
            table, _, column = item.partition(".")
            _require_column(frames, table, column)
            dictionary_values.setdefault(kind or guess_kind(column), []).extend(
                frames[table][column].dropna().unique()
            )
        dictionary = _merge(base, dictionary_values) if dictionary_values else base
    else:
        frame = _read_file(source, args.sep, args.strip)
        name = source.stem
        frames = {name: frame}
        text = _columns(args.text)
        if not text:
            raise UsageError(
                "Name the free-text columns to scan with --text.", hint="For example --text note"
            )
        text_columns = {name: text}
        person_keys = None
        values: dict[str, list[Any]] = {}
        for column, kind in extra:
            _require_column(frames, name, column)
            values.setdefault(kind or guess_kind(column), []).extend(
                frame[column].dropna().unique()
            )
        dictionary = build_dictionary_from_values(values)
    report = scan_frames(
        frames,
        text_columns,
        dictionary,
        person_keys=person_keys,
        options=ScanOptions(high_recall=args.high_recall),
        level=args.level,
    )
    if args.json:
        print_json(report.to_dict(include_hits=True))
    else:
        print(_scan_text(report))
    return 0


def _merge(base: ScanDictionary, values: dict[str, list[Any]]) -> ScanDictionary:
    from deid_desktop.core.scan import ScanDictionary, build_dictionary_from_values

    extra = build_dictionary_from_values(values)
    return ScanDictionary(
        MappingProxyType({**extra.terms, **base.terms}),
        MappingProxyType({**extra.digits, **base.digits}),
        base.skipped + extra.skipped,
        base.owners,
        base.pinned,
    )


def _require_column(frames: dict[str, pd.DataFrame], table: str, column: str) -> None:
    if table not in frames or column not in frames[table].columns:
        raise UsageError(
            f"There is no column '{column}' in table '{table}'.",
            hint="Project columns are written table.column.",
        )


def _project_text_columns(
    project: Project, extract: Extract, frames: dict[str, pd.DataFrame], chosen: Sequence[str]
) -> dict[str, list[str]]:
    if not chosen:
        from deid_desktop.core import engine

        return engine.text_columns_for(project, extract)
    out: dict[str, list[str]] = {}
    for item in chosen:
        table, _, column = item.partition(".")
        _require_column(frames, table, column)
        out.setdefault(table, []).append(column)
    return out


def _scan_text(r: ScanReport) -> str:
    lines = [f"dictionary entries: {r.dictionary_entries:,}"]
    for c in r.columns:
        kinds = ", ".join(f"{k} {n:,}" for k, n in sorted(c.hits_by_kind.items())) or "no hits"
        lines.append(
            f"{c.table}.{c.column}: {c.notes:,} notes, {c.notes_with_hits:,} with hits ({kinds})"
        )
    if not r.columns:
        lines.append("no free-text column to scan")
    lines.append(f"total hits: {r.total_hits:,}")
    lines.append("")
    lines.append(r.disclaimer)
    return "\n".join(lines)
