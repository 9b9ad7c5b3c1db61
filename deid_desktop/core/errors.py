"""Errors the user sees. Each says what is wrong in plain words and what to do.

No message may carry a value from the data: name files, columns, row numbers and
counts, never cell contents.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


class DeidError(Exception):
    """Base of every error meant for a person. ``exit_code`` is the CLI's exit status."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\n{self.hint}" if self.hint else self.message


class UsageError(DeidError):
    """The command or request itself is wrong (CLI exit 2)."""

    exit_code = 2


class CheckFailed(DeidError):
    """A blocking release check failed; nothing was written (CLI exit 3)."""

    exit_code = 3


class InputError(DeidError):
    """An input file (extract, census table, project) cannot be used as it is (CLI exit 4).

    ``file``, ``column`` and ``row`` locate the problem; ``row`` is the 1-based line
    number in the file as a spreadsheet or text editor shows it (header = line 1).
    """

    exit_code = 4

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        column: str | None = None,
        row: int | None = None,
        hint: str = "",
    ) -> None:
        where = []
        if file:
            where.append(f"file {file}")
        if column:
            where.append(f"column '{column}'")
        if row is not None:
            where.append(f"line {row}")
        full = f"{message} ({', '.join(where)})" if where else message
        super().__init__(full, hint=hint)
        self.file = file
        self.column = column
        self.row = row


class ProjectError(InputError):
    """A project file is malformed, tampered with, or does not match its inputs (exit 4)."""


class KeyringUnavailable(DeidError):
    """No usable OS keyring; the linkable pathway stops (never a plaintext fallback)."""

    exit_code = 4


class Cancelled(Exception):
    """The user cancelled a long operation. Nothing half-written is left behind."""


@dataclass(frozen=True)
class Problem:
    """A non-fatal finding (a warning) or one of several collected errors. No data values."""

    message: str
    file: str | None = None
    column: str | None = None
    rows: tuple[int, ...] = ()
    severity: str = "warning"  # "warning" | "error"


class OutputError(DeidError):
    """An output could not be written (a full disk, no permission); nothing was committed
    (CLI exit 4). The message names the folder."""

    exit_code = 4


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """ "Did you mean 'x'? " for a mistyped name (a column, a key), else "" - names
    from the project or the file's header only, never a value of the data."""
    import difflib

    options = [str(c) for c in choices]
    lowered = {c.lower(): c for c in options}
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return f"Did you mean '{lowered[close[0]]}'? " if close else ""


def unexpected_error_summary(exc: BaseException) -> str:
    """An unexpected error as the log may show it: its type and where it happened (the
    last five file:line frames) - never its text, which could hold a value from the data.
    A missing module is named: a packaging fault, and a name from the program."""
    import traceback
    from pathlib import Path

    frames = traceback.extract_tb(exc.__traceback__)
    where = " < ".join(reversed([f"{Path(f.filename).name}:{f.lineno}" for f in frames][-5:]))
    missing = f" (module {exc.name})" if isinstance(exc, ModuleNotFoundError) else ""
    return f"{type(exc).__name__}{missing} at {where or 'an unknown place'}"
