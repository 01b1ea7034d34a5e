"""XSD validation of SUNAT documents with the schemas shipped inside the package.

The schema is chosen from the namespace of the root element: UBL 2.1 for Invoice, CreditNote, DebitNote,
DespatchAdvice and ApplicationResponse (``xsd/2.1``), SUNAT's UBL 2.0 schemas for SummaryDocuments,
VoidedDocuments, Retention and Perception (``xsd/2.0``). Each schema is compiled once per process (it
takes ~0.1 s), by one thread at a time: the first requests of a new process all want it at once.
Validate signed documents: an empty ``ds:Signature`` placeholder is not schema-valid.
"""

from __future__ import annotations

import threading
from pathlib import Path

from lxml import etree

from . import namespaces as ns

XSD_DIR = Path(__file__).with_name("xsd")

#: Root namespace -> schema file, relative to :data:`XSD_DIR`.
SCHEMA_FILES: dict[str, str] = {
    ns.INVOICE: "2.1/maindoc/UBL-Invoice-2.1.xsd",
    ns.CREDIT_NOTE: "2.1/maindoc/UBL-CreditNote-2.1.xsd",
    ns.DEBIT_NOTE: "2.1/maindoc/UBL-DebitNote-2.1.xsd",
    ns.APPLICATION_RESPONSE: "2.1/maindoc/UBL-ApplicationResponse-2.1.xsd",
    ns.DESPATCH_ADVICE: "2.1/maindoc/UBL-DespatchAdvice-2.1.xsd",
    ns.SUMMARY_DOCUMENTS: "2.0/maindoc/UBL-SummaryDocuments-2.0.xsd",
    ns.VOIDED_DOCUMENTS: "2.0/maindoc/UBL-VoidedDocuments-2.0.xsd",
    ns.RETENTION: "2.0/maindoc/UBL-Retention-2.0.xsd",
    ns.PERCEPTION: "2.0/maindoc/UBL-Perception-2.0.xsd",
}

# A validator keeps its error log on the schema object, so concurrent validations against the same
# schema would mix their messages: each schema gets a lock.
_LOCKS = {namespace: threading.Lock() for namespace in SCHEMA_FILES}
_COMPILING = threading.Lock()
_SCHEMAS: dict[str, etree.XMLSchema] = {}
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


def schema_for(namespace: str) -> etree.XMLSchema:
    """The compiled schema of documents whose root element is in ``namespace`` (compiled once per
    process, one compilation at a time, then shared).

    Raises ``KeyError`` for a namespace without a shipped schema.
    """
    schema = _SCHEMAS.get(namespace)
    if schema is not None:
        return schema
    relative = SCHEMA_FILES[namespace]
    with _COMPILING:
        schema = _SCHEMAS.get(namespace)
        if schema is None:
            schema = _SCHEMAS[namespace] = etree.XMLSchema(
                etree.parse(str(XSD_DIR / relative), parser=_PARSER)
            )
    return schema


def validate(xml: bytes | etree._Element | etree._ElementTree, root_name: str | None = None) -> list[str]:
    """Validate a document against its XSD; return the errors as strings (empty list if valid).

    ``xml`` is the serialized document or an lxml element/tree. ``root_name`` optionally states the
    expected local name of the root element (``"Invoice"``…); a different root is reported as an error.
    Malformed XML and unknown root namespaces are reported as errors too, never raised.
    """
    if isinstance(xml, bytes | bytearray | memoryview):
        try:
            root = etree.fromstring(bytes(xml), parser=_PARSER)
        except etree.XMLSyntaxError as exc:
            return [f"malformed XML: {exc}"]
    elif isinstance(xml, etree._ElementTree):
        root = xml.getroot()
    else:
        root = xml
    qname = etree.QName(root)
    if root_name is not None and qname.localname != root_name:
        return [f"root element is {qname.localname}, expected {root_name}"]
    namespace = qname.namespace or ""
    if namespace not in SCHEMA_FILES:
        return [f"no schema for root element {{{namespace}}}{qname.localname}"]
    schema = schema_for(namespace)
    with _LOCKS[namespace]:
        if schema.validate(root):
            return []
        return [f"line {e.line}: {e.message}" for e in schema.error_log]


def is_valid(xml: bytes | etree._Element | etree._ElementTree, root_name: str | None = None) -> bool:
    """True when :func:`validate` finds no error."""
    return not validate(xml, root_name)
