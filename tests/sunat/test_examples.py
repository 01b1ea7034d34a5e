"""Request bodies pass SUNAT's amount rules as implemented here: ours (tests/data), the real public ones of
Facturador PRO, its sale note and SUNAT's real signed factura (the last three from tests/reference.py)."""

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from sunat.money import to_decimal
from sunat.rates import ALLOWED_IGV_PERCENTS, icbper_rate
from sunat.totals import check_line, check_totals, compute_totals
from sunat.words import amount_in_words
from tests.reference import shared_files, shared_path
from tests.samples import bodies


@dataclass(frozen=True)
class Line:
    quantity: Decimal
    unit_value: Decimal
    unit_price: Decimal
    price_type: str
    affectation: str
    igv_base: Decimal
    igv_percent: Decimal
    igv: Decimal
    icbper: Decimal
    taxes: Decimal
    value: Decimal
    total: Decimal


@dataclass(frozen=True)
class Totals:
    export: Decimal
    taxed: Decimal
    unaffected: Decimal
    exonerated: Decimal
    free: Decimal
    igv: Decimal
    igv_free: Decimal
    icbper: Decimal
    taxes: Decimal
    value: Decimal
    subtotal: Decimal
    total: Decimal


def _amount(data, key):
    return to_decimal(data.get(key) or 0)


def line_from_json(item):
    """A ``items[]`` entry of POST /api/documents (Spanish keys)."""
    return Line(
        quantity=_amount(item, "cantidad"),
        unit_value=_amount(item, "valor_unitario"),
        unit_price=_amount(item, "precio_unitario"),
        price_type=item["codigo_tipo_precio"],
        affectation=item["codigo_tipo_afectacion_igv"],
        igv_base=_amount(item, "total_base_igv"),
        igv_percent=_amount(item, "porcentaje_igv"),
        igv=_amount(item, "total_igv"),
        icbper=_amount(item, "total_impuestos_bolsa_plastica"),
        taxes=_amount(item, "total_impuestos"),
        value=_amount(item, "total_valor_item"),
        total=_amount(item, "total_item"),
    )


def totals_from_json(totales):
    total = _amount(totales, "total_venta")
    return Totals(
        export=_amount(totales, "total_exportacion"),
        taxed=_amount(totales, "total_operaciones_gravadas"),
        unaffected=_amount(totales, "total_operaciones_inafectas"),
        exonerated=_amount(totales, "total_operaciones_exoneradas"),
        free=_amount(totales, "total_operaciones_gratuitas"),
        igv=_amount(totales, "total_igv"),
        igv_free=_amount(totales, "total_igv_operaciones_gratuitas"),
        icbper=_amount(totales, "total_impuestos_bolsa_plastica"),
        taxes=_amount(totales, "total_impuestos"),
        value=_amount(totales, "total_valor"),
        subtotal=to_decimal(totales["subtotal_venta"]) if "subtotal_venta" in totales else total,
        total=total,
    )


def has_items(path: Path) -> bool:
    return "items" in json.loads(path.read_text(encoding="utf-8"))


PUBLIC_BODIES = shared_files("examples", pattern="documents_*.json", where=has_items)


def check_body(body):
    """Every line and the totals of a POST /api/documents body of 118.00 pass; the words match."""
    issued = date.fromisoformat(body["fecha_de_emision"])
    lines = [line_from_json(item) for item in body["items"]]
    for index, line in enumerate(lines):
        assert (
            check_line(
                line, index, allowed_percents=ALLOWED_IGV_PERCENTS(issued), icbper_rate=icbper_rate(issued)
            )
            == []
        )
    totals = totals_from_json(body["totales"])
    assert check_totals(lines, totals) == []
    assert compute_totals(lines).total == totals.total
    assert amount_in_words(totals.total, body["codigo_tipo_moneda"]) == "CIENTO DIECIOCHO CON 00/100 SOLES"


@pytest.mark.parametrize("name", ["taxed_invoice", "boleta", "credit_note"])
def test_our_bodies_pass(name):
    check_body(bodies.body(name))


@pytest.mark.requires_shared
def test_the_public_samples_are_there():
    assert {"documents_taxed_invoice.json", "documents_boleta_taxed.json"} <= {p.id for p in PUBLIC_BODIES}


@pytest.mark.parametrize("path", PUBLIC_BODIES)
def test_public_bodies_pass(path):
    check_body(json.loads(path.read_text(encoding="utf-8")))


def test_sale_note_with_an_exonerated_line_passes():
    """sale_note.json carries the internal (English) names of Facturador PRO."""
    body = json.loads(shared_path("examples", "sale_note.json").read_text())
    lines = [
        Line(
            quantity=_amount(item, "quantity"),
            unit_value=_amount(item, "unit_value"),
            unit_price=_amount(item, "unit_price"),
            price_type=item["price_type_id"],
            affectation=item["affectation_igv_type_id"],
            igv_base=_amount(item, "total_base_igv"),
            igv_percent=_amount(item, "percentage_igv"),
            igv=_amount(item, "total_igv"),
            icbper=_amount(item, "total_plastic_bag_taxes"),
            taxes=_amount(item, "total_taxes"),
            value=_amount(item, "total_value"),
            total=_amount(item, "total"),
        )
        for item in body["items"]
    ]
    assert all(check_line(line, i) == [] for i, line in enumerate(lines))
    totals = Totals(
        export=_amount(body, "total_exportation"),
        taxed=_amount(body, "total_taxed"),
        unaffected=_amount(body, "total_unaffected"),
        exonerated=_amount(body, "total_exonerated"),
        free=_amount(body, "total_free"),
        igv=_amount(body, "total_igv"),
        igv_free=Decimal(0),
        icbper=Decimal(0),
        taxes=_amount(body, "total_taxes"),
        value=_amount(body, "total_value"),
        subtotal=_amount(body, "total"),
        total=_amount(body, "total"),
    )
    assert check_totals(lines, totals) == []


NS = {
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "sac": "urn:sunat:names:specification:ubl:peru:schema:xsd:SunatAggregateComponents-1",
}


def test_real_signed_factura_passes():
    """20505310072-01-F001-00019772.xml: prices with IGV, unit values rounded to cents."""
    root = ET.parse(shared_path("examples", "sunat", "20505310072-01-F001-00019772.xml")).getroot()

    def amount(node, path):
        return to_decimal(node.findtext(path, namespaces=NS))

    lines = []
    for el in root.findall("cac:InvoiceLine", NS):
        value = amount(el, "cbc:LineExtensionAmount")
        igv = amount(el, "cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount")
        taxes = amount(el, "cac:TaxTotal/cbc:TaxAmount")
        lines.append(
            Line(
                quantity=amount(el, "cbc:InvoicedQuantity"),
                unit_value=amount(el, "cac:Price/cbc:PriceAmount"),
                unit_price=amount(el, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount"),
                price_type=el.findtext(
                    "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceTypeCode", namespaces=NS
                ),
                affectation=el.findtext(".//cbc:TaxExemptionReasonCode", namespaces=NS),
                igv_base=value,
                igv_percent=Decimal(18),
                igv=igv,
                icbper=Decimal(0),
                taxes=taxes,
                value=value,
                total=value + taxes,
            )
        )
    assert len(lines) == 2
    assert all(check_line(line, i) == [] for i, line in enumerate(lines))
    taxed = amount(root, ".//sac:AdditionalMonetaryTotal/cbc:PayableAmount")
    igv = amount(root, "cac:TaxTotal/cbc:TaxAmount")
    payable = amount(root, "cac:LegalMonetaryTotal/cbc:PayableAmount")
    zero = Decimal(0)
    totals = Totals(zero, taxed, zero, zero, zero, igv, zero, zero, igv, taxed, payable, payable)
    assert check_totals(lines, totals) == []
    legend = root.findtext(".//sac:AdditionalProperty/cbc:Value", namespaces=NS)
    assert amount_in_words(payable).startswith(legend)
