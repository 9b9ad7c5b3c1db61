"""Header checks shared by the CSV and XLSX readers: blank and duplicate column names."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from deid_desktop.core.errors import InputError


def column_letter(position: int) -> str:
    """1-based column position -> spreadsheet letters (1 -> A, 27 -> AA)."""
    letters = ""
    while position > 0:
        position, rem = divmod(position - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def check_header(names: Sequence[str], *, file: str) -> None:
    """Raise ``InputError`` for blank or repeated column names (header = line 1)."""
    blank = [i + 1 for i, name in enumerate(names) if not name.strip()]
    if blank:
        where = ", ".join(f"{p} ({column_letter(p)})" for p in blank[:10])
        more = f" and {len(blank) - 10} more" if len(blank) > 10 else ""
        raise InputError(
            f"The header has {len(blank)} blank column name(s), at position {where}{more}",
            file=file,
            row=1,
            hint="Give every column a name in the first row, or delete empty columns.",
        )
    repeated = [name for name, n in Counter(names).items() if n > 1]
    if repeated:
        shown = ", ".join(f"'{name}'" for name in repeated[:10])
        raise InputError(
            f"The header repeats column name(s) {shown}",
            file=file,
            row=1,
            hint="Each column needs its own name; rename the repeated ones in the first row.",
        )


def header_warnings(names: Sequence[str]) -> list[str]:
    """Notes on names that are legal but easy to get wrong (spaces at either end)."""
    padded = [name for name in names if name != name.strip()]
    if not padded:
        return []
    shown = ", ".join(f"'{name}'" for name in padded[:10])
    return [f"Column name(s) {shown} begin or end with spaces; they are kept exactly as written."]
