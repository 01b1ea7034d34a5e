"""Signing keys and certificates kept in the data directory: each tenant's, and the simulated authority's.

A directory (0700) holds ``signing-key.pem`` and ``certificate.pem``, both readable by their owner only.
It is created whole or not at all: concurrent workers that race to create one agree on the winner's.

A company's own certificate (``facturador tenant certificate``, a ``.pfx``/``.p12`` with its password) is
checked (:func:`read_pkcs12`) and replaces the generated one: its key is kept encrypted with the service's
secret key (``signing-key.enc``), never in clear; the replaced files are kept aside, renamed.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12

from facturador.config import private_directory
from facturador.store.secrets import Vault
from facturador.ubl.signing import SigningIdentity, generate_identity

KEY_FILE = "signing-key.pem"
ENCRYPTED_KEY_FILE = "signing-key.enc"
CERT_FILE = "certificate.pem"
#: The smallest RSA key taken (SUNAT takes RSA keys; certification authorities issue 2048 bits or more).
MIN_RSA_BITS = 2048


class CertificateError(ValueError):
    """A certificate file that cannot be used to sign for SUNAT, with the reason."""


@dataclass(frozen=True)
class CertificateInfo:
    """What an operator needs to know of a signing certificate."""

    subject: str
    issuer: str
    serial: str
    not_before: dt.datetime
    not_after: dt.datetime
    self_signed: bool

    def days_left(self, now: dt.datetime | None = None) -> int:
        """Whole days until it expires (negative once expired)."""
        now = now or dt.datetime.now(dt.UTC)
        return (self.not_after - now).days


def certificate_info(cert: x509.Certificate) -> CertificateInfo:
    return CertificateInfo(
        subject=cert.subject.rfc4514_string(),
        issuer=cert.issuer.rfc4514_string(),
        serial=format(cert.serial_number, "x"),
        not_before=cert.not_valid_before_utc,
        not_after=cert.not_valid_after_utc,
        self_signed=cert.issuer == cert.subject,
    )


def read_pkcs12(data: bytes, password: str, *, now: dt.datetime | None = None) -> tuple[bytes, bytes]:
    """The key and certificate (PEM) of a PKCS#12 file (``.pfx``/``.p12``, legacy RC2/3DES encryption
    included, as SUNAT's free certificate uses), checked: the password opens it, it holds an RSA key of
    :data:`MIN_RSA_BITS` or more and the certificate of that key, valid now. Raises
    :class:`CertificateError` saying what is wrong."""
    try:
        key, cert, chain = pkcs12.load_key_and_certificates(data, password.encode("utf-8"))
    except ValueError:
        raise CertificateError(
            "the password does not open this file, or it is not a PKCS#12 certificate (.pfx/.p12)"
        ) from None
    if key is None:
        raise CertificateError("the file holds no private key")
    if not isinstance(key, rsa.RSAPrivateKey):
        raise CertificateError(f"SUNAT takes RSA keys; this certificate's key is {type(key).__name__}")
    if key.key_size < MIN_RSA_BITS:
        raise CertificateError(f"the RSA key has {key.key_size} bits; at least {MIN_RSA_BITS} are required")
    candidates = [cert] if cert is not None else list(chain)  # some files carry it among the others
    if not candidates:
        raise CertificateError("the file holds no certificate")
    matching = [candidate for candidate in candidates if _certifies(candidate, key)]
    if not matching:
        raise CertificateError("the private key in the file does not match its certificate")
    cert = matching[0]
    now = now or dt.datetime.now(dt.UTC)
    if cert.not_valid_before_utc > now:
        raise CertificateError(
            f"the certificate is not valid yet (from {cert.not_valid_before_utc:%d/%m/%Y})"
        )
    if cert.not_valid_after_utc <= now:
        raise CertificateError(f"the certificate expired on {cert.not_valid_after_utc:%d/%m/%Y}")
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return key_pem, cert.public_bytes(serialization.Encoding.PEM)


def _certifies(cert: x509.Certificate, key: rsa.RSAPrivateKey) -> bool:
    """Whether ``cert`` is the certificate of ``key``'s public half."""
    public = cert.public_key()
    return (
        isinstance(public, rsa.RSAPublicKey) and public.public_numbers() == key.public_key().public_numbers()
    )


def import_certificate(directory: Path, data: bytes, password: str, vault: Vault) -> CertificateInfo:
    """Check a PKCS#12 file (:func:`read_pkcs12`) and make it the identity kept in ``directory``: the
    certificate in clear, the key encrypted with ``vault`` (both 0600); the files it replaces are renamed
    ``*.replaced-<UTC time>``. Returns what the certificate says."""
    key_pem, cert_pem = read_pkcs12(data, password)
    private_directory(directory)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d%H%M%S%f")
    for name in (KEY_FILE, ENCRYPTED_KEY_FILE, CERT_FILE):
        if (directory / name).exists():
            (directory / name).rename(directory / f"{name}.replaced-{stamp}")
    _write_private(directory / ENCRYPTED_KEY_FILE, vault.encrypt(key_pem).encode("ascii"))
    _write_private(directory / CERT_FILE, cert_pem)
    return certificate_info(x509.load_pem_x509_certificate(cert_pem))


def stored_certificate(directory: Path) -> CertificateInfo | None:
    """What the certificate kept in ``directory`` says, or None when there is none."""
    try:
        return certificate_info(x509.load_pem_x509_certificate((directory / CERT_FILE).read_bytes()))
    except (OSError, ValueError):
        return None


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` created 0600 (replacing it atomically)."""
    staging = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.replace(staging, path)


def ensure_identity(directory: Path, ruc: str, name: str) -> None:
    """Create a key and a self-signed certificate for ``ruc`` in ``directory`` unless it has them."""
    has_key = (directory / KEY_FILE).exists() or (directory / ENCRYPTED_KEY_FILE).exists()
    if has_key and (directory / CERT_FILE).exists():
        return
    private_directory(directory.parent)
    staging = Path(tempfile.mkdtemp(dir=directory.parent))  # mkdtemp makes it 0700
    key_pem, cert_pem = generate_identity(ruc, name)
    (staging / KEY_FILE).write_bytes(key_pem)
    (staging / KEY_FILE).chmod(0o600)
    (staging / CERT_FILE).write_bytes(cert_pem)
    (staging / CERT_FILE).chmod(0o600)  # public, but nothing in the data directory is for other users
    try:
        staging.rename(directory)
    except OSError:  # another process won the race, or the directory holds other files: keep what is there
        if directory.is_dir() and not (directory / KEY_FILE).exists():
            for name_ in (KEY_FILE, CERT_FILE):
                shutil.move(str(staging / name_), directory / name_)
        shutil.rmtree(staging, ignore_errors=True)


def load_identity(directory: Path, ruc: str, name: str, vault: Vault | None = None) -> SigningIdentity:
    """The identity kept in ``directory``, created first if missing (an imported key is decrypted with
    ``vault``)."""
    ensure_identity(directory, ruc, name)
    cert_pem = (directory / CERT_FILE).read_bytes()
    if (directory / ENCRYPTED_KEY_FILE).exists():
        if vault is None:
            raise CertificateError(f"the key in {directory} is encrypted: the service's secret key is needed")
        key_pem = vault.decrypt_bytes((directory / ENCRYPTED_KEY_FILE).read_text("ascii").strip())
        return SigningIdentity.from_pem(key_pem, cert_pem)
    return SigningIdentity.from_pem((directory / KEY_FILE).read_bytes(), cert_pem)


def identity_version(directory: Path) -> int:
    """A number that changes when the identity in ``directory`` is replaced (its certificate file's
    modification time), so that processes that cached it load it again."""
    try:
        return (directory / CERT_FILE).stat().st_mtime_ns
    except OSError:
        return 0
