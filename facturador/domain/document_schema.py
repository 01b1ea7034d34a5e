"""The declared body of ``POST /api/documents``: every field the service reads, once.

:data:`DOCUMENT` declares the fields (:mod:`facturador.domain.fields`): types, lengths, bounds and
catalogs, checked in one pass (:func:`facturador.domain.document_input.parse_document` reads a body with
it) and published as the request schema of ``/openapi.json``. Lengths are SUNAT's maxima (its validation
rules, by error code; the table with sources is in ``docs/api_contract.md``); fields SUNAT's XML does not
carry are bounded by the service. The blocks other bodies share (:data:`CUSTOMER`, :data:`AMOUNT`,
:data:`EXTERNAL_ID`, :data:`SERIES`...) are declared here too.

Rows that say nothing are placeholders, kept in the stored body and left out of the XML: a discount or
charge of 0.00 with an empty or made-up code, an item attribute without a value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from facturador.domain import idempotency
from facturador.domain.fields import Boolean, Code, Date, List, Number, Object, Placeholder, Text, Time
from facturador.domain.reader import Reader
from sunat import catalogs
from sunat.rates import PERCEPTION_PERCENTS
from sunat.ubigeo import is_valid_ubigeo

SALES_DOCUMENT_TYPES = {"01": "Factura", "03": "Boleta", "07": "Nota de crédito", "08": "Nota de débito"}
PDF_FORMATS = {"a4", "ticket", "ticket_80", "ticket_58"}
MAX_PAYMENTS = 99
MAX_REFERENCES = 99  # related documents or guides per document
MAX_PREPAYMENTS = 99  # advances deducted by one invoice
MAX_ALLOWANCES = 99  # discounts or charges per list (SUNAT sets no limit; the service bounds the body)
MAX_ITEMS = 999  # the line number is n..3 (cbc:ID of InvoiceLine)
MAX_INSTALMENTS = 999  # Cuota001 ... Cuota999
CREDIT, CASH = "02", "01"  # codigo_condicion_de_pago

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
    """A discount or charge (``descuentos[]`` / ``cargos[]``) with codes of catalog 53."""
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
        # SUNAT's factura, boleta and note stylesheets do not check catalog 55 (their 4279 is commented
        # out): a code it does not list (3000 "Garantía", as real clients send) is taken as SUNAT takes it
        "codigo": Text(
            "Código del dato (catálogo 55; SUNAT acepta también uno que el catálogo no lista).",
            required=True,
            max_length=10,
            pattern=r"\s*[0-9A-Za-z]{1,8}\s*",
            pattern_message="El campo {path} debe ser un código de letras o dígitos (catálogo 55).",
            example="5010",
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
    """``percepcion`` / ``retencion`` : codigo, porcentaje, monto, base."""
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
                "enviar_email": Boolean(
                    "Enviar el PDF, el XML y el CDR al correo del cliente (correo_electronico) por el "
                    "servidor SMTP de la empresa; no si se omite."
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
