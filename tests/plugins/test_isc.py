"""The ISC and other-taxes plugin (plugins.isc): form fields, the payload it prepares, its checks, and
end to end through the client and the service (the XML carries the 2000 and 9999 subtotals)."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import pytest

from connector import Client, ValidationError
from connector.builders import Customer, Invoice, Line
from connector.plugins import make_plugin_manager
from plugins import isc

CUSTOMER = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.")


def invoice() -> Invoice:
    """10 x 5.00 taxed (50.00) and 1 x 20.00 exonerated."""
    return Invoice(
        customer=CUSTOMER,
        lines=[
            Line("Cerveza caja x 12", 10, unit_value=5),
            Line("Libro", 1, unit_value=20, affectation="20"),
        ],
    )


def prepared(values: dict[str, Any]) -> dict[str, Any]:
    payload = invoice().to_payload()
    original = copy.deepcopy(payload)
    result = isc.facturador_prepare_payload(payload, values)
    assert payload == original and result is not None  # never mutated
    return result


def test_form_fields() -> None:
    for doc_type in ("01", "03", "07", "08", None):
        keys = [f.key for f in isc.facturador_form_fields(doc_type)]
        assert keys == [isc.SYSTEM, isc.PERCENT, isc.PER_UNIT, isc.PUBLIC_PRICE, isc.OTHER]
    assert {f.section for f in isc.facturador_form_fields("01")} == {"ISC y otros tributos"}
    system = isc.facturador_form_fields("01")[0]
    assert [code for code, _ in system.options] == ["", "01", "02", "03"]
    host = make_plugin_manager([isc])  # it serves documents alone: other families never call it
    for family in ("voided", "summaries", "retentions"):
        payload = invoice().to_payload()
        assert host.form_fields(family, "01") == []
        assert host.prepare_payload(family, payload, {isc.SYSTEM: "01"}) is payload
        assert host.validate_payload(family, {"items": "x"}) == []
    assert isc.facturador_prepare_payload(invoice().to_payload(), {isc.SYSTEM: ""}) is None


def test_prepare_isc_al_valor_on_every_line_that_takes_it() -> None:
    payload = prepared({isc.SYSTEM: "01", isc.PERCENT: "30"})
    taxed, exonerated = payload["items"]
    # 50.00: ISC 15.00, IGV 18 % of 65.00 = 11.70, total 76.70; 20.00 exonerated: ISC 6.00, total 26.00
    assert (taxed["codigo_tipo_sistema_isc"], taxed["total_base_isc"], taxed["total_isc"]) == (
        "01",
        50.0,
        15.0,
    )
    assert (taxed["total_base_igv"], taxed["total_igv"], taxed["total_item"]) == (65.0, 11.7, 76.7)
    assert (exonerated["total_isc"], exonerated["total_base_igv"], exonerated["total_item"]) == (
        6.0,
        26.0,
        26.0,
    )
    totals = payload["totales"]
    assert (totals["total_base_isc"], totals["total_isc"]) == (70.0, 21.0)
    assert (totals["total_operaciones_gravadas"], totals["total_igv"]) == (50.0, 11.7)
    assert totals["total_impuestos"] == 32.7 and totals["total_venta"] == 102.7
    assert isc.facturador_validate_payload(payload) == []


def test_prepare_fixed_amount_public_price_and_other_taxes() -> None:
    fixed = prepared({isc.SYSTEM: "02", isc.PER_UNIT: "1.50"})["items"][0]
    assert (fixed["total_isc"], fixed["porcentaje_isc"], fixed["total_base_isc"]) == (15.0, 30.0, 50.0)
    public = prepared({isc.SYSTEM: "03", isc.PERCENT: "30", isc.PUBLIC_PRICE: "7"})["items"][0]
    assert (public["total_base_isc"], public["total_isc"], public["total_base_igv"]) == (70.0, 21.0, 71.0)
    other = prepared({isc.OTHER: "5"})
    assert [item.get("total_otros_impuestos") for item in other["items"]] == [2.5, 1.0]
    assert other["items"][0]["total_base_igv"] == 50.0  # outside the IGV base
    assert other["totales"]["total_otros_impuestos"] == 3.5 and other["totales"]["total_venta"] == 82.5


@pytest.mark.parametrize(
    ("change", "field", "rule"),
    [
        (lambda p: p["items"][0].update(total_isc=20), "items.0.total_isc", "3108"),
        (lambda p: p["items"][0].update(porcentaje_isc=0), "items.0.porcentaje_isc", "3104"),
        (
            lambda p: p["items"][0].update(codigo_tipo_sistema_isc="04"),
            "items.0.codigo_tipo_sistema_isc",
            "2041",
        ),
        (lambda p: p["items"][0].update(total_base_igv=50), "items.0.total_base_igv", "3272"),
        (lambda p: p["totales"].update(total_isc=30), "totales.total_isc", "3298"),
    ],
)
def test_validate_refuses(change: Any, field: str, rule: str) -> None:
    payload = prepared({isc.SYSTEM: "01", isc.PERCENT: "30"})
    change(payload)
    errors = isc.facturador_validate_payload(payload)
    assert any(e.field == field and rule in e.message for e in errors), errors


@pytest.fixture
def isc_client(client: Client) -> Client:
    client.plugin_manager.register("plugins.isc")
    client.plugin_manager.register("plugins.allowances")
    return client


def test_issue_with_isc_through_the_service(isc_client: Client) -> None:
    values = {isc.SYSTEM: "01", isc.PERCENT: "30", isc.OTHER: "5", "allowances.discount_percent": ""}
    result = isc_client.documents.issue(invoice(), form_values=values)
    assert result.state_type_id == "05" and result.response is not None and result.response.accepted
    xml = isc_client.documents.download_xml(result.external_id).decode()
    assert "<cbc:TierRange>01</cbc:TierRange>" in xml and ">2000</cbc:ID>" in xml and ">9999</cbc:ID>" in xml
    # 76.70 + 2.50 and 26.00 + 1.00
    assert '<cbc:PayableAmount currencyID="PEN">106.20</cbc:PayableAmount>' in xml
    record = isc_client.documents.find(result.series, result.correlative)
    assert record is not None and record.total == Decimal("106.20")


def test_mistakes_are_caught_before_sending(isc_client: Client) -> None:
    with pytest.raises(ValidationError) as caught:
        isc_client.documents.issue(invoice(), form_values={isc.SYSTEM: "01"})  # no rate
    assert caught.value.status is None and caught.value.errors_for("items.0.porcentaje_isc")
