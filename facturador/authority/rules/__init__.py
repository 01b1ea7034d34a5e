"""SUNAT's rules for a document sent with ``sendBill``, one module per thing they check.

- :mod:`.identification`: the file name, zip, XML, versions, ID and issuer, duplicates, schema,
  signature and operation type (and the file checks of ``sendSummary``);
- :mod:`.customer`: the customer's identity document;
- :mod:`.amounts`: the currency, the lines, tax subtotals and header totals (through :mod:`sunat.totals`)
  and the lines' product codes;
- :mod:`.payment`: a factura's FormaPago and instalments, the detraction;
- :mod:`.notes`: the document a credit or debit note modifies;
- :mod:`.dates`: the issue date against SUNAT's day;
- :mod:`.published`: SUNAT's own published stylesheets, when the tenant points at them.

Each module's docstring lists its codes. A check is ``check(doc: Submission) -> None`` (:mod:`.context`);
:mod:`facturador.authority.reading` holds the XML helpers they share. :data:`CHECKS` is the one list of which
checks run and in which order: the first that raises answers, so the order is SUNAT's.
"""

from __future__ import annotations

from facturador.authority.rules import amounts, customer, dates, identification, notes, payment, published
from facturador.authority.rules.context import Check

__all__ = ["CHECKS"]

#: ``sendBill``'s checks in SUNAT's order, after the file name was read and the zip parsed.
CHECKS: tuple[Check, ...] = (
    # The file's document, readable, signed and new to SUNAT: exceptions (0xxx-1xxx) record nothing,
    # the versions' and the signature's codes (2xxx) are rejections
    identification.root_element,
    identification.versions,
    identification.document_id,
    identification.not_refused_before,  # asks the registry: 1032
    identification.schema,
    identification.signature,
    identification.resend,  # accepted before: the stored CDR, or 1033
    # SUNAT's published stylesheets (only when the tenant points at them): their first rejection answers
    published.stylesheets,
    # Business rules: the first error rejects (a CDR; the number is consumed), observations (4xxx)
    # accumulate in doc.notes for an accepting CDR
    identification.operation_type,
    amounts.currency,
    customer.customer,
    payment.payment_form,
    payment.detraction,
    payment.cargo_trip,
    payment.withholdings,
    dates.issue_date,
    notes.reference,
    notes.credit_note_terms,
    amounts.totals,
    notes.adjustment_total,
    # Observations only
    payment.detraction_legend,
    amounts.product_codes,
)
