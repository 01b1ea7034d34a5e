"""XML namespaces of the UBL 2.1 / SUNAT documents and Clark-notation helpers.

Element names are built once here (``CBC("ID")`` -> ``"{urn:...CommonBasicComponents-2}ID"``) so the
builders never format namespace strings on the hot path.
"""

from __future__ import annotations

from functools import cache

INVOICE = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
CREDIT_NOTE = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
DEBIT_NOTE = "urn:oasis:names:specification:ubl:schema:xsd:DebitNote-2"
APPLICATION_RESPONSE = "urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2"
DESPATCH_ADVICE = "urn:oasis:names:specification:ubl:schema:xsd:DespatchAdvice-2"

SUMMARY_DOCUMENTS = "urn:sunat:names:specification:ubl:peru:schema:xsd:SummaryDocuments-1"
VOIDED_DOCUMENTS = "urn:sunat:names:specification:ubl:peru:schema:xsd:VoidedDocuments-1"
RETENTION = "urn:sunat:names:specification:ubl:peru:schema:xsd:Retention-1"
PERCEPTION = "urn:sunat:names:specification:ubl:peru:schema:xsd:Perception-1"

CAC_NS = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
CBC_NS = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
EXT_NS = "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"
DS_NS = "http://www.w3.org/2000/09/xmldsig#"
SAC_NS = "urn:sunat:names:specification:ubl:peru:schema:xsd:SunatAggregateComponents-1"

#: Prefixes for XPath queries over any of our documents (the root namespace is not included).
NS: dict[str, str] = {"cac": CAC_NS, "cbc": CBC_NS, "ext": EXT_NS, "ds": DS_NS, "sac": SAC_NS}


def nsmap_for(root_namespace: str, *, sac: bool = False) -> dict[str | None, str]:
    """The ``nsmap`` of a document root: default namespace = the document's, plus cac/cbc/ext/ds (and sac)."""
    nsmap: dict[str | None, str] = {
        None: root_namespace,
        "cac": CAC_NS,
        "cbc": CBC_NS,
        "ext": EXT_NS,
        "ds": DS_NS,
    }
    if sac:
        nsmap["sac"] = SAC_NS
    return nsmap


@cache
def CAC(name: str) -> str:
    """Clark name of a ``cac:`` element."""
    return f"{{{CAC_NS}}}{name}"


@cache
def CBC(name: str) -> str:
    """Clark name of a ``cbc:`` element."""
    return f"{{{CBC_NS}}}{name}"


@cache
def EXT(name: str) -> str:
    """Clark name of an ``ext:`` element."""
    return f"{{{EXT_NS}}}{name}"


@cache
def DS(name: str) -> str:
    """Clark name of a ``ds:`` element."""
    return f"{{{DS_NS}}}{name}"


@cache
def SAC(name: str) -> str:
    """Clark name of a ``sac:`` element."""
    return f"{{{SAC_NS}}}{name}"
