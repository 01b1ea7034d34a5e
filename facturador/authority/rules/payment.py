"""Payment terms of a factura (FormaPago, ``docs/sunat_domain.md``) and the detraction (SPOT).

FormaPago (facturas only): 3244 none, 3246 an unknown ``PaymentMeansID``, 3248 one given twice, 3247
Contado and Credito together, 3245 neither of them, 3249 Credito without instalments, 3252 instalments
without Credito or with Contado. Credito's instalments: 3251 no net pending amount, 3265 pending above
the payable amount, 3254 an instalment without amount, 3266 one above the payable amount, 3256 without
due date, 3255 an unreadable due date, 3267 due before the issue date, 3319 instalments that do not add
up to the pending amount.

Detraction (operation types 1001-1004): 3128 a detraction code on another operation, 3127 no code, 3033
a code outside catalog 54, 3129 a code the operation type does not allow, 3035 no amount, 3034 no
Banco de la Nación account; observation 4265 without the detraction legend (2006). Cargo transport
(1004, :func:`cargo_trip`), on every line's ``cac:Delivery``: 3116 no origin ubigeo, 3117 no origin
address, 3118 no destination ubigeo, 3119 no destination address, 3120 no trip detail, 3124 / 3125 / 3126
not exactly one reference value 01 / 02 / 03, 3122 one without amount; observation 4200 an ubigeo
outside catalog 13.

Perception and retention (:func:`withholdings`): 3308, 3093, 3309, 3330, 3233, 2798, 3262, 3263.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from lxml import etree

from facturador.authority.reading import ID, MONETARY_TAGS, ZERO, children, dec, text
from facturador.authority.rules.context import Answer, Submission, note
from facturador.ubl.namespaces import CAC, CBC
from sunat import catalogs
from sunat.ubigeo import is_valid_ubigeo

__all__ = ["cargo_trip", "detraction", "detraction_legend", "payment_form", "withholdings"]

_PAYMENT_TERMS = CAC("PaymentTerms")
_PAYMENT_MEANS_ID = CBC("PaymentMeansID")
_AMOUNT = CBC("Amount")
_PAYEE_ACCOUNT = f"{CAC('PayeeFinancialAccount')}/{CBC('ID')}"
_CUOTA = re.compile(r"^Cuota\d{3}$")


def payment_form(doc: Submission) -> None:
    """FormaPago of a factura: Contado, or Credito with its instalments."""
    if doc.file.doc_type != "01":
        return
    root = doc.root
    forms: dict[str, etree._Element] = {}  # PaymentMeansID -> its PaymentTerms
    for terms in root.iterchildren(_PAYMENT_TERMS):
        if text(terms, ID) != "FormaPago":
            continue
        value = text(terms, _PAYMENT_MEANS_ID) or ""
        if value not in ("Contado", "Credito") and not _CUOTA.match(value):
            raise Answer("3246", f'cbc:PaymentMeansID valor: "{value}"')
        if value in forms:
            raise Answer("3248", f'cbc:PaymentMeansID valor: "{value}"')
        forms[value] = terms
    if not forms:
        raise Answer("3244", "cac:PaymentTerms/cbc:ID FormaPago")
    has_cash, has_credit = "Contado" in forms, "Credito" in forms
    cuotas = {value: terms for value, terms in forms.items() if _CUOTA.match(value)}
    if has_cash and has_credit:
        raise Answer("3247", 'cac:PaymentTerms/cbc:PaymentMeansID valor: "Contado"')
    if not has_cash and not has_credit:
        raise Answer("3245" if not cuotas else "3252", 'cac:PaymentTerms/cbc:PaymentMeansID valor: ""')
    if has_credit and not cuotas:
        raise Answer("3249", 'cac:PaymentTerms/cbc:PaymentMeansID valor: "Credito"')
    if has_cash and cuotas:
        raise Answer("3252", 'cac:PaymentTerms/cbc:PaymentMeansID valor: "Contado"')
    if has_credit:
        _instalments(root, forms["Credito"], cuotas)


def _instalments(root: etree._Element, credit: etree._Element, cuotas: dict[str, etree._Element]) -> None:
    """Credito's net pending amount and its ``Cuota`` terms (3251, 3265, 3254, 3266, 3256, 3267, 3319)."""
    payable = dec(children(root.find(MONETARY_TAGS["01"])).get(CBC("PayableAmount")))
    pending = _amount_of(credit)
    if pending is None or pending <= 0:
        raise Answer("3251", "cac:PaymentTerms/cbc:Amount")
    if pending > payable:
        raise Answer("3265", f'cbc:Amount valor: "{pending}", cbc:PayableAmount "{payable}"')
    issue_text = text(root, CBC("IssueDate")) or ""
    try:
        issued: date | None = date.fromisoformat(issue_text[:10])
    except ValueError:
        issued = None  # reported by the date rules
    total = ZERO
    for value, terms in sorted(cuotas.items()):
        cuota_amount = _amount_of(terms)
        if cuota_amount is None:
            raise Answer("3254", f'cac:PaymentTerms/cbc:Amount valor: "{value}"')
        if cuota_amount > payable:
            raise Answer("3266", f'cac:PaymentTerms/cbc:Amount valor: "{cuota_amount}"')
        due_text = text(terms, CBC("PaymentDueDate"))
        if not due_text:
            raise Answer("3256", f'cac:PaymentTerms/cbc:PaymentDueDate valor: "{value}"')
        try:
            due = date.fromisoformat(due_text[:10])
        except ValueError as exc:
            raise Answer("3255", f'cac:PaymentTerms/cbc:PaymentDueDate valor: "{due_text}"') from exc
        if issued is not None and due < issued:
            raise Answer("3267", f'cac:PaymentTerms/cbc:PaymentDueDate valor: "{due_text}"')
        total += cuota_amount
    if total != pending:
        raise Answer("3319", f'cac:PaymentTerms/cbc:Amount valor: "{total}"')


def _amount_of(terms: etree._Element) -> Decimal | None:
    """The ``cbc:Amount`` of a PaymentTerms; None when absent or empty."""
    value = text(terms, _AMOUNT)
    if not value:
        return None
    try:
        return Decimal(value)
    except ArithmeticError:
        return None


def detraction(doc: Submission) -> None:
    """Detraction (SPOT) of operations 1001-1004: goods code (catalog 54), amount and account."""
    operation = doc.operation
    if not operation:  # notes carry no operation type and no detraction
        return
    root = doc.root
    terms = [t for t in root.iterchildren(_PAYMENT_TERMS) if text(t, ID) == "Detraccion"]
    code = next((c for c in (text(t, _PAYMENT_MEANS_ID) for t in terms) if c), "")
    if operation not in catalogs.DETRACTION_OPERATION_TYPES:
        if code:
            raise Answer("3128", f'cac:PaymentTerms/cbc:PaymentMeansID valor: "{code}"')
        return
    if not code:
        raise Answer("3127", 'cac:PaymentTerms[cbc:ID="Detraccion"]/cbc:PaymentMeansID')
    if code not in catalogs.DETRACTION_TYPES:
        raise Answer("3033", f'cbc:PaymentMeansID valor: "{code}"')
    expected = catalogs.DETRACTION_GOODS_BY_OPERATION.get(operation)
    if expected is not None and code != expected:
        raise Answer("3129", f'cac:PaymentTerms/cbc:PaymentMeansID valor: "{code}"')
    if not any(text(t, _AMOUNT) for t in terms):
        raise Answer("3035", 'cac:PaymentTerms[cbc:ID="Detraccion"]/cbc:Amount')
    means = (m for m in root.iterchildren(CAC("PaymentMeans")) if text(m, ID) == "Detraccion")
    if not any(text(m, _PAYEE_ACCOUNT) for m in means):
        raise Answer("3034", 'cac:PaymentMeans[cbc:ID="Detraccion"]/cac:PayeeFinancialAccount/cbc:ID')


_CARGO_OPERATION = "1004"
_DELIVERY = CAC("Delivery")
_ORIGIN = f"{CAC('Despatch')}/{CAC('DespatchAddress')}"
_DESTINATION = f"{CAC('DeliveryLocation')}/{CAC('Address')}"
_LINE_TEXT = f"{CAC('AddressLine')}/{CBC('Line')}"


def cargo_trip(doc: Submission) -> None:
    """The trip of a cargo transport detraction (1004) on each line (see the module doc for the codes)."""
    if doc.operation != _CARGO_OPERATION:
        return
    for number, line in enumerate(doc.root.iterchildren(CAC("InvoiceLine")), start=1):
        where = f"Error en la linea: {number}"
        delivery = line.find(_DELIVERY)
        required = (
            ("3116", f"{_ORIGIN}/{ID}"),
            ("3117", f"{_ORIGIN}/{_LINE_TEXT}"),
            ("3118", f"{_DESTINATION}/{ID}"),
            ("3119", f"{_DESTINATION}/{_LINE_TEXT}"),
            ("3120", f"{CAC('Despatch')}/{CBC('Instructions')}"),
        )
        for code, path in required:
            if delivery is None or not text(delivery, path):
                raise Answer(code, f"{where}: cac:Delivery/{path}")
        assert delivery is not None
        terms = list(delivery.iterchildren(CAC("DeliveryTerms")))
        for code, value in (("3124", "01"), ("3125", "02"), ("3126", "03")):
            found = [t for t in terms if text(t, ID) == value]
            if len(found) != 1:
                raise Answer(code, f'cac:DeliveryTerms/cbc:ID valor: "{value}"')
            if not text(found[0], _AMOUNT):
                raise Answer("3122", f'cac:DeliveryTerms/cbc:ID valor: "{value}"')
        for path in (f"{_ORIGIN}/{ID}", f"{_DESTINATION}/{ID}"):
            ubigeo = text(delivery, path) or ""
            if not is_valid_ubigeo(ubigeo):
                observation = note("4200")
                if observation not in doc.notes:
                    doc.notes.append(observation)


def detraction_legend(doc: Submission) -> None:
    """Observation 4265: a detraction operation without the legend 2006 (``cbc:Note``)."""
    if doc.operation in catalogs.DETRACTION_OPERATION_TYPES:
        legends = {n.get("languageLocaleID") for n in doc.root.iterchildren(CBC("Note"))}
        if "2006" not in legends:
            doc.notes.append(note("4265"))


_PERCEPTION_CODES = frozenset({"51", "52", "53"})
_PERCEPTION_OPERATION = "2001"


def withholdings(doc: Submission) -> None:
    """Perception inside a factura or boleta and the IGV retention (catalog 53: 51-53, 62).

    Perception: 3308 on an operation other than 2001, 3093 operation 2001 paid Contado without its
    charge, 3309 nor its ``PaymentTerms`` Percepcion, 3330 one on a sale on credit, 3233 a base of 0,
    2798 an amount that is not base x factor (± 1). Retention (62): 3262 a customer without RUC, 3263 an
    amount that is not base x factor (± 1).
    """
    root = doc.root
    charges = [
        node
        for node in root.iterchildren(CAC("AllowanceCharge"))
        if text(node, CBC("AllowanceChargeReasonCode")) in (*_PERCEPTION_CODES, "62")
    ]
    terms = [node for node in root.iterchildren(_PAYMENT_TERMS) if text(node, CBC("ID")) == "Percepcion"]
    perception = [
        node for node in charges if text(node, CBC("AllowanceChargeReasonCode")) in _PERCEPTION_CODES
    ]
    forms = {
        text(node, _PAYMENT_MEANS_ID)
        for node in root.iterchildren(_PAYMENT_TERMS)
        if text(node, ID) == "FormaPago"
    }
    if doc.operation != _PERCEPTION_OPERATION:
        if perception or terms:
            raise Answer("3308", "cac:AllowanceCharge 51/52/53 o cac:PaymentTerms Percepcion")
    elif "Contado" in forms:
        if not perception:
            raise Answer("3093", "cac:AllowanceCharge 51/52/53")
        if not terms:
            raise Answer("3309", "cac:PaymentTerms Percepcion")
    elif forms and (perception or terms):
        raise Answer("3330", "cac:AllowanceCharge 51/52/53")
    for node in charges:
        fields = children(node)
        code = text(node, CBC("AllowanceChargeReasonCode"))
        base, amount = dec(fields.get(CBC("BaseAmount"))), dec(fields.get(_AMOUNT))
        factor = dec(fields.get(CBC("MultiplierFactorNumeric")))
        if code in _PERCEPTION_CODES and base <= 0:
            raise Answer("3233", f"cbc:BaseAmount valor: {base}")
        if code == "62":
            customer = root.find(
                f"{CAC('AccountingCustomerParty')}/{CAC('Party')}/{CAC('PartyIdentification')}/{ID}"
            )
            if customer is None or customer.get("schemeID") != "6":
                raise Answer(
                    "3262", "cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID/@schemeID"
                )
        if factor > 0 and abs(round(base * factor, 2) - amount) > 1:
            raise Answer("2798" if code in _PERCEPTION_CODES else "3263", f"cbc:Amount valor: {amount}")
