"""The canonical XML of fixed documents, byte for byte: a change made for speed must leave it as it was.

Each body is read (``parse_document``), made a document and written with the number 7, dated 2026-11-20;
the digest is the SHA-256 of the text the signature digests. The values were taken from the tree before
issue 22's third pass at build+sign (d241970) and held after it.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from facturador.domain.document_input import parse_document
from facturador.domain.documents import sales_document
from facturador.ubl.invoice import sales_document_text
from tests.samples import blocks, isc
from tests.samples.documents import ISSUER

DAY = dt.date(2026, 11, 20)
BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
GOLDEN = {
    "invoice_10_lines": "62b66afb9c6ec96df7859cbb451d651ebf16ca814e7e2061a5b4b59e997b15d5",
    "bag_invoice": "bc5024489f4cc513e7200eef90e8759c6bbfb18e3c99adf379a882d47206ce07",
    "line_discount_invoice": "6370008d5f82c88014e76c53e1adc0b667dc4c18ea1622b453775bb37e3dce20",
    "global_charge_invoice": "69ae4aa94ea885efec622e9090576f9ca2bd9422c29df2577f6358110ebf315b",
    "export_boleta": "853ba57b363023a5198a13a5de644d51832ff237ce0bd6f5548836acdcda6191",
    "free_invoice_real_client": "80fca4341ea1860a5636c946606f795dcc87709132704137abf30c6767dc1bfc",
    "isc_invoice": "44c2a793f9bfb9dd108583c345f42935b90e8381b1e27cdfc4ef00d0c7e6488c",
    "other_taxes_invoice": "89462f08f57fd92ace7a9edc776886d6e88b65c602a8b7d59abdeecb24abe6e9",
}


@functools.cache
def _bodies() -> dict[str, dict[str, Any]]:
    # the body of issue 22's build+sign figure, from benchmarks/issue.py (loaded without touching sys.path)
    spec = importlib.util.spec_from_file_location("_issue_benchmark", BENCHMARKS / "issue.py")
    assert spec is not None and spec.loader is not None
    issue = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = issue  # its dataclasses look their module up there (string annotations)
    spec.loader.exec_module(issue)
    return {
        "invoice_10_lines": issue.invoice(10),
        "bag_invoice": blocks.bag_invoice(),
        "line_discount_invoice": blocks.line_discount_invoice(),
        "global_charge_invoice": blocks.global_charge_invoice(),
        "export_boleta": blocks.export_boleta(),
        "free_invoice_real_client": blocks.free_invoice_real_client(),
        "isc_invoice": isc.isc_invoice(),
        "other_taxes_invoice": isc.other_taxes_invoice(),
    }


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_canonical_xml_is_byte_identical(name: str) -> None:
    body = copy.deepcopy(_bodies()[name])
    for key in ("fecha_de_emision", "fecha_de_vencimiento"):
        if key in body:
            body[key] = DAY.isoformat()
    document = sales_document(ISSUER, parse_document(body, today=DAY))
    text = sales_document_text(document, number="7").encode()
    assert hashlib.sha256(text).hexdigest() == GOLDEN[name]
