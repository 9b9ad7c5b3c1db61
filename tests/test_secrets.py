"""The salt in the keyring: create, status, rotate, escrow, and no plaintext fallback."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import uuid
from pathlib import Path

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.errors
import pytest

from deid_desktop import secrets as salts
from deid_desktop.core.errors import DeidError, InputError, KeyringUnavailable, UsageError
from tests.memory_keyring import MemoryKeyring, memory_keyring, trust  # noqa: F401

PASSPHRASE = "correct horse battery staple"


@pytest.fixture
def project_id() -> str:
    return uuid.uuid4().hex


def _stored_salt(backend: MemoryKeyring, project_id: str) -> bytes:
    return base64.urlsafe_b64decode(backend.store[(salts.SERVICE, project_id)])


def test_create_stores_32_random_bytes_under_the_project_account(
    memory_keyring: MemoryKeyring,  # noqa: F811
    project_id: str,
) -> None:
    assert salts.salt_status(project_id).exists is False
    status = salts.create_salt(project_id)
    salt = _stored_salt(memory_keyring, project_id)
    assert len(salt) == 32
    assert list(memory_keyring.store) == [("deid-desktop", project_id)]
    assert salts.get_salt(project_id) == salt
    assert status.exists is True
    expected = hmac.new(salt, b"deid-desktop salt fingerprint v1", hashlib.sha256).hexdigest()
    assert status.fingerprint == expected[:16]
    assert status.fingerprint not in salt.hex()
    assert "MemoryKeyring" in status.backend_name


def test_two_projects_get_different_salts(memory_keyring: MemoryKeyring) -> None:  # noqa: F811
    a, b = uuid.uuid4().hex, uuid.uuid4().hex
    assert salts.create_salt(a).fingerprint != salts.create_salt(b).fingerprint


def test_create_refuses_when_a_salt_exists(memory_keyring, project_id) -> None:  # noqa: F811
    first = salts.create_salt(project_id)
    with pytest.raises(UsageError, match="already has a salt") as err:
        salts.create_salt(project_id)
    assert "rotate" in err.value.hint
    assert salts.salt_status(project_id).fingerprint == first.fingerprint


def test_missing_salt_says_how_to_create_one(memory_keyring, project_id) -> None:  # noqa: F811
    with pytest.raises(DeidError) as err:
        salts.get_salt(project_id)
    assert "deid salt create" in err.value.hint


def test_rotate_needs_confirmation_and_warns_about_linkage(
    memory_keyring,  # noqa: F811
    project_id: str,
) -> None:
    before = salts.create_salt(project_id)
    with pytest.raises(UsageError) as err:
        salts.rotate_salt(project_id)
    assert "linkage with every earlier release" in err.value.message
    assert salts.salt_status(project_id).fingerprint == before.fingerprint
    after = salts.rotate_salt(project_id, confirm=True)
    assert after.exists and after.fingerprint != before.fingerprint


def test_a_corrupt_keyring_entry_is_reported_without_its_content(
    memory_keyring: MemoryKeyring,  # noqa: F811
    project_id: str,
) -> None:
    memory_keyring.store[(salts.SERVICE, project_id)] = "not-a-salt"
    with pytest.raises(DeidError) as err:
        salts.get_salt(project_id)
    assert "not-a-salt" not in str(err.value)


def test_no_keyring_gives_a_plain_message_and_no_fallback(
    project_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        for call in (
            lambda: salts.salt_status(project_id),
            lambda: salts.create_salt(project_id),
            lambda: salts.get_salt(project_id),
        ):
            with pytest.raises(KeyringUnavailable) as err:
                call()
            text = str(err.value)
            assert "No usable keyring" in text
            assert "Secret Service" in text
            assert "gnome-keyring" in text and "KDE Wallet" in text
            assert "Windows and macOS" in text
            assert err.value.exit_code == 4
    finally:
        keyring.set_keyring(previous)
    assert list(tmp_path.iterdir()) == []  # nothing written as a fallback


class _AltFileKeyring(keyring.backend.KeyringBackend):
    """Stands in for keyrings.alt's plaintext file backend."""

    priority = -1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self.writes += 1

    def delete_password(self, service: str, username: str) -> None:
        pass


_AltFileKeyring.__module__ = "keyrings.alt.file"


def test_keyrings_alt_backends_are_refused(project_id: str) -> None:
    previous = keyring.get_keyring()
    backend = _AltFileKeyring()
    keyring.set_keyring(backend)
    try:
        with pytest.raises(KeyringUnavailable, match=r"keyrings\.alt"):
            salts.create_salt(project_id)
    finally:
        keyring.set_keyring(previous)
    assert backend.writes == 0


class _ErrorKeyring(MemoryKeyring):
    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError("backend said no")


def test_a_keyring_error_becomes_a_plain_message(
    project_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    trust(_ErrorKeyring, monkeypatch)
    previous = keyring.get_keyring()
    keyring.set_keyring(_ErrorKeyring())
    try:
        with pytest.raises(KeyringUnavailable) as err:
            salts.create_salt(project_id)
    finally:
        keyring.set_keyring(previous)
    assert "PasswordSetError" in str(err.value)


def test_escrow_round_trip_to_another_workstation(
    memory_keyring: MemoryKeyring,  # noqa: F811
    project_id: str,
    tmp_path: Path,
) -> None:
    status = salts.create_salt(project_id)
    salt = salts.get_salt(project_id)
    escrow = tmp_path / "salt-escrow.json"
    assert salts.export_salt(project_id, escrow, PASSPHRASE) == status.fingerprint

    text = escrow.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert doc["format"] == "deid-desktop salt escrow v1"
    assert doc["kdf"] == {"name": "scrypt", "n": 2**15, "r": 8, "p": 1, "length": 32}
    assert len(base64.b64decode(doc["kdf_salt"])) == 16
    for form in _forms(salt):
        assert form not in text
    if os.name == "posix":
        assert escrow.stat().st_mode & 0o077 == 0
    assert [p.name for p in tmp_path.iterdir()] == ["salt-escrow.json"]  # no temp left

    memory_keyring.store.clear()  # the other workstation: empty keyring
    imported = salts.import_salt(project_id, escrow, PASSPHRASE)
    assert imported.fingerprint == status.fingerprint
    assert salts.get_salt(project_id) == salt


def test_escrow_wrong_passphrase_is_a_plain_error(
    memory_keyring: MemoryKeyring,  # noqa: F811
    project_id: str,
    tmp_path: Path,
) -> None:
    salts.create_salt(project_id)
    escrow = tmp_path / "escrow.json"
    salts.export_salt(project_id, escrow, PASSPHRASE)
    memory_keyring.store.clear()
    with pytest.raises(InputError, match="passphrase does not open") as err:
        salts.import_salt(project_id, escrow, "wrong passphrase!!")
    assert "escrow.json" in str(err.value)
    assert memory_keyring.store == {}


def test_escrow_refuses_short_passphrase_and_overwrite(
    memory_keyring,  # noqa: F811
    project_id: str,
    tmp_path: Path,
) -> None:
    salts.create_salt(project_id)
    with pytest.raises(UsageError, match="at least 12"):
        salts.export_salt(project_id, tmp_path / "e.json", "short")
    escrow = tmp_path / "e.json"
    escrow.write_text("keep me", encoding="utf-8")
    with pytest.raises(UsageError, match="never overwritten"):
        salts.export_salt(project_id, escrow, PASSPHRASE)
    assert escrow.read_text(encoding="utf-8") == "keep me"


def test_escrow_tampered_or_foreign_file_is_refused(
    memory_keyring,  # noqa: F811
    project_id: str,
    tmp_path: Path,
) -> None:
    salts.create_salt(project_id)
    escrow = tmp_path / "e.json"
    salts.export_salt(project_id, escrow, PASSPHRASE)
    doc = json.loads(escrow.read_text(encoding="utf-8"))
    doc["token"] = doc["token"][:-6] + "AAAAAA"
    escrow.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError):
        salts.read_escrow(escrow, PASSPHRASE)
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(InputError, match="not a readable"):
        salts.read_escrow(other, PASSPHRASE)


def test_import_never_silently_replaces_a_different_salt(
    memory_keyring,  # noqa: F811
    tmp_path: Path,
) -> None:
    a, b = uuid.uuid4().hex, uuid.uuid4().hex
    salts.create_salt(a)
    salts.create_salt(b)
    escrow = tmp_path / "a.json"
    salts.export_salt(a, escrow, PASSPHRASE)
    with pytest.raises(UsageError, match="different salt"):
        salts.import_salt(b, escrow, PASSPHRASE)
    assert salts.get_salt(b) != salts.get_salt(a)
    # the same salt again is a no-op; replacing is explicit
    assert salts.import_salt(a, escrow, PASSPHRASE).exists
    salts.import_salt(b, escrow, PASSPHRASE, replace=True)
    assert salts.get_salt(b) == salts.get_salt(a)


def _forms(salt: bytes) -> list[str]:
    return [
        salt.hex(),
        salt.hex().upper(),
        base64.b64encode(salt).decode(),
        base64.urlsafe_b64encode(salt).decode(),
        base64.b64encode(salt).decode().rstrip("="),
    ]


@pytest.mark.keyring
@pytest.mark.skipif(
    os.environ.get("DEID_REAL_KEYRING") != "1",
    reason="needs a real Secret Service: run via scripts/test (private D-Bus session)",
)
def test_real_secret_service_round_trip(tmp_path: Path) -> None:
    """Against gnome-keyring in a private D-Bus session (scripts/test, CI.md)."""
    import keyring.core

    keyring.core.init_backend()  # whatever the machine really offers, not a test backend
    backend = keyring.get_keyring()
    assert salts._unusable_reason(backend) is None, type(backend).__module__
    project_id = uuid.uuid4().hex
    try:
        status = salts.create_salt(project_id)
        assert status.exists and "SecretService" in status.backend_name.replace(" ", "")
        salt = salts.get_salt(project_id)
        assert len(salt) == 32
        escrow = tmp_path / "escrow.json"
        salts.export_salt(project_id, escrow, PASSPHRASE)
        rotated = salts.rotate_salt(project_id, confirm=True)
        assert rotated.fingerprint != status.fingerprint
        salts.import_salt(project_id, escrow, PASSPHRASE, replace=True)
        assert salts.get_salt(project_id) == salt
    finally:
        keyring.delete_password(salts.SERVICE, project_id)


def test_the_core_never_touches_the_keyring() -> None:
    """The engine receives the salt as bytes; only deid_desktop.secrets talks to keyring."""
    import ast

    core = Path(salts.__file__).parent / "core"
    offenders = []
    for path in core.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n.split(".")[0] in {"keyring", "keyrings"} or n == "deid_desktop.secrets"
                   for n in names):  # fmt: skip
                offenders.append(path.name)
    assert offenders == []
