"""Facturas with detraction and with credit instalments, issued over HTTP against the live service.

Wire format (reference §4.5, §4.8 rows 13 and 18): ``detraccion{codigo_tipo_detraccion, porcentaje, monto,
codigo_metodo_pago, cuenta_bancaria}`` with operation types 1001-1003, and ``codigo_condicion_de_pago``
"02" with ``cuotas[{fecha, codigo_tipo_moneda, monto}]``. The XML gets PaymentMeans/PaymentTerms
"Detraccion", legend 2006, FormaPago "Credito" and Cuota001...; bad blocks are refused with 422 naming
the field, and nothing is stored.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest

from sunat.calendar import peru_today
from tests.common import issue
from tests.facturador.render import pdf_probes as probes
from tests.helpers import NS, amount, assert_schema_valid, assert_signed
from tests.samples.bodies import credit_note_body, invoice_body

TODAY = peru_today()
DUE_1 = (TODAY + dt.timedelta(days=30)).isoformat()
DUE_2 = (TODAY + dt.timedelta(days=60)).isoformat()
ACCOUNT = "00-068-123456"


# ------------------------------------------------------------------------------------------------ bodies


def big_invoice(**overrides: Any) -> dict[str, Any]:
    """A taxed factura of 20 x 50.00 + IGV = 1,180.00, dated today."""
    body = invoice_body()
    item = body["items"][0]
    item.update(cantidad=20, total_base_igv=1000, total_igv=180, total_impuestos=180, total_valor_item=1000)
    item["total_item"] = 1180
    body["totales"].update(
        total_operaciones_gravadas=1000,
        total_igv=180,
        total_impuestos=180,
        total_valor=1000,
        total_venta=1180,
    )
    body.update(overrides)
    return body


def detraction_block(**changes: Any) -> dict[str, Any]:
    """4 % of 1,180.00 = 47.20 (catalog 54 code 008, madera), deposit (059: 001) in the BN account."""
    block = {
        "codigo_tipo_detraccion": "008",
        "porcentaje": 4,
        "monto": 47.20,
        "codigo_metodo_pago": "001",
        "cuenta_bancaria": ACCOUNT,
    }
    block.update(changes)
    return block


def detraction_invoice(**overrides: Any) -> dict[str, Any]:
    return big_invoice(codigo_tipo_operacion="1001", detraccion=detraction_block(), **overrides)


def credit_invoice(cuotas: list[dict[str, Any]] | None = None, **overrides: Any) -> dict[str, Any]:
    """The 118.00 sample factura on credit, by default in two instalments of 59.00."""
    if cuotas is None:
        cuotas = [cuota(DUE_1, 59), cuota(DUE_2, 59)]
    return invoice_body(codigo_condicion_de_pago="02", cuotas=cuotas, **overrides)


def cuota(fecha: str, monto: Any, moneda: str = "PEN") -> dict[str, Any]:
    return {"fecha": fecha, "codigo_tipo_moneda": moneda, "monto": monto}


def detraction_credit_invoice() -> dict[str, Any]:
    """1,180.00 less a 47.20 detraction: 1,132.80 pending, in two instalments of 566.40."""
    return detraction_invoice(
        codigo_condicion_de_pago="02", cuotas=[cuota(DUE_1, 566.40), cuota(DUE_2, "566.40")]
    )


# ------------------------------------------------------------------------------------------------ helpers


def signed_xml(payload: dict[str, Any]) -> Any:
    """Download the XML, check it against the UBL 2.1 XSD and its signature; return the root."""
    xml = httpx.get(payload["links"]["xml"])
    assert xml.status_code == 200
    root = assert_schema_valid(xml.content)
    assert_signed(xml.content, payload["data"]["hash"])
    return root


def payment_terms(root: Any) -> list[tuple[str, ...]]:
    return [tuple(child.text or "" for child in el) for el in root.findall("cac:PaymentTerms", NS)]


def pdf_strings(pdf: bytes) -> str:
    """Text shown on the pages of an fpdf2 PDF (core fonts, cp1252), joined by single spaces."""
    return probes.pdf_strings(pdf)


def latest_ids(client: httpx.Client) -> list[str]:
    return [row["external_id"] for row in client.get("/api/documents/lists").json()["data"]]


# ------------------------------------------------------------------------------------------------ issued


def test_detraction_invoice(acme: httpx.Client) -> None:
    payload = issue(acme, detraction_invoice())
    assert payload["data"]["state_type_id"] == "05", payload["response"]
    assert payload["response"]["code"] == "0"
    assert payload["response"]["notes"] == []  # legend 2006 added by the service: no observation 4265
    root = signed_xml(payload)
    assert root.find("cbc:InvoiceTypeCode", NS).get("listID") == "1001"
    assert amount(root, "cac:LegalMonetaryTotal/cbc:PayableAmount") == Decimal("1180.00")
    legend = root.find("cbc:Note[@languageLocaleID='2006']", NS)
    assert legend is not None and legend.text == "Operación sujeta a detracción"
    means = root.find("cac:PaymentMeans", NS)
    assert means.findtext("cbc:ID", namespaces=NS) == "Detraccion"
    assert means.findtext("cbc:PaymentMeansCode", namespaces=NS) == "001"
    assert means.findtext("cac:PayeeFinancialAccount/cbc:ID", namespaces=NS) == ACCOUNT
    assert payment_terms(root) == [("Detraccion", "008", "4.00", "47.20"), ("FormaPago", "Contado")]
    assert root.find("cac:PaymentTerms/cbc:Amount", NS).get("currencyID") == "PEN"

    pdf = httpx.get(payload["links"]["pdf"])
    assert pdf.status_code == 200
    text = pdf_strings(pdf.content)
    for expected in ("OPERACIÓN SUJETA A DETRACCIÓN", "008 - Madera", "4%", "S/ 47.20", ACCOUNT, "Contado"):
        assert expected in text, expected


def test_legend_2006_sent_by_the_client_is_kept_once(acme: httpx.Client) -> None:
    body = detraction_invoice(leyendas=[{"codigo": "2006", "valor": "Operación sujeta al SPOT"}])
    root = signed_xml(issue(acme, body))
    legends = root.findall("cbc:Note[@languageLocaleID='2006']", NS)
    assert [legend.text for legend in legends] == ["Operación sujeta al SPOT"]


def test_credit_invoice_with_two_instalments(acme: httpx.Client) -> None:
    payload = issue(acme, credit_invoice())
    assert payload["data"]["state_type_id"] == "05", payload["response"]
    root = signed_xml(payload)
    assert root.find("cac:PaymentMeans", NS) is None
    assert payment_terms(root) == [
        ("FormaPago", "Credito", "118.00"),
        ("FormaPago", "Cuota001", "59.00", DUE_1),
        ("FormaPago", "Cuota002", "59.00", DUE_2),
    ]
    assert {el.get("currencyID") for el in root.findall("cac:PaymentTerms/cbc:Amount", NS)} == {"PEN"}

    text = pdf_strings(httpx.get(payload["links"]["pdf"]).content)
    due_1 = dt.date.fromisoformat(DUE_1).strftime("%d/%m/%Y")
    for expected in (
        "Forma de pago: Crédito",
        "Monto neto pendiente de pago: S/ 118.00",
        "001",
        due_1,
        "59.00",
    ):
        assert expected in text, expected
    ticket = pdf_strings(httpx.get(payload["links"]["pdf"] + "/ticket").content)
    assert "Forma de pago: Crédito" in ticket and f"Cuota 002 {due_1}" not in ticket
    assert f"Cuota 002 {dt.date.fromisoformat(DUE_2).strftime('%d/%m/%Y')} S/ 59.00" in ticket


def test_detraction_and_credit_together(acme: httpx.Client) -> None:
    payload = issue(acme, detraction_credit_invoice())
    assert payload["data"]["state_type_id"] == "05", payload["response"]
    root = signed_xml(payload)
    assert payment_terms(root) == [
        ("Detraccion", "008", "4.00", "47.20"),
        ("FormaPago", "Credito", "1132.80"),
        ("FormaPago", "Cuota001", "566.40", DUE_1),
        ("FormaPago", "Cuota002", "566.40", DUE_2),
    ]


def test_instalment_due_today_and_padded_codes(acme: httpx.Client) -> None:
    today = peru_today().isoformat()  # the issue date too: a run crossing midnight in Lima stays consistent
    body = detraction_invoice(
        fecha_de_emision=today, codigo_condicion_de_pago="02", cuotas=[cuota(today, 1132.80)]
    )
    body["detraccion"].update(codigo_tipo_detraccion=8, codigo_metodo_pago="1")
    root = signed_xml(issue(acme, body))
    assert payment_terms(root)[0] == ("Detraccion", "008", "4.00", "47.20")
    assert root.findtext("cac:PaymentMeans/cbc:PaymentMeansCode", namespaces=NS) == "001"
    assert payment_terms(root)[2] == ("FormaPago", "Cuota001", "1132.80", today)


def test_usd_credit_with_detraction_converts_the_detraction(acme: httpx.Client) -> None:
    body = detraction_invoice(codigo_tipo_moneda="USD", factor_tipo_de_cambio=3.75)
    body["detraccion"]["monto"] = 177.00  # 4 % of 1,180.00 USD x 3.75, in soles
    body.update(codigo_condicion_de_pago="02", cuotas=[cuota(DUE_1, 1132.80, "USD")])
    root = signed_xml(issue(acme, body))
    amounts = {
        (el.findtext("cbc:PaymentMeansID", namespaces=NS), el.find("cbc:Amount", NS).get("currencyID"))
        for el in root.findall("cac:PaymentTerms", NS)
    }
    assert amounts == {("008", "PEN"), ("Credito", "USD"), ("Cuota001", "USD")}


def test_hydrobiological_detraction_1002(acme: httpx.Client) -> None:
    body = big_invoice(
        codigo_tipo_operacion="1002", detraccion=detraction_block(codigo_tipo_detraccion="004")
    )
    payload = issue(acme, body)
    assert payload["data"]["state_type_id"] == "05", payload["response"]


# ------------------------------------------------------------------------------------------------ refused

Change = Callable[[dict[str, Any]], None]


def _parent(body: dict[str, Any], path: str) -> tuple[Any, Any]:
    """The container of the last key of a dotted path (``cuotas.1.fecha``) and that key."""
    target: Any = body
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    for key in keys[:-1]:
        target = target[key]
    return target, keys[-1]


def _set(path: str, value: Any) -> Change:
    def change(body: dict[str, Any]) -> None:
        target, key = _parent(body, path)
        target[key] = value

    return change


def _delete(path: str) -> Change:
    def change(body: dict[str, Any]) -> None:
        target, key = _parent(body, path)
        del target[key]

    return change


YESTERDAY = (TODAY - dt.timedelta(days=1)).isoformat()

#: name -> (base body, change, error_code or None, field)
BAD: dict[str, tuple[Callable[[], dict[str, Any]], Change, str | None, str]] = {
    "cuotas do not add up": (credit_invoice, _set("cuotas.1.monto", 50), None, "cuotas"),
    "cuotas do not add up to total less detraction": (
        detraction_credit_invoice,
        _set("cuotas.1.monto", 613.60),  # would be the total without the detraction
        None,
        "cuotas",
    ),
    "cuota date before issue date": (
        credit_invoice,
        _set("cuotas.1.fecha", YESTERDAY),
        None,
        "cuotas.1.fecha",
    ),
    "cuota date format": (credit_invoice, _set("cuotas.0.fecha", "30-12-2030"), None, "cuotas.0.fecha"),
    "cuota currency": (
        credit_invoice,
        _set("cuotas.0.codigo_tipo_moneda", "USD"),
        None,
        "cuotas.0.codigo_tipo_moneda",
    ),
    "cuota without amount": (credit_invoice, _delete("cuotas.0.monto"), "MISSING_FIELDS", "cuotas.0.monto"),
    "cuota amount zero": (credit_invoice, _set("cuotas.0.monto", 0), None, "cuotas.0.monto"),
    "cuota not an object": (credit_invoice, _set("cuotas.0", "59"), None, "cuotas.0"),
    "credit without cuotas": (credit_invoice, _delete("cuotas"), "MISSING_FIELDS", "cuotas"),
    "credit with empty cuotas": (credit_invoice, _set("cuotas", []), None, "cuotas"),
    "cash with cuotas": (credit_invoice, _set("codigo_condicion_de_pago", "01"), None, "cuotas"),
    "pending amount stated wrong": (
        credit_invoice,
        _set("totales.total_pendiente_pago", 100),
        None,
        "totales.total_pendiente_pago",
    ),
    "1001 without detraccion": (detraction_invoice, _delete("detraccion"), "MISSING_FIELDS", "detraccion"),
    "detraccion with 0101": (detraction_invoice, _set("codigo_tipo_operacion", "0101"), None, "detraccion"),
    "unknown catalog 54 code": (
        detraction_invoice,
        _set("detraccion.codigo_tipo_detraccion", "999"),
        None,
        "detraccion.codigo_tipo_detraccion",
    ),
    "unknown catalog 59 code": (
        detraction_invoice,
        _set("detraccion.codigo_metodo_pago", "555"),
        None,
        "detraccion.codigo_metodo_pago",
    ),
    "missing account": (
        detraction_invoice,
        _delete("detraccion.cuenta_bancaria"),
        "MISSING_FIELDS",
        "detraccion.cuenta_bancaria",
    ),
    "missing percent": (
        detraction_invoice,
        _delete("detraccion.porcentaje"),
        "MISSING_FIELDS",
        "detraccion.porcentaje",
    ),
    "detraction above total": (detraction_invoice, _set("detraccion.monto", 2000), None, "detraccion.monto"),
    "detraccion not an object": (detraction_invoice, _set("detraccion", "008"), None, "detraccion"),
    "1002 with a code other than 004": (
        detraction_invoice,
        _set("codigo_tipo_operacion", "1002"),
        None,
        "detraccion.codigo_tipo_detraccion",
    ),
    "1004 cargo transport without the trip": (
        detraction_invoice,
        _set("codigo_tipo_operacion", "1004"),
        None,
        "detraccion.detalle_viaje",
    ),
    "usd credit with detraction needs the exchange rate": (
        detraction_credit_invoice,
        lambda b: b.update(
            codigo_tipo_moneda="USD", cuotas=[cuota(DUE_1, 566.40, "USD"), cuota(DUE_2, 566.40, "USD")]
        ),
        None,
        "factor_tipo_de_cambio",
    ),
    "header ISC the lines do not carry": (
        credit_invoice,
        _set("totales.total_isc", 5),
        "TOTALS_MISMATCH",
        "totales.total_isc",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_blocks_are_refused_and_nothing_is_stored(acme: httpx.Client, name: str) -> None:
    base, change, code, field = BAD[name]
    body = copy.deepcopy(base())
    change(body)
    before = latest_ids(acme)
    response = acme.post("/api/documents", json=body)
    assert response.status_code == 422, response.text
    payload = response.json()
    assert payload["success"] is False and payload["message"]
    if code is not None:
        assert payload["error_code"] == code
    assert field in [e["field"] for e in payload["errors"]], payload["errors"]
    assert latest_ids(acme) == before


def test_credit_note_13_without_instalments_is_refused(acme: httpx.Client) -> None:
    """Notes with instalments are built (tests/facturador/api/test_notes_and_cargo.py); type 13 needs them."""
    body = credit_note_body()
    body.update(codigo_tipo_nota="13", codigo_condicion_de_pago="02")
    response = acme.post("/api/documents", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["field"] == "cuotas"
