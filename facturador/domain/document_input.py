"""The body of ``POST /api/documents`` (reference §4.1–4.7): Spanish keys in, a checked request out.

:data:`DOCUMENT` declares every field the service reads (:mod:`facturador.domain.fields`): types,
lengths, bounds and catalogs, checked in one pass and published as the request schema of
``/openapi.json``. What depends on other fields is checked here after that pass: codes of the document
type, identity of the customer, ubigeo, and every line and header amount against SUNAT's formulas
(``sunat.totals``). What needs the database (series, numbers, the affected document) is checked by
:mod:`facturador.domain.documents`.

Scenario blocks:

* ``detraccion{codigo_tipo_detraccion (cat. 54), porcentaje, monto (soles), codigo_metodo_pago (cat. 59),
  cuenta_bancaria}``: required by operations 1001-1003 and allowed only with them (1002 needs code 004,
  1003 code 028, 1004 code 027 and the trip). Legend 2006 is added when missing.
* ``codigo_condicion_de_pago`` "02" with ``cuotas[{fecha (≥ fecha_de_emision), codigo_tipo_moneda (= the
  document's), monto, codigo_metodo_de_pago?}]``: at least one; Σ monto = total − detraction (converted
  with ``factor_tipo_de_cambio`` outside soles) within a cent. Cuotas with "01" are refused. Notes with
  instalments: a credit note of type 13 (ajuste de montos y/o fechas de pago) carries condition 02 and
  the factura's new ``cuotas``, with a total of zero (SUNAT 3257, 3259, 3315); any other note on credit
  carries instalments that add up to its total.
* ``detraccion`` of operation 1004 (cargo transport) also carries the trip: ``detalle_viaje``,
  ``direccion_origen``/``ubigeo_origen``, ``direccion_destino``/``ubigeo_destino`` (catalog 13) and the
  three reference values (SUNAT 3116-3126).
* ISC and other taxes on the items (:data:`ISC_FIELDS`): ``codigo_tipo_sistema_isc`` (catalog 08),
  ``total_base_isc``, ``porcentaje_isc``, ``total_isc`` (inside ``total_base_igv``) and
  ``total_base_otros_impuestos``, ``porcentaje_otros_impuestos``, ``total_otros_impuestos``, with their
  header totals; checked by ``sunat.totals`` (3108, 3109, 3104, 2373, 2041, 3223, 3272, 3296-3299).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from facturador.domain import idempotency
from facturador.domain.fields import (
    Boolean,
    Code,
    Date,
    List,
    Number,
    Object,
    Placeholder,
    Text,
    Time,
)
from facturador.domain.reader import Reader
from facturador.errors import FieldError, ServiceError, field_error, validation_error
from facturador.issued import (
    AffectedDocument,
    AllowanceCharge,
    CargoTrip,
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
)
from sunat import catalogs
from sunat import totals as sunat_totals
from sunat.identity import identity_problem
from sunat.money import round2
from sunat.rates import ALLOWED_IGV_PERCENTS, PERCEPTION_PERCENTS, icbper_rate
from sunat.series import is_valid_series
from sunat.ubigeo import is_valid_ubigeo

SALES_DOCUMENT_TYPES = {"01": "Factura", "03": "Boleta", "07": "Nota de crédito", "08": "Nota de débito"}
PDF_FORMATS = {"a4", "ticket", "ticket_80", "ticket_58"}

PERCEPTION_OPERATION = "2001"  # catalog 51: operación sujeta a percepción
PERCEPTION_LEGEND = "2000"  # catalog 52: COMPROBANTE DE PERCEPCIÓN
MAX_PAYMENTS = 99
PLATE_PROPERTY = "5010"  # catalog 55: Número de placa (top-level numero_de_placa)
MAX_REFERENCES = 99  # related documents or guides per document
MAX_PREPAYMENTS = 99  # advances deducted by one invoice
MAX_ALLOWANCES = 99  # discounts or charges per list (SUNAT sets no limit; the service bounds the body)
BOLETA_IDENTIFICATION_THRESHOLD = Decimal("700")
#: Operation 1004 (cargo transport) also needs the trip (origin, destination, reference values).
CARGO_DETRACTION_OPERATION = "1004"
DETRACTION_LEGEND = "2006"  # catalog 52: "Operación sujeta a detracción"
MAX_ITEMS = 999  # the line number is n..3 (cbc:ID of InvoiceLine)
MAX_INSTALMENTS = 999  # Cuota001 ... Cuota999
CENT = Decimal("0.01")
PEN = "PEN"
CREDIT, CASH = "02", "01"  # codigo_condicion_de_pago
#: Credit note type 13 (catalog 09): ajustes – montos y/o fechas de pago of a factura on credit.
ADJUSTMENT_NOTE = "13"

# ----------------------------------------------------------------------------------------------------
# The declared body. Lengths are SUNAT's maxima (its validation rules, by error code; the table with
# sources is in docs/api_contract.md); fields SUNAT's XML does not carry are bounded by the service.

#: Amounts: n(12,2). Quantities and unit values: n(12,10). Percentages: n(3,5).
AMOUNT = Number(integer_digits=12, decimals=2)
UNIT_VALUE = Number(integer_digits=12, decimals=10)
PERCENT = Number(integer_digits=3, decimals=5)
#: The public id of a stored document (a UUID here; the column holds 36 characters).
EXTERNAL_ID = Text("El código externo (external_id) de un documento.", max_length=36)
NAME = Text(max_length=1500)  # 2022 / 4092: RegistrationName and trade names, up to 1500
SERIES = Text(max_length=4, upper=True)  # an4: F###, B###, or 4 digits (contingency)

CUSTOMER = Object(
    name="Customer",
    description="El cliente o receptor (datos_del_cliente_o_receptor).",
    required=True,
    fields={
        "codigo_tipo_documento_identidad": Code(
            "Tipo de documento de identidad.",
            required=True,
            codes=catalogs.IDENTITY_TYPES,
            catalog="catálogo 06",
            upper=True,
        ),
        "numero_documento": Text("Número de documento.", required=True, max_length=15),  # 2802
        "apellidos_y_nombres_o_razon_social": NAME.but(description="Nombre o razón social.", required=True),
        "codigo_pais": Text(
            "País (ISO 3166-1 alfa-2); PE si se omite.",
            pattern="^([A-Za-z]{2})?$",
            pattern_message="El campo {path} debe ser un código de país de 2 letras.",
            upper=True,
        ),
        "ubigeo": Text(
            "Ubigeo INEI de 6 dígitos.",
            pattern="^([0-9]{6})?$",
            pattern_message="El código ubigeo debe contener 6 dígitos",
            check=lambda code: None if is_valid_ubigeo(code) else "El código ubigeo es incorrecto",
        ),
        "direccion": Text("Dirección.", max_length=200),  # 4236: AddressLine/Line up to 200
        # not in SUNAT's XML: bounded by the service (an e-mail path is at most 254 characters, RFC 5321)
        "correo_electronico": Text("Correo electrónico.", max_length=254),
        "telefono": Text("Teléfono.", max_length=30),
        "nombre_comercial": NAME.but(description="Nombre comercial."),
    },
)


def allowance_block(name: str, description: str, codes: frozenset[str]) -> Object:
    """A discount or charge (``descuentos[]`` / ``cargos[]``, reference §4.5) with codes of catalog 53."""
    shown = ", ".join(sorted(codes))
    return Object(
        name=name,
        description=description,
        fields={
            "codigo": Code(
                f"Código del catálogo 53 ({shown}).",
                required=True,
                codes=codes,
                catalog=f"catálogo 53 ({shown})",
            ),
            "descripcion": Text("Descripción (para el PDF).", max_length=100),
            "factor": PERCENT.but(description="Factor (0.10 = 10 %): monto = base x factor.", absent=None),
            "monto": AMOUNT.but(description="Monto.", required=True),
            "base": AMOUNT.but(description="Base del cargo o descuento.", absent=None),
        },
    )


#: A text or number that reads as zero (``0``, ``0.0``, ``"0.00"``).
_ZERO_PATTERN = "^0+(\\.0+)?$"
_ZERO = {"type": ["number", "string"], "minimum": 0, "maximum": 0, "pattern": _ZERO_PATTERN}
_ZERO_TEXT = re.compile(_ZERO_PATTERN)


def _is_zero(value: Any) -> bool:
    if isinstance(value, str):
        return _ZERO_TEXT.fullmatch(value) is not None
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def _reads_but(block: Object, *skipped: str) -> Callable[[Mapping[str, Any]], bool]:
    """Whether a row's fields but ``skipped`` read without a problem: a placeholder is left out only when
    the rest of it is right (an over-long description is refused, as in any row)."""
    rest = Object(fields={k: f.but(required=False) for k, f in block.fields.items() if k not in skipped})

    def reads(entry: Mapping[str, Any]) -> bool:
        reader = Reader()
        rest.read(reader, entry, "")
        return not reader.errors

    return reads


def _zero_allowance(block: Object) -> Placeholder:
    """A discount or charge of 0.00 whose code is none of the list's (an empty or made-up code, as forms
    send them): it changes no figure, and written it would be SUNAT's 3073 (no code) or 2954 / 4268
    (a code outside catalog 53 or the list's part of it). Kept in the stored body, left out of the XML."""
    code = block.fields["codigo"]
    assert isinstance(code, Code)
    codes = frozenset(code.codes)
    rest_reads = _reads_but(block, "codigo")

    def test(entry: Any) -> bool:
        if not isinstance(entry, Mapping) or not _is_zero(entry.get("monto")):
            return False
        code = entry.get("codigo")
        return not (isinstance(code, str | int) and str(code).strip() in codes) and rest_reads(entry)

    return Placeholder(test, {"type": "object", "properties": {"monto": _ZERO}, "required": ["monto"]})


def allowance_list(description: str, block: Object) -> List:
    return List(
        f"{description} Un monto 0 con otro código (un relleno) se guarda y no va en el XML.",
        item=block,
        max_items=MAX_ALLOWANCES,
        max_message="Se admiten como máximo {max} cargos o descuentos por lista.",
        placeholder=_zero_allowance(block),
    )


LINE_DISCOUNT = allowance_block(
    "LineDiscount", "Descuento del ítem: 00 afecta la base del IGV, 01 no.", catalogs.LINE_DISCOUNTS
)
LINE_CHARGE = allowance_block(
    "LineCharge", "Cargo del ítem: 47 afecta la base del IGV, 48 no.", catalogs.LINE_CHARGES
)
GLOBAL_DISCOUNT = allowance_block(
    "GlobalDiscount",
    "Descuento global: 02 afecta la base del IGV, 03 no; 04-06 anticipos (con el bloque anticipos).",
    catalogs.GLOBAL_DISCOUNTS,
)
GLOBAL_CHARGE = allowance_block(
    "GlobalCharge",
    "Cargo global: 49 afecta la base del IGV; 45 (FISE), 46 (recargo al consumo, propinas) y 50 no.",
    catalogs.GLOBAL_CHARGES,
)


ITEM_PROPERTY = Object(
    name="ItemProperty",
    description="Un dato adicional del ítem (catálogo 55), por ejemplo 5010 número de placa.",
    fields={
        "codigo": Code(
            "Código del catálogo 55.", required=True, codes=catalogs.ITEM_PROPERTIES, catalog="catálogo 55"
        ),
        "descripcion": Text("Nombre del dato.", required=True, max_length=100),
        "valor": Text("Valor.", max_length=100),
        "fecha_inicio": Date("Fecha de inicio."),
        "fecha_fin": Date("Fecha de fin."),
        "duracion": Number("Duración en días.", integer_digits=5, decimals=0, absent=None),
    },
)

_PROPERTY_REST_READS = _reads_but(ITEM_PROPERTY, "codigo", "valor", "fecha_inicio", "fecha_fin", "duracion")


def _empty_property(entry: Any) -> bool:
    """An attribute without a value, dates or duration (``{"codigo": "", "descripcion": "", "valor":
    ""}``, a form's empty row): it says nothing, whatever its code; written it would be an empty
    ``cbc:Value`` SUNAT refuses for the codes that need one (3064 for 3001, ...)."""
    return (
        isinstance(entry, Mapping)
        and all(entry.get(key) in (None, "") for key in ("valor", "fecha_inicio", "fecha_fin"))
        and entry.get("duracion") is None
        and _PROPERTY_REST_READS(entry)
    )


EMPTY_PROPERTY = Placeholder(
    _empty_property,
    {
        "type": "object",
        "properties": {
            **{
                key: {"type": ["string", "null"], "maxLength": 0}
                for key in ("valor", "fecha_inicio", "fecha_fin")
            },
            "duracion": {"type": "null"},
        },
    },
)

RELATED_BLOCK = Object(
    name="RelatedDocument",
    description="Un documento relacionado (catálogo 12; los anticipos 02 y 03 van en anticipos).",
    fields={
        "numero": Text("Número del documento.", required=True, max_length=30),  # 4010: 1-30, no spaces
        "codigo_tipo_documento": Code(
            "Tipo de documento (catálogo 12: 01, 04-09, 99).",
            required=True,
            codes=catalogs.RELATED_DOCUMENT_TYPES.keys() - {"02", "03", "10"},
            catalog="catálogo 12 (01, 04-09, 99)",
        ),
        "monto": AMOUNT.but(description="Monto (se imprime; no va en el XML)."),
    },
)

GUIDE_BLOCK = Object(
    name="Guide",
    description="Una guía de remisión del comprobante.",
    fields={
        "numero": Text(
            "Serie y número de la guía (T001-1, 0001-1, EG01-1); no va con external_id.", max_length=30
        ),
        "codigo_tipo_documento": Code(
            "09 guía del remitente, 31 guía del transportista; no va con external_id.",
            codes={"09", "31"},
            catalog="catálogo 01 (09, 31)",
        ),
        "external_id": Text(
            "O bien el código externo de una guía de esta empresa (toma su número y tipo).", max_length=36
        ),
    },
)

#: ISC (scheme 2000) and other taxes (9999) of an item: total = base x porcentaje / 100 (SUNAT 3108 /
#: 3109); the ISC enters the IGV base (total_base_igv = total_valor_item + total_isc, 3272).
ISC_FIELDS = {
    "codigo_tipo_sistema_isc": Code(
        "Sistema de cálculo del ISC: 01 al valor, 02 monto fijo, 03 precio de venta al público.",
        codes=catalogs.ISC_SYSTEMS,
        catalog="catálogo 08",
        message="El código {code} del campo {path} no existe en el catálogo 08 (01-03), regla SUNAT 2041.",
    ),
    "total_base_isc": AMOUNT.but(
        description="Base del ISC (01: el valor del ítem; 03: cantidad x precio al público)."
    ),
    "porcentaje_isc": PERCENT.but(description="Tasa del ISC (02: la tasa efectiva, ISC / base x 100)."),
    "total_isc": AMOUNT.but(description="ISC del ítem (forma parte de la base del IGV)."),
    "total_base_otros_impuestos": AMOUNT.but(description="Base de otros tributos (9999)."),
    "porcentaje_otros_impuestos": PERCENT.but(description="Porcentaje de otros tributos."),
    "total_otros_impuestos": AMOUNT.but(
        description="Otros tributos del ítem (no forman parte de la base del IGV)."
    ),
}

ITEM = Object(
    name="Item",
    description="Un ítem (línea) del comprobante; sus montos deben cuadrar con las fórmulas de SUNAT.",
    fields={
        "codigo_interno": Text("Código interno del producto.", max_length=30),  # 4269
        "descripcion": Text("Descripción.", required=True, max_length=500),  # 2027
        "codigo_producto_sunat": Text("Código de producto SUNAT (catálogo 25, UNSPSC).", max_length=8),
        "unidad_de_medida": Code(
            "Unidad de medida.", required=True, codes=catalogs.UNITS, catalog="catálogo 03", upper=True
        ),
        "cantidad": UNIT_VALUE.but(description="Cantidad.", required=True, minimum="positive"),  # 2025
        "valor_unitario": UNIT_VALUE.but(description="Valor unitario sin impuestos.", required=True),  # 2369
        "codigo_tipo_precio": Code(
            "Tipo de precio.", required=True, codes=catalogs.PRICE_TYPES, catalog="catálogo 16"
        ),
        "precio_unitario": UNIT_VALUE.but(
            description="Precio unitario con impuestos.", required=True
        ),  # 2367
        "codigo_tipo_afectacion_igv": Code(
            "Afectación del IGV.", required=True, codes=catalogs.AFFECTATIONS, catalog="catálogo 07"
        ),
        "total_base_igv": AMOUNT.but(description="Base imponible del IGV.", required=True),
        "porcentaje_igv": PERCENT.but(description="Porcentaje del IGV.", required=True),
        "total_igv": AMOUNT.but(description="IGV del ítem.", required=True),
        "total_impuestos_bolsa_plastica": AMOUNT.but(description="ICBPER del ítem."),
        **ISC_FIELDS,
        "total_impuestos": AMOUNT.but(description="Total de impuestos del ítem.", required=True),
        "total_valor_item": AMOUNT.but(description="Valor de venta del ítem.", required=True),
        "total_item": AMOUNT.but(description="Total del ítem.", required=True),
        "total_descuentos": AMOUNT.but(description="Suma de los descuentos del ítem (informativo)."),
        "total_cargos": AMOUNT.but(description="Suma de los cargos del ítem (informativo)."),
        "datos_adicionales": List(
            "Datos adicionales del ítem (catálogo 55). Uno sin valor, fechas ni duración (un relleno) "
            "se guarda y no va en el XML.",
            item=ITEM_PROPERTY,
            max_items=MAX_REFERENCES,
            max_message="Un ítem admite como máximo {max} datos adicionales.",
            placeholder=EMPTY_PROPERTY,
        ),
        "descuentos": allowance_list("Descuentos del ítem (catálogo 53: 00, 01).", LINE_DISCOUNT),
        "cargos": allowance_list("Cargos del ítem (catálogo 53: 47, 48).", LINE_CHARGE),
    },
)

#: Optional totals the client may leave out: they are then taken from the lines.
_FROM_LINES = AMOUNT.but(absent=None, description="Se calcula de los ítems si se omite.")
TOTALS = Object(
    name="Totals",
    description="Totales del comprobante.",
    required=True,
    fields={
        "total_exportacion": _FROM_LINES,
        "total_operaciones_gravadas": AMOUNT.but(required=True),
        "total_operaciones_inafectas": _FROM_LINES,
        "total_operaciones_exoneradas": _FROM_LINES,
        "total_operaciones_gratuitas": _FROM_LINES,
        "total_igv_operaciones_gratuitas": _FROM_LINES,
        "total_igv": AMOUNT.but(required=True),
        "total_impuestos_bolsa_plastica": _FROM_LINES,
        "total_base_isc": _FROM_LINES,
        "total_isc": _FROM_LINES,
        "total_base_otros_impuestos": _FROM_LINES,
        "total_otros_impuestos": _FROM_LINES,
        "total_impuestos": AMOUNT.but(required=True),
        "total_valor": AMOUNT.but(required=True),
        "subtotal_venta": AMOUNT.but(absent=None, description="total_venta si se omite."),
        "total_venta": AMOUNT.but(required=True),
        "total_pendiente_pago": AMOUNT.but(absent=None, description="Con cuotas: su suma."),
        "total_descuentos": AMOUNT.but(
            absent=None, description="Descuentos que no afectan la base (01 de ítems + 03 globales)."
        ),
        "total_anticipos": AMOUNT.but(absent=None, description="Suma de los anticipos deducidos (monto)."),
        "total_cargos": AMOUNT.but(
            absent=None, description="Cargos que no afectan la base (48 de ítems + 45, 46, 50 globales)."
        ),
    },
)

BAD_TRIP_UBIGEO = "El código ubigeo es incorrecto (catálogo 13, regla SUNAT 4200)"
TRIP_UBIGEO = Text(
    pattern="^([0-9]{6})?$",
    pattern_message="El campo ubigeo debe contener 6 dígitos",
    check=lambda code: None if is_valid_ubigeo(code) else BAD_TRIP_UBIGEO,
)

DETRACTION_BLOCK = Object(
    name="Detraction",
    description="Detracción (SPOT): solo con los tipos de operación 1001-1004, que la exigen.",
    fields={
        "codigo_tipo_detraccion": Code(
            "Bien o servicio sujeto a detracción.",
            required=True,
            codes=catalogs.DETRACTION_TYPES,
            catalog="catálogo 54",
            digits=3,
        ),
        "porcentaje": PERCENT.but(description="Porcentaje.", required=True, minimum="positive", maximum=100),
        "monto": AMOUNT.but(description="Monto en soles.", required=True, minimum="positive"),
        "codigo_metodo_pago": Code(
            "Medio de pago.", required=True, codes=catalogs.PAYMENT_MEANS, catalog="catálogo 59", digits=3
        ),
        # PayeeFinancialAccount/cbc:ID: SUNAT checks no length (Banco de la Nación accounts have 11 digits)
        "cuenta_bancaria": Text("Cuenta de detracciones.", required=True, max_length=30),
        # operation 1004 (cargo transport) only: the trip, written on every line (cac:Delivery)
        "detalle_viaje": Text("Detalle del viaje (solo operación 1004).", max_length=100),  # 4271
        "direccion_origen": Text("Dirección del punto de origen (1004).", max_length=200),  # 4236
        "direccion_destino": Text("Dirección del punto de destino (1004).", max_length=200),
        "ubigeo_origen": TRIP_UBIGEO.but(description="Ubigeo del punto de origen (1004)."),
        "ubigeo_destino": TRIP_UBIGEO.but(description="Ubigeo del punto de destino (1004)."),
        "valor_referencial_servicio_transporte": AMOUNT.but(
            absent=None, description="Valor referencial del servicio de transporte (1004)."
        ),
        "valor_referencia_carga_efectiva": AMOUNT.but(
            absent=None, description="Valor referencial sobre la carga efectiva (1004)."
        ),
        "valor_referencial_carga_util": AMOUNT.but(
            absent=None, description="Valor referencial sobre la carga útil nominal (1004)."
        ),
    },
)

INSTALMENT = Object(
    name="Instalment",
    description="Una cuota de una venta al crédito.",
    fields={
        "fecha": Date("Vencimiento (no antes de la emisión).", required=True),
        "codigo_tipo_moneda": Code(
            "Moneda (la del comprobante).",
            required=True,
            codes=catalogs.CURRENCIES,
            catalog="catálogo 02",
            upper=True,
        ),
        "monto": AMOUNT.but(description="Monto de la cuota.", required=True, minimum="positive"),
        "codigo_metodo_de_pago": Text("Método de pago (no va en el XML).", max_length=30),
    },
)

PREPAYMENT = Object(
    name="Prepayment",
    description="Un comprobante de anticipo que esta factura deduce (con un descuento global 04, 05 o 06).",
    fields={
        "numero": Text(
            "Serie y número del anticipo (F001-9, B001-3).",
            required=True,
            pattern="^([FB][0-9A-Z]{3}|[0-9]{1,4})-[0-9]{1,8}$",
            pattern_message="El campo {path} debe ser SERIE-NUMERO (por ejemplo F001-9), regla SUNAT 2521.",
            upper=True,
        ),
        "codigo_tipo_documento": Code(
            "02 factura de anticipo, 03 boleta de anticipo.",
            required=True,
            codes={"02", "03"},
            catalog="catálogo 12 (02, 03)",
        ),
        "monto": AMOUNT.but(
            description="Monto anticipado que se deduce (valor).", required=True, minimum="positive"
        ),
        "total": AMOUNT.but(description="Importe total del comprobante de anticipo."),
    },
)

PAYMENT = Object(
    name="Payment",
    description="Un pago recibido por la venta (no va en el XML; se guarda, se imprime y se lista).",
    fields={
        "codigo_metodo_pago": Code(
            "Método de pago (01 efectivo, 02 tarjeta de crédito, 03 débito, 04 transferencia, ...).",
            required=True,
            codes=catalogs.PAYMENT_METHODS,
            catalog="métodos de pago del servicio",
        ),
        "codigo_destino_pago": Text("Destino: cash (caja, si se omite) o la cuenta bancaria.", max_length=50),
        "referencia": Text("Referencia (número de operación, voucher).", max_length=100),
        "monto": AMOUNT.but(description="Monto pagado.", required=True, minimum="positive"),
    },
)


def withholding_block(name: str, description: str, codes: frozenset[str] | set[str]) -> Object:
    """``percepcion`` / ``retencion`` (reference §4.5): codigo, porcentaje, monto, base."""
    return Object(
        name=name,
        description=description,
        fields={
            "codigo": Code("Código del catálogo 53.", required=True, codes=codes, catalog="catálogo 53"),
            "porcentaje": PERCENT.but(description="Porcentaje.", required=True, minimum="positive"),
            "monto": AMOUNT.but(description="Monto.", required=True, minimum="positive"),
            "base": AMOUNT.but(description="Base (el importe total de la venta).", required=True),
        },
    )


PERCEPTION_BLOCK = withholding_block(
    "Perception",
    "Percepción del IGV (tipo de operación 2001, al contado; montos en soles): 51 venta interna 2 %, "
    "52 combustibles 1 %, 53 tasa especial 0.5 %.",
    set(PERCEPTION_PERCENTS),
)
RETENTION_BLOCK = withholding_block(
    "Retention", "Retención del IGV (código 62, 3 %): el cliente, agente de retención, con RUC.", {"62"}
)

LEGEND = Object(
    name="Legend",
    description="Una leyenda (cbc:Note); la 1000 (monto en letras) se agrega si falta.",
    fields={
        "codigo": Code("Código.", required=True, codes=catalogs.LEGENDS, catalog="catálogo 52"),
        "valor": Text("Texto.", required=True, max_length=200),  # 3006
    },
)

AFFECTED = Object(
    name="AffectedDocument",
    description="El documento que modifica una nota: su external_id, o su tipo, serie y número.",
    fields={
        "external_id": EXTERNAL_ID,
        "codigo_tipo_documento": Code(
            "Tipo de documento.", codes={"01", "03", "12"}, catalog="catálogo 01 (01, 03, 12)"
        ),
        "serie_documento": SERIES,
        "numero_documento": Text(
            "Número (hasta 8 dígitos).",
            pattern="^[0-9]{0,8}$",
            pattern_message="El campo {path} debe ser numérico (hasta 8 dígitos).",
        ),
    },
)

DOCUMENT = Object(
    name="DocumentBody",
    description=(
        "Factura (01), boleta (03), nota de crédito (07) o de débito (08). Las claves desconocidas se "
        "guardan sin leer, dentro del límite del cuerpo. Todo texto debe poder escribirse en XML (sin "
        "caracteres de control salvo tabulador y saltos de línea)."
    ),
    required=True,
    fields={
        "codigo_tipo_documento": Code(
            "Tipo de comprobante.",
            required=True,
            codes=SALES_DOCUMENT_TYPES,
            catalog="catálogo 01 (01, 03, 07, 08)",
        ),
        "serie_documento": SERIES.but(
            description="Serie registrada para el tipo de comprobante.", required=True
        ),
        "numero_documento": Text(
            "# para el siguiente correlativo, o un número de 1 a 99999999.",
            required=True,
            pattern="^(#|[0-9]{1,8})$",
            pattern_message="El campo {path} debe ser # o un número entre 1 y 99999999.",
            check=lambda text: (
                None
                if text == "#" or int(text) > 0
                else "El campo {path} debe ser # o un número entre 1 y 99999999."
            ),
        ),
        "fecha_de_emision": Date("Fecha de emisión.", required=True),
        "hora_de_emision": Time("Hora de emisión.", required=True),
        "fecha_de_vencimiento": Date("Fecha de vencimiento."),
        "codigo_tipo_operacion": Code(
            "Tipo de operación (obligatorio salvo en notas).",
            codes=catalogs.OPERATION_TYPES,
            catalog="catálogo 51",
        ),
        "codigo_tipo_moneda": Code(
            "Moneda.", required=True, codes=catalogs.CURRENCIES, catalog="catálogo 02 (ISO 4217)", upper=True
        ),
        "factor_tipo_de_cambio": Number(
            "Tipo de cambio (1 si se omite).", integer_digits=6, decimals=6, minimum="positive", absent=None
        ),
        "numero_orden_de_compra": Text("Orden de compra.", max_length=20),  # 4233
        idempotency.BODY_KEY: idempotency.KEY,
        "codigo_condicion_de_pago": Code(
            "01 contado (si se omite) o 02 crédito (con cuotas).",
            codes={CASH, CREDIT},
            message="El campo {path} debe ser 01 (Contado) o 02 (Crédito).",
        ),
        "detraccion": DETRACTION_BLOCK,
        "relacionados": List(
            "Documentos relacionados (catálogo 12).",
            item=RELATED_BLOCK,
            max_items=MAX_REFERENCES,
            max_message="Se admiten como máximo {max} documentos relacionados.",
        ),
        "guias": List(
            "Guías de remisión (09 remitente, 31 transportista).",
            item=GUIDE_BLOCK,
            max_items=MAX_REFERENCES,
            max_message="Se admiten como máximo {max} guías.",
        ),
        "numero_de_placa": Text(
            "Número de placa del vehículo: se agrega a cada ítem como dato adicional 5010.", max_length=100
        ),
        "percepcion": PERCEPTION_BLOCK,
        "retencion": RETENTION_BLOCK,
        "pagos": List(
            "Pagos recibidos (facturas y boletas); su suma no puede superar el importe total.",
            item=PAYMENT,
            max_items=MAX_PAYMENTS,
            max_message="Se admiten como máximo {max} pagos.",
        ),
        "pago_anticipado": Boolean(
            "El comprobante es un pago anticipado (se deducirá luego).", fallback=False
        ),
        "anticipos": List(
            "Anticipos deducidos (con el descuento global 04, 05 o 06 por su monto).",
            item=PREPAYMENT,
            max_items=MAX_PREPAYMENTS,
            max_message="Se admiten como máximo {max} anticipos.",
        ),
        "descuentos": allowance_list(
            "Descuentos globales (catálogo 53: 02, 03; 04-06 anticipos).", GLOBAL_DISCOUNT
        ),
        "cargos": allowance_list("Cargos globales (catálogo 53: 45, 46, 49, 50).", GLOBAL_CHARGE),
        "cuotas": List(
            "Cuotas de una venta al crédito (codigo_condicion_de_pago 02).",
            item=INSTALMENT,
            max_items=MAX_INSTALMENTS,
            max_message="Un comprobante admite como máximo {max} cuotas.",
        ),
        "datos_del_cliente_o_receptor": CUSTOMER,
        "items": List(
            "Ítems del comprobante.",
            required=True,
            item=ITEM,
            min_items=1,
            max_items=MAX_ITEMS,
            min_message="El comprobante debe tener al menos un ítem.",
            max_message="Un comprobante admite como máximo {max} ítems.",
        ),
        "totales": TOTALS,
        "leyendas": List(
            "Leyendas (cada código una vez).",
            item=LEGEND,
            max_items=len(catalogs.LEGENDS),
            max_message="Un comprobante admite como máximo {max} leyendas (una por código).",
        ),
        "acciones": Object(
            name="Actions",
            description="Qué hacer después de emitir.",
            fields={
                "enviar_xml_firmado": Boolean(
                    "Enviar a SUNAT (facturas y sus notas); sí si se omite.", fallback=True
                ),
                "formato_pdf": Code(
                    "Formato del PDF.",
                    codes=PDF_FORMATS,
                    lower=True,
                    message="El campo {path} debe ser a4, ticket o ticket_58.",
                ),
            },
        ),
        "informacion_adicional": Text("Observaciones para el PDF (no va en el XML).", max_length=1000),
        "codigo_tipo_nota": Code(
            "Tipo de nota (solo notas): catálogo 09 (crédito) o 10 (débito).",
            codes=catalogs.CREDIT_NOTE_TYPES.keys() | catalogs.DEBIT_NOTE_TYPES.keys(),
            catalog="catálogos 09 y 10",
        ),
        "motivo_o_sustento_de_nota": Text("Motivo de la nota (solo notas).", max_length=500),  # 2135
        "documento_afectado": AFFECTED,
    },
)


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
    detraction = _detraction(r, body, values["detraccion"], doc_type, operation_type)
    instalments = _instalments(r, body, values["cuotas"], payment_condition, currency, issue_date)
    customer = _customer(values["datos_del_cliente_o_receptor"])
    # real clients' conventions (free lines by their base, the bag tax outside the taxes) become SUNAT's
    lines = tuple(
        _with_plate(sunat_totals.sunat_line(_line(item, index)), values["numero_de_placa"])
        for index, item in enumerate(values["items"])
    )
    related, guides = _references(r, values["relacionados"], values["guias"])
    legends = _legends(r, values["leyendas"])
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
        _check_adjustment_note(payment_condition, instalments, affected)
    series = values["serie_documento"]
    if not is_valid_series(doc_type, series):
        raise field_error("serie_documento", f"La serie ingresada {series}, es incorrecta.", "INVALID_SERIES")
    _check_customer(doc_type, operation_type, customer)
    _check_line_rules(doc_type, operation_type, lines)
    _check_isc_lines(operation_type, lines)
    allowances = _allowances(values["descuentos"], values["cargos"])
    prepayments = _prepayments(values["anticipos"], doc_type, values["pago_anticipado"])
    _check_prepayment_discounts(allowances, prepayments)
    computed = sunat_totals.compute_totals(lines, allowances, prepaid=_prepaid(prepayments))
    totals = sunat_totals.sunat_totals(_totals(values["totales"], computed))
    _check_prepaid_amount(totals)
    _check_amounts(lines, totals, issue_date, allowances, prepayments, note=is_note, computed=computed)
    perception = _withholding(body, "percepcion", values["percepcion"], doc_type)
    retention = _withholding(body, "retencion", values["retencion"], doc_type)
    _check_withholdings(perception, retention, operation_type, instalments, customer, totals, currency)
    if detraction is not None:
        _check_detraction_amount(detraction, totals, currency)
    if doc_type == "07" and note_type == ADJUSTMENT_NOTE:
        _check_adjustment_note_total(totals)
    elif instalments:
        _check_instalment_amounts(
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
    # blocks whose amounts the client derived from its own total keep that total (see _with_sunat_figures)
    if not (instalments or detraction or perception or retention or values["pagos"]):
        lines, totals = _with_sunat_figures(lines, computed, allowances, prepayments, note=is_note)
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
        legends=_with_perception_legend(
            _with_detraction_legend(legends) if detraction is not None else legends, perception
        ),
        additional_information=values["informacion_adicional"],
        send_xml_signed=actions["enviar_xml_firmado"],
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
        payments=_payments(values["pagos"], doc_type, totals),
        perception=perception,
        retention=retention,
    )


def _withholding(
    body: Mapping[str, Any], key: str, values: Mapping[str, Any], doc_type: str
) -> Withholding | None:
    if not _is_present(body.get(key)) or not isinstance(body.get(key), Mapping):
        return None
    if doc_type not in ("01", "03"):
        raise field_error(key, "La percepción y la retención van en facturas y boletas.", "INVALID_FIELD")
    return Withholding(values["codigo"], values["porcentaje"], values["monto"], values["base"])


def _check_withholdings(
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


def _payments(entries: list[Mapping[str, Any]], doc_type: str, totals: Totals) -> tuple[Payment, ...]:
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


def _prepayments(entries: list[Mapping[str, Any]], doc_type: str, is_advance: bool) -> tuple[Prepayment, ...]:
    """``anticipos`` (reference §4.5): facturas and boletas only, each number once, 02 with a factura
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


def _check_prepayment_discounts(
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
    prepaid = _prepaid(prepayments)
    if abs(discounted - prepaid) > CENT:
        raise field_error(
            "descuentos",
            f"Los descuentos por anticipos ({discounted}) deben sumar el monto de los anticipos ({prepaid}).",
            "INVALID_FIELD",
        )


def _check_prepaid_amount(totals: Totals) -> None:
    """The advances cannot exceed what the invoice is worth before them (the payable would be negative)."""
    if totals.prepaid and totals.prepaid > totals.subtotal + totals.charges - totals.discounts:
        raise field_error(
            "totales.total_anticipos",
            f"Los anticipos ({round2(totals.prepaid)}) no pueden ser mayores que el importe de la factura "
            f"({round2(totals.subtotal + totals.charges - totals.discounts)}); regla SUNAT 3280.",
            "INVALID_FIELD",
        )


def _is_present(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, list | dict | str):
        return len(value) > 0
    if isinstance(value, int | float):
        return value != 0
    return True


def _affected(
    r: Reader, body: Mapping[str, Any], values: Mapping[str, Any]
) -> tuple[str | None, AffectedDocument | None]:
    """The document a note modifies: by ``external_id``, or by type, series and number."""
    p = "documento_afectado"
    r.require(p, _is_present(body.get(p)))
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


def _detraction(
    r: Reader, body: Mapping[str, Any], block: Mapping[str, Any], doc_type: str, operation_type: str
) -> Detraction | None:
    """The ``detraccion`` block (reference §4.5): required by operations 1001-1004 and only by them."""
    p = "detraccion"
    subject = operation_type in catalogs.DETRACTION_OPERATION_TYPES
    if not _is_present(body.get(p)):
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

    Required with 1004 (SUNAT 3116-3126, ``validateDetraction`` of the reference §4.9) and refused with
    the other operation types, whose XML has no place for it.
    """
    p = "detraccion"
    present = [key for key in TRIP_FIELDS if _is_present(sent.get(key)) or sent.get(key) == 0]
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


def _instalments(
    r: Reader,
    body: Mapping[str, Any],
    cuotas: list[Mapping[str, Any]],
    payment_condition: str,
    currency: str,
    issue_date: dt.date | None,
) -> tuple[Instalment, ...]:
    """``cuotas`` (reference §4.5): at least one with condition 02 (crédito), none with 01 (contado)."""
    present = _is_present(body.get("cuotas"))
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


def _check_adjustment_note(
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


def _check_adjustment_note_total(totals: Totals) -> None:
    """A credit note of type 13 changes no amount of the sale: its total is zero (SUNAT 3315)."""
    if totals.total != 0:
        raise field_error(
            "totales.total_venta",
            f"Si el tipo de nota de crédito es 13, el importe total debe ser cero, no {round2(totals.total)} "
            "(regla SUNAT 3315).",
        )


def _check_detraction_amount(detraction: Detraction, totals: Totals, currency: str) -> None:
    """The detraction (in soles) cannot exceed the sale; checked only when the sale is in soles too."""
    if currency == PEN and detraction.amount > totals.total:
        raise field_error(
            "detraccion.monto",
            f"El monto de la detracción ({round2(detraction.amount)}) no puede ser mayor que el importe "
            f"total ({round2(totals.total)}).",
        )


def _check_instalment_amounts(
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
    return Line(
        index=index + 1,
        description=item["descripcion"],
        unit=item["unidad_de_medida"],
        quantity=item["cantidad"],
        unit_value=item["valor_unitario"],
        price_type=item["codigo_tipo_precio"],
        unit_price=item["precio_unitario"],
        affectation=item["codigo_tipo_afectacion_igv"],
        igv_base=item["total_base_igv"],
        igv_percent=item["porcentaje_igv"],
        igv=item["total_igv"],
        taxes=item["total_impuestos"],
        value=item["total_valor_item"],
        total=item["total_item"],
        icbper=item["total_impuestos_bolsa_plastica"],
        isc_system=item["codigo_tipo_sistema_isc"] or "",
        isc_base=item["total_base_isc"],
        isc_percent=item["porcentaje_isc"],
        isc=item["total_isc"],
        other_base=item["total_base_otros_impuestos"],
        other_percent=item["porcentaje_otros_impuestos"],
        other=item["total_otros_impuestos"],
        internal_code=item["codigo_interno"],
        sunat_code=item["codigo_producto_sunat"],
        allowances=_allowances(item["descuentos"], item["cargos"]),
        properties=tuple(
            ItemProperty(
                code=entry["codigo"],
                name=entry["descripcion"],
                value=entry["valor"],
                start=entry["fecha_inicio"],
                end=entry["fecha_fin"],
                days=entry["duracion"],
            )
            for entry in item["datos_adicionales"]
        ),
    )


def _with_plate(line: Line, plate: str) -> Line:
    """The line with the top-level ``numero_de_placa`` as its attribute 5010, unless it has one."""
    if not plate or any(prop.code == PLATE_PROPERTY for prop in line.properties):
        return line
    plate_property = ItemProperty(PLATE_PROPERTY, catalogs.ITEM_PROPERTIES[PLATE_PROPERTY], plate)
    return replace(line, properties=(*line.properties, plate_property))


def _references(
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


def _allowances(
    discounts: list[Mapping[str, Any]], charges: list[Mapping[str, Any]]
) -> tuple[AllowanceCharge, ...]:
    """``descuentos`` then ``cargos`` (catalog 53); an absent base is the amount (factor 1)."""
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


def _with_perception_legend(
    legends: tuple[Legend, ...], perception: Withholding | None
) -> tuple[Legend, ...]:
    """Add legend 2000 (COMPROBANTE DE PERCEPCIÓN) to a sale with perception when the client did not."""
    if perception is None or any(legend.code == PERCEPTION_LEGEND for legend in legends):
        return legends
    return (*legends, Legend(PERCEPTION_LEGEND, catalogs.LEGENDS[PERCEPTION_LEGEND]))


def _with_detraction_legend(legends: tuple[Legend, ...]) -> tuple[Legend, ...]:
    """Add legend 2006 ("Operación sujeta a detracción") when the client did not send it.

    The real services leave it to the client (reference §4.8 row 13) and SUNAT then only observes its
    absence (4265); adding it costs nothing and keeps the CDR clean. A legend 2006 the client sends is
    kept as is.
    """
    if any(legend.code == DETRACTION_LEGEND for legend in legends):
        return legends
    return (*legends, Legend(DETRACTION_LEGEND, catalogs.LEGENDS[DETRACTION_LEGEND]))


def _legends(r: Reader, entries: list[Mapping[str, Any]]) -> tuple[Legend, ...]:
    legends = []
    seen = set()
    for i, legend in enumerate(entries):
        code = legend["codigo"]
        if code and code in seen:
            r.error(f"leyendas.{i}.codigo", f"La leyenda {code} está repetida.")
        seen.add(code)
        legends.append(Legend(code, legend["valor"]))
    return tuple(legends)


#: The ``totales`` key of each :class:`~facturador.issued.Totals` amount.
_TOTALS_KEYS = {
    "export": "total_exportacion",
    "taxed": "total_operaciones_gravadas",
    "unaffected": "total_operaciones_inafectas",
    "exonerated": "total_operaciones_exoneradas",
    "free": "total_operaciones_gratuitas",
    "igv": "total_igv",
    "igv_free": "total_igv_operaciones_gratuitas",
    "icbper": "total_impuestos_bolsa_plastica",
    "taxes": "total_impuestos",
    "value": "total_valor",
    "subtotal": "subtotal_venta",
    "total": "total_venta",
    "discounts": "total_descuentos",
    "charges": "total_cargos",
    "prepaid": "total_anticipos",
    "isc_base": "total_base_isc",
    "isc": "total_isc",
    "other_base": "total_base_otros_impuestos",
    "other": "total_otros_impuestos",
}
_AMOUNT_LIMIT = Decimal(10) ** AMOUNT.integer_digits


def _totals(values: Mapping[str, Any], computed: sunat_totals.DocumentTotals) -> Totals:
    """Header totals; optional ones the client leaves out are taken from ``computed`` (the lines, the
    global discounts and charges and the advances: ``sunat.totals.compute_totals``), and must fit
    n(12,2). ``subtotal_venta`` defaults to value + taxes."""
    amounts = {}
    for name, key in _TOTALS_KEYS.items():
        given = values[key]
        if given is None:
            if name == "subtotal":
                given = values["total_valor"] + values["total_impuestos"]
            else:
                given = getattr(computed, name)
            if abs(given) >= _AMOUNT_LIMIT:
                raise field_error(
                    f"totales.{key}",
                    f"El campo totales.{key} calculado de los ítems ({round2(given)}) está fuera de rango: "
                    f"admite hasta {AMOUNT.integer_digits} dígitos enteros.",
                )
        amounts[name] = given
    return Totals(**amounts)


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
        if line.affectation == "17" and any(other.affectation != "17" for other in lines):
            raise field_error(
                f"{p}.codigo_tipo_afectacion_igv",
                "Un comprobante con IVAP (afectación 17, venta de arroz pilado) lleva solo ítems con "
                "afectación 17.",
                "INVALID_FIELD",
            )


def _check_isc_lines(operation_type: str, lines: tuple[Line, ...]) -> None:
    """ISC and other taxes: not on free lines (not supported: SUNAT leaves their ISC out of the header),
    and an export operation takes no other taxes (SUNAT 3107). Their amounts are checked with the rest of
    the line (``sunat.totals.check_line``: 3223, 2373, 3104, 3108, 3109, 3272)."""
    for line in lines:
        p = f"items.{line.index - 1}"
        isc, other = sunat_totals.has_isc(line), sunat_totals.has_other_taxes(line)
        if (isc or other) and catalogs.is_free(line.affectation):
            raise field_error(
                f"{p}.{'total_isc' if isc else 'total_otros_impuestos'}",
                f"El ítem {line.index} es gratuito (afectación {line.affectation}): el servicio no admite "
                "ISC ni otros tributos en ítems gratuitos.",
                "INVALID_FIELD",
            )
        if other and operation_type in catalogs.EXPORT_OPERATION_TYPES:
            raise field_error(
                f"{p}.total_otros_impuestos",
                "Una exportación no lleva otros tributos (regla SUNAT 3107).",
                "INVALID_FIELD",
            )


def _prepaid(prepayments: tuple[Prepayment, ...]) -> Decimal:
    """PrepaidAmount: Σ of the advances' ``monto``."""
    return sum((prepayment.amount for prepayment in prepayments), Decimal("0"))


def _check_amounts(
    lines: tuple[Line, ...],
    totals: Totals,
    issue_date: dt.date,
    allowances: tuple[AllowanceCharge, ...],
    prepayments: tuple[Prepayment, ...] = (),
    *,
    note: bool = False,
    computed: sunat_totals.DocumentTotals | None = None,
) -> None:
    """Every line and header amount against SUNAT's formulas and tolerances (``sunat.totals``);
    ``computed`` is what ``compute_totals`` gave for these lines, when the caller has it."""
    percents = ALLOWED_IGV_PERCENTS(issue_date)
    rate = icbper_rate(issue_date)
    discrepancies = []
    for i, line in enumerate(lines):
        discrepancies += sunat_totals.check_line(
            line, i, allowed_percents=percents, icbper_rate=rate, note=note
        )
    discrepancies += sunat_totals.check_totals(
        lines, totals, allowances=allowances, prepaid=_prepaid(prepayments), computed=computed
    )
    if discrepancies:
        errors = [FieldError(d.field, f"{d.message} (regla SUNAT {d.code})") for d in discrepancies]
        first = discrepancies[0]
        raise validation_error(
            f"Los montos no cuadran: {first.message} (regla SUNAT {first.code})"
            + (f" (y {len(discrepancies) - 1} diferencia(s) más)" if len(discrepancies) > 1 else ""),
            "TOTALS_MISMATCH",
            errors,
        )


def _with_sunat_figures(
    lines: tuple[Line, ...],
    computed: sunat_totals.DocumentTotals,
    allowances: tuple[AllowanceCharge, ...],
    prepayments: tuple[Prepayment, ...],
    *,
    note: bool,
) -> tuple[tuple[Line, ...], Totals]:
    """The checked lines and totals with SUNAT's own figures: amounts a client sent within SUNAT's
    tolerance are accepted (:func:`_check_amounts`) and the document carries what SUNAT computes
    (``sunat.totals.sunat_figures`` per line, ``compute_totals`` for the header: ``computed``, the
    client's lines' totals, when SUNAT's lines are the client's).

    Not applied when the body carries instalments, a detraction, a perception, a retention or payments:
    their amounts were derived by the client from its own total (Σ cuotas = total - detraction to the
    cent, SUNAT 3319; the perception's base = the total, 2797), which a cent of difference would break,
    so such a document keeps the client's figures (already within SUNAT's tolerance). When every line is
    SUNAT's to the cent the lines are kept and only the header is summed from them: lines sold by a price
    with IGV keep their totals (a sale note's lines of 11.80 and 6.00 stay 17.80 in the factura made of
    it, where SUNAT's IGV of each line would give 17.79)."""
    figured = tuple(sunat_totals.sunat_figures(line, note=note) for line in lines)
    if all(_within_a_cent(given, sunat) for given, sunat in zip(lines, figured, strict=True)):
        figured = lines  # a price with IGV kept to the cent is a rounding, not a correction
    else:
        computed = sunat_totals.compute_totals(figured, allowances, prepaid=_prepaid(prepayments))
    return figured, Totals(**{name: getattr(computed, name) for name in Totals.__dataclass_fields__})


_FIGURES = ("value", "igv_base", "igv", "isc", "other", "taxes", "total")


def _within_a_cent(given: Line, sunat: Line) -> bool:
    """Every amount of the line ``given`` is SUNAT's to the cent (± 0.01)."""
    return all(abs(getattr(given, name) - getattr(sunat, name)) <= CENT for name in _FIGURES)


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
