"""What the `deid` subcommands print the same way: --json documents on stdout and the
project's input problems on stderr. Not a subcommand module."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

from deid_desktop.core.errors import Problem


def print_json(data: dict[str, Any], *, ensure_ascii: bool = False) -> None:
    """A --json document on stdout: sorted keys, indented, non-ASCII kept as is unless
    ``ensure_ascii`` (`deid check` / `deid run` escape it)."""
    json.dump(data, sys.stdout, sort_keys=True, indent=2, ensure_ascii=ensure_ascii)
    sys.stdout.write("\n")


def warn_problems(problems: Iterable[Problem]) -> None:
    """One `deid: SEVERITY: MESSAGE (FILE)` line on stderr per problem."""
    for p in problems:
        where = f" ({p.file})" if p.file else ""
        print(f"deid: {p.severity}: {p.message}{where}", file=sys.stderr)
