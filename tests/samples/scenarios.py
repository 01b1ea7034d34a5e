"""Every issuing scenario the service supports, as a list of named request bodies (dated today).

``SCENARIOS`` is what the SUNAT-stylesheet test (``tests/facturador/api/test_sunat_rules.py``) issues over
HTTP and judges. Adding a scenario is adding one :class:`Scenario`: a name and a function that builds
the body of ``POST /api/documents``. A builder receives ``issue``, which issues a prerequisite document
(e.g. the factura a credit note modifies) on the same tenant and returns its ``data``; bodies of the
public documentation (the reference folder's ``examples``) are read through :func:`public`.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sunat.calendar import peru_today
from tests.facturador.api.test_issue_scenarios import SCENARIOS as LINE_SCENARIOS
from tests.facturador.api.test_issue_scenarios import document, line
from tests.facturador.api.test_scenario_blocks import (
    credit_invoice,
    cuota,
    detraction_credit_invoice,
    detraction_invoice,
)
from tests.reference import shared_path
from tests.samples import isc, notes_and_cargo
from tests.samples.bodies import boleta_body, credit_note_body, dated_today, invoice_body

#: Issues a prerequisite body on the scenario's tenant and returns the response's ``data``.
Issue = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Scenario:
    """One request body of ``POST /api/documents``; ``build`` may issue the documents it refers to."""

    name: str
    build: Callable[[Issue], dict[str, Any]]
    #: True for bodies read from the reference folder (the test is skipped without it).
    shared: bool = False


def public(name: str) -> dict[str, Any]:
    """A body of the public documentation (``examples/<name>`` of the reference folder), dated today."""
    return dated_today(json.loads(shared_path("examples", name).read_text(encoding="utf-8")))


def _affecting(body: dict[str, Any], issue: Issue, affected: dict[str, Any]) -> dict[str, Any]:
    """``body`` modifying the document ``affected`` (issued first, by external id)."""
    body["documento_afectado"] = {"external_id": issue(affected)["external_id"]}
    return body


def _note(
    doc_type: str, series: str, note_type: str, reason: str, **overrides: Any
) -> Callable[[Issue], Any]:
    """A note of the 118.00 sample, modifying a factura (F series) or a boleta (B series) issued first."""

    def build(issue: Issue) -> dict[str, Any]:
        body = credit_note_body(
            codigo_tipo_documento=doc_type,
            serie_documento=series,
            codigo_tipo_nota=note_type,
            motivo_o_sustento_de_nota=reason,
            **overrides,
        )
        affected = invoice_body()
        if series.startswith("B"):
            affected = boleta_body()
            body["datos_del_cliente_o_receptor"] = copy.deepcopy(affected["datos_del_cliente_o_receptor"])
        return _affecting(body, issue, affected)

    return build


def _lines(name: str) -> Callable[[Issue], Any]:
    lines, overrides, _expected = LINE_SCENARIOS[name]
    return lambda issue: document(copy.deepcopy(lines), **copy.deepcopy(overrides))


def _boleta_of(lines: list[dict[str, Any]], **overrides: Any) -> dict[str, Any]:
    """A boleta (DNI customer) with the header totals of ``lines``."""
    body = document(lines, **overrides)
    boleta = boleta_body()
    for key in ("serie_documento", "codigo_tipo_documento", "datos_del_cliente_o_receptor"):
        body[key] = boleta[key]
    body.update(overrides)
    return body


def _public_note(issue: Issue) -> dict[str, Any]:
    return _affecting(public("documents_credit_note.json"), issue, invoice_body())


DUE = (peru_today() + dt.timedelta(days=45)).isoformat()

SCENARIOS: tuple[Scenario, ...] = (
    # facturas and boletas
    Scenario("factura", lambda issue: invoice_body()),
    Scenario("factura_contingency", lambda issue: invoice_body(serie_documento="0001")),
    Scenario("boleta", lambda issue: boleta_body()),
    Scenario("boleta_contingency", lambda issue: boleta_body(serie_documento="0004")),
    Scenario(
        "boleta_no_customer",
        lambda issue: boleta_body(
            datos_del_cliente_o_receptor={
                "codigo_tipo_documento_identidad": "0",
                "numero_documento": "-",
                "apellidos_y_nombres_o_razon_social": "CLIENTES VARIOS",
            }
        ),
    ),
    Scenario(
        "boleta_free_and_bag",
        lambda issue: _boleta_of(
            [
                line("Gaseosa", "2", "50", "10"),
                line("Muestra", "1", "20", "13"),
                line("Bolsa plástica", "1", "0.10", "10", bag="1"),
            ]
        ),
    ),
    *(Scenario(f"factura_{name}", _lines(name)) for name in sorted(LINE_SCENARIOS)),
    # detraction and instalments
    Scenario("detraction", lambda issue: detraction_invoice()),
    Scenario("detraction_on_credit", lambda issue: detraction_credit_invoice()),
    Scenario("instalments", lambda issue: credit_invoice()),
    Scenario(
        "instalment_single_usd",
        lambda issue: credit_invoice([cuota(DUE, 118, "USD")], codigo_tipo_moneda="USD"),
    ),
    Scenario("detraction_cargo_1004", lambda issue: notes_and_cargo.cargo_invoice()),
    # credit and debit notes of facturas and boletas
    Scenario(
        "credit_note_13_instalments",
        lambda issue: notes_and_cargo.adjustment_note(issue(notes_and_cargo.credit_invoice())["external_id"]),
    ),
    Scenario(
        "debit_note_on_credit",
        lambda issue: notes_and_cargo.debit_note_on_credit(issue(invoice_body())["external_id"]),
    ),
    Scenario("credit_note_01", _note("07", "FC01", "01", "Anulación de la operación")),
    Scenario("credit_note_06", _note("07", "FC01", "06", "Devolución total")),
    Scenario("credit_note_07", _note("07", "FC01", "07", "Devolución de un producto")),
    Scenario("credit_note_09", _note("07", "FC01", "09", "Disminución en el valor")),
    Scenario("boleta_credit_note", _note("07", "BC01", "01", "Anulación de la operación")),
    Scenario("debit_note_01", _note("08", "FD01", "01", "Intereses por mora")),
    Scenario("debit_note_02", _note("08", "FD01", "02", "Aumento en el valor")),
    Scenario("boleta_debit_note", _note("08", "BD01", "03", "Penalidad por pago tardío")),
    # ISC (scheme 2000, each system of catalog 08) and other taxes (9999)
    *(Scenario(f"isc_{system}", lambda issue, s=system: isc.isc_invoice(s)) for system in ("01", "02", "03")),
    Scenario("other_taxes", lambda issue: isc.other_taxes_invoice()),
    Scenario("isc_boleta", lambda issue: isc.isc_boleta("03")),
    Scenario(
        "isc_credit_note",
        lambda issue: isc.isc_credit_note(issue(isc.isc_invoice("02"))["external_id"], "02"),
    ),
    # the public documentation's bodies, as real integrations copy them
    Scenario("public_taxed_invoice", lambda issue: public("documents_taxed_invoice.json"), shared=True),
    Scenario("public_boleta", lambda issue: public("documents_boleta_taxed.json"), shared=True),
    Scenario("public_without_sending", lambda issue: public("documents_without_sending.json"), shared=True),
    Scenario("public_credit_note", _public_note, shared=True),
)
