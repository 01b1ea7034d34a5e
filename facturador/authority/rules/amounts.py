"""Amounts: the currency, the lines, the tax subtotals and the header totals (``docs/sunat_domain.md``).

Currency: 2070 no ``DocumentCurrencyCode``, 3088 one outside catalog 02, 2071 an amount in another
currency (perception and detraction amounts, which go in PEN, aside).

Advances: 2503, 3220, 3282, 3287 (and 2509 Σ PaidAmount = PrepaidAmount through sunat.totals).

Totals: 3288 no ``LineExtensionAmount`` and 3305 no ``TaxInclusiveAmount`` in the header, 3303 a
rounding above 1; per line 3105 no tax of the IGV family (financial operations aside), 2371 no
affectation, 2040 an affectation outside catalog 07. The arithmetic itself is not written here: the
XML's amounts are mapped onto :class:`~sunat.totals.LineAmounts` and
:class:`~sunat.totals.DocumentTotals` and checked by :func:`sunat.totals.check_line` and
:func:`sunat.totals.check_totals` (``as_published``: the taxes total and the payable amount from the
header's own amounts, as SUNAT's stylesheets read them), which hold those codes; their first error
(< 4000) rejects and their observations (4xxx) are noted once each. Discounts and charges
(``cac:AllowanceCharge``, catalog 53) of the lines and of the document are read into them too (3114 a
ChargeIndicator that contradicts the code). ISC (2000, its system in ``cbc:TierRange``) and other taxes
(9999) of the lines and the header are read into them as well; a document with the ISC prepayment
(global discount 20), which sunat.totals does not model, skips the header check. What sunat.totals
finds is then answered the way each of SUNAT's published stylesheets answers it
(:func:`_as_stylesheets`): only the rules it runs (none runs 3291; 3279 only with IVAP; the notes'
neither 3278 nor 3279), in its order (a line's taxes before its base, price and value; the header's
subtotals, taxes, IGV, payable and value; a note's header before its lines), and on boletas and their
notes with the observations SUNAT uses instead (3271 -> 4288, 3277 -> 4299).

Lines: observations 4332 a product code (``ItemClassificationCode``) that is not 8 digits, 4337 one
that stops above the class level.
"""

from __future__ import annotations

import dataclasses
import re
from decimal import Decimal

from lxml import etree

from facturador.authority.reading import ID, MONETARY_TAGS, ZERO, children, dec, text
from facturador.authority.rules.context import Answer, Submission, note
from facturador.ubl.namespaces import CAC, CBC
from sunat import catalogs
from sunat.rates import ALLOWED_IGV_PERCENTS, icbper_rate
from sunat.totals import (
    Allowance,
    Discrepancy,
    DocumentTotals,
    LineAmounts,
    check_line,
    check_totals,
    line_total,
)

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
    is_note = doc_type in ("07", "08")
    later: list[Discrepancy] = []  # a note's line discrepancies, answered after its header's
    for index, node in enumerate(root.iterchildren(line_tag)):
        line = _read_line(node, quantity_tag, doc.operation)
        if line is None:
            complete = False
            continue
        lines.append(line)
        found_in_line = check_line(
            line, index, allowed_percents=percents, icbper_rate=bag_rate, note=doc_type in ("07", "08")
        )
        if is_note:  # the note stylesheets check the header first
            later += _as_stylesheets(doc, found_in_line, _LINE_ORDER)
        else:
            _apply(doc, _as_stylesheets(doc, found_in_line, _LINE_ORDER))
    allowances = [_read_allowance(node) for node in root.iterchildren(_ALLOWANCE_CHARGE)]
    prepaid = dec(monetary.get(CBC("PrepaidAmount")))
    paid = [dec(children(node).get(CBC("PaidAmount"))) for node in root.iterchildren(CAC("PrepaidPayment"))]
    _check_prepayments(allowances, prepaid, paid)
    if not complete or any(allowance.code in _BASE_CHANGING_GLOBAL for allowance in allowances):
        _apply(doc, later)
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
        isc_base=bases.get("2000", ZERO),
        isc=taxes.get("2000", ZERO),
        other_base=bases.get("9999", ZERO),
        other=taxes.get("9999", ZERO),
    )
    charges = dec(monetary.get(CBC("ChargeTotalAmount"))) + rounding
    discounts = dec(monetary.get(CBC("AllowanceTotalAmount")))
    prepaid = dec(monetary.get(CBC("PrepaidAmount")))
    found = check_totals(
        lines,
        header,
        allowances=allowances,
        charges=charges,
        discounts=discounts,
        prepaid=prepaid,
        as_published=True,
        note=is_note,
    )
    _apply(doc, _as_stylesheets(doc, found, _HEADER_ORDER, with_ivap=bool(header.ivap_base)))
    _apply(doc, later)


#: The order in which SUNAT's stylesheets check a line's amounts, and the header's (3300/3301, the
#: discount and charge totals, come just before 3280 in the factura's stylesheet; a tie keeps that order).
_LINE_ORDER = {"4318": 0, "3103": 1, "3110": 1, "3111": 1, "2993": 1, "4438": 1, "3292": 2, "3272": 3}
_LINE_ORDER |= {"3104": 1, "3108": 1, "3109": 1, "2373": 1, "2041": 1, "3223": 3}
_LINE_ORDER |= {"3270": 4, "3271": 5}
_HEADER_ORDER = {code: 1 for code in ("3273", "3274", "3275", "3276", "3277", "3302", "3306", "3293")}
_HEADER_ORDER |= {"3294": 2, "3295": 2, "3291": 3, "3300": 4, "3301": 4, "3280": 4, "3278": 5, "3279": 6}
_HEADER_ORDER |= {"4438": 7}
_HEADER_ORDER |= {"3296": 1, "3297": 1, "3298": 3, "3299": 3}
#: The boleta stylesheet's observations for what the factura's rejects (SUNAT's code catalogue); the note
#: stylesheets use them too for notes of boletas.
_BOLETA_OBSERVATIONS = {
    "3270": "4287",
    "3271": "4288",
    "3272": "4294",
    "3292": "4293",
    "3273": "4295",
    "3274": "4296",
    "3275": "4297",
    "3276": "4298",
    "3277": "4299",
    "3293": "4300",
    "3294": "4301",
    "3295": "4302",
    "3291": "4290",
    "3278": "4309",
    "3279": "4310",
    "3280": "4312",
}
#: Rules of sunat.totals a stylesheet does not run: none runs 3291 (the gateway's copy has it commented
#: out); the boleta's runs neither 3302 nor 3306, the credit note's neither 3270 nor 3302, and the notes'
#: neither 3278 nor 3279. 3279 runs only on a document with IVAP (:func:`_as_stylesheets`).
_NOT_CHECKED = {
    "01": frozenset({"3291"}),
    "03": frozenset({"3291", "3302", "3306"}),
    "07": frozenset({"3291", "3270", "3302", "3278", "3279"}),
    "08": frozenset({"3291", "3278", "3279"}),
}


def _as_stylesheets(
    doc: Submission, found: list[Discrepancy], order: dict[str, int], *, with_ivap: bool = False
) -> list[Discrepancy]:
    """``found`` without what the document's stylesheet does not run, in the order SUNAT's stylesheets
    check, with the boleta stylesheet's codes on boletas."""
    skipped = _NOT_CHECKED[doc.file.doc_type] | (frozenset() if with_ivap else frozenset({"3279"}))
    ranked = sorted((d for d in found if d.code not in skipped), key=lambda d: order.get(d.code, len(order)))
    if doc.factura_family:
        return ranked
    return [dataclasses.replace(d, code=_BOLETA_OBSERVATIONS.get(d.code, d.code)) for d in ranked]


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
    other_taxes: dict[str, object] = {}  # ISC and other taxes, as LineAmounts fields
    if tax_total is not None:
        for subtotal in tax_total.iterchildren(_TAX_SUBTOTAL):
            scheme, sub_fields, category = _subtotal(subtotal)
            if scheme in _IGV_FAMILY:
                main = main or (sub_fields, category)
            elif scheme == "7152":
                icbper += dec(sub_fields.get(_TAX_AMOUNT))
            elif scheme in _OTHER_TAX_FIELDS:  # ISC (2000) and "otros tributos" (9999)
                base, percent, tax = _OTHER_TAX_FIELDS[scheme]
                other_taxes[base] = dec(sub_fields.get(_TAXABLE_AMOUNT))
                other_taxes[percent] = dec(category.get(_PERCENT))
                other_taxes[tax] = dec(sub_fields.get(_TAX_AMOUNT))
                if scheme == "2000":
                    tier = category.get(CBC("TierRange"))
                    other_taxes["isc_system"] = (tier.text or "").strip() if tier is not None else ""
            else:
                return None
    if main is None:
        if operation in _FINANCIAL_OPERATIONS:
            return None
        raise Answer("3105", f'cac:InvoiceLine/cbc:ID valor: "{line_id}"')
    sub_fields, category = main
    reason = category.get(_EXEMPTION_REASON)
    affectation = (reason.text or "").strip() if reason is not None else ""
    if not affectation:
        raise Answer("2371", 'cbc:TaxExemptionReasonCode valor: ""')
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
        # not in the XML: the line total follows from the rest (a free line's from its ICBPER, the only tax
        # it charges; its TaxAmount is the informative IGV)
        total=line_total(affectation, value, icbper if catalogs.is_free(affectation) else taxes, allowances),
        allowances=allowances,
        **other_taxes,  # type: ignore[arg-type]
    )


#: Line tax schemes read into LineAmounts' (base, percent, amount) fields besides the IGV family.
_OTHER_TAX_FIELDS = {
    "2000": ("isc_base", "isc_percent", "isc"),
    "9999": ("other_base", "other_percent", "other"),
}


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
