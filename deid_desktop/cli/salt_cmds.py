"""`deid salt ...` and `deid pathway ...`: the linkable release's salt and the pathway.

- ``deid salt status PROJECT`` - whether this computer's keyring holds the project's
  salt, its fingerprint and the keyring used. Never the salt.
- ``deid salt create PROJECT`` - make a new salt (refuses when one exists).
- ``deid salt rotate PROJECT --yes`` - replace it; breaks linkage with earlier releases.
- ``deid salt export PROJECT --out FILE`` - escrow: the salt encrypted with a passphrase.
- ``deid salt import PROJECT FILE [--replace --yes]`` - store an escrowed salt.
- ``deid pathway PROJECT safe-harbor|linkable|limited-data-set [options]`` - choose
  the pathway and its parameters, and save the project.

The passphrase is never an argument (it would sit in the shell history and the process
list): ``--passphrase-file FILE`` (first line), else the environment variable
``DEID_PASSPHRASE`` (for unattended runs), else a prompt that does not echo.
"""

from __future__ import annotations

import argparse
import datetime as dt
import getpass
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid_desktop.cli.output import print_json
from deid_desktop.core.constants import (
    MAX_KEY_LENGTH,
    MAX_OFFSET_DAYS,
    MIN_KEY_LENGTH,
    ROTATE_WARNING,
)
from deid_desktop.core.errors import DeidError, InputError, KeyringUnavailable, UsageError
from deid_desktop.core.model import ExportMeta, LinkableOptions, OffsetMode, Project
from deid_desktop.core.pathways.registry import all_specs, spec_by_cli_name
from deid_desktop.core.project import load_project, save_project

if TYPE_CHECKING:  # keyring and cryptography load when a command runs, not for `deid --help`
    from deid_desktop.secrets import SaltStatus

PASSPHRASE_ENV = "DEID_PASSPHRASE"

_PASS_HELP = (
    f"read the passphrase from the first line of FILE (else ${PASSPHRASE_ENV}, else a prompt)"
)


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    salt = subparsers.add_parser(
        "salt",
        help="the linkable release's secret salt, kept in the OS keyring",
        description="Manage the project's salt: 32 random bytes kept in this computer's "
        "keyring (never in a file), from which link keys and date offsets are derived. "
        "Only its fingerprint is ever shown.",
    )
    actions = salt.add_subparsers(dest="salt_action", metavar="ACTION", required=True)

    def action(name: str, help_text: str, description: str) -> argparse.ArgumentParser:
        p = actions.add_parser(name, help=help_text, description=description)
        p.add_argument("project", type=Path, help="the project file (.deid.json)")
        p.add_argument("--json", action="store_true", help="machine-readable output")
        return p

    status = action(
        "status",
        "does this computer hold the project's salt?",
        "Show whether the keyring holds the project's salt, its fingerprint and the keyring.",
    )
    status.set_defaults(func=run_status)
    create = action(
        "create",
        "make the project's salt",
        "Make a new salt for the project and keep it in the keyring. Refuses if one exists.",
    )
    create.set_defaults(func=run_create)
    rotate = action(
        "rotate",
        "replace the salt (breaks linkage with earlier releases)",
        ROTATE_WARNING,
    )
    rotate.add_argument("--yes", action="store_true", help="confirm the rotation")
    rotate.set_defaults(func=run_rotate)
    export = action(
        "export",
        "write the salt to a passphrase-encrypted escrow file",
        "Write the salt, encrypted with a passphrase (Fernet, scrypt key), to a new file, "
        "to carry it to another workstation. Keep the passphrase apart from the file.",
    )
    export.add_argument("--out", type=Path, required=True, metavar="FILE", help="new file")
    export.add_argument("--passphrase-file", type=Path, metavar="FILE", help=_PASS_HELP)
    export.set_defaults(func=run_export)
    imp = action(
        "import",
        "store an escrowed salt in this computer's keyring",
        "Decrypt an escrow file written by 'deid salt export' and keep the salt in the "
        "keyring for this project.",
    )
    imp.add_argument("file", type=Path, metavar="FILE", help="the escrow file")
    imp.add_argument("--passphrase-file", type=Path, metavar="FILE", help=_PASS_HELP)
    imp.add_argument("--replace", action="store_true", help="replace a different salt (with --yes)")
    imp.add_argument("--yes", action="store_true", help="confirm --replace")
    imp.set_defaults(func=run_import)

    pathway = subparsers.add_parser(
        "pathway",
        help="choose the release pathway and its options",
        description="Set the project's pathway and its options, and save it; the output "
        "gives the label every release of this pathway carries. Then run `deid check` / "
        "`deid run`.",
    )
    pathway.add_argument("project", type=Path, help="the project file (.deid.json)")
    specs = all_specs()  # light modules: the builders and pandas load when a release is built
    pathway.add_argument(
        "pathway",
        choices=[s.cli_name for s in specs],
        metavar="PATHWAY",
        help="one of: " + "; ".join(f"{s.cli_name} ({s.label})" for s in specs),
    )
    pathway.add_argument(
        "--offset-days",
        type=int,
        metavar="N",
        help="linkable: each person's dates move by 1 to N days, earlier or later (180)",
    )
    pathway.add_argument(
        "--offset-mode",
        choices=[m.value for m in OffsetMode],
        help="linkable: keyed (same shift in every later extract; default) or random "
        "(seeded per release)",
    )
    pathway.add_argument(
        "--key-length",
        type=int,
        metavar="N",
        help=f"linkable: link key length in hex characters ({MIN_KEY_LENGTH}-{MAX_KEY_LENGTH}; 16)",
    )
    pathway.add_argument(
        "--zip-rule", choices=["zip3", "drop"], help="linkable: ZIP3 allow-list or no ZIP"
    )
    pathway.add_argument(
        "--age-reference",
        metavar="index|YYYY-MM-DD",
        help="Safe Harbor and linkable: ages (for '90+') are taken at each person's index "
        "date ('index', the default) or at this date",
    )
    pathway.add_argument("--dua", metavar="REF", help="data use agreement reference")
    pathway.add_argument("--json", action="store_true", help="machine-readable output")
    pathway.set_defaults(func=run_pathway)


# ---------------------------------------------------------------- helpers


def _project(path: Path) -> Project:
    return load_project(path)


def _emit(args: argparse.Namespace, data: dict[str, Any], lines: list[str]) -> None:
    if getattr(args, "json", False):
        print_json(data)
    else:
        for line in lines:
            print(line)


def _status_data(project: Project, status: SaltStatus) -> dict[str, Any]:
    return {
        "project_id": project.project_id,
        "exists": status.exists,
        "fingerprint": status.fingerprint,
        "backend": status.backend_name,
    }


def _status_lines(status: SaltStatus) -> list[str]:
    if not status.exists:
        return [
            f"No salt for this project in the keyring ({status.backend_name}).",
            "Create one with 'deid salt create PROJECT', or import the escrowed salt of "
            "earlier releases with 'deid salt import PROJECT FILE'.",
        ]
    return [
        f"Salt present; fingerprint {status.fingerprint} (keyring: {status.backend_name}).",
    ]


def read_passphrase(path: Path | None, *, confirm: bool) -> str:
    """The escrow passphrase: --passphrase-file, else $DEID_PASSPHRASE, else a prompt."""
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            raise InputError("The passphrase file cannot be read", file=path.name) from None
        lines = text.splitlines()
        phrase = lines[0] if lines else ""
        if not phrase:
            raise InputError("The passphrase file is empty", file=path.name)
        return phrase
    env = os.environ.get(PASSPHRASE_ENV)
    if env:
        return env
    if not sys.stdin.isatty():
        raise UsageError(
            "No passphrase given.",
            hint=f"Use --passphrase-file FILE or set {PASSPHRASE_ENV}; the passphrase is "
            "never taken on the command line.",
        )
    phrase = getpass.getpass("Escrow passphrase: ")
    if confirm and getpass.getpass("Same passphrase again: ") != phrase:
        raise UsageError("The two passphrases differ; nothing was written.")
    return phrase


# ---------------------------------------------------------------- salt actions


def run_status(args: argparse.Namespace) -> int:
    from deid_desktop import secrets

    project = _project(args.project)
    status = secrets.salt_status(project.project_id)
    _emit(args, _status_data(project, status), _status_lines(status))
    return 0


def run_create(args: argparse.Namespace) -> int:
    from deid_desktop import secrets

    project = _project(args.project)
    status = secrets.create_salt(project.project_id)
    _emit(
        args,
        _status_data(project, status),
        [
            f"Created the project's salt; fingerprint {status.fingerprint} "
            f"(keyring: {status.backend_name}).",
            "To make linkable releases on another workstation, escrow it with "
            "'deid salt export PROJECT --out FILE'.",
        ],
    )
    return 0


def run_rotate(args: argparse.Namespace) -> int:
    from deid_desktop import secrets

    project = _project(args.project)
    if args.yes:
        print(f"deid: warning: {ROTATE_WARNING}", file=sys.stderr)
    status = secrets.rotate_salt(project.project_id, confirm=bool(args.yes))
    _emit(
        args,
        _status_data(project, status),
        [f"Rotated the salt; new fingerprint {status.fingerprint}."],
    )
    return 0


def run_export(args: argparse.Namespace) -> int:
    from deid_desktop import secrets

    project = _project(args.project)
    secrets.get_salt(project.project_id)  # fail early (no keyring / no salt), before asking
    phrase = read_passphrase(args.passphrase_file, confirm=True)
    fp = secrets.export_salt(project.project_id, args.out, phrase)
    _emit(
        args,
        {"project_id": project.project_id, "fingerprint": fp, "file": str(args.out)},
        [
            f"Wrote the encrypted salt (fingerprint {fp}) to {args.out}.",
            "Keep the passphrase apart from the file; without it the file is useless, and "
            "with it anyone can link and un-shift this project's linkable releases.",
        ],
    )
    return 0


def run_import(args: argparse.Namespace) -> int:
    from deid_desktop import secrets

    project = _project(args.project)
    if args.replace and not args.yes:
        raise UsageError(
            "Replacing the project's salt breaks linkage with every release made with it.",
            hint="Confirm with --replace --yes.",
        )
    phrase = read_passphrase(args.passphrase_file, confirm=False)
    status = secrets.import_salt(
        project.project_id, args.file, phrase, replace=bool(args.replace and args.yes)
    )
    _emit(
        args,
        _status_data(project, status),
        [f"Imported the salt; fingerprint {status.fingerprint} (keyring: {status.backend_name})."],
    )
    return 0


# ---------------------------------------------------------------- pathway


def run_pathway(args: argparse.Namespace) -> int:
    from deid_desktop import secrets

    project = _project(args.project)
    spec = spec_by_cli_name(args.pathway)
    pathway = spec.id
    linkable = project.linkable
    if args.offset_days is not None:
        if not 1 <= args.offset_days <= MAX_OFFSET_DAYS:
            raise UsageError(
                f"--offset-days must be from 1 to {MAX_OFFSET_DAYS}.",
                hint="180 is the default: dates move by up to half a year either way.",
            )
        linkable = replace(linkable, offset_days=args.offset_days)
    if args.offset_mode is not None:
        linkable = replace(linkable, offset_mode=OffsetMode(args.offset_mode))
    if args.key_length is not None:
        if not MIN_KEY_LENGTH <= args.key_length <= MAX_KEY_LENGTH:
            raise UsageError(f"--key-length must be from {MIN_KEY_LENGTH} to {MAX_KEY_LENGTH}.")
        linkable = replace(linkable, key_length=args.key_length)
    if args.zip_rule is not None:
        linkable = replace(linkable, zip_rule=args.zip_rule)
    transform = project.transform
    if args.age_reference is not None:
        ref = args.age_reference.strip()
        if ref != "index":
            try:
                ref = dt.date.fromisoformat(ref).isoformat()
            except ValueError:
                raise UsageError(
                    "--age-reference must be 'index' or a date written YYYY-MM-DD."
                ) from None
        transform = replace(transform, age_reference=ref)
    export: ExportMeta = project.export
    if args.dua is not None:
        export = replace(export, dua=args.dua.strip())
    changed = replace(
        project, pathway=pathway, linkable=linkable, transform=transform, export=export
    )
    save_project(changed, args.project)

    lines = [f"Pathway: {spec.cli_name} - {spec.label}."]
    salt: dict[str, Any] | None = None
    if spec.options_type is LinkableOptions:
        lines.append(
            f"Dates move per person by 1 to {linkable.offset_days} days "
            f"({linkable.offset_mode.value}); link keys of {linkable.key_length} hex "
            f"characters; ZIP rule {linkable.zip_rule}."
        )
    if spec.needs_salt:
        try:
            status = secrets.salt_status(changed.project_id)
            salt = {"exists": status.exists, "fingerprint": status.fingerprint}
            lines += _status_lines(status)
        except KeyringUnavailable as exc:
            salt = {"exists": None, "keyring": "unavailable"}
            lines.append(f"warning: {exc}")
        except DeidError as exc:
            salt = {"exists": None, "keyring": "error"}
            lines.append(f"warning: {exc.message}")
    for problem in spec.preconditions(changed):
        lines.append(
            f"Before export: {problem.message} Set it with --dua REF here or on 'deid run'."
        )
    data: dict[str, Any] = {
        "pathway": pathway.value,
        "label": spec.label,
        "offset_days": linkable.offset_days,
        "offset_mode": linkable.offset_mode.value,
        "key_length": linkable.key_length,
        "zip_rule": linkable.zip_rule,
        "dua": export.dua,
        "age_reference": transform.age_reference,
        "salt": salt,
    }
    _emit(args, data, lines)
    return 0
