"""Documents e-mailed to customers, against a real SMTP server the tests start (aiosmtpd on loopback).

Over real HTTP on the live service: ``acciones.enviar_email`` on issue, ``POST /api/document/email`` and
``POST /api/sale-note/email`` queue a delivery; the background worker (run as the job-queue tests run
it, :class:`~facturador.domain.pending.Worker` on the live context) sends it through the tenant's SMTP
server, and the message that arrived is read: subject, sender, recipient, attachments (the PDF, the
signed XML, the CDR zip). A refused recipient is recorded failed; a server down then up is retried;
STARTTLS with a self-signed certificate; 4xx for what cannot be sent.
"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import io
import ipaddress
import os
import ssl
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from lxml import etree

from facturador.domain.email_delivery import configure_smtp
from facturador.domain.pending import Worker
from sunat.calendar import LIMA
from tests.conftest import LiveService, free_port
from tests.samples.bodies import invoice_body
from tests.shops import Shop, new_shop

SMTP_USER = "facturas@empresa.pe"
SMTP_PASSWORD = "Clave.SMTP-2026"
CUSTOMER = "cliente@example.pe"
REFUSED = "no-existe@example.pe"


@dataclass
class Inbox:
    """An aiosmtpd handler keeping every message that arrives; refuses :data:`REFUSED` with 550."""

    messages: list[tuple[str, list[str], bytes]] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:  # noqa: N802
        if address == REFUSED:
            return "550 5.1.1 <no-existe@example.pe>: buzón inexistente"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        with self.lock:
            self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 Message accepted for delivery"

    def authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (
            SMTP_USER.encode(),
            SMTP_PASSWORD.encode(),
        )
        if ok:
            self.logins.append(data.login.decode())
        return AuthResult(success=ok, handled=False)

    def parsed(self, index: int = -1) -> tuple[str, list[str], EmailMessage]:
        sender, recipients, raw = self.messages[index]
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        return sender, recipients, message


def start_smtp(inbox: Inbox, port: int, **options: Any) -> Controller:
    controller = Controller(
        inbox,
        hostname="127.0.0.1",
        port=port,
        authenticator=inbox.authenticate,
        auth_require_tls=False,
        **options,
    )
    controller.start()
    return controller


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    box, port = Inbox(), free_port()
    controller = start_smtp(box, port)
    try:
        yield box, port
    finally:
        controller.stop()


def smtp_shop(live: LiveService, port: int, **extra: Any) -> Shop:
    """A fresh tenant whose SMTP server is the test's (plain, with login), retries after 0.2 s."""
    shop = new_shop(live, "mail", email_retry_seconds=0.2, email_max_attempts=3, smtp_timeout=5.0)
    changes = {
        "smtp_host": "127.0.0.1",
        "smtp_port": port,
        "smtp_tls": "none",
        "smtp_user": SMTP_USER,
        "smtp_from": "facturas@empresa.pe",
        "smtp_from_name": "Facturación MAIL",
        **extra,
    }
    configure_smtp(live.context, shop.slug, changes, SMTP_PASSWORD, clear_password=False)
    return shop


def work(live: LiveService) -> int:
    """One pass of the background worker on the live service's store (as tests/…/test_job_queue.py)."""
    return Worker(live.context, lease_seconds=30).run_once()


def issue(client: httpx.Client, **customer: Any) -> dict[str, Any]:
    body = invoice_body()
    body["datos_del_cliente_o_receptor"] = {**body["datos_del_cliente_o_receptor"], **customer}
    body["acciones"] = {**(body.get("acciones") or {}), "enviar_email": True}
    response = client.post("/api/documents", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def deliveries(client: httpx.Client, external_id: str) -> list[dict[str, Any]]:
    response = client.get(f"/api/documents/email-deliveries/{external_id}")
    assert response.status_code == 200, response.text
    return response.json()["data"]


def attachments(message: EmailMessage) -> dict[str, bytes]:
    found = {}
    for part in message.iter_attachments():
        content = part.get_content()
        found[str(part.get_filename())] = content if isinstance(content, bytes) else content.encode()
    return found


def test_issue_with_enviar_email_delivers_pdf_xml_and_cdr(
    live: LiveService, inbox: tuple[Inbox, int]
) -> None:
    box, port = inbox
    shop = smtp_shop(live, port)
    with shop.http() as client:
        issued = issue(client, correo_electronico=CUSTOMER)
        data = issued["data"]
        assert data["state_type_id"] == "05"  # accepted: the CDR goes too
        [queued] = deliveries(client, data["external_id"])
        assert queued["state"] == "queued" and queued["email"] == CUSTOMER and queued["attempts"] == 0
        # the recorded time is the service's (injected) clock's, in Lima
        recorded = dt.datetime.strptime(queued["created_at"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=LIMA)
        assert abs((recorded - dt.datetime.fromtimestamp(live.clock(), LIMA)).total_seconds()) < 120
        assert box.messages == []  # nothing goes until the worker sends it
        work(live)
        assert len(box.messages) == 1
        sender, recipients, message = box.parsed()
        assert sender == "facturas@empresa.pe" and recipients == [CUSTOMER]
        assert box.logins == [SMTP_USER]  # logged in with the password kept encrypted
        assert message["Subject"] == f"FACTURA ELECTRÓNICA {data['number']} - MAIL S.A.C."
        assert message["From"] == "Facturación MAIL <facturas@empresa.pe>"
        assert message["To"] == CUSTOMER
        text = message.get_body(preferencelist=("plain",))
        assert text is not None and data["number"] in text.get_content()
        files = attachments(message)
        filename = data["filename"]
        assert set(files) == {f"{filename}.pdf", f"{filename}.xml", f"R-{filename}.zip"}
        assert files[f"{filename}.pdf"].startswith(b"%PDF")
        root = etree.fromstring(files[f"{filename}.xml"])
        assert root.findtext("{*}ID") == data["number"]
        with zipfile.ZipFile(io.BytesIO(files[f"R-{filename}.zip"])) as cdr:
            assert any(name.startswith("R-") and name.endswith(".xml") for name in cdr.namelist())
        # the same bytes the download routes give
        assert files[f"{filename}.xml"] == client.get(issued["links"]["xml"]).content
        [sent] = deliveries(client, data["external_id"])
        assert sent["state"] == "sent" and sent["send_it"] is True and sent["attempts"] == 1
        assert sent["sent_at"] is not None and sent["last_error"] is None
        rows = client.get("/api/documents/lists").json()["data"]
        row = next(row for row in rows if row["external_id"] == data["external_id"])
        assert row["email_send_it"] is True
        assert [item["state"] for item in row["email_send_it_array"]] == ["sent"]
        work(live)  # nothing is sent twice
        assert len(box.messages) == 1


def test_document_email_route_and_a_refused_recipient(live: LiveService, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    shop = smtp_shop(live, port)
    with shop.http() as client:
        # no customer address: the issue records the delivery failed, and says why
        issued = issue(client, correo_electronico="")
        data = issued["data"]
        [first] = deliveries(client, data["external_id"])
        assert first["state"] == "failed" and "no tiene correo" in first["last_error"]
        answer = client.post("/api/document/email", json={"id": data["id"], "email": REFUSED})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["success"] is True and body["data"]["state"] == "queued"
        work(live)
        assert box.messages == []
        failed = deliveries(client, data["external_id"])[-1]
        assert failed["state"] == "failed" and failed["attempts"] == 1
        assert "550" in failed["last_error"] and REFUSED in failed["last_error"]
        work(live)  # a refusal is not retried
        assert deliveries(client, data["external_id"])[-1]["attempts"] == 1
        # id as text (PHP clients), two addresses separated as real PRO reads them
        again = client.post(
            "/api/document/email", json={"id": str(data["id"]), "email": f"{CUSTOMER}; b@x.pe"}
        )
        assert again.status_code == 200, again.text
        work(live)
        _, recipients, message = box.parsed()
        assert recipients == [CUSTOMER, "b@x.pe"] and message["To"] == f"{CUSTOMER}, b@x.pe"
    jobs = subprocess.run(
        [sys.executable, "-m", "facturador.cli", "jobs"],
        env={**os.environ, **live.settings.export()},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert jobs.returncode == 0, jobs.stderr
    assert "E-mail deliveries:" in jobs.stdout
    assert f"to {REFUSED}: failed" in jobs.stdout and "550" in jobs.stdout
    assert SMTP_PASSWORD not in jobs.stdout


def test_a_server_down_then_up_is_retried_and_delivered(live: LiveService) -> None:
    port = free_port()
    shop = smtp_shop(live, port)  # nothing listens there yet
    with shop.http() as client:
        data = issue(client, correo_electronico=CUSTOMER)["data"]
        work(live)
        [waiting] = deliveries(client, data["external_id"])
        assert waiting["state"] == "queued" and waiting["attempts"] == 1
        assert "no se pudo conectar" in waiting["last_error"] and waiting["next_attempt_at"]
        box = Inbox()
        controller = start_smtp(box, port)
        try:
            time.sleep(0.3)  # the first retry waits 0.2 s
            work(live)
        finally:
            controller.stop()
        [sent] = deliveries(client, data["external_id"])
        assert sent["state"] == "sent" and sent["attempts"] == 2
        assert len(box.messages) == 1 and box.parsed()[1] == [CUSTOMER]


def test_retries_are_bounded(live: LiveService) -> None:
    shop = smtp_shop(live, free_port())
    with shop.http() as client:
        data = issue(client, correo_electronico=CUSTOMER)["data"]
        for _ in range(4):
            work(live)
            time.sleep(0.9)  # waits of 0.2 then 0.4 s
        [failed] = deliveries(client, data["external_id"])
        assert failed["state"] == "failed" and failed["attempts"] == 3
        assert "intento 3 de 3" in failed["last_error"]


def test_sale_note_email_sends_its_pdf(live: LiveService, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    shop = smtp_shop(live, port)
    with shop.http() as client:
        item = client.post(
            "/api/item",
            json={
                "internal_id": "MAIL-1",
                "description": "Producto MAIL",
                "unit_type_id": "NIU",
                "currency_type_id": "PEN",
                "sale_unit_price": 59,
                "sale_affectation_igv_type_id": "10",
                "stock": 10,
            },
        ).json()["data"]
        person = client.post(
            "/api/person",
            json={
                "type": "customers",
                "identity_document_type_id": "6",
                "number": "20487654320",
                "name": "DISTRIBUIDORA LOS ANDES S.A.C.",
                "country_id": "PE",
                "email": CUSTOMER,
            },
        ).json()["data"]["id"]
        [series] = client.get("/api/sale-note/series").json()["data"]
        line = {
            "item_id": item["id"],
            "quantity": 2,
            "unit_value": 50,
            "unit_price": 59,
            "price_type_id": "01",
            "affectation_igv_type_id": "10",
            "total_base_igv": 100,
            "percentage_igv": 18,
            "total_igv": 18,
            "total_taxes": 18,
            "total_value": 100,
            "total": 118,
        }
        note = {
            "series_id": series["id"],
            "date_of_issue": dt.date.today().isoformat(),
            "time_of_issue": "10:00:00",
            "currency_type_id": "PEN",
            "customer_id": person,
            "items": [line],
            "total_taxed": 100,
            "total_igv": 18,
            "total_taxes": 18,
            "total_value": 100,
            "total": 118,
        }
        created = client.post("/api/sale-note", json=note)
        assert created.status_code == 200, created.text
        note_id = created.json()["data"]["id"]
        answer = client.post("/api/sale-note/email", json={"id": note_id})  # the customer's address
        assert answer.status_code == 200, answer.text
        assert answer.json()["data"]["email"] == CUSTOMER
        work(live)
        _, recipients, message = box.parsed()
        assert recipients == [CUSTOMER]
        assert message["Subject"].startswith("NOTA DE VENTA NV01-")
        files = attachments(message)
        assert len(files) == 1
        [(name, content)] = files.items()
        assert name.startswith("NV01-") and name.endswith(".pdf") and content.startswith(b"%PDF")


def test_what_cannot_be_sent_is_refused_with_4xx(live: LiveService, inbox: tuple[Inbox, int]) -> None:
    _box, port = inbox
    shop, other = smtp_shop(live, port), smtp_shop(live, port)
    bare = new_shop(live, "nosmtp")
    with shop.http() as client, other.http() as stranger, bare.http() as unset:
        data = issue(client, correo_electronico="")["data"]  # its customer has no address
        url = "/api/document/email"
        cases = [
            (client.post(url, json={"id": data["id"]}), 422, "EMAIL_REQUIRED"),
            (
                client.post(url, json={"id": data["id"], "email": "no es correo"}),
                422,
                "INVALID_EMAIL_ADDRESS",
            ),
            (client.post(url, json={"email": CUSTOMER}), 422, None),
            (client.post(url, json={"id": 0, "email": CUSTOMER}), 422, None),
            (client.post(url, json={"id": 2**40, "email": CUSTOMER}), 422, None),
            (client.post(url, json=[1]), 400, None),
            (client.post(url, content=b"{"), 400, None),
            (client.post(url, json={"id": data["id"] + 10**6, "email": CUSTOMER}), 404, None),
            (stranger.post(url, json={"id": data["id"], "email": CUSTOMER}), 404, None),  # another tenant's
            (
                client.post("/api/sale-note/email", json={"id": 999999, "email": CUSTOMER}),
                404,
                "SALE_NOTE_NOT_FOUND",
            ),
            (client.get("/api/documents/email-deliveries/00000000-0000-0000-0000-000000000000"), 404, None),
            (stranger.get(f"/api/documents/email-deliveries/{data['external_id']}"), 404, None),
        ]
        for response, status, code in cases:
            assert response.status_code == status, (status, response.text)
            assert response.json()["success"] is False
            if code:
                assert response.json()["error_code"] == code
        bare_data = issue(unset, correo_electronico=CUSTOMER)["data"]
        refused = unset.post(url, json={"id": bare_data["id"], "email": CUSTOMER})
        assert refused.status_code == 409 and refused.json()["error_code"] == "SMTP_NOT_CONFIGURED"
        assert "SMTP" in refused.json()["message"]
        [failed] = deliveries(unset, bare_data["external_id"])  # enviar_email on issue: recorded why
        assert failed["state"] == "failed" and "SMTP" in failed["last_error"]
    with live.client(shop.slug, "not-the-token-0123456789") as wrong:
        assert (
            wrong.post("/api/document/email", json={"id": data["id"], "email": CUSTOMER}).status_code == 401
        )
        assert wrong.get(f"/api/documents/email-deliveries/{data['external_id']}").status_code == 401


# -- TLS ---------------------------------------------------------------------------------------------


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by its own key (PEM files: certificate, key)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "smtp.pem", directory / "smtp.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


def test_starttls_with_a_private_certificate(live: LiveService, tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    box, port = Inbox(), free_port()
    controller = Controller(
        box,
        hostname="127.0.0.1",
        port=port,
        tls_context=tls,
        require_starttls=True,
        authenticator=box.authenticate,
    )
    controller.start()
    try:
        trusting = smtp_shop(live, port, smtp_tls="starttls", smtp_cafile=str(cert))
        distrusting = smtp_shop(live, port, smtp_tls="starttls")
        with trusting.http() as client, distrusting.http() as other:
            good = issue(client, correo_electronico=CUSTOMER)["data"]
            bad = issue(other, correo_electronico=CUSTOMER)["data"]
            work(live)
            assert deliveries(client, good["external_id"])[0]["state"] == "sent"
            [refused] = deliveries(other, bad["external_id"])
            assert refused["state"] == "failed" and "TLS" in refused["last_error"]  # not retried
    finally:
        controller.stop()
    assert len(box.messages) == 1 and box.logins == [SMTP_USER]  # logged in over TLS only


def test_cli_sets_smtp_without_showing_the_password(live: LiveService) -> None:
    shop = new_shop(live, "mailcli")
    env = {**os.environ, **live.settings.export(), "SMTP_SECRET": SMTP_PASSWORD}
    base = [sys.executable, "-m", "facturador.cli", "tenant", "smtp", shop.slug]
    done = subprocess.run(
        [*base, "--host", "smtp.example.pe", "--port", "465", "--tls", "ssl", "--user", SMTP_USER]
        + ["--from", "facturas@empresa.pe", "--password-env", "SMTP_SECRET"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "smtp.example.pe:465 tls=ssl" in done.stdout and "password set" in done.stdout
    assert SMTP_PASSWORD not in done.stdout + done.stderr
    bad = subprocess.run(
        [*base, "--from", "no es correo"], env=env, capture_output=True, text=True, timeout=120
    )
    assert bad.returncode != 0 and "smtp_from" in bad.stderr
    listed = subprocess.run(
        [sys.executable, "-m", "facturador.cli", "tenant", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "smtp_password=set" in listed.stdout and SMTP_PASSWORD not in listed.stdout
    # encrypted at rest: the database holds no clear password
    from sqlalchemy import select

    from facturador.store.models import TenantSecret

    with live.context.session() as session:
        stored = session.scalars(select(TenantSecret.value).where(TenantSecret.name == "smtp_password")).all()
    assert stored and all(SMTP_PASSWORD not in value for value in stored)


def test_the_connector_sends_and_follows_an_email(live: LiveService, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    shop = smtp_shop(live, port)
    with shop.client() as client:
        issued = client.documents.issue(invoice_body())
        queued = client.documents.email(issued.raw["data"]["id"], CUSTOMER)
        assert queued.state == "queued" and queued.email == CUSTOMER and queued.id is not None
        work(live)
        [delivery] = client.documents.email_deliveries(issued.external_id) or []
        assert delivery.sent and delivery.attempts == 1 and delivery.sent_at
        assert client.documents.email_deliveries("00000000-0000-0000-0000-000000000000") is None
    assert box.parsed()[1] == [CUSTOMER]


def test_implicit_tls(live: LiveService, tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    box, port = Inbox(), free_port()
    controller = Controller(  # aiosmtpd counts only STARTTLS as TLS for AUTH: allowed on this socket
        box,
        hostname="127.0.0.1",
        port=port,
        ssl_context=tls,
        authenticator=box.authenticate,
        auth_require_tls=False,
    )
    controller.start()
    try:
        shop = smtp_shop(live, port, smtp_tls="ssl", smtp_cafile=str(cert))
        with shop.http() as client:
            data = issue(client, correo_electronico=CUSTOMER)["data"]
            work(live)
            [delivery] = deliveries(client, data["external_id"])
            assert delivery["state"] == "sent", delivery["last_error"]
    finally:
        controller.stop()
    assert box.parsed()[1] == [CUSTOMER] and box.logins == [SMTP_USER]
