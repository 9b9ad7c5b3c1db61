"""`deid`: the same engine as the desktop app, headless.

Exit codes: 0 ok, 1 internal error, 2 usage, 3 a release check failed (nothing written),
4 bad input or an output that could not be written (nothing committed), 130 cancelled or
interrupted, 141 the reader of the output went away (``deid tags ... | head -1``; the
command's own work, if any, was done as usual).
Each subcommand lives in its own module under deid_desktop/cli/ and exposes
``register(subparsers)``; the module list below is the only place that names them.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from deid_desktop.buildinfo import VersionAction
from deid_desktop.core.errors import Cancelled, DeidError, unexpected_error_summary
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
    "words_cmds",
)

EXIT_OK, EXIT_USAGE, EXIT_CHECK_FAILED, EXIT_BAD_INPUT = 0, 2, 3, 4
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a pipe closed early


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with a plain message, as argparse does
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"deid: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="deid",
        description="De-identify a clinical extract from a saved project, headless.",
    )
    parser.add_argument("--version", action=VersionAction, program="deid")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(f"deid_desktop.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one `deid` command; the exit code. Never lets a traceback or a value out."""
    try:
        code = _dispatch(argv)
        sys.stdout.flush()  # a closed pipe shows here, while it can still be handled
        return code
    except BrokenPipeError:
        return _output_closed()


def _output_closed() -> int:
    """The reader of stdout went away (``| head -1``): stop quietly. What the command
    wrote to files stays as written; only its printed output was cut short."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the final flush at exit cannot fail
        os.close(devnull)
    except (OSError, ValueError):  # pragma: no cover - stdout without a descriptor
        pass
    return EXIT_BROKEN_PIPE


def _dispatch(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    recover_pending(lambda note: print(f"deid: {note}", file=sys.stderr))  # crashed exports
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        raise
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
        log.error("unexpected error: %s", unexpected_error_summary(exc))
        print(
            f"deid: an unexpected internal error occurred ({type(exc).__name__}). "
            "Nothing was written. Please report it with the command you ran.",
            file=sys.stderr,
        )
        return 1


def entry() -> NoReturn:
    """The `deid` program: ``main``, then a prompt exit.

    The process ends with ``os._exit`` once Python's own exit handlers have run and the
    output is flushed. Interpreter teardown is skipped on purpose: native worker threads
    (Arrow's pools) still alive at that point can abort the process (SIGABRT,
    "terminate called without an active exception"), turning a finished command into
    exit 134. Everything the command writes is already closed and renamed by then.
    """
    code = main()
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
