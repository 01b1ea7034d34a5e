"""The real public request bodies of Facturador PRO's documentation are issued as they are.

Our own bodies (tests/data) cover every scenario in the other API tests; these check that the bodies
real integrations copy from the public documentation (through tests/reference.py) work unchanged, their
customer RUC with a bad check digit included (accepted in test mode), dated today.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.helpers import NS, assert_schema_valid, assert_signed
from tests.reference import shared_path
from tests.samples.bodies import dated_today, invoice_body

#: Public body -> the state it reaches on acme (boletas and unsent documents stay registered).
STATES = {
    "documents_taxed_invoice.json": "05",
    "documents_boleta_taxed.json": "01",
    "documents_without_sending.json": "01",
    "documents_credit_note.json": "05",
}


def public_body(name: str) -> dict[str, Any]:
    return dated_today(json.loads(shared_path("examples", name).read_text(encoding="utf-8")))


@pytest.mark.parametrize(("name", "state"), STATES.items())
def test_public_body_is_issued(acme: httpx.Client, name: str, state: str) -> None:
    body = public_body(name)
    if "documento_afectado" in body:  # the note names a document of the public demo: ours instead
        invoice = acme.post("/api/documents", json=invoice_body()).json()["data"]
        body["documento_afectado"] = {"external_id": invoice["external_id"]}
    response = acme.post("/api/documents", json=body)
    assert response.status_code == 200, response.text
    payload = response.json()
    data = payload["data"]
    assert payload["success"] is True and data["state_type_id"] == state
    assert data["number"].startswith(body["serie_documento"] + "-")
    xml = httpx.get(payload["links"]["xml"]).content
    root = assert_schema_valid(xml)
    assert_signed(xml, data["hash"])
    assert root.findtext("cac:LegalMonetaryTotal/cbc:PayableAmount", namespaces=NS) == "118.00"
