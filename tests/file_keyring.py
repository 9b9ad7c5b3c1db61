"""A keyring in a JSON file named by ``$DEID_TEST_KEYRING_FILE``, for tests that run
``deid`` in a fresh process (``PYTHON_KEYRING_BACKEND=tests.file_keyring.FileKeyring``)
and need the salt the GUI test process created. Priority -1: never picked on its own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

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
