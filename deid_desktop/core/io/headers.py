"""Header checks shared by the CSV and XLSX readers: blank and duplicate column names,
and a first row that holds data rather than column names (a file without a header)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import pandas as pd

from deid_desktop.core.errors import InputError
from deid_desktop.core.io.date_shapes import finer_than_year
from deid_desktop.core.tagging.namelists import all_names, fold

_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d+)?|[.,]\d+)(?:e[+-]?\d+)?", re.IGNORECASE)
#: A record number: a few letters, then four or more digits (MRN0012345, A-123456).
_ID = re.compile(r"[A-Za-z]{0,4}[-_#/ ]?\d{4,}[A-Za-z]?")
_PHONE = re.compile(r"\(?\d{3}\)?[-. ]?\d{3}[-. ]\d{4}")
_PROPER = re.compile(r"[A-Z][a-z']+(?:-[A-Z][a-z']+)?")
#: Census names that are also everyday column names.
_COLUMN_WORDS = frozenset(
    " ".join(
        (
            "race ward weight height age sex status city state county code date name note",
            "notes visit rank price cost king long short white black brown green gray grey",
            "day may june april august will case type class number mark bill page chase",
            "rose hope grant major field lane street rice park hall english young gender",
            "marital language religion comment site unit bed room floor dose route score",
            "level grade stage result value sample reason source center doctor nurse",
            "provider payer plan insurance person",
        )
    ).split()
)
NOT_A_HEADER_HINT = (
    "Add a row of column names at the top (for example mrn, birth_date, sex), or export "
    "the extract again with its header row."
)


def _data_kind(name: str) -> str | None:
    """What a header cell looks like when it looks like data, else ``None``."""
    text = name.strip()
    if not text:
        return None
    if _NUMBER.fullmatch(text):
        return "a number"
    if _ID.fullmatch(text) or _PHONE.fullmatch(text):
        return "a record number"
    return None


def looks_like_data(names: Sequence[str]) -> tuple[str, int] | None:
    """(what, 1-based position) of the first header cell that reads as data."""
    for position, name in enumerate(names, start=1):
        kind = _data_kind(name)
        if kind:
            return kind, position
    dates = finer_than_year(pd.Series(list(names), dtype="string[pyarrow]"))
    if dates.any():
        return "a date", int(dates.argmax()) + 1
    known = all_names()
    persons = [
        position
        for position, name in enumerate(names, start=1)
        if _PROPER.fullmatch(name.strip())
        and fold(name.strip()) in known
        and fold(name.strip()) not in _COLUMN_WORDS
    ]
    if len(persons) >= 2:
        return "a person's name", persons[0]
    return None


def check_not_data(names: Sequence[str], *, file: str) -> None:
    """Refuse a first row that looks like data: the file has no header row, so the first
    person's values would become column names (and be written into every document)."""
    found = looks_like_data(names)
    if found is None:
        return
    kind, position = found
    raise InputError(
        "The first row looks like data, not a header: the file seems to have no row of "
        f"column names (column {position} ({column_letter(position)}) of the first row "
        f"holds what looks like {kind})",
        file=file,
        row=1,
        hint=NOT_A_HEADER_HINT,
    )


def column_letter(position: int) -> str:
    """1-based column position -> spreadsheet letters (1 -> A, 27 -> AA)."""
    letters = ""
    while position > 0:
        position, rem = divmod(position - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def check_header(names: Sequence[str], *, file: str) -> None:
    """Raise ``InputError`` for a first row that holds data, or blank or repeated column
    names (header = line 1)."""
    check_not_data(names, file=file)
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
