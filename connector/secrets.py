"""The analyst's secrets for SUNAT's APIs (SIRE's client id and secret, the SOL password, the validity
API's client id and secret), per company of the tenants file, never in plain text.

Two places can hold them (``docs/analyst_secrets.md`` says why the file is the default):

* **An encrypted file** (the default): ``$FACTURADOR_SECRETS_FILE`` or
  ``<user config dir>/facturador/secrets.json``; each value encrypted with Fernet (AES-128-CBC and
  HMAC-SHA256) under a key derived from the user's passphrase with scrypt (n=2**15, r=8, p=1, a random
  salt per file). The passphrase comes from ``$FACTURADOR_SECRETS_PASSPHRASE`` or is given; the file is
  written whole and private (0600). It works wherever Python runs: a headless server, a container, CI.
* **The operating system's keyring** (``FACTURADOR_SECRETS_BACKEND=keyring``, the ``keyring``
  package): macOS Keychain, Windows Credential Locker, the Secret Service of a desktop session. Refused
  with a clear message where there is none (a headless server's ``keyring`` has only its fail backend).

::

    from connector.secrets import open_secrets
    secrets = open_secrets()                      # the file, passphrase from the environment
    secrets.set("acme", "sire_client_secret", "...")
    secrets.get("acme", "sire_client_secret")     # None when not kept
    secrets.delete("acme", "sire_client_secret")  # True when it was there
"""

from __future__ import annotations

import base64
import json
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "BACKEND_ENV",
    "KNOWN_SECRETS",
    "PASSPHRASE_ENV",
    "SECRETS_FILE_ENV",
    "EncryptedFile",
    "KeyringSecrets",
    "SecretStore",
    "SecretsError",
    "WrongPassphraseError",
    "open_secrets",
    "secrets_path",
]

#: Which store :func:`open_secrets` opens: ``file`` (default) or ``keyring``.
BACKEND_ENV = "FACTURADOR_SECRETS_BACKEND"
#: The encrypted file's passphrase.
PASSPHRASE_ENV = "FACTURADOR_SECRETS_PASSPHRASE"
#: Where the encrypted file is (default: the user's config folder).
SECRETS_FILE_ENV = "FACTURADOR_SECRETS_FILE"
#: The secrets the SUNAT API clients read (other names of the same form may be kept too).
KNOWN_SECRETS = (
    "sol_user",
    "sol_password",
    "sire_client_id",
    "sire_client_secret",
    "validity_client_id",
    "validity_client_secret",
)
#: The keyring's service name.
KEYRING_SERVICE = "facturador-kit"
_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")
_CHECK = b"facturador-secrets-v1"
_SCRYPT = {"n": 2**15, "r": 8, "p": 1}
_MIN_PASSPHRASE = 8


class SecretsError(Exception):
    """A secret cannot be kept or read: the message says what to do."""


class WrongPassphraseError(SecretsError):
    """The passphrase does not open the secrets file."""


class SecretStore(Protocol):
    """Where the analyst's secrets are kept, per tenant (a slug of the tenants file) and name."""

    def get(self, tenant: str, name: str) -> str | None:
        """The secret, or ``None`` when it is not kept."""

    def set(self, tenant: str, name: str, value: str) -> None:
        """Keep the secret (replacing the one kept)."""

    def delete(self, tenant: str, name: str) -> bool:
        """Forget the secret; whether it was kept."""

    def names(self, tenant: str) -> list[str]:
        """The names of the tenant's secrets kept (never their values)."""


def _checked(tenant: str, name: str, value: str | None = None) -> None:
    if not _SLUG.fullmatch(tenant or ""):
        raise SecretsError(f"not a tenant slug: {tenant!r}")
    if not _NAME.fullmatch(name or ""):
        raise SecretsError(
            f"not a secret name: {name!r} (lowercase letters, digits and _; e.g. {', '.join(KNOWN_SECRETS)})"
        )
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise SecretsError(f"the secret {name} of {tenant} is empty: give its value")


def secrets_path() -> Path:
    """The encrypted file: ``$FACTURADOR_SECRETS_FILE``, else the user's
    ``<config dir>/facturador/secrets.json``."""
    env = os.environ.get(SECRETS_FILE_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("facturador")) / "secrets.json"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii")


class EncryptedFile:
    """Secrets in a file, each value encrypted with a key derived from ``passphrase`` (see module doc).
    Opening an existing file with another passphrase raises :class:`WrongPassphraseError`."""

    def __init__(self, path: str | Path, passphrase: str) -> None:
        if not passphrase or len(passphrase) < _MIN_PASSPHRASE:
            raise SecretsError(f"the secrets passphrase needs at least {_MIN_PASSPHRASE} characters")
        self.path = Path(path).expanduser()
        self._passphrase = passphrase.encode("utf-8")
        self._lock = threading.Lock()
        self._keys: dict[bytes, Any] = {}
        if self.path.is_file():
            self._fernet(self._read())  # checks the passphrase now, not at the first secret

    def _fernet(self, data: dict[str, Any]) -> Any:
        """The Fernet of the file's salt, the passphrase checked against the file's check token."""
        from cryptography.fernet import Fernet, InvalidToken
        from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

        salt = base64.urlsafe_b64decode(data["salt"])
        found = self._keys.get(salt)
        if found is None:
            params = data.get("scrypt") or _SCRYPT
            kdf = Scrypt(salt=salt, length=32, n=int(params["n"]), r=int(params["r"]), p=int(params["p"]))
            found = Fernet(base64.urlsafe_b64encode(kdf.derive(self._passphrase)))
            try:
                if found.decrypt(data["check"].encode("ascii")) != _CHECK:
                    raise InvalidToken
            except InvalidToken:
                raise WrongPassphraseError(
                    f"the passphrase does not open {self.path} (check {PASSPHRASE_ENV}); a forgotten "
                    "passphrase cannot be recovered: delete the file and keep the secrets again"
                ) from None
            self._keys[salt] = found
        return found

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("version") != 1 or "salt" not in data:
                raise ValueError("not a facturador secrets file")
        except (OSError, ValueError) as exc:
            raise SecretsError(f"{self.path} cannot be read: {exc}") from exc
        return data

    def _load(self) -> dict[str, Any]:
        if self.path.is_file():
            return self._read()
        from cryptography.fernet import Fernet
        from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

        salt = os.urandom(16)
        kdf = Scrypt(salt=salt, length=32, **_SCRYPT)
        fernet = Fernet(base64.urlsafe_b64encode(kdf.derive(self._passphrase)))
        self._keys[salt] = fernet
        return {
            "version": 1,
            "kdf": "scrypt",
            "scrypt": _SCRYPT,
            "salt": _b64(salt),
            "check": fernet.encrypt(_CHECK).decode("ascii"),
            "secrets": {},
        }

    def _save(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
        try:
            os.chmod(temporary, 0o600)
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=2, sort_keys=True)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def get(self, tenant: str, name: str) -> str | None:
        _checked(tenant, name)
        if not self.path.is_file():
            return None
        data = self._read()
        token = (data.get("secrets") or {}).get(tenant, {}).get(name)
        if token is None:
            return None
        from cryptography.fernet import InvalidToken

        try:
            kept = json.loads(self._fernet(data).decrypt(token.encode("ascii")))
        except (InvalidToken, ValueError) as exc:
            raise SecretsError(f"the secret {name} of {tenant} in {self.path} is damaged") from exc
        if kept.get("tenant") != tenant or kept.get("name") != name:  # a value moved to another place
            raise SecretsError(f"the secret {name} of {tenant} in {self.path} is not the one kept there")
        return str(kept["value"])

    def set(self, tenant: str, name: str, value: str) -> None:
        _checked(tenant, name, value)
        with self._lock:
            data = self._load()
            plain = json.dumps({"tenant": tenant, "name": name, "value": value}).encode("utf-8")
            token = self._fernet(data).encrypt(plain).decode("ascii")
            data.setdefault("secrets", {}).setdefault(tenant, {})[name] = token
            self._save(data)

    def delete(self, tenant: str, name: str) -> bool:
        _checked(tenant, name)
        with self._lock:
            if not self.path.is_file():
                return False
            data = self._read()
            self._fernet(data)  # only the passphrase's owner forgets secrets
            kept = (data.get("secrets") or {}).get(tenant, {})
            if name not in kept:
                return False
            del kept[name]
            if not kept:
                del data["secrets"][tenant]
            self._save(data)
        return True

    def names(self, tenant: str) -> list[str]:
        _checked(tenant, "x")
        if not self.path.is_file():
            return []
        data = self._read()
        self._fernet(data)
        return sorted((data.get("secrets") or {}).get(tenant, {}))

    def __repr__(self) -> str:
        return f"EncryptedFile({str(self.path)!r})"


class KeyringSecrets:
    """Secrets in the operating system's keyring (service ``facturador-kit``, user ``<tenant>:<name>``).
    Raises :class:`SecretsError` when the ``keyring`` package or a usable backend is missing."""

    def __init__(self, backend: Any = None, service: str = KEYRING_SERVICE) -> None:
        try:
            import keyring
        except ImportError:
            raise SecretsError(
                "the keyring package is not installed (pip install keyring); or keep the secrets in the "
                f"encrypted file ({BACKEND_ENV}=file)"
            ) from None
        self._keyring = backend if backend is not None else keyring.get_keyring()
        if getattr(self._keyring, "priority", 0) <= 0:
            raise SecretsError(
                f"no usable keyring on this computer ({type(self._keyring).__name__}): a headless server has "
                f"none. Keep the secrets in the encrypted file instead ({BACKEND_ENV}=file and a passphrase "
                f"in {PASSPHRASE_ENV})"
            )
        self.service = service

    def get(self, tenant: str, name: str) -> str | None:
        _checked(tenant, name)
        return self._keyring.get_password(self.service, f"{tenant}:{name}")  # type: ignore[no-any-return]

    def set(self, tenant: str, name: str, value: str) -> None:
        _checked(tenant, name, value)
        self._keyring.set_password(self.service, f"{tenant}:{name}", value)

    def delete(self, tenant: str, name: str) -> bool:
        from keyring.errors import PasswordDeleteError

        _checked(tenant, name)
        try:
            self._keyring.delete_password(self.service, f"{tenant}:{name}")
        except PasswordDeleteError:
            return False
        return True

    def names(self, tenant: str) -> list[str]:
        """The :data:`KNOWN_SECRETS` kept (a keyring cannot list what it holds)."""
        return [name for name in KNOWN_SECRETS if self.get(tenant, name) is not None]

    def __repr__(self) -> str:
        return f"KeyringSecrets({type(self._keyring).__name__})"


def open_secrets(
    backend: str | None = None, *, path: str | Path | None = None, passphrase: str | None = None
) -> SecretStore:
    """The analyst's secret store: ``backend`` (else ``$FACTURADOR_SECRETS_BACKEND``, else ``file``).

    ``file``: the encrypted file at ``path`` (default :func:`secrets_path`) opened with ``passphrase``
    (default ``$FACTURADOR_SECRETS_PASSPHRASE``); ``keyring``: the operating system's keyring."""
    chosen = (backend or os.environ.get(BACKEND_ENV) or "file").strip().lower()
    if chosen == "keyring":
        return KeyringSecrets()
    if chosen != "file":
        raise SecretsError(f"{BACKEND_ENV} is file or keyring (got {chosen!r})")
    given = passphrase if passphrase is not None else os.environ.get(PASSPHRASE_ENV, "")
    if not given:
        raise SecretsError(
            f"the secrets file needs a passphrase: set {PASSPHRASE_ENV} (at least {_MIN_PASSPHRASE} "
            f"characters), or use the operating system's keyring ({BACKEND_ENV}=keyring)"
        )
    return EncryptedFile(path if path is not None else secrets_path(), given)
