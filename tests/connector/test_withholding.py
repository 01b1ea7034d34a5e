"""Retentions and perceptions through the connector over real HTTP: builders computing the amounts with
``sunat``, typed results, lists, files, reversions with ``wait_for_ticket``, and every hook per family."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from connector import CacheSettings, Client, TicketRef, ValidationError, wait_for_ticket
from connector.builders import Customer
from connector.withholding import Payment, Perception, Retention, WithholdingRecord, WithholdingResult
from sunat import withholding
from sunat.calendar import peru_today
from tests.common import Recorder
from tests.conftest import LiveService
from tests.shops import Shop, new_shop

SUPPLIER = Customer.ruc("20100070970", "SUPERMERCADOS PERUANOS S.A.", address="Av. Lima 123", ubigeo="150101")


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "withholding", authority_ticket_delay=0.0)


def observations(_recorder: Recorder, family: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The recorder's ``prepare``: a retention or perception (not a reversion) gets an observation."""
    if family in ("retentions", "perceptions") and "fecha_de_emision_de_documentos" not in payload:
        return {**payload, "observaciones": f"Preparado por el plugin ({family})"}
    return None


@pytest.fixture
def recorder() -> Recorder:
    return Recorder(prepare=observations)


@pytest.fixture
def client(shop: Shop, recorder: Recorder) -> Iterator[Client]:
    with shop.client(plugins=[recorder], cache=CacheSettings(backend="memory")) as c:
        yield c


def retention() -> Retention:
    return Retention(
        supplier=SUPPLIER,
        payments=[
            Payment("01", "F001-3", total="400", paid="400"),
            Payment("01", "F001-4", total="200", paid="200", currency="USD", exchange_rate="3.752"),
        ],
    )


def perception(regime: str = "01") -> Perception:
    return Perception(
        customer=SUPPLIER, regime=regime, payments=[Payment("01", "F001-10", total="1180", paid="1180")]
    )


def test_builders_compute_the_amounts_with_sunat() -> None:
    payload = retention().to_payload()
    first, second = payload["documentos"]
    assert (first["total_retenido"], first["total_a_pagar"]) == ("12.00", "388.00")
    assert (second["total_retenido"], second["total_a_pagar"]) == ("22.51", "727.89")
    assert second["tipo_de_cambio"]["factor"] == "3.752"
    assert payload["totales"] == {"total_retenido": "34.51", "total_pagado": "1115.89"}
    assert payload["serie_documento"] == "R001" and payload["codigo_tipo_retencion"] == "01"
    six = Retention(
        supplier=SUPPLIER, regime="02", payments=[Payment("01", "F001-3", total="400", paid="400")]
    )
    assert six.to_payload()["totales"]["total_retenido"] == "24.00" and six.rate == Decimal("6")
    assert perception("03").to_payload()["totales"] == {"total_percibido": "5.90", "total_pagado": "1185.90"}
    with pytest.raises(ValueError, match="regime"):
        Retention(supplier=SUPPLIER, regime="03", payments=retention().payments).to_payload()
    with pytest.raises(ValueError, match="payment"):
        Retention(supplier=SUPPLIER).to_payload()


@pytest.mark.parametrize("family", ["retentions", "perceptions"])
def test_issue_list_download_and_every_hook(client: Client, recorder: Recorder, family: str) -> None:
    resource = getattr(client, family)
    builder = retention() if family == "retentions" else perception()
    before = len(resource.latest(fresh=True))
    result = resource.issue(builder)
    assert isinstance(result, WithholdingResult)
    assert result.accepted and result.response is not None and result.response.code == "0"
    assert result.series == ("R001" if family == "retentions" else "P001") and result.correlative >= 1
    # prepare, validate, then issued with the typed result; the prepared payload was the one sent
    assert recorder.of(family) == ["prepare", "validate", "issued"]
    issued = [r for hook, called, r in recorder.calls if hook == "issued" and called == family]
    assert issued == [result]
    xml = resource.download_xml(result.external_id)
    assert f"Preparado por el plugin ({family})".encode() in xml
    assert resource.download_pdf(result.external_id).startswith(b"%PDF")
    assert resource.download_cdr(result.external_id)[:2] == b"PK"
    rows = resource.latest()
    assert len(rows) == before + 1 and isinstance(rows[0], WithholdingRecord)
    expected = builder.to_payload()["totales"]
    amount_key = "total_retenido" if family == "retentions" else "total_percibido"
    assert (rows[0].external_id, rows[0].total, rows[0].total_net) == (
        result.external_id,
        Decimal(expected[amount_key]),
        Decimal(expected["total_pagado"]),
    )
    day = peru_today()
    assert any(row.external_id == result.external_id for row in resource.list(day, day))


@pytest.mark.parametrize("family", ["retentions", "perceptions"])
def test_a_validating_plugin_stops_the_request(shop: Shop, family: str) -> None:
    blocker = Recorder(block=family, prepare=observations)
    with shop.client(plugins=[blocker], cache=CacheSettings(backend="memory")) as c:
        resource = getattr(c, family)
        before = len(resource.latest(fresh=True))
        with pytest.raises(ValidationError) as raised:
            resource.issue(retention() if family == "retentions" else perception())
        assert raised.value.error_code == "PLUGIN_VALIDATION"
        assert [e.field for e in raised.value.field_errors] == ["documentos"]
        assert blocker.of(family) == ["prepare", "validate"]
        assert len(resource.latest(fresh=True)) == before


def test_the_service_refusal_is_a_validation_error(client: Client) -> None:
    body = retention().to_payload()
    body["codigo_tipo_retencion"] = "09"
    with pytest.raises(ValidationError) as raised:
        client.retentions.issue(body)
    assert "codigo_tipo_retencion" in [e.field for e in raised.value.field_errors]
    with pytest.raises(TypeError):
        client.retentions.issue(perception())


@pytest.mark.parametrize("family", ["retentions", "perceptions"])
def test_reverse_and_wait_for_the_ticket(client: Client, recorder: Recorder, family: str) -> None:
    resource = getattr(client, family)
    result = resource.issue(retention() if family == "retentions" else perception())
    recorder.calls.clear()
    ref = resource.reverse(peru_today(), [(result.external_id, "Pago anulado")])
    assert isinstance(ref, TicketRef) and ref.ticket
    assert recorder.of(family) == ["prepare", "validate", "issued"]
    status = wait_for_ticket(resource.reversions, external_id=ref.external_id, timeout=30)
    assert status.accepted, status
    row = next(r for r in resource.latest(fresh=True) if r.external_id == result.external_id)
    assert row.state_type_id == "11"
    assert resource.reversions.download_xml(ref.external_id).startswith(b"<?xml")


def test_amounts_match_the_simulators_rule() -> None:
    """The builders and the simulator share sunat.withholding: the same payment gives the same cents."""
    for regime in ("01", "02"):
        for paid, factor in (("1234.57", "1"), ("99.99", "3.745")):
            computed = withholding.payment_amounts("20", regime, Decimal(paid), Decimal(factor))
            assert computed.base == (Decimal(paid) * Decimal(factor)).quantize(Decimal("0.01"))
            assert computed.net + computed.amount == computed.base
