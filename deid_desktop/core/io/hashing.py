"""SHA-256 of input files, streamed; the source file is opened read-only and never written."""

from __future__ import annotations

import hashlib
from pathlib import Path

from deid_desktop.core.errors import ProjectError

CHUNK = 1 << 20  # 1 MiB


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of ``path``, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_bytes(data: bytes | bytearray | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def changed_file_error(file: str) -> ProjectError:
    """The error for an input whose bytes differ from the ones the project was saved with."""
    return ProjectError(
        f"The file {file} has changed since the project was saved (SHA-256 differs)",
        file=file,
        hint="Re-point the table to the right file, or re-tag it if the change is expected.",
    )
