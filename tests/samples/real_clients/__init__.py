"""Request bodies sent by independent public client programs of the Facturador PRO API.

Each JSON file reproduces what one program (named in ``SOURCES.md``) sends for a typical sale: its keys,
types, formats and rounding, with our own sample names and numbers. :data:`DECISIONS` says how a real
tenant answers each body and why (``docs/scenarios.md``, "What real clients send"). The bodies carry
the dates the program would send; :func:`load` moves them to today and fills ``{affected}`` (the
external id of a document the same tenant issued first) and the ids a body names as ``"{name}"`` (the
tenant's series, customer, product... of :data:`TENANT`, learned from its API).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sunat.calendar import peru_today

FOLDER = Path(__file__).resolve().parent
_DATE_AT_START = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DMY = re.compile(r"^[0-9]{2}-[0-9]{2}-[0-9]{4}$")
_PLACEHOLDER = re.compile(r"^\{([a-z_]+)\}$")
#: The day every body was written for; its dates move by the same number of days.
WRITTEN_ON = dt.date(2026, 5, 14)


@dataclass(frozen=True)
class Decision:
    """How a real tenant answers a body: ``status`` and, when issued, the document ``state``; when
    refused, the ``field`` named in the answer and the rule (``reason``) that refuses it."""

    path: str  # the endpoint, under /api
    status: int
    state: str | None = None  # a guide's state once sent and its ticket answered
    field: str | None = None
    reason: str = ""


ISSUED = "/api/documents"
GUIDE = "/api/dispatches"
#: What the tenant has before the bodies come (they name its products by code, its ids): products by
#: internal code (description, unit, stock) and a customer (identity type, number, name).
TENANT: dict[str, Any] = {
    "products": {
        "CAFE-250G": ("Café tostado molido 250 g", "NIU", 40),
        "TE-VERDE-100": ("Té verde filtrante x 100", "NIU", 40),
        "ARROZ-5KG": ("Arroz extra saco 5 kg", "NIU", 40),
        "TORTA-CHOC": ("Torta de chocolate (porción)", "NIU", 40),
    },
    "customer": ("6", "20487654320", "DISTRIBUIDORA LOS ANDES S.A.C."),
    "item_id": "TORTA-CHOC",  # the product a body names by id
}
#: Every body of the corpus and its answer. Keys are paths relative to this folder.
DECISIONS: dict[str, Decision] = {
    "wp_api_facturaloperu/boleta_12h_clock.json": Decision(
        ISSUED,
        422,
        field="items.0.total_impuestos",
        reason="the line has no total_impuestos (the plugin writes 'total_impuesto'); real PRO stores "
        "it in the line's total_taxes column, NOT NULL, and fails",
    ),
    "wp_api_facturaloperu/factura_postcode_ubigeo.json": Decision(
        ISSUED,
        422,
        field="datos_del_cliente_o_receptor.ubigeo",
        reason="a 5-digit postcode is no INEI ubigeo (catalog 13); real PRO stores it as the customer's "
        "district_id, a foreign key to districts, and fails",
    ),
    "facturalo_app/boleta_string_amounts.json": Decision(ISSUED, 200, state="01"),
    "facturalo_app/factura_bag_placeholder.json": Decision(ISSUED, 200, state="05"),
    "woo_factpro/boleta_due_datetime.json": Decision(ISSUED, 200, state="01"),
    "woo_factpro/factura_exonerated_shipping.json": Decision(ISSUED, 200, state="05"),
    "woo_factpro/boleta_coupon_discount.json": Decision(
        ISSUED,
        422,
        field="totales.total_descuentos",
        reason="total_descuentos counts the coupon of code 02, which lowers the base: SUNAT's "
        "AllowanceTotalAmount counts only discounts outside the base (rule 3300; the service applies it "
        "to boletas as to facturas)",
    ),
    "woo_factpro/boleta_pse_api_terms.json": Decision(ISSUED, 200, state="01"),
    "kamary_pe/factura_cash_payment.json": Decision(ISSUED, 200, state="05"),
    "kamary_pe/factura_credit_instalments.json": Decision(ISSUED, 200, state="05"),
    "kamary_pe/factura_detraction.json": Decision(ISSUED, 200, state="05"),
    "kamary_pe/factura_explicit_number.json": Decision(ISSUED, 200, state="05"),
    "kamary_pe/credit_note.json": Decision(ISSUED, 200, state="05"),
    "kamary_pe/voided.json": Decision("/api/voided", 200),
    "vendeya/boleta_fuel_no_plate.json": Decision(ISSUED, 200, state="01"),
    "vendeya/boleta_fuel_plate.json": Decision(ISSUED, 200, state="01"),
    "vendeya/factura_fuel.json": Decision(ISSUED, 200, state="05"),
    "facturacion_android/boleta_float_amounts.json": Decision(ISSUED, 200, state="01"),
    "facturacion_android/factura_float_amounts.json": Decision(ISSUED, 200, state="05"),
    "inmobiliaria_tr/boleta_instalment_taxed.json": Decision(ISSUED, 200, state="01"),
    "inmobiliaria_tr/factura_exonerated_zero_percent.json": Decision(ISSUED, 200, state="05"),
    "inmobiliaria_tr/factura_with_issuer_block.json": Decision(ISSUED, 200, state="05"),
    "zcontable/factura_every_key.json": Decision(ISSUED, 200, state="05"),
    "zcontable/credit_note_every_key.json": Decision(ISSUED, 200, state="05"),
    "chatbot_factufacil/item.json": Decision("/api/item", 200),
    "tokhna_peru/factura_included_igv.json": Decision(ISSUED, 200, state="05"),
    "tokhna_peru/guide_codes_only.json": Decision(GUIDE, 200, state="05"),
    "tokhna_peru/voided_dmy.json": Decision("/api/voided", 200),
    "tokhna_peru/summary_cancel_dmy.json": Decision(
        "/api/summaries",
        422,
        field="fecha_de_emision_de_documentos",
        reason="a summary's date as DD-MM-AAAA: real PRO passes it unread to the documents' look-up "
        "(SummaryTransform, whereDate on date_of_issue), finds no boleta of that date and refuses; only "
        "/api/voided reads DD-MM-AAAA (VoidedTransform, Carbon::createFromFormat('d-m-Y'))",
    ),
    "odoo_facturalo/guide_private_bare_driver.json": Decision(
        GUIDE,
        422,
        field="chofer.nombres",
        reason="private transport (02) with a driver of only a document: real PRO writes the guide with "
        "an empty driver and SUNAT refuses it (GRE rules 3360 / 3361 names, 2572 licence)",
    ),
    "appmobil/sale_note_internal_keys.json": Decision("/api/sale-note", 200),
    "appmobil/factura_double_totals.json": Decision(ISSUED, 200, state="05"),
    "vendeya/person_customer.json": Decision("/api/person", 200),
}


def load(name: str, *, affected: str = "", ids: dict[str, int] | None = None) -> dict[str, Any]:
    """The body ``name`` with its dates moved to today (same distance to each other; ``AAAA-MM-DD...`` or
    ``DD-MM-AAAA`` as the body writes them), ``{affected}`` replaced by ``affected`` and each value
    ``"{name}"`` by ``ids[name]`` (a number, as the program sends it)."""
    shift = peru_today() - WRITTEN_ON
    text = (FOLDER / name).read_text(encoding="utf-8").replace("{affected}", affected)
    return _shifted(json.loads(text), shift, ids or {})


def _shifted(value: Any, shift: dt.timedelta, ids: dict[str, int], key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _shifted(v, shift, ids, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_shifted(v, shift, ids, key) for v in value]
    if not isinstance(value, str):
        return value
    placeholder = _PLACEHOLDER.match(value)
    if placeholder:
        return ids[placeholder.group(1)]
    if key.startswith(("fecha", "date_")) and _DATE_AT_START.match(value):
        moved = dt.date.fromisoformat(value[:10]) + shift
        return moved.isoformat() + value[10:]
    if key.startswith("fecha") and _DMY.match(value):
        day, month, year = (int(part) for part in value.split("-"))
        return (dt.date(year, month, day) + shift).strftime("%d-%m-%Y")
    return value
