"""Which keyring may hold a salt: an allow-list of the operating systems' own keyrings,
chosen by name without keyring's discovery (which spawns ldconfig, gcc and ld)."""

from __future__ import annotations

import sys
import types
import uuid

import keyring
import keyring.backend
import keyring.core
import pytest

from deid_desktop import secrets as salts
from deid_desktop.core.errors import KeyringUnavailable
from tests.memory_keyring import MemoryKeyring


def _fake(path: str) -> keyring.backend.KeyringBackend:
    """A backend whose class claims the class path ``path`` (module + name)."""
    module, _, name = path.rpartition(".")
    cls = type(name, (MemoryKeyring,), {"__module__": module, "__qualname__": name})
    return cls()


@pytest.mark.parametrize("path", sorted(salts.SECURE_BACKENDS))
def test_each_operating_system_keyring_is_accepted(path: str) -> None:
    assert salts._unusable_reason(_fake(path)) is None


def test_the_allow_list_is_the_four_os_keyrings() -> None:
    assert set(salts.SECURE_BACKENDS.values()) == {
        "Secret Service",
        "Secret Service (libsecret)",
        "KWallet",
        "Windows Credential Manager",
        "macOS Keychain",
    }


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("keyrings.alt.file.PlaintextKeyring", "keyrings.alt"),
        ("keyrings.alt.file.EncryptedKeyring", "keyrings.alt"),
        ("keyring.backends.fail.Keyring", "no operating-system keyring"),
        ("keyring.backends.null.Keyring", "no operating-system keyring"),
        # not on any deny-list, and still refused: only known OS keyrings are trusted
        ("keyrings.cryptfile.cryptfile.CryptFileKeyring", "not one this app trusts"),
        ("some_plugin.backend.CloudKeyring", "not one this app trusts"),
        ("keyring.backends.SecretService.KeyringLookalike", "not one this app trusts"),
    ],
)
def test_everything_else_is_refused(path: str, said: str) -> None:
    reason = salts._unusable_reason(_fake(path))
    assert reason is not None and said in reason


def _chainer(*inner: keyring.backend.KeyringBackend) -> keyring.backend.KeyringBackend:
    """Stands in for keyring's ChainerBackend over ``inner``."""
    attrs = {"__module__": "keyring.backends.chainer", "backends": list(inner)}
    return type("ChainerBackend", (MemoryKeyring,), attrs)()


def test_a_chain_is_trusted_only_when_every_link_is() -> None:
    ss = _fake("keyring.backends.SecretService.Keyring")
    kw = _fake("keyring.backends.kwallet.DBusKeyring")
    alt = _fake("keyrings.alt.file.PlaintextKeyring")
    assert salts._unusable_reason(_chainer(ss, kw)) is None
    assert "keyrings.alt" in (salts._unusable_reason(_chainer(ss, alt)) or "")
    assert "no operating-system keyring" in (salts._unusable_reason(_chainer()) or "")


def test_an_untrusted_backend_stops_salt_creation(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = _fake("some_plugin.backend.CloudKeyring")
    monkeypatch.setattr(keyring.core, "_keyring_backend", backend)
    with pytest.raises(KeyringUnavailable, match="not one this app trusts") as err:
        salts.create_salt(uuid.uuid4().hex)
    assert err.value.exit_code == 4 and backend.store == {}  # type: ignore[attr-defined]


# -- choosing the backend: by name, per platform, never by discovery ----------------------


class _Usable(MemoryKeyring):
    """Available (its priority does not raise); -1 keeps keyring's own discovery off it."""


class _UnusableMeta(type(MemoryKeyring)):  # type: ignore[misc]
    @property
    def priority(cls) -> float:
        raise RuntimeError("daemon not running")


_Down = _UnusableMeta("_Down", (MemoryKeyring,), {})


def _modules(monkeypatch: pytest.MonkeyPatch, classes: dict[str, type]) -> list[str]:
    """Make ``importlib.import_module`` in secrets serve fake backend modules; the names
    asked for are returned (in order)."""
    asked: list[str] = []

    def import_module(name: str) -> types.ModuleType:
        asked.append(name)
        mod = types.ModuleType(name)
        for path, cls in classes.items():
            module, _, cname = path.rpartition(".")
            if module == name:
                setattr(mod, cname, cls)
        if not vars(mod).keys() - {"__name__", "__doc__", "__package__", "__loader__", "__spec__"}:
            raise ImportError(name)
        return mod

    monkeypatch.setattr(salts.importlib, "import_module", import_module)
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.setattr(keyring.core, "load_config", lambda: None)
    return asked


def test_linux_tries_secret_service_then_kwallet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    asked = _modules(monkeypatch, {"keyring.backends.kwallet.DBusKeyring": _Usable})
    assert isinstance(salts._chosen_backend(), _Usable)
    assert asked == ["keyring.backends.SecretService", "keyring.backends.kwallet"]


def test_an_unusable_secret_service_falls_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    _modules(
        monkeypatch,
        {
            "keyring.backends.SecretService.Keyring": _Down,
            "keyring.backends.kwallet.DBusKeyring": _Down,
        },
    )
    with pytest.raises(KeyringUnavailable, match="no operating-system keyring"):
        salts.salt_status(uuid.uuid4().hex)


@pytest.mark.parametrize(
    ("platform", "module"),
    [("win32", "keyring.backends.Windows"), ("darwin", "keyring.backends.macOS")],
)
def test_windows_and_macos_use_their_own_keyring(
    monkeypatch: pytest.MonkeyPatch, platform: str, module: str
) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    cls_path = next(p for p in salts.SECURE_BACKENDS if p.startswith(module + "."))
    asked = _modules(monkeypatch, {cls_path: _Usable})
    assert isinstance(salts._chosen_backend(), _Usable)
    assert asked == [module]


def test_a_configured_backend_is_used_and_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    with pytest.raises(KeyringUnavailable, match="no operating-system keyring"):
        salts.salt_status(uuid.uuid4().hex)
