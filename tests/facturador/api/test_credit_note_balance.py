"""A credit note never takes its document below zero (issue 31): the service refuses it with 422 naming
the document's remaining amount (its total, plus its debit notes, minus its credit notes), stores
nothing, and of two notes sent at once against one document only one that fits passes.

Runs on SQLite and, with ``FACTURADOR_TEST_DATABASE_URL``, on PostgreSQL (where the affected
document's row lock orders concurrent notes).
"""

from __future__ import annotations

import threading
from typing import Any

import httpx

from tests.facturador.api.test_blocks import latest_ids
from tests.samples import notes_and_cargo as samples
from tests.samples.bodies import credit_note_body, invoice_body


def _issue(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/api/documents", json=body)
    assert response.status_code == 200, response.text
    return dict(response.json()["data"])


def _refused(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    before = latest_ids(client)
    response = client.post("/api/documents", json=body)
    assert response.status_code == 422, response.text
    payload = dict(response.json())
    assert payload["success"] is False
    assert payload["error_code"] == "CREDIT_NOTE_EXCEEDS_AFFECTED"
    assert [e["field"] for e in payload["errors"]] == ["documento_afectado"]
    assert latest_ids(client) == before  # nothing stored
    return payload


def test_a_second_full_credit_note_is_refused_with_the_remaining_amount(acme: httpx.Client) -> None:
    factura = _issue(acme, invoice_body())
    _issue(acme, credit_note_body(factura["external_id"]))
    payload = _refused(acme, credit_note_body(factura["external_id"]))
    assert f"supera el saldo de {factura['number']}: S/ 0.00" in payload["message"], payload["message"]
    assert "total S/ 118.00" in payload["message"] and "notas de crédito S/ 118.00" in payload["message"]


def test_a_note_named_by_number_counts_and_is_checked(acme: httpx.Client) -> None:
    factura = _issue(acme, invoice_body())
    series, number = factura["number"].split("-")
    by_number = {"codigo_tipo_documento": "01", "serie_documento": series, "numero_documento": number}
    _issue(acme, credit_note_body(documento_afectado=by_number))
    _refused(acme, credit_note_body(factura["external_id"]))
    _refused(acme, credit_note_body(documento_afectado=by_number))


def test_debit_notes_raise_what_credit_notes_may_take(acme: httpx.Client) -> None:
    factura = _issue(acme, samples.credit_invoice())
    _issue(acme, samples.debit_note_on_credit(factura["external_id"]))  # + 11.80
    _issue(acme, credit_note_body(factura["external_id"]))  # - 118.00: 11.80 remain
    payload = _refused(acme, credit_note_body(factura["external_id"]))
    assert (
        ": S/ 11.80 (total S/ 118.00, notas de débito S/ 11.80, notas de crédito S/ 118.00)"
        in (payload["message"])
    )


def test_a_note_on_a_document_of_another_system_is_not_checked(acme: httpx.Client) -> None:
    elsewhere = {"codigo_tipo_documento": "01", "serie_documento": "F999", "numero_documento": "77"}
    _issue(acme, credit_note_body(documento_afectado=elsewhere))
    _issue(acme, credit_note_body(documento_afectado=elsewhere))


def test_two_notes_at_once_do_not_both_pass(acme: httpx.Client) -> None:
    factura = _issue(acme, invoice_body())
    start = threading.Barrier(4)
    answers: list[httpx.Response] = []

    def post() -> None:
        with httpx.Client(base_url=str(acme.base_url), headers=acme.headers, timeout=120) as client:
            start.wait()
            answers.append(client.post("/api/documents", json=credit_note_body(factura["external_id"])))

    threads = [threading.Thread(target=post) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = sorted(a.status_code for a in answers)
    assert codes == [200, 422, 422, 422], [a.text for a in answers]
    notes = [
        row
        for row in acme.get("/api/documents/lists").json()["data"]
        if row["document_type_id"] == "07"
        and (row.get("affected_document") or {}).get("external_id") == factura["external_id"]
    ]
    assert len(notes) == 1
