"""The block plugins (global discounts and charges, payments, perception): form fields, payload, checks,
and end to end through the service."""

from __future__ import annotations

import copy
import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from connector import Client, FieldError, ValidationError
from connector.builders import Customer, Invoice, Line, Receipt
from connector.plugins import make_plugin_manager
from plugins import advances, allowances, payments, perception, retention
from plugins._blocks import with_totals
from sunat.calendar import peru_today

CUSTOMER = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.")
BLOCK_PLUGINS = (
    "plugins.allowances",
    "plugins.advances",
    "plugins.payments",
    "plugins.perception",
    "plugins.retention",
)


def invoice(**kw: Any) -> Invoice:
    """S/ 1,180.00: value 1,000.00 + IGV 180.00."""
    return Invoice(customer=CUSTOMER, lines=[Line("Mantenimiento", 1, unit_value=1000, unit="ZZ")], **kw)


def run(plugin: Any, payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    original = copy.deepcopy(payload)
    prepared = plugin.facturador_prepare_payload(payload, values)
    assert payload == original  # never mutated
    assert prepared is not None
    return prepared


def fields(errors: list[FieldError]) -> list[str]:
    return [e.field for e in errors]


@pytest.mark.parametrize(
    ("plugin", "keys", "types"),
    [
        (allowances, ["allowances.discount_percent", "allowances.charge_percent"], ("01", "03", "07", "08")),
        (payments, ["payments.method", "payments.amount", "payments.reference"], ("01", "03")),
        (perception, ["perception.code"], ("01", "03")),
        (advances, ["advances.number", "advances.amount", "advances.total"], ("01", "03")),
        (retention, ["retention.apply"], ("01", "03")),
    ],
)
def test_form_fields_by_family_and_type(plugin: Any, keys: list[str], types: tuple[str, ...]) -> None:
    for doc_type in ("01", "03", "07", "08"):
        found = plugin.facturador_form_fields(doc_type)
        assert [f.key for f in found] == (keys if doc_type in types else [])
    assert len({f.section for f in plugin.facturador_form_fields(None)}) == 1
    host = make_plugin_manager([plugin])  # it serves documents alone: other families never call it
    for family in ("voided", "summaries", "retentions"):
        payload = invoice().to_payload()
        assert host.form_fields(family, "01") == []
        assert host.prepare_payload(family, payload, {keys[0]: "1"}) is payload
        assert host.validate_payload(family, {"pagos": "x", "percepcion": "x", "cargos": "x"}) == []


def test_with_totals_matches_the_builder() -> None:
    from connector.builders import Charge, Discount

    built = Invoice(
        customer=CUSTOMER,
        lines=[Line("A", 2, unit_price=59), Line("B", 1, unit_value=50, affectation="20")],
        discounts=[Discount("02", base=100, factor="0.1")],
        charges=[Charge("49", base=100, factor="0.05")],
    ).to_payload()
    assert with_totals({**built, "totales": {}})["totales"] == built["totales"]


# -- discounts and charges ---------------------------------------------------------------------------


def test_allowances_prepare_appends_and_recomputes_totals() -> None:
    assert allowances.facturador_prepare_payload(invoice().to_payload(), {}) is None
    assert (
        allowances.facturador_prepare_payload(invoice().to_payload(), {"allowances.charge_percent": ""})
        is None
    )
    prepared = run(allowances, invoice().to_payload(), {"allowances.discount_percent": "10"})
    assert prepared["descuentos"] == [
        {
            "codigo": "02",
            "descripcion": "Descuentos globales que afectan la base imponible del IGV/IVAP",
            "monto": 100.0,
            "base": 1000.0,
            "factor": 0.1,
        }
    ]
    totals = prepared["totales"]
    assert totals["total_operaciones_gravadas"] == 900.0 and totals["total_igv"] == 162.0
    assert totals["total_valor"] == 900.0 and totals["total_venta"] == 1062.0
    both = run(
        allowances,
        invoice().to_payload(),
        {"allowances.discount_percent": 10, "allowances.charge_percent": 5},
    )
    assert [c["codigo"] for c in both["cargos"]] == ["49"] and both["cargos"][0]["monto"] == 50.0
    assert both["totales"]["total_operaciones_gravadas"] == 950.0 and both["totales"]["total_venta"] == 1121.0
    assert allowances.facturador_validate_payload(both) == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p["descuentos"][0].update(codigo="00"), "descuentos.0.codigo"),
        (lambda p: p["descuentos"][0].update(monto=0), "descuentos.0.monto"),
        (lambda p: p["descuentos"][0].update(monto=99), "descuentos.0.monto"),
        (lambda p: p["descuentos"][0].update(factor=2), "descuentos.0.factor"),
        (lambda p: p["descuentos"].append("x"), "descuentos.1"),
        (lambda p: p.update(descuentos={}), "descuentos"),
        (lambda p: p.update(cargos=[{"codigo": "47", "monto": 1}]), "cargos.0.codigo"),
        (lambda p: p["items"][0].update(codigo_tipo_afectacion_igv="20"), "descuentos.0.codigo"),
    ],
)
def test_allowances_refuse(change: Any, field: str) -> None:
    prepared = run(allowances, invoice().to_payload(), {"allowances.discount_percent": "10"})
    change(prepared)
    assert field in fields(allowances.facturador_validate_payload(prepared))


# -- advances ---------------------------------------------------------------------------------------

ADVANCE = {"advances.number": "f001-9", "advances.amount": "500"}


def test_advances_prepare() -> None:
    assert advances.facturador_prepare_payload(invoice().to_payload(), {"advances.number": " "}) is None
    prepared = run(advances, invoice().to_payload(), ADVANCE)
    assert prepared["anticipos"] == [
        {"numero": "F001-9", "codigo_tipo_documento": "02", "monto": 500.0, "total": 590.0}
    ]
    assert prepared["descuentos"] == [
        {"codigo": "04", "descripcion": "Anticipos", "monto": 500.0, "base": 500.0, "factor": 1.0}
    ]
    totals = prepared["totales"]
    assert totals["total_anticipos"] == 500.0 and totals["total_operaciones_gravadas"] == 500.0
    assert totals["total_igv"] == 90.0 and totals["total_venta"] == 590.0
    assert advances.facturador_validate_payload(prepared) == []
    second = run(
        advances, prepared, {"advances.number": "B001-3", "advances.amount": 100, "advances.total": 118}
    )
    assert [a["codigo_tipo_documento"] for a in second["anticipos"]] == ["02", "03"]
    assert [(d["codigo"], d["monto"]) for d in second["descuentos"]] == [("04", 600.0)]
    assert second["totales"]["total_anticipos"] == 600.0
    assert advances.facturador_validate_payload(second) == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p["anticipos"][0].update(numero="F001"), "anticipos.0.numero"),
        (lambda p: p["anticipos"][0].update(codigo_tipo_documento="03"), "anticipos.0.codigo_tipo_documento"),
        (lambda p: p["anticipos"].append(dict(p["anticipos"][0])), "anticipos.1.numero"),
        (lambda p: p["anticipos"][0].update(monto=0), "anticipos.0.monto"),
        (lambda p: p["anticipos"][0].update(total=100), "anticipos.0.monto"),
        (lambda p: p.pop("descuentos"), "descuentos"),
        (lambda p: p["descuentos"][0].update(monto=400), "descuentos"),
        (lambda p: p["totales"].update(total_anticipos=0), "totales.total_anticipos"),
        (lambda p: p.update(codigo_tipo_documento="07"), "codigo_tipo_documento"),
        (lambda p: p.pop("anticipos"), "anticipos"),
        (lambda p: p.update(anticipos="F001-9"), "anticipos"),
    ],
)
def test_advances_refuse(change: Any, field: str) -> None:
    prepared = run(advances, invoice().to_payload(), ADVANCE)
    change(prepared)
    assert field in fields(advances.facturador_validate_payload(prepared))


# -- payments ----------------------------------------------------------------------------------------


def test_payments_prepare() -> None:
    assert payments.facturador_prepare_payload(invoice().to_payload(), {}) is None
    whole = run(payments, invoice().to_payload(), {"payments.method": "01"})
    assert whole["pagos"] == [{"codigo_metodo_pago": "01", "codigo_destino_pago": "cash", "monto": 1180.0}]
    part = run(
        payments,
        whole,
        {"payments.method": "02", "payments.amount": "100.5", "payments.reference": " VOUCHER-1 "},
    )
    assert part["pagos"][1] == {
        "codigo_metodo_pago": "02",
        "codigo_destino_pago": "cash",
        "monto": 100.5,
        "referencia": "VOUCHER-1",
    }
    assert fields(payments.facturador_validate_payload(part)) == ["pagos"]  # above the total
    assert payments.facturador_validate_payload(whole) == []
    assert payments.facturador_validate_payload(invoice().to_payload()) == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p["pagos"][0].update(codigo_metodo_pago="99"), "pagos.0.codigo_metodo_pago"),
        (lambda p: p["pagos"][0].update(monto=0), "pagos.0.monto"),
        (lambda p: p["pagos"][0].update(monto="abc"), "pagos.0.monto"),
        (lambda p: p["pagos"][0].update(monto=1180.01), "pagos"),
        (lambda p: p["pagos"].append(3), "pagos.1"),
        (lambda p: p.update(pagos={"monto": 1}), "pagos"),
    ],
)
def test_payments_refuse(change: Any, field: str) -> None:
    prepared = run(payments, invoice().to_payload(), {"payments.method": "01"})
    change(prepared)
    assert field in fields(payments.facturador_validate_payload(prepared))


# -- perception --------------------------------------------------------------------------------------


def test_perception_prepare() -> None:
    assert perception.facturador_prepare_payload(invoice().to_payload(), {"perception.code": ""}) is None
    prepared = run(perception, invoice().to_payload(), {"perception.code": "51"})
    assert prepared["codigo_tipo_operacion"] == "2001"
    assert prepared["percepcion"] == {"codigo": "51", "porcentaje": 2.0, "base": 1180.0, "monto": 23.6}
    assert perception.facturador_validate_payload(prepared) == []
    usd = run(
        perception, invoice(currency="USD", exchange_rate="3.80").to_payload(), {"perception.code": "53"}
    )
    assert usd["percepcion"] == {"codigo": "53", "porcentaje": 0.5, "base": 4484.0, "monto": 22.42}
    unknown = run(perception, invoice().to_payload(), {"perception.code": "62"})
    assert fields(perception.facturador_validate_payload(unknown)) == ["percepcion.codigo"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p.update(codigo_tipo_operacion="0101"), "codigo_tipo_operacion"),
        (lambda p: p.pop("percepcion"), "percepcion"),
        (lambda p: p.update(percepcion="51"), "percepcion"),
        (lambda p: p.update(codigo_tipo_documento="07"), "codigo_tipo_documento"),
        (lambda p: p.update(codigo_condicion_de_pago="02"), "percepcion"),
        (lambda p: p["percepcion"].update(porcentaje=1), "percepcion.porcentaje"),
        (lambda p: p["percepcion"].update(monto=30), "percepcion.monto"),
        (lambda p: p["percepcion"].update(base=0, monto=0), "percepcion.base"),
        (lambda p: p["percepcion"].update(base=2000, monto=40), "percepcion.base"),
        (lambda p: p["percepcion"].pop("monto"), "percepcion.monto"),
    ],
)
def test_perception_refuses(change: Any, field: str) -> None:
    prepared = run(perception, invoice().to_payload(), {"perception.code": "51"})
    change(prepared)
    assert field in fields(perception.facturador_validate_payload(prepared))


# -- retention --------------------------------------------------------------------------------------


def test_retention_prepare() -> None:
    assert retention.facturador_prepare_payload(invoice().to_payload(), {}) is None
    assert retention.facturador_prepare_payload(invoice().to_payload(), {"retention.apply": False}) is None
    prepared = run(retention, invoice().to_payload(), {"retention.apply": True})
    assert prepared["retencion"] == {"codigo": "62", "porcentaje": 3.0, "base": 1180.0, "monto": 35.4}
    assert retention.facturador_validate_payload(prepared) == []
    assert retention.facturador_validate_payload(invoice().to_payload()) == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            lambda p: p["datos_del_cliente_o_receptor"].update(codigo_tipo_documento_identidad="1"),
            "retencion",
        ),
        (lambda p: p.update(codigo_tipo_documento="08"), "codigo_tipo_documento"),
        (lambda p: p["retencion"].update(codigo="51"), "retencion.codigo"),
        (lambda p: p["retencion"].update(porcentaje=2), "retencion.porcentaje"),
        (lambda p: p["retencion"].update(monto=10), "retencion.monto"),
        (lambda p: p["retencion"].update(base=2000, monto=60), "retencion.base"),
        (lambda p: p["retencion"].pop("base"), "retencion.base"),
        (lambda p: p.update(retencion=[]), "retencion"),
    ],
)
def test_retention_refuses(change: Any, field: str) -> None:
    prepared = run(retention, invoice().to_payload(), {"retention.apply": True})
    change(prepared)
    assert field in fields(retention.facturador_validate_payload(prepared))


# -- through the client and the service -------------------------------------------------------------


@pytest.fixture
def blocks_client(client: Client) -> Client:
    for name in BLOCK_PLUGINS:
        client.plugin_manager.register(name)
    return client


def test_the_pipeline_orders_totals_before_payment_and_perception(blocks_client: Client) -> None:
    values = {"allowances.discount_percent": "10", "payments.method": "01", "perception.code": "51"}
    prepared = blocks_client.plugin_manager.prepare_payload("documents", invoice().to_payload(), values)
    assert prepared["totales"]["total_venta"] == 1062.0
    assert prepared["pagos"][0]["monto"] == 1062.0
    assert prepared["percepcion"]["base"] == 1062.0 and prepared["percepcion"]["monto"] == 21.24


def test_issue_with_the_blocks_through_the_service(blocks_client: Client) -> None:
    values = {"allowances.discount_percent": "10", "allowances.charge_percent": "5", "payments.method": "02"}
    result = blocks_client.documents.issue(invoice(), form_values={**values, "perception.code": "51"})
    assert result.state_type_id == "05" and result.response is not None and result.response.accepted
    xml = blocks_client.documents.download_xml(result.external_id).decode()
    for code in ("02", "49", "51"):
        assert f">{code}</cbc:AllowanceChargeReasonCode>" in xml
    assert 'listID="2001"' in xml and '<cbc:PayableAmount currencyID="PEN">1121.00</cbc:PayableAmount>' in xml
    record = blocks_client.documents.find(result.series, result.correlative)
    assert record is not None and record.total == Decimal("1121.00")
    rows = blocks_client.documents.list(
        peru_today() - dt.timedelta(days=2), peru_today() + dt.timedelta(days=2), fresh=True
    )
    row = next(r for r in rows.rows if r.get("external_id") == result.external_id)
    assert Decimal(str(row["total_payments"])) == Decimal("1121.00")
    retained = blocks_client.documents.issue(invoice(), form_values={"retention.apply": True})
    assert retained.state_type_id == "05"
    retained_xml = blocks_client.documents.download_xml(retained.external_id).decode()
    assert ">62</cbc:AllowanceChargeReasonCode>" in retained_xml
    final = blocks_client.documents.issue(invoice(), form_values=ADVANCE)
    assert final.state_type_id == "05"
    final_xml = blocks_client.documents.download_xml(final.external_id).decode()
    assert "<cac:PrepaidPayment>" in final_xml and '<cbc:PrepaidAmount currencyID="PEN">500.00' in final_xml
    receipt = Receipt(customer=Customer.dni("46027862", "ANA"), lines=[Line("Arroz", 2, unit_price=59)])
    boleta = blocks_client.documents.issue(
        receipt, form_values={"payments.method": "01", "payments.amount": "50"}
    )
    assert boleta.state_type_id in ("01", "05")


def test_mistakes_are_caught_before_sending(blocks_client: Client) -> None:
    with pytest.raises(ValidationError) as caught:
        blocks_client.documents.issue(
            invoice(), form_values={"payments.method": "01", "payments.amount": "5000"}
        )
    assert caught.value.status is None and caught.value.errors_for("pagos")
    note_values = {"perception.code": "51", "instalments.rows": [{"date": "2099-01-01", "amount": 1180}]}
    with pytest.raises(ValidationError) as credit:
        blocks_client.documents.issue(invoice(), form_values=note_values)
    assert credit.value.errors_for("percepcion")
    person = Receipt(customer=Customer.dni("46027862", "ANA"), lines=[Line("Arroz", 2, unit_price=59)])
    with pytest.raises(ValidationError) as retained:
        blocks_client.documents.issue(person, form_values={"retention.apply": True})
    assert retained.value.status is None and retained.value.errors_for("retencion")
