"""Request bodies of ``POST /api/documents``, written from the API reference's field tables.

The JSON files in ``tests/data/`` are the scenarios of the reference's matrix (facturador-api.md §4.8)
with values of our own: a taxed factura (2 x 50.00 + IGV 18 % = 118.00, customer RUC 20487654320), a
boleta for a DNI customer with the same amounts, and a credit note of type 01 whose
``documento_afectado`` names an external id this service never issued (tests put in a real one). Every
loaded body is a fresh copy dated today in Lima, so a test may change it freely.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from sunat.calendar import peru_today

DATA = Path(__file__).resolve().parents[1] / "data"
#: The customer of the factura and credit note bodies (a RUC whose check digit verifies).
CUSTOMER_RUC = "20487654320"


@cache
def _text(name: str) -> str:
    return (DATA / f"{name}.json").read_text(encoding="utf-8")


def dated_today(loaded: dict[str, Any]) -> dict[str, Any]:
    """``loaded`` with its issue and due dates (when present) set to today in Lima."""
    today = peru_today().isoformat()
    for key in ("fecha_de_emision", "fecha_de_vencimiento"):
        if key in loaded:
            loaded[key] = today
    return loaded


def body(name: str, **overrides: Any) -> dict[str, Any]:
    """``tests/data/<name>.json`` dated today, with ``overrides`` applied (a fresh copy each call)."""
    loaded = dated_today(json.loads(_text(name)))
    loaded.update(overrides)
    return loaded


def invoice_body(**overrides: Any) -> dict[str, Any]:
    """A valid taxed factura F001 (2 x 50.00 + IGV = 118.00) dated today."""
    return body("taxed_invoice", **overrides)


def boleta_body(**overrides: Any) -> dict[str, Any]:
    """A valid boleta B001 for a DNI customer (118.00) dated today."""
    return body("boleta", **overrides)


def credit_note_body(affected_external_id: str | None = None, **overrides: Any) -> dict[str, Any]:
    """A credit note FC01 of type 01 cancelling 118.00, for the document ``affected_external_id``
    (by default an external id that was never issued)."""
    note = body("credit_note", **overrides)
    if affected_external_id is not None:
        note["documento_afectado"] = {"external_id": affected_external_id}
    return note
