"""The local register: one JSON line per export, so a later release can be judged
against what already went out (same recipient, overlapping quasi-identifiers, k).

Location: the ``DEID_REGISTER`` environment variable if set, else
``platformdirs.user_data_dir("deid-desktop")/register.jsonl``; callers may pass a path.
Entries are export records: counts, hashes, parameters - never a data value or the salt.

Format (append-safe): each line is one JSON object, the entry's own keys plus
``"_txn"`` (the export's transaction id) and ``"_sha256"``: the SHA-256 of the line's
canonical JSON (sorted keys, ASCII) without ``"_sha256"``. A line that does not parse, or
whose checksum does not match (a torn or altered line), is reported by its line number
and skipped; the lines after it are read as usual. Lines written before the checksum
existed (no ``"_sha256"``) are read as they are.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

REGISTER_ENV = "DEID_REGISTER"
REGISTER_FILE = "register.jsonl"
CHECKSUM_KEY = "_sha256"
TXN_KEY = "_txn"


def default_register_path() -> Path:
    """Where the register lives unless a caller says otherwise."""
    env = os.environ.get(REGISTER_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("deid-desktop", appauthor=False)) / REGISTER_FILE


def resolve_register_path(path: Path | None) -> Path:
    return Path(path).expanduser() if path is not None else default_register_path()


def _canonical(obj: Mapping[str, object]) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=True)


def _checksum(obj: Mapping[str, object]) -> str:
    return hashlib.sha256(_canonical(obj).encode("ascii")).hexdigest()


def register_line(entry: Mapping[str, object], txn: str = "") -> bytes:
    """One entry as a single ASCII JSON line with its transaction id and checksum."""
    plain = json.loads(json.dumps(dict(entry), ensure_ascii=True, default=str))
    plain.pop(CHECKSUM_KEY, None)
    if txn:
        plain[TXN_KEY] = txn
    plain[CHECKSUM_KEY] = _checksum(plain)
    return (_canonical(plain) + "\n").encode("ascii")


def append_line(path: Path, line: bytes) -> None:
    """Append one prepared line durably: a single write on an O_APPEND descriptor, fsync.

    A torn last line left by a crash is ended first, so the new entry starts on its own
    line. If the write or the fsync fails (a full disk), the file is cut back to its
    earlier length, so no partial entry stays behind, and the error propagates.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size > 0 and os.lseek(fd, size - 1, os.SEEK_SET) >= 0 and os.read(fd, 1) != b"\n":
            line = b"\n" + line
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
                os.fsync(fd)
            raise
    finally:
        os.close(fd)


def append_register(path: Path, entry: Mapping[str, object], txn: str = "") -> None:
    """Append ``entry`` as one checksummed line, durably (see :func:`append_line`)."""
    append_line(path, register_line(entry, txn))


@dataclass(frozen=True)
class DamagedLine:
    """A register line that could not be read: its 1-based number and why (no content)."""

    line: int
    reason: str


class RegisterEntries(list[dict[str, object]]):
    """The entries read, oldest first, and ``damaged``: the lines skipped (none if clean)."""

    damaged: tuple[DamagedLine, ...] = ()

    def damage_note(self) -> str:
        """A plain sentence about the damaged lines, or "" when there are none."""
        if not self.damaged:
            return ""
        nums = ", ".join(str(d.line) for d in self.damaged[:10])
        more = "" if len(self.damaged) <= 10 else f" and {len(self.damaged) - 10} more"
        n = len(self.damaged)
        return (
            f"The register has {n} damaged line{'s' if n != 1 else ''} (line "
            f"{nums}{more}: torn by an interrupted write or altered); "
            f"{'they were' if n != 1 else 'it was'} skipped and the other entries were read."
        )


def _parse(raw: bytes) -> dict[str, object] | str:
    """The entry on one line, or why it cannot be read."""
    try:
        obj = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return "not a complete entry"
    if not isinstance(obj, dict):
        return "not an entry"
    if CHECKSUM_KEY in obj:
        claimed = obj.pop(CHECKSUM_KEY)
        if claimed != _checksum(obj):
            return "checksum does not match"
    obj.pop(TXN_KEY, None)
    return obj


def read_register(path: Path | None = None) -> RegisterEntries:
    """Every entry, oldest first (a missing register is empty).

    A torn or altered line is skipped and listed in ``.damaged`` (line number and
    reason); reading goes on with the next line. Never a half-read entry.
    """
    p = resolve_register_path(path)
    out = RegisterEntries()
    if not p.exists():
        return out
    damaged: list[DamagedLine] = []
    for i, raw in enumerate(p.read_bytes().split(b"\n")):
        if not raw.strip():
            continue
        got = _parse(raw)
        if isinstance(got, str):
            damaged.append(DamagedLine(i + 1, got))
        else:
            out.append(got)
    out.damaged = tuple(damaged)
    return out


def has_transaction(path: Path, txn: str) -> bool:
    """Whether a complete, intact line of export ``txn`` is in the register."""
    p = Path(path)
    if not txn or not p.exists():
        return False
    needle = f'"{TXN_KEY}": "{txn}"'.encode("ascii")
    for raw in p.read_bytes().split(b"\n"):
        if needle in raw:
            try:
                obj = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(obj, dict) and obj.pop(CHECKSUM_KEY, None) == _checksum(obj):
                return True
    return False


def _part(entry: dict[str, object], key: str) -> dict[str, object]:
    value = entry.get(key)
    return value if isinstance(value, dict) else {}


def earlier_releases(project_id: str, path: Path | None = None) -> RegisterEntries:
    """What already went out from this project, oldest first: one short line per export.

    Time, pathway, recipient, purpose, the quasi-identifiers and k / lone records measured
    then, and where the release went - so a new release can be judged against them.
    ``.damaged`` lists the register lines that could not be read.
    """
    out = RegisterEntries()
    entries = read_register(path)
    out.damaged = entries.damaged
    for entry in entries:
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
