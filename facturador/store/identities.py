"""Signing keys and certificates: each tenant's in the database, the simulated authority's on disk.

A tenant's identity is a row of ``tenant_certificates`` (its certificate, and its key encrypted with the
service's secret key as the SOL password is), so that every node, on any host, signs with the same one.
It is generated (self-signed, for the simulator) when the tenant is created; a company's own certificate
(``facturador tenant certificate``, a ``.pfx``/``.p12`` with its password) is checked
(:func:`read_pkcs12`) and added as a newer row, which every node signs with from its next document (they
check :func:`identity_version` before each signing). An earlier release kept them in
``tenants/<slug>/`` of the data directory: :func:`import_files` copies them in, once.

The simulated authority's identity stays in a directory (0700) holding ``signing-key.pem`` and
``certificate.pem`` (owner-only), created whole or not at all: concurrent workers that race to create one
agree on the winner's.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from sqlalchemy import func, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from facturador.config import private_directory
from facturador.store.models import TenantCertificate
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


def import_certificate(
    session: Session, tenant_id: int, data: bytes, password: str, vault: Vault
) -> CertificateInfo:
    """Check a PKCS#12 file (:func:`read_pkcs12`) and make it the tenant's identity: a new row of
    ``tenant_certificates``, the key encrypted with ``vault``, which every node signs with from its next
    document on (the rows it replaces stay, older). Returns what the certificate says."""
    key_pem, cert_pem = read_pkcs12(data, password)
    save_identity(session, tenant_id, key_pem, cert_pem, vault, source="imported")
    return certificate_info(x509.load_pem_x509_certificate(cert_pem))


def save_identity(
    session: Session, tenant_id: int, key_pem: bytes, cert_pem: bytes, vault: Vault, *, source: str
) -> None:
    """Add ``cert_pem`` and its key (encrypted) as the tenant's newest identity (flushed, not committed)."""
    session.add(
        TenantCertificate(
            tenant_id=tenant_id,
            certificate=cert_pem.decode("ascii"),
            signing_key=vault.encrypt(key_pem),
            source=source,
        )
    )
    session.flush()


def identity_version(connection: Connection | Session, tenant_id: int) -> int | None:
    """The id of the tenant's newest identity (None when it has none): it changes when a certificate is
    imported on any node, so a process checks it before each signing and loads the identity again."""
    query = select(func.max(TenantCertificate.id)).where(TenantCertificate.tenant_id == tenant_id)
    return connection.scalar(query)


def load_tenant_identity(
    session: Session, tenant_id: int, vault: Vault
) -> tuple[int, SigningIdentity] | None:
    """The tenant's newest identity and its version (:func:`identity_version`), or None."""
    row = session.scalar(
        select(TenantCertificate)
        .where(TenantCertificate.tenant_id == tenant_id)
        .order_by(TenantCertificate.id.desc())
        .limit(1)
    )
    if row is None:
        return None
    key_pem = vault.decrypt_bytes(row.signing_key)
    return row.id, SigningIdentity.from_pem(key_pem, row.certificate.encode("ascii"))


def ensure_tenant_identity(session: Session, tenant_id: int, ruc: str, name: str, vault: Vault) -> None:
    """Give the tenant a generated key and self-signed certificate (for the simulator) unless it has an
    identity."""
    if identity_version(session, tenant_id) is None:
        key_pem, cert_pem = generate_identity(ruc, name)
        save_identity(session, tenant_id, key_pem, cert_pem, vault, source="generated")


def stored_certificate(session: Session, tenant_id: int) -> CertificateInfo | None:
    """What the tenant's newest certificate says, or None when it has none."""
    pem = session.scalar(
        select(TenantCertificate.certificate)
        .where(TenantCertificate.tenant_id == tenant_id)
        .order_by(TenantCertificate.id.desc())
        .limit(1)
    )
    return None if pem is None else certificate_info(x509.load_pem_x509_certificate(pem.encode("ascii")))


def import_files(session: Session, tenant_id: int, directory: Path, vault: Vault) -> bool:
    """Copy the identity an earlier release kept in ``directory`` (``certificate.pem`` with
    ``signing-key.pem`` or ``signing-key.enc``) into the database, once: only when the tenant has no
    identity there yet. The files are left as they are (nodes of the earlier release still running
    during a rolling upgrade keep signing with them; this release never reads them again). Returns
    whether it copied them."""
    cert_path = directory / CERT_FILE
    if not cert_path.is_file() or identity_version(session, tenant_id) is not None:
        return False
    if (directory / ENCRYPTED_KEY_FILE).is_file():
        key_pem = vault.decrypt_bytes((directory / ENCRYPTED_KEY_FILE).read_text("ascii").strip())
    elif (directory / KEY_FILE).is_file():
        key_pem = (directory / KEY_FILE).read_bytes()
    else:
        return False
    save_identity(session, tenant_id, key_pem, cert_path.read_bytes(), vault, source="files")
    session.commit()
    return True


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
