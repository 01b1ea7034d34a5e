"""The body of ``POST /api/documents`` (reference §4.1–4.7): Spanish keys in, a checked request out.

Everything that can be checked without the database is checked here: types, required keys, SUNAT
catalogs, identity of the customer, ubigeo, and every line and header amount against SUNAT's
formulas (``facturador.sunat.totals``). What needs the database (series, numbers, the affected
document) is checked by ``facturador.service.domain.issuing``.

Scenario blocks built so far (the others stay refused, see :data:`PENDING_BLOCKS`):

* ``detraccion{codigo_tipo_detraccion (cat. 54), porcentaje, monto (soles), codigo_metodo_pago (cat. 59),
  cuenta_bancaria}``: required by operations 1001-1003 and allowed only with them (1002 needs code 004,
  1003 code 028; 1004 needs the trip details and is refused). Legend 2006 is added when missing.
* ``codigo_condicion_de_pago`` "02" with ``cuotas[{fecha (≥ fecha_de_emision), codigo_tipo_moneda (= the
  document's), monto, codigo_metodo_de_pago?}]``: at least one; Σ monto = total − detraction (converted
  with ``factor_tipo_de_cambio`` outside soles) within a cent. Cuotas with "01" are refused. Notes with
  instalments (credit note type 13) are refused until they are built.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from facturador.service.domain.model import (
    DETRACTION,
    INSTALMENTS,
    AffectedDocument,
    Detraction,
    Instalment,
    Legend,
    Line,
    Party,
    Totals,
)
from facturador.service.domain.reader import Reader
from facturador.service.errors import FieldError, ServiceError, field_error, validation_error
from facturador.sunat import catalogs
from facturador.sunat import totals as sunat_totals
from facturador.sunat.identity import identity_problem
from facturador.sunat.money import round2, to_decimal
from facturador.sunat.rates import ALLOWED_IGV_PERCENTS, icbper_rate
from facturador.sunat.series import is_valid_series
from facturador.sunat.ubigeo import is_valid_ubigeo

SALES_DOCUMENT_TYPES = {"01": "Factura", "03": "Boleta", "07": "Nota de crédito", "08": "Nota de débito"}
PDF_FORMATS = {"a4", "ticket", "ticket_80", "ticket_58"}

#: Blocks of reference §4.5 that a later issue builds; refused until then rather than left out of the XML.
PENDING_BLOCKS = (
    "descuentos",
    "cargos",
    "anticipos",
    "percepcion",
    "retencion",
    "guias",
    "relacionados",
    "pagos",
)
PENDING_ITEM_BLOCKS = ("descuentos", "cargos", "datos_adicionales", "total_isc", "total_otros_impuestos")
PENDING_TOTALS = ("total_descuentos", "total_cargos", "total_anticipos", "total_isc", "total_otros_impuestos")
BOLETA_IDENTIFICATION_THRESHOLD = Decimal("700")
#: Detraction operation types tied to one good or service of catalog 54 (SUNAT 3129, reference/sunat.md §2.4).
#: Operation 1004 (cargo transport) also needs the trip (origin, destination, reference values): not built.
UNBUILT_DETRACTION_OPERATIONS = frozenset({"1004"})
DETRACTION_LEGEND = "2006"  # catalog 52: "Operación sujeta a detracción"
MAX_INSTALMENTS = 999  # Cuota001 ... Cuota999
CENT = Decimal("0.01")
PEN = "PEN"


@dataclass(frozen=True)
class DocumentRequest:
    """A checked request to issue a document, before it gets its number."""

    doc_type: str
    series: str
    number: int | None  # None: "#" (next correlative)
    issue_date: dt.date
    issue_time: dt.time
    due_date: dt.date | None
    operation_type: str
    currency: str
    exchange_rate: Decimal
    purchase_order: str
    customer: Party
    lines: tuple[Line, ...]
    totals: Totals
    legends: tuple[Legend, ...]
    additional_information: str
    send_xml_signed: bool
    format_pdf: str
    note_type: str | None
    note_reason: str | None
    affected_external_id: str | None
    affected: AffectedDocument | None
    raw: dict[str, Any]
    detraction: Detraction | None = None
    instalments: tuple[Instalment, ...] = ()

    @property
    def is_note(self) -> bool:
        return self.doc_type in ("07", "08")

    @property
    def payment_form(self) -> str:
        """SUNAT's FormaPago: ``Credito`` for a sale in instalments (condition 02), else ``Contado``."""
        return "Credito" if self.instalments else "Contado"

    def extensions(self) -> dict[str, Any]:
        """The scenario blocks for ``SalesDocument.extensions`` (only those present)."""
        blocks: dict[str, Any] = {}
        if self.detraction is not None:
            blocks[DETRACTION] = self.detraction
        if self.instalments:
            blocks[INSTALMENTS] = self.instalments
        return blocks


def parse_document(body: Any, *, today: dt.date) -> DocumentRequest:
    """Check a ``POST /api/documents`` body; raise ``ServiceError`` (4xx) listing what is wrong."""
    if not isinstance(body, Mapping):
        raise ServiceError(400, "El cuerpo de la petición debe ser un objeto JSON.", "BODY_NOT_OBJECT")
    _refuse_pending_blocks(body)
    r = Reader()
    doc_type = r.code(
        body,
        "codigo_tipo_documento",
        "codigo_tipo_documento",
        SALES_DOCUMENT_TYPES,
        "catálogo 01 (01, 03, 07, 08)",
    )
    series = r.text(body, "serie_documento", "serie_documento").upper()
    number_text = r.text(body, "numero_documento", "numero_documento")
    number: int | None = None
    if number_text and number_text != "#":
        if not number_text.isdigit() or not 0 < int(number_text) <= 99_999_999:
            r.error(
                "numero_documento", "El campo numero_documento debe ser # o un número entre 1 y 99999999."
            )
        else:
            number = int(number_text)
    issue_date = r.date(body, "fecha_de_emision", "fecha_de_emision")
    issue_time = r.time(body, "hora_de_emision", "hora_de_emision")
    is_note = doc_type in ("07", "08")
    due_date = r.date(body, "fecha_de_vencimiento", "fecha_de_vencimiento", required=False)
    operation_type = ""
    if not is_note:
        allowed_ops = catalogs.OPERATION_TYPES_BY_DOCUMENT.get(doc_type, frozenset(catalogs.OPERATION_TYPES))
        operation_type = r.code(
            body,
            "codigo_tipo_operacion",
            "codigo_tipo_operacion",
            allowed_ops,
            f"catálogo 51 para el tipo de documento {doc_type or '?'}",
        )
    currency = r.code(
        body,
        "codigo_tipo_moneda",
        "codigo_tipo_moneda",
        catalogs.CURRENCIES,
        "catálogo 02 (ISO 4217)",
        upper=True,
    )
    exchange_rate = r.decimal(
        body, "factor_tipo_de_cambio", "factor_tipo_de_cambio", required=False, default=Decimal("1")
    )
    purchase_order = r.text(
        body, "numero_orden_de_compra", "numero_orden_de_compra", required=False, max_length=20
    )
    payment_condition = r.text(
        body, "codigo_condicion_de_pago", "codigo_condicion_de_pago", required=False, default="01"
    )
    if payment_condition not in ("01", "02"):
        r.error(
            "codigo_condicion_de_pago",
            "El campo codigo_condicion_de_pago debe ser 01 (Contado) o 02 (Crédito).",
        )
    detraction = _read_detraction(r, body, doc_type, operation_type)
    instalments = () if is_note else _read_instalments(r, body, payment_condition, currency, issue_date)
    customer = _read_customer(r, r.obj(body, "datos_del_cliente_o_receptor", "datos_del_cliente_o_receptor"))
    items = r.array(body, "items", "items")
    if isinstance(body.get("items"), list) and not items:
        r.error("items", "El comprobante debe tener al menos un ítem.")
    if len(items) > 999:
        r.error("items", "Un comprobante admite como máximo 999 ítems.")
    lines = tuple(_read_line(r, item, i) for i, item in enumerate(items))
    totals_body = r.obj(body, "totales", "totales")
    legends = _read_legends(r, body)
    actions = r.obj(body, "acciones", "acciones", required=False)
    send_xml_signed = r.boolean(actions, "enviar_xml_firmado", "acciones.enviar_xml_firmado", default=True)
    format_pdf = r.text(actions, "formato_pdf", "acciones.formato_pdf", required=False, default="a4").lower()
    if format_pdf not in PDF_FORMATS:
        r.error("acciones.formato_pdf", "El campo acciones.formato_pdf debe ser a4, ticket o ticket_58.")
    additional_information = r.text(body, "informacion_adicional", "informacion_adicional", required=False)

    note_type = note_reason = affected_external_id = None
    affected: AffectedDocument | None = None
    if is_note:
        note_catalog = catalogs.CREDIT_NOTE_TYPES if doc_type == "07" else catalogs.DEBIT_NOTE_TYPES
        note_type = r.code(
            body,
            "codigo_tipo_nota",
            "codigo_tipo_nota",
            note_catalog,
            "catálogo 09" if doc_type == "07" else "catálogo 10",
        )
        note_reason = r.text(body, "motivo_o_sustento_de_nota", "motivo_o_sustento_de_nota", max_length=500)
        affected_body = r.obj(body, "documento_afectado", "documento_afectado")
        if affected_body:
            if r.has(affected_body, "external_id"):
                affected_external_id = r.text(affected_body, "external_id", "documento_afectado.external_id")
            else:
                affected = AffectedDocument(
                    doc_type=r.code(
                        affected_body,
                        "codigo_tipo_documento",
                        "documento_afectado.codigo_tipo_documento",
                        {"01", "03", "12"},
                        "catálogo 01 (01, 03, 12)",
                    ),
                    series=r.text(
                        affected_body, "serie_documento", "documento_afectado.serie_documento"
                    ).upper(),
                    number=r.text(affected_body, "numero_documento", "documento_afectado.numero_documento"),
                )
                if affected.number and not affected.number.isdigit():
                    r.error(
                        "documento_afectado.numero_documento",
                        "El campo documento_afectado.numero_documento debe ser numérico.",
                    )
    r.raise_if_errors()
    assert issue_date is not None and issue_time is not None

    if is_note and (payment_condition == "02" or note_type == "13" or _is_present(body.get("cuotas"))):
        field = "codigo_tipo_nota" if note_type == "13" else "codigo_condicion_de_pago"
        if note_type != "13" and payment_condition != "02":
            field = "cuotas"
        raise field_error(
            field,
            "Las notas de crédito con cuotas (tipo 13, ajuste de montos y/o fechas de pago) aún no están "
            "soportadas.",
            "UNSUPPORTED_BLOCK",
        )
    if operation_type in UNBUILT_DETRACTION_OPERATIONS:
        raise field_error(
            "codigo_tipo_operacion",
            f"La detracción por servicio de transporte de carga ({operation_type}) aún no está soportada "
            "(requiere los datos del viaje); el comprobante no se emitió.",
            "UNSUPPORTED_BLOCK",
        )
    if not is_valid_series(doc_type, series):
        raise field_error("serie_documento", f"La serie ingresada {series}, es incorrecta.", "INVALID_SERIES")
    _check_customer(doc_type, operation_type, customer)
    _check_line_rules(doc_type, operation_type, lines)
    totals = _read_totals(r, totals_body, lines)
    r.raise_if_errors()
    _check_amounts(lines, totals, issue_date)
    if detraction is not None:
        _check_detraction_amount(detraction, totals, currency)
    if instalments:
        _check_instalment_amounts(body, instalments, totals, detraction, currency, exchange_rate)
    if (
        doc_type == "03"
        and totals.total > BOLETA_IDENTIFICATION_THRESHOLD
        and customer.identity_type not in {"1", "4", "6", "7"}
    ):
        description = catalogs.IDENTITY_TYPES.get(customer.identity_type, customer.identity_type)
        raise field_error(
            "datos_del_cliente_o_receptor.codigo_tipo_documento_identidad",
            f"El tipo doc. identidad {description} del cliente no es valido.",
            "INVALID_CUSTOMER",
        )
    if is_note and affected is not None:
        _check_note_reference(series, affected)
    return DocumentRequest(
        doc_type=doc_type,
        series=series,
        number=number,
        issue_date=issue_date,
        issue_time=issue_time,
        due_date=due_date,
        operation_type=operation_type,
        currency=currency,
        exchange_rate=exchange_rate,
        purchase_order=purchase_order,
        customer=customer,
        lines=lines,
        totals=totals,
        legends=_with_detraction_legend(legends) if detraction is not None else legends,
        additional_information=additional_information,
        send_xml_signed=send_xml_signed,
        format_pdf="ticket" if format_pdf == "ticket_80" else format_pdf,
        note_type=note_type,
        note_reason=note_reason,
        affected_external_id=affected_external_id,
        affected=affected,
        raw=dict(body),
        detraction=detraction,
        instalments=instalments,
    )


def _is_present(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, list | dict | str):
        return len(value) > 0
    if isinstance(value, int | float):
        return value != 0
    return True


def _refuse_pending_blocks(body: Mapping[str, Any]) -> None:
    present = [key for key in PENDING_BLOCKS if _is_present(body.get(key))]
    if _is_present(body.get("pago_anticipado")):
        present.append("pago_anticipado")
    items = body.get("items")
    if isinstance(items, list):
        for i, item in enumerate(items):
            if isinstance(item, Mapping):
                present += [f"items.{i}.{key}" for key in PENDING_ITEM_BLOCKS if _is_present(item.get(key))]
    totals = body.get("totales")
    if isinstance(totals, Mapping):
        present += [f"totales.{key}" for key in PENDING_TOTALS if _is_present(totals.get(key))]
    if present:
        raise ServiceError(
            422,
            f"El bloque {present[0]} aún no está soportado por este servicio; el comprobante no se emitió.",
            "UNSUPPORTED_BLOCK",
            [FieldError(p, f"El bloque {p} aún no está soportado.") for p in present],
        )


def _catalog_code(value: Any) -> Any:
    """Catalog 54/59 codes are 3 digits; numbers and short digit strings (``37``, ``"1"``) are padded."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1000:
        return f"{value:03d}"
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 3:
        return value.strip().zfill(3)
    return value


def _read_detraction(
    r: Reader, body: Mapping[str, Any], doc_type: str, operation_type: str
) -> Detraction | None:
    """The ``detraccion`` block (reference §4.5): required by operations 1001-1004 and only by them."""
    p = "detraccion"
    subject = operation_type in catalogs.DETRACTION_OPERATION_TYPES
    if not _is_present(body.get(p)):
        if subject:
            r.missing.append(p)
            r.error(
                p,
                f"El tipo de operación {operation_type} (sujeta a detracción) requiere el bloque detraccion "
                "(codigo_tipo_detraccion, porcentaje, monto, codigo_metodo_pago, cuenta_bancaria).",
            )
        return None
    block = r.obj(body, p, p)
    if not block:
        return None
    if doc_type not in ("01", "03"):
        r.error(p, "La detracción solo corresponde a facturas y boletas (tipo de operación 1001-1004).")
    elif operation_type and not subject:
        r.error(
            p,
            f"El bloque detraccion no corresponde al tipo de operación {operation_type}: use un tipo de "
            "operación sujeto a detracción (1001, 1002, 1003 o 1004).",
        )
    block = {k: _catalog_code(v) if k.startswith("codigo_") else v for k, v in block.items()}
    code = r.code(
        block,
        "codigo_tipo_detraccion",
        f"{p}.codigo_tipo_detraccion",
        catalogs.DETRACTION_TYPES,
        "catálogo 54",
    )
    expected = catalogs.DETRACTION_GOODS_BY_OPERATION.get(operation_type)
    if code and expected and code != expected and operation_type not in UNBUILT_DETRACTION_OPERATIONS:
        r.error(
            f"{p}.codigo_tipo_detraccion",
            f"Con el tipo de operación {operation_type} el código de detracción debe ser {expected} "
            f"({catalogs.DETRACTION_TYPES[expected][0]}), no {code}.",
        )
    percent = r.decimal(block, "porcentaje", f"{p}.porcentaje", positive=True)
    if percent > 100:
        r.error(f"{p}.porcentaje", f"El campo {p}.porcentaje no puede ser mayor que 100.")
    amount = r.decimal(block, "monto", f"{p}.monto", positive=True)
    means = r.code(
        block, "codigo_metodo_pago", f"{p}.codigo_metodo_pago", catalogs.PAYMENT_MEANS, "catálogo 59"
    )
    account = r.text(block, "cuenta_bancaria", f"{p}.cuenta_bancaria", max_length=30)
    return Detraction(code=code, percent=percent, amount=amount, payment_means=means, account=account)


def _read_instalments(
    r: Reader,
    body: Mapping[str, Any],
    payment_condition: str,
    currency: str,
    issue_date: dt.date | None,
) -> tuple[Instalment, ...]:
    """``cuotas`` (reference §4.5): at least one with condition 02 (crédito), none with 01 (contado)."""
    present = _is_present(body.get("cuotas"))
    if payment_condition != "02":
        if present:
            r.error(
                "cuotas",
                "Las cuotas solo corresponden al pago al crédito: envíe codigo_condicion_de_pago 02.",
            )
        return ()
    if not present:
        if "cuotas" not in body or body.get("cuotas") is None:
            r.missing.append("cuotas")
        r.error(
            "cuotas",
            "El pago al crédito (codigo_condicion_de_pago 02) requiere al menos una cuota en el campo "
            "cuotas.",
        )
        return ()
    cuotas = r.array(body, "cuotas", "cuotas")
    if len(cuotas) > MAX_INSTALMENTS:
        r.error("cuotas", f"Un comprobante admite como máximo {MAX_INSTALMENTS} cuotas.")
    instalments = []
    for i, cuota in enumerate(cuotas):
        p = f"cuotas.{i}"
        if not isinstance(cuota, Mapping):
            r.error(
                p, f"La cuota {p} debe ser un objeto con fecha, codigo_tipo_moneda y monto.", container=True
            )
            continue
        due_date = r.date(cuota, "fecha", f"{p}.fecha")
        if due_date is not None and issue_date is not None and due_date < issue_date:
            r.error(
                f"{p}.fecha",
                f"La fecha de la cuota {i + 1} ({due_date.isoformat()}) no puede ser anterior a la fecha de "
                f"emisión ({issue_date.isoformat()}).",
            )
        cuota_currency = r.code(
            cuota,
            "codigo_tipo_moneda",
            f"{p}.codigo_tipo_moneda",
            catalogs.CURRENCIES,
            "catálogo 02 (ISO 4217)",
            upper=True,
        )
        if currency and cuota_currency in catalogs.CURRENCIES and cuota_currency != currency:
            r.error(
                f"{p}.codigo_tipo_moneda",
                f"La cuota {i + 1} debe estar en la moneda del comprobante ({currency}), "
                f"no en {cuota_currency}.",
            )
        amount = r.decimal(cuota, "monto", f"{p}.monto", positive=True)
        r.text(cuota, "codigo_metodo_de_pago", f"{p}.codigo_metodo_de_pago", required=False)
        if due_date is not None:
            instalments.append(Instalment(due_date=due_date, amount=round2(amount)))
    return tuple(instalments)


def _check_detraction_amount(detraction: Detraction, totals: Totals, currency: str) -> None:
    """The detraction (in soles) cannot exceed the sale; checked only when the sale is in soles too."""
    if currency == PEN and detraction.amount > totals.total:
        raise field_error(
            "detraccion.monto",
            f"El monto de la detracción ({round2(detraction.amount)}) no puede ser mayor que el importe "
            f"total ({round2(totals.total)}).",
        )


def _check_instalment_amounts(
    body: Mapping[str, Any],
    instalments: tuple[Instalment, ...],
    totals: Totals,
    detraction: Detraction | None,
    currency: str,
    exchange_rate: Decimal,
) -> None:
    """Σ cuotas = monto neto pendiente de pago = importe total − detracción (within a cent), ≤ total.

    The detraction is in soles: for a sale in another currency it is converted with
    ``factor_tipo_de_cambio``, which is then required.
    """
    total = round2(totals.total)
    withheld = Decimal("0")
    if detraction is not None:
        if currency == PEN:
            withheld = round2(detraction.amount)
        elif body.get("factor_tipo_de_cambio") is None or exchange_rate <= 0:
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
            f"({pending} = {detail}).",
        )
    if instalment_sum > total:
        raise field_error(
            "cuotas",
            f"La suma de las cuotas ({instalment_sum}) no puede ser mayor que el importe total ({total}).",
        )
    totals_body = body.get("totales")
    stated = totals_body.get("total_pendiente_pago") if isinstance(totals_body, Mapping) else None
    if stated is not None and stated != "":
        try:
            stated_amount = round2(to_decimal(stated))
        except ValueError:
            raise field_error(
                "totales.total_pendiente_pago", "El campo totales.total_pendiente_pago debe ser un número."
            ) from None
        if stated_amount and abs(stated_amount - instalment_sum) > CENT:
            raise field_error(
                "totales.total_pendiente_pago",
                f"El total pendiente de pago ({stated_amount}) no coincide con la suma de las cuotas "
                f"({instalment_sum}).",
            )


def _read_customer(r: Reader, body: Mapping[str, Any]) -> Party:
    p = "datos_del_cliente_o_receptor"
    identity_type = r.code(
        body,
        "codigo_tipo_documento_identidad",
        f"{p}.codigo_tipo_documento_identidad",
        catalogs.IDENTITY_TYPES,
        "catálogo 06",
        upper=True,
    )
    number = r.text(body, "numero_documento", f"{p}.numero_documento", max_length=20)
    name = r.text(
        body, "apellidos_y_nombres_o_razon_social", f"{p}.apellidos_y_nombres_o_razon_social", max_length=1500
    )
    country = r.text(body, "codigo_pais", f"{p}.codigo_pais", required=False, default="PE").upper()
    if country and (len(country) != 2 or not country.isalpha()):
        r.error(f"{p}.codigo_pais", f"El campo {p}.codigo_pais debe ser un código de país de 2 letras.")
    ubigeo = r.text(body, "ubigeo", f"{p}.ubigeo", required=False)
    if ubigeo:
        if len(ubigeo) != 6 or not ubigeo.isdigit():
            r.error(f"{p}.ubigeo", "El código ubigeo debe contener 6 dígitos")
        elif not is_valid_ubigeo(ubigeo):
            r.error(f"{p}.ubigeo", "El código ubigeo es incorrecto")
    return Party(
        identity_type=identity_type,
        number=number,
        name=name,
        country=country or "PE",
        ubigeo=ubigeo,
        address=r.text(body, "direccion", f"{p}.direccion", required=False, max_length=500),
        email=r.text(body, "correo_electronico", f"{p}.correo_electronico", required=False),
        phone=r.text(body, "telefono", f"{p}.telefono", required=False),
        trade_name=r.text(body, "nombre_comercial", f"{p}.nombre_comercial", required=False),
    )


def _read_line(r: Reader, item: Any, i: int) -> Line:
    p = f"items.{i}"
    if not isinstance(item, Mapping):
        r.error(p, f"El ítem {p} debe ser un objeto.", container=True)
        item = {}
    quantity = r.decimal(item, "cantidad", f"{p}.cantidad", positive=True)
    affectation = r.code(
        item,
        "codigo_tipo_afectacion_igv",
        f"{p}.codigo_tipo_afectacion_igv",
        catalogs.AFFECTATIONS,
        "catálogo 07",
    )
    sunat_code = item.get("codigo_producto_sunat")
    return Line(
        index=i + 1,
        description=r.text(item, "descripcion", f"{p}.descripcion", max_length=500),
        unit=r.code(
            item, "unidad_de_medida", f"{p}.unidad_de_medida", catalogs.UNITS, "catálogo 03", upper=True
        ),
        quantity=quantity,
        unit_value=r.decimal(item, "valor_unitario", f"{p}.valor_unitario"),
        price_type=r.code(
            item, "codigo_tipo_precio", f"{p}.codigo_tipo_precio", catalogs.PRICE_TYPES, "catálogo 16"
        ),
        unit_price=r.decimal(item, "precio_unitario", f"{p}.precio_unitario"),
        affectation=affectation,
        igv_base=r.decimal(item, "total_base_igv", f"{p}.total_base_igv"),
        igv_percent=r.decimal(item, "porcentaje_igv", f"{p}.porcentaje_igv"),
        igv=r.decimal(item, "total_igv", f"{p}.total_igv"),
        taxes=r.decimal(item, "total_impuestos", f"{p}.total_impuestos"),
        value=r.decimal(item, "total_valor_item", f"{p}.total_valor_item"),
        total=r.decimal(item, "total_item", f"{p}.total_item"),
        icbper=r.decimal(
            item, "total_impuestos_bolsa_plastica", f"{p}.total_impuestos_bolsa_plastica", required=False
        ),
        internal_code=r.text(item, "codigo_interno", f"{p}.codigo_interno", required=False, max_length=30),
        sunat_code=str(sunat_code).strip() if isinstance(sunat_code, str | int) else "",
    )


def _with_detraction_legend(legends: tuple[Legend, ...]) -> tuple[Legend, ...]:
    """Add legend 2006 ("Operación sujeta a detracción") when the client did not send it.

    The real services leave it to the client (reference §4.8 row 13) and SUNAT then only observes its
    absence (4265); adding it costs nothing and keeps the CDR clean. A legend 2006 the client sends is
    kept as is.
    """
    if any(legend.code == DETRACTION_LEGEND for legend in legends):
        return legends
    return (*legends, Legend(DETRACTION_LEGEND, catalogs.LEGENDS[DETRACTION_LEGEND]))


def _read_legends(r: Reader, body: Mapping[str, Any]) -> tuple[Legend, ...]:
    legends = []
    seen = set()
    for i, legend in enumerate(r.array(body, "leyendas", "leyendas", required=False)):
        p = f"leyendas.{i}"
        if not isinstance(legend, Mapping):
            r.error(p, f"La leyenda {p} debe ser un objeto con codigo y valor.")
            continue
        code = r.code(legend, "codigo", f"{p}.codigo", catalogs.LEGENDS, "catálogo 52")
        text = r.text(legend, "valor", f"{p}.valor", max_length=200)
        if code in seen:
            r.error(f"{p}.codigo", f"La leyenda {code} está repetida.")
        seen.add(code)
        legends.append(Legend(code, text))
    return tuple(legends)


def _read_totals(r: Reader, body: Mapping[str, Any], lines: tuple[Line, ...]) -> Totals:
    """Header totals; optional ones the client leaves out are taken from the lines."""
    computed = sunat_totals.compute_totals(lines)
    p = "totales"

    def optional(key: str, fallback: Decimal) -> Decimal:
        if r.has(body, key):
            return r.decimal(body, key, f"{p}.{key}")
        return fallback

    total = r.decimal(body, "total_venta", f"{p}.total_venta")
    return Totals(
        export=optional("total_exportacion", computed.export),
        taxed=r.decimal(body, "total_operaciones_gravadas", f"{p}.total_operaciones_gravadas"),
        unaffected=optional("total_operaciones_inafectas", computed.unaffected),
        exonerated=optional("total_operaciones_exoneradas", computed.exonerated),
        free=optional("total_operaciones_gratuitas", computed.free),
        igv=r.decimal(body, "total_igv", f"{p}.total_igv"),
        igv_free=optional("total_igv_operaciones_gratuitas", computed.igv_free),
        icbper=optional("total_impuestos_bolsa_plastica", computed.icbper),
        taxes=r.decimal(body, "total_impuestos", f"{p}.total_impuestos"),
        value=r.decimal(body, "total_valor", f"{p}.total_valor"),
        subtotal=optional("subtotal_venta", total),
        total=total,
    )


def _check_customer(doc_type: str, operation_type: str, customer: Party) -> None:
    p = "datos_del_cliente_o_receptor"
    description = catalogs.IDENTITY_TYPES.get(customer.identity_type, customer.identity_type)
    if doc_type == "01" and operation_type == "0101" and customer.identity_type != "6":
        raise field_error(
            f"{p}.codigo_tipo_documento_identidad",
            f"El tipo doc. identidad {description} del cliente no es válido.",
            "INVALID_CUSTOMER",
        )
    if operation_type in catalogs.EXPORT_OPERATION_TYPES and customer.identity_type == "6":
        raise field_error(
            f"{p}.codigo_tipo_documento_identidad",
            "En una exportación el cliente no puede identificarse con RUC.",
            "INVALID_CUSTOMER",
        )
    # The RUC check digit is left to the authority: SUNAT's test environment accepts any 11 digits.
    problem = identity_problem(customer.identity_type, customer.number, check_ruc_digit=False)
    if problem and customer.identity_type in {"6"}:
        raise field_error(f"{p}.numero_documento", problem, "INVALID_CUSTOMER")


def _check_line_rules(doc_type: str, operation_type: str, lines: tuple[Line, ...]) -> None:
    for line in lines:
        p = f"items.{line.index - 1}"
        free = catalogs.is_free(line.affectation)
        if free and line.price_type != "02":
            raise field_error(
                f"{p}.codigo_tipo_precio",
                f"El ítem {line.index} es gratuito (afectación {line.affectation}): "
                "codigo_tipo_precio debe ser 02.",
                "INVALID_FIELD",
            )
        if not free and line.price_type == "02":
            raise field_error(
                f"{p}.codigo_tipo_precio",
                f"El ítem {line.index} es oneroso: codigo_tipo_precio 02 es solo para ítems gratuitos.",
                "INVALID_FIELD",
            )
        if operation_type in catalogs.EXPORT_OPERATION_TYPES and line.affectation != "40" and not free:
            raise field_error(
                f"{p}.codigo_tipo_afectacion_igv",
                "En una operación de exportación los ítems deben tener afectación 40.",
                "INVALID_FIELD",
            )
        if (
            line.affectation == "40"
            and operation_type
            and operation_type not in catalogs.EXPORT_OPERATION_TYPES
        ):
            raise field_error(
                f"{p}.codigo_tipo_afectacion_igv",
                "La afectación 40 (exportación) requiere un tipo de operación de exportación (0200-0208).",
                "INVALID_FIELD",
            )
        if line.affectation == "17":
            raise field_error(
                f"{p}.codigo_tipo_afectacion_igv",
                "Las operaciones con IVAP (afectación 17) aún no están soportadas.",
                "UNSUPPORTED_BLOCK",
            )


def _check_amounts(lines: tuple[Line, ...], totals: Totals, issue_date: dt.date) -> None:
    """Every line and header amount against SUNAT's formulas and tolerances (``sunat.totals``)."""
    percents = ALLOWED_IGV_PERCENTS(issue_date)
    rate = icbper_rate(issue_date)
    discrepancies = []
    for i, line in enumerate(lines):
        discrepancies += sunat_totals.check_line(line, i, allowed_percents=percents, icbper_rate=rate)
    discrepancies += sunat_totals.check_totals(lines, totals)
    if discrepancies:
        errors = [FieldError(d.field, d.message) for d in discrepancies]
        first = discrepancies[0]
        raise validation_error(
            f"Los montos no cuadran: {first.message}"
            + (f" (y {len(discrepancies) - 1} diferencia(s) más)" if len(discrepancies) > 1 else ""),
            "TOTALS_MISMATCH",
            errors,
        )


def _check_note_reference(series: str, affected: AffectedDocument) -> None:
    if series[0] == "F" and affected.doc_type != "01":
        raise field_error(
            "documento_afectado.codigo_tipo_documento",
            "Una nota de serie F solo puede modificar una factura (tipo 01).",
            "INVALID_REFERENCE",
        )
    if series[0] == "B" and affected.doc_type not in ("03", "12"):
        raise field_error(
            "documento_afectado.codigo_tipo_documento",
            "Una nota de serie B solo puede modificar una boleta (tipo 03).",
            "INVALID_REFERENCE",
        )


def round_totals(totals: Totals) -> Totals:
    """Totals with every amount at two decimals (as stored and written to the XML)."""
    return Totals(**{name: round2(getattr(totals, name)) for name in Totals.__dataclass_fields__})
