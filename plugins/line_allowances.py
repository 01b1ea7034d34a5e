"""Line discounts and charges (catalog 53: 00, 01, 47, 48) for facturas, boletas and notes.

Form field (family ``documents``): ``line_allowances.rows``, a table with one row per discount or
charge: ``item`` (the line number, 1 = the first line), ``codigo`` (00 discount in the IGV base, 01
discount outside it, 47 charge in the base, 48 charge outside it) and ``porcentaje`` (of the line's
value before allowances).

Prepare: each row becomes an entry of ``items[n].descuentos`` / ``items[n].cargos`` built with
:class:`connector.builders.Discount` / :class:`~connector.builders.Charge` (``base`` = the line's value,
``factor`` = percent / 100); the line is recomputed with :func:`sunat.totals.apply_line_allowances`
(value = qty × unit value − 00 + 47, IGV on it; total = value + taxes − 01 + 48; unit price = total /
qty, SUNAT 3270/3271) and ``totales`` with :func:`sunat.totals.compute_totals`::

    "items": [{..., "descuentos": [{"codigo": "00", "monto": 10.0, "base": 100.0, "factor": 0.1}],
               "total_valor_item": 90.0, "total_igv": 16.2, "total_item": 106.2, ...}]

Free lines are left as they are (SUNAT takes no allowance on them). Validate: each line's discounts
only 00/01 and charges only 47/48, each with an amount > 0 (the service checks the amounts).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from connector import FieldError, FormField, hookimpl
from connector.builders import Charge, Discount, money, unit
from plugins._blocks import ZERO, number, with_totals
from sunat import catalogs
from sunat.rates import IGV_PERCENT
from sunat.totals import apply_line_allowances, compute_line

SECTION = "Descuentos y cargos por ítem"
ROWS = "line_allowances.rows"
CODES = (
    ("00", "00 - Descuento que afecta la base imponible"),
    ("01", "01 - Descuento que no afecta la base imponible"),
    ("47", "47 - Cargo que afecta la base imponible"),
    ("48", "48 - Cargo que no afecta la base imponible"),
)


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The table of line discounts and charges."""
    return [
        FormField(
            ROWS,
            "Descuentos y cargos por ítem (% del valor del ítem)",
            "table",
            help="Ítem: el número de línea (1 = la primera).",
            section=SECTION,
            columns=(
                FormField("item", "Ítem", "number", min_value=1),
                FormField("codigo", "Código (catálogo 53)", "select", options=CODES),
                FormField("porcentaje", "Porcentaje", "number", min_value=0),
            ),
        )
    ]


def _recomputed(item: Mapping[str, Any], entries: list[Discount]) -> dict[str, Any]:
    """``item`` with ``entries`` added and its amounts recomputed (sunat.totals)."""
    quantity = number(item.get("cantidad")) or ZERO
    affectation = str(item.get("codigo_tipo_afectacion_igv") or "10")
    percent = number(item.get("porcentaje_igv"))
    icbper = number(item.get("total_impuestos_bolsa_plastica")) or ZERO
    line = compute_line(
        quantity,
        affectation,
        unit_value=number(item.get("valor_unitario")) or ZERO,
        igv_percent=IGV_PERCENT if percent is None else percent,
        icbper_rate=icbper / quantity if icbper and quantity else ZERO,
    )
    discounts = [*_existing(item, "descuentos", Discount), *[e for e in entries if e.code in ("00", "01")]]
    charges = [*_existing(item, "cargos", Charge), *[e for e in entries if e.code in ("47", "48")]]
    done = apply_line_allowances(line, [e.allowance() for e in (*discounts, *charges)])
    updated = {
        **item,
        "precio_unitario": unit(done.unit_price),
        "total_base_igv": money(done.igv_base),
        "total_igv": money(done.igv),
        "total_impuestos": money(done.taxes),
        "total_valor_item": money(done.value),
        "total_item": money(done.total),
    }
    if discounts:
        updated["descuentos"] = [d.to_payload() for d in discounts]
    if charges:
        updated["cargos"] = [c.to_payload() for c in charges]
    return updated


def _existing(item: Mapping[str, Any], key: str, kind: type[Discount]) -> list[Discount]:
    return [
        kind(
            str(e.get("codigo")),
            e.get("monto"),
            e.get("base"),
            e.get("factor"),
            str(e.get("descripcion") or ""),
        )
        for e in item.get(key) or []
        if isinstance(e, Mapping)
    ]


@hookimpl(families="documents")
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Add the table's discounts and charges to their lines; recompute the lines and ``totales``."""
    items = [dict(item) for item in payload.get("items") or [] if isinstance(item, Mapping)]
    added: dict[int, list[Discount]] = {}
    for row in values.get(ROWS) or []:
        if not isinstance(row, Mapping):
            continue
        index, percent, code = (
            number(row.get("item")),
            number(row.get("porcentaje")),
            str(row.get("codigo") or ""),
        )
        if index is None or percent is None or percent <= 0 or code not in dict(CODES):
            continue
        position = int(index) - 1
        if not 0 <= position < len(items) or catalogs.is_free(
            str(items[position].get("codigo_tipo_afectacion_igv"))
        ):
            continue
        base = number(items[position].get("cantidad") or 0) or ZERO
        base = base * (number(items[position].get("valor_unitario")) or ZERO)
        kind = Discount if code in ("00", "01") else Charge
        added.setdefault(position, []).append(kind(code, base=base, factor=percent / 100))
    if not added:
        return None
    for position, entries in added.items():
        items[position] = _recomputed(items[position], entries)
    return with_totals({**payload, "items": items})


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """Line discounts only 00/01 and charges only 47/48, each with an amount above 0."""
    problems: list[FieldError] = []
    for i, item in enumerate(payload.get("items") or []):
        if not isinstance(item, Mapping):
            continue
        for key, codes in (("descuentos", catalogs.LINE_DISCOUNTS), ("cargos", catalogs.LINE_CHARGES)):
            for j, entry in enumerate(item.get(key) or []):
                path = f"items.{i}.{key}.{j}"
                if not isinstance(entry, Mapping):
                    problems.append(FieldError(path, "Cada descuento o cargo debe ser un objeto."))
                    continue
                if str(entry.get("codigo") or "") not in codes:
                    problems.append(
                        FieldError(
                            f"{path}.codigo",
                            f"En un ítem solo van los códigos {', '.join(sorted(codes))} (catálogo 53).",
                        )
                    )
                amount = number(entry.get("monto"))
                if amount is None or amount <= Decimal(0):
                    problems.append(FieldError(f"{path}.monto", "El monto debe ser mayor que 0."))
    return problems
