"""`deid intruder`: attack a project's release with the source's own demographics."""

from __future__ import annotations

import argparse
from pathlib import Path

from deid_desktop.cli.output import print_json
from deid_desktop.cli.risk_scan_cmds import _columns, _load_project
from deid_desktop.core.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    intruder = subparsers.add_parser(
        "intruder",
        help="link the release back to the source's demographics, as an intruder would",
        description="A motivated-intruder test on this machine: the source extract's own "
        "demographics, generalized as the release generalizes them, are linked to the "
        "release on the quasi-identifiers. Prints how many persons are re-identified with "
        "certainty, how many people each hides among, and the expected correct matches. "
        "Counts only; nothing is written.",
    )
    intruder.add_argument("project", help="a project (.deid.json)")
    intruder.add_argument(
        "--on",
        help="the columns the intruder knows, as released (comma-separated; default: the "
        "quasi-identifiers risk is measured on)",
    )
    intruder.add_argument("--json", action="store_true", help="machine-readable output")
    intruder.set_defaults(func=run_intruder)


def run_intruder(args: argparse.Namespace) -> int:
    from deid_desktop import secrets
    from deid_desktop.core import engine
    from deid_desktop.core.attack import motivated_intruder
    from deid_desktop.core.constants import PROJECT_SUFFIX

    path = Path(args.project)
    if not path.name.endswith(PROJECT_SUFFIX):
        raise UsageError(
            "deid intruder reads a project (.deid.json).",
            hint="Create one with deid init, then run deid intruder PROJECT.deid.json.",
        )
    project, extract = _load_project(path)
    salt = secrets.salt_for_project(project)
    review = engine.review(project, extract, salt=salt, scan=False)
    report = motivated_intruder(project, extract, review, on=_columns(args.on), salt=salt)
    if args.json:
        print_json(report.to_dict())
        return 0
    hidden = ", ".join(f"{label}: {n:,}" for label, n in report.hidden_among.items() if n)
    print(
        f"linked on {', '.join(report.on)}: {report.certain:,} of {report.targets:,} persons "
        f"re-identified with certainty; expected correct matches "
        f"{report.expected_matches:,.1f}\nhides among (look-alikes: persons): {hidden}"
    )
    return 0
