"""Sales on credit: payment condition 02 and instalments (``cuotas``).

Form field (family ``documents``, facturas): ``instalments.rows``, a table with columns ``date`` and
``amount`` (a list of dicts, or a pandas DataFrame from an editable table; rows with neither value are
ignored).

Prepare: when there are rows, the payload gets (``docs/scenarios.md``)::

    "codigo_condicion_de_pago": "02",
    "cuotas": [{"fecha": "2026-12-22", "codigo_tipo_moneda": "PEN", "monto": 500.0}, ...]

in the document's currency, sorted by date.

Credit and debit notes of facturas take the table too: a credit note of type 13 restates the factura's
instalments (their sum is its new pending amount, the note's own total is 0); a debit note on credit
pays its own total in them.

Validate (whatever built the payload): with condition 02, at least one instalment (SUNAT 3249); each
with a date (``Y-m-d``) not before the issue date (3267), an amount > 0 (3254) and the document's
currency (2071); the instalments add up (± 0.01) to the net amount pending payment: ``total_venta``
minus the detraction amount when there is one (converted from soles with ``factor_tipo_de_cambio`` for
other currencies) (3319). Instalments without condition 02 are refused (3252).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from connector import FieldError, FormField, hookimpl
from connector.parsing import parse_date
from plugins._blocks import number
from sunat.money import round2

SECTION = "Pago al crédito"
ROWS = "instalments.rows"
CREDIT = "02"
#: Σ cuotas may differ from the net pending amount by rounding of the converted detraction only.
CENT = Decimal("0.01")
#: Documents that may be on credit: facturas, and their credit notes (type 13 restates the factura's
#: instalments, SUNAT 3257) and debit notes.
ON_CREDIT_TYPES = ("01", "07", "08")


def _blank(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    try:
        return bool(value != value)  # NaN / NaT
    except (TypeError, ValueError):  # pragma: no cover - exotic values
        return False


def rows_of(value: Any) -> list[dict[str, Any]]:
    """Rows of the instalments table: a list of mappings or a DataFrame; blank rows dropped."""
    if value is None:
        return []
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # a pandas DataFrame
        value = value.to_dict("records")
    if not isinstance(value, Iterable) or isinstance(value, str | bytes | Mapping):
        return []
    rows = []
    for row in value:
        if not isinstance(row, Mapping):
            continue
        if _blank(row.get("date")) and _blank(row.get("amount")):
            continue
        rows.append(dict(row))
    return rows


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The instalments table of the factura form, and of notes (credit note 13, a debit note on credit)."""
    if document_type not in (None, *ON_CREDIT_TYPES):
        return []
    return [
        FormField(
            ROWS,
            "Cuotas",
            "table",
            columns=(
                FormField("date", "Fecha de pago", "date", required=True),
                FormField("amount", "Monto", "number", required=True, min_value=0),
            ),
            default=[],
            help="Venta al crédito: una fila por cuota. La suma debe ser el total menos la detracción.",
            section=SECTION,
        )
    ]


@hookimpl(families="documents")
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Set condition 02 and ``cuotas`` from the ``instalments.rows`` table."""
    rows = rows_of(values.get(ROWS))
    if not rows:
        return None
    currency = str(payload.get("codigo_tipo_moneda") or "PEN")
    cuotas = []
    for row in rows:
        day = parse_date(row.get("date"))
        amount = number(row.get("amount"))
        cuotas.append(
            {
                "fecha": day.isoformat() if day is not None else str(row.get("date") or ""),
                "codigo_tipo_moneda": currency,
                "monto": float(round2(amount)) if amount is not None else row.get("amount"),
            }
        )
    cuotas.sort(key=lambda c: str(c["fecha"]))
    return {**payload, "codigo_condicion_de_pago": CREDIT, "cuotas": cuotas}


def net_pending(payload: Mapping[str, Any]) -> Decimal | None:
    """``total_venta`` minus the detraction amount (soles, converted with ``factor_tipo_de_cambio`` for
    other currencies and rounded to the cent), or ``None`` when it cannot be known."""
    totals = payload.get("totales")
    total = number(totals.get("total_venta")) if isinstance(totals, Mapping) else None
    if total is None:
        return None
    detraction = payload.get("detraccion")
    withheld = Decimal(0)
    if isinstance(detraction, Mapping):
        withheld = number(detraction.get("monto")) or Decimal(0)
        if str(payload.get("codigo_tipo_moneda") or "PEN").upper() != "PEN":
            factor = number(payload.get("factor_tipo_de_cambio"))
            if factor is None or factor <= 0:
                return None
            withheld = withheld / factor
    return round2(total) - round2(withheld)


def _adjustment(payload: Mapping[str, Any]) -> bool:
    """A credit note of type 13 (ajustes – montos y/o fechas de pago): its total is 0 (SUNAT 3315)."""
    return str(payload.get("codigo_tipo_documento")) == "07" and str(payload.get("codigo_tipo_nota")) == "13"


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """Credit and instalment rules checked before sending (see the module docstring)."""
    condition = str(payload.get("codigo_condicion_de_pago") or "01")
    cuotas = payload.get("cuotas")
    if condition != CREDIT:
        if cuotas:
            return [
                FieldError(
                    "cuotas",
                    "Hay cuotas pero la condición de pago no es crédito (codigo_condicion_de_pago 02) "
                    "(SUNAT 3252).",
                )
            ]
        return []
    if not isinstance(cuotas, list) or not cuotas:
        return [FieldError("cuotas", "Una venta al crédito necesita al menos una cuota (SUNAT 3249).")]
    problems: list[FieldError] = []
    issued = parse_date(payload.get("fecha_de_emision"))
    currency = str(payload.get("codigo_tipo_moneda") or "PEN")
    total = Decimal(0)
    for index, cuota in enumerate(cuotas):
        where = f"cuotas.{index}"
        if not isinstance(cuota, Mapping):
            problems.append(FieldError(where, f"La cuota {index + 1} debe ser un objeto."))
            continue
        text = cuota.get("fecha")
        day: dt.date | None = None
        if isinstance(text, str) and len(text) == 10:
            try:
                day = dt.date.fromisoformat(text)
            except ValueError:
                day = None
        if day is None:
            problems.append(
                FieldError(f"{where}.fecha", f"La fecha de la cuota {index + 1} debe ser AAAA-MM-DD.")
            )
        elif issued is not None and day < issued:
            problems.append(
                FieldError(
                    f"{where}.fecha",
                    f"La cuota {index + 1} vence el {day}, antes de la emisión {issued} (SUNAT 3267).",
                )
            )
        amount = number(cuota.get("monto"))
        if amount is None or amount <= 0:
            problems.append(
                FieldError(
                    f"{where}.monto", f"El monto de la cuota {index + 1} debe ser mayor que 0 (SUNAT 3254)."
                )
            )
        else:
            total += amount
        if str(cuota.get("codigo_tipo_moneda") or "") != currency:
            problems.append(
                FieldError(
                    f"{where}.codigo_tipo_moneda",
                    f"La cuota {index + 1} debe estar en la moneda del comprobante, {currency} (SUNAT 2071).",
                )
            )
    pending = net_pending(payload)
    if _adjustment(payload):  # credit note 13: the instalments are the factura's new pending amount
        pending = None
    if not problems and pending is not None and abs(round2(total) - pending) > CENT:
        detail = " (total menos detracción)" if payload.get("detraccion") else ""
        problems.append(
            FieldError(
                "cuotas",
                f"La suma de las cuotas ({round2(total)}) debe ser igual al monto pendiente de pago "
                f"{pending}{detail} (SUNAT 3319).",
            )
        )
    return problems
