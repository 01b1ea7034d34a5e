"""Signing keys and certificates kept in the data directory: each tenant's, and the simulated authority's.

A directory (0700) holds ``signing-key.pem`` and ``certificate.pem``, both readable by their owner only.
It is created whole or not at all: concurrent workers that race to create one agree on the winner's.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from facturador.config import private_directory
from facturador.ubl.signing import SigningIdentity, generate_identity

KEY_FILE = "signing-key.pem"
CERT_FILE = "certificate.pem"


def ensure_identity(directory: Path, ruc: str, name: str) -> None:
    """Create a key and a self-signed certificate for ``ruc`` in ``directory`` unless it has them."""
    if (directory / KEY_FILE).exists() and (directory / CERT_FILE).exists():
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


def load_identity(directory: Path, ruc: str, name: str) -> SigningIdentity:
    """The identity kept in ``directory``, created first if missing."""
    ensure_identity(directory, ruc, name)
    return SigningIdentity.from_pem((directory / KEY_FILE).read_bytes(), (directory / CERT_FILE).read_bytes())
