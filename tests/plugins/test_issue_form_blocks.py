"""The Issue form's block plugins of issue 11: line discounts and charges, item attributes, related
documents and guides, cargo transport (1004), instalments on notes. Each contributes its form section
only when the tenant enables it, and its prepare puts the block in the body; end to end through the
service, the body is accepted."""

from __future__ import annotations

import copy
import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from connector import Client
from connector.builders import CreditNote, Customer, Invoice, Line
from plugins import cargo_transport, instalments, item_attributes, line_allowances, references
from sunat.calendar import peru_today

CUSTOMER = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.")
NEW_PLUGINS = {
    "plugins.line_allowances": line_allowances,
    "plugins.item_attributes": item_attributes,
    "plugins.references": references,
    "plugins.cargo_transport": cargo_transport,
}
TRIP = {
    "cargo.detail": "Traslado de 12 t de cemento",
    "cargo.origin_ubigeo": "150101",
    "cargo.origin_address": "Av. Argentina 2050, Lima",
    "cargo.destination_ubigeo": "040101",
    "cargo.destination_address": "Av. Parra 300, Arequipa",
    "cargo.service_value": 1100,
    "cargo.effective_load_value": 900,
    "cargo.payload_value": 950,
    "cargo.account": "00-068-123456",
}


def invoice(**kw: Any) -> Invoice:
    """S/ 1,180.00 (1,000.00 + IGV) and a second line of 2 x 50.00 + IGV."""
    return Invoice(
        customer=CUSTOMER,
        lines=[Line("Flete", 1, unit_value=1000, unit="ZZ"), Line("Termo", 2, unit_value=50)],
        **kw,
    )


def run(plugin: Any, payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    original = copy.deepcopy(payload)
    prepared = plugin.facturador_prepare_payload(payload, values)
    assert payload == original  # never mutated
    assert prepared is not None
    return prepared


@pytest.mark.parametrize("name", sorted(NEW_PLUGINS))
def test_form_section_only_when_enabled(client: Client, name: str) -> None:
    plugin = NEW_PLUGINS[name]
    own = {f.key for f in plugin.facturador_form_fields("01")}
    assert own and len({f.section for f in plugin.facturador_form_fields("01")}) == 1
    offered = {f.key for f in client.plugin_manager.form_fields("documents", "01")}
    assert not own & offered  # not enabled: no section
    client.plugin_manager.register(name)
    offered = {f.key for f in client.plugin_manager.form_fields("documents", "01")}
    assert own <= offered
    assert client.plugin_manager.form_fields("voided", "01") == []  # it serves documents alone
    assert plugin.facturador_prepare_payload(invoice().to_payload(), {}) is None


def test_line_allowances_prepare() -> None:
    values = {
        "line_allowances.rows": [
            {"item": 1, "codigo": "00", "porcentaje": 10},
            {"item": 2, "codigo": "48", "porcentaje": 5},
            {"item": 9, "codigo": "00", "porcentaje": 10},  # no such line: ignored
        ]
    }
    prepared = run(line_allowances, invoice().to_payload(), values)
    first, second = prepared["items"]
    assert first["descuentos"][0] == {
        "codigo": "00",
        "descripcion": "Descuentos que afectan la base imponible del IGV/IVAP",
        "monto": 100.0,
        "base": 1000.0,
        "factor": 0.1,
    }
    assert (first["total_valor_item"], first["total_igv"], first["total_item"]) == (900.0, 162.0, 1062.0)
    assert second["cargos"][0]["monto"] == 5.0 and second["total_item"] == 123.0  # 118.00 + 5.00
    totals = prepared["totales"]
    assert totals["total_operaciones_gravadas"] == 1000.0 and totals["total_cargos"] == 5.0
    assert totals["total_venta"] == 1185.0  # 1,000.00 + IGV 180.00 + charge 48 5.00
    assert line_allowances.facturador_validate_payload(prepared) == []
    prepared["items"][0]["descuentos"][0]["codigo"] = "02"
    assert [e.field for e in line_allowances.facturador_validate_payload(prepared)] == [
        "items.0.descuentos.0.codigo"
    ]


def test_item_attributes_prepare() -> None:
    values = {
        "item_attributes.plate": "abc-123 ",
        "item_attributes.rows": [{"item": 2, "codigo": "7000", "descripcion": "", "valor": "Cliente 9"}],
    }
    prepared = run(item_attributes, invoice().to_payload(), values)
    assert prepared["numero_de_placa"] == "abc-123"
    (entry,) = prepared["items"][1]["datos_adicionales"]
    assert entry["codigo"] == "7000" and entry["valor"] == "Cliente 9" and entry["descripcion"]
    assert "datos_adicionales" not in prepared["items"][0]
    assert item_attributes.facturador_validate_payload(prepared) == []


def test_references_prepare() -> None:
    values = {
        "references.related": [
            {"numero": "OC-77", "codigo_tipo_documento": "99", "monto": 20},
            {"numero": ""},
        ],
        "references.guides": [{"numero": "t001-9", "codigo_tipo_documento": "09"}],
    }
    prepared = run(references, invoice().to_payload(), values)
    assert prepared["relacionados"] == [{"numero": "OC-77", "codigo_tipo_documento": "99", "monto": 20.0}]
    assert prepared["guias"] == [{"numero": "T001-9", "codigo_tipo_documento": "09"}]
    assert references.facturador_validate_payload(prepared) == []
    prepared["guias"][0]["numero"] = "guía 9"
    assert [e.field for e in references.facturador_validate_payload(prepared)] == ["guias.0.numero"]


def test_cargo_transport_prepare() -> None:
    prepared = run(cargo_transport, invoice().to_payload(), TRIP)
    assert prepared["codigo_tipo_operacion"] == "1004"
    block = prepared["detraccion"]
    assert block["codigo_tipo_detraccion"] == "027" and block["porcentaje"] == 4.0
    assert block["monto"] == 51.92  # 4 % of 1,298.00
    assert block["ubigeo_destino"] == "040101" and block["valor_referencial_carga_util"] == 950.0
    assert {"codigo": "2006", "valor": "Operación sujeta a detracción"} in prepared["leyendas"]
    assert cargo_transport.facturador_validate_payload(prepared) == []
    bad = copy.deepcopy(prepared)
    bad["detraccion"]["ubigeo_origen"] = "999999"
    del bad["detraccion"]["detalle_viaje"]
    assert sorted(e.field for e in cargo_transport.facturador_validate_payload(bad)) == [
        "detraccion.detalle_viaje",
        "detraccion.ubigeo_origen",
    ]


def test_instalments_on_notes() -> None:
    assert [f.key for f in instalments.facturador_form_fields("07")] == ["instalments.rows"]
    assert [f.key for f in instalments.facturador_form_fields("08")] == ["instalments.rows"]
    note = CreditNote(
        customer=CUSTOMER,
        lines=[Line("Ajuste de fechas", 1, unit_value=0, unit="ZZ")],
        affected=("01", "F001", 1),
        note_type="13",
        reason="Nuevas fechas de pago",
    )
    due = (peru_today() + dt.timedelta(days=30)).isoformat()
    prepared = run(instalments, note.to_payload(), {"instalments.rows": [{"date": due, "amount": 500}]})
    assert prepared["codigo_condicion_de_pago"] == "02" and prepared["cuotas"][0]["monto"] == 500.0
    assert instalments.facturador_validate_payload(prepared) == []  # total 0: no sum check


def test_issue_with_the_form_blocks_through_the_service(client: Client) -> None:
    for name in NEW_PLUGINS:  # the detraction plugin is on by default
        client.plugin_manager.register(name)
    values = {
        **TRIP,
        "line_allowances.rows": [{"item": 2, "codigo": "00", "porcentaje": 10}],
        "item_attributes.rows": [
            {"item": 1, "codigo": "5010", "descripcion": "Numero de Placa", "valor": "ABC-123"}
        ],
        "references.guides": [{"numero": "V001-5", "codigo_tipo_documento": "31"}],
        "references.related": [{"numero": "OC-77", "codigo_tipo_documento": "99"}],
    }
    result = client.documents.issue(invoice(), form_values=values)
    assert result.state_type_id == "05" and result.response is not None and result.response.accepted
    xml = client.documents.download_xml(result.external_id).decode()
    assert 'listID="1004"' in xml and "<cac:Delivery>" in xml and ">040101</cbc:ID>" in xml
    assert ">00</cbc:AllowanceChargeReasonCode>" in xml and ">5010</cbc:NameCode>" in xml
    assert "<cac:DespatchDocumentReference>" in xml and "<cac:AdditionalDocumentReference>" in xml
    record = client.documents.find(result.series, result.correlative)
    assert record is not None and record.total == Decimal("1286.20")  # 1,180.00 + 90.00 + IGV 16.20


def test_item_attributes_take_a_code_outside_catalog_55_as_sunat_does() -> None:
    """A payload with the attribute 3000 "Garantía" (real clients send it; SUNAT's stylesheets do not
    check catalog 55) passes the plugin's check; one without a code or a description does not."""
    payload = invoice().to_payload()
    payload["items"][0]["datos_adicionales"] = [
        {"codigo": "3000", "descripcion": "Garantía", "valor": "12 meses"},
        {"codigo": "", "descripcion": "Color", "valor": "Rojo"},
        {"codigo": "3000", "descripcion": " ", "valor": "12 meses"},
    ]
    assert [e.field for e in item_attributes.facturador_validate_payload(payload)] == [
        "items.0.datos_adicionales.1.codigo",
        "items.0.datos_adicionales.2.descripcion",
    ]
