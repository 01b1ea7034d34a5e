"""The scenario blocks of a sales document, read from the declared body and checked against the rest of it.

* ``detraccion{codigo_tipo_detraccion (cat. 54), porcentaje, monto (soles), codigo_metodo_pago (cat. 59),
  cuenta_bancaria}``: required by operations 1001-1004 and allowed only with them (1002 needs code 004,
  1003 code 028, 1004 code 027 and the trip). Legend 2006 is added when missing. Operation 1004 (cargo
  transport) also carries the trip: ``detalle_viaje``, ``direccion_origen``/``ubigeo_origen``,
  ``direccion_destino``/``ubigeo_destino`` (catalog 13) and the three reference values (SUNAT 3116-3126).
* ``codigo_condicion_de_pago`` "02" with ``cuotas[{fecha (≥ fecha_de_emision), codigo_tipo_moneda (= the
  document's), monto, codigo_metodo_de_pago?}]``: at least one; Σ monto = total − detraction (converted
  with ``factor_tipo_de_cambio`` outside soles) within a cent. Cuotas with "01" are refused. Notes with
  instalments: a credit note of type 13 (ajuste de montos y/o fechas de pago) carries condition 02 and
  the factura's new ``cuotas``, with a total of zero (SUNAT 3257, 3259, 3315); any other note on credit
  carries instalments that add up to its total.
* ``anticipos`` deducted with global discounts 04-06 (3282, 3287, 2521); ``pago_anticipado``.
* ``percepcion`` (operation 2001, cash, base within the total) and ``retencion`` (a RUC customer).
* ``pagos`` (Σ ≤ total), ``relacionados`` and ``guias``, ``descuentos`` / ``cargos``, ``leyendas``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from facturador.domain.document_amounts import CENT, advances_total
from facturador.domain.document_schema import CREDIT
from facturador.domain.reader import Reader
from facturador.errors import FieldError, field_error, validation_error
from facturador.issued import (
    AffectedDocument,
    AllowanceCharge,
    CargoTrip,
    Detraction,
    Guide,
    Instalment,
    Legend,
    Party,
    Payment,
    Prepayment,
    RelatedDocument,
    Totals,
    Withholding,
)
from sunat import catalogs
from sunat import totals as sunat_totals
from sunat.money import round2

PEN = "PEN"
PERCEPTION_OPERATION = "2001"  # catalog 51: operación sujeta a percepción
PERCEPTION_LEGEND = "2000"  # catalog 52: COMPROBANTE DE PERCEPCIÓN
#: Operation 1004 (cargo transport) also needs the trip (origin, destination, reference values).
CARGO_DETRACTION_OPERATION = "1004"
DETRACTION_LEGEND = "2006"  # catalog 52: "Operación sujeta a detracción"
#: Credit note type 13 (catalog 09): ajustes – montos y/o fechas de pago of a factura on credit.
ADJUSTMENT_NOTE = "13"


def is_present(value: Any) -> bool:
    """Whether a body value says something: not absent, null, false, empty or zero."""
    if value is None or value is False:
        return False
    if isinstance(value, list | dict | str):
        return len(value) > 0
    if isinstance(value, int | float):
        return value != 0
    return True


def read_detraction(
    r: Reader, body: Mapping[str, Any], block: Mapping[str, Any], doc_type: str, operation_type: str
) -> Detraction | None:
    """The ``detraccion`` block: required by operations 1001-1004 and only by them."""
    p = "detraccion"
    subject = operation_type in catalogs.DETRACTION_OPERATION_TYPES
    if not is_present(body.get(p)):
        if subject:
            r.missing_field(
                p,
                f"El tipo de operación {operation_type} (sujeta a detracción) requiere el bloque detraccion "
                "(codigo_tipo_detraccion, porcentaje, monto, codigo_metodo_pago, cuenta_bancaria).",
            )
        return None
    if not isinstance(body.get(p), Mapping):
        return None
    if doc_type not in ("01", "03"):
        r.error(p, "La detracción solo corresponde a facturas y boletas (tipo de operación 1001-1004).")
    elif operation_type and not subject:
        r.error(
            p,
            f"El bloque detraccion no corresponde al tipo de operación {operation_type}: use un tipo de "
            "operación sujeto a detracción (1001, 1002, 1003 o 1004).",
        )
    code = block["codigo_tipo_detraccion"]
    expected = catalogs.DETRACTION_GOODS_BY_OPERATION.get(operation_type)
    if code and expected and code != expected:
        r.error(
            f"{p}.codigo_tipo_detraccion",
            f"Con el tipo de operación {operation_type} el código de detracción debe ser {expected} "
            f"({catalogs.DETRACTION_TYPES[expected][0]}), no {code} (regla SUNAT 3129).",
        )
    return Detraction(
        code=code,
        percent=block["porcentaje"],
        amount=block["monto"],
        payment_means=block["codigo_metodo_pago"],
        account=block["cuenta_bancaria"],
        trip=_cargo_trip(r, body[p], block, operation_type),
    )


#: ``detraccion`` keys of the trip (operation 1004) -> the SUNAT rule that requires it.
TRIP_FIELDS: dict[str, str] = {
    "ubigeo_origen": "3116",
    "direccion_origen": "3117",
    "ubigeo_destino": "3118",
    "direccion_destino": "3119",
    "detalle_viaje": "3120",
    "valor_referencial_servicio_transporte": "3124",
    "valor_referencia_carga_efectiva": "3125",
    "valor_referencial_carga_util": "3126",
}


def _cargo_trip(
    r: Reader, sent: Mapping[str, Any], block: Mapping[str, Any], operation_type: str
) -> CargoTrip | None:
    """The trip of a cargo transport detraction (operation 1004): every key of :data:`TRIP_FIELDS`.

    Required with 1004 (SUNAT 3116-3126; the real services check these ubigeos too) and refused with
    the other operation types, whose XML has no place for it.
    """
    p = "detraccion"
    present = [key for key in TRIP_FIELDS if is_present(sent.get(key)) or sent.get(key) == 0]
    if operation_type != CARGO_DETRACTION_OPERATION:
        for key in present:
            r.error(f"{p}.{key}", f"El campo {p}.{key} solo corresponde al tipo de operación 1004.")
        return None
    for key, rule in TRIP_FIELDS.items():
        if key.startswith("ubigeo") and r.has_error(f"{p}.{key}"):
            continue
        if block[key] is None or block[key] == "":
            name = "El campo ubigeo" if key.startswith("ubigeo") else f"El campo {p}.{key}"
            r.missing_field(
                f"{p}.{key}",
                f"{name} es obligatorio para la detracción por transporte de carga (1004), "
                f"regla SUNAT {rule}.",
            )
    if any(block[key] is None or block[key] == "" for key in TRIP_FIELDS):
        return None
    return CargoTrip(
        detail=block["detalle_viaje"],
        origin_ubigeo=block["ubigeo_origen"],
        origin_address=block["direccion_origen"],
        destination_ubigeo=block["ubigeo_destino"],
        destination_address=block["direccion_destino"],
        service_value=block["valor_referencial_servicio_transporte"],
        effective_load_value=block["valor_referencia_carga_efectiva"],
        payload_value=block["valor_referencial_carga_util"],
    )


def read_instalments(
    r: Reader,
    body: Mapping[str, Any],
    cuotas: list[Mapping[str, Any]],
    payment_condition: str,
    currency: str,
    issue_date: dt.date | None,
) -> tuple[Instalment, ...]:
    """``cuotas``: at least one with condition 02 (crédito), none with 01 (contado)."""
    present = is_present(body.get("cuotas"))
    if payment_condition != CREDIT:
        if present:
            r.error(
                "cuotas",
                "Las cuotas solo corresponden al pago al crédito: envíe codigo_condicion_de_pago 02 "
                "(regla SUNAT 3252).",
            )
        return ()
    if not present:
        message = (
            "El pago al crédito (codigo_condicion_de_pago 02) requiere al menos una cuota en el campo cuotas "
            "(regla SUNAT 3249)."
        )
        if body.get("cuotas") is None:
            r.missing_field("cuotas", message)
        else:
            r.error("cuotas", message)
        return ()
    instalments = []
    for i, cuota in enumerate(cuotas):
        p = f"cuotas.{i}"
        due_date = cuota["fecha"]
        if due_date is not None and issue_date is not None and due_date < issue_date:
            r.error(
                f"{p}.fecha",
                f"La fecha de la cuota {i + 1} ({due_date.isoformat()}) no puede ser anterior a la fecha de "
                f"emisión ({issue_date.isoformat()}).",
            )
        cuota_currency = cuota["codigo_tipo_moneda"]
        if currency and cuota_currency and cuota_currency != currency:
            r.error(
                f"{p}.codigo_tipo_moneda",
                f"La cuota {i + 1} debe estar en la moneda del comprobante ({currency}), "
                f"no en {cuota_currency}.",
            )
        if due_date is not None:
            instalments.append(Instalment(due_date=due_date, amount=cuota["monto"]))
    return tuple(instalments)


def check_adjustment_note(
    payment_condition: str, instalments: tuple[Instalment, ...], affected: AffectedDocument | None
) -> None:
    """A credit note of type 13 restates the instalments of a factura on credit (SUNAT 3257, 3259).

    It carries condition 02 with the new ``cuotas`` (their sum is the factura's new net pending amount),
    and modifies a factura (the type of an affected document given by ``external_id`` is checked when it
    is found, :func:`check_adjustment_affected`).
    """
    if payment_condition != CREDIT:
        raise field_error(
            "codigo_condicion_de_pago",
            "La nota de crédito tipo 13 (ajuste de montos y/o fechas de pago) debe ser al crédito: envíe "
            "codigo_condicion_de_pago 02 con sus cuotas, regla SUNAT 3257.",
        )
    if not instalments:
        raise field_error(
            "cuotas",
            "La nota de crédito tipo 13 debe consignar las cuotas de la operación al crédito, "
            "regla SUNAT 3257.",
        )
    if affected is not None and affected.doc_type != "01":
        raise field_error(
            "documento_afectado.codigo_tipo_documento",
            "Para la nota de crédito tipo 13 el documento afectado debe ser una factura (01), "
            "regla SUNAT 3259.",
        )


def check_adjustment_affected(doc_type: str, payment_condition: str | None) -> None:
    """The factura a credit note of type 13 modifies, found by ``external_id``: a factura (SUNAT 3259)
    sold on credit (3260)."""
    if doc_type != "01":
        raise field_error(
            "documento_afectado.external_id",
            "Para la nota de crédito tipo 13 el documento afectado debe ser una factura, regla SUNAT 3259.",
        )
    if payment_condition != CREDIT:
        raise field_error(
            "documento_afectado.external_id",
            "Para la nota de crédito tipo 13 el documento afectado debe ser una factura al crédito, "
            "regla SUNAT 3260.",
        )


def check_adjustment_note_total(totals: Totals) -> None:
    """A credit note of type 13 changes no amount of the sale: its total is zero (SUNAT 3315)."""
    if totals.total != 0:
        raise field_error(
            "totales.total_venta",
            f"Si el tipo de nota de crédito es 13, el importe total debe ser cero, no {round2(totals.total)} "
            "(regla SUNAT 3315).",
        )


def check_detraction_amount(detraction: Detraction, totals: Totals, currency: str) -> None:
    """The detraction (in soles) cannot exceed the sale; checked only when the sale is in soles too."""
    if currency == PEN and detraction.amount > totals.total:
        raise field_error(
            "detraccion.monto",
            f"El monto de la detracción ({round2(detraction.amount)}) no puede ser mayor que el importe "
            f"total ({round2(totals.total)}).",
        )


def check_instalment_amounts(
    stated_pending: Decimal | None,
    instalments: tuple[Instalment, ...],
    totals: Totals,
    detraction: Detraction | None,
    currency: str,
    exchange_rate: Decimal | None,
) -> None:
    """Σ cuotas = monto neto pendiente de pago = importe total − detracción (within a cent), ≤ total.

    The detraction is in soles: for a sale in another currency it is converted with
    ``factor_tipo_de_cambio``, which is then required. ``stated_pending`` (``totales.total_pendiente_pago``),
    when given and not 0, must match the sum.
    """
    total = round2(totals.total)
    withheld = Decimal("0")
    if detraction is not None:
        if currency == PEN:
            withheld = round2(detraction.amount)
        elif exchange_rate is None:
            raise field_error(
                "factor_tipo_de_cambio",
                f"Con detracción (en soles) y cuotas en {currency} envíe factor_tipo_de_cambio para "
                "calcular el monto neto pendiente de pago.",
            )
        else:
            withheld = round2(detraction.amount / exchange_rate)
    pending = total - withheld
    instalment_sum = sum((instalment.amount for instalment in instalments), Decimal("0"))
    if abs(instalment_sum - pending) > CENT:
        detail = f"importe total {total}" + (f" menos detracción {withheld}" if detraction else "")
        raise field_error(
            "cuotas",
            f"La suma de las cuotas ({instalment_sum}) debe ser igual al monto neto pendiente de pago "
            f"({pending} = {detail}), regla SUNAT 3319.",
        )
    if instalment_sum > total:
        raise field_error(
            "cuotas",
            f"La suma de las cuotas ({instalment_sum}) no puede ser mayor que el importe total ({total}).",
        )
    if stated_pending and abs(stated_pending - instalment_sum) > CENT:
        raise field_error(
            "totales.total_pendiente_pago",
            f"El total pendiente de pago ({stated_pending}) no coincide con la suma de las cuotas "
            f"({instalment_sum}).",
        )


def read_prepayments(
    entries: list[Mapping[str, Any]], doc_type: str, is_advance: bool
) -> tuple[Prepayment, ...]:
    """``anticipos``: facturas and boletas only, each number once, 02 with a factura
    series (F...) and 03 with a boleta series (B...), SUNAT 2521; not on an advance itself."""
    if not entries:
        return ()
    if doc_type not in ("01", "03"):
        raise field_error("anticipos", "Solo una factura o boleta puede deducir anticipos.", "INVALID_FIELD")
    if is_advance:
        raise field_error(
            "anticipos",
            "Un pago anticipado (pago_anticipado) no puede deducir otros anticipos.",
            "INVALID_FIELD",
        )
    seen: set[str] = set()
    prepayments = []
    for i, entry in enumerate(entries):
        number, kind = entry["numero"], entry["codigo_tipo_documento"]
        if number in seen:
            raise field_error(
                f"anticipos.{i}.numero", f"El anticipo {number} está repetido (regla SUNAT 3212)."
            )
        seen.add(number)
        if number[0] in "FB" and number[0] != {"02": "F", "03": "B"}[kind]:
            raise field_error(
                f"anticipos.{i}.numero",
                f"El anticipo {number} no corresponde al tipo {kind} "
                f"({'factura: serie F' if kind == '02' else 'boleta: serie B'}), regla SUNAT 2521.",
                "INVALID_FIELD",
            )
        total = entry["total"] or entry["monto"]
        if total < entry["monto"]:
            raise field_error(
                f"anticipos.{i}.monto",
                f"El monto deducido del anticipo {number} ({entry['monto']}) no puede ser mayor que su total "
                f"({total}).",
                "INVALID_FIELD",
            )
        prepayments.append(Prepayment(number=number, doc_type=kind, amount=entry["monto"], total=total))
    return tuple(prepayments)


def check_prepayment_discounts(
    allowances: tuple[AllowanceCharge, ...], prepayments: tuple[Prepayment, ...]
) -> None:
    """Advances are deducted with global discounts 04 (taxed), 05 (exonerated) or 06 (unaffected) of the
    same total: a discount without advances is SUNAT 3282, advances without one 3287."""
    deducted = [(i, a) for i, a in enumerate(a for a in allowances if not a.is_charge)]
    advance_discounts = [(i, a) for i, a in deducted if a.code in catalogs.PREPAYMENT_DISCOUNTS]
    if advance_discounts and not prepayments:
        position, allowance = advance_discounts[0]
        raise field_error(
            f"descuentos.{position}.codigo",
            f"El descuento {allowance.code} (anticipo) requiere el bloque anticipos con los comprobantes "
            "de anticipo que deduce (regla SUNAT 3282).",
            "INVALID_FIELD",
        )
    if prepayments and not advance_discounts:
        raise field_error(
            "descuentos",
            "Los anticipos se deducen con un descuento global 04 (gravado), 05 (exonerado) o 06 (inafecto) "
            "por su monto (regla SUNAT 3287).",
            "INVALID_FIELD",
        )
    discounted = sum((a.amount for _, a in advance_discounts), Decimal("0"))
    prepaid = advances_total(prepayments)
    if abs(discounted - prepaid) > CENT:
        raise field_error(
            "descuentos",
            f"Los descuentos por anticipos ({discounted}) deben sumar el monto de los anticipos ({prepaid}).",
            "INVALID_FIELD",
        )


def read_withholding(
    body: Mapping[str, Any], key: str, values: Mapping[str, Any], doc_type: str
) -> Withholding | None:
    """``percepcion`` or ``retencion`` (``key``), when the body carries it: facturas and boletas only."""
    if not is_present(body.get(key)) or not isinstance(body.get(key), Mapping):
        return None
    if doc_type not in ("01", "03"):
        raise field_error(key, "La percepción y la retención van en facturas y boletas.", "INVALID_FIELD")
    return Withholding(values["codigo"], values["porcentaje"], values["monto"], values["base"])


def check_withholdings(
    perception: Withholding | None,
    retention: Withholding | None,
    operation_type: str,
    instalments: tuple[Instalment, ...],
    customer: Party,
    totals: Totals,
    currency: str,
) -> None:
    """Perception only in operation 2001 (3308), which needs it (3093), paid cash (3330), base within the
    total in soles (2797); retention for a RUC customer (3262), base within the total (3264); amounts and
    rates by ``sunat.totals.check_withholding`` (2798 / 3263)."""
    if operation_type == PERCEPTION_OPERATION and perception is None:
        raise field_error(
            "percepcion",
            "El tipo de operación 2001 (sujeta a percepción) requiere el bloque percepcion "
            "(regla SUNAT 3093).",
            "MISSING_FIELDS",
        )
    found = []
    if perception is not None:
        if operation_type != PERCEPTION_OPERATION:
            raise field_error(
                "percepcion",
                "La percepción solo corresponde al tipo de operación 2001 (regla SUNAT 3308).",
                "INVALID_FIELD",
            )
        if instalments:
            raise field_error(
                "percepcion",
                "La percepción solo se consigna en ventas al contado (regla SUNAT 3330).",
                "INVALID_FIELD",
            )
        if currency == PEN and perception.base > round2(totals.total):
            raise field_error(
                "percepcion.base",
                f"La base de la percepción ({perception.base}) no puede ser mayor que el importe total "
                f"({round2(totals.total)}), regla SUNAT 2797.",
                "INVALID_FIELD",
            )
        found += sunat_totals.check_withholding(
            perception.code, perception.percent, perception.amount, perception.base, "percepcion"
        )
    if retention is not None:
        if customer.identity_type != "6":
            raise field_error(
                "retencion",
                "La retención la practica un cliente con RUC, agente de retención (regla SUNAT 3262).",
                "INVALID_FIELD",
            )
        if retention.base > round2(totals.total):
            raise field_error(
                "retencion.base",
                f"La base de la retención ({retention.base}) no puede ser mayor que el importe total "
                f"({round2(totals.total)}), regla SUNAT 3264.",
                "INVALID_FIELD",
            )
        found += sunat_totals.check_withholding(
            retention.code, retention.percent, retention.amount, retention.base, "retencion"
        )
    if found:
        raise validation_error(
            f"{found[0].message} (regla SUNAT {found[0].code})",
            "TOTALS_MISMATCH",
            [FieldError(d.field, f"{d.message} (regla SUNAT {d.code})") for d in found],
        )


def read_payments(entries: list[Mapping[str, Any]], doc_type: str, totals: Totals) -> tuple[Payment, ...]:
    """``pagos`` (facturas and boletas): Σ monto ≤ importe total; the destination defaults to cash."""
    if not entries:
        return ()
    if doc_type not in ("01", "03"):
        raise field_error("pagos", "Los pagos solo se registran en facturas y boletas.", "INVALID_FIELD")
    payments = tuple(
        Payment(
            method=entry["codigo_metodo_pago"],
            amount=entry["monto"],
            destination=entry["codigo_destino_pago"] or "cash",
            reference=entry["referencia"],
        )
        for entry in entries
    )
    paid = sum((payment.amount for payment in payments), Decimal("0"))
    if paid > round2(totals.total):
        raise field_error(
            "pagos",
            f"La suma de los pagos ({paid}) no puede ser mayor que el importe total "
            f"({round2(totals.total)}).",
            "INVALID_FIELD",
        )
    return payments


def read_references(
    r: Reader, related: list[Mapping[str, Any]], guides: list[Mapping[str, Any]]
) -> tuple[tuple[RelatedDocument, ...], tuple[Guide, ...]]:
    """``relacionados`` and ``guias``: each (type, number) once (SUNAT 2364 for guides)."""
    seen: set[tuple[str, str]] = set()
    for i, entry in enumerate(guides):
        if entry["external_id"]:  # resolved against the tenant's guides when the document is issued
            for name in ("numero", "codigo_tipo_documento"):
                if entry[name]:
                    r.error(
                        f"guias.{i}.{name}", f"Una guía se indica por external_id o por {name}, no ambos."
                    )
            continue
        r.require(f"guias.{i}.numero", bool(entry["numero"]))
        r.require(f"guias.{i}.codigo_tipo_documento", bool(entry["codigo_tipo_documento"]))
        key = (entry["codigo_tipo_documento"], entry["numero"])
        if key in seen:
            r.error(f"guias.{i}.numero", f"La guía {entry['numero']} está repetida (regla SUNAT 2364).")
        seen.add(key)
    for i, entry in enumerate(related):
        if " " in entry["numero"].strip():
            r.error(
                f"relacionados.{i}.numero", "El número del documento relacionado no lleva espacios (4010)."
            )
    return (
        tuple(
            RelatedDocument(entry["numero"].strip(), entry["codigo_tipo_documento"], entry["monto"])
            for entry in related
        ),
        tuple(
            Guide(
                (entry["numero"] or "").strip(),
                entry["codigo_tipo_documento"] or "",
                entry["external_id"] or "",
            )
            for entry in guides
        ),
    )


def read_allowances(
    discounts: list[Mapping[str, Any]], charges: list[Mapping[str, Any]]
) -> tuple[AllowanceCharge, ...]:
    """``descuentos`` then ``cargos`` (catalog 53); an absent base is the amount (factor 1)."""
    if not discounts and not charges:  # most lines and documents
        return ()
    return tuple(
        AllowanceCharge(
            code=entry["codigo"],
            amount=entry["monto"],
            base=entry["base"] if entry["base"] is not None else entry["monto"],
            factor=entry["factor"],
            description=entry["descripcion"],
        )
        for entry in (*discounts, *charges)
    )


def with_perception_legend(legends: tuple[Legend, ...], perception: Withholding | None) -> tuple[Legend, ...]:
    """Add legend 2000 (COMPROBANTE DE PERCEPCIÓN) to a sale with perception when the client did not."""
    if perception is None or any(legend.code == PERCEPTION_LEGEND for legend in legends):
        return legends
    return (*legends, Legend(PERCEPTION_LEGEND, catalogs.LEGENDS[PERCEPTION_LEGEND]))


def with_detraction_legend(legends: tuple[Legend, ...]) -> tuple[Legend, ...]:
    """Add legend 2006 ("Operación sujeta a detracción") when the client did not send it.

    The real services leave it to the client (``docs/facturador_pro_api.md``, scenario blocks) and SUNAT then
    only observes its absence (4265); adding it costs nothing and keeps the CDR clean. A legend 2006 the
    client sends is kept as is.
    """
    if any(legend.code == DETRACTION_LEGEND for legend in legends):
        return legends
    return (*legends, Legend(DETRACTION_LEGEND, catalogs.LEGENDS[DETRACTION_LEGEND]))


def read_legends(r: Reader, entries: list[Mapping[str, Any]]) -> tuple[Legend, ...]:
    """``leyendas``: each code once (the amount in words, 1000, is added later when missing)."""
    legends = []
    seen = set()
    for i, legend in enumerate(entries):
        code = legend["codigo"]
        if code and code in seen:
            r.error(f"leyendas.{i}.codigo", f"La leyenda {code} está repetida.")
        seen.add(code)
        legends.append(Legend(code, legend["valor"]))
    return tuple(legends)
