"""Every node signs with the tenant's certificate kept in the database: a certificate imported with the CLI
on one host (one data directory) is used by another node, on another data directory, for its very next
document, read back from the X509Certificate of the signed XML. On one SQLite file (two nodes, one data
directory, as SQLite is served) and on one PostgreSQL database (two data directories, as two hosts);
and the files an earlier release kept in ``tenants/<slug>/`` are copied into the database once."""

from __future__ import annotations

import base64
import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID
from lxml import etree

from facturador.config import Settings
from facturador.store.secrets import Vault
from tests.conftest import _fresh_postgres, free_port
from tests.nodes import Process, Tenant, child_env, new_tenant, simulator, start, wait_until_up
from tests.samples.bodies import invoice_body

PASSWORD = "clave-del-pfx"
DSIG = "{http://www.w3.org/2000/09/xmldsig#}"


def _pfx(ruc: str, common_name: str) -> tuple[bytes, bytes]:
    """A PKCS#12 file for ``ruc`` and its certificate (DER)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = dt.datetime.now(dt.UTC)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.SERIAL_NUMBER, ruc),
            x509.NameAttribute(NameOID.COMMON_NAME, f"{ruc} {common_name}"),
        ]
    )
    issuer = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "AUTORIDAD DE PRUEBA")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=365))
        .sign(key, hashes.SHA256())
    )
    data = pkcs12.serialize_key_and_certificates(
        b"empresa", key, cert, None, serialization.BestAvailableEncryption(PASSWORD.encode())
    )
    return data, cert.public_bytes(serialization.Encoding.DER)


def _signer(node: Process, tenant: Tenant) -> bytes:
    """Issue a factura through ``node``; the certificate (DER) its signed XML carries."""
    base = f"{node.root}/t/{tenant.slug}"
    headers = {"Authorization": f"Bearer {tenant.token}"}
    issued = httpx.post(f"{base}/api/documents", json=invoice_body(), headers=headers, timeout=120)
    assert issued.status_code == 200, issued.text
    xml = httpx.get(issued.json()["links"]["xml"], timeout=60).content
    found = etree.fromstring(xml).find(f".//{DSIG}X509Certificate")
    assert found is not None and found.text
    return base64.b64decode(found.text)


def _renew(settings: Settings, tenant: Tenant, pfx: Path) -> str:
    """``facturador tenant certificate`` on ``settings`` (a host's data directory), as an operator runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "facturador.cli", "tenant", "certificate", tenant.slug, str(pfx)]
        + ["--password-env", "PFX"],
        env=child_env(settings, {"PFX": PASSWORD}),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(params=["sqlite", "postgresql"])
def hosts(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[Settings]]:
    """The settings of two nodes on one database sharing a secret key: one data directory on SQLite, two
    (two hosts) on PostgreSQL (when FACTURADOR_TEST_DATABASE_URL names a server, else skipped)."""
    monkeypatch.setenv("FACTURADOR_SECRET_KEY", Vault.new_key())
    if request.param == "sqlite":
        settings = Settings.resolve(tmp_path / "data")
        yield [settings, settings]
        return
    server = os.environ.get("FACTURADOR_TEST_DATABASE_URL")
    if not server:
        pytest.skip("PostgreSQL: set FACTURADOR_TEST_DATABASE_URL")
    url, drop = _fresh_postgres(server)
    try:
        yield [Settings.resolve(tmp_path / "host-a", url), Settings.resolve(tmp_path / "host-b", url)]
    finally:
        drop()


@pytest.mark.slow(seconds=60)
def test_a_certificate_renewed_on_one_node_signs_the_next_document_of_every_node(
    hosts: list[Settings], tmp_path: Path
) -> None:
    host_a, host_b = hosts
    tenant = new_tenant(host_a, "renueva")
    first_pfx, first = _pfx(tenant.ruc, "PRIMERO")
    second_pfx, second = _pfx(tenant.ruc, "SEGUNDO")
    (tmp_path / "first.pfx").write_bytes(first_pfx)
    (tmp_path / "second.pfx").write_bytes(second_pfx)
    options = ("serve", "--send-pending-every", "0")
    node_a = start(host_a, tmp_path / "a.log", *options, port=free_port())
    node_b = start(host_b, tmp_path / "b.log", *options, port=free_port())
    try:
        wait_until_up(node_a)
        wait_until_up(node_b)
        generated = _signer(node_b, tenant)
        assert generated not in (first, second)  # the self-signed one made with the tenant
        assert _signer(node_a, tenant) == generated  # the same one on both nodes

        assert "signs with" in _renew(host_a, tenant, tmp_path / "first.pfx")
        assert _signer(node_b, tenant) == first  # the other node's very next document
        assert _signer(node_a, tenant) == first
        assert "signs with" in _renew(host_b, tenant, tmp_path / "second.pfx")  # renewed from the other host
        assert _signer(node_a, tenant) == second
        assert _signer(node_b, tenant) == second
        listed = subprocess.run(
            [sys.executable, "-m", "facturador.cli", "tenant", "list"],
            env=child_env(host_a),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert f"CN={tenant.ruc} SEGUNDO" in listed.stdout, listed.stdout + listed.stderr
    finally:
        node_a.stop()
        node_b.stop()
    for settings in hosts:  # nothing of the tenant's identity on any host's disk
        assert not (settings.data_dir / "tenants").exists()


def test_the_files_of_an_earlier_release_are_copied_into_the_database_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tenant whose certificate and encrypted key an earlier release kept in ``tenants/<slug>/``: the
    first ``facturador migrate`` copies them into the database, once, and leaves the files (for that
    release's nodes still running); the tenant then signs with that certificate, from any node."""
    from sqlalchemy import delete

    from facturador.context import ServiceContext
    from facturador.store.models import TenantCertificate

    monkeypatch.setenv("FACTURADOR_SECRET_KEY", Vault.new_key())
    settings = Settings.resolve(tmp_path / "data")
    tenant = new_tenant(settings, "antiguo")
    pfx, der = _pfx(tenant.ruc, "ANTIGUO")
    from facturador.store.identities import read_pkcs12

    key_pem, cert_pem = read_pkcs12(pfx, PASSWORD)
    folder = settings.tenant_dir(tenant.slug)
    folder.mkdir(parents=True)
    vault = Vault.open(settings.data_dir)
    (folder / "signing-key.enc").write_text(vault.encrypt(key_pem), encoding="ascii")
    (folder / "certificate.pem").write_bytes(cert_pem)
    (folder / "certificate.pem.replaced-20260101000000").write_bytes(b"older")
    context = ServiceContext(settings, migrate=False)
    with context.session() as session, session.begin():  # as before this release: nothing in the database
        session.execute(delete(TenantCertificate))
    context.engine.dispose()

    done = subprocess.run(
        [sys.executable, "-m", "facturador.cli", "migrate"],
        env=child_env(settings),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"{tenant.slug}: certificate and key copied from {folder} into the database." in done.stdout
    assert sorted(path.name for path in folder.iterdir()) == [  # left for the earlier release's nodes
        "certificate.pem",
        "certificate.pem.replaced-20260101000000",
        "signing-key.enc",
    ]
    again = subprocess.run(
        [sys.executable, "-m", "facturador.cli", "migrate"],
        env=child_env(settings),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0 and "copied" not in again.stdout
    node = start(settings, tmp_path / "node.log", "serve", "--send-pending-every", "0", port=free_port())
    try:
        wait_until_up(node)
        assert _signer(node, tenant) == der
    finally:
        node.stop()


def test_the_standalone_simulator_keeps_its_files_out_of_the_data_directory(tmp_path: Path) -> None:
    """``facturador sunat --state-dir`` keeps the key it signs CDRs with in its own folder: a node sending
    to it over SOAP gets its CDR, and the (shared) data directory gets no ``authority/``."""
    settings = Settings.resolve(tmp_path / "data")
    with simulator(settings, tmp_path) as sunat:
        tenant = new_tenant(settings, "aparte", sunat_url=sunat.root)
        node = start(settings, tmp_path / "node.log", "serve", "--send-pending-every", "0", port=free_port())
        try:
            wait_until_up(node)
            issued = httpx.post(
                f"{node.root}/t/{tenant.slug}/api/documents",
                json=invoice_body(),
                headers={"Authorization": f"Bearer {tenant.token}"},
                timeout=120,
            )
            assert issued.status_code == 200, issued.text
            assert issued.json()["data"]["state_type_id"] == "05", issued.text
        finally:
            node.stop()
    assert (tmp_path / "sunat-state" / "identity" / "certificate.pem").is_file()
    assert not (settings.data_dir / "authority" / "identity").exists()  # the node made only its GRE secret
