"""A company's own certificate and its SOL password: imported from the command line, checked, kept
encrypted, used to sign, never shown.

The certificates are made here: an RSA-2048 key with a certificate issued by a test authority, packed as
a modern PKCS#12 (AES, PBKDF2) and as a legacy one (RC2/3DES, as SUNAT's free certificate is) by
``openssl pkcs12 -legacy``. The end-to-end test runs the real CLI and ``facturador serve``.
"""

from __future__ import annotations

import base64
import datetime as dt
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID
from lxml import etree

from facturador.config import Settings
from facturador.store.identities import CertificateError, read_pkcs12
from tests.helpers import assert_signed
from tests.samples.bodies import invoice_body
from tests.served import serve

SLUG = "firmante"
RUC = "20100066603"
TOKEN = "firmante-token-0123456789-abcdefghijklmnopq"
PASSWORD = "clave-del-pfx-ñ"
SOL_PASSWORD = "S0l-secreta&<ñ>"
NOW = dt.datetime.now(dt.UTC)


def _certificate(
    key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey,
    *,
    starts: dt.timedelta = dt.timedelta(days=-1),
    ends: dt.timedelta = dt.timedelta(days=365),
    issuer_key: rsa.RSAPrivateKey | None = None,
) -> x509.Certificate:
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, "PE"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "EMPRESA FIRMANTE S.A.C."),
            x509.NameAttribute(NameOID.SERIAL_NUMBER, RUC),
            x509.NameAttribute(NameOID.COMMON_NAME, f"{RUC} EMPRESA FIRMANTE"),
        ]
    )
    issuer = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "AUTORIDAD DE PRUEBA")])
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW + starts)
        .not_valid_after(NOW + ends)
        .sign(issuer_key or rsa.generate_private_key(public_exponent=65537, key_size=2048), hashes.SHA256())
    )


def _pfx(key, cert: x509.Certificate, password: str = PASSWORD) -> bytes:  # type: ignore[no-untyped-def]
    return pkcs12.serialize_key_and_certificates(
        b"firmante", key, cert, None, serialization.BestAvailableEncryption(password.encode())
    )


def _legacy_pfx(tmp_path: Path, key: rsa.RSAPrivateKey, cert: x509.Certificate) -> bytes:
    """A PKCS#12 file with the legacy encryption of SUNAT's free certificate (RC2-40 / 3DES)."""
    if shutil.which("openssl") is None:  # pragma: no cover - Debian has it
        pytest.skip("needs the openssl command to make a legacy PKCS#12 file")
    key_path, cert_path, out = tmp_path / "k.pem", tmp_path / "c.pem", tmp_path / "legacy.p12"
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    command = ["openssl", "pkcs12", "-export", "-legacy", "-inkey", str(key_path), "-in", str(cert_path)]
    done = subprocess.run(
        [*command, "-out", str(out), "-passout", f"pass:{PASSWORD}"], capture_output=True, text=True
    )
    if done.returncode != 0:  # an OpenSSL without the legacy provider: 3DES for both, still legacy PBE
        done = subprocess.run(
            ["openssl", "pkcs12", "-export", "-inkey", str(key_path), "-in", str(cert_path), "-out", str(out)]
            + ["-passout", f"pass:{PASSWORD}", "-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES"]
            + ["-macalg", "sha1"],
            capture_output=True,
            text=True,
        )
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


@pytest.fixture(scope="module")
def key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def test_modern_and_legacy_files_load(tmp_path: Path, key: rsa.RSAPrivateKey) -> None:
    cert = _certificate(key)
    for data in (_pfx(key, cert), _legacy_pfx(tmp_path, key, cert)):
        key_pem, cert_pem = read_pkcs12(data, PASSWORD)
        assert x509.load_pem_x509_certificate(cert_pem) == cert
        loaded = serialization.load_pem_private_key(key_pem, None)
        assert isinstance(loaded, rsa.RSAPrivateKey)
        assert loaded.private_numbers() == key.private_numbers()


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("wrong password", "the password does not open this file"),
        ("not a certificate", "the password does not open this file"),
        ("mismatched key", "does not match its certificate"),
        ("expired", "the certificate expired on"),
        ("not yet valid", "not valid yet"),
        ("elliptic curve", "SUNAT takes RSA keys"),
        ("short key", "at least 2048 are required"),
    ],
)
def test_unusable_files_are_refused_with_the_reason(case: str, message: str, key: rsa.RSAPrivateKey) -> None:
    data, password = b"", PASSWORD
    if case == "wrong password":
        data, password = _pfx(key, _certificate(key)), "otra-clave"
    elif case == "not a certificate":
        data = b"PK\x03\x04 this is a zip, not a pfx"
    elif case == "mismatched key":  # the key with another key's certificate beside it
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        data = pkcs12.serialize_key_and_certificates(
            b"firmante",
            key,
            None,
            [_certificate(other)],
            serialization.BestAvailableEncryption(PASSWORD.encode()),
        )
    elif case == "expired":
        data = _pfx(key, _certificate(key, starts=dt.timedelta(days=-400), ends=dt.timedelta(days=-2)))
    elif case == "not yet valid":
        data = _pfx(key, _certificate(key, starts=dt.timedelta(days=3)))
    elif case == "elliptic curve":
        curve_key = ec.generate_private_key(ec.SECP256R1())
        data = _pfx(curve_key, _certificate(curve_key))
    elif case == "short key":
        short = rsa.generate_private_key(public_exponent=65537, key_size=1024)
        data = _pfx(short, _certificate(short))
    with pytest.raises(CertificateError, match=message):
        read_pkcs12(data, password)


def _cli(
    settings: Settings, *arguments: str, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "facturador.cli", *arguments],
        env={**os.environ, **settings.export(), **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow(seconds=45)
def test_an_imported_certificate_signs_and_no_secret_is_kept_or_shown_in_clear(
    tmp_path: Path, key: rsa.RSAPrivateKey
) -> None:
    data_dir = tmp_path / "data"
    settings = Settings(data_dir=data_dir, database_url=f"sqlite:///{data_dir / 'facturador.db'}")
    Settings.resolve(data_dir)
    created = _cli(
        settings, "tenant", "create", SLUG, "--ruc", RUC, "--name", "EMPRESA FIRMANTE", "--token", TOKEN
    )
    assert created.returncode == 0, created.stderr
    cert = _certificate(key, ends=dt.timedelta(days=20))
    pfx = tmp_path / "empresa.pfx"
    pfx.write_bytes(_legacy_pfx(tmp_path, key, cert))

    wrong = _cli(
        settings, "tenant", "certificate", SLUG, str(pfx), "--password-env", "PFX", env={"PFX": "mala"}
    )
    assert wrong.returncode != 0 and "the password does not open this file" in wrong.stderr
    imported = _cli(
        settings, "tenant", "certificate", SLUG, str(pfx), "--password-env", "PFX", env={"PFX": PASSWORD}
    )
    assert imported.returncode == 0, imported.stderr
    assert "EMPRESA FIRMANTE" in imported.stdout and "(19 days)" in imported.stdout

    # production needs the SOL user and password first; the password comes from a prompt or a variable
    refused = _cli(settings, "tenant", "set", SLUG, "sunat_sending=production")
    assert refused.returncode != 0
    assert "needs the SOL user" in refused.stderr and "the SOL password" in refused.stderr
    assert _cli(settings, "tenant", "set", SLUG, "sol_user=FACTURA1").returncode == 0
    prompted = _cli(
        settings, "tenant", "secret", SLUG, "sol_password", stdin=f"{SOL_PASSWORD}\n{SOL_PASSWORD}\n"
    )
    assert prompted.returncode == 0, prompted.stderr
    from_env = _cli(
        settings, "tenant", "secret", SLUG, "gre_client_secret", "--from-env", "GRE", env={"GRE": "gre-123"}
    )
    assert from_env.returncode == 0, from_env.stderr
    switched = _cli(
        settings, "tenant", "set", SLUG, "sunat_sending=production", "sunat_url=http://127.0.0.1:9"
    )
    assert switched.returncode == 0, switched.stderr
    assert "self-signed" not in switched.stderr  # the imported certificate is the company's
    assert _cli(settings, "tenant", "set", SLUG, "sunat_sending=simulator").returncode == 0
    listed = _cli(settings, "tenant", "list")
    assert listed.returncode == 0, listed.stderr
    assert "sol_password=set" in listed.stdout and "gre_client_secret=set" in listed.stdout
    assert "gre_password=not set" in listed.stdout
    assert "CN=20100066603 EMPRESA FIRMANTE" in listed.stdout and "in 19 days" in listed.stdout

    with serve(settings, tmp_path / "serve.log", "--send-pending-every", "0") as served:
        with served.client(SLUG, TOKEN) as client:
            issued = client.post("/api/documents", json=invoice_body())
            assert issued.status_code == 200, issued.text
            assert issued.json()["data"]["state_type_id"] == "05"
            xml = httpx.get(issued.json()["links"]["xml"]).content
            answers = [issued.text, client.get("/api/company/certificate").text]
            # now through SOAP, to this server's own SUNAT endpoint, with the SOL user and password
            beta = _cli(
                settings, "tenant", "set", SLUG, "sunat_sending=beta", f"sunat_url={served.root}/sunat"
            )
            assert beta.returncode == 0, beta.stderr
            time.sleep(5.5)  # a running service re-reads a tenant's settings every 5 s
            through_soap = client.post("/api/documents", json=invoice_body())
            assert through_soap.status_code == 200, through_soap.text
            assert through_soap.json()["data"]["state_type_id"] == "05", through_soap.text
            answers.append(through_soap.text)
            answers.append(client.get("/api/documents/lists").text)
            status = client.get("/api/company/certificate").json()["data"]
    assert_signed(xml)
    signer = etree.fromstring(xml).find(".//{http://www.w3.org/2000/09/xmldsig#}X509Certificate")
    assert signer is not None
    assert base64.b64decode(signer.text or "") == cert.public_bytes(serialization.Encoding.DER)
    assert status["certificate"]["days_left"] == 19 and status["certificate"]["self_signed"] is False
    assert status["sending"] == "beta"
    assert status["last_certificate_error"] is None

    # nothing secret in clear: not in the data directory, the log, the CLI's output or the API's answers
    key_der = key.private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    key_pem_body = base64.b64encode(key_der)[:64]
    secrets = [SOL_PASSWORD.encode(), b"gre-123", key_der[-64:], key_pem_body]
    files = [path for path in data_dir.rglob("*") if path.is_file()]
    assert files
    for path in files:
        content = path.read_bytes()
        for secret in secrets:
            assert secret not in content, f"{secret!r} in {path}"
    texts = [served.output(), listed.stdout, listed.stderr, prompted.stdout, switched.stdout, *answers]
    for text in texts:
        assert SOL_PASSWORD not in text and "gre-123" not in text and key_pem_body.decode() not in text

    # another secret key does not open them: a clear error at start, not a failure at the first send
    other_key = _cli(settings, "secret-key").stdout.strip()
    locked = _cli(settings, "tenant", "list", env={"FACTURADOR_SECRET_KEY": other_key})
    assert locked.returncode != 0
    assert "does not open the secrets kept in this database" in locked.stderr
    assert "FACTURADOR_SECRET_KEY" in locked.stderr
    started = subprocess.run(
        [sys.executable, "-m", "facturador.cli", "serve", "--port", "9"],
        env={**os.environ, **settings.export(), "FACTURADOR_SECRET_KEY": other_key},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert started.returncode != 0 and "does not open the secrets" in started.stderr
