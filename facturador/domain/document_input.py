"""``POST /api/documents``: Spanish keys in, a checked :class:`DocumentRequest` out.

:func:`parse_document` reads the body with its declaration
(:data:`~facturador.domain.document_schema.DOCUMENT`), then checks what depends on other fields: the
codes of the document type, the customer's identity, the note and the document it modifies, the
scenario blocks (:mod:`facturador.domain.document_blocks`) and every line and header amount
(:mod:`facturador.domain.document_amounts`). What needs the database (series, numbers, the affected
document) is checked by :mod:`facturador.domain.documents`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from facturador.domain.document_amounts import (
    advances_total,
    check_amounts,
    check_isc_lines,
    check_line_rules,
    check_prepaid_amount,
    header_totals,
    with_sunat_figures,
)
from facturador.domain.document_blocks import (
    ADJUSTMENT_NOTE,
    check_adjustment_note,
    check_adjustment_note_total,
    check_detraction_amount,
    check_instalment_amounts,
    check_prepayment_discounts,
    check_withholdings,
    is_present,
    read_allowances,
    read_detraction,
    read_instalments,
    read_legends,
    read_payments,
    read_prepayments,
    read_references,
    read_withholding,
    with_detraction_legend,
    with_perception_legend,
)
from facturador.domain.document_schema import CASH, DOCUMENT
from facturador.domain.reader import Reader
from facturador.errors import ServiceError, field_error
from facturador.issued import (
    AffectedDocument,
    AllowanceCharge,
    Detraction,
    Guide,
    Instalment,
    ItemProperty,
    Legend,
    Line,
    Party,
    Payment,
    Prepayment,
    RelatedDocument,
    Totals,
    Withholding,
    one_store_init,
)
from sunat import catalogs
from sunat import totals as sunat_totals
from sunat.identity import identity_problem
from sunat.series import is_valid_series

PLATE_PROPERTY = "5010"  # catalog 55: Número de placa (top-level numero_de_placa)
BOLETA_IDENTIFICATION_THRESHOLD = Decimal("700")


@one_store_init
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
    allowances: tuple[AllowanceCharge, ...] = ()  # global descuentos then cargos
    prepayments: tuple[Prepayment, ...] = ()  # anticipos deducted
    is_advance: bool = False  # pago_anticipado: this document is an advance payment
    related_documents: tuple[RelatedDocument, ...] = ()  # relacionados
    guides: tuple[Guide, ...] = ()  # guias
    payments: tuple[Payment, ...] = ()  # pagos
    perception: Withholding | None = None  # percepcion (operation 2001)
    retention: Withholding | None = None  # retencion (62)
    send_email: bool = False  # acciones.enviar_email: e-mail the files to the customer once issued

    @property
    def is_note(self) -> bool:
        return self.doc_type in ("07", "08")

    @property
    def payment_form(self) -> str:
        """SUNAT's FormaPago: ``Credito`` for a sale in instalments (condition 02), else ``Contado``."""
        return "Credito" if self.instalments else "Contado"


def parse_document(body: Any, *, today: dt.date) -> DocumentRequest:
    """Check a ``POST /api/documents`` body; raise ``ServiceError`` (4xx) listing what is wrong."""
    if not isinstance(body, Mapping):
        raise ServiceError(400, "El cuerpo de la petición debe ser un objeto JSON.", "BODY_NOT_OBJECT")
    r = Reader()
    values = DOCUMENT.read(r, body, "")
    doc_type = values["codigo_tipo_documento"]
    is_note = doc_type in ("07", "08")
    number_text = values["numero_documento"]
    number = int(number_text) if number_text and number_text != "#" else None
    issue_date = values["fecha_de_emision"]
    operation_type = ""
    if not is_note:
        operation_type = values["codigo_tipo_operacion"]
        r.require("codigo_tipo_operacion", bool(operation_type))
        allowed = catalogs.OPERATION_TYPES_BY_DOCUMENT.get(doc_type, frozenset(catalogs.OPERATION_TYPES))
        if operation_type and operation_type not in allowed:
            r.error(
                "codigo_tipo_operacion",
                f"El código {operation_type} del campo codigo_tipo_operacion no existe en el catálogo 51 "
                f"para el tipo de documento {doc_type or '?'}.",
            )
    currency = values["codigo_tipo_moneda"]
    exchange_rate = values["factor_tipo_de_cambio"]
    payment_condition = values["codigo_condicion_de_pago"] or CASH
    detraction = read_detraction(r, body, values["detraccion"], doc_type, operation_type)
    instalments = read_instalments(r, body, values["cuotas"], payment_condition, currency, issue_date)
    customer = _customer(values["datos_del_cliente_o_receptor"])
    # real clients' conventions (free lines by their base, the bag tax outside the taxes) become SUNAT's
    lines = tuple(sunat_totals.sunat_line(_line(item, index)) for index, item in enumerate(values["items"]))
    if values["numero_de_placa"]:
        lines = tuple(_with_plate(line, values["numero_de_placa"]) for line in lines)
    related, guides = read_references(r, values["relacionados"], values["guias"])
    legends = read_legends(r, values["leyendas"])
    actions = values["acciones"]
    note_type = note_reason = affected_external_id = None
    affected: AffectedDocument | None = None
    if is_note:
        note_type = values["codigo_tipo_nota"]
        r.require("codigo_tipo_nota", bool(note_type))
        note_catalog = catalogs.CREDIT_NOTE_TYPES if doc_type == "07" else catalogs.DEBIT_NOTE_TYPES
        if note_type and note_type not in note_catalog:
            r.error(
                "codigo_tipo_nota",
                f"El código {note_type} del campo codigo_tipo_nota no existe en el "
                f"{'catálogo 09' if doc_type == '07' else 'catálogo 10'}.",
            )
        note_reason = values["motivo_o_sustento_de_nota"]
        r.require("motivo_o_sustento_de_nota", bool(note_reason))
        affected_external_id, affected = _affected(r, body, values["documento_afectado"])
    r.raise_if_errors()
    assert issue_date is not None and values["hora_de_emision"] is not None

    if doc_type == "07" and note_type == ADJUSTMENT_NOTE:
        check_adjustment_note(payment_condition, instalments, affected)
    series = values["serie_documento"]
    if not is_valid_series(doc_type, series):
        raise field_error("serie_documento", f"La serie ingresada {series}, es incorrecta.", "INVALID_SERIES")
    _check_customer(doc_type, operation_type, customer)
    check_line_rules(doc_type, operation_type, lines)
    check_isc_lines(operation_type, lines)
    allowances = read_allowances(values["descuentos"], values["cargos"])
    prepayments = read_prepayments(values["anticipos"], doc_type, values["pago_anticipado"])
    check_prepayment_discounts(allowances, prepayments)
    computed = sunat_totals.compute_totals(lines, allowances, prepaid=advances_total(prepayments))
    totals = sunat_totals.sunat_totals(header_totals(values["totales"], computed))
    check_prepaid_amount(totals)
    exact = check_amounts(lines, totals, issue_date, allowances, prepayments, note=is_note, computed=computed)
    perception = read_withholding(body, "percepcion", values["percepcion"], doc_type)
    retention = read_withholding(body, "retencion", values["retencion"], doc_type)
    check_withholdings(perception, retention, operation_type, instalments, customer, totals, currency)
    if detraction is not None:
        check_detraction_amount(detraction, totals, currency)
    if doc_type == "07" and note_type == ADJUSTMENT_NOTE:
        check_adjustment_note_total(totals)
    elif instalments:
        check_instalment_amounts(
            values["totales"]["total_pendiente_pago"],
            instalments,
            totals,
            detraction,
            currency,
            exchange_rate,
        )
    if (
        doc_type == "03"
        and totals.total > BOLETA_IDENTIFICATION_THRESHOLD
        and customer.identity_type not in {"1", "4", "6", "7"}
        # an export boleta's customer is non-domiciled: SUNAT forbids only a RUC there (checked above)
        and not (operation_type in catalogs.EXPORT_OPERATION_TYPES and customer.identity_type == "0")
    ):
        description = catalogs.IDENTITY_TYPES.get(customer.identity_type, customer.identity_type)
        raise field_error(
            "datos_del_cliente_o_receptor.codigo_tipo_documento_identidad",
            f"El tipo doc. identidad {description} del cliente no es valido.",
            "INVALID_CUSTOMER",
        )
    if is_note and affected is not None:
        _check_note_reference(series, affected)
    # blocks whose amounts the client derived from its own total keep that total (see with_sunat_figures)
    if not (instalments or detraction or perception or retention or values["pagos"]):
        lines, totals = with_sunat_figures(
            lines, computed, allowances, prepayments, note=is_note, exact=exact
        )
    format_pdf = actions["formato_pdf"] or "a4"
    return DocumentRequest(
        doc_type=doc_type,
        series=series,
        number=number,
        issue_date=issue_date,
        issue_time=values["hora_de_emision"],
        due_date=values["fecha_de_vencimiento"],
        operation_type=operation_type,
        currency=currency,
        exchange_rate=exchange_rate if exchange_rate is not None else Decimal("1"),
        purchase_order=values["numero_orden_de_compra"],
        customer=customer,
        lines=lines,
        totals=totals,
        legends=with_perception_legend(
            with_detraction_legend(legends) if detraction is not None else legends, perception
        ),
        additional_information=values["informacion_adicional"],
        send_xml_signed=actions["enviar_xml_firmado"],
        send_email=bool(actions["enviar_email"]),
        format_pdf="ticket" if format_pdf == "ticket_80" else format_pdf,
        note_type=note_type,
        note_reason=note_reason,
        affected_external_id=affected_external_id,
        affected=affected,
        raw=dict(body),
        detraction=detraction,
        instalments=instalments,
        allowances=allowances,
        prepayments=prepayments,
        is_advance=bool(values["pago_anticipado"]),
        related_documents=related,
        guides=guides,
        payments=read_payments(values["pagos"], doc_type, totals),
        perception=perception,
        retention=retention,
    )


def _affected(
    r: Reader, body: Mapping[str, Any], values: Mapping[str, Any]
) -> tuple[str | None, AffectedDocument | None]:
    """The document a note modifies: by ``external_id``, or by type, series and number."""
    p = "documento_afectado"
    r.require(p, is_present(body.get(p)))
    if not isinstance(body.get(p), Mapping) or not body[p]:
        return None, None
    if values["external_id"]:
        return values["external_id"], None
    for key in ("codigo_tipo_documento", "serie_documento", "numero_documento"):
        r.require(f"{p}.{key}", bool(values[key]))
    return None, AffectedDocument(
        doc_type=values["codigo_tipo_documento"],
        series=values["serie_documento"],
        number=values["numero_documento"],
    )


def _customer(values: Mapping[str, Any]) -> Party:
    return Party(
        identity_type=values["codigo_tipo_documento_identidad"],
        number=values["numero_documento"],
        name=values["apellidos_y_nombres_o_razon_social"],
        country=values["codigo_pais"] or "PE",
        ubigeo=values["ubigeo"],
        address=values["direccion"],
        email=values["correo_electronico"],
        phone=values["telefono"],
        trade_name=values["nombre_comercial"],
    )


def _line(item: Mapping[str, Any], index: int) -> Line:
    # by position, in Line's order: a call of more than 15 keywords makes Python build a dict of them and
    # unpack it again (about a third of making a line); a test holds every field to its item key
    return Line(
        index + 1,  # index
        item["descripcion"],  # description
        item["unidad_de_medida"],  # unit
        item["cantidad"],  # quantity
        item["valor_unitario"],  # unit_value
        item["codigo_tipo_precio"],  # price_type
        item["precio_unitario"],  # unit_price
        item["codigo_tipo_afectacion_igv"],  # affectation
        item["total_base_igv"],  # igv_base
        item["porcentaje_igv"],  # igv_percent
        item["total_igv"],  # igv
        item["total_impuestos"],  # taxes
        item["total_valor_item"],  # value
        item["total_item"],  # total
        item["total_impuestos_bolsa_plastica"],  # icbper
        item["codigo_interno"],  # internal_code
        item["codigo_producto_sunat"],  # sunat_code
        read_allowances(item["descuentos"], item["cargos"]),  # allowances
        _properties(item["datos_adicionales"]),  # properties
        item["codigo_tipo_sistema_isc"] or "",  # isc_system
        item["total_base_isc"],  # isc_base
        item["porcentaje_isc"],  # isc_percent
        item["total_isc"],  # isc
        item["total_base_otros_impuestos"],  # other_base
        item["porcentaje_otros_impuestos"],  # other_percent
        item["total_otros_impuestos"],  # other
    )


def _properties(entries: list[Mapping[str, Any]]) -> tuple[ItemProperty, ...]:
    """An item's ``datos_adicionales`` (catalog 55)."""
    if not entries:  # most items
        return ()
    return tuple(
        ItemProperty(
            code=entry["codigo"],
            name=entry["descripcion"],
            value=entry["valor"],
            start=entry["fecha_inicio"],
            end=entry["fecha_fin"],
            days=entry["duracion"],
        )
        for entry in entries
    )


def _with_plate(line: Line, plate: str) -> Line:
    """The line with the top-level ``numero_de_placa`` as its attribute 5010, unless it has one."""
    if not plate or any(prop.code == PLATE_PROPERTY for prop in line.properties):
        return line
    plate_property = ItemProperty(PLATE_PROPERTY, catalogs.ITEM_PROPERTIES[PLATE_PROPERTY], plate)
    return replace(line, properties=(*line.properties, plate_property))


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
    shortest = 2 if doc_type == "08" else 3  # SUNAT's rule 2022 (a debit note's stylesheet takes 2)
    if len(customer.name) < shortest:
        raise field_error(
            f"{p}.apellidos_y_nombres_o_razon_social",
            f"El nombre o razón social del cliente debe tener al menos {shortest} caracteres "
            "(regla 2022 de SUNAT).",
            "INVALID_CUSTOMER",
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
