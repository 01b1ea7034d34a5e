"""Reading a parsed UBL document: the small helpers and element paths the simulator's rules, its CDRs and
its tickets share.

The helpers look at direct children or fixed paths (no tree walks); the document was XSD-checked before
any business rule runs, so decimals parse.
"""

from __future__ import annotations

from decimal import Decimal
from typing import overload

from lxml import etree

from facturador.ubl.namespaces import CAC, CBC

__all__ = ["BILLING_REFERENCE", "ID", "MONETARY_TAGS", "ZERO", "children", "dec", "text"]

ZERO = Decimal("0")
ID = CBC("ID")
#: The document a note modifies.
BILLING_REFERENCE = f"{CAC('BillingReference')}/{CAC('InvoiceDocumentReference')}"
#: The header totals element by document type (a debit note's is ``RequestedMonetaryTotal``).
MONETARY_TAGS = {
    "01": CAC("LegalMonetaryTotal"),
    "03": CAC("LegalMonetaryTotal"),
    "07": CAC("LegalMonetaryTotal"),
    "08": CAC("RequestedMonetaryTotal"),
}


@overload
def text(node: etree._Element | None, path: str) -> str | None: ...
@overload
def text(node: etree._Element | None, path: str, missing: str) -> str: ...
def text(node: etree._Element | None, path: str, missing: str | None = None) -> str | None:
    """Stripped text at ``path`` below ``node``; ``missing`` (None unless given) when the element is."""
    if node is None:
        return missing
    found = node.find(path)
    if found is None:
        return missing
    return (found.text or "").strip()


def children(node: etree._Element | None) -> dict[str, etree._Element]:
    """The first child element of each tag: one pass instead of a path search per field."""
    found: dict[str, etree._Element] = {}
    if node is not None:
        for child in node:
            found.setdefault(child.tag, child)  # type: ignore[arg-type]
    return found


def dec(node: etree._Element | None) -> Decimal:
    """The decimal text of an element (XSD-checked ``xsd:decimal``); 0 when the element is absent."""
    if node is None or not node.text:
        return ZERO
    return Decimal(node.text.strip())
