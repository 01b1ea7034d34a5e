"""SUNAT catalogs (``catálogos``) used across the project: one place for every code list."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum


@dataclass(frozen=True)
class TaxScheme:
    """A tax of catalog 05 as written in ``cac:TaxScheme``."""

    id: str
    name: str
    type_code: str


#: Catalog 05: tax schemes.
TAX_SCHEMES: dict[str, TaxScheme] = {
    s.id: s
    for s in (
        TaxScheme("1000", "IGV", "VAT"),
        TaxScheme("1016", "IVAP", "VAT"),
        TaxScheme("2000", "ISC", "EXC"),
        TaxScheme("7152", "ICBPER", "OTH"),
        TaxScheme("9995", "EXP", "FRE"),
        TaxScheme("9996", "GRA", "FRE"),
        TaxScheme("9997", "EXO", "VAT"),
        TaxScheme("9998", "INA", "FRE"),
        TaxScheme("9999", "OTROS", "OTH"),
    )
}

#: Catalog 08: ISC calculation systems (cbc:TierRange of the line's ISC subtotal, scheme 2000).
ISC_SYSTEMS: dict[str, str] = {
    "01": "Sistema al valor",
    "02": "Aplicación del monto fijo",
    "03": "Sistema de precios de venta al público",
}
#: Affectations whose line may carry ISC (SUNAT 3223: with 1000, 9997 or 9998; never with IVAP or export).
ISC_AFFECTATIONS = frozenset({"10", "20", "30"})

#: Catalog 07: IGV affectation types.
AFFECTATIONS: dict[str, str] = {
    "10": "Gravado - Operación Onerosa",
    "11": "Gravado - Retiro por premio",
    "12": "Gravado - Retiro por donación",
    "13": "Gravado - Retiro",
    "14": "Gravado - Retiro por publicidad",
    "15": "Gravado - Bonificaciones",
    "16": "Gravado - Retiro por entrega a trabajadores",
    "17": "Gravado - IVAP",
    "20": "Exonerado - Operación Onerosa",
    "21": "Exonerado - Transferencia gratuita",
    "30": "Inafecto - Operación Onerosa",
    "31": "Inafecto - Retiro por Bonificación",
    "32": "Inafecto - Retiro",
    "33": "Inafecto - Retiro por Muestras Médicas",
    "34": "Inafecto - Retiro por Convenio Colectivo",
    "35": "Inafecto - Retiro por premio",
    "36": "Inafecto - Retiro por publicidad",
    "37": "Inafecto - Transferencia gratuita",
    "40": "Exportación de Bienes o Servicios",
}

FREE_AFFECTATIONS = frozenset(
    {"11", "12", "13", "14", "15", "16", "21", "31", "32", "33", "34", "35", "36", "37"}
)
#: Affectations whose line IGV is base x rate (charged for 10, informative for the free 11-16, IVAP for 17).
IGV_BEARING_AFFECTATIONS = frozenset({"10", "11", "12", "13", "14", "15", "16", "17"})


def is_free(affectation: str) -> bool:
    """True for non-onerous (free) lines: their value is referential and not charged."""
    return affectation in FREE_AFFECTATIONS


def bears_igv(affectation: str) -> bool:
    """True when the line's IGV is base x rate (charged or, on free lines, informative)."""
    return affectation in IGV_BEARING_AFFECTATIONS


def tax_scheme_for(affectation: str) -> TaxScheme:
    """The tax scheme of a line's main subtotal for an affectation of catalog 07."""
    if affectation == "10":
        return TAX_SCHEMES["1000"]
    if affectation == "17":
        return TAX_SCHEMES["1016"]
    if affectation in FREE_AFFECTATIONS:
        return TAX_SCHEMES["9996"]
    if affectation == "20":
        return TAX_SCHEMES["9997"]
    if affectation == "30":
        return TAX_SCHEMES["9998"]
    if affectation == "40":
        return TAX_SCHEMES["9995"]
    raise KeyError(f"affectation {affectation!r} is not in catalog 07")


#: Document states of the service (``state_type_id``), with the descriptions real tenants return.
STATE_TYPES: dict[str, str] = {
    "01": "Registrado",
    "03": "Enviado",
    "05": "Aceptado",
    "07": "Observado",
    "09": "Rechazado",
    "11": "Anulado",
    "13": "Por anular",
}


class State(StrEnum):
    """The document states of :data:`STATE_TYPES` by name, each equal to its code (``State.ACCEPTED ==
    "05"``); a code outside the catalog (a tenant's own) is a member named ``UNKNOWN``."""

    REGISTERED = "01"
    SENT = "03"
    ACCEPTED = "05"
    OBSERVED = "07"
    REJECTED = "09"
    VOIDED = "11"
    VOIDING = "13"
    #: No state in the answer.
    NONE = ""

    @property
    def code(self) -> str:
        """The code the service sends (``"05"``)."""
        return self.value

    @property
    def description(self) -> str:
        """The description real tenants give (``"Aceptado"``); the code itself when unknown."""
        return STATE_TYPES.get(self.value, self.value)

    @property
    def accepted(self) -> bool:
        """Accepted by SUNAT, without (05) or with observations (07)."""
        return self in (State.ACCEPTED, State.OBSERVED)

    @classmethod
    def _missing_(cls, value: object) -> State | None:
        """A code outside the catalog: a member named ``UNKNOWN`` equal to it (kept, one per code)."""
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = "UNKNOWN"
        member._value_ = value
        return cls._value2member_map_.setdefault(value, member)  # type: ignore[return-value]


#: Catalog 01: document types (the ones this project issues or meets), plus the summary identifiers.
DOCUMENT_TYPES: dict[str, str] = {
    "01": "Factura",
    "03": "Boleta de venta",
    "04": "Liquidación de compra",
    "07": "Nota de crédito",
    "08": "Nota de débito",
    "09": "Guía de remisión remitente",
    "12": "Ticket de máquina registradora",
    "14": "Recibo por servicios públicos",
    "20": "Comprobante de retención",
    "31": "Guía de remisión transportista",
    "40": "Comprobante de percepción",
    "56": "Comprobante de pago SEAE",
    "71": "Guía de remisión remitente complementaria",
    "72": "Guía de remisión transportista complementaria",
    "RC": "Resumen diario de boletas y notas",
    "RA": "Comunicación de baja",
    "RR": "Resumen de reversiones",
}

#: Catalog 06: identity document types ("-" = unidentified buyer, allowed in boletas and summaries).
IDENTITY_TYPES: dict[str, str] = {
    "0": "Doc. trib. no dom. sin RUC",
    "1": "DNI",
    "4": "Carnet de extranjería",
    "6": "RUC",
    "7": "Pasaporte",
    "A": "Cédula diplomática de identidad",
    "B": "Doc. identidad país residencia - no domiciliado",
    "C": "Tax Identification Number - TIN - Doc. trib. PP.NN.",
    "D": "Identification Number - IN - Doc. trib. PP.JJ.",
    "E": "TAM - Tarjeta Andina de Migración",
    "F": "Permiso Temporal de Permanencia - PTP",
    "G": "Salvoconducto",
    "-": "Varios - ventas menores a S/ 700.00 y otros",
}

#: Catalog 09: credit note types.
CREDIT_NOTE_TYPES: dict[str, str] = {
    "01": "Anulación de la operación",
    "02": "Anulación por error en el RUC",
    "03": "Corrección por error en la descripción",
    "04": "Descuento global",
    "05": "Descuento por ítem",
    "06": "Devolución total",
    "07": "Devolución por ítem",
    "08": "Bonificación",
    "09": "Disminución en el valor",
    "10": "Otros conceptos",
    "11": "Ajustes de operaciones de exportación",
    "12": "Ajustes afectos al IVAP",
    "13": "Ajustes - montos y/o fechas de pago",
}

#: Catalog 10: debit note types.
DEBIT_NOTE_TYPES: dict[str, str] = {
    "01": "Intereses por mora",
    "02": "Aumento en el valor",
    "03": "Penalidades / otros conceptos",
    "11": "Ajustes de operaciones de exportación",
    "12": "Ajustes afectos al IVAP",
}

#: Catalog 51: operation types (``InvoiceTypeCode/@listID``).
OPERATION_TYPES: dict[str, str] = {
    "0101": "Venta interna",
    "0112": "Venta interna - Sustenta gastos deducibles persona natural",
    "0113": "Venta interna - NRUS",
    "0200": "Exportación de bienes",
    "0201": "Exportación de servicios - Prestación de servicios realizados íntegramente en el país",
    "0202": "Exportación de servicios - Prestación de servicios de hospedaje no domiciliado",
    "0203": "Exportación de servicios - Transporte de navieras",
    "0204": "Exportación de servicios - Servicios a naves y aeronaves de bandera extranjera",
    "0205": "Exportación de servicios - Servicios que conformen un paquete turístico",
    "0206": "Exportación de servicios - Servicios complementarios al transporte de carga",
    "0207": "Exportación de servicios - Suministro de energía eléctrica a favor de sujetos domiciliados "
    "en ZED",
    "0208": "Exportación de servicios - Prestación de servicios realizados parcialmente en el extranjero",
    "0301": "Operaciones con carta de porte aéreo (emitidas en el ámbito nacional)",
    "0302": "Operaciones de transporte ferroviario de pasajeros",
    "0303": "Operaciones de pago de regalía petrolera",
    "0401": "Ventas no domiciliados que no califican como exportación",
    "0501": "Compra interna",
    "0502": "Anticipos",
    "0503": "Compra de oro",
    "1001": "Operación sujeta a detracción",
    "1002": "Operación sujeta a detracción - Recursos hidrobiológicos",
    "1003": "Operación sujeta a detracción - Servicios de transporte de pasajeros",
    "1004": "Operación sujeta a detracción - Servicios de transporte de carga",
    "2001": "Operación sujeta a percepción",
    "2100": "Créditos a empresas",
    "2101": "Créditos de consumo revolvente",
    "2102": "Créditos de consumo no revolvente",
    "2103": "Otras operaciones no gravadas - Empresas del sistema financiero",
    "2104": "Otras operaciones no gravadas - Empresas del sistema de seguros",
    "2105": "Comprobante emitido por AFP",
}

#: Catalog 51 per document type: the operation types a factura (01) and a boleta (03) may carry
#: (the ``factura``/``boleta`` flags of SUNAT's ``cat_51.xml``; 0501-0503 are for liquidaciones de compra).
OPERATION_TYPES_BY_DOCUMENT: dict[str, frozenset[str]] = {
    "01": frozenset(
        {
            "0101",
            "0112",
            "0200",
            "0201",
            "0202",
            "0203",
            "0204",
            "0205",
            "0206",
            "0207",
            "0208",
            "0301",
            "0302",
            "0401",
            "1001",
            "1002",
            "1003",
            "1004",
            "2001",
            "2100",
            "2101",
            "2102",
            "2103",
            "2104",
        }
    ),
    "03": frozenset(
        {
            "0101",
            "0113",
            "0200",
            "0201",
            "0203",
            "0204",
            "0206",
            "0207",
            "0208",
            "0301",
            "0302",
            "0401",
            "1001",
            "1002",
            "1003",
            "1004",
            "2001",
            "2100",
            "2101",
            "2102",
            "2103",
            "2104",
            "2105",
        }
    ),
}

#: Export operation types: every onerous line must be affectation 40 and a factura customer must not be RUC.
EXPORT_OPERATION_TYPES = frozenset({"0200", "0201", "0202", "0203", "0204", "0205", "0206", "0207", "0208"})

#: Operation types subject to detraction (SPOT): they need the detraction block and legend 2006.
DETRACTION_OPERATION_TYPES = frozenset({"1001", "1002", "1003", "1004"})

#: Detraction operation types that require one goods/services code of catalog 54 (SUNAT 3129).
DETRACTION_GOODS_BY_OPERATION: dict[str, str] = {"1002": "004", "1003": "028", "1004": "027"}

#: Catalog 52: legends (``cbc:Note/@languageLocaleID``).
LEGENDS: dict[str, str] = {
    "1000": "Monto expresado en letras",
    "1002": "TRANSFERENCIA GRATUITA DE UN BIEN Y/O SERVICIO PRESTADO GRATUITAMENTE",
    "2000": "COMPROBANTE DE PERCEPCIÓN",
    "2001": "BIENES TRANSFERIDOS EN LA AMAZONÍA REGIÓN SELVA PARA SER CONSUMIDOS EN LA MISMA",
    "2002": "SERVICIOS PRESTADOS EN LA AMAZONÍA REGIÓN SELVA PARA SER CONSUMIDOS EN LA MISMA",
    "2003": "CONTRATOS DE CONSTRUCCIÓN EJECUTADOS EN LA AMAZONÍA REGIÓN SELVA",
    "2004": "Agencia de viaje - Paquete turístico",
    "2005": "Venta realizada por emisor itinerante",
    "2006": "Operación sujeta a detracción",
    "2007": "Operación sujeta al IVAP",
    "2008": "VENTA EXONERADA DEL IGV-ISC-IPM. PROHIBIDA LA VENTA FUERA DE LA ZONA COMERCIAL DE TACNA",
    "2009": "PRIMERA VENTA DE MERCANCÍA IDENTIFICABLE ENTRE USUARIOS DE LA ZONA COMERCIAL",
    "2010": "Restitución simplificado de derechos arancelarios",
    "2011": "Exportación de servicios - Decreto Legislativo N° 919",
}

#: Catalog 16: price types (``cac:AlternativeConditionPrice/cbc:PriceTypeCode``).
PRICE_TYPES: dict[str, str] = {
    "01": "Precio unitario (incluye el IGV)",
    "02": "Valor referencial unitario en operaciones no onerosas",
}

#: Catalog 53: charges and discounts (item-level and global).
CHARGE_DISCOUNT_TYPES: dict[str, str] = {
    "00": "Descuentos que afectan la base imponible del IGV/IVAP",
    "01": "Descuentos que no afectan la base imponible del IGV/IVAP",
    "02": "Descuentos globales que afectan la base imponible del IGV/IVAP",
    "03": "Descuentos globales que no afectan la base imponible del IGV/IVAP",
    "04": "Descuentos globales por anticipos gravados que afectan la base imponible del IGV/IVAP",
    "05": "Descuentos globales por anticipos exonerados",
    "06": "Descuentos globales por anticipos inafectos",
    "07": "Factor de compensación - Decreto de urgencia N. 010-2004",
    "20": "Anticipo de ISC",
    "45": "FISE",
    "46": "Recargo al consumo y/o propinas",
    "47": "Cargos que afectan la base imponible del IGV/IVAP",
    "48": "Cargos que no afectan la base imponible del IGV/IVAP",
    "49": "Cargos globales que afectan la base imponible del IGV/IVAP",
    "50": "Cargos globales que no afectan la base imponible del IGV/IVAP",
    "51": "Percepción venta interna",
    "52": "Percepción a la adquisición de combustible",
    "53": "Percepción realizada al agente de percepción con tasa especial",
    "54": "Factor de aportación - Decreto de urgencia N. 010-2004",
    "61": "Retención de renta por anticipos",
    "62": "Retención del IGV",
    "63": "Retención de renta de segunda categoría",
}

#: Catalog 53 by where a code goes and what it does (``docs/sunat_domain.md``, catalogs; SUNAT's rules
#: 3271/3277-3301).
LINE_DISCOUNTS = frozenset({"00", "01"})
LINE_CHARGES = frozenset({"47", "48"})
GLOBAL_DISCOUNTS = frozenset({"02", "03", "04", "05", "06"})
GLOBAL_CHARGES = frozenset({"45", "46", "49", "50"})
#: Discounts and charges that change the IGV base (line 00/47; global 02/04 and 49).
BASE_DISCOUNTS = frozenset({"00", "02", "04"})
BASE_CHARGES = frozenset({"47", "49"})
#: Prepayments deducted as global discounts: 04 taxed, 05 exonerated, 06 unaffected.
PREPAYMENT_DISCOUNTS = frozenset({"04", "05", "06"})
#: Charges of catalog 53 (ChargeIndicator true); every other code of the catalog is a discount.
CHARGE_CODES = frozenset({"45", "46", "47", "48", "49", "50", "51", "52", "53", "54"})


#: Catalog 54: goods and services subject to detraction -> (description, rate in percent).
#: Rates are those of SUNAT's catalogue file (SFS), except 012, 020, 022 and 037, raised to 12 % by
#: RS 071-2018/SUNAT. Rates change by law: treat them as defaults the issuer may override.
DETRACTION_TYPES: dict[str, tuple[str, Decimal]] = {
    "001": ("Azúcar y melaza de caña", Decimal("10")),
    "002": ("Arroz", Decimal("10")),
    "003": ("Alcohol etílico", Decimal("10")),
    "004": ("Recursos hidrobiológicos", Decimal("4")),
    "005": ("Maíz amarillo duro", Decimal("4")),
    "007": ("Caña de azúcar", Decimal("10")),
    "008": ("Madera", Decimal("4")),
    "009": ("Arena y piedra", Decimal("10")),
    "010": ("Residuos, subproductos, desechos, recortes y desperdicios", Decimal("15")),
    "011": ("Bienes gravados con el IGV, o renuncia a la exoneración", Decimal("15")),
    "012": ("Intermediación laboral y tercerización", Decimal("12")),
    "013": ("Animales vivos", Decimal("10")),
    "014": ("Carnes y despojos comestibles", Decimal("4")),
    "015": ("Abonos, cueros y pieles de origen animal", Decimal("10")),
    "016": ("Aceite de pescado", Decimal("4")),
    "017": (
        "Harina, polvo y pellets de pescado, crustáceos, moluscos y demás invertebrados acuáticos",
        Decimal("4"),
    ),
    "019": ("Arrendamiento de bienes muebles", Decimal("10")),
    "020": ("Mantenimiento y reparación de bienes muebles", Decimal("12")),
    "021": ("Movimiento de carga", Decimal("10")),
    "022": ("Otros servicios empresariales", Decimal("12")),
    "023": ("Leche", Decimal("10")),
    "024": ("Comisión mercantil", Decimal("10")),
    "025": ("Fabricación de bienes por encargo", Decimal("10")),
    "026": ("Servicio de transporte de personas", Decimal("10")),
    "027": ("Servicio de transporte de carga", Decimal("4")),
    "028": ("Transporte de pasajeros", Decimal("4")),
    "030": ("Contratos de construcción", Decimal("4")),
    "031": ("Oro gravado con el IGV", Decimal("10")),
    "032": ("Páprika y otros frutos de los géneros capsicum o pimienta", Decimal("10")),
    "034": ("Minerales metálicos no auríferos", Decimal("10")),
    "035": ("Bienes exonerados del IGV", Decimal("1.5")),
    "036": ("Oro y demás minerales metálicos exonerados del IGV", Decimal("1.5")),
    "037": ("Demás servicios gravados con el IGV", Decimal("12")),
    "039": ("Minerales no metálicos", Decimal("10")),
    "040": ("Bien inmueble gravado con IGV", Decimal("4")),
    "041": ("Plomo", Decimal("15")),
    "099": ("Ley 30737", Decimal("8")),
}

#: Catalog 23: retention regimes -> (description, rate in percent) (SUNAT's cat_23: 01 3 %, 02 6 %).
RETENTION_REGIMES: dict[str, tuple[str, Decimal]] = {
    "01": ("Tasa 3%", Decimal("3")),
    "02": ("Tasa 6%", Decimal("6")),
}

#: Catalog 22: perception regimes -> (description, rate in percent) (SUNAT's cat_22).
PERCEPTION_REGIMES: dict[str, tuple[str, Decimal]] = {
    "01": ("Percepción venta interna", Decimal("2")),
    "02": ("Percepción a la adquisición de combustible", Decimal("1")),
    "03": ("Percepción realizada al agente de percepción con tasa especial", Decimal("0.5")),
}

#: Document types a retention (20) or perception (40) may relate (the stylesheets' lists; 12 is a
#: ticket, 07 a credit note, 20/40 a reversed retention/perception).
RETENTION_RELATED_TYPES = frozenset({"01", "07", "08", "12", "20"})
PERCEPTION_RELATED_TYPES = frozenset({"01", "03", "07", "08", "12", "40", "41"})

#: Catalog 59: payment means.
PAYMENT_MEANS: dict[str, str] = {
    "001": "Depósito en cuenta",
    "002": "Giro",
    "003": "Transferencia de fondos",
    "004": "Orden de pago",
    "005": "Tarjeta de débito",
    "006": "Tarjeta de crédito emitida en el país por una empresa del sistema financiero",
    "007": "Cheques con la cláusula de NO NEGOCIABLE, INTRANSFERIBLES, NO A LA ORDEN u otra equivalente",
    "008": "Efectivo, por operaciones en las que no existe obligación de utilizar medio de pago",
    "009": "Efectivo, en los demás casos",
    "010": "Medios de pago usados en comercio exterior",
    "011": "Documentos emitidos por las EDPYMES y las cooperativas de ahorro y crédito",
    "012": "Tarjeta de crédito emitida en el país o en el exterior por una empresa no perteneciente al "
    "sistema financiero",
    "013": "Tarjetas de crédito emitidas en el exterior por empresas bancarias o financieras no domiciliadas",
    "101": "Transferencias - Comercio exterior",
    "102": "Cheques bancarios - Comercio exterior",
    "103": "Orden de pago simple - Comercio exterior",
    "104": "Orden de pago documentario - Comercio exterior",
    "105": "Remesa simple - Comercio exterior",
    "106": "Remesa documentaria - Comercio exterior",
    "107": "Carta de crédito simple - Comercio exterior",
    "108": "Carta de crédito documentario - Comercio exterior",
    "999": "Otros medios de pago",
}

#: Catalog 12: related tax documents (``cac:AdditionalDocumentReference``; 02/03 are prepayments).
RELATED_DOCUMENT_TYPES: dict[str, str] = {
    "01": "Factura - emitida para corregir error en el RUC",
    "02": "Factura - emitida por anticipos",
    "03": "Boleta de venta - emitida por anticipos",
    "04": "Ticket de salida - ENAPU",
    "05": "Código SCOP",
    "06": "Factura electrónica remitente",
    "07": "Guía de remisión remitente",
    "08": "Declaración de salida del depósito franco",
    "09": "Declaración simplificada de importación",
    "10": "Liquidación de compra - emitida por anticipos",
    "99": "Otros",
}

#: Catalog 20: reasons for a transfer of goods (``cac:Shipment/cbc:HandlingCode`` of a dispatch guide).
TRANSFER_REASONS: dict[str, str] = {
    "01": "Venta",
    "02": "Compra",
    "03": "Venta con entrega a terceros",
    "04": "Traslado entre establecimientos de la misma empresa",
    "05": "Consignación",
    "06": "Devolución",
    "07": "Recojo de bienes transformados",
    "08": "Importación",
    "09": "Exportación",
    "13": "Otros",
    "14": "Venta sujeta a confirmación del comprador",
    "17": "Traslado de bienes para transformación",
    "18": "Traslado emisor itinerante CP",
}

#: Catalog 18: transport modes of a dispatch guide.
TRANSPORT_MODES: dict[str, str] = {"01": "Transporte público", "02": "Transporte privado"}

#: Units of a dispatch guide's gross weight (``cbc:GrossWeightMeasure/@unitCode``).
WEIGHT_UNITS: dict[str, str] = {"KGM": "Kilogramos", "TNE": "Toneladas"}

#: Catalog 61: documents related to a transfer (``cac:AdditionalDocumentReference`` of a dispatch guide),
#: with the guides that may carry each: "09" sender (remitente), "31" carrier (transportista).
GRE_RELATED_DOCUMENTS: dict[str, tuple[str, frozenset[str]]] = {
    code: (name, frozenset(kinds.split()))
    for code, name, kinds in (
        ("01", "Factura", "09 31"),
        ("03", "Boleta de Venta", "09 31"),
        ("04", "Liquidación de Compra", "09 31"),
        ("09", "Guía de Remisión Remitente", "09 31"),
        ("12", "Ticket o cinta emitido por máquina registradora", "09 31"),
        ("31", "Guía de Remisión Transportista", "31"),
        ("48", "Comprobante de Operaciones – Ley N° 29972", "09 31"),
        ("49", "Constancia de Depósito - IVAP (Ley 28211)", "09"),
        ("50", "Declaración Aduanera de Mercancías", "09 31"),
        ("52", "Declaración Simplificada (DS)", "09 31"),
        ("65", "Autorización de Circulación para transportar MATPEL – Callao", "31"),
        (
            "66",
            "Autorización de Circulación para transporte de carga y mercancías en Lima Metropolitana",
            "31",
        ),
        ("67", "Permiso de Operación Especial para el servicio de transporte de MATPEL - MTC", "31"),
        ("68", "Habilitación Sanitaria de Transporte Terrestre de Productos Pesqueros y Acuícolas", "31"),
        ("69", "Permiso / Autorización de operación de transporte de mercancías", "31"),
        ("71", "Resolución de Adjudicación de bienes – SUNAT", "09"),
        ("72", "Resolución de Comiso de bienes – SUNAT", "09"),
        ("73", "Guía de Transporte Forestal o de Fauna - SERFOR", "09"),
        ("74", "Guía de Tránsito – SUCAMEC", "09"),
        ("75", "Autorización para operar como empresa de Saneamiento Ambiental – MINSA", "09"),
        ("76", "Autorización para manejo y recojo de residuos sólidos peligrosos y no peligrosos", "09"),
        ("77", "Certificado fitosanitario la movilización de plantas, productos vegetales", "09"),
        ("78", "Registro Único de Usuarios y Transportistas de Alcohol Etílico", "09"),
        ("80", "Constancia de Depósito – Detracción", "09 31"),
        ("81", "Código de autorización emitida por el SCOP", "09"),
        ("82", "Declaración jurada de mudanza", "31"),
    )
}

#: Catalog 55: item properties (``cac:AdditionalItemProperty/cbc:NameCode``), e.g. 5010 plate number.
ITEM_PROPERTIES: dict[str, str] = {
    "3001": "Detracciones: Recursos Hidrobiológicos-Matrícula de la embarcación",
    "3002": "Detracciones: Recursos Hidrobiológicos-Nombre de la embarcación",
    "3003": "Detracciones: Recursos Hidrobiológicos-Tipo de especie vendida",
    "3004": "Detracciones: Recursos Hidrobiológicos-Lugar de descarga",
    "3005": "Detracciones: Recursos Hidrobiológicos-Fecha de descarga",
    "3006": "Detracciones: Recursos Hidrobiológicos-Cantidad de especie vendida",
    "3050": "Transportre Terreste - Número de asiento",
    "3051": "Transporte Terrestre - Información de manifiesto de pasajeros",
    "3052": "Transporte Terrestre - Número de documento de identidad del pasajero",
    "3053": "Transporte Terrestre - Tipo de documento de identidad del pasajero",
    "3054": "Transporte Terrestre - Nombres y apellidos del pasajero",
    "3055": "Transporte Terrestre - Ciudad o lugar de destino - Ubigeo",
    "3056": "Transporte Terrestre - Ciudad o lugar de destino - Dirección detallada",
    "3057": "Transporte Terrestre - Ciudad o lugar de origen - Ubigeo",
    "3058": "Transporte Terrestre - Ciudad o lugar de origen - Dirección detallada",
    "3059": "Transporte Terrestre - Fecha de inicio programado",
    "3060": "Transporte Terrestre - Hora de inicio programado",
    "4000": "Beneficio Hospedajes: Código de país de emisión del pasaporte",
    "4001": "Beneficio Hospedajes: Código de país de residencia del sujeto no domiciliado",
    "4002": "Beneficio Hospedajes: Fecha de ingreso al país",
    "4003": "Beneficio Hospedajes: Fecha de Ingreso al Establecimiento",
    "4004": "Beneficio Hospedajes: Fecha de Salida del Establecimiento",
    "4005": "Beneficio Hospedajes: Número de Días de Permanencia",
    "4006": "Beneficio Hospedajes: Fecha de Consumo",
    "4007": "Beneficio Hospedajes: Nombres y apellidos del huesped",
    "4008": "Beneficio Hospedajes: Tipo de documento de identidad del huesped",
    "4009": "Beneficio Hospedajes: Número de documento de identidad del huesped",
    "4030": "Carta Porte Aéreo: Lugar de origen - Código de ubigeo",
    "4031": "Carta Porte Aéreo: Lugar de origen - Dirección detallada",
    "4032": "Carta Porte Aéreo: Lugar de destino - Código de ubigeo",
    "4033": "Carta Porte Aéreo: Lugar de destino - Dirección detallada",
    "4040": "BVME transporte ferroviario: Pasajero - Apellidos y Nombres",
    "4041": "BVME transporte ferroviario: Pasajero - Tipo documento de identidad",
    "4042": "BVME transporte ferroviario: Servicio transporte: Ciudad o lugar de origen - Código de ubigeo",
    "4043": (
        "BVME transporte ferroviario: Servicio transporte: Ciudad o lugar de origen - Dirección detallada"
    ),
    "4044": "BVME transporte ferroviario: Servicio transporte: Ciudad o lugar de destino - Código de ubigeo",
    "4045": (
        "BVME transporte ferroviario: Servicio transporte: Ciudad o lugar de destino - Dirección detallada"
    ),
    "4046": "BVME transporte ferroviario: Servicio transporte:Número de asiento",
    "4047": "BVME transporte ferroviario: Servicio transporte: Hora programada de inicio de viaje",
    "4048": "BVME transporte ferroviario: Servicio transporte: Fecha programada de inicio de viaje",
    "4049": "BVME transporte ferroviario: Pasajero - número de documento de identidad",
    "4060": "Regalía Petrolera: Decreto Supremo de aprobación del contrato",
    "4061": "Regalía Petrolera: Area de contrato (Lote)",
    "4062": "Regalía Petrolera: Periodo de pago - Fecha de inicio",
    "4063": "Regalía Petrolera: Periodo de pago - Fecha de fin",
    "4064": "Regalía Petrolera: Fecha de Pago",
    "5000": "Proveedores Estado: Número de Expediente",
    "5001": "Proveedores Estado: Código de Unidad Ejecutora",
    "5002": "Proveedores Estado: N° de Proceso de Selección",
    "5003": "Proveedores Estado: N° de Contrato",
    "5010": "Numero de Placa",
    "5011": "Categoria",
    "5012": "Marca",
    "5013": "Modelo",
    "5014": "Color",
    "5015": "Motor",
    "5016": "Combustible",
    "5017": "Form. Rodante",
    "5018": "VIN",
    "5019": "Serie/Chasis",
    "5020": "Año fabricacion",
    "5021": "Año modelo",
    "5022": "Version",
    "5023": "Ejes",
    "5024": "Asientos",
    "5025": "Pasajeros",
    "5026": "Ruedas",
    "5027": "Carroceria",
    "5028": "Potencia",
    "5029": "Cilindros",
    "5030": "Ciliindrada",
    "5031": "Peso Bruto",
    "5032": "Peso Neto",
    "5033": "Carga Util",
    "5034": "Longitud",
    "5035": "Altura",
    "5036": "Ancho",
    "5060": "Gas Natural - Lectura Anterior",
    "5061": "Gas Natural - Lectura Actual",
    "5062": "Gas Natural - Volumen consumido a Condiciones de lectura",
    "5063": "Gas Natural - Factor de correccion del volumen",
    "5064": "Gas Natural - Volumen a condiciones Estandares",
    "5065": "Gas Natural - Volumen facturado",
    "5066": "Gas Natural - Poder Calorifico Superior Promedio del Gas",
    "6000": "Comercialización de Oro: Código Unico Concesión Minera",
    "6001": "Comercialización de Oro: N° declaración compromiso",
    "6002": "Comercialización de Oro: N° Reg. Especial .Comerci. Oro",
    "6003": "Comercialización de Oro: N° Resolución que autoriza Planta de Beneficio",
    "6004": "Comercialización de Oro: Ley Mineral (% concent. oro)",
    "6005": "Comercialización de Oro: Naturaleza del mineral",
    "6006": "Comercialización de Oro: Nombre del derecho minero",
    "7000": "Gastos Art. 37 Renta: Número de Placa",
    "7001": "Empresas del sistema financiero y cooperativas: Tipo de préstamo",
    "7002": "Empresas del sistema financiero y cooperativas: Indicador de Primera Vivienda",
    "7003": "Empresas del sistema financiero y cooperativas: Partida Registral",
    "7004": "Empresas del sistema financiero y cooperativas: Número de contrato",
    "7005": "Empresas del sistema financiero y cooperativas: Fecha de otorgamiento del crédito",
    "7006": "Empresas del sistema financiero y cooperativas: Dirección del predio - Código de ubigeo",
    "7007": "Empresas del sistema financiero y cooperativas: Dirección del predio - Dirección completa",
    "7008": "Empresas del sistema financiero y cooperativas: Dirección del predio - Urbanización",
    "7009": "Empresas del sistema financiero y cooperativas: Dirección del predio - Provincia",
    "7010": "Empresas del sistema financiero y cooperativas: Dirección del predio - Distrito",
    "7011": "Empresas del sistema financiero y cooperativas: Dirección del predio - Departamento",
    "7012": "Empresas del sistema financiero y cooperativas: Monto del crédito otorgado (capital)",
    "7013": "Empresas del sistema de seguro: Número de póliza",
    "7014": "Empresas del sistema de seguro: Fecha de inicio/término de vigencia de cobertura",
    "7015": "Empresas del sistema de seguro: Tipo de seguro",
    "7016": "Empresas del sistema de seguro: Suma asegurada / alcance de cobertura o monto",
    "7017": "AFP: CUSPP",
    "7018": "AFP: Periodo",
    "7019": "AFP: Monto del interes moratorio",
    "7020": "Subpartida nacional",
    "7021": "Numero de declaracion aduanera (DAM)",
}

#: Catalog 19: status of a line of the daily summary (RC).
SUMMARY_CONDITIONS: dict[str, str] = {
    "1": "Adicionar",
    "2": "Modificar",
    "3": "Anulado",
}

#: Catalog 02: currencies (ISO 4217 alphabetic codes in use, plus a few recently withdrawn ones that
#: older documents still carry).
CURRENCIES: dict[str, str] = {
    "AED": "Dírham de los Emiratos Árabes Unidos",
    "AFN": "Afgani afgano",
    "ALL": "Lek albanés",
    "AMD": "Dram armenio",
    "ANG": "Florín antillano neerlandés",
    "AOA": "Kwanza angoleño",
    "ARS": "Peso argentino",
    "AUD": "Dólar australiano",
    "AWG": "Florín arubeño",
    "AZN": "Manat azerbaiyano",
    "BAM": "Marco convertible de Bosnia y Herzegovina",
    "BBD": "Dólar de Barbados",
    "BDT": "Taka de Bangladés",
    "BGN": "Lev búlgaro",
    "BHD": "Dinar bareiní",
    "BIF": "Franco de Burundi",
    "BMD": "Dólar de Bermudas",
    "BND": "Dólar de Brunéi",
    "BOB": "Boliviano",
    "BOV": "Mvdol boliviano",
    "BRL": "Real brasileño",
    "BSD": "Dólar bahameño",
    "BTN": "Ngultrum butanés",
    "BWP": "Pula de Botsuana",
    "BYN": "Rublo bielorruso",
    "BZD": "Dólar beliceño",
    "CAD": "Dólar canadiense",
    "CDF": "Franco congoleño",
    "CHE": "Euro WIR",
    "CHF": "Franco suizo",
    "CHW": "Franco WIR",
    "CLF": "Unidad de fomento chilena",
    "CLP": "Peso chileno",
    "CNY": "Yuan renminbi chino",
    "COP": "Peso colombiano",
    "COU": "Unidad de valor real colombiana",
    "CRC": "Colón costarricense",
    "CUC": "Peso cubano convertible",
    "CUP": "Peso cubano",
    "CVE": "Escudo caboverdiano",
    "CZK": "Corona checa",
    "DJF": "Franco de Yibuti",
    "DKK": "Corona danesa",
    "DOP": "Peso dominicano",
    "DZD": "Dinar argelino",
    "EGP": "Libra egipcia",
    "ERN": "Nakfa eritreo",
    "ETB": "Birr etíope",
    "EUR": "Euro",
    "FJD": "Dólar fiyiano",
    "FKP": "Libra de las Islas Malvinas",
    "GBP": "Libra esterlina",
    "GEL": "Lari georgiano",
    "GHS": "Cedi ghanés",
    "GIP": "Libra de Gibraltar",
    "GMD": "Dalasi gambiano",
    "GNF": "Franco guineano",
    "GTQ": "Quetzal guatemalteco",
    "GYD": "Dólar guyanés",
    "HKD": "Dólar de Hong Kong",
    "HNL": "Lempira hondureño",
    "HRK": "Kuna croata",
    "HTG": "Gourde haitiano",
    "HUF": "Forinto húngaro",
    "IDR": "Rupia indonesia",
    "ILS": "Nuevo séquel israelí",
    "INR": "Rupia india",
    "IQD": "Dinar iraquí",
    "IRR": "Rial iraní",
    "ISK": "Corona islandesa",
    "JMD": "Dólar jamaiquino",
    "JOD": "Dinar jordano",
    "JPY": "Yen japonés",
    "KES": "Chelín keniano",
    "KGS": "Som kirguís",
    "KHR": "Riel camboyano",
    "KMF": "Franco comorense",
    "KPW": "Won norcoreano",
    "KRW": "Won surcoreano",
    "KWD": "Dinar kuwaití",
    "KYD": "Dólar de las Islas Caimán",
    "KZT": "Tenge kazajo",
    "LAK": "Kip laosiano",
    "LBP": "Libra libanesa",
    "LKR": "Rupia de Sri Lanka",
    "LRD": "Dólar liberiano",
    "LSL": "Loti de Lesoto",
    "LYD": "Dinar libio",
    "MAD": "Dírham marroquí",
    "MDL": "Leu moldavo",
    "MGA": "Ariary malgache",
    "MKD": "Denar macedonio",
    "MMK": "Kyat birmano",
    "MNT": "Tugrik mongol",
    "MOP": "Pataca de Macao",
    "MRU": "Uguiya mauritana",
    "MUR": "Rupia mauriciana",
    "MVR": "Rufiyaa maldiva",
    "MWK": "Kwacha malauí",
    "MXN": "Peso mexicano",
    "MXV": "Unidad de inversión mexicana",
    "MYR": "Ringgit malayo",
    "MZN": "Metical mozambiqueño",
    "NAD": "Dólar namibio",
    "NGN": "Naira nigeriano",
    "NIO": "Córdoba nicaragüense",
    "NOK": "Corona noruega",
    "NPR": "Rupia nepalí",
    "NZD": "Dólar neozelandés",
    "OMR": "Rial omaní",
    "PAB": "Balboa panameño",
    "PEN": "Sol",
    "PGK": "Kina de Papúa Nueva Guinea",
    "PHP": "Peso filipino",
    "PKR": "Rupia pakistaní",
    "PLN": "Esloti polaco",
    "PYG": "Guaraní paraguayo",
    "QAR": "Riyal catarí",
    "RON": "Leu rumano",
    "RSD": "Dinar serbio",
    "RUB": "Rublo ruso",
    "RWF": "Franco ruandés",
    "SAR": "Riyal saudí",
    "SBD": "Dólar de las Islas Salomón",
    "SCR": "Rupia de Seychelles",
    "SDG": "Libra sudanesa",
    "SEK": "Corona sueca",
    "SGD": "Dólar de Singapur",
    "SHP": "Libra de Santa Elena",
    "SLE": "Leone de Sierra Leona",
    "SLL": "Leone de Sierra Leona (anterior)",
    "SOS": "Chelín somalí",
    "SRD": "Dólar surinamés",
    "SSP": "Libra sursudanesa",
    "STN": "Dobra de Santo Tomé y Príncipe",
    "SVC": "Colón salvadoreño",
    "SYP": "Libra siria",
    "SZL": "Lilangeni suazi",
    "THB": "Baht tailandés",
    "TJS": "Somoni tayiko",
    "TMT": "Manat turcomano",
    "TND": "Dinar tunecino",
    "TOP": "Paanga tongano",
    "TRY": "Lira turca",
    "TTD": "Dólar de Trinidad y Tobago",
    "TWD": "Nuevo dólar taiwanés",
    "TZS": "Chelín tanzano",
    "UAH": "Grivna ucraniana",
    "UGX": "Chelín ugandés",
    "USD": "Dólar estadounidense",
    "USN": "Dólar estadounidense (día siguiente)",
    "UYI": "Peso uruguayo en unidades indexadas",
    "UYU": "Peso uruguayo",
    "UYW": "Unidad previsional uruguaya",
    "UZS": "Som uzbeko",
    "VED": "Bolívar digital venezolano",
    "VEF": "Bolívar fuerte venezolano",
    "VES": "Bolívar soberano venezolano",
    "VND": "Dong vietnamita",
    "VUV": "Vatu de Vanuatu",
    "WST": "Tala samoano",
    "XAF": "Franco CFA de África Central",
    "XAG": "Plata (onza troy)",
    "XAU": "Oro (onza troy)",
    "XCD": "Dólar del Caribe Oriental",
    "XCG": "Florín del Caribe",
    "XDR": "Derechos especiales de giro",
    "XOF": "Franco CFA de África Occidental",
    "XPD": "Paladio (onza troy)",
    "XPF": "Franco CFP",
    "XPT": "Platino (onza troy)",
    "XSU": "Sucre",
    "XUA": "Unidad de cuenta del Banco Africano de Desarrollo",
    "YER": "Rial yemení",
    "ZAR": "Rand sudafricano",
    "ZMW": "Kwacha zambiano",
    "ZWG": "Oro de Zimbabue",
    "ZWL": "Dólar zimbabuense",
}

#: Currency names for the amount in words (legend 1000); other currencies fall back to their code.
CURRENCY_NAMES: dict[str, str] = {
    "PEN": "SOLES",
    "USD": "DÓLARES AMERICANOS",
    "EUR": "EUROS",
    "GBP": "LIBRAS ESTERLINAS",
    "JPY": "YENES",
    "CHF": "FRANCOS SUIZOS",
    "CAD": "DÓLARES CANADIENSES",
    "AUD": "DÓLARES AUSTRALIANOS",
    "CNY": "YUANES",
    "BRL": "REALES",
    "CLP": "PESOS CHILENOS",
    "COP": "PESOS COLOMBIANOS",
    "MXN": "PESOS MEXICANOS",
    "ARS": "PESOS ARGENTINOS",
    "BOB": "BOLIVIANOS",
}

#: Catalog 03: units of measure (UN/ECE Recommendation 20). A SUBSET of the ~2 100 codes SUNAT accepts:
#: the ones issuers use in practice (SUNAT's own Spanish list, the Facturador units, packaging, time,
#: length, area, volume, mass, energy and data units). Add codes here when a tenant needs one.
UNITS: dict[str, str] = {
    # Units, counts and packaging
    "NIU": "Unidad (bienes)",
    "ZZ": "Unidad (servicios)",
    "C62": "Pieza / uno",
    "H87": "Pieza",
    "EA": "Cada uno",
    "IE": "Persona",
    "NAR": "Número de artículos",
    "NPR": "Número de pares",
    "NPT": "Número de partes",
    "NMP": "Número de paquetes",
    "NPL": "Número de bultos",
    "NRL": "Número de rollos",
    "NBB": "Número de bobinas",
    "NCL": "Número de celdas",
    "PR": "Par",
    "DZN": "Docena",
    "DZP": "Docena de paquetes",
    "DPC": "Docena de piezas",
    "DPR": "Docena de pares",
    "DRL": "Docena de rollos",
    "HD": "Media docena",
    "QD": "Cuarto de docena",
    "CEN": "Ciento de unidades",
    "HC": "Cien unidades",
    "MIL": "Millar",
    "MIO": "Millón",
    "UM": "Millón de unidades",
    "MLD": "Mil millones",
    "GRO": "Gruesa",
    "GGR": "Gran gruesa",
    "SCO": "Veintena",
    "T3": "Millar de piezas",
    "SET": "Juego",
    "KT": "Kit",
    "AS": "Surtido",
    "AY": "Ensamblaje",
    "LO": "Lote",
    "LS": "Suma global",
    "BX": "Caja",
    "CS": "Estuche",
    "CT": "Cartón",
    "PK": "Paquete",
    "PA": "Paquete pequeño",
    "PL": "Cubeta",
    "BG": "Bolsa",
    "SA": "Saco",
    "BO": "Botella",
    "BJ": "Balde",
    "BK": "Canasta",
    "BE": "Fardo",
    "BL": "Bala",
    "BD": "Tabla",
    "BLL": "Barril (EE.UU.)",
    "BR": "Barra",
    "CA": "Lata",
    "CH": "Contenedor",
    "CY": "Cilindro",
    "CJ": "Cono",
    "CL": "Rollo de alambre",
    "CQ": "Cartucho",
    "CR": "Jaba",
    "CU": "Taza",
    "CO": "Garrafón",
    "CV": "Cubierta",
    "DR": "Tambor",
    "DS": "Exhibidor",
    "DI": "Dispensador",
    "EV": "Sobre",
    "JR": "Frasco",
    "JG": "Jarra",
    "KG": "Barril pequeño",
    "PF": "Paleta",
    "D97": "Paleta / unidad de carga",
    "PD": "Bloc",
    "PG": "Placa",
    "PU": "Bandeja",
    "RL": "Carrete",
    "RO": "Rollo",
    "RM": "Resma",
    "ST": "Pliego",
    "LEF": "Hoja",
    "SO": "Bobina de hilo",
    "4A": "Bobina",
    "TU": "Tubo",
    "TN": "Hojalata",
    "TK": "Tanque rectangular",
    "TY": "Tanque cilíndrico",
    "VI": "Vial",
    "AM": "Ampolla",
    "AV": "Cápsula",
    "U2": "Tableta",
    "SYR": "Jeringa",
    "E27": "Dosis",
    "AR": "Supositorio",
    "FG": "Parche transdérmico",
    "PTN": "Porción",
    "Q3": "Comida",
    "D7": "Sándwich",
    "RG": "Anillo",
    "SR": "Tira",
    "STK": "Cajetilla de cigarrillos",
    "STC": "Palito",
    "TP": "Paquete de diez",
    "P2": "Libra por pie",
    "OP": "Paquete de dos",
    "P3": "Paquete de tres",
    "P4": "Paquete de cuatro",
    "P5": "Paquete de cinco",
    "P6": "Paquete de seis",
    "P7": "Paquete de siete",
    "P8": "Paquete de ocho",
    "P9": "Paquete de nueve",
    "4E": "Paquete de veinte",
    "CNP": "Paquete de cien",
    "HBX": "Cien cajas",
    "T4": "Millar de bolsas",
    "TTS": "Diez mil palitos",
    "NV": "Vehículo",
    "NC": "Automóvil",
    "E23": "Llanta",
    "D63": "Libro",
    "ZP": "Página",
    "QB": "Página impresa",
    "E48": "Unidad de servicio",
    "E51": "Trabajo",
    "E53": "Prueba",
    "E54": "Viaje",
    "E55": "Uso",
    "VS": "Visita",
    "S6": "Sesión",
    "ACT": "Actividad",
    "ROM": "Habitación",
    "E50": "Unidad contable",
    "E25": "Unidad activa",
    "11": "Equipo completo",
    "5B": "Lote de producción",
    "P1": "Porcentaje",
    "59": "Parte por millón",
    "E21": "Acciones",
    "M4": "Valor monetario",
    # Time
    "SEC": "Segundo",
    "MIN": "Minuto",
    "HUR": "Hora",
    "HT": "Media hora",
    "QH": "Cuarto de hora",
    "LH": "Hora de trabajo",
    "OT": "Hora extra",
    "DAY": "Día",
    "E49": "Día hábil",
    "WEE": "Semana",
    "W4": "Dos semanas",
    "MON": "Mes",
    "WM": "Mes de trabajo",
    "M36": "Mes de 30 días",
    "QAN": "Trimestre",
    "SAN": "Semestre",
    "ANN": "Año",
    "DEC": "Década",
    # Length
    "MMT": "Milímetro",
    "CMT": "Centímetro",
    "DMT": "Decímetro",
    "MTR": "Metro",
    "LM": "Metro lineal",
    "KTM": "Kilómetro",
    "KMT": "Kilómetro (código alterno)",
    "INH": "Pulgada",
    "FOT": "Pie",
    "YRD": "Yarda",
    "LY": "Yarda lineal",
    "SMI": "Milla terrestre",
    "NMI": "Milla náutica",
    "4H": "Micrómetro",
    "C45": "Nanómetro",
    "HMT": "Hectómetro",
    "A45": "Decámetro",
    "JPS": "Cien metros",
    "MQ": "Mil metros",
    "LF": "Pie lineal",
    "LI": "Pulgada lineal",
    "LC": "Centímetro lineal",
    # Area
    "MMK": "Milímetro cuadrado",
    "CMK": "Centímetro cuadrado",
    "DMK": "Decímetro cuadrado",
    "MTK": "Metro cuadrado",
    "KMK": "Kilómetro cuadrado",
    "INK": "Pulgada cuadrada",
    "FTK": "Pie cuadrado",
    "YDK": "Yarda cuadrada",
    "ARE": "Área",
    "HAR": "Hectárea",
    "ACR": "Acre",
    "MIK": "Milla cuadrada",
    # Volume
    "MMQ": "Milímetro cúbico",
    "CMQ": "Centímetro cúbico",
    "DMQ": "Decímetro cúbico",
    "MTQ": "Metro cúbico",
    "INQ": "Pulgada cúbica",
    "FTQ": "Pie cúbico",
    "YDQ": "Yarda cúbica",
    "MLT": "Mililitro",
    "CLT": "Centilitro",
    "DLT": "Decilitro",
    "LTR": "Litro",
    "H2": "Medio litro",
    "A44": "Decalitro",
    "HLT": "Hectolitro",
    "K6": "Kilolitro",
    "D40": "Mil litros",
    "MAL": "Megalitro",
    "4G": "Microlitro",
    "GLL": "Galón (EE.UU.)",
    "GLI": "Galón inglés",
    "GH": "Medio galón (EE.UU.)",
    "QT": "Cuarto de galón (EE.UU.)",
    "QTL": "Cuarto de galón líquido (EE.UU.)",
    "QTI": "Cuarto de galón inglés",
    "PT": "Pinta (EE.UU.)",
    "PTI": "Pinta inglesa",
    "OZA": "Onza líquida (EE.UU.)",
    "OZI": "Onza líquida inglesa",
    "G21": "Taza (unidad de volumen)",
    "G24": "Cucharada (EE.UU.)",
    "G25": "Cucharadita (EE.UU.)",
    "BLD": "Barril seco (EE.UU.)",
    "J57": "Barril de petróleo (Reino Unido)",
    "BUA": "Bushel (EE.UU.)",
    "BUI": "Bushel (Reino Unido)",
    "NM3": "Metro cúbico normalizado",
    "SM3": "Metro cúbico estándar",
    "STL": "Litro estándar",
    "LPA": "Litro de alcohol puro",
    "WCD": "Cuerda (leña)",
    # Mass
    "MC": "Microgramo",
    "MGM": "Miligramo",
    "CGM": "Centigramo",
    "DG": "Decigramo",
    "GRM": "Gramo",
    "DJ": "Decagramo",
    "HGM": "Hectogramo",
    "KGM": "Kilogramo",
    "QK": "Cuarto de kilogramo",
    "58": "Kilogramo neto",
    "E4": "Kilogramo bruto",
    "HK": "Cien kilogramos",
    "DTN": "Decitonelada",
    "TNE": "Tonelada (tonelada métrica)",
    "KTN": "Kilotonelada",
    "STN": "Tonelada corta",
    "LTN": "Tonelada larga",
    "LBR": "Libra",
    "ONZ": "Onza",
    "APZ": "Onza troy",
    "GRN": "Grano",
    "CTM": "Quilate métrico",
    "STI": "Piedra (Reino Unido)",
    "CWA": "Quintal (EE.UU.)",
    "CWI": "Quintal (Reino Unido)",
    "MND": "Kilogramo de peso seco",
    "KDW": "Kilogramo de peso neto escurrido",
    # Energy, power and electricity
    "WTT": "Vatio",
    "KWT": "Kilovatio",
    "MAW": "Megavatio",
    "WHR": "Vatio hora",
    "KWH": "Kilovatio hora",
    "MWH": "Megavatio hora",
    "GWH": "Gigavatio hora",
    "JOU": "Julio",
    "KJO": "Kilojulio",
    "3B": "Megajulio",
    "GV": "Gigajulio",
    "K51": "Kilocaloría (media)",
    "E14": "Kilocaloría (tabla internacional)",
    "BTU": "Unidad térmica británica",
    "AMP": "Amperio",
    "AMH": "Amperio hora",
    "VLT": "Voltio",
    "KVT": "Kilovoltio",
    "KVA": "Kilovoltio amperio",
    "MVA": "Megavoltio amperio",
    "D46": "Voltio amperio",
    "KVR": "Kilovar",
    "K3": "Kilovoltio amperio reactivo hora",
    "OHM": "Ohmio",
    "HTZ": "Hercio",
    "KHZ": "Kilohercio",
    "MHZ": "Megahercio",
    "A86": "Gigahercio",
    "BHP": "Caballo de fuerza al freno",
    "HJ": "Caballo de vapor métrico",
    "N12": "Caballo de vapor (Pferdestärke)",
    # Pressure, temperature and other physical units
    "PAL": "Pascal",
    "KPA": "Kilopascal",
    "MPA": "Megapascal",
    "BAR": "Bar",
    "MBR": "Milibar",
    "ATM": "Atmósfera estándar",
    "PS": "Libra fuerza por pulgada cuadrada",
    "CEL": "Grado Celsius",
    "FAH": "Grado Fahrenheit",
    "KEL": "Kelvin",
    "DD": "Grado (ángulo)",
    "KMH": "Kilómetro por hora",
    "MTS": "Metro por segundo",
    "KNT": "Nudo",
    "RPM": "Revoluciones por minuto",
    "MQH": "Metro cúbico por hora",
    "E32": "Litro por hora",
    "L2": "Litro por minuto",
    "TKM": "Tonelada kilómetro",
    "E22": "Contenedor de veinte pies (TEU)",
    "20": "Contenedor de veinte pies",
    "21": "Contenedor de cuarenta pies",
    # Data
    "A99": "Bit",
    "AD": "Byte",
    "2P": "Kilobyte",
    "4L": "Megabyte",
    "E34": "Gigabyte",
    "E35": "Terabyte",
    "E36": "Petabyte",
    "E37": "Píxel",
    "E38": "Megapíxel",
    "B10": "Bit por segundo",
    "C74": "Kilobit por segundo",
    "E20": "Megabit por segundo",
    "B80": "Gigabit por segundo",
    "P93": "Byte por segundo",
}

#: SUNAT's response messages for the codes this project emits or meets (SUNAT's code catalogue; codes
#: 3270-3321 and 4438/4439 from the newer SFS catalogue). 4443 is not in the published catalogues:
#: its text is ours.
RESPONSE_CODES: dict[str, str] = {
    "0100": (
        "El sistema no puede responder su solicitud. Intente nuevamente o comuníquese con su Administrador"
    ),
    "0101": "El encabezado de seguridad es incorrecto",
    "0102": "Usuario o contraseña incorrectos",
    "0103": "El Usuario ingresado no existe",
    "0104": "La Clave ingresada es incorrecta",
    "0105": "El Usuario no está activo",
    "0106": "El Usuario no es válido",
    "0109": "El sistema no puede responder su solicitud. (El servicio de autenticación no está disponible)",
    "0110": "No se pudo obtener la información del tipo de usuario",
    "0111": "No tiene el perfil para enviar comprobantes electronicos",
    "0112": "El usuario debe ser secundario",
    "0113": "El usuario no esta afiliado a Factura Electronica",
    "0125": "No se pudo obtener la constancia",
    "0126": "El ticket no le pertenece al usuario",
    "0127": "El ticket no existe",
    "0130": "El sistema no puede responder su solicitud. (No se pudo obtener el ticket de proceso)",
    "0131": "El sistema no puede responder su solicitud. (No se pudo grabar el archivo en el directorio)",
    "0132": "El sistema no puede responder su solicitud. (No se pudo grabar escribir en el archivo zip)",
    "0133": "El sistema no puede responder su solicitud. (No se pudo grabar la entrada del log)",
    "0134": "El sistema no puede responder su solicitud. (No se pudo grabar en el storage)",
    "0135": "El sistema no puede responder su solicitud. (No se pudo encolar el pedido)",
    "0136": "El sistema no puede responder su solicitud. (No se pudo recibir una respuesta del batch)",
    "0137": "El sistema no puede responder su solicitud. (Se obtuvo una respuesta nula)",
    "0138": "El sistema no puede responder su solicitud. (Error en Base de Datos)",
    "0151": "El nombre del archivo ZIP es incorrecto",
    "0152": "No se puede enviar por este método un archivo de resumen",
    "0153": "No se puede enviar por este método un archivo por lotes",
    "0154": (
        "El RUC del archivo no corresponde al RUC del usuario o el proveedor no esta autorizado a enviar "
        "comprobantes del contribuyente"
    ),
    "0155": "El archivo ZIP esta vacio",
    "0156": "El archivo ZIP esta corrupto",
    "0157": "El archivo ZIP no contiene comprobantes",
    "0158": "El archivo ZIP contiene demasiados comprobantes para este tipo de envío",
    "0159": "El nombre del archivo XML es incorrecto",
    "0160": "El archivo XML esta vacio",
    "0161": "El nombre del archivo XML no coincide con el nombre del archivo ZIP",
    "0200": "No se pudo procesar su solicitud. (Ocurrio un error en el batch)",
    "0201": "No se pudo procesar su solicitud. (Llego un requerimiento nulo al batch)",
    "0202": "No se pudo procesar su solicitud. (No llego información del archivo ZIP)",
    "0203": "No se pudo procesar su solicitud. (No se encontro archivos en la informacion del archivo ZIP)",
    "0204": "No se pudo procesar su solicitud. (Este tipo de requerimiento solo acepta 1 archivo)",
    "0300": "No se encontró la raíz documento xml",
    "0305": "El sistema no puede procesar el archivo xml",
    "0306": "No se puede leer (parsear) el archivo XML",
    "0307": "No se pudo recuperar la constancia",
    "0402": "La numeracion o nombre del documento ya ha sido enviado anteriormente",
    "1001": "ID - El dato SERIE-CORRELATIVO no cumple con el formato de acuerdo al tipo de comprobante",
    "1003": (
        "InvoiceTypeCode - El valor del tipo de documento es invalido o no coincide con el nombre del archivo"
    ),
    "1004": "El XML no contiene el tag o no existe informacion de InvoiceTypeCode",
    "1032": "El comprobante ya esta informado y se encuentra con estado anulado o rechazado",
    "1033": "El comprobante fue registrado previamente con otros datos",
    "1034": (
        "Número de RUC del nombre del archivo no coincide con el consignado en el contenido del archivo XML"
    ),
    "1035": (
        "Numero de Serie del nombre del archivo no coincide con el consignado en el contenido del archivo XML"
    ),
    "1036": (
        "Número de documento en el nombre del archivo no coincide con el consignado en el contenido del XML"
    ),
    "1078": "El emisor no se encuentra autorizado a emitir en el SEE-Desde los sistemas del contribuyente",
    "1079": "Solo puede enviar el comprobante en un resumen diario",
    "2010": "El contribuyente no esta activo",
    "2011": "El contribuyente no esta habido",
    "2014": (
        "El XML no contiene el tag o no existe informacion del número de documento de identidad del "
        "receptor del documento"
    ),
    "2015": (
        "El XML no contiene el tag o no existe informacion del tipo de documento de identidad del "
        "receptor del documento"
    ),
    "2016": (
        "El dato ingresado en el tipo de documento de identidad del receptor no cumple con el estandar o "
        "no esta permitido."
    ),
    "2017": "El numero de documento de identidad del receptor debe ser RUC",
    "2021": (
        "El XML no contiene el tag o no existe informacion de RegistrationName del receptor del documento"
    ),
    "2022": "RegistrationName - El dato ingresado no cumple con el estandar",
    "2070": "El XML no contiene el tag o no existe informacion de DocumentCurrencyCode",
    "2071": (
        "La moneda debe ser la misma en todo el documento. Salvo las percepciones que sólo son en moneda "
        "nacional"
    ),
    "2072": "CustomizationID - La versión del documento no es la correcta",
    "2073": "El XML no existe informacion de CustomizationID",
    "2074": "UBLVersionID - La versión del UBL no es correcta",
    "2075": "El XML no contiene el tag o no existe informacion de UBLVersionID",
    "2101": (
        "El XML no contiene el tag "
        "ext:UBLExtensions/.../ds:Signature/ds:KeyInfo/ds:X509Data/ds:X509Certificate"
    ),
    "2104": "Numero de RUC del emisor no existe",
    "2105": "Comprobante a dar de baja no se encuentra registrado en SUNAT",
    "2108": "Presentacion fuera de fecha",
    "2116": "El tipo de documento modificado por la Nota de credito debe ser factura electronica o ticket",
    "2220": "El ID debe coincidir con el nombre del archivo",
    "2223": "El archivo ya fue presentado anteriormente",
    "2282": "Existe documento ya informado anteriormente",
    "2323": "Existe documento ya informado anteriormente en una comunicacion de baja",
    "2324": "El archivo de comunicacion de baja ya fue presentado anteriormente",
    "2329": "La fecha de emision se encuentra fuera del limite permitido",
    "2334": "El documento electrónico ingresado ha sido alterado",
    "2335": "El documento electrónico ingresado ha sido alterado",
    "2336": "Ocurrió un error en el proceso de validación de la firma digital",
    "2346": (
        "La fecha de generación del resumen debe ser igual a la fecha consignada en el nombre del archivo"
    ),
    "2375": (
        "Fecha de emision del comprobante no coincide con la fecha de emision consignada en la comunicación"
    ),
    "2398": "El documento a dar de baja se encuentra rechazado",
    "2399": "El tipo de documento modificado por la Nota de credito debe ser boleta electronica",
    "2503": "PaidAmount: monto anticipado por documento debe ser mayor a cero.",
    "2509": "Total de anticipos diferente a los montos anticipados por documento.",
    "2798": "El Monto de percepcion no tiene el valor correcto según el tipo de percepcion.",
    "3220": "Si consigna montos de anticipo debe informar el Total de Anticipos",
    "2514": "No existe información de receptor de documento.",
    "2638": "Si tiene operaciones de un tributo en alguna línea, debe consignar el tag del total del tributo",
    "2640": "Operacion gratuita, solo debe consignar un monto referencial",
    "2641": "Operacion gratuita, debe consignar Total valor venta - operaciones gratuitas mayor a cero",
    "2663": "El documento indicado no existe no puede ser modificado",
    "2800": "El dato ingresado en el tipo de documento de identidad del receptor no esta permitido.",
    "2801": "El DNI ingresado no cumple con el estandar.",
    "2802": (
        "El dato ingresado como numero de documento de identidad del receptor no cumple con el formato "
        "establecido"
    ),
    "2957": "El comprobante no puede ser dado de baja por exceder el plazo desde su fecha de emision",
    "2987": "El comprobante ya fue informado y se encuentra anulado o rechazado.",
    "2993": "El factor de afectación de IGV por linea debe ser diferente a 0.00.",
    "3014": "El codigo de leyenda no debe repetirse en el comprobante.",
    "3027": "El valor del atributo no se encuentra en el catálogo",
    "3030": "El XML no contiene el tag o no existe información del código de local anexo del emisor",
    "3033": "El codigo de bien o servicio sujeto a detracción no existe en el listado.",
    "3034": "El xml no contiene el tag o no existe información en el nro de cuenta de detracción",
    "3035": "El xml no contiene el tag o no existe información en el monto de detraccion",
    "3088": "El valor ingresado como moneda del comprobante no es valido (catalogo nro 02).",
    "3093": "Si el tipo de operación es Operación Sujeta a Percepción, debe ingresar cargo para Percepción",
    "3094": 'El comprobante más "código de operación del ítem" no debe repetirse',
    "3095": "El comprobante no debe ser emitido y editado en el mismo envío",
    "3096": "El comprobante no debe ser editado y anulado en el mismo envío",
    "3101": (
        "El factor de afectación de IGV por linea debe ser igual a 0.00 para Exoneradas, Inafectas, "
        "Exportación, Gratuitas de exoneradas o Gratuitas de inafectas."
    ),
    "3103": (
        "El producto del factor y monto base de la afectación del IGV/IVAP no corresponde al monto de "
        "afectacion de linea."
    ),
    "3105": "El XML debe contener al menos un tributo por linea de afectacion por IGV",
    "3110": (
        "El monto de afectacion de IGV por linea debe ser igual a 0.00 para Exoneradas, Inafectas, "
        "Exportación, Gratuitas de exoneradas o Gratuitas de inafectas."
    ),
    "3111": "El monto de afectación de IGV por linea debe ser diferente a 0.00.",
    "3127": (
        "El XML no contiene el tag o no existe información del Codigo de BBSS de detracción para el tipo "
        "de operación."
    ),
    "3128": (
        "El XML contiene información de codigo de bien y servicio de detracción que no corresponde al "
        "tipo de operación."
    ),
    "3129": "El dato ingresado como codigo de BBSS de detracción no corresponde al valor esperado.",
    "3116": (
        "El XML no contiene el tag o no existe información del ubigeo de punto de origen en Detracciones "
        "- Servicio de transporte de carga."
    ),
    "3117": (
        "El XML no contiene el tag o no existe información de la dirección del punto de origen en "
        "Detracciones - Servicio de transporte de carga."
    ),
    "3118": (
        "El XML no contiene el tag o no existe información del ubigeo de punto de destino en "
        "Detracciones - Servicio de transporte de carga."
    ),
    "3119": (
        "El XML no contiene el tag o no existe información de la dirección del punto de destino en "
        "Detracciones - Servicio de transporte de carga."
    ),
    "3120": (
        "El XML no contiene el tag o no existe información del Detalle del viaje en Detracciones - "
        "Servicio de transporte de carga."
    ),
    "3122": (
        "El XML no contiene el tag o no existe información del monto del valor referencial en "
        "Detracciones - Servicios de transporte de carga."
    ),
    "3123": (
        "El dato ingresado como monto valor referencial en Detracciones - Servicios de transporte de "
        "carga no cumple con el formato establecido."
    ),
    "3124": (
        "Detracciones - Servicio de transporte de carga, debe tener un (y solo uno) Valor Referencial "
        "del Servicio de Transporte."
    ),
    "3125": (
        "Detracciones - Servicio de transporte de carga, debe tener un (y solo uno) Valor Referencial "
        "sobre la carga efectiva."
    ),
    "3126": (
        "Detracciones - Servicio de transporte de carga, debe tener un (y solo uno) Valor Referencial "
        "sobre la carga util nominal."
    ),
    "3205": "Debe consignar el tipo de operación",
    "3206": "El dato ingresado como tipo de operación no corresponde a un valor esperado (catálogo nro. 51)",
    "3224": (
        "Si existe 'Valor referencial unitario en operac. no onerosas' con monto mayor a cero, la "
        "operacion debe ser gratuita (codigo de tributo 9996)"
    ),
    "3233": "Para cargo Percepción, debe ingresar monto base y debe ser mayor a 0.00",
    "3234": "El código de precio '02' es sólo para operaciones gratuitas",
    "3236": (
        "El valor ingresado en el campo cac:TaxSubtotal/cbc:BaseUnitMeasure no corresponde al valor esperado"
    ),
    "3237": "Debe consignar el campo cac:TaxSubtotal/cbc:BaseUnitMeasure a nivel de ítem",
    "3238": (
        "El valor ingresado en el campo cac:TaxSubtotal/cbc:PerUnitAmount del ítem no corresponde al "
        "valor esperado"
    ),
    "3244": "Debe consignar la informacion del tipo de transaccion del comprobante",
    "3245": "Debe informar si el tipo de transaccion es al Contado o al Credito",
    "3246": "El tipo de transaccion o el identificador de la cuota no cumple con el formato esperado",
    "3247": "El tipo de transaccion no puede ser a la vez al Contado y al Credito",
    "3248": "El tipo de transaccion o el identificador de la cuota no debe repetirse en el comprobante",
    "3249": "Si el tipo de transaccion es al Credito debe existir al menos información de una cuota de pago",
    "3250": "El Monto neto pendiente de pago no cumple el formato definido",
    "3251": "Si el tipo de transaccion es al Credito debe consignarse el Monto neto pendiente de pago",
    "3252": "Si existe información de cuota de pago, el tipo de transaccion debe ser al credito",
    "3253": "El Monto del pago único o de las cuotas no cumple el formato definido",
    "3254": "Si se consigna información de la cuota de pago, debe indicarse el monto de la cuota",
    "3255": "Fecha del pago único o de las cuotas no cumple el formato definido",
    "3256": (
        "Si se consigna información de la cuota de pago, debe indicarse la fecha del pago único o de las "
        "cuotas"
    ),
    "3257": "Para el tipo de nota de credito 13 debe consignar información de la operación al credito",
    "3259": "Para el tipo de nota de credito 13 el documento afectado debe ser Factura",
    "3260": "Para el tipo de nota de credito 13 el documento afectado debe ser Factura al credito",
    "3261": "Para el tipo de nota de credito 13 no se puede modificar mas de una factura en la nota",
    "3262": "Si existe retencion de IGV en el comprobante, el receptor debe ser un Agente de Retencion",
    "3263": "El Importe de la retencion no tiene el valor correcto",
    "3264": (
        "El importe total de la operación (base imponible de retencion) no puede ser mayor al importe "
        "total del comprobante."
    ),
    "3265": "El Monto neto pendiente de pago debe ser menor o igual al Importe total del comprobante",
    "3266": "El Monto del pago único o de las cuotas debe ser menor o igual al Importe total del comprobante",
    "3267": (
        "Fecha del pago único o de las cuotas no puede ser anterior a la fecha de emisión del comprobante"
    ),
    "3268": "El código de local anexo consignado no se encuentra declarado en el RUC",
    "3270": (
        "El precio unitario de la operación que está informando difiere de los cálculos realizados en "
        "base a la información remitida"
    ),
    "3271": "El valor de venta por ítem difiere de los importes consignados.",
    "3272": "La base imponible a nivel de línea difiere de la información consignada en el comprobante",
    "3273": "La sumatoria del total valor de venta - Exportaciones de línea no corresponden al total",
    "3274": "La sumatoria del total valor de venta - operaciones inafectas de línea no corresponden al total",
    "3275": (
        "La sumatoria del total valor de venta - operaciones exoneradas de línea no corresponden al total"
    ),
    "3276": "La sumatoria del total valor de venta - operaciones gratuitas de línea no corresponden al total",
    "3277": "La sumatoria del total valor de venta - operaciones gravadas de línea no corresponden al total",
    "3278": "La sumatoria de valor de venta no corresponde a los importes consignados",
    "3279": "La sumatoria del Total del valor de venta más los impuestos no concuerda con la base imponible",
    "3280": "El importe total del comprobante no coincide con el valor calculado",
    "3281": (
        "El emisor electrónico no se encuentra inscrito en el Registro de Establecimientos Autorizados (REA)"
    ),
    "3282": (
        "Si se informa descuentos globales por anticipo debe existir 'Total de anticipos' con monto mayor"
        " a cero"
    ),
    "3286": "El monto total de la nota de credito debe ser menor o igual al monto de la factura",
    "3287": (
        "Si se informa 'Total de anticipos' debe consignar los descuentos globales por anticipo con monto"
        " mayor a cero"
    ),
    "3288": "Debe consignar el Total Valor de Venta",
    "3289": (
        "Si se utiliza la leyenda con código 2008, el total de operaciones exoneradas debe ser mayor a 0.00"
    ),
    "3114": "El dato ingresado como indicador de cargo/descuento no corresponde al valor esperado.",
    "3290": "El valor de cargo/descuento por ítem difiere de los importes consignados.",
    "3291": "El cálculo del IGV es Incorrecto",
    "3292": (
        "El importe total de impuestos por línea no coincide con la sumatoria de los impuestos por línea."
    ),
    "3293": "La sumatoria del total valor de venta - IVAP de línea no corresponden al total",
    "3294": "La sumatoria de impuestos globales no corresponde al monto total de impuestos.",
    "3295": "El importe del IVAP no corresponden al determinado por la informacion consignada.",
    "3296": "La sumatoria del monto base - ISC de línea no corresponden al total",
    "3297": "La sumatoria del monto base - Otros tributos de línea no corresponden al total",
    "3298": "La sumatoria del total del importe del tributo ISC de línea no corresponden al total",
    "3299": "La sumatoria del total del importe del tributo Otros tributos de línea no corresponden al total",
    "2955": (
        "El formato ingresado en el tag cac:InvoiceLine/cac:Allowancecharge/cbc:Amount no cumple con el "
        "formato establecido"
    ),
    "2968": "El dato ingresado en cac:AllowanceCharge/cbc:Amount no cumple con el formato establecido.",
    "3300": "La sumatoria consignados en descuentos globales no corresponden al total.",
    "3301": "La sumatoria consignados en cargos globales no corresponden al total",
    "3302": (
        "La sumatoria de los IGV de operaciones gratuitas de la línea (codigo tributo 9996) no "
        "corresponden al total"
    ),
    "3303": "El monto para el redondeo del Importe Total excede el valor permitido",
    "3304": "La moneda del monto para el redondeo debe ser PEN",
    "3305": "Debe consignar el Total Precio de Venta",
    "3306": "La sumatoria del total del importe del tributo ICBPER de línea no corresponden al total",
    "3307": "El valor de cargo/descuento global difiere de los importes consignados",
    "3308": (
        "Solo debe consignar informacion de percepciones si el tipo de operación es 2001-Operación sujeta a "
        "Percepcion"
    ),
    "3309": "Si forma de pago es Contado debe consignar un Payment Terms con indicador Percepcion",
    "3315": "Si el tipo de nota de credito es 13, el Importe total debe ser cero",
    "3319": "La suma de las cuotas debe ser igual al Monto neto pendiente de pago.",
    "3320": "El monto neto pendiente de pago debe ser menor o igual al monto de la factura",
    "3321": "La fecha de la cuota debe ser mayor a la fecha de emisión de la factura",
    "3330": 'Solo debe consignar informacion de percepciones si la forma de pago es "Contado"',
    "4200": "Debe corresponder a algún valor válido establecido en el catálogo 13",
    "4207": "El DNI debe tener 8 caracteres numéricos",
    "4208": (
        "El dato ingresado como numero de documento de identidad del receptor no cumple con el formato "
        "establecido"
    ),
    "4264": "El XML no contiene el codigo de leyenda 2007 para el tipo de operación IVAP",
    "4265": "El XML no contiene el codigo de leyenda 2006 para tipo de operación de detracciones",
    "4266": "El XML no contiene el codigo de leyenda 2005 para el tipo de operación Venta itinerante",
    "4318": (
        "El dato ingresado en el campo cac:TaxSubtotal/cbc:TaxAmount del ítem no coincide con el valor "
        "calculado"
    ),
    "4320": "El dato ingresado como unidad de medida no corresponde al valor esperado",
    "4332": "El Código producto de SUNAT no es válido",
    "4337": (
        "El Codigo de producto SUNAT debe especificarse como minimo al tercer nivel jerarquico (a nivel "
        "de clase del codigo UNSPSC)"
    ),
    "4438": (
        "La tasa del IGV debe ser la misma en todas las líneas o ítems del documento y debe corresponder "
        "con una tasa vigente."
    ),
    "4439": "El emisor no se encuentra en el Padrón de IGV 10%.",
    "4443": "La fecha de referencia del comprobante informado en el resumen excede el plazo de envío",
    "0140": "Existe otro documento igual en proceso",
    "0301": "Elemento raiz del xml no esta definido",
    "0302": "Codigo del tipo de comprobante no registrado",
    "2040": "El tipo de afectacion del IGV es incorrecto",
    "2117": (
        "La serie o numero del documento modificado por la Nota de Credito no cumple con el formato "
        "establecido"
    ),
    "2119": "El documento modificado en la Nota de credito no esta registrada.",
    "2120": "El documento modificado en la Nota de credito se encuentra de baja",
    "2121": "El documento modificado en la Nota de credito esta registrada como rechazada",
    "2204": (
        "El tipo de documento modificado por la Nota de Debito debe ser factura electronica, ticket o "
        "documento autorizado"
    ),
    "2207": "El documento modificado en la Nota de debito se encuentra de baja",
    "2208": "El documento modificado en la Nota de debito esta registrada como rechazada",
    "2209": "El documento modificado en la Nota de debito no esta registrada",
    "2327": "El certificado usado no se encuentra vigente",
    "2371": "El XML no contiene el tag cbc:TaxExemptionReasonCode de Afectacion al IGV",
    "2400": "El tipo de documento modificado por la Nota de debito debe ser boleta electronica",
    "2524": "Debe indicar el documento afectado por la nota",
    "3202": "El numero de RUC del receptor no existe.",
    # daily summaries (RC) and voided communications (RA)
    "2212": "UBLVersionID - La versión del UBL del resumen de boletas no es correcta",
    "2214": "CustomizationID - La versión del resumen de boletas no es correcta",
    "2236": "La fecha del IssueDate no debe ser mayor a la fecha de recepción",
    "2241": "DocumentTypeCode - El valor del tipo de documento es invalido",
    "2280": "Existen problemas con la informacion del resumen de comprobantes",
    "2301": "La fecha del IssueDate no debe ser mayor a la fecha de recepción",
    "2308": "DocumentTypeCode - El valor del tipo de documento es invalido",
    "2317": "Error al procesar el resumen de anulados",
    "2348": "Los documentos informados en el archivo XML se encuentran duplicados",
    "1049": "ID - Serie y Número del archivo no coincide con el consignado en el contenido del XML.",
    "2110": "UBLVersionID - La versión del UBL no es correcta",
    "2111": "El XML no contiene el tag o no existe informacion de UBLVersionID",
    "2112": "CustomizationID - La version del documento no es correcta",
    "2113": "El XML no contiene el tag o no existe informacion de CustomizationID",
    "2724": "El valor ingresado como documento de identidad del proveedor es incorrecto",
    "2672": "La fecha de generación del documento revertido debe ser menor o igual a la fecha actual.",
    "2511": "El tipo de documento no es aceptado.",
    "2719": (
        "El XML no contiene el tag o no existe información de la moneda de referencia para el tipo de cambio"
    ),
    "2721": "El XML no contiene el tag o no existe información del tipo de cambio",
    "2603": "La tasa de percepción enviada no corresponde con el régimen de percepción.",
    "2604": "El Cliente no puede ser el mismo que el Emisor del comprobante de percepción.",
    "2608": (
        "Los montos de pago, percibidos y montos cobrados consignados para el documento relacionado no "
        "son correctos."
    ),
    "2618": "El régimen retención enviado no corresponde con su condición de Agente de retención.",
    "2602": "El régimen percepción enviado no corresponde con su condición de Agente de percepción.",
    "2619": "La tasa de retención enviada no corresponde con el régimen de retención.",
    "2620": "El Proveedor no puede ser el mismo que el Emisor del comprobante de retención.",
    "2622": "La moneda del importe de pago debe ser la misma que la del documento relacionado.",
    "2623": (
        "Los montos de pago, retenidos y montos pagados consignados para el documento relacionado no "
        "son correctos."
    ),
    "2626": (
        "El Nro. de documento con el número de pago ya se encuentra en la Relación de Documentos "
        "Relacionados agregados."
    ),
    "2628": (
        "Importe total retenido debe ser igual a la suma de los importes retenidos por cada documento "
        "relacionado."
    ),
    "2629": (
        "Importe total pagado debe ser igual a la suma de los importes pagados por cada documento "
        "relacionado."
    ),
    "2659": (
        "La fecha de cobro de cada documento relacionado deben ser del mismo Periodo (mm/aaaa), asimismo "
        "estas fechas podrán ser menores o iguales a la fecha de emisión del comprobante de percepción"
    ),
    "2661": (
        "La fecha de cobro de cada documento relacionado deben ser del mismo Periodo (mm/aaaa), asimismo "
        "estas fechas podrán ser menores o iguales a la fecha de emisión del comprobante de retencion"
    ),
    "2667": (
        "Importe total percibido debe ser igual a la suma de los importes percibidos por cada documento "
        "relacionado."
    ),
    "2668": (
        "Importe total cobrado debe ser igual a la suma de los importes cobrados por cada documento "
        "relacionado."
    ),
    "2749": (
        "La moneda de referencia para el tipo de cambio debe ser la misma que la del documento relacionado"
    ),
    "2671": (
        "La fecha de generación de la comunicación/resumen debe ser mayor o igual a la fecha de "
        "generación/emisión de los documentos"
    ),
    "4203": "El dato ingresado en VoidReasonDescription debe contener información válida",
    # SUNAT's texts of the codes the simulator answers as SUNAT's stylesheets do (CatalogoErrores.xml)
    "2172": "ResponseCode - El dato ingresado no cumple con la estructura",
    "2251": "El dato ingresado en TotalAmount debe ser numerico mayor o igual a cero",
    "2314": "El dato ingresado en VoidReasonDescription debe contener información válida",
    "2679": (
        "El XML no contiene el tag o no existe información del número de documento de identidad del cliente"
    ),
    "2896": "El código ingresado como estado del ítem no existe en el catálogo",
    "4287": (
        "El precio unitario de la operación que está informando difiere de los cálculos "
        "realizados en base a la información remitida"
    ),
    "4288": "El valor de venta por ítem difiere de los importes consignados.",
    "4290": "El cálculo del IGV es Incorrecto",
    "4293": (
        "El importe total de impuestos por línea no coincide con la sumatoria de los impuestos por línea."
    ),
    "4294": "La base imponible a nivel de línea difiere de la información consignada en el comprobante",
    "4295": "La sumatoria del total valor de venta - Exportaciones de línea no corresponden al total",
    "4296": "La sumatoria del total valor de venta - operaciones inafectas de línea no corresponden al total",
    "4297": (
        "La sumatoria del total valor de venta - operaciones exoneradas de línea no corresponden al total"
    ),
    "4298": "La sumatoria del total valor de venta - operaciones gratuitas de línea no corresponden al total",
    "4299": "La sumatoria del total valor de venta - operaciones gravadas de línea no corresponden al total",
    "4300": "La sumatoria del total valor de venta - IVAP de línea no corresponden al total",
    "4301": "La sumatoria de impuestos globales no corresponde al monto total de impuestos.",
    "4302": "El importe del IVAP no corresponden al determinado por la informacion consignada.",
    "4309": "La sumatoria de valor de venta no corresponde a los importes consignados",
    "4310": "La sumatoria del Total del valor de venta más los impuestos no concuerda con la base imponible",
    "4312": "El importe total del comprobante no coincide con el valor calculado",
}


#: Codes of the dispatch guide rules (GRE 2022): SUNAT's texts (its published CodeErrors, else the
#: error catalogue of its GRE stylesheets).
RESPONSE_CODES.update(
    {
        "1050": "El XML no contiene informacion en el tag DespatchAdviceTypeCode.",
        "1051": "DespatchAdviceTypeCode - El valor del tipo de guía es inválido.",
        "2110": "UBLVersionID - La versión del UBL no es correcta",
        "2111": "El XML no contiene el tag o no existe informacion de UBLVersionID",
        "2112": "CustomizationID - La version del documento no es correcta",
        "2113": "El XML no contiene el tag o no existe informacion de CustomizationID",
        "2485": "Tipo de documento de identidad debe ser RUC",
        "2523": "GrossWeightMeasure - El dato ingresado no cumple con el formato establecido.",
        "2532": "No existe información de modalidad de transporte.",
        "2558": "El XML no contiene el tag o no existe informacion en Numero de Ruc del transportista.",
        "2554": "Para el motivo de traslado ingresado el Destinatario debe ser igual al remitente.",
        "2555": "Destinatario no debe ser igual al remitente.",
        "2560": "Transportista no debe ser igual al remitente o destinatario.",
        "2561": (
            "El XML no contiene el tag o no existe informacion del tipo de documento identidad del "
            "transportista."
        ),
        "2563": (
            "El XML no contiene el tag o no existe informacion de Apellido, Nombre o razon social del "
            "transportista."
        ),
        "2566": "El XML no contiene el tag o no existe informacion del Numero de placa del vehículo.",
        "2567": "Numero de placa del vehículo - El dato ingresado no cumple con el formato establecido.",
        "2568": (
            "El XML no contiene el tag o no existe informacion en el Numero de documento de identidad "
            "del conductor."
        ),
        "2569": "Documento identidad del conductor - El dato ingresado no cumple con el formato establecido.",
        "2570": (
            "El XML no contiene el tag o no existe informacion del tipo de documento identidad del conductor."
        ),
        "2572": "El XML no contiene el tag o no existe informacion del Numero de licencia del conductor.",
        "2573": "Numero de licencia del conductor - El dato ingresado no cumple con el formato establecido.",
        "2574": (
            "El XML no contiene el tag o no existe informacion de direccion detallada de punto de llegada."
        ),
        "2577": (
            "El XML no contiene el tag o no existe informacion de direccion detallada de punto de partida."
        ),
        "2692": "El tipo de documento relacionado no es válido",
        "2757": (
            "El XML no contiene el tag o no existe información del número de documento de identidad "
            "del destinatario."
        ),
        "2759": (
            "El XML no contiene el atributo o no existe información del tipo de documento del destinatario."
        ),
        "2760": "El valor ingresado como tipo de documento del destinatario es incorrecto.",
        "2773": "El valor ingresado como modalidad de transporte no es correcto.",
        "2775": "El XML no contiene el atributo o no existe informacion del codigo de ubigeo.",
        "2776": "El valor ingresado como codigo de ubigeo no cumple con el estandar.",
        "2880": "Es obligatorio ingresar el peso bruto total de la guía",
        "2881": "Es obligatorio indicar la unidad de medida del Peso Total de la guía",
        "3343": "La Fecha de inicio del traslado debe ser mayor o igual a la Fecha de emision del documento",
        "3347": "No debe consignar los datos del transportista para una operacion de Transporte Privado",
        "3357": "Debe consignar informacion del conductor principal",
        "3358": "Solo debe existir informacion de un conductor principal",
        "3363": "El codigo de ubigeo del punto de partida no existe",
        "3368": "El codigo de ubigeo del punto de llegada no existe",
        "3403": "El XML no contiene el tag o no existe informacion del numero de documento relacionado",
        "3404": "El XML no contiene el tag o no existe informacion del motivo de traslado",
        "3405": "El valor ingresado como motivo de traslado no es valido",
        "3406": (
            "El XML no contiene el tag o no existe informacion de la fecha de inicio de traslado o "
            "fecha de entrega del bien al Transportista"
        ),
        "3407": (
            "El valor ingresado  como fecha de inicio o fecha de entrega al Transportista no cumple "
            "con el estandar (YYYY-MM-DD)"
        ),
        "3411": (
            "El Numero de RUC  asociado al punto de partida/llegada no debe ser el igual al Numero de RUC "
            "del remitente"
        ),
        "3436": "El campo de fecha de emision no cumple con el formato establecido",
        "3437": "No existe informacion en el campo de hora de emision",
        "3438": "El campo de hora de emision no cumple con el formato establecido",
        "4375": "Corresponde ingresar informacion del Proveedor",
        "4386": (
            "La Fecha de entrega de bienes al transportista debe ser mayor o igual a la Fecha de "
            "emision del documento"
        ),
        "4391": "El Numero de Registro MTC del transportista no existe o no contiene informacion",
        "4392": "El Numero de Registro MTC del transportista no cumple con el formato establecido",
    }
)


#: The ``statusCode`` / ``statusMessage`` pairs of SUNAT's ``billConsultService`` (``getStatus`` of one
#: document). ``getStatusCdr`` answers 0004 with its own message when it returns the CDR: the same number
#: means two things depending on the operation.
CONSULT_STATUS: dict[str, str] = {
    "0001": "El comprobante existe y está aceptado.",
    "0002": "El comprobante existe pero está rechazado.",
    "0003": "El comprobante existe pero está de baja.",
    "0004": "Formato de RUC no es válido (debe de contener 11 caracteres numéricos).",
    "0005": "Formato del tipo de comprobante no es válido (debe de contener 2 caracteres).",
    "0006": "Formato de serie inválido (debe de contener 4 caracteres).",
    "0007": "El numero de comprobante debe de ser mayor que cero.",
    "0008": "El número de RUC no está inscrito en los registros de la SUNAT.",
    "0009": "EL tipo de comprobante debe de ser (01, 07 o 08).",
    "0010": "Sólo se puede consultar facturas, notas de crédito y debito electrónicas, cuya serie empieza "
    'con "F"',
    "0011": "El comprobante de pago electrónico no existe.",
    "0012": "El comprobante de pago electrónico no le pertenece.",
}
#: ``getStatusCdr``'s answer when it returns the CDR (``statusCode`` 0004).
CDR_EXISTS = "La constancia existe"


#: The exception codes (0100-1999) of SUNAT's CodeErrors catalogue not listed above: any of them may come
#: back from SUNAT (and be injected at the simulator), with its text.
RESPONSE_CODES.update(
    {
        "0250": "No se pudo procesar su solicitud. (Ocurrio un error desconocido al hacer unzip)",
        "0251": "No se pudo procesar su solicitud. (No se pudo crear un directorio para el unzip)",
        "0252": "No se pudo procesar su solicitud. (No se encontro archivos dentro del zip)",
        "0253": "No se pudo procesar su solicitud. (No se pudo comprimir la constancia)",
        "0303": "No existe el directorio de schemas",
        "0304": "No existe el archivo de schema",
        "0400": "No tiene permiso para enviar casos de pruebas",
        "0401": "El caso de prueba no existe",
        "0403": "El documento afectado por la nota no existe",
        "0404": "El documento afectado por la nota se encuentra rechazado",
        "1002": "El XML no contiene informacion en el tag ID",
        "1005": "CustomerAssignedAccountID - El dato ingresado no cumple con el estandar",
        "1006": (
            "El XML no contiene el tag o no existe informacion de CustomerAssignedAccountID del emisor del "
            "documento"
        ),
        "1007": "El dato ingresado no cumple con el estandar",
        "1008": "El XML no contiene el tag o no existe informacion en tipo de documento del emisor.",
        "1009": "IssueDate - El dato ingresado no cumple con el patron YYYY-MM-DD",
        "1010": "El XML no contiene el tag IssueDate",
        "1011": "IssueDate- El dato ingresado no es valido",
        "1012": "ID - El dato ingresado no cumple con el patron SERIE-CORRELATIVO",
        "1013": "El XML no contiene informacion en el tag ID",
        "1014": "CustomerAssignedAccountID - El dato ingresado no cumple con el estandar",
        "1015": (
            "El XML no contiene el tag o no existe informacion de CustomerAssignedAccountID del emisor del "
            "documento"
        ),
        "1016": "AdditionalAccountID - El dato ingresado no cumple con el estandar",
        "1017": "El XML no contiene el tag AdditionalAccountID del emisor del documento",
        "1018": "IssueDate - El dato ingresado no cumple con el patron YYYY-MM-DD",
        "1019": "El XML no contiene el tag IssueDate",
        "1020": "IssueDate- El dato ingresado no es valido",
        "1021": "Error en la validacion de la nota de credito",
        "1022": (
            "La serie o numero del documento modificado por la Nota Electrónica no cumple con el formato "
            "establecido"
        ),
        "1023": "No se ha especificado el tipo de documento modificado por la Nota electronica",
        "1024": "CustomerAssignedAccountID - El dato ingresado no cumple con el estandar",
        "1025": (
            "El XML no contiene el tag o no existe informacion de CustomerAssignedAccountID del emisor del "
            "documento"
        ),
        "1026": "AdditionalAccountID - El dato ingresado no cumple con el estandar",
        "1027": "El XML no contiene el tag AdditionalAccountID del emisor del documento",
        "1028": "IssueDate - El dato ingresado no cumple con el patron YYYY-MM-DD",
        "1029": "El XML no contiene el tag IssueDate",
        "1030": "IssueDate- El dato ingresado no es valido",
        "1031": "Error en la validacion de la nota de debito",
        "1037": (
            "El XML no contiene el tag o no existe informacion de RegistrationName del emisor del documento"
        ),
        "1038": "RegistrationName - El nombre o razon social del emisor no cumple con el estandar",
        "1039": "Solo se pueden recibir notas electronicas que modifican facturas",
        "1040": "El tipo de documento modificado por la nota electronica no es valido",
        "1041": (
            "cac:PrepaidPayment/cbc:ID - El tag no contiene el atributo @SchemaID. que indica el tipo de "
            "documento que realiza el anticipo"
        ),
        "1042": (
            "cac:PrepaidPayment/cbc:InstructionID - El tag no contiene el atributo @SchemaID. Que indica el "
            "tipo de documento del emisor del documento del anticipo."
        ),
        "1043": (
            "cac:OriginatorDocumentReference/cbc:ID - El tag no contiene el atributo @SchemaID. Que indica el"
            " tipo de documento del originador del documento electrónico."
        ),
        "1044": "cac:PrepaidPayment/cbc:InstructionID - El dato ingresado no cumple con el estándar.",
        "1045": "cac:OriginatorDocumentReference/cbc:ID - El dato ingresado no cumple con el estándar.",
        "1046": "cbc:Amount - El dato ingresado no cumple con el estándar.",
        "1047": "cbc:Quantity - El dato ingresado no cumple con el estándar.",
        "1048": (
            "El XML no contiene el tag o no existe información de PrepaidAmount para un documento con "
            "anticipo."
        ),
        "1052": "DespatchAdviceTypeCode - No coincide con el consignado en el contenido del XML.",
        "1053": (
            "cac:OrderReference - El XML no contiene informacion en serie y numero dado de baja (cbc:ID)."
        ),
        "1054": (
            "cac:OrderReference - El valor en numero de documento no cumple con un formato valido "
            "(SERIE-NUMERO)."
        ),
        "1055": (
            "cac:OrderReference - Numero de serie del documento no cumple con un formato valido (EG01 ó "
            "TXXX)."
        ),
        "1056": (
            "cac:OrderReference - El XML no contiene informacion en el código de tipo de documento "
            "(cbc:OrderTypeCode)."
        ),
        "1057": (
            "cac:AdditionalDocumentReference - El XML no contiene el tag o no existe información en el numero"
            " de documento adicional (cbc:ID)."
        ),
        "1058": (
            "cac:AdditionalDocumentReference - El XML no contiene el tag o no existe información en el tipo "
            "de documento adicional (cbc:DocumentTypeCode)."
        ),
        "1059": "El XML no contiene firma digital.",
        "1060": (
            "cac:Shipment - El XML no contiene el tag o no existe informacion del numero de RUC del Remitente"
            " (cac:)."
        ),
        "1061": "El numero de RUC del Remitente no existe.",
        "1062": "El XML no contiene el atributo o no existe informacion del motivo de traslado.",
        "1063": "El valor ingresado como motivo de traslado no es valido.",
        "1064": (
            "El XML no contiene el atributo o no existe informacion en el tag cac:DespatchLine de bienes a "
            "transportar."
        ),
        "1065": "El XML no contiene el atributo o no existe informacion en modalidad de transporte.",
        "1066": "El XML no contiene el atributo o no existe informacion de datos del transportista.",
        "1067": "El XML no contiene el atributo o no existe información de vehiculos.",
        "1068": "El XML no contiene el atributo o no existe información de conductores.",
        "1069": (
            "El XML no contiene el atributo o no existe información de la fecha de inicio de traslado o fecha"
            " de entrega del bien al transportista."
        ),
        "1070": (
            "El valor ingresado como fecha de inicio o fecha de entrega al transportista no cumple con el "
            "estandar (YYYY-MM-DD)."
        ),
        "1071": "El valor ingresado como fecha de inicio o fecha de entrega al transportista no es valido.",
        "1072": "Starttime - El dato ingresado no cumple con el patron HH:mm:ss.SZ.",
        "1073": "StartTime - El dato ingresado no es valido.",
        "1074": (
            "cac:Shipment - El XML no contiene o no existe información en punto de llegada "
            "(cac:DeliveryAddress)."
        ),
        "1075": (
            "cac:Shipment - El XML no contiene o no existe información en punto de partida "
            "(cac:OriginAddress)."
        ),
        "1076": (
            "El XML no contiene el atributo o no existe información de sustento de traslado de mercaderias "
            "para el tipo de operación."
        ),
        "1077": (
            "El XML contiene el tag de sustento de traslado de mercaderias que no corresponde al tipo de "
            "operación."
        ),
        "1080": "Debe enviar su comprobante por el SEE-Empresas supervisadas",
        "1081": (
            "Por el servicio REST de recepcion solo se reciben comprobantes asociados a servicios publicos"
        ),
        "1082": "Por el servicio SOAP de recepcion no se reciben comprobantes asociados a servicios publicos",
    }
)


def response_message(code: str) -> str:
    """SUNAT's message for a response code; a generic text for a code not in :data:`RESPONSE_CODES`. A
    code SUNAT writes unpadded (its faultcode ``soap-env:Server.200``) reads as the padded one (0200)."""
    found = RESPONSE_CODES.get(code)
    if found is None and code.isdigit() and len(code) < 4:
        found = RESPONSE_CODES.get(code.zfill(4))
    return found or f"Código de respuesta {code} de SUNAT"


#: Inventory operation types (PLE Tabla 12, "tipo de operación" of the kardex) as the Facturador PRO tenants
#: seed them, split by direction (``docs/facturador_pro_api.md``, catalogs of the API; 50-57 are tenant
#: additions).
INVENTORY_INPUT_TYPES: dict[str, str] = {
    "02": "Compra",
    "03": "Consignación recibida",
    "05": "Devolución recibida",
    "16": "Saldo inicial",
    "18": "Importación",
    "19": "Entrada de producción",
    "20": "Entrada por devolución de producción",
    "21": "Entrada por transferencia entre almacenes",
    "22": "Entrada por identificación errónea",
    "24": "Entrada por devolución del cliente",
    "26": "Entrada para servicio de producción",
    "29": "Entrada de bienes en préstamo",
    "31": "Entrada de bienes en custodia",
    "50": "Ingreso de otro tipo (50)",
    "52": "Ingreso de otro tipo (52)",
    "54": "Ingreso de otro tipo (54)",
    "55": "Ingreso de otro tipo (55)",
    "57": "Ingreso de otro tipo (57)",
    "91": "Otros (91)",
    "93": "Otros (93)",
    "96": "Otros (96)",
    "99": "Otros",
}
INVENTORY_OUTPUT_TYPES: dict[str, str] = {
    "01": "Venta nacional",
    "04": "Consignación entregada",
    "06": "Devolución entregada",
    "07": "Promoción",
    "08": "Premio",
    "09": "Donación",
    "10": "Salida a producción",
    "11": "Salida por transferencia entre almacenes",
    "12": "Retiro",
    "13": "Mermas",
    "14": "Desmedros",
    "15": "Destrucción",
    "17": "Exportación",
    "23": "Salida por identificación errónea",
    "25": "Salida por devolución al proveedor",
    "27": "Salida por servicio de producción",
    "28": "Ajuste por diferencia de inventario",
    "30": "Salida de bienes en préstamo",
    "32": "Salida de bienes en custodia",
    "33": "Muestras médicas",
    "34": "Publicidad",
    "35": "Gastos de representación",
    "36": "Retiro para entrega a trabajadores",
    "37": "Retiro por convenio colectivo",
    "38": "Retiro por sustitución de bien siniestrado",
    "51": "Salida de otro tipo (51)",
    "53": "Salida de otro tipo (53)",
    "56": "Salida de otro tipo (56)",
}
INVENTORY_OPERATION_TYPES: dict[str, str] = {**INVENTORY_INPUT_TYPES, **INVENTORY_OUTPUT_TYPES}
#: Credit notes (catalog 09) whose goods come back to the warehouse: cancellation and returns.
RETURN_CREDIT_NOTE_TYPES = frozenset({"01", "06", "07"})


#: Payment methods of ``pagos[].codigo_metodo_pago`` (the real services' tenant table).
PAYMENT_METHODS: dict[str, str] = {
    "01": "Efectivo",
    "02": "Tarjeta de crédito",
    "03": "Tarjeta de débito",
    "04": "Transferencia",
    "05": "Factura a 30 días",
    "06": "Tarjeta crédito visa",
    "07": "Contado contraentrega",
    "08": "A 30 días",
    "09": "Otros",
}
