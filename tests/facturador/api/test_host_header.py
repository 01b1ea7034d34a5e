"""The ``Host`` header a client sends reaches no link and no redirect unless the service trusts it: links
and ``Location`` name the address the connection reached (``http://127.0.0.1:PORT``, as the README's curl
example and every test use it), ``localhost`` on a loopback address, a host of
``FACTURADOR_ALLOWED_HOSTS``, or the tenant's configured host; any other Host is replaced by the tenant's
host or the server's address before anything reads it. Over HTTP, on the store the suite runs on.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from facturador.authority.soap.protocol import BILL_BETA_PATH
from facturador.domain.sunat_endpoint import SUNAT_MOUNT
from tests.conftest import LiveService
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME, ACME_TOKEN, OTHER, OTHER_TOKEN
from tests.samples.withholding import retention
from tests.served import serve

EVIL = "evil.example"
OTHER_HOST = "otra.localhost"  # the configured host of tenant ``other``


def links(payload: Any) -> list[str]:
    """Every URL in an answer (values that start with http)."""
    if isinstance(payload, dict):
        return [url for value in payload.values() for url in links(value)]
    if isinstance(payload, list):
        return [url for value in payload for url in links(value)]
    return [payload] if isinstance(payload, str) and payload.startswith("http") else []


def answers_with_links(client: httpx.Client, headers: dict[str, str]) -> list[httpx.Response]:
    """Answers of the service that carry links: an issued factura, the documents list, a retention and a
    page of customers."""
    answers = [
        client.post("/api/documents", json=invoice_body(), headers=headers),
        client.get("/api/documents/lists", headers=headers),
        client.post("/api/retentions", json=retention(), headers=headers),
        client.get("/api/persons/customers/records", headers=headers),
    ]
    for answer in answers:
        assert answer.status_code == 200, answer.text
    return answers


@pytest.mark.parametrize("sent", [EVIL, f"{EVIL}:8000", "127.0.0.1:1", OTHER_HOST])
def test_links_name_the_server_not_the_host_sent(live: LiveService, sent: str) -> None:
    """``acme`` has no host of its own: its links name the address the client reached, whatever Host
    says (another tenant's host included)."""
    with live.client(ACME, ACME_TOKEN) as client:
        answers = answers_with_links(client, {"Host": sent})
    found = [url for answer in answers for url in links(answer.json())]
    assert len(found) >= 5
    assert all(url.startswith(f"{live.root}/t/{ACME}/") for url in found), found
    assert all(sent not in answer.text for answer in answers)
    assert httpx.get(found[0]).status_code == 200  # and they lead somewhere


def test_a_tenant_with_a_host_gets_links_on_it(live: LiveService) -> None:
    """By its host, or at /t/SLUG whatever Host says, ``other``'s links name its configured host."""
    by_host = httpx.post(
        f"{live.root}/api/documents",
        json=invoice_body(),
        headers={"Host": OTHER_HOST, "Authorization": f"Bearer {OTHER_TOKEN}"},
    )
    assert by_host.status_code == 200, by_host.text
    assert by_host.json()["links"]["xml"].startswith(f"http://{OTHER_HOST}/downloads/document/xml/")
    with live.client(OTHER, OTHER_TOKEN) as client:
        at_slug = client.post("/api/documents", json=invoice_body(), headers={"Host": EVIL})
    assert at_slug.status_code == 200, at_slug.text
    assert at_slug.json()["links"]["xml"].startswith(f"http://{OTHER_HOST}/t/{OTHER}/downloads/document/")


def test_localhost_is_kept_on_a_loopback_address(live: LiveService) -> None:
    port = live.root.rsplit(":", 1)[1]
    with live.client(ACME, ACME_TOKEN) as client:
        answer = client.post("/api/documents", json=invoice_body(), headers={"Host": f"localhost:{port}"})
    assert answer.json()["links"]["pdf"].startswith(f"http://localhost:{port}/t/{ACME}/downloads/")


@pytest.mark.parametrize("prefix", [f"/t/{ACME}", ""])
def test_a_redirect_never_names_the_host_sent(live: LiveService, prefix: str) -> None:
    """A path with a trailing slash is redirected to the route without it: at the server's address."""
    answer = httpx.get(
        f"{live.root}{prefix}/api/documents/lists/",
        headers={"Host": EVIL, "Authorization": f"Bearer {ACME_TOKEN}"},
        follow_redirects=False,
    )
    assert answer.status_code in (301, 307, 308), answer.text
    assert answer.headers["location"] == f"{live.root}{prefix}/api/documents/lists"


def test_a_request_without_host_gets_the_servers_address(live: LiveService) -> None:
    host, port = live.root.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(f"GET /t/{ACME}/api/documents/lists/ HTTP/1.0\r\n\r\n".encode())
        answer = connection.recv(65536).decode(errors="replace")
    assert f"location: {live.root}/t/{ACME}/api/documents/lists\r\n" in answer.lower(), answer[:400]


@pytest.mark.slow
def test_allowed_hosts_are_kept(live: LiveService, tmp_path: Path) -> None:
    """``FACTURADOR_ALLOWED_HOSTS`` names the hosts a proxy in front of ``facturador serve`` answers on."""
    env = {"FACTURADOR_ALLOWED_HOSTS": "facturas.example.com, api.example.com"}
    with serve(live.settings, tmp_path / "serve.log", "--send-pending-every", "0", env=env) as served:
        with served.client(ACME, ACME_TOKEN) as client:
            allowed = client.post("/api/documents", json=invoice_body(), headers={"Host": "API.example.com"})
            other = client.post("/api/documents", json=invoice_body(), headers={"Host": EVIL})
    assert allowed.json()["links"]["cdr"].startswith(f"http://api.example.com/t/{ACME}/downloads/")
    assert other.json()["links"]["cdr"].startswith(f"{served.root}/t/{ACME}/downloads/")


def test_the_soap_simulators_wsdl_names_the_server(live: LiveService) -> None:
    """The SOAP endpoint mounted at /sunat writes its own address into the WSDL it serves."""
    answer = httpx.get(f"{live.root}{SUNAT_MOUNT}{BILL_BETA_PATH}?wsdl", headers={"Host": EVIL})
    assert answer.status_code == 200, answer.text
    assert f'location="{live.root}{SUNAT_MOUNT}{BILL_BETA_PATH}"'.encode() in answer.content
    assert EVIL.encode() not in answer.content
