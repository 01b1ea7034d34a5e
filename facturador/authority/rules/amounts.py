"""Amounts: the currency, the lines, the tax subtotals and the header totals (reference/sunat.md §2.2-2.3).

Currency: 2070 no ``DocumentCurrencyCode``, 3088 one outside catalog 02, 2071 an amount in another
currency (perception and detraction amounts, which go in PEN, aside).

Advances: 2503, 3220, 3282, 3287 (and 2509 Σ PaidAmount = PrepaidAmount through sunat.totals).

Totals: 3288 no ``LineExtensionAmount`` and 3305 no ``TaxInclusiveAmount`` in the header, 3303 a
rounding above 1; per line 3105 no tax of the IGV family (financial operations aside), 2371 no
affectation, 2040 an affectation outside catalog 07. The arithmetic itself is not written here: the
XML's amounts are mapped onto :class:`~sunat.totals.LineAmounts` and
:class:`~sunat.totals.DocumentTotals` and checked by :func:`sunat.totals.check_line` and
:func:`sunat.totals.check_totals`, which hold those codes; their first error (< 4000) rejects and their
observations (4xxx) are noted once each. Discounts and charges (``cac:AllowanceCharge``, catalog 53) of
the lines and of the document are read into them too (3114 a ChargeIndicator that contradicts the
code). Lines or headers with what sunat.totals does not model (ISC, "otros tributos", the ISC prepayment
20) skip the header check.

Lines: observations 4332 a product code (``ItemClassificationCode``) that is not 8 digits, 4337 one
that stops above the class level.
"""

from __future__ import annotations

import re
from decimal import Decimal

from lxml import etree

from facturador.authority.rules.context import Answer, Submission, note
from facturador.authority.rules.reading import ID, MONETARY_TAGS, ZERO, children, dec, text
from facturador.ubl.namespaces import CAC, CBC
from sunat import catalogs
from sunat.rates import ALLOWED_IGV_PERCENTS, icbper_rate
from sunat.totals import Allowance, Discrepancy, DocumentTotals, LineAmounts, check_line, check_totals

__all__ = ["currency", "product_codes", "totals"]

_CURRENCY_NODES = etree.XPath("//*[@currencyID]")
#: Charges in PEN whatever the document currency (perception, catalog 53) - exempt from 2071.
_PEN_CHARGE_CODES = frozenset({"51", "52", "53"})
_PEN_PAYMENT_TERMS = frozenset({"Detraccion", "Percepcion"})

_LINE_TAGS = {
    "01": (CAC("InvoiceLine"), CBC("InvoicedQuantity")),
    "03": (CAC("InvoiceLine"), CBC("InvoicedQuantity")),
    "07": (CAC("CreditNoteLine"), CBC("CreditedQuantity")),
    "08": (CAC("DebitNoteLine"), CBC("DebitedQuantity")),
}
#: Line tax schemes of the IGV family (one per line, with the affectation of catalog 07).
_IGV_FAMILY = frozenset({"1000", "1016", "9995", "9996", "9997", "9998"})
#: Financial operation types whose lines may lack an IGV-family tax (3105 does not apply).
_FINANCIAL_OPERATIONS = frozenset({"2100", "2101", "2102", "2103", "2104"})
#: Global discounts/charges that change the tax base and sunat.totals does not model (ISC prepayment).
_BASE_CHANGING_GLOBAL = frozenset({"20"})
_TAX_TOTAL = CAC("TaxTotal")
_TAX_SUBTOTAL = CAC("TaxSubtotal")
_TAX_CATEGORY = CAC("TaxCategory")
_TAX_SCHEME = CAC("TaxScheme")
_TAX_AMOUNT = CBC("TaxAmount")
_TAXABLE_AMOUNT = CBC("TaxableAmount")
_EXEMPTION_REASON = CBC("TaxExemptionReasonCode")
_PERCENT = CBC("Percent")
_LINE_EXTENSION = CBC("LineExtensionAmount")
_TAX_INCLUSIVE = CBC("TaxInclusiveAmount")
_ALLOWANCE_CHARGE = CAC("AllowanceCharge")
_PRICE = CAC("Price")
_PRICE_AMOUNT = CBC("PriceAmount")
_PRICING_REFERENCE = CAC("PricingReference")
_ALTERNATIVE_PRICE = CAC("AlternativeConditionPrice")
_PRICE_TYPE_CODE = CBC("PriceTypeCode")
_PRODUCT_CODE = re.compile(r"^\d{8}$")


def currency(doc: Submission) -> None:
    """The document currency, and every amount in it (2070, 3088, 2071)."""
    root = doc.root
    code = text(root, CBC("DocumentCurrencyCode"))
    if not code:
        raise Answer("2070", "cbc:DocumentCurrencyCode")
    if code not in catalogs.CURRENCIES:
        raise Answer("3088", f'cbc:DocumentCurrencyCode valor: "{code}"')
    for node in _CURRENCY_NODES(root):
        if node.get("currencyID") != code and not _pen_exempt(node):
            tag = etree.QName(node).localname
            raise Answer("2071", f'cbc:{tag}/@currencyID valor: "{node.get("currencyID")}"')


def _pen_exempt(node: etree._Element) -> bool:
    """Amounts SUNAT wants in PEN whatever the document currency (perception, detraction)."""
    parent = node.getparent()
    if parent is None:
        return False
    if parent.tag == CAC("PaymentTerms"):
        return text(parent, CBC("ID")) in _PEN_PAYMENT_TERMS
    if parent.tag == CAC("AllowanceCharge"):
        return text(parent, CBC("AllowanceChargeReasonCode")) in _PEN_CHARGE_CODES
    return False


def totals(doc: Submission) -> None:
    """The lines and the header totals, through sunat.totals (see the module doc)."""
    root, doc_type = doc.root, doc.file.doc_type
    monetary_node = root.find(MONETARY_TAGS[doc_type])
    monetary = children(monetary_node)
    if _LINE_EXTENSION not in monetary:
        raise Answer("3288", "cac:LegalMonetaryTotal/cbc:LineExtensionAmount")
    if _TAX_INCLUSIVE not in monetary:
        raise Answer("3305", "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount")
    rounding = dec(monetary.get(CBC("PayableRoundingAmount")))
    if abs(rounding) > 1:
        raise Answer("3303", f'cbc:PayableRoundingAmount valor: "{rounding}"')
    issued = doc.issue_date or doc.today()
    percents = ALLOWED_IGV_PERCENTS(issued)
    bag_rate = icbper_rate(issued)
    line_tag, quantity_tag = _LINE_TAGS[doc_type]
    lines: list[LineAmounts] = []
    complete = True  # every line could be mapped onto LineAmounts
    for index, node in enumerate(root.iterchildren(line_tag)):
        line = _read_line(node, quantity_tag, doc.operation)
        if line is None:
            complete = False
            continue
        lines.append(line)
        checked = check_line(
            line, index, allowed_percents=percents, icbper_rate=bag_rate, note=doc_type in ("07", "08")
        )
        _apply(doc, checked)
    allowances = [_read_allowance(node) for node in root.iterchildren(_ALLOWANCE_CHARGE)]
    prepaid = dec(monetary.get(CBC("PrepaidAmount")))
    paid = [dec(children(node).get(CBC("PaidAmount"))) for node in root.iterchildren(CAC("PrepaidPayment"))]
    _check_prepayments(allowances, prepaid, paid)
    if not complete or any(allowance.code in _BASE_CHANGING_GLOBAL for allowance in allowances):
        return  # ISC, "otros tributos", the ISC prepayment: not modelled
    bases: dict[str, Decimal] = {}  # header TaxSubtotal amounts by tax scheme
    taxes: dict[str, Decimal] = {}
    tax_total = root.find(_TAX_TOTAL)
    if tax_total is not None:
        for subtotal in tax_total.iterchildren(_TAX_SUBTOTAL):
            scheme, fields, _category = _subtotal(subtotal)
            bases[scheme] = bases.get(scheme, ZERO) + dec(fields.get(_TAXABLE_AMOUNT))
            taxes[scheme] = taxes.get(scheme, ZERO) + dec(fields.get(_TAX_AMOUNT))
    header = DocumentTotals(
        export=bases.get("9995", ZERO),
        taxed=bases.get("1000", ZERO),
        unaffected=bases.get("9998", ZERO),
        exonerated=bases.get("9997", ZERO),
        free=bases.get("9996", ZERO),
        igv=taxes.get("1000", ZERO) + taxes.get("1016", ZERO),
        igv_free=taxes.get("9996", ZERO),
        icbper=taxes.get("7152", ZERO),
        taxes=dec(children(tax_total).get(_TAX_AMOUNT)),
        value=dec(monetary.get(_LINE_EXTENSION)),
        subtotal=dec(monetary.get(_TAX_INCLUSIVE)),
        total=dec(monetary.get(CBC("PayableAmount"))),
        ivap_base=bases.get("1016", ZERO),
        ivap=taxes.get("1016", ZERO),
        discounts=dec(monetary.get(CBC("AllowanceTotalAmount"))),
        charges=dec(monetary.get(CBC("ChargeTotalAmount"))),
        prepaid=sum(paid, ZERO),
    )
    found = check_totals(
        lines,
        header,
        allowances=allowances,
        charges=dec(monetary.get(CBC("ChargeTotalAmount"))) + rounding,
        discounts=dec(monetary.get(CBC("AllowanceTotalAmount"))),
        prepaid=dec(monetary.get(CBC("PrepaidAmount"))),
    )
    _apply(doc, found)


def _apply(doc: Submission, found: list[Discrepancy]) -> None:
    """First error (< 4000) rejects; observations become notes once per code."""
    for discrepancy in found:
        if int(discrepancy.code) < 4000:
            raise Answer(discrepancy.code, discrepancy.message)
        observation = note(discrepancy.code)
        if observation not in doc.notes:
            doc.notes.append(observation)


def _subtotal(subtotal: etree._Element) -> tuple[str, dict[str, etree._Element], dict[str, etree._Element]]:
    """(tax scheme id, children of the TaxSubtotal, children of its TaxCategory)."""
    fields = children(subtotal)
    category = children(fields.get(_TAX_CATEGORY))
    scheme = children(category.get(_TAX_SCHEME)).get(ID)
    return ((scheme.text or "").strip() if scheme is not None else ""), fields, category


def _read_line(node: etree._Element, quantity_tag: str, operation: str) -> LineAmounts | None:
    """A line's amounts as :class:`LineAmounts`, or None when the line uses what totals does not model;
    raises 3105 (no IGV-family tax), 2371 (no affectation), 2040 (unknown affectation)."""
    fields = children(node)
    line_id = (fields[ID].text or "").strip() if ID in fields else "?"
    allowances = tuple(_read_allowance(child, line_id) for child in node.iterchildren(_ALLOWANCE_CHARGE))
    tax_total = fields.get(_TAX_TOTAL)
    main: tuple[dict[str, etree._Element], dict[str, etree._Element]] | None = None
    icbper = ZERO
    if tax_total is not None:
        for subtotal in tax_total.iterchildren(_TAX_SUBTOTAL):
            scheme, sub_fields, category = _subtotal(subtotal)
            if scheme in _IGV_FAMILY:
                main = main or (sub_fields, category)
            elif scheme == "7152":
                icbper += dec(sub_fields.get(_TAX_AMOUNT))
            else:  # ISC (2000) and "otros tributos" (9999) change the base and the taxes
                return None
    if main is None:
        if operation in _FINANCIAL_OPERATIONS:
            return None
        raise Answer("3105", f"line {line_id}: no IGV/IVAP/EXP/GRA/EXO/INA tax")
    sub_fields, category = main
    reason = category.get(_EXEMPTION_REASON)
    affectation = (reason.text or "").strip() if reason is not None else ""
    if not affectation:
        raise Answer("2371", f"line {line_id}: cbc:TaxExemptionReasonCode")
    if affectation not in catalogs.AFFECTATIONS:
        raise Answer("2040", f'line {line_id}: cbc:TaxExemptionReasonCode valor: "{affectation}"')
    value = dec(fields.get(_LINE_EXTENSION))
    taxes = dec(children(tax_total).get(_TAX_AMOUNT))
    price = children(fields.get(_PRICE))
    alternative = children(children(fields.get(_PRICING_REFERENCE)).get(_ALTERNATIVE_PRICE))
    price_type = alternative.get(_PRICE_TYPE_CODE)
    return LineAmounts(
        quantity=dec(fields.get(quantity_tag)),
        unit_value=dec(price.get(_PRICE_AMOUNT)),
        unit_price=dec(alternative.get(_PRICE_AMOUNT)),
        price_type=(price_type.text or "").strip() if price_type is not None else "",
        affectation=affectation,
        igv_base=dec(sub_fields.get(_TAXABLE_AMOUNT)),
        igv_percent=dec(category.get(_PERCENT)),
        igv=dec(sub_fields.get(_TAX_AMOUNT)),
        icbper=icbper,
        taxes=taxes,
        value=value,
        # not in the XML: the line total follows from the rest
        total=icbper
        if catalogs.is_free(affectation)
        else value + taxes + _amount(allowances, "48") - _amount(allowances, "01"),
        allowances=allowances,
    )


def _check_prepayments(allowances: list[Allowance], prepaid: Decimal, paid: list[Decimal]) -> None:
    """Advances: 2503 a PaidAmount not above 0, 3220 PrepaidPayments without a PrepaidAmount, 3287 a
    PrepaidAmount without a discount 04-06, 3282 such a discount without a PrepaidAmount."""
    if any(amount <= 0 for amount in paid):
        raise Answer("2503", "cac:PrepaidPayment/cbc:PaidAmount")
    if paid and prepaid <= 0:
        raise Answer("3220", "cac:LegalMonetaryTotal/cbc:PrepaidAmount")
    deducted = any(a.code in catalogs.PREPAYMENT_DISCOUNTS and a.amount > 0 for a in allowances)
    if prepaid > 0 and not deducted:
        raise Answer("3287", "cac:AllowanceCharge 04/05/06")
    if deducted and prepaid <= 0:
        raise Answer("3282", "cac:AllowanceCharge/cbc:Amount")


def _amount(allowances: tuple[Allowance, ...], code: str) -> Decimal:
    return sum((a.amount for a in allowances if a.code == code), ZERO)


def _read_allowance(node: etree._Element, line_id: str = "") -> Allowance:
    """A ``cac:AllowanceCharge``: 3114 when ChargeIndicator contradicts the code (catalog 53)."""
    fields = children(node)
    code = text(node, CBC("AllowanceChargeReasonCode")) or ""
    indicator = text(node, CBC("ChargeIndicator")) or ""
    if code in catalogs.CHARGE_DISCOUNT_TYPES and indicator != (
        "true" if code in catalogs.CHARGE_CODES else "false"
    ):
        where = f"line {line_id}: " if line_id else ""
        raise Answer("3114", f'{where}cbc:ChargeIndicator valor: "{indicator}" con código {code}')
    factor = fields.get(CBC("MultiplierFactorNumeric"))
    return Allowance(
        code=code,
        amount=dec(fields.get(CBC("Amount"))),
        base=dec(fields.get(CBC("BaseAmount"))),
        factor=dec(factor) if factor is not None else None,
    )


def product_codes(doc: Submission) -> None:
    """Observations on the lines' product codes (catalog 25, ``ItemClassificationCode``): 4332, 4337."""
    codes = doc.root.iterfind(f".//{CAC('CommodityClassification')}/{CBC('ItemClassificationCode')}")
    seen: set[str] = set()
    for node in codes:
        value = (node.text or "").strip()
        if not _PRODUCT_CODE.match(value):
            code = "4332"
        elif value[4:6] == "00":  # segment or family only: SUNAT wants at least the class level
            code = "4337"
        else:
            continue
        if code not in seen:
            seen.add(code)
            doc.notes.append(note(code))
