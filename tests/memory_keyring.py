"""An in-memory keyring for unit tests (priority -1, so it is never picked on its own).

Import the fixture into a test module: ``from tests.memory_keyring import memory_keyring``.
"""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import keyring.backend
import pytest


class MemoryKeyring(keyring.backend.KeyringBackend):
    """Holds passwords in a dict for the life of one test."""

    priority = -1  # type: ignore[assignment]  # never chosen by keyring's discovery

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)


def trust(cls: type[keyring.backend.KeyringBackend], monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the app accept this test backend for one test (it trusts only OS keyrings)."""
    from deid_desktop import secrets as salts

    monkeypatch.setitem(salts.SECURE_BACKENDS, f"{cls.__module__}.{cls.__qualname__}", "test")


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    trust(MemoryKeyring, monkeypatch)
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
