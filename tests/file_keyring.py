"""A keyring in a JSON file named by ``$DEID_TEST_KEYRING_FILE``, for tests that run
``deid`` in a fresh process (``python -m tests.file_keyring run ...``) and need the salt
the GUI test process created. Priority -1: never picked on its own; the app trusts only
OS keyrings, so each process trusts it explicitly (``tests.memory_keyring.trust``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import keyring
import keyring.backend

ENV = "DEID_TEST_KEYRING_FILE"


class FileKeyring(keyring.backend.KeyringBackend):
    priority = -1  # type: ignore[assignment]

    @property
    def _path(self) -> Path:
        return Path(os.environ[ENV])

    def _load(self) -> dict[str, str]:
        p = self._path
        return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}\n{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        store = self._load()
        store[f"{service}\n{username}"] = password
        self._path.write_text(json.dumps(store), encoding="utf-8")

    def delete_password(self, service: str, username: str) -> None:
        store = self._load()
        store.pop(f"{service}\n{username}", None)
        self._path.write_text(json.dumps(store), encoding="utf-8")


def trusted_name() -> str:
    return f"{FileKeyring.__module__}.{FileKeyring.__qualname__}"


def main(argv: list[str]) -> int:
    """``deid`` with this keyring trusted: ``python -m tests.file_keyring run PROJECT ...``
    (a fresh process; the app trusts only OS keyrings, so the test backend is added)."""
    from deid_desktop import secrets as salts
    from deid_desktop.cli import main as deid

    salts.SECURE_BACKENDS[trusted_name()] = "test file keyring"
    keyring.set_keyring(FileKeyring())
    return deid(argv)


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
