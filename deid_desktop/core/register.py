"""The local register: one JSON line per export, so a later release can be judged
against what already went out (same recipient, overlapping quasi-identifiers, k).

Location: the ``DEID_REGISTER`` environment variable if set, else
``platformdirs.user_data_dir("deid-desktop")/register.jsonl``; callers may pass a path.
Entries are export records: counts, hashes, parameters - never a data value or the salt.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

from deid_desktop.core.errors import InputError

REGISTER_ENV = "DEID_REGISTER"
REGISTER_FILE = "register.jsonl"


def default_register_path() -> Path:
    """Where the register lives unless a caller says otherwise."""
    env = os.environ.get(REGISTER_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("deid-desktop", appauthor=False)) / REGISTER_FILE


def resolve_register_path(path: Path | None) -> Path:
    return Path(path).expanduser() if path is not None else default_register_path()


def register_line(entry: Mapping[str, object]) -> bytes:
    """One entry as a single JSON line (sorted keys, ASCII-safe, no embedded newline)."""
    return (json.dumps(entry, sort_keys=True, ensure_ascii=True, default=str) + "\n").encode()


def append_register(path: Path, entry: Mapping[str, object]) -> None:
    """Append ``entry`` as one line, durably (one write in append mode, then fsync).

    A line is written with a single ``write`` on an O_APPEND descriptor, so two exports
    finishing at once cannot interleave inside a line on a local file system.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = register_line(entry)
    # Repair a torn last line left by a crash, so the new entry starts on its own line.
    needs_newline = False
    if path.exists() and path.stat().st_size > 0:
        with open(path, "rb") as fh:
            fh.seek(-1, os.SEEK_END)
            needs_newline = fh.read(1) != b"\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (b"\n" if needs_newline else b"") + line)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_register(path: Path | None = None) -> list[dict[str, object]]:
    """Every entry, oldest first. A missing register is empty.

    A malformed line in the middle is an ``InputError`` naming the line; a torn last line
    (an export interrupted while appending) is skipped.
    """
    p = resolve_register_path(path)
    if not p.exists():
        return []
    lines = p.read_bytes().split(b"\n")
    entries: list[dict[str, object]] = []
    last = max((i for i, raw in enumerate(lines) if raw.strip()), default=-1)
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            if i == last:
                break
            raise InputError(
                "The register has a damaged line.",
                file=p.name,
                row=i + 1,
                hint="Restore the register from a backup or remove that line.",
            ) from None
        if not isinstance(obj, dict):
            raise InputError(
                "The register has a line that is not an entry.", file=p.name, row=i + 1
            )
        entries.append(obj)
    return entries


def _part(entry: dict[str, object], key: str) -> dict[str, object]:
    value = entry.get(key)
    return value if isinstance(value, dict) else {}


def earlier_releases(project_id: str, path: Path | None = None) -> list[dict[str, object]]:
    """What already went out from this project, oldest first: one short line per export.

    Time, pathway, recipient, purpose, the quasi-identifiers and k / lone records measured
    then, and where the release went - so a new release can be judged against them.
    """
    out: list[dict[str, object]] = []
    for entry in read_register(path):
        if _part(entry, "project").get("id") != project_id:
            continue
        meta, risk = _part(entry, "meta"), _part(entry, "risk")
        out.append(
            {
                "time_utc": entry.get("time_utc"),
                "pathway": entry.get("pathway"),
                "recipient": meta.get("recipient", ""),
                "purpose": meta.get("purpose", ""),
                "quasi_identifiers": risk.get("quasi_identifiers", []),
                "k": risk.get("k"),
                "lone": risk.get("lone"),
                "folder": _part(entry, "outputs").get("folder"),
            }
        )
    return out
