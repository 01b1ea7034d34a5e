"""Issue 11's blocks over HTTP: each accepted body's XML is schema-valid, signed, in SUNAT's form and
passes SUNAT's own stylesheets; each broken variant is refused with SUNAT's rule code and nothing stored.

Bodies: :mod:`tests.samples.blocks` (the reference's matrix, amounts worked out by hand).
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.common import issue
from tests.facturador.render.pdf_probes import pdf_strings
from tests.helpers import NS, amount, assert_schema_valid, assert_signed
from tests.reference import shared_path
from tests.samples import blocks
from tests.samples.bodies import boleta_body, invoice_body

D = Decimal


# ------------------------------------------------------------------------------------------------ helpers


@pytest.fixture(scope="session")
def sunat_rules(tmp_path_factory: pytest.TempPathFactory) -> Callable[[bytes, str], Any]:
    """Run SUNAT's published stylesheets on an XML; returns run_xsl's Result.

    Skipped without the reference folder (failed under FACTURADOR_REQUIRE_SHARED=1, as in CI)."""
    folder = shared_path("sunat-rules")
    if os.environ.get("FACTURADOR_REQUIRE_SHARED") == "1":
        import saxonche  # noqa: F401  (CI: a missing runner is a failure, not a skip)
    pytest.importorskip("saxonche")
    sys.path.insert(0, str(folder))
    import run_xsl  # type: ignore[import-not-found]

    contents = folder / "contenido"
    work = tmp_path_factory.mktemp("sunat-xsl")
    runtime = run_xsl.build_runtime(contents, work / "datapower", "datapower")
    codes = run_xsl.load_codes([contents / "commons/cpe/catalogo/CatalogoErrores.xml"])
    runner = run_xsl.Runner(runtime, codes, "all", None, run_xsl.SchemaCheck(contents / "commons/xsd"))

    def run(xml: bytes, filename: str) -> Any:
        path = Path(work / f"{filename}.xml")
        path.write_bytes(xml)
        return runner.run(path)

    return run


def issued_xml(payload: dict[str, Any], sunat_rules: Callable[[bytes, str], Any]) -> Any:
    """The issued XML: schema-valid, signed, accepted by the simulator and by SUNAT's stylesheets."""
    assert payload["response"]["code"] == "0", payload["response"]
    xml = httpx.get(payload["links"]["xml"]).content
    root = assert_schema_valid(xml)
    assert_signed(xml, payload["data"]["hash"])
    result = sunat_rules(xml, payload["data"]["filename"])
    assert result.runtime_error is None, result.runtime_error
    assert result.xsd in ("ok", "not checked"), result.xsd
    assert result.rejections == [], [(f.code, f.detail) for f in result.rejections]
    assert result.observations == [], [(f.code, f.detail) for f in result.observations]
    return root


def subtotal(node: Any, scheme: str) -> tuple[Decimal | None, Decimal]:
    found = node.xpath(
        f"cac:TaxTotal/cac:TaxSubtotal[cac:TaxCategory/cac:TaxScheme/cbc:ID='{scheme}']", namespaces=NS
    )
    assert len(found) == 1, f"one {scheme} subtotal expected"
    base = found[0].findtext("cbc:TaxableAmount", namespaces=NS)
    return (D(base) if base is not None else None), D(found[0].findtext("cbc:TaxAmount", namespaces=NS))


def pdf_text(client: httpx.Client, payload: dict[str, Any]) -> str:
    """The text shown on the document's PDF."""
    response = httpx.get(payload["links"]["pdf"])
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    return pdf_strings(response.content)


def latest_ids(client: httpx.Client) -> list[str]:
    return [row["external_id"] for row in client.get("/api/documents/lists").json()["data"]]


def refused(client: httpx.Client, body: dict[str, Any], field: str, rule: str) -> dict[str, Any]:
    """Post ``body``: 422 naming ``field``, quoting SUNAT's ``rule``, and nothing stored."""
    before = latest_ids(client)
    response = client.post("/api/documents", json=body)
    assert response.status_code == 422, response.text
    payload = response.json()
    assert payload["success"] is False
    assert field in [e["field"] for e in payload["errors"]], payload["errors"]
    quoted = [e["message"] for e in payload["errors"] if e["field"] == field] + [payload["message"]]
    assert any(rule in text for text in quoted) or rule in payload["error_code"], payload
    assert latest_ids(client) == before
    return payload


# ------------------------------------------------------------------------------------- 1. conventions


@pytest.mark.parametrize("affectation", ["13", "16", "21", "31", "37"])
def test_free_line_as_real_clients_send_it(
    acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any], affectation: str
) -> None:
    payload = issue(acme, blocks.free_invoice_real_client(affectation))
    root = issued_xml(payload, sunat_rules)
    taxed = affectation in {"13", "16"}
    free_line = root.findall("cac:InvoiceLine", NS)[1]
    reference = "cac:PricingReference/cac:AlternativeConditionPrice/"
    assert free_line.findtext(reference + "cbc:PriceTypeCode", namespaces=NS) == "02"
    assert amount(free_line, reference + "cbc:PriceAmount") == D("50")
    assert amount(free_line, "cbc:LineExtensionAmount") == D("100.00")
    assert amount(free_line, "cac:Price/cbc:PriceAmount") == 0
    assert amount(free_line, "cac:TaxTotal/cbc:TaxAmount") == 0
    assert subtotal(free_line, "9996") == (D("100.00"), D("18.00") if taxed else D("0.00"))
    assert subtotal(root, "9996") == (D("100.00"), D("18.00") if taxed else D("0.00"))
    assert amount(root, "cac:LegalMonetaryTotal/cbc:LineExtensionAmount") == D("100.00")
    assert amount(root, "cac:LegalMonetaryTotal/cbc:PayableAmount") == D("118.00")
    assert root.find("cbc:Note[@languageLocaleID='1002']", NS) is not None


def test_free_line_with_referential_values(
    acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]
) -> None:
    root = issued_xml(issue(acme, blocks.free_invoice_referential()), sunat_rules)
    free_line = root.findall("cac:InvoiceLine", NS)[1]
    assert amount(free_line, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount") == D("20")
    assert subtotal(root, "9996") == (D("60.00"), D("0.00"))


def test_free_line_with_a_wrong_base_is_refused(acme: httpx.Client) -> None:
    body = blocks.free_invoice_real_client()
    body["totales"]["total_operaciones_gratuitas"] = 300
    refused(acme, body, "totales.total_operaciones_gratuitas", "3276")
    body = blocks.free_invoice_real_client()
    body["items"][1]["total_igv"] = 40  # 18 % of 100.00 is 18.00
    refused(acme, body, "items.1.total_igv", "3103")


@pytest.mark.parametrize("inside", [False, True], ids=["real-clients", "sunat"])
def test_bag_tax_in_either_convention(
    acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any], inside: bool
) -> None:
    payload = issue(acme, blocks.bag_invoice(inside=inside))
    root = issued_xml(payload, sunat_rules)
    bag = root.findall("cac:InvoiceLine", NS)[1]
    assert amount(bag, "cac:TaxTotal/cbc:TaxAmount") == D("2.07")  # IGV 0.07 + ICBPER 2.00
    assert subtotal(bag, "7152") == (None, D("2.00"))
    assert bag.findtext("cac:TaxTotal/cac:TaxSubtotal/cbc:BaseUnitMeasure", namespaces=NS) == "4"
    assert amount(bag, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory/cbc:PerUnitAmount") == D("0.50")
    assert amount(bag, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount") == D("0.6175")
    assert amount(root, "cac:TaxTotal/cbc:TaxAmount") == D("20.07")
    assert subtotal(root, "7152") == (None, D("2.00"))
    monetary = "cac:LegalMonetaryTotal/"
    assert amount(root, monetary + "cbc:TaxInclusiveAmount") == D("120.47")
    assert amount(root, monetary + "cbc:PayableAmount") == D("120.47")
    assert payload["data"]["number_to_letter"].startswith("CIENTO VEINTE CON 47/100")


def test_bag_tax_at_an_old_rate_is_refused(acme: httpx.Client) -> None:
    """0.40 per bag was the 2022 rate; on today's date it is 0.50 (SUNAT 4318)."""
    refused(acme, blocks.bag_invoice(per_bag="0.40"), "items.1.total_impuestos_bolsa_plastica", "4318")


def test_bag_tax_missing_from_the_total_is_refused(acme: httpx.Client) -> None:
    body = blocks.bag_invoice()
    body["totales"]["total_venta"] = "118.47"
    refused(acme, body, "totales.total_venta", "3280")


def test_export_boleta_to_a_non_domiciled_customer(
    acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]
) -> None:
    payload = issue(acme, blocks.export_boleta(10))  # 1,000.00: above the boleta's 700.00 threshold
    assert payload["data"]["number"].startswith("B001-")
    xml = httpx.get(payload["links"]["xml"]).content
    root = assert_schema_valid(xml)
    result = sunat_rules(xml, payload["data"]["filename"])
    assert result.rejections == [] and result.observations == [], result
    customer = root.find("cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID", NS)
    assert customer.get("schemeID") == "0"
    assert subtotal(root, "9995") == (D("1000.00"), D("0.00"))
    assert root.find("cbc:InvoiceTypeCode", NS).get("listID") == "0200"


def test_export_boleta_to_a_ruc_is_refused(acme: httpx.Client) -> None:
    body = blocks.export_boleta()
    body["datos_del_cliente_o_receptor"] = copy.deepcopy(body["datos_del_cliente_o_receptor"]) | {
        "codigo_tipo_documento_identidad": "6",
        "numero_documento": "20487654320",
    }
    before = latest_ids(acme)
    response = acme.post("/api/documents", json=body)
    assert response.status_code == 422 and response.json()["error_code"] == "INVALID_CUSTOMER"
    assert latest_ids(acme) == before


# ---------------------------------------------------------------------------- 2. discounts and charges


def allowances(node: Any) -> list[tuple[str, str, Decimal, Decimal, str | None]]:
    """(ChargeIndicator, reason, Amount, BaseAmount, factor) of each cac:AllowanceCharge child."""
    return [
        (
            el.findtext("cbc:ChargeIndicator", namespaces=NS),
            el.findtext("cbc:AllowanceChargeReasonCode", namespaces=NS),
            D(el.findtext("cbc:Amount", namespaces=NS)),
            D(el.findtext("cbc:BaseAmount", namespaces=NS)),
            el.findtext("cbc:MultiplierFactorNumeric", namespaces=NS),
        )
        for el in node.findall("cac:AllowanceCharge", NS)
    ]


def monetary(root: Any, name: str) -> Decimal | None:
    found = root.findtext(f"cac:LegalMonetaryTotal/cbc:{name}", namespaces=NS)
    return D(found) if found is not None else None


def test_line_discount_in_the_base(acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]) -> None:
    payload = issue(acme, blocks.line_discount_invoice())
    root = issued_xml(payload, sunat_rules)
    line = root.find("cac:InvoiceLine", NS)
    assert allowances(line) == [("false", "00", D("10.00"), D("100.00"), "0.10")]
    children = [el.tag.split("}")[1] for el in line]
    assert children.index("AllowanceCharge") < children.index("TaxTotal")  # InvoiceLine order
    assert amount(line, "cbc:LineExtensionAmount") == D("90.00")
    assert subtotal(line, "1000") == (D("90.00"), D("16.20"))
    assert monetary(root, "PayableAmount") == D("106.20")
    assert monetary(root, "AllowanceTotalAmount") is None
    text = pdf_text(acme, payload)
    assert "Descuento por volumen" in text and "10.00" in text


def test_line_discount_outside_the_base(acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]) -> None:
    root = issued_xml(issue(acme, blocks.line_discount_outside_invoice()), sunat_rules)
    line = root.find("cac:InvoiceLine", NS)
    assert allowances(line) == [("false", "01", D("5.00"), D("118.00"), None)]
    assert amount(line, "cbc:LineExtensionAmount") == D("100.00")
    assert (monetary(root, "TaxInclusiveAmount"), monetary(root, "AllowanceTotalAmount")) == (
        D("118.00"),
        D("5.00"),
    )
    assert monetary(root, "PayableAmount") == D("113.00")


@pytest.mark.parametrize("code", ["02", "03"])
def test_global_discount(acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any], code: str) -> None:
    payload = issue(acme, blocks.global_discount_invoice(code))
    root = issued_xml(payload, sunat_rules)
    if code == "02":
        assert allowances(root) == [("false", "02", D("5.00"), D("100.00"), "0.05")]
        assert subtotal(root, "1000") == (D("95.00"), D("17.10"))
        assert monetary(root, "LineExtensionAmount") == D("95.00")
        assert monetary(root, "AllowanceTotalAmount") is None
    else:
        assert allowances(root) == [("false", "03", D("5.90"), D("118.00"), "0.05")]
        assert subtotal(root, "1000") == (D("100.00"), D("18.00"))
        assert monetary(root, "AllowanceTotalAmount") == D("5.90")
    assert monetary(root, "PayableAmount") == D("112.10")
    assert "Descuento global" in pdf_text(acme, payload)


@pytest.mark.parametrize("code", ["46", "49"])
def test_global_charge(acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any], code: str) -> None:
    payload = issue(acme, blocks.global_charge_invoice(code))
    root = issued_xml(payload, sunat_rules)
    assert allowances(root) == [("true", code, D("10.00"), D("100.00"), "0.10")]
    if code == "46":
        assert monetary(root, "ChargeTotalAmount") == D("10.00")
        assert monetary(root, "PayableAmount") == D("128.00")
    else:
        assert subtotal(root, "1000") == (D("110.00"), D("19.80"))
        assert monetary(root, "ChargeTotalAmount") is None
        assert monetary(root, "PayableAmount") == D("129.80")
    row = next(
        r
        for r in acme.get("/api/documents/lists").json()["data"]
        if r["external_id"] == payload["data"]["external_id"]
    )
    assert D(str(row["total"])) == monetary(root, "PayableAmount")


def _broken(make: Callable[[], dict[str, Any]], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    body = make()
    change(body)
    return body


BROKEN_ALLOWANCES: dict[
    str, tuple[Callable[[], dict[str, Any]], Callable[[dict[str, Any]], None], str, str]
] = {
    "global discount: amount is not base x factor": (
        blocks.global_discount_invoice,
        lambda b: b["descuentos"][0].update(base=200),  # 200 x 5 % = 10.00, not 5.00
        "descuentos.0.monto",
        "3307",
    ),
    "line discount: amount is not base x factor": (
        blocks.line_discount_invoice,
        lambda b: b["items"][0]["descuentos"][0].update(factor="0.50"),
        "items.0.descuentos.0.monto",
        "3290",
    ),
    "taxed total not net of discount 02": (
        blocks.global_discount_invoice,
        lambda b: b["totales"].update(total_operaciones_gravadas=100, total_valor=100),
        "totales.total_operaciones_gravadas",
        "3277",
    ),
    "line value not net of discount 00": (
        blocks.line_discount_invoice,
        lambda b: b["items"][0]["descuentos"][0].update(monto=20, factor="0.20"),
        "items.0.total_valor_item",
        "3271",
    ),
    "payable ignores discount 03": (
        blocks.global_discount_invoice.__call__,
        lambda b: (
            b.update(descuentos=[blocks.allowance("03", "5.90", 118, "0.05")]),
            b["totales"].update(total_venta=118),
        ),
        "totales.total_venta",
        "3280",
    ),
    "wrong charges total": (
        blocks.global_charge_invoice,
        lambda b: b["totales"].update(total_cargos=25, total_venta=143),
        "totales.total_cargos",
        "3301",
    ),
    "wrong discounts total": (
        blocks.line_discount_outside_invoice,
        lambda b: b["totales"].update(total_descuentos=15, total_venta=103),
        "totales.total_descuentos",
        "3300",
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN_ALLOWANCES))
def test_broken_discounts_and_charges_are_refused(acme: httpx.Client, name: str) -> None:
    make, change, field, rule = BROKEN_ALLOWANCES[name]
    refused(acme, _broken(make, change), field, rule)


@pytest.mark.parametrize(
    ("where", "code"), [("descuentos", "00"), ("cargos", "47"), ("descuentos", "04"), ("cargos", "51")]
)
def test_codes_out_of_place_are_refused(acme: httpx.Client, where: str, code: str) -> None:
    """Line codes at the document level, an advance (04) without anticipos, perception (51) as a charge."""
    body = blocks.global_discount_invoice()
    body[where] = [blocks.allowance(code, 5, 100)]
    before = latest_ids(acme)
    response = acme.post("/api/documents", json=body)
    assert response.status_code == 422, response.text
    assert f"{where}.0.codigo" in [e["field"] for e in response.json()["errors"]]
    assert latest_ids(acme) == before


#: Zero-amount rows as forms fill them (docs/scenarios.md, "What real clients send"): codes that are
#: none of their list's, amounts of 0.00, attributes without a value.
PLACEHOLDERS = {
    "descuentos": [{"codigo": "", "descripcion": "", "factor": 0, "monto": 0, "base": 0}],
    "cargos": [{"codigo": "99", "descripcion": "Sin cargo", "monto": "0.00"}],
    "items.descuentos": [{"codigo": "02", "descripcion": "Cupón", "monto": 0.0, "base": 100}],
    "items.cargos": [{"monto": 0}],
    "items.datos_adicionales": [
        {"codigo": "", "descripcion": "", "valor": ""},
        {"codigo": "9999", "descripcion": "Color", "valor": None},
    ],
}


def test_zero_placeholders_outside_the_catalogs_are_kept_out_of_the_xml(
    acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]
) -> None:
    """A discount or charge of 0.00 with a code none of its list's, or an attribute with no value: they
    change no figure; written, SUNAT would refuse them (3073, 2954, 3064), so the XML leaves them out."""
    body = invoice_body()
    for key, rows in PLACEHOLDERS.items():
        if key.startswith("items."):
            body["items"][0][key.split(".")[1]] = rows
        else:
            body[key] = rows
    payload = issue(acme, body)
    root = issued_xml(payload, sunat_rules)
    assert root.findall(".//cac:AllowanceCharge", NS) == []
    assert root.findall(".//cac:AdditionalItemProperty", NS) == []


@pytest.mark.parametrize(
    ("where", "row"),
    [
        ("descuentos", {"codigo": "", "monto": 5}),
        ("items.descuentos", {"codigo": "99", "monto": "1.00", "base": 100}),
    ],
)
def test_rows_that_say_something_keep_their_catalogs(
    acme: httpx.Client, where: str, row: dict[str, Any]
) -> None:
    """A discount with an amount outside its catalog is still refused (an item attribute is not: SUNAT does
    not check catalog 55, see below)."""
    body = invoice_body()
    path = f"{where}.0.codigo"
    if where.startswith("items."):
        body["items"][0][where.split(".")[1]] = [row]
        path = f"items.0.{where.split('.')[1]}.0.codigo"
    else:
        body[where] = [row]
    before = latest_ids(acme)
    response = acme.post("/api/documents", json=body)
    assert response.status_code == 422, response.text
    assert path in [e["field"] for e in response.json()["errors"]], response.json()
    assert latest_ids(acme) == before


@pytest.mark.parametrize(("doc_type", "code"), [("01", "3000"), ("03", "3000"), ("01", "9999")])
def test_an_item_attribute_outside_catalog_55_is_taken_as_sunat_takes_it(
    acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any], doc_type: str, code: str
) -> None:
    """A real client sends the attribute 3000 "Garantía": catalog 55 does not list it, but SUNAT's factura,
    boleta and note stylesheets have their catalog-55 check (4279) commented out, so SUNAT accepts it
    without an observation. It was refused with a 422; it is now issued and written as sent."""
    body = invoice_body() if doc_type == "01" else boleta_body()
    body["items"][0]["datos_adicionales"] = [{"codigo": code, "descripcion": "Garantía", "valor": "12 meses"}]
    payload = issue(acme, body)
    if doc_type == "01":
        root = issued_xml(payload, sunat_rules)
    else:  # a boleta goes to SUNAT in the day's summary: SUNAT's boleta stylesheet judges its XML
        xml = httpx.get(payload["links"]["xml"]).content
        result = sunat_rules(xml, payload["data"]["filename"])
        assert (result.rejections, result.observations) == ([], [])
        root = assert_schema_valid(xml)
    prop = root.find(".//cac:Item/cac:AdditionalItemProperty", NS)
    assert prop is not None
    assert (prop.findtext("cbc:Name", namespaces=NS), prop.findtext("cbc:NameCode", namespaces=NS)) == (
        "Garantía",
        code,
    )
    assert prop.findtext("cbc:Value", namespaces=NS) == "12 meses"


# ---------------------------------------------------------------------------------- 3. advance payments


def test_advance_and_final_invoice(acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]) -> None:
    advance = issue(acme, blocks.advance_invoice())
    issued_xml(advance, sunat_rules)
    assert "PAGO ANTICIPADO" in pdf_text(acme, advance)
    number = advance["data"]["number"]

    payload = issue(acme, blocks.final_invoice(number))
    root = issued_xml(payload, sunat_rules)
    reference = root.find("cac:AdditionalDocumentReference", NS)
    assert reference.findtext("cbc:ID", namespaces=NS) == number
    assert reference.findtext("cbc:DocumentTypeCode", namespaces=NS) == "02"
    assert reference.findtext("cbc:DocumentStatusCode", namespaces=NS) == "1"
    issuer = reference.find("cac:IssuerParty/cac:PartyIdentification/cbc:ID", NS)
    assert issuer.get("schemeID") == "6" and issuer.text == payload["data"]["filename"].split("-")[0]
    prepaid = root.find("cac:PrepaidPayment", NS)
    assert (prepaid.findtext("cbc:ID", namespaces=NS), amount(prepaid, "cbc:PaidAmount")) == (
        "1",
        D("100.00"),
    )
    assert allowances(root) == [("false", "04", D("100.00"), D("100.00"), "1.00")]
    assert subtotal(root, "1000") == (D("400.00"), D("72.00"))
    assert monetary(root, "LineExtensionAmount") == D("500.00")
    assert monetary(root, "TaxInclusiveAmount") == D("572.00")
    assert monetary(root, "PrepaidAmount") == D("100.00")
    assert monetary(root, "PayableAmount") == D("472.00")
    text = pdf_text(acme, payload)
    assert f"Anticipo {number}" in text and "ANTICIPOS" in text


BROKEN_ADVANCES: dict[str, tuple[Callable[[dict[str, Any]], None], str, str]] = {
    "advance larger than the invoice": (
        lambda b: (
            b["anticipos"][0].update(monto=700, total=826),
            b["descuentos"][0].update(monto=700, base=700),
            b["totales"].update(total_anticipos=700),
        ),
        "totales.total_anticipos",
        "3280",
    ),
    "total_anticipos differs from the advances": (
        lambda b: b["totales"].update(total_anticipos=90, total_venta=482),
        "totales.total_anticipos",
        "2509",
    ),
    "advances without a discount 04": (lambda b: b.pop("descuentos"), "descuentos", "3287"),
    "discount 04 without advances": (lambda b: b.pop("anticipos"), "descuentos.0.codigo", "3282"),
    "taxed base not net of the advance": (
        lambda b: b["totales"].update(
            total_operaciones_gravadas=500, total_igv=90, total_impuestos=90, total_venta=490
        ),
        "totales.total_operaciones_gravadas",
        "3277",
    ),
    "a boleta's advance with a factura series": (
        lambda b: b["anticipos"][0].update(codigo_tipo_documento="03"),
        "anticipos.0.numero",
        "2521",
    ),
    "advance number not SERIE-NUMERO": (
        lambda b: b["anticipos"][0].update(numero="9"),
        "anticipos.0.numero",
        "2521",
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN_ADVANCES))
def test_broken_advances_are_refused(acme: httpx.Client, name: str) -> None:
    change, field, rule = BROKEN_ADVANCES[name]
    body = blocks.final_invoice("F001-1")
    change(body)
    refused(acme, body, field, rule)


# ----------------------------------------------------------- 4. guides, related documents, attributes


def test_guides_related_documents_and_item_attributes(
    acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]
) -> None:
    payload = issue(acme, blocks.references_invoice())
    root = issued_xml(payload, sunat_rules)
    guides = [
        (el.findtext("cbc:ID", namespaces=NS), el.findtext("cbc:DocumentTypeCode", namespaces=NS))
        for el in root.findall("cac:DespatchDocumentReference", NS)
    ]
    assert guides == [("T001-25", "09"), ("T002-7", "31")]
    related = root.find("cac:AdditionalDocumentReference", NS)
    assert (
        related.findtext("cbc:ID", namespaces=NS),
        related.findtext("cbc:DocumentTypeCode", namespaces=NS),
    ) == (
        "OC-2026-77",
        "99",
    )
    first, second = root.findall("cac:InvoiceLine", NS)
    props = first.findall("cac:Item/cac:AdditionalItemProperty", NS)
    assert [
        (p.findtext("cbc:NameCode", namespaces=NS), p.findtext("cbc:Value", namespaces=NS)) for p in props
    ] == [
        ("5010", "XYZ-987"),
    ]
    # the top-level plate goes to the line without one
    plate = second.find("cac:Item/cac:AdditionalItemProperty", NS)
    assert (plate.findtext("cbc:NameCode", namespaces=NS), plate.findtext("cbc:Value", namespaces=NS)) == (
        "5010",
        "ABC-123",
    )
    text = pdf_text(acme, payload)
    for shown in ("T001-25", "OC-2026-77", "XYZ-987", "ABC-123"):
        assert shown in text, shown


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda b: b["guias"].append(dict(b["guias"][0])), "guias.2.numero"),
        (lambda b: b["guias"][0].update(codigo_tipo_documento="01"), "guias.0.codigo_tipo_documento"),
        (
            lambda b: b["relacionados"][0].update(codigo_tipo_documento="02"),
            "relacionados.0.codigo_tipo_documento",
        ),
        (
            lambda b: b["items"][0]["datos_adicionales"][0].update(codigo="30 00"),
            "items.0.datos_adicionales.0.codigo",
        ),
        (
            lambda b: b["items"][0]["datos_adicionales"][0].pop("descripcion"),
            "items.0.datos_adicionales.0.descripcion",
        ),
    ],
    ids=[
        "duplicate guide",
        "guide type",
        "advance as related",
        "attribute code with a space",
        "attribute without name",
    ],
)
def test_broken_references_are_refused(
    acme: httpx.Client, change: Callable[[dict[str, Any]], None], field: str
) -> None:
    body = blocks.references_invoice()
    change(body)
    before = latest_ids(acme)
    response = acme.post("/api/documents", json=body)
    assert response.status_code == 422, response.text
    assert field in [e["field"] for e in response.json()["errors"]], response.json()
    assert latest_ids(acme) == before


# ------------------------------------------------------------------------------------------ 4. payments


def test_payments_are_stored_listed_and_printed(
    acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]
) -> None:
    payload = issue(acme, blocks.payments_invoice())
    issued_xml(payload, sunat_rules)  # payments are not part of the XML
    row = next(
        r
        for r in acme.get("/api/documents/lists").json()["data"]
        if r["external_id"] == payload["data"]["external_id"]
    )
    assert [
        (p["payment_method_type_id"], p["payment_destination_id"], p["payment"]) for p in row["payments"]
    ] == [
        ("01", "cash", "50.00"),
        ("02", "BCP-01", "68.00"),
    ]
    assert row["payments"][1]["reference"] == "VOUCHER-8841"
    assert row["total_payments"] == "118.00"
    text = pdf_text(acme, payload)
    assert "Efectivo 50.00" in text and "VOUCHER-8841" in text
    other = issue(acme, blocks.invoice_body())
    row = next(
        r
        for r in acme.get("/api/documents/lists").json()["data"]
        if r["external_id"] == other["data"]["external_id"]
    )
    assert row["payments"] == [] and row["total_payments"] == "0.00"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda b: b["pagos"][0].update(monto=100), "pagos"),  # 168.00 paid for 118.00
        (lambda b: b["pagos"][0].update(codigo_metodo_pago="77"), "pagos.0.codigo_metodo_pago"),
        (lambda b: b["pagos"][0].pop("monto"), "pagos.0.monto"),
        (lambda b: b["pagos"][0].update(monto=0), "pagos.0.monto"),
    ],
    ids=["more than the total", "unknown method", "no amount", "zero amount"],
)
def test_broken_payments_are_refused(
    acme: httpx.Client, change: Callable[[dict[str, Any]], None], field: str
) -> None:
    body = blocks.payments_invoice()
    change(body)
    before = latest_ids(acme)
    response = acme.post("/api/documents", json=body)
    assert response.status_code == 422, response.text
    assert field in [e["field"] for e in response.json()["errors"]], response.json()
    assert latest_ids(acme) == before


# ----------------------------------------------------------------------------------------------- 5. IVAP


def test_ivap_rice_sale(acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]) -> None:
    payload = issue(acme, blocks.ivap_invoice())
    root = issued_xml(payload, sunat_rules)
    assert subtotal(root, "1016") == (D("500.00"), D("20.00"))
    line = root.find("cac:InvoiceLine", NS)
    assert subtotal(line, "1016") == (D("500.00"), D("20.00"))
    assert line.findtext("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory/cbc:Percent", namespaces=NS) == "4.00"
    assert monetary(root, "PayableAmount") == D("520.00")


@pytest.mark.parametrize(
    ("change", "field", "rule"),
    [
        (lambda b: b["items"][0].update(porcentaje_igv=18, total_igv=90), "items.0.porcentaje_igv", "4438"),
        (
            lambda b: b["items"][0].update(total_igv=30, total_impuestos=30, total_item=530),
            "items.0.total_igv",
            "3103",
        ),
    ],
    ids=["IGV rate instead of IVAP", "wrong IVAP"],
)
def test_broken_ivap_is_refused(
    acme: httpx.Client, change: Callable[[dict[str, Any]], None], field: str, rule: str
) -> None:
    body = blocks.ivap_invoice()
    change(body)
    refused(acme, body, field, rule)


def test_ivap_mixed_with_igv_lines_is_refused(acme: httpx.Client) -> None:
    body = blocks.ivap_invoice()
    body["items"].append(blocks.taxed_item())
    before = latest_ids(acme)
    response = acme.post("/api/documents", json=body)
    assert response.status_code == 422 and response.json()["errors"][0]["field"].endswith(
        "codigo_tipo_afectacion_igv"
    )
    assert latest_ids(acme) == before


# ---------------------------------------------------------------------- 5. perception and retention


def test_perception_inside_an_invoice(acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]) -> None:
    payload = issue(acme, blocks.perception_invoice())
    root = issued_xml(payload, sunat_rules)
    assert root.find("cbc:InvoiceTypeCode", NS).get("listID") == "2001"
    assert root.find("cbc:Note[@languageLocaleID='2000']", NS) is not None
    assert allowances(root) == [("true", "51", D("2.36"), D("118.00"), "0.02")]
    terms = root.find("cac:PaymentTerms[cbc:ID='Percepcion']", NS)
    assert (
        amount(terms, "cbc:Amount") == D("120.36") and terms.find("cbc:Amount", NS).get("currencyID") == "PEN"
    )
    assert monetary(root, "PayableAmount") == D("118.00")  # the perception is not part of the sale
    assert "Percepción 51" in pdf_text(acme, payload)


def test_retention(acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]) -> None:
    payload = issue(acme, blocks.retention_invoice())
    root = issued_xml(payload, sunat_rules)
    assert allowances(root) == [("false", "62", D("35.40"), D("1180.00"), "0.03")]
    assert monetary(root, "AllowanceTotalAmount") is None and monetary(root, "PayableAmount") == D("1180.00")
    assert "Retención 62" in pdf_text(acme, payload)


BROKEN_WITHHOLDINGS: dict[str, tuple[Callable[[], dict[str, Any]], str, str]] = {
    "perception with the wrong rate": (
        lambda: blocks.perception_invoice("51", 1, "1.18"),
        "percepcion.porcentaje",
        "2798",
    ),
    "perception amount not base x rate": (
        lambda: blocks.perception_invoice(amount="9.00"),
        "percepcion.monto",
        "2798",
    ),
    "perception outside operation 2001": (
        lambda: {**blocks.perception_invoice(), "codigo_tipo_operacion": "0101"},
        "percepcion",
        "3308",
    ),
    "operation 2001 without perception": (
        lambda: {**blocks.invoice_body(), "codigo_tipo_operacion": "2001"},
        "percepcion",
        "3093",
    ),
    "perception base above the total": (
        lambda: {
            **blocks.perception_invoice(),
            "percepcion": {"codigo": "51", "porcentaje": 2, "monto": 4, "base": 200},
        },
        "percepcion.base",
        "2797",
    ),
    "retention at 6 %": (
        lambda: {
            **blocks.retention_invoice(),
            "retencion": {"codigo": "62", "porcentaje": 6, "monto": "70.80", "base": 1180},
        },
        "retencion.porcentaje",
        "3263",
    ),
    "retention by a DNI customer": (
        lambda: {
            **blocks.retention_invoice(),
            "codigo_tipo_operacion": "0101",
            "codigo_tipo_documento": "03",
            "serie_documento": "B001",
            "datos_del_cliente_o_receptor": blocks.boleta_body()["datos_del_cliente_o_receptor"],
        },
        "retencion",
        "3262",
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN_WITHHOLDINGS))
def test_broken_perception_and_retention_are_refused(acme: httpx.Client, name: str) -> None:
    make, field, rule = BROKEN_WITHHOLDINGS[name]
    refused(acme, make(), field, rule)


# ------------------------------------------------------------------------- notes with the same blocks


def test_credit_note_with_a_line_discount(
    acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]
) -> None:
    invoice = issue(acme, blocks.line_discount_invoice())
    note = blocks.line_discount_invoice()
    for key in ("codigo_tipo_operacion", "fecha_de_vencimiento", "numero_orden_de_compra"):
        note.pop(key, None)
    note["items"][0]["valor_unitario"] = 45  # a note's unit value is net of the line discount 00
    note.update(
        codigo_tipo_documento="07",
        serie_documento="FC01",
        codigo_tipo_nota="01",
        motivo_o_sustento_de_nota="Anulación de la operación",
        documento_afectado={"external_id": invoice["data"]["external_id"]},
    )
    payload = issue(acme, note)
    root = issued_xml(payload, sunat_rules)
    line = root.find("cac:CreditNoteLine", NS)
    children = [el.tag.split("}")[1] for el in line]
    assert children.index("TaxTotal") < children.index("AllowanceCharge")  # CreditNoteLine order
    assert allowances(line) == [("false", "00", D("10.00"), D("100.00"), "0.10")]
    assert monetary(root, "PayableAmount") == D("106.20")
