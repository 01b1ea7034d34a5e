"""Secrets at rest: a tenant's SOL password, GRE client secret and imported signing key, encrypted.

Every secret is encrypted with one key (Fernet: AES-128-CBC with HMAC-SHA256) that is never stored in the
database: ``FACTURADOR_SECRET_KEY`` when set (every node of a deployment shares it), else the file
``secret.key`` in the data directory, created on first use and readable by its owner only (0600). A
database opened with another key is refused when the service starts (:meth:`Vault.check`), with a message
saying which key was used, instead of failing at the first send. See ``docs/going_live.md``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from facturador.config import SECRET_KEY_FILE

__all__ = ["KEY_FILE", "SECRET_KEY_ENV", "SECRET_NAMES", "SecretKeyError", "Vault"]

SECRET_KEY_ENV = "FACTURADOR_SECRET_KEY"
KEY_FILE = SECRET_KEY_FILE
#: The secrets a tenant may hold, and what each is.
SECRET_NAMES = {
    "sol_password": "the SOL password of the tenant's secondary user (SOAP sending to SUNAT or an OSE)",
    "gre_client_secret": "the client secret of the GRE API credentials (dispatch guides)",
    "gre_password": "the SOL password the GRE API takes (when it is not the SOL user's above)",
    "smtp_password": "the password of the tenant's SMTP user (e-mailing documents to customers)",
    "validity_client_secret": "the client secret of the validity API credentials (consulta integrada de CPE)",
}


class SecretKeyError(Exception):
    """The secret key is missing, malformed, or does not open the secrets kept in this database."""


class Vault:
    """Encrypts and decrypts secrets with the service's key (see module doc)."""

    def __init__(self, key: bytes, *, source: str):
        try:
            self._fernet = Fernet(key)
        except (ValueError, TypeError):
            raise SecretKeyError(
                f"the secret key in {source} is not a valid key (32 url-safe base64-encoded bytes, as "
                "'facturador secret-key' prints)"
            ) from None
        #: Where the key came from (a file's path or the environment variable), for messages.
        self.source = source
        #: A short digest of the key that identifies it in messages without revealing it.
        self.fingerprint = hashlib.sha256(key).hexdigest()[:12]

    @classmethod
    def open(cls, data_dir: Path) -> Vault:
        """The key of ``FACTURADOR_SECRET_KEY``, else of ``data_dir/secret.key`` (created when missing)."""
        from_env = os.environ.get(SECRET_KEY_ENV, "").strip()
        if from_env:
            return cls(from_env.encode("ascii", "replace"), source=f"${SECRET_KEY_ENV}")
        path = data_dir / KEY_FILE
        if not path.exists():
            _create_key_file(path)
        os.chmod(path, 0o600)  # an operator may have loosened it
        return cls(path.read_bytes().strip(), source=str(path))

    @staticmethod
    def new_key() -> str:
        """A fresh key, as ``FACTURADOR_SECRET_KEY`` takes it."""
        return Fernet.generate_key().decode("ascii")

    def encrypt(self, plain: str | bytes) -> str:
        """The ciphertext of ``plain`` (text or bytes), as ASCII text."""
        data = plain.encode("utf-8") if isinstance(plain, str) else plain
        return self._fernet.encrypt(data).decode("ascii")

    def decrypt_bytes(self, token: str) -> bytes:
        """The bytes behind ``token``; :class:`SecretKeyError` when this key did not encrypt it."""
        try:
            return self._fernet.decrypt(token.encode("ascii"))
        except (InvalidToken, ValueError, UnicodeEncodeError):
            raise SecretKeyError(self._wrong_key_message()) from None

    def decrypt(self, token: str) -> str:
        """The text behind ``token``; :class:`SecretKeyError` when this key did not encrypt it."""
        return self.decrypt_bytes(token).decode("utf-8")

    def check(self, tokens: Iterable[str]) -> None:
        """Raise :class:`SecretKeyError` unless every token opens with this key (done at start)."""
        for token in tokens:
            self.decrypt_bytes(token)

    def _wrong_key_message(self) -> str:
        return (
            f"the secret key in {self.source} (fingerprint {self.fingerprint}) does not open the secrets "
            f"kept in this database: start with the key they were saved with ({SECRET_KEY_ENV} or the "
            f"data directory's {KEY_FILE}), or set the tenants' passwords again"
        )


def _create_key_file(path: Path) -> None:
    """Write a new key to ``path`` (0600), unless another process just did."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(Fernet.generate_key() + b"\n")
