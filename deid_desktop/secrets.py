"""The project's salt, kept in the operating system's keyring. Outside core.

The salt is 32 random bytes from :mod:`secrets`, stored with :mod:`keyring` under the
service ``deid-desktop`` and an account named by the project's id, as URL-safe base64
text (keyring stores strings). The engine receives it as ``bytes`` from :func:`get_salt`
and nothing else in the product ever holds it: not the project file, a log line, a
release, the export record, or an exception message.

What is shown instead is a *fingerprint*: the first 16 hex characters of
``HMAC-SHA256(salt, b"deid-desktop salt fingerprint v1")`` - enough to tell two salts
apart, useless for recovering one.

There is no plaintext fallback. Only the operating systems' own keyrings are trusted (an
allow-list, :data:`SECURE_BACKENDS`: Secret Service, KWallet, Windows Credential Manager,
macOS Keychain); with anything else (keyring's ``fail`` or ``null`` backend, any
``keyrings.alt`` backend, a third-party plugin) or a keyring error every call raises
:class:`KeyringUnavailable` saying what is missing and how to get it.

The backend is chosen without keyring's discovery, which imports every backend - the
macOS one calls ``ctypes.util.find_library`` on every platform, and on Linux that spawns
``ldconfig``, ``gcc`` and ``ld``. A backend the user configured (``PYTHON_KEYRING_BACKEND``
or keyringrc.cfg) or set with ``keyring.set_keyring`` is used; else the platform's own
is imported by name (Secret Service, then KWallet on Linux). No process is started.

Escrow for air-gapped sites with several workstations: :func:`export_salt` writes the
salt encrypted with a passphrase (Fernet, key from scrypt n=2**15, r=8, p=1 over a random
16-byte salt) and :func:`import_salt` reads it back on another workstation.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hmac
import importlib
import json
import os
import secrets as _random
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.core
import keyring.errors
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from deid_desktop.core.constants import ROTATE_WARNING
from deid_desktop.core.errors import InputError, KeyringUnavailable, UsageError
from deid_desktop.core.linkage import salt_fingerprint
from deid_desktop.core.model import Project
from deid_desktop.core.pathways.registry import needs_salt

SERVICE = "deid-desktop"
SALT_BYTES = 32
ESCROW_FORMAT = "deid-desktop salt escrow v1"
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**15, 8, 1
MIN_PASSPHRASE = 12

_HOW_TO_GET_ONE = (
    "On Linux install and unlock a Secret Service keyring (GNOME Keyring: "
    "'sudo apt-get install gnome-keyring', or KDE Wallet) and run the app inside your "
    "desktop session; on Windows and macOS the system keyring is used automatically. "
    "Safe Harbor and limited data set releases do not need a keyring."
)


@dataclass(frozen=True)
class SaltStatus:
    """Whether the project has a salt; never the salt itself."""

    exists: bool
    fingerprint: str | None
    backend_name: str


def fingerprint(salt: bytes) -> str:
    """First 16 hex characters of HMAC-SHA256(salt, fixed label)."""
    return salt_fingerprint(salt)


def _backend_name(backend: keyring.backend.KeyringBackend) -> str:
    cls = type(backend)
    name = getattr(backend, "name", "") or ""
    return str(name) if name else f"{cls.__module__}.{cls.__qualname__}"


#: The keyring backends a salt may be kept in (class paths): each operating system's own,
#: encrypted and tied to the user's login. Everything else is refused.
SECURE_BACKENDS: dict[str, str] = {
    "keyring.backends.SecretService.Keyring": "Secret Service",
    "keyring.backends.libsecret.Keyring": "Secret Service (libsecret)",
    "keyring.backends.kwallet.DBusKeyring": "KWallet",
    "keyring.backends.kwallet.DBusKeyringKWallet4": "KWallet",
    "keyring.backends.Windows.WinVaultKeyring": "Windows Credential Manager",
    "keyring.backends.macOS.Keyring": "macOS Keychain",
}

#: The platform's own keyrings, tried in this order when the user configured none.
_PLATFORM_BACKENDS: dict[str, tuple[str, ...]] = {
    "win32": ("keyring.backends.Windows.WinVaultKeyring",),
    "darwin": ("keyring.backends.macOS.Keyring",),
}
_OTHER_PLATFORMS = (
    "keyring.backends.SecretService.Keyring",
    "keyring.backends.kwallet.DBusKeyring",
)


def _class_path(backend: keyring.backend.KeyringBackend) -> str:
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


def _unusable_reason(backend: keyring.backend.KeyringBackend) -> str | None:
    """Why this backend must not hold a salt, or None if it is a trusted OS keyring."""
    if _class_path(backend) in SECURE_BACKENDS:
        return None
    module = type(backend).__module__
    if module.startswith("keyring.backends.chainer"):  # keyring's ChainerBackend
        inner = list(getattr(backend, "backends", None) or [])
        if not inner:
            return "no operating-system keyring (Secret Service) was found"
        reasons = [r for r in map(_unusable_reason, inner) if r]
        return reasons[0] if reasons else None
    if module.startswith("keyrings.alt"):
        return "only the 'keyrings.alt' file backend was found, which this app refuses"
    if module.startswith(("keyring.backends.fail", "keyring.backends.null")):
        return "no operating-system keyring (Secret Service) was found"
    return (
        f"the keyring backend {_class_path(backend)} is not one this app trusts (it accepts "
        "Secret Service, KWallet, Windows Credential Manager and macOS Keychain)"
    )


def _platform_backend() -> keyring.backend.KeyringBackend:
    """The platform's own keyring, imported by name (no discovery, no subprocess)."""
    for path in _PLATFORM_BACKENDS.get(sys.platform, _OTHER_PLATFORMS):
        module_name, _, class_name = path.rpartition(".")
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
            cls.priority  # noqa: B018 - raises when this keyring is not usable here
        except Exception:  # not installed, no D-Bus, daemon not running: try the next
            continue
        return cls()
    return keyring.backends.fail.Keyring()


def _chosen_backend() -> keyring.backend.KeyringBackend:
    """The backend set with ``keyring.set_keyring``, else the user's configured one,
    else the platform's own. Remembered for the rest of the process."""
    current = getattr(keyring.core, "_keyring_backend", None)
    if isinstance(current, keyring.backend.KeyringBackend):
        return current
    backend = keyring.core.load_env() or keyring.core.load_config() or _platform_backend()
    keyring.set_keyring(backend)
    return backend


def _backend() -> keyring.backend.KeyringBackend:
    try:
        backend = _chosen_backend()
    except keyring.errors.KeyringError as exc:
        raise _unavailable(type(exc).__name__) from None
    except Exception as exc:  # a configured backend that cannot be loaded
        reason = f"the configured keyring could not be loaded ({type(exc).__name__})"
        raise _unavailable(reason) from None
    reason = _unusable_reason(backend)
    if reason:
        raise _unavailable(reason)
    return backend


def _unavailable(reason: str) -> KeyringUnavailable:
    return KeyringUnavailable(
        f"No usable keyring: {reason}. A linkable release keeps its salt in the "
        "operating system's keyring and never in a file, so it cannot go on.",
        hint=_HOW_TO_GET_ONE,
    )


def _account(project_id: str) -> str:
    if not project_id or not all(c.isalnum() or c in "-_" for c in project_id):
        raise UsageError(
            "The project has no valid id to name its salt.",
            hint="Save the project again; a project id is a 32-character hex string.",
        )
    return project_id


@contextlib.contextmanager
def _keyring_errors(action: str) -> Iterator[None]:
    """Keyring errors as plain `KeyringUnavailable`; `action` says what was being done
    to the salt ("read", "stored")."""
    try:
        yield
    except keyring.errors.KeyringLocked:
        raise KeyringUnavailable(
            f"The keyring is locked, so the project's salt cannot be {action}.",
            hint="Unlock your keyring (log in to the desktop session) and try again.",
        ) from None
    except keyring.errors.KeyringError as exc:
        raise _unavailable(f"the keyring reported {type(exc).__name__}") from None


def _read(backend: keyring.backend.KeyringBackend, project_id: str) -> bytes | None:
    with _keyring_errors("read"):
        text = backend.get_password(SERVICE, _account(project_id))
    if text is None:
        return None
    try:
        salt = base64.urlsafe_b64decode(text.encode("ascii"))
    except (binascii.Error, ValueError, UnicodeEncodeError):
        salt = b""
    if len(salt) != SALT_BYTES:
        raise InputError(
            "The keyring holds an entry for this project that is not a valid salt",
            hint="Import the escrowed salt with 'deid salt import', or, if none was ever "
            "released with it, remove the entry and create a new one.",
        )
    return salt


def _write(backend: keyring.backend.KeyringBackend, project_id: str, salt: bytes) -> None:
    text = base64.urlsafe_b64encode(salt).decode("ascii")
    with _keyring_errors("stored"):
        backend.set_password(SERVICE, _account(project_id), text)
    if _read(backend, project_id) != salt:
        raise KeyringUnavailable(
            "The keyring did not keep the salt that was stored in it.",
            hint=_HOW_TO_GET_ONE,
        )


def salt_status(project_id: str) -> SaltStatus:
    backend = _backend()
    salt = _read(backend, project_id)
    return SaltStatus(
        exists=salt is not None,
        fingerprint=fingerprint(salt) if salt is not None else None,
        backend_name=_backend_name(backend),
    )


def get_salt(project_id: str) -> bytes:
    """The project's salt as bytes, for the engine. Missing -> ``UsageError`` (exit 2)."""
    salt = _read(_backend(), project_id)
    if salt is None:
        raise UsageError(
            "This project has no salt in the keyring of this computer, so a linkable "
            "release cannot be made.",
            hint="Create one with 'deid salt create PROJECT', or import the escrowed salt "
            "of an earlier release with 'deid salt import PROJECT FILE' so keys link.",
        )
    return salt


def create_salt(project_id: str) -> SaltStatus:
    """Make and store a new salt; refuses when the project already has one."""
    backend = _backend()
    if _read(backend, project_id) is not None:
        raise UsageError(
            "This project already has a salt; creating another would break linkage.",
            hint="To replace it deliberately use 'deid salt rotate PROJECT --yes'.",
        )
    _write(backend, project_id, _random.token_bytes(SALT_BYTES))
    return salt_status(project_id)


def rotate_salt(project_id: str, *, confirm: bool = False) -> SaltStatus:
    """Replace the salt. Needs ``confirm=True``: see :data:`ROTATE_WARNING`."""
    if not confirm:
        raise UsageError(ROTATE_WARNING, hint="Confirm with --yes if that is what you want.")
    backend = _backend()
    _write(backend, project_id, _random.token_bytes(SALT_BYTES))
    return salt_status(project_id)


def _fernet(passphrase: str, kdf_salt: bytes) -> Fernet:
    kdf = Scrypt(salt=kdf_salt, length=32, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    key = kdf.derive(passphrase.encode("utf-8"))
    return Fernet(base64.urlsafe_b64encode(key))


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".deid-escrow-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if sys.platform != "win32":
            os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def export_salt(project_id: str, path: Path, passphrase: str) -> str:
    """Write the salt to ``path`` encrypted with ``passphrase``; returns the fingerprint.

    Refuses to overwrite an existing file and a passphrase shorter than
    :data:`MIN_PASSPHRASE` characters.
    """
    if len(passphrase) < MIN_PASSPHRASE:
        raise UsageError(
            f"The escrow passphrase must have at least {MIN_PASSPHRASE} characters.",
            hint="Use a long passphrase and keep it apart from the escrow file.",
        )
    path = Path(path)
    if path.exists():
        raise UsageError(
            f"{path.name} already exists; the escrow file is never overwritten.",
            hint="Choose a new file name.",
        )
    if not path.parent.is_dir():
        raise UsageError(f"The folder for {path.name} does not exist.")
    salt = get_salt(project_id)
    kdf_salt = _random.token_bytes(16)
    token = _fernet(passphrase, kdf_salt).encrypt(salt)
    doc = {
        "format": ESCROW_FORMAT,
        "kdf": {"name": "scrypt", "n": SCRYPT_N, "r": SCRYPT_R, "p": SCRYPT_P, "length": 32},
        "kdf_salt": base64.b64encode(kdf_salt).decode("ascii"),
        "cipher": "fernet",
        "token": token.decode("ascii"),
        "fingerprint": fingerprint(salt),
        "project_id": project_id,
    }
    _atomic_write(path, json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return fingerprint(salt)


def read_escrow(path: Path, passphrase: str) -> bytes:
    """Decrypt an escrow file; wrong passphrase or altered file -> ``InputError``."""
    path = Path(path)
    bad = InputError(
        "This is not a readable deid-desktop salt escrow file",
        file=path.name,
        hint="Choose the .json file written by 'deid salt export'.",
    )
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("The escrow file does not exist", file=path.name) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise bad from None
    if not isinstance(doc, dict) or doc.get("format") != ESCROW_FORMAT:
        raise bad
    kdf = doc.get("kdf")
    try:
        if (
            not isinstance(kdf, dict)
            or kdf.get("name") != "scrypt"
            or (kdf.get("n"), kdf.get("r"), kdf.get("p"), kdf.get("length"))
            != (SCRYPT_N, SCRYPT_R, SCRYPT_P, 32)
        ):
            raise ValueError
        kdf_salt = base64.b64decode(str(doc["kdf_salt"]), validate=True)
        token = str(doc["token"]).encode("ascii")
    except (KeyError, ValueError, binascii.Error, UnicodeEncodeError):
        raise bad from None
    try:
        salt = _fernet(passphrase, kdf_salt).decrypt(token)
    except InvalidToken:
        raise InputError(
            "The passphrase does not open this escrow file (or the file was altered)",
            file=path.name,
            hint="Type the passphrase used when the salt was exported.",
        ) from None
    if len(salt) != SALT_BYTES:
        raise bad
    return salt


def import_salt(
    project_id: str, path: Path, passphrase: str, *, replace: bool = False
) -> SaltStatus:
    """Store the escrowed salt for ``project_id``.

    When the project already has the same salt this is a no-op; a different one is
    replaced only with ``replace=True`` (it breaks linkage like a rotation).
    """
    salt = read_escrow(path, passphrase)
    backend = _backend()
    current = _read(backend, project_id)
    differs = current is not None and not hmac.compare_digest(current, salt)
    if differs and not replace:
        raise UsageError(
            "This project already has a different salt. " + ROTATE_WARNING,
            hint="Replace it with --replace --yes only if that is what you want.",
        )
    if current is None or differs:
        _write(backend, project_id, salt)
    return salt_status(project_id)


def salt_for_project(project: Project) -> bytes | None:
    """The salt the engine needs for ``project``: bytes when its pathway's spec
    ``needs_salt`` (the linkable release), ``None`` for the others (they never touch the
    keyring). The one home of this decision: the GUI and every CLI command call it."""
    if not needs_salt(project):
        return None
    return get_salt(project.project_id)
