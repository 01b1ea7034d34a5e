"""The connector over a transport it is given (``Client(transport=...)``): answers a MockTransport chooses,
without any server, for what the connector itself does with them (reading, errors, the cache, the
rate limit, never retrying an issue); and a RecordingTransport in front of the live service."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests

from connector import (
    AuthenticationError,
    CacheSettings,
    Client,
    OutcomeUnknownError,
    TransportError,
    ValidationError,
    hookimpl,
)
from connector.transports import REDACTED, Answer, MockTransport, RecordingTransport
from tests.conftest import LiveService, free_port
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME, ACME_TOKEN

BASE = "https://empresa.example.pe"
ROW = {
    "id": 7,
    "external_id": "b7e1",
    "date_of_issue": "05-11-2026",
    "number": "F001-7",
    "document_type_id": "01",
    "state_type_id": "05",
    "currency_type_id": "PEN",
    "total": 118.0,
}


class Tenant:
    """A handler that answers by path and keeps what it was asked."""

    def __init__(self, answers: dict[str, Answer | list[Answer]]) -> None:
        self.answers = answers
        self.asked: list[tuple[str, str, Any]] = []

    def __call__(self, request: requests.PreparedRequest) -> Answer:
        body = json.loads(request.body) if request.body else None
        self.asked.append((str(request.method), str(request.path_url), body))
        answer = self.answers.get(str(request.path_url), Answer(404, json={"message": "No encontrado"}))
        if isinstance(answer, list):
            return answer.pop(0)
        return answer


def client_of(tenant: Tenant, **options: Any) -> Client:
    return Client(BASE, "secret-token", transport=MockTransport(tenant), **options)


def test_a_mock_answer_is_read_as_the_tenants() -> None:
    tenant = Tenant(
        {"/api/documents/lists": Answer(200, json={"data": [ROW]}, headers={"X-RateLimit-Limit": "60"})}
    )
    with client_of(tenant) as client:
        listed = client.documents.latest()
        assert [(d.number, str(d.date_of_issue), d.total) for d in listed] == [("F001-7", "2026-11-05", 118)]
        assert client.profile.laravel and client.profile.list_dates == "d-m-Y"  # what the answer told
        assert client.ping().ok
    assert [path for _, path, _ in tenant.asked] == ["/api/documents/lists", "/api/documents/lists"]


def test_refusals_map_to_the_connectors_errors() -> None:
    refusal = {"success": False, "message": "Datos inválidos", "errors": [{"field": "serie", "message": "x"}]}
    tenant = Tenant(
        {
            "/api/documents": [
                Answer(422, json=refusal),
                Answer(500, json={"success": False, "message": "El documento ya existe"}),
            ],
            "/api/documents/lists": Answer(401, json={"message": "No se encuentra autenticado"}),
        }
    )
    with client_of(tenant) as client:
        with pytest.raises(ValidationError) as refused:
            client.documents.issue(invoice_body())
        assert [e.field for e in refused.value.field_errors] == ["serie"]
        with pytest.raises(OutcomeUnknownError, match="El documento ya existe"):
            client.documents.issue(invoice_body())  # a 5xx on issuing: maybe issued, never sent again
        with pytest.raises(AuthenticationError):
            client.documents.latest()
        assert not client.ping().ok
    assert [method for method, _, _ in tenant.asked].count("POST") == 2


def test_a_refused_connection_is_a_transport_error_and_a_plugin_stops_before_sending() -> None:
    def down(request: requests.PreparedRequest) -> Answer:
        raise requests.ConnectionError("Connection refused")

    with Client(BASE, "secret-token", transport=MockTransport(down)) as client:
        with pytest.raises(TransportError, match="conexión rechazada"):
            client.documents.latest()

    class Blocker:
        @hookimpl(families="documents")
        def facturador_validate_payload(self) -> list[str]:
            return ["No se emite hoy."]

    tenant = Tenant({})
    with client_of(tenant, plugins=[Blocker()]) as client, pytest.raises(ValidationError):
        client.documents.issue(invoice_body())
    assert tenant.asked == []  # nothing went out


def test_the_cache_and_the_rate_limit_stay_the_connectors() -> None:
    throttled = Answer(500, json={"message": "Too Many Attempts."})
    tenant = Tenant({"/api/documents/lists": [throttled, Answer(200, json={"data": [ROW]})]})
    with client_of(tenant, cache=CacheSettings(backend="memory")) as client:
        waits: list[float] = []
        client._http.rate.sleep = waits.append  # white box: no real wait
        assert not client.documents.latest().from_cache  # refused unprocessed, then sent again
        assert client.documents.latest().from_cache
        assert len(waits) == 1
    assert len(tenant.asked) == 2


def test_a_recording_transport_keeps_every_exchange_without_the_token(live: LiveService) -> None:
    recorder = RecordingTransport()
    with Client(live.base_url(ACME), ACME_TOKEN, transport=recorder) as client:
        result = client.documents.issue(invoice_body())
        client.documents.latest()
    issued, listed = recorder.exchanges
    assert (issued.method, issued.url, issued.status) == ("POST", f"{live.base_url(ACME)}/api/documents", 200)
    assert issued.sent_json()["serie_documento"] == invoice_body()["serie_documento"]
    assert json.loads(issued.received)["data"]["external_id"] == result.external_id
    assert (listed.method, listed.status) == ("GET", 200)
    assert all(e.headers["Authorization"] == REDACTED for e in recorder.exchanges)
    assert ACME_TOKEN not in repr(recorder.exchanges)


def test_a_recording_transport_records_a_request_that_got_no_answer() -> None:
    recorder = RecordingTransport()
    closed = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with Client(closed, "secret-token", transport=recorder) as client, pytest.raises(TransportError):
        client.documents.latest()
    (exchange,) = recorder.exchanges  # the given transport's own retries (none) are the only ones
    assert exchange.status is None and exchange.error == "ConnectionError"
