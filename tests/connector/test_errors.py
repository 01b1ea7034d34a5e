"""Every error class: from our service over real HTTP, and from real tenants' envelopes (stand-in)."""

from __future__ import annotations

import copy
import socket
from pathlib import Path

import pytest

from connector import (
    AuthenticationError,
    Client,
    ConflictError,
    FacturadorError,
    FieldError,
    NotFoundError,
    ServerError,
    TransportError,
    ValidationError,
)
from connector.builders import Customer, Invoice, Line
from connector.errors import OutcomeUnknownError, error_from_response
from tests.conftest import LiveService
from tests.connector.standin import Answer, StandIn
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME, ACME_TOKEN, OTHER_TOKEN

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- our service, over HTTP ------------------------------------------------------------------------


def test_wrong_token_is_an_authentication_error(live: LiveService) -> None:
    with Client(live.base_url(ACME), "not-the-token", cache=False) as client:
        with pytest.raises(AuthenticationError) as caught:
            client.documents.latest()
    error = caught.value
    assert error.status == 401 and error.message == "No se encuentra autenticado"
    assert error.error_code == "UNAUTHENTICATED"
    assert error.url is not None and error.url.endswith("/api/documents/lists")
    assert "not-the-token" not in str(error) + repr(error) + repr(error.body)


def test_token_of_another_tenant_is_refused(live: LiveService) -> None:
    with Client(live.base_url(ACME), OTHER_TOKEN, cache=False) as client:
        with pytest.raises(AuthenticationError):
            client.documents.issue(invoice_body())


def test_bad_totals_are_a_validation_error_with_field_errors(client: Client) -> None:
    body = invoice_body()
    body["totales"]["total_venta"] = 130
    body["items"][0]["total_igv"] = 25
    with pytest.raises(ValidationError) as caught:
        client.documents.issue(body)
    error = caught.value
    assert error.status == 422 and error.error_code == "TOTALS_MISMATCH"
    fields = {e.field for e in error.field_errors}
    assert {"totales.total_venta", "items.0.total_igv"} <= fields
    assert error.errors_for("items.0") and error.errors_for("totales.total_venta")
    assert "(HTTP 422, TOTALS_MISMATCH)" in str(error) and "items.0.total_igv" in str(error)


def test_unknown_series_is_a_validation_error(client: Client) -> None:
    invoice = Invoice(
        series="F777", customer=Customer.ruc("20601030013", "X S.A.C."), lines=[Line("A", 1, unit_price=1)]
    )
    with pytest.raises(ValidationError) as caught:
        client.documents.issue(invoice)
    assert caught.value.message == "La serie ingresada F777, es incorrecta."
    assert caught.value.field_errors == [
        FieldError("serie_documento", "La serie ingresada F777, es incorrecta.")
    ]


def test_duplicate_number_is_a_conflict(client: Client) -> None:
    first = client.documents.issue(invoice_body(serie_documento="F002"))
    again = invoice_body(serie_documento="F002", numero_documento=str(first.correlative))
    with pytest.raises(ConflictError) as caught:
        client.documents.issue(again)
    assert caught.value.status == 409 and caught.value.error_code == "DUPLICATE_DOCUMENT"
    assert caught.value.message == f"El documento: 01 F002-{first.correlative} ya se encuentra registrado."


def test_unknown_external_id_is_not_found(client: Client) -> None:
    with pytest.raises(NotFoundError) as caught:
        client.documents.send(UNKNOWN_ID)
    assert caught.value.status == 404
    assert (
        caught.value.message == f"El documento con código externo {UNKNOWN_ID}, no se encuentra registrado."
    )
    with pytest.raises(NotFoundError):
        client.documents.download_xml(UNKNOWN_ID)
    with pytest.raises(NotFoundError):
        client.documents.update_status(UNKNOWN_ID, "05")


def test_unknown_tenant_is_not_found(live: LiveService) -> None:
    with Client(live.base_url("nobody"), ACME_TOKEN, cache=False) as client:
        with pytest.raises(NotFoundError):
            client.documents.latest()


def test_service_down_is_a_transport_error(tmp_path: Path) -> None:
    with Client(f"http://127.0.0.1:{closed_port()}/t/acme", ACME_TOKEN, cache=False, timeout=2) as client:
        with pytest.raises(TransportError) as caught:
            client.documents.latest()
        assert caught.value.status is None and "conexión rechazada" in caught.value.message
        with pytest.raises(TransportError):
            client.documents.issue(invoice_body())
    assert ACME_TOKEN not in str(caught.value) + repr(caught.value)


def test_plugin_problems_raise_before_any_http_call() -> None:
    """A closed port: if the client tried HTTP this would be a TransportError."""
    body = invoice_body()
    body["detraccion"] = {"codigo_tipo_detraccion": "999"}
    with Client(f"http://127.0.0.1:{closed_port()}", ACME_TOKEN, cache=False) as client:
        with pytest.raises(ValidationError) as caught:
            client.documents.issue(body)
    assert caught.value.status is None and caught.value.error_code == "PLUGIN_VALIDATION"
    assert caught.value.message.startswith("No se envió el comprobante:")
    assert any(e.field == "detraccion.codigo_tipo_detraccion" for e in caught.value.field_errors)


# -- real tenants' envelopes (stand-in server) -----------------------------------------------------


def test_real_tenant_500_with_business_message(standin: StandIn) -> None:
    message = "La serie ingresada F001, es incorrecta."
    standin.on(
        "POST",
        "/api/documents",
        Answer(500, {"success": False, "message": message, "file": "Functions.php", "line": 42}),
    )
    with Client(standin.root, "real-token", cache=False) as client:
        with pytest.raises(OutcomeUnknownError) as caught:  # a ServerError whose document may exist
            client.documents.issue(invoice_body())
    assert caught.value.status == 500 and caught.value.reason == message
    assert str(caught.value).startswith(message) and "pudo haberlo registrado" in caught.value.message
    assert "client.documents.latest(fresh=True)" in caught.value.message
    assert standin.hits[0][2]["Authorization"] == "Bearer real-token"
    assert standin.hits[0][2]["Accept"] == "application/json"


def test_real_tenant_200_with_success_false(standin: StandIn) -> None:
    standin.on(
        "POST",
        "/api/documents/send",
        Answer(200, {"success": False, "message": "El external id es incorrecto"}),
    )
    with Client(standin.root, "real-token", cache=False) as client:
        with pytest.raises(ValidationError) as caught:
            client.documents.send("abc")
    assert caught.value.status == 200 and caught.value.message == "El external id es incorrecto"


def test_laravel_422_with_a_dict_of_lists(standin: StandIn) -> None:
    body = {
        "success": False,
        "message": {
            "number": ["El campo número es obligatorio."],
            "name": ["Nombre ya ha sido registrado.", "x"],
        },
    }
    standin.on("POST", "/api/documents", Answer(422, body))
    with Client(standin.root, "real-token", cache=False) as client:
        with pytest.raises(ValidationError) as caught:
            client.documents.issue(invoice_body())
    error = caught.value
    assert error.field_errors == [
        FieldError("number", "El campo número es obligatorio."),
        FieldError("name", "Nombre ya ha sido registrado."),
        FieldError("name", "x"),
    ]
    assert error.message == "El campo número es obligatorio."
    assert error.body == body


def test_html_error_pages_and_unexpected_bodies(standin: StandIn) -> None:
    standin.on(
        "GET",
        "/api/documents/lists",
        Answer(502, "<html><body>Bad gateway</body></html>", content_type="text/html"),
    )
    standin.on("POST", "/api/documents", Answer(200, "<html>login</html>", content_type="text/html"))
    with Client(standin.root, "real-token", cache=False) as client:
        with pytest.raises(ServerError) as caught:
            client.documents.latest()
        assert caught.value.status == 502 and "Bad gateway" in caught.value.message
        with pytest.raises(ServerError) as unexpected:
            client.documents.issue(invoice_body())
        assert unexpected.value.status == 200


@pytest.mark.parametrize(
    ("status", "body", "cls"),
    [
        (401, {"success": False, "message": "No se encuentra autenticado"}, AuthenticationError),
        (403, {"success": False, "message": ""}, AuthenticationError),
        (400, {"success": False, "message": "x", "error_code": "INVALID_JSON"}, ValidationError),
        (404, {"success": False, "message": "No se encontró la URL especificada"}, NotFoundError),
        (
            405,
            {"success": False, "message": "El método especificado en la petición no es válido"},
            FacturadorError,
        ),
        (409, {"success": False, "message": "dup", "error_code": "DUPLICATE_DOCUMENT"}, ConflictError),
        (
            422,
            {"success": False, "message": "x", "errors": [{"field": "a", "message": "b"}]},
            ValidationError,
        ),
        (500, {"success": False, "message": "Undefined index: items"}, ServerError),
        (503, None, ServerError),
        (200, {"success": False, "message": "No Autorizado"}, ValidationError),
    ],
)
def test_one_function_maps_every_answer(status: int, body: object, cls: type[FacturadorError]) -> None:
    error = error_from_response(status, copy.deepcopy(body), "http://tenant/api/x")
    assert type(error) is cls
    assert error is not None and error.status == status and error.url == "http://tenant/api/x"
    assert error.message  # never empty: "HTTP 403" when the service says nothing


def test_successes_map_to_nothing() -> None:
    assert error_from_response(200, {"success": True, "data": {}}) is None
    assert error_from_response(200, {"data": []}) is None
    assert error_from_response(204, None) is None
