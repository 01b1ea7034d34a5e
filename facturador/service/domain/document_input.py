"""The body of ``POST /api/documents`` (reference §4.1–4.7): Spanish keys in, a checked request out.

Everything that can be checked without the database is checked here: types, required keys, SUNAT
catalogs, identity of the customer, ubigeo, and every line and header amount against SUNAT's
formulas (``facturador.sunat.totals``). What needs the database (series, numbers, the affected
document) is checked by ``facturador.service.domain.issuing``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from facturador.service.domain.model import AffectedDocument, Legend, Line, Party, Totals
from facturador.service.domain.reader import Reader
from facturador.service.errors import FieldError, ServiceError, field_error, validation_error
from facturador.sunat import catalogs
from facturador.sunat import totals as sunat_totals
from facturador.sunat.identity import identity_problem
from facturador.sunat.money import round2
from facturador.sunat.rates import ALLOWED_IGV_PERCENTS, icbper_rate
from facturador.sunat.series import is_valid_series
from facturador.sunat.ubigeo import is_valid_ubigeo

SALES_DOCUMENT_TYPES = {"01": "Factura", "03": "Boleta", "07": "Nota de crédito", "08": "Nota de débito"}
PDF_FORMATS = {"a4", "ticket", "ticket_80", "ticket_58"}

#: Blocks of reference §4.5 that a later issue builds; refused until then rather than left out of the XML.
PENDING_BLOCKS = (
    "detraccion",
    "descuentos",
    "cargos",
    "anticipos",
    "percepcion",
    "retencion",
    "guias",
    "relacionados",
    "cuotas",
    "pagos",
)
PENDING_ITEM_BLOCKS = ("descuentos", "cargos", "datos_adicionales", "total_isc", "total_otros_impuestos")
PENDING_TOTALS = ("total_descuentos", "total_cargos", "total_anticipos", "total_isc", "total_otros_impuestos")
BOLETA_IDENTIFICATION_THRESHOLD = Decimal("700")


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

    @property
    def is_note(self) -> bool:
        return self.doc_type in ("07", "08")


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

    if payment_condition == "02":
        raise field_error(
            "codigo_condicion_de_pago",
            "El pago al crédito (codigo_condicion_de_pago 02 con cuotas) aún no está soportado.",
            "UNSUPPORTED_BLOCK",
        )
    if not is_valid_series(doc_type, series):
        raise field_error("serie_documento", f"La serie ingresada {series}, es incorrecta.", "INVALID_SERIES")
    _check_customer(doc_type, operation_type, customer)
    _check_line_rules(doc_type, operation_type, lines)
    totals = _read_totals(r, totals_body, lines)
    r.raise_if_errors()
    _check_amounts(lines, totals, issue_date)
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
        legends=legends,
        additional_information=additional_information,
        send_xml_signed=send_xml_signed,
        format_pdf="ticket" if format_pdf == "ticket_80" else format_pdf,
        note_type=note_type,
        note_reason=note_reason,
        affected_external_id=affected_external_id,
        affected=affected,
        raw=dict(body),
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
