"""`deid`: the same engine as the desktop app, headless.

Exit codes: 0 ok, 2 usage, 3 a release check failed (nothing written), 4 bad input or an
output that could not be written (nothing committed).
Each subcommand lives in its own module under deid_desktop/cli/ and exposes
``register(subparsers)``; the module list below is the only place that names them.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from deid_desktop import __version__
from deid_desktop.core.errors import Cancelled, DeidError
from deid_desktop.core.transaction import recover_pending

log = logging.getLogger("deid")

#: Subcommand modules, in the order `deid --help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "project_cmds",
    "settings_cmds",
    "risk_scan_cmds",
    "intruder_cmds",
    "release_cmds",
    "salt_cmds",
    "generalize_cmds",
)

EXIT_OK, EXIT_USAGE, EXIT_CHECK_FAILED, EXIT_BAD_INPUT = 0, 2, 3, 4


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with a plain message, as argparse does
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"deid: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="deid",
        description="De-identify a clinical extract from a saved project, headless.",
    )
    parser.add_argument("--version", action="version", version=f"deid {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(f"deid_desktop.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    recover_pending(lambda note: print(f"deid: {note}", file=sys.stderr))  # crashed exports
    try:
        return int(args.func(args) or 0)
    except DeidError as exc:
        print(f"deid: {exc}", file=sys.stderr)
        return exc.exit_code
    except Cancelled:
        print("deid: cancelled; nothing was written.", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("deid: interrupted; nothing was written.", file=sys.stderr)
        return 130
    except Exception as exc:  # never a traceback, never a data value
        log.error("unexpected error: %s", type(exc).__name__)
        print(
            f"deid: an unexpected internal error occurred ({type(exc).__name__}). "
            "Nothing was written. Please report it with the command you ran.",
            file=sys.stderr,
        )
        return 1
