"""``client.dispatches`` against the live service: builders, typed answers, ``wait_for_ticket`` and the
plugin hooks of the ``dispatches`` family (one test per hook)."""

from __future__ import annotations

from typing import Any

import pytest

from connector import FieldError, FormField, ValidationError, hookimpl, wait_for_ticket
from connector.dispatches import (
    CarrierGuide,
    Driver,
    GuideItem,
    GuideRef,
    Party,
    Place,
    PrivateTransport,
    PublicTransport,
    RelatedDocument,
    SenderGuide,
)
from connector.errors import ConflictError, NotFoundError
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.facturador.api.test_inventory import stock_of
from tests.samples.bodies import CUSTOMER_RUC, boleta_body, invoice_body
from tests.shops import Shop, new_shop

DRIVER = Driver("1", "12345678", "PEREZ GARCIA, JUAN", "Q12345678")


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "guias-conector", authority_ticket_delay=0.5)


def sender_guide(**changes: Any) -> SenderGuide:
    values: dict[str, Any] = {
        "customer": Party("6", "20100070970", "CLIENTE DESTINO S.A.C."),
        "origin": Place("150101", "Av. Principal 123, Lima", establishment="0000"),
        "delivery": Place("150132", "Jr. Los Olivos 456"),
        "transport": PrivateTransport(DRIVER, plate="ABC123", secondary_plates=["XYZ789"]),
        "weight": "25.5",
        "items": [GuideItem("Mercadería trasladada", 10, code="ASD")],
        "related": [RelatedDocument("01", "F001-1", description="Factura")],
        "packages": 3,
    }
    values.update(changes)
    return SenderGuide(**values)


def test_issue_send_and_wait_for_an_accepted_guide(shop: Shop) -> None:
    with shop.client() as client:
        ref = client.dispatches.issue(sender_guide())
        assert isinstance(ref, GuideRef) and ref.number.startswith("T001-")
        assert ref.filename == f"{shop.ruc}-09-{ref.number}"
        assert client.dispatches.download_xml(ref.external_id).startswith(b"<?xml")
        sent = client.dispatches.send(ref.external_id)
        assert sent.ticket and sent.ticket in sent.message
        status = sent.wait(timeout=20, initial=0.2)  # the sent guide waits for its own ticket
        assert status.accepted is True and status.state_type_id == "05"
        assert status.qr_url.startswith("https://e-factura.sunat.gob.pe/")
        assert client.dispatches.download_cdr(ref.external_id)[:2] == b"PK"
        listed = {r.external_id: r for r in client.dispatches.list(peru_today(), peru_today())}
        assert listed[ref.external_id].state_type_id == "05"
        with pytest.raises(ConflictError):
            client.dispatches.send(ref.external_id)


def test_public_transport_and_carrier_guides(shop: Shop) -> None:
    public = sender_guide(
        transport=PublicTransport(Party("6", "20131312955", "TRANSPORTES S.A.C."), mtc="123456")
    )
    carrier = CarrierGuide(
        sender=Party("6", "20100070970", "REMITENTE S.A.C."),
        recipient=Party("6", "20601030013", "DESTINATARIO S.A.C."),
        origin=Place("150101", "Av. Principal 123"),
        delivery=Place("150132", "Jr. Los Olivos 456"),
        transport=PrivateTransport(DRIVER, plate="ABC123", certificate="TUC1234567"),
        weight=100,
        items=[GuideItem("Cajas", 5, unit="BX")],
        mtc="MTC12345",
    )
    with shop.client() as client:
        assert client.dispatches.issue(public).number.startswith("T001-")
        ref = client.dispatches.issue(carrier)
        assert ref.number.startswith("V001-")
        client.dispatches.send(ref.external_id)
        status = client.dispatches.wait(external_id=ref.external_id, timeout=20, initial=0.2)
        assert status.accepted is True, status.message


def test_a_rejected_guide_reads_as_not_accepted(shop: Shop) -> None:
    guide = sender_guide(transport=PrivateTransport(DRIVER, plate="AB-12"))
    with shop.client() as client:
        ref = client.dispatches.issue(guide)
        client.dispatches.send(ref.external_id)
        status = wait_for_ticket(client.dispatches, external_id=ref.external_id, timeout=20, initial=0.2)
        assert status.accepted is False and status.state_type_id == "09"
        assert "AB12" in status.message  # written as SUNAT takes plates: upper case, no hyphen


def test_service_refusals_are_typed_errors(shop: Shop) -> None:
    with shop.client() as client:
        with pytest.raises(ValidationError) as refused:
            client.dispatches.issue(sender_guide(delivery=Place("15", "Av. X 1")))
        assert "direccion_llegada.ubigeo" in [e.field for e in refused.value.field_errors]
        with pytest.raises(NotFoundError):
            client.dispatches.send("00000000-0000-0000-0000-000000000000")
    with pytest.raises(ValueError):
        SenderGuide(
            origin=Place("150101", "X"), delivery=Place("150101", "Y"), weight=1, items=[GuideItem("x", 1)]
        ).to_payload()


# -- hooks of the dispatches family -------------------------------------------------------------------


class GuidePlugin:
    """A tenant plugin that only answers for guides."""

    def __init__(self) -> None:
        self.issued: list[tuple[str, Any]] = []

    @hookimpl
    def facturador_form_fields(self, family: str, document_type: str | None) -> list[FormField]:
        if family != "dispatches":
            return []
        return [FormField("guias.ruta", "Ruta", "text", section="Transporte")]

    @hookimpl
    def facturador_prepare_payload(self, family: str, payload: dict[str, Any], values: dict[str, Any]) -> Any:
        route = (values.get("guias.ruta") or "").strip()
        if family != "dispatches" or not route:
            return None
        return {**payload, "observaciones": f"Ruta: {route}"}

    @hookimpl
    def facturador_validate_payload(self, family: str, payload: dict[str, Any]) -> list[FieldError]:
        if family == "dispatches" and float(payload.get("peso_total") or 0) > 30000:
            return [FieldError("peso_total", "Más de 30 toneladas: use una guía por vehículo.")]
        return []

    @hookimpl
    def facturador_issued(self, family: str, result: Any) -> None:
        self.issued.append((family, result))


def test_form_fields_hook(shop: Shop) -> None:
    with shop.client(plugins=[GuidePlugin()]) as client:
        assert [f.key for f in client.dispatches.form_fields("09")] == ["guias.ruta"]
        assert client.documents.form_fields("01") == [] or all(
            f.key != "guias.ruta" for f in client.documents.form_fields("01")
        )


def test_prepare_payload_hook_changes_what_is_issued(shop: Shop) -> None:
    with shop.client(plugins=[GuidePlugin()]) as client:
        ref = client.dispatches.issue(sender_guide(), form_values={"guias.ruta": "Lima - Callao"})
        xml = client.dispatches.download_xml(ref.external_id)
        assert b"Ruta: Lima - Callao" in xml


def test_validate_payload_hook_stops_before_sending(shop: Shop) -> None:
    with shop.client(plugins=[GuidePlugin()]) as client:
        before = len(client.dispatches.list(peru_today(), peru_today()))
        with pytest.raises(ValidationError) as stopped:
            client.dispatches.issue(sender_guide(weight="31000"))
        assert stopped.value.error_code == "PLUGIN_VALIDATION" and stopped.value.status is None
        assert [e.field for e in stopped.value.field_errors] == ["peso_total"]
        assert len(client.dispatches.list(peru_today(), peru_today())) == before


def test_issued_hook_gets_the_guide_ref(shop: Shop) -> None:
    plugin = GuidePlugin()
    with shop.client(plugins=[plugin]) as client:
        ref = client.dispatches.issue(sender_guide())
    assert plugin.issued == [("dispatches", ref)]


def test_guide_from_an_accepted_factura(shop: Shop) -> None:
    """``from_document`` fills the customer, the lines and the reference of an accepted factura; the
    guide issued from it is accepted, names the factura and leaves the stock the factura moved."""
    transport = PrivateTransport(DRIVER, plate="ABC123")
    places = {
        "origin": Place("150101", "Av. Principal 123", establishment="0000"),
        "delivery": Place("150132", "Jr. Los Olivos 456"),
    }
    with shop.live.client(shop.slug, shop.token) as http, shop.client() as client:
        invoice = http.post("/api/documents", json=invoice_body()).json()["data"]
        boleta = http.post("/api/documents", json=boleta_body()).json()["data"]
        code = invoice_body()["items"][0]["codigo_interno"]
        stock = stock_of(http, code)
        guide = client.dispatches.from_document(
            invoice["external_id"], transport=transport, weight="3.2", packages=1, **places
        )
        assert guide.customer.number == CUSTOMER_RUC and guide.customer.identity_type == "6"
        assert [(i.code, i.quantity) for i in guide.items] == [(code, 2)]
        assert guide.document_external_id == invoice["external_id"] and guide.reason == "01"
        ref = client.dispatches.issue(guide)
        client.dispatches.send(ref.external_id)
        status = wait_for_ticket(client.dispatches, external_id=ref.external_id, timeout=20, initial=0.2)
        assert status.accepted is True, status.message
        xml = client.dispatches.download_xml(ref.external_id).decode()
        assert f"<cbc:ID>{invoice['number']}</cbc:ID>" in xml
        assert stock_of(http, code) == stock  # the factura moved the goods, once
        with pytest.raises(NotFoundError):
            client.dispatches.from_document(
                "00000000-0000-0000-0000-000000000000", transport=transport, weight=1, **places
            )
        with pytest.raises(ValueError, match="aceptado"):  # boletas wait for their daily summary
            client.dispatches.from_document(boleta["external_id"], transport=transport, weight=1, **places)
