"""ISC (scheme 2000, systems 01/02/03 of catalog 08) and other taxes (scheme 9999) over HTTP.

Each accepted body (:mod:`tests.samples.isc`, amounts worked out by hand) is issued on a live service: its
XML is schema-valid, signed, accepted by the simulator and by SUNAT's own stylesheets with no observation,
carries the line subtotal 2000 with its ``cbc:TierRange`` (or 9999) and the header subtotal, an IGV base
that includes the ISC and a payable amount that includes both; the PDF prints the ISC total. Each broken
variant is refused 422 naming the field and quoting SUNAT's rule, and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest

from tests import sunat_rules as stylesheets
from tests.facturador.api.test_blocks import issue, issued_xml, pdf_text, refused, subtotal
from tests.helpers import NS, amount, assert_schema_valid
from tests.samples import isc

D = Decimal
MONETARY = "cac:LegalMonetaryTotal/"


@pytest.fixture
def judge() -> Callable[[bytes, str], Any]:
    """SUNAT's published stylesheets (skipped without the reference folder)."""
    return stylesheets.run


def isc_category(line: Any) -> Any:
    found = line.xpath(
        "cac:TaxTotal/cac:TaxSubtotal[cac:TaxCategory/cac:TaxScheme/cbc:ID='2000']/cac:TaxCategory",
        namespaces=NS,
    )
    assert len(found) == 1
    return found[0]


#: system -> (line ISC base, ISC, IGV base, IGV, line taxes, payable)
EXPECTED = {
    "01": (D("50.00"), D("15.00"), D("65.00"), D("11.70"), D("26.70"), D("76.70")),
    "02": (D("120.00"), D("9.00"), D("129.00"), D("23.22"), D("32.22"), D("152.22")),
    "03": (D("120.00"), D("36.00"), D("116.00"), D("20.88"), D("56.88"), D("136.88")),
}


@pytest.mark.parametrize("system", ["01", "02", "03"])
def test_isc_invoice_of_each_system(
    acme: httpx.Client, judge: Callable[[bytes, str], Any], system: str
) -> None:
    payload = issue(acme, isc.isc_invoice(system))
    root = issued_xml(payload, judge)
    isc_base, isc_amount, igv_base, igv, line_taxes, payable = EXPECTED[system]
    line = root.find("cac:InvoiceLine", NS)
    assert subtotal(line, "2000") == (isc_base, isc_amount)
    category = isc_category(line)
    assert category.findtext("cbc:TierRange", namespaces=NS) == system
    assert category.findtext("cac:TaxScheme/cbc:Name", namespaces=NS) == "ISC"
    assert category.findtext("cac:TaxScheme/cbc:TaxTypeCode", namespaces=NS) == "EXC"
    assert subtotal(line, "1000") == (igv_base, igv)  # the IGV base includes the ISC (3272)
    assert amount(line, "cac:TaxTotal/cbc:TaxAmount") == line_taxes
    assert subtotal(root, "2000") == (isc_base, isc_amount)
    assert subtotal(root, "1000") == (amount(line, "cbc:LineExtensionAmount"), igv)  # values (3277)
    assert amount(root, "cac:TaxTotal/cbc:TaxAmount") == line_taxes
    assert amount(root, MONETARY + "cbc:TaxInclusiveAmount") == payable
    assert amount(root, MONETARY + "cbc:PayableAmount") == payable
    text = pdf_text(acme, payload)
    assert "ISC" in text and f"{isc_amount:.2f}" in text


def test_other_taxes_invoice(acme: httpx.Client, judge: Callable[[bytes, str], Any]) -> None:
    payload = issue(acme, isc.other_taxes_invoice())
    root = issued_xml(payload, judge)
    line = root.findall("cac:InvoiceLine", NS)[0]
    assert subtotal(line, "9999") == (D("100.00"), D("5.00"))
    assert subtotal(line, "1000") == (D("100.00"), D("18.00"))  # other taxes stay out of the IGV base
    assert amount(line, "cac:TaxTotal/cbc:TaxAmount") == D("23.00")
    assert subtotal(root, "9999") == (D("100.00"), D("5.00"))
    assert amount(root, "cac:TaxTotal/cbc:TaxAmount") == D("41.00")
    assert amount(root, MONETARY + "cbc:PayableAmount") == D("241.00")
    assert "Otros tributos" in pdf_text(acme, payload)


def test_isc_boleta(acme: httpx.Client, judge: Callable[[bytes, str], Any]) -> None:
    payload = issue(acme, isc.isc_boleta("01"))
    assert payload["data"]["number"].startswith("B001-")
    xml = httpx.get(payload["links"]["xml"]).content
    result = judge(xml, payload["data"]["filename"])
    assert result.rejections == [] and result.observations == [], result
    root = assert_schema_valid(xml)
    assert subtotal(root, "2000") == (D("50.00"), D("15.00"))
    assert amount(root, MONETARY + "cbc:PayableAmount") == D("76.70")


def test_isc_credit_note(acme: httpx.Client, judge: Callable[[bytes, str], Any]) -> None:
    invoice = issue(acme, isc.isc_invoice("01"))
    payload = issue(acme, isc.isc_credit_note(invoice["data"]["external_id"]))
    root = issued_xml(payload, judge)
    line = root.find("cac:CreditNoteLine", NS)
    assert subtotal(line, "2000") == (D("50.00"), D("15.00"))
    assert isc_category(line).findtext("cbc:TierRange", namespaces=NS) == "01"
    assert subtotal(root, "2000") == (D("50.00"), D("15.00"))
    assert amount(root, MONETARY + "cbc:PayableAmount") == D("76.70")


# ------------------------------------------------------------------------------------ broken variants


def _changed(make: Callable[[], dict[str, Any]], *changes: tuple[str, str, Any]) -> dict[str, Any]:
    body = make()
    for where, key, value in changes:
        target = body["items"][0] if where == "item" else body["totales"]
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value
    return body


BROKEN: dict[str, tuple[Callable[[], dict[str, Any]], str, str]] = {
    # 30 % of 50.00 is 15.00, not 20.00
    "isc_amount": (
        lambda: _changed(lambda: isc.isc_invoice("01"), ("item", "total_isc", 20)),
        "items.0.total_isc",
        "3108",
    ),
    # a rate of 0 with a base
    "isc_rate_zero": (
        lambda: _changed(lambda: isc.isc_invoice("01"), ("item", "porcentaje_isc", 0)),
        "items.0.porcentaje_isc",
        "3104",
    ),
    # 7.5 % of 120.00 is 9.00: a rate of 10 % does not give the ISC sent
    "isc_wrong_rate": (
        lambda: _changed(lambda: isc.isc_invoice("02"), ("item", "porcentaje_isc", 10)),
        "items.0.total_isc",
        "3108",
    ),
    "isc_system_unknown": (
        lambda: _changed(lambda: isc.isc_invoice("01"), ("item", "codigo_tipo_sistema_isc", "04")),
        "items.0.codigo_tipo_sistema_isc",
        "2041",
    ),
    "isc_without_system": (
        lambda: _changed(lambda: isc.isc_invoice("01"), ("item", "codigo_tipo_sistema_isc", None)),
        "items.0.codigo_tipo_sistema_isc",
        "2373",
    ),
    # the IGV base without the ISC: 50.00 instead of 65.00 (and its IGV 9.00)
    "igv_base_without_isc": (
        lambda: _changed(
            lambda: isc.isc_invoice("01"),
            ("item", "total_base_igv", 50),
            ("item", "total_igv", 9),
            ("item", "total_impuestos", 24),
            ("item", "total_item", 74),
            ("item", "precio_unitario", "7.40"),
            ("totales", "total_igv", 9),
            ("totales", "total_impuestos", 24),
            ("totales", "total_venta", 74),
        ),
        "items.0.total_base_igv",
        "3272",
    ),
    "header_isc": (
        lambda: _changed(lambda: isc.isc_invoice("03"), ("totales", "total_isc", 40)),
        "totales.total_isc",
        "3298",
    ),
    "header_isc_base": (
        lambda: _changed(lambda: isc.isc_invoice("03"), ("totales", "total_base_isc", 80)),
        "totales.total_base_isc",
        "3296",
    ),
    # the ISC left out of the payable amount
    "total_without_isc": (
        lambda: _changed(lambda: isc.isc_invoice("01"), ("totales", "total_venta", "61.70")),
        "totales.total_venta",
        "3280",
    ),
    # 5 % of 100.00 is 5.00, not 8.00
    "other_taxes_amount": (
        lambda: _changed(isc.other_taxes_invoice, ("item", "total_otros_impuestos", 8)),
        "items.0.total_otros_impuestos",
        "3109",
    ),
    "header_other_taxes": (
        lambda: _changed(isc.other_taxes_invoice, ("totales", "total_otros_impuestos", 9)),
        "totales.total_otros_impuestos",
        "3299",
    ),
    # IVAP (17) does not take ISC
    "isc_on_ivap": (
        lambda: _changed(
            lambda: isc.isc_invoice("01"),
            ("item", "codigo_tipo_afectacion_igv", "17"),
            ("item", "porcentaje_igv", 4),
            ("item", "total_igv", "2.60"),
        ),
        "items.0.codigo_tipo_sistema_isc",
        "3223",
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_isc_and_other_taxes_are_refused(acme: httpx.Client, name: str) -> None:
    make, field, rule = BROKEN[name]
    refused(acme, make(), field, rule)


def test_isc_on_a_free_line_is_refused(acme: httpx.Client) -> None:
    body = isc.isc_invoice("01")
    body["items"][0].update(codigo_tipo_afectacion_igv="13", codigo_tipo_precio="02")
    response = acme.post("/api/documents", json=body)
    assert response.status_code == 422, response.text
    assert "items.0.total_isc" in [e["field"] for e in response.json()["errors"]]


# ------------------------------------------------------------------ SUNAT's figures within the tolerance


def test_amounts_within_tolerance_are_written_as_sunat_computes_them(
    acme: httpx.Client, judge: Callable[[bytes, str], Any]
) -> None:
    """A client's ISC 15.40 and IGV 12.20 (SUNAT: 15.00 and 11.70, within its ± 1.00) are accepted, and
    the XML, the stored total and the PDF carry SUNAT's figures: total 76.70, not the client's 77.60."""
    body = isc.isc_invoice("01")
    body["items"][0].update(
        total_isc="15.40",
        total_base_igv="65.40",
        total_igv="12.20",
        total_impuestos="27.60",
        total_item="77.60",
        precio_unitario="7.76",
    )
    body["totales"].update(total_isc="15.40", total_igv="12.20", total_impuestos="27.60", total_venta="77.60")
    payload = issue(acme, body)
    root = issued_xml(payload, judge)
    line = root.find("cac:InvoiceLine", NS)
    assert subtotal(line, "2000") == (D("50.00"), D("15.00"))
    assert subtotal(line, "1000") == (D("65.00"), D("11.70"))
    assert amount(line, "cac:TaxTotal/cbc:TaxAmount") == D("26.70")
    assert amount(line, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount") == D("7.67")
    assert subtotal(root, "2000") == (D("50.00"), D("15.00"))
    assert amount(root, "cac:TaxTotal/cbc:TaxAmount") == D("26.70")
    assert amount(root, MONETARY + "cbc:PayableAmount") == D("76.70")
    assert payload["data"]["number_to_letter"].startswith("SETENTA Y SEIS CON 70/100")
    rows = acme.get("/api/documents/lists").json()["data"]
    row = next(r for r in rows if r["external_id"] == payload["data"]["external_id"])
    assert D(str(row["total"])) == D("76.70")


def test_a_header_within_tolerance_is_written_as_the_sum_of_its_lines(
    acme: httpx.Client, judge: Callable[[bytes, str], Any]
) -> None:
    """Exact lines (2 x 50.00 + IGV 18.00) under a header whose IGV says 18.40 (within ± 1.00): the XML
    carries the lines' sums, IGV 18.00 and 118.00."""
    body = isc.invoice_body()
    body["totales"].update(total_igv="18.40", total_impuestos="18.40", total_venta="118.40")
    root = issued_xml(issue(acme, body), judge)
    assert subtotal(root, "1000") == (D("100.00"), D("18.00"))
    assert amount(root, MONETARY + "cbc:PayableAmount") == D("118.00")
