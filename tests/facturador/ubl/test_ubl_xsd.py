"""Schema validation with the XSDs shipped in the package; they are SUNAT's published schemas."""

from __future__ import annotations

import copy
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from lxml import etree

from facturador.ubl import xsd
from facturador.ubl.invoice import build_and_sign, build_sales_document
from facturador.ubl.namespaces import INVOICE, NS, SUMMARY_DOCUMENTS
from tests.reference import shared_path
from tests.samples.documents import document


@pytest.fixture(scope="module")
def invoice_xml(identity) -> bytes:
    return build_and_sign(document(), identity).xml


def test_valid_document_has_no_errors(invoice_xml):
    assert xsd.validate(invoice_xml) == []
    assert xsd.validate(etree.fromstring(invoice_xml), "Invoice") == []
    assert xsd.validate(etree.ElementTree(etree.fromstring(invoice_xml))) == []
    assert xsd.is_valid(invoice_xml)


def test_broken_documents_are_reported(invoice_xml):
    root = etree.fromstring(invoice_xml)
    missing_id = copy.deepcopy(root)
    missing_id.remove(missing_id.find("cbc:ID", NS))
    errors = xsd.validate(missing_id)
    assert errors and any("IssueDate" in e for e in errors)

    out_of_order = copy.deepcopy(root)
    total = out_of_order.find("cac:LegalMonetaryTotal", NS)
    out_of_order.remove(total)
    out_of_order.insert(3, total)
    assert xsd.validate(out_of_order)

    bad_amount = invoice_xml.replace(b">118.00</cbc:PayableAmount>", b">ciento</cbc:PayableAmount>")
    errors = xsd.validate(bad_amount)
    assert errors and "PayableAmount" in errors[0]
    assert all(re.match(r"line \d+: ", e) for e in errors)


def test_unsigned_tree_is_not_schema_valid():
    # An empty ext:ExtensionContent needs its ds:Signature: validate after signing.
    assert xsd.validate(build_sales_document(document()))


def test_wrong_root_malformed_xml_and_unknown_namespace_are_errors_not_exceptions(invoice_xml):
    assert xsd.validate(invoice_xml, "CreditNote") == ["root element is Invoice, expected CreditNote"]
    assert xsd.validate(b"<Invoice><unclosed></Invoice>")[0].startswith("malformed XML")
    assert xsd.validate(b"<x xmlns='urn:example'/>") == ["no schema for root element {urn:example}x"]


def test_schemas_are_compiled_once():
    assert xsd.schema_for(INVOICE) is xsd.schema_for(INVOICE)
    with pytest.raises(KeyError):
        xsd.schema_for("urn:example")


def test_the_first_requests_of_a_process_share_one_compilation(monkeypatch):
    # a new process's first requests all ask for the schema at once: one compiles it, the others wait
    monkeypatch.delitem(xsd._SCHEMAS, INVOICE, raising=False)
    with ThreadPoolExecutor(8) as pool:
        schemas = list(pool.map(lambda _: xsd.schema_for(INVOICE), range(8)))
    assert all(schema is schemas[0] for schema in schemas)


def test_shipped_schemas_are_self_contained():
    assert xsd.XSD_DIR.is_dir() and xsd.XSD_DIR.parent == Path(xsd.__file__).parent
    files = list(xsd.XSD_DIR.rglob("*.xsd"))
    for path in files:
        for location in etree.parse(str(path)).xpath("//*[@schemaLocation]/@schemaLocation"):
            # SUNAT's 2.0 set ships an xmldsig schema that no other schema imports (its XAdES.xsd is absent)
            if path.name == "xmldsig-core-schema.xsd":
                continue
            target = (path.parent / location).resolve()
            assert target.is_file() and xsd.XSD_DIR.resolve() in target.parents, f"{path.name} -> {location}"
    for namespace in xsd.SCHEMA_FILES:
        xsd.schema_for(namespace)


@pytest.mark.parametrize(
    "name",
    ["20000000001-RC-20171119-001.xml", "20600995805-RA-20170719-01.xml", "20505310072-01-F001-00019772.xml"],
)
def test_real_sunat_documents_validate(name):
    assert xsd.validate(shared_path("examples", "sunat", name).read_bytes()) == []


def test_shipped_schemas_are_sunats_published_files():
    published = shared_path("xsd")
    shipped = sorted(path.relative_to(xsd.XSD_DIR) for path in xsd.XSD_DIR.rglob("*.xsd"))
    assert len(shipped) > 30
    for relative in shipped:
        assert (xsd.XSD_DIR / relative).read_bytes() == (published / relative).read_bytes(), relative


def test_summary_schema_is_the_sunat_20_one():
    assert xsd.SCHEMA_FILES[SUMMARY_DOCUMENTS].startswith("2.0/")
    errors = xsd.validate(
        b"<SummaryDocuments xmlns='urn:sunat:names:specification:ubl:peru:schema:xsd:SummaryDocuments-1'/>"
    )
    assert errors


def test_concurrent_validations_keep_their_own_errors(invoice_xml):
    broken = invoice_xml.replace(b">118.00</cbc:PayableAmount>", b">x</cbc:PayableAmount>")
    jobs = [invoice_xml, broken] * 20
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(xsd.validate, jobs))
    for xml, errors in zip(jobs, results, strict=True):
        if xml is invoice_xml:
            assert errors == []
        else:
            assert len(errors) == 1 and "PayableAmount" in errors[0]
