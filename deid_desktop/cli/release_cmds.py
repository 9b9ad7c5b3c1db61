"""`deid check` and `deid run`: build a project's release headlessly, exactly as the GUI.

`deid check PROJECT [--json]` builds the release in memory and prints every check
(failed first), the residual risk and the free-text scan summary. It writes nothing;
exit 3 when a blocking check fails.

`deid run PROJECT --out DIR --crosswalk-out DIR2 [...]` does the same and, when every
blocking check passes, writes the release, the crosswalk (apart) and the export record,
and appends the record to the register. Exit 3 and nothing written when a check fails.

Output names tables, columns, checks and counts - never a value from the data.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid_desktop.cli.output import print_json, warn_problems
from deid_desktop.cli.progress_bar import ProgressBar, progress_bar
from deid_desktop.core.errors import DeidError

if TYPE_CHECKING:  # the engine pulls in pandas and openpyxl: imported when a command runs
    from deid_desktop.core import engine
    from deid_desktop.core.errors import Problem
    from deid_desktop.core.model import Project
    from deid_desktop.core.progress import ProgressFn

JSON_SCHEMA = 1
EXIT_CHECK_FAILED = 3


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    check = subparsers.add_parser(
        "check",
        help="build the release in memory and run every check (writes nothing)",
        description="Build the project's release in memory, run every release check and "
        "print each with pass/fail and counts (failed first), the residual risk and the "
        "free-text scan summary. Writes nothing. Exit 3 if a blocking check fails.",
    )
    check.add_argument("project", type=Path, help="the project file (.deid.json)")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.set_defaults(func=run_check)

    run = subparsers.add_parser(
        "run",
        help="build, check and export the release with its crosswalk and record",
        description="Build the project's release, run every check and, only if every "
        "blocking check passes, write the release to --out, the crosswalk to "
        "--crosswalk-out (a separate folder, never inside the release) and the export "
        "record, then append the record to the local register. A failed check writes "
        "nothing (exit 3).",
    )
    run.add_argument("project", type=Path, help="the project file (.deid.json)")
    run.add_argument("--out", type=Path, required=True, help="release folder (new or empty)")
    run.add_argument(
        "--crosswalk-out",
        type=Path,
        help="crosswalk folder, apart from the release (needed when the release has one)",
    )
    for name, what in (
        ("purpose", "purpose of the release"),
        ("recipient", "who receives it"),
        ("retention", "retention period, e.g. '3 years'"),
        ("dua", "data use agreement reference"),
    ):
        run.add_argument(f"--{name}", help=f"{what} (default: the project's)")
    run.add_argument("--xlsx", action="store_true", help="also write each table as XLSX")
    run.add_argument(
        "--register",
        type=Path,
        help="register file (default: $DEID_REGISTER, else the user data folder)",
    )
    run.add_argument(
        "--overwrite",
        action="store_true",
        help="replace earlier output of deid-desktop in --out/--crosswalk-out",
    )
    run.add_argument(
        "--accept-risk",
        metavar="REASON",
        help="accept the residual risk of a linkable release or limited data set whose k "
        "is below the target, with the reason (kept in the export record)",
    )
    run.add_argument("--json", action="store_true", help="machine-readable output")
    run.set_defaults(func=run_run)


# ---------------------------------------------------------------- shared steps


def _salt(project: Project) -> bytes | None:
    """``secrets.salt_for_project``; a release that needs no salt (Safe Harbor, limited)
    does not import ``secrets`` at all: it imports keyring (which brings urllib, http,
    ssl, email and importlib_metadata) and cryptography, about 0.07 s of CPU per run."""
    from deid_desktop.core.pathways.registry import needs_salt

    if not needs_salt(project):
        return None
    from deid_desktop import secrets

    return secrets.salt_for_project(project)


def _span(bar: ProgressBar | None, start: float, end: float) -> ProgressFn | None:
    return None if bar is None else bar.span(start, end)


def _review(
    project_path: Path,
    *,
    scan: bool | None,
    bar: ProgressBar | None = None,
    end: float = 1.0,
    register: Path | None = None,
    held_back: Path | None = None,
) -> tuple[Project, list[Problem], engine.ReviewResult]:
    """Open, load and review. ``scan``: see ``engine.review`` (check: True; run: None, so
    free text that is only suppressed is not scanned). ``bar``: the terminal's progress
    bar (load and review fill it up to ``end``). ``held_back``: the crosswalk folder whose
    word list the scan uses (default: the project's, beside the project file)."""
    from deid_desktop.core import engine
    from deid_desktop.core.held_back import project_word_list

    # the inputs are hashed once, by the load (it stops when one changed); only then
    # are they hashed again, to say what changed
    project, problems = engine.open_project(project_path, hashes=False)
    warn_problems(problems)
    try:
        extract = engine.load(project, project_path, progress=_span(bar, 0.0, 0.35 * end))
    except Exception:
        warn_problems(p for p in engine.input_problems(project, project_path) if p not in problems)
        raise
    result = engine.review(
        project,
        extract,
        salt=_salt(project),
        scan=scan,
        register_path=register,
        progress=_span(bar, 0.35 * end, end),
        words=project_word_list(project_path, project.name, held_back),
    )
    return project, problems, result


def check_payload(
    project_path: Path, project: Project, problems: list[Problem], result: engine.ReviewResult
) -> dict[str, Any]:
    """The --json document of `deid check` (schema documented in README)."""
    from deid_desktop.core import engine
    from deid_desktop.core.export import check_rows, risk_summary, scan_summary
    from deid_desktop.core.risk.cells import cells_summary
    from deid_desktop.core.verify.plain import plain_failure

    return {
        "schema": JSON_SCHEMA,
        "project": str(project_path),
        "pathway": result.release.pathway.value,
        "label": result.release.label,
        "passed": result.passed,
        "verdict": None if result.verdict is None else result.verdict.to_dict(),
        "risk_acceptance_needed": result.risk_acceptance_needed if result.passed else None,
        "checks": check_rows(result.verification),
        "failures": [
            {
                "check": f.check_id,
                "sentence": f.sentence,
                "step": f.step.number,
                "table": f.table,
                "column": f.column,
            }
            for f in (
                plain_failure(o, cli=str(project_path))
                for o in result.verification.blocking_failures
            )
        ],
        "risk": risk_summary(result.risk),
        "scan": scan_summary(result.scan),
        "rows": engine.released_rows(result),
        "transformations": list(result.release.transformations),
        "warnings": list(result.release.warnings),
        "problems": [{"severity": p.severity, "message": p.message} for p in problems],
        "earlier_releases": _earlier(project),
        "cross_release": _cross_release(result),
        "small_cells": cells_summary(result.small_cells),
    }


def _cross_release(result: engine.ReviewResult) -> dict[str, Any] | None:
    """Persons the combination with each earlier release isolates, as the review measured
    it (None: nothing to combine, or the register unreadable - warned by ``_earlier``)."""
    return None if result.cross_release is None else result.cross_release.to_dict()


def _earlier(project: Project) -> list[dict[str, Any]] | None:
    """Earlier exports of this project in the register (None: register unreadable)."""
    from deid_desktop.core.register import earlier_releases

    try:
        earlier = earlier_releases(project.project_id)
    except DeidError as exc:
        print(f"deid: warning: the register could not be read: {exc.message}", file=sys.stderr)
        return None
    if earlier.damaged:
        print(f"deid: warning: {earlier.damage_note()}", file=sys.stderr)
    return list(earlier)


def _print_check(payload: dict[str, Any]) -> None:
    out = sys.stdout
    print(f"Project: {payload['project']}", file=out)
    print(f"Pathway: {payload['label']}", file=out)
    checks = payload["checks"]
    failed = [c for c in checks if not c["passed"]]
    print(
        f"\nChecks: {len(checks) - len(failed)} passed, {len(failed)} failed",
        file=out,
    )
    for c in checks:
        mark = "pass" if c["passed"] else ("FAIL" if c["severity"] == "blocking" else "warn")
        count = "" if c["passed"] else f"  [{c['count']:,}]"
        print(f"  {mark:4}  {c['name']} ({c['rule']}){count}", file=out)
    if payload["failures"]:
        print("\nWhat failed and how to fix it:", file=out)
        for f in payload["failures"]:
            print(f"  - {f['sentence']}", file=out)
    print("\nRows:", file=out)
    for table, r in payload["rows"].items():
        inp = "-" if r["input"] is None else f"{r['input']:,}"
        print(
            f"  {table}: {inp} in, {r['released']:,} released, {r['suppressed']:,} suppressed",
            file=out,
        )
    risk = payload["risk"]
    if risk is None:
        print("\nResidual risk: no quasi-identifier in the released person table.", file=out)
    else:
        print(
            f"\nResidual risk on {', '.join(risk['quasi_identifiers'])} "
            f"({risk['rows']:,} persons):",
            file=out,
        )
        print(
            f"  k = {risk['k']}; {risk['classes']:,} classes; {risk['lone']:,} lone records; "
            f"{risk['below_k']:,} records in classes below {risk['k_target']}",
            file=out,
        )
        print(
            f"  prosecutor risk: max {risk['prosecutor_max']:.4f}, "
            f"mean {risk['prosecutor_mean']:.4f}",
            file=out,
        )
    scan = payload["scan"]
    if scan is None:
        print("\nFree-text scan: no free-text column.", file=out)
    else:
        kinds = ", ".join(f"{k} {n:,}" for k, n in scan["hits_by_kind"].items()) or "none"
        print(
            f"\nFree-text scan of {', '.join(scan['columns_scanned'])}: {scan['hits']:,} "
            f"possible identifiers in {scan['rows_with_hits']:,} of {scan['notes']:,} notes "
            f"({kinds}).",
            file=out,
        )
        print(f"  {scan['disclaimer']}", file=out)
    earlier = payload["earlier_releases"]
    if earlier:
        last = earlier[-1]
        print(
            f"\nEarlier releases of this project in the register: {len(earlier)}; the last on "
            f"{last['time_utc']} to {last['recipient'] or 'an unnamed recipient'} "
            f"(k = {last['k']}, {last['lone'] if last['lone'] is not None else '-'} lone "
            "records). Several releases of the same people can be linked: judge this one "
            "against them.",
            file=out,
        )
    cross = payload.get("cross_release")
    if cross:
        for w in cross["warnings"]:
            print(f"Warning (across releases): {w}", file=out)
    for w in payload["warnings"]:
        print(f"Warning: {w}", file=out)
    verdict = payload["verdict"]
    if verdict is not None:
        print(f"\nVerdict ({verdict['colour']}): {verdict['headline']}", file=out)
        print(f"  {verdict['paragraph']}", file=out)
        for step in verdict["next_steps"]:
            print(f"  Next: {step}", file=out)
    outcome = (
        "Every blocking check passed: `deid run` would write this release."
        if payload["passed"]
        else "A blocking check failed: `deid run` would refuse this release."
    )
    if payload["passed"] and payload["risk_acceptance_needed"]:
        outcome = (
            f"{payload['risk_acceptance_needed']} `deid run` writes it only with "
            '--accept-risk "REASON".'
        )
    print(f"\n{outcome} Nothing was written.", file=out)


# ---------------------------------------------------------------- commands


def run_check(args: argparse.Namespace) -> int:
    bar = progress_bar(quiet=args.json)
    try:
        project, problems, result = _review(args.project, scan=True, bar=bar)
    finally:
        if bar is not None:
            bar.finish()
    payload = check_payload(args.project, project, problems, result)
    if args.json:
        print_json(payload, ensure_ascii=True)
    else:
        _print_check(payload)
        said = [
            m
            for o in result.verification.outcomes
            if not o.passed and isinstance(o.detail, dict)
            for m in o.detail.get("messages", ())
        ]
        if said:
            print("\nWhat the failed checks found:", file=sys.stdout)
            for message in said:
                print(f"  - {message}", file=sys.stdout)
    return 0 if result.passed else EXIT_CHECK_FAILED


def run_run(args: argparse.Namespace) -> int:
    bar = progress_bar(quiet=args.json)
    try:
        return _run(args, bar)
    finally:
        if bar is not None:
            bar.finish()


def _run(args: argparse.Namespace, bar: ProgressBar | None) -> int:
    from deid_desktop.core import engine

    project, _problems, result = _review(
        args.project,
        scan=None,
        bar=bar,
        end=0.8,
        register=args.register,
        held_back=args.crosswalk_out,
    )
    meta = project.export
    overrides = {
        k: getattr(args, k)
        for k in ("purpose", "recipient", "retention", "dua")
        if getattr(args, k) is not None
    }
    formats = tuple(dict.fromkeys((*meta.formats, *(("xlsx",) if args.xlsx else ()))))
    meta = replace(meta, **overrides, formats=formats)
    why = result.risk_acceptance_needed if result.passed else None
    if why and not (args.accept_risk or "").strip():
        if bar is not None:
            bar.finish()
        print(
            f'deid: {why} Nothing was written.\nRun again with --accept-risk "REASON" to '
            "accept it, or raise k first (deid set PROJECT risk.age_bands=... / "
            "risk.suppress_below_k=true).",
            file=sys.stderr,
        )
        return EXIT_CHECK_FAILED
    record = engine.export(
        project,
        args.project,
        result,
        out_dir=args.out,
        crosswalk_dir=args.crosswalk_out,
        meta=meta,
        register_path=args.register,
        overwrite=args.overwrite,
        accept_risk=args.accept_risk,
        progress=_span(bar, 0.8, 1.0),
    )
    for note in record.recovered:  # leftovers of an interrupted export, removed
        print(f"deid: {note}", file=sys.stderr)
    payload = {
        "schema": JSON_SCHEMA,
        "out": str(record.out_dir),
        "files": [str(p) for p in record.files],
        "crosswalk": None if record.crosswalk_dir is None else str(record.crosswalk_dir),
        "crosswalk_files": [str(p) for p in record.crosswalk_files],
        "record": str(record.record_path),
        "register": str(record.register_path),
        "time_utc": record.record["time_utc"],
        "label": record.record["label"],
        "verdict": record.record.get("verdict"),
    }
    if args.json:
        print_json(payload, ensure_ascii=True)
        return 0
    print(f"Release written ({payload['label']}):")
    if payload["verdict"]:
        print(f"  Verdict: {payload['verdict']['headline']}")
        print(f"  Access model that fits: {payload['verdict']['access_model']}")
    for p in payload["files"]:
        print(f"  {p}")
    if payload["crosswalk_files"]:
        print("Crosswalk written apart (keep it apart, do not disclose):")
        for p in payload["crosswalk_files"]:
            print(f"  {p}")
    print(f"Export record: {payload['record']}")
    print(f"Register: {payload['register']}")
    return 0
