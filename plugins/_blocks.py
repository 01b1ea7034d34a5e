"""Shared helpers of the block plugins: read numbers from form values and payloads, and recompute the
header ``totales`` of a payload after a plugin added global discounts, charges or advances (with the
same :func:`sunat.totals.compute_totals` the builders and the service use)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from connector.builders import totals_payload
from sunat import catalogs
from sunat.money import to_decimal
from sunat.totals import Allowance, LineAmounts, compute_totals

ZERO = Decimal("0")
#: Legend 2006 of catalog 52: a detraction without it gets observation 4265.
DETRACTION_LEGEND = {"codigo": "2006", "valor": catalogs.LEGENDS["2006"]}


def number(value: Any) -> Decimal | None:
    """A form or payload value as Decimal; ``None`` when blank or not a number."""
    if value is None or isinstance(value, bool) or (isinstance(value, str) and not value.strip()):
        return None
    try:
        found = to_decimal(value.strip() if isinstance(value, str) else value)
    except (ValueError, TypeError):
        return None
    return None if found.is_nan() else found


def total_of(payload: Mapping[str, Any]) -> Decimal | None:
    """``totales.total_venta`` of a payload."""
    totals = payload.get("totales")
    return number(totals.get("total_venta")) if isinstance(totals, Mapping) else None


def to_pen(payload: Mapping[str, Any]) -> Decimal | None:
    """Factor from the document's currency to soles (``None`` when it cannot be known)."""
    if str(payload.get("codigo_tipo_moneda") or "PEN").upper() == "PEN":
        return Decimal(1)
    factor = number(payload.get("factor_tipo_de_cambio"))
    return factor if factor is not None and factor > 0 else None


def with_detraction_legend(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The payload's ``leyendas`` with :data:`DETRACTION_LEGEND` once, last."""
    legends = [
        dict(legend)
        for legend in payload.get("leyendas") or []
        if not (isinstance(legend, Mapping) and legend.get("codigo") == DETRACTION_LEGEND["codigo"])
    ]
    legends.append(dict(DETRACTION_LEGEND))
    return legends


def _allowances(entries: Any) -> list[Allowance]:
    found = []
    for entry in entries or []:
        if isinstance(entry, Mapping):
            amount = number(entry.get("monto")) or ZERO
            base = number(entry.get("base"))
            found.append(
                Allowance(
                    str(entry.get("codigo")),
                    amount,
                    amount if base is None else base,
                    number(entry.get("factor")),
                )
            )
    return found


def line_amounts(item: Mapping[str, Any]) -> LineAmounts:
    """An ``items[]`` entry as :class:`sunat.totals.LineAmounts` (with its ISC and other taxes)."""

    def get(key: str) -> Decimal:
        return number(item.get(key)) or ZERO

    return LineAmounts(
        quantity=get("cantidad"),
        unit_value=get("valor_unitario"),
        unit_price=get("precio_unitario"),
        price_type=str(item.get("codigo_tipo_precio") or "01"),
        affectation=str(item.get("codigo_tipo_afectacion_igv") or "10"),
        igv_base=get("total_base_igv"),
        igv_percent=get("porcentaje_igv"),
        igv=get("total_igv"),
        icbper=get("total_impuestos_bolsa_plastica"),
        taxes=get("total_impuestos"),
        value=get("total_valor_item"),
        total=get("total_item"),
        allowances=tuple(_allowances([*(item.get("descuentos") or []), *(item.get("cargos") or [])])),
        isc_system=str(item.get("codigo_tipo_sistema_isc") or ""),
        isc_base=get("total_base_isc"),
        isc_percent=get("porcentaje_isc"),
        isc=get("total_isc"),
        other_base=get("total_base_otros_impuestos"),
        other_percent=get("porcentaje_otros_impuestos"),
        other=get("total_otros_impuestos"),
    )


def taxed_base(payload: Mapping[str, Any]) -> Decimal:
    """Σ ``total_base_igv`` of the onerous taxed (10) lines: the base of a global discount 02 / charge 49."""
    items = payload.get("items") or []
    return sum(
        (
            number(item.get("total_base_igv")) or ZERO
            for item in items
            if isinstance(item, Mapping) and str(item.get("codigo_tipo_afectacion_igv") or "") == "10"
        ),
        ZERO,
    )


def with_totals(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A new payload whose ``totales`` are recomputed from its items, global ``descuentos`` / ``cargos``
    and ``anticipos`` (keys of the old ``totales`` the computation does not produce are kept)."""
    lines = [line_amounts(item) for item in payload.get("items") or [] if isinstance(item, Mapping)]
    allowances = _allowances([*(payload.get("descuentos") or []), *(payload.get("cargos") or [])])
    prepaid = sum((number(p.get("monto")) or ZERO for p in payload.get("anticipos") or []), ZERO)
    totals = compute_totals(lines, allowances, prepaid=prepaid)
    old = payload.get("totales") if isinstance(payload.get("totales"), Mapping) else {}
    return {**payload, "totales": {**dict(old or {}), **totals_payload(totals)}}
