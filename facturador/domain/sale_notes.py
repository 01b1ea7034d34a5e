"""Sale notes (notas de venta, internal document 80; ``docs/facturador_pro_api.md``): issued on a series
NV01..., never sent to SUNAT, printed in A4 or as an 80 mm receipt, and turned at most once into a factura or
boleta.

``POST /api/sale-note`` takes the internal English keys of the real services: ``series_id`` (one of the
tenant's sale-note series, listed by ``GET /api/sale-note/series``), ``customer_id`` (a person of
:mod:`facturador.domain.persons`) or ``force_create_if_not_exist`` with the Spanish
``datos_del_cliente_o_receptor`` (the customer is upserted by number), and ``items[]`` with ``item_id``
(or, forced, ``item.internal_id``: the product is created when new). Every line amount and total is
checked with SUNAT's formulas (``sunat.totals``) as a document's are; an absent header total is taken
from the lines. The note takes its correlative from its series, moves the stock out and records its
kardex lines in one transaction.

``POST /api/sale-note/{id}/generate-cpe`` makes a factura or boleta of the note's lines, customer and
totals through the documents' own issuing (:class:`~facturador.domain.documents.DocumentService`), not
sent (``enviar_xml_firmado`` false: a factura goes with ``/api/documents/send``, a boleta in the day's
summary) and without moving the stock again. The note is claimed first, so two conversions of one note
cannot both issue; it then remembers its document.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import Text as TextType
from sqlalchemy import cast, or_, select, update
from sqlalchemy.engine import Connection

from facturador.context import Caller, ServiceContext, TenantInfo
from facturador.domain import states
from facturador.domain.document_schema import AMOUNT, CUSTOMER, PERCENT, UNIT_VALUE
from facturador.domain.documents import DocumentService, Issued
from facturador.domain.fields import MAX_RECORD_ID, Boolean, Code, Date, List, Number, Object, Text, Time
from facturador.domain.inventory import record_lines, sale_products
from facturador.domain.items import escape_like
from facturador.domain.numbering import take_next_number
from facturador.domain.persons import upsert_document_customer
from facturador.domain.reader import Reader
from facturador.errors import FieldError, ServiceError, conflict, field_error, not_found, validation_error
from facturador.issued import Legend, Line, Party, SalesDocument, Totals
from facturador.render.pdf import render_pdf
from facturador.store.models import (
    DOCUMENTS,
    ESTABLISHMENTS,
    ITEMS,
    PERSONS,
    QUOTATIONS,
    SALE_NOTES,
    SERIES,
    USERS,
    Document,
)
from sunat import catalogs
from sunat import totals as sunat_totals
from sunat.calendar import lima_stamp
from sunat.money import fmt2
from sunat.rates import ALLOWED_IGV_PERCENTS, icbper_rate
from sunat.words import amount_in_words

SALE_NOTE_TYPE = "80"
PDF_FORMATS = ("a4", "ticket")
#: Notes in the list without dates (the real services' ``take(50)``).
LIST_SIZE = 50
ID = Number(integer_digits=10, decimals=0, maximum=MAX_RECORD_ID, absent=None)
#: Line keys of a sale note and the Spanish keys ``sunat.totals`` names them with (for error paths).
LINE_KEYS = {
    "cantidad": "quantity",
    "valor_unitario": "unit_value",
    "precio_unitario": "unit_price",
    "codigo_tipo_precio": "price_type_id",
    "codigo_tipo_afectacion_igv": "affectation_igv_type_id",
    "total_base_igv": "total_base_igv",
    "porcentaje_igv": "percentage_igv",
    "total_igv": "total_igv",
    "total_impuestos": "total_taxes",
    "total_valor_item": "total_value",
    "total_item": "total",
    "total_impuestos_bolsa_plastica": "total_plastic_bag_taxes",
}
#: Header totals: ``model.Totals`` name -> sale-note key (and the Spanish key ``sunat.totals`` uses).
TOTAL_KEYS = {
    "export": ("total_exportation", "total_exportacion"),
    "taxed": ("total_taxed", "total_operaciones_gravadas"),
    "unaffected": ("total_unaffected", "total_operaciones_inafectas"),
    "exonerated": ("total_exonerated", "total_operaciones_exoneradas"),
    "free": ("total_free", "total_operaciones_gratuitas"),
    "igv": ("total_igv", "total_igv"),
    "icbper": ("total_plastic_bag_taxes", "total_impuestos_bolsa_plastica"),
    "taxes": ("total_taxes", "total_impuestos"),
    "value": ("total_value", "total_valor"),
    "total": ("total", "total_venta"),
}
#: Blocks a sale note may carry that this service does not build yet: refused when not empty or zero.
UNSUPPORTED = ("charges", "discounts", "total_charge", "total_discount", "total_prepayment", "total_isc")

NOTE_ITEM = Object(
    name="SaleNoteProduct",
    description="El producto embebido (item); con force_create_if_not_exist se crea por internal_id.",
    fields={
        "internal_id": Text("Código interno.", max_length=30),
        "description": Text("Descripción.", max_length=500),
        "unit_type_id": Code("Unidad de medida.", codes=catalogs.UNITS, catalog="catálogo 03", upper=True),
    },
)
NOTE_LINE = Object(
    name="SaleNoteLine",
    description="Una línea de la nota de venta; sus montos deben cuadrar con las fórmulas de SUNAT.",
    fields={
        "item_id": ID.but(description="El id del producto (ver /api/document/search-items)."),
        "item": NOTE_ITEM,
        "quantity": UNIT_VALUE.but(description="Cantidad.", required=True, minimum="positive"),
        "unit_value": UNIT_VALUE.but(description="Valor unitario (sin IGV).", required=True),
        "unit_price": UNIT_VALUE.but(description="Precio unitario (con IGV).", required=True),
        "price_type_id": Code(
            "Tipo de precio.", required=True, codes=catalogs.PRICE_TYPES, catalog="catálogo 16", digits=2
        ),
        "affectation_igv_type_id": Code(
            "Afectación del IGV.", required=True, codes=catalogs.AFFECTATIONS, catalog="catálogo 07", digits=2
        ),
        "total_base_igv": AMOUNT.but(description="Base del IGV.", required=True),
        "percentage_igv": PERCENT.but(description="Porcentaje del IGV.", required=True),
        "total_igv": AMOUNT.but(description="IGV.", required=True),
        "total_taxes": AMOUNT.but(description="Impuestos de la línea.", required=True),
        "total_value": AMOUNT.but(description="Valor de venta de la línea.", required=True),
        "total": AMOUNT.but(description="Total de la línea.", required=True),
        "total_plastic_bag_taxes": AMOUNT.but(description="ICBPER de la línea."),
    },
)
SALE_NOTE_BODY = Object(
    name="SaleNoteBody",
    description="Una nota de venta (claves internas del servicio real).",
    required=True,
    fields={
        "series_id": ID.but(description="El id de la serie NV (ver /api/sale-note/series).", required=True),
        "establishment_id": ID.but(description="El establecimiento; si se omite, el del usuario."),
        "date_of_issue": Date("Fecha de emisión.", required=True),
        "time_of_issue": Time("Hora de emisión.", required=True),
        "customer_id": ID.but(description="El id del cliente (ver /api/persons/customers/records)."),
        "force_create_if_not_exist": Boolean("Crear el cliente y los productos que no existan."),
        "quotation_id": ID.but(
            description="La cotización de la que sale la nota (ver /api/quotations/list); una cotización "
            "se convierte una sola vez."
        ),
        "datos_del_cliente_o_receptor": CUSTOMER.but(required=False),
        "currency_type_id": Code(
            "Moneda.", required=True, codes=catalogs.CURRENCIES, catalog="ISO 4217", upper=True
        ),
        "exchange_rate_sale": Number("Tipo de cambio.", integer_digits=6, decimals=6),
        **{
            key: AMOUNT.but(description=f"Total ({key}); si se omite, se suma de las líneas.", absent=None)
            for key, _spanish in TOTAL_KEYS.values()
        },
        "items": List(item=NOTE_LINE.but(required=True), min_items=1, max_items=999, required=True),
        "additional_information": Text("Información adicional.", max_length=500),
        "actions": Object(
            name="SaleNoteActions",
            fields={"format_pdf": Code("Formato del PDF.", codes=PDF_FORMATS, lower=True)},
        ),
    },
)
GENERATE_BODY = Object(
    name="GenerateCpeBody",
    description="El comprobante a generar de la nota de venta.",
    required=True,
    fields={
        "codigo_tipo_documento": Code(
            "01 factura o 03 boleta.",
            required=True,
            codes=("01", "03"),
            message="El campo {path} debe ser 01 o 03.",
        ),
        "serie_documento": Text(
            "La serie del comprobante (F001, B001...).", required=True, max_length=4, upper=True
        ),
        "numero_documento": Text("# (el siguiente correlativo).", max_length=8),
        "fecha_de_emision": Date("Fecha de emisión (hoy si se omite)."),
        "hora_de_emision": Time("Hora de emisión."),
        "fecha_de_vencimiento": Date("Fecha de vencimiento."),
        "codigo_condicion_de_pago": Code(
            "01 contado.", codes=("01",), message="Solo se admite 01 (contado)."
        ),
    },
)


@dataclass(frozen=True)
class SavedNote:
    """A stored sale note: its row (a mapping) and the customer's id."""

    id: int
    number: str
    external_id: str
    filename: str
    format_pdf: str


def _line_paths(field: str) -> str:
    """The sale-note path of a ``sunat.totals`` discrepancy (``items.0.total_igv`` ...)."""
    if field.startswith("items."):
        _items, position, key = field.split(".", 2)
        return f"items.{position}.{LINE_KEYS.get(key, key)}"
    if field.startswith("totales."):
        key = field.split(".", 1)[1]
        for english, spanish in TOTAL_KEYS.values():
            if spanish == key:
                return english
    return field


class SaleNoteService:
    """Issues a tenant's sale notes, prints them and turns them into facturas or boletas."""

    def __init__(self, context: ServiceContext, documents: DocumentService):
        self.context = context
        self.documents = documents

    # -- issuing -----------------------------------------------------------------------------------

    def series(self, tenant: TenantInfo) -> list[dict[str, Any]]:
        """``GET /api/sale-note/series``: the tenant's sale-note series with their establishment."""
        with self.context.engine.connect() as connection:
            rows = connection.execute(
                select(SERIES.c.id, SERIES.c.number, SERIES.c.establishment_id, ESTABLISHMENTS.c.description)
                .join(ESTABLISHMENTS, ESTABLISHMENTS.c.id == SERIES.c.establishment_id)
                .where(SERIES.c.tenant_id == tenant.id, SERIES.c.document_type_id == SALE_NOTE_TYPE)
                .order_by(SERIES.c.number)
            ).all()
        return [
            {
                "id": row.id,
                "number": row.number,
                "document_type_id": SALE_NOTE_TYPE,
                "establishment_id": row.establishment_id,
                "establishment_description": row.description,
            }
            for row in rows
        ]

    def issue(self, tenant: TenantInfo, caller: Caller, body: Any) -> SavedNote:
        """``POST /api/sale-note``: check, number and store a sale note, moving its stock out."""
        self.refuse_unsupported(body)
        values = SALE_NOTE_BODY.read_body(body)
        forced = values["force_create_if_not_exist"]
        self.require_ids(values, body, forced)
        with self.context.writing() as connection:
            series = connection.execute(
                select(SERIES.c.id, SERIES.c.number, SERIES.c.establishment_id).where(
                    SERIES.c.tenant_id == tenant.id,
                    SERIES.c.id == int(values["series_id"]),
                    SERIES.c.document_type_id == SALE_NOTE_TYPE,
                )
            ).one_or_none()
            if series is None:
                raise field_error(
                    "series_id",
                    f"La serie {values['series_id']} no es una serie de nota de venta.",
                    "INVALID_SERIES",
                )
            establishment_id = self.resolve_establishment(
                connection, tenant, caller, values["establishment_id"]
            )
            customer_id = self.resolve_customer(connection, tenant, values, forced)
            lines = self.resolve_lines(connection, tenant, values["items"], forced)
            totals = self.header_totals(values, lines)
            self.check_amounts(lines, totals, values["date_of_issue"])
            quotation_id = None
            if values["quotation_id"] is not None:
                quotation_id = claim_quotation(connection, tenant, int(values["quotation_id"]))
            number = take_next_number(connection, series.id)
            if number is None:
                raise field_error(
                    "series_id", f"La serie {series.number} ya usó su último número.", "SERIES_EXHAUSTED"
                )
            external_id = str(uuid.uuid4())
            filename = f"{series.number}-{number}-{values['date_of_issue']:%Y%m%d}"
            format_pdf = (values["actions"] or {}).get("format_pdf") or "a4"
            note_id = connection.execute(
                SALE_NOTES.insert()
                .values(
                    tenant_id=tenant.id,
                    external_id=external_id,
                    establishment_id=establishment_id,
                    user_id=caller.user_id,
                    series_id=series.id,
                    series=series.number,
                    number=number,
                    filename=filename,
                    date_of_issue=values["date_of_issue"],
                    time_of_issue=values["time_of_issue"],
                    customer_id=customer_id,
                    currency_type_id=values["currency_type_id"],
                    exchange_rate_sale=values["exchange_rate_sale"] or Decimal(1),
                    total_exportation=totals.export,
                    total_free=totals.free,
                    total_unaffected=totals.unaffected,
                    total_exonerated=totals.exonerated,
                    total_taxed=totals.taxed,
                    total_igv=totals.igv,
                    total_taxes=totals.taxes,
                    total_value=totals.value,
                    total=totals.total,
                    lines=[line_json(line) for line in lines],
                    format_pdf=format_pdf,
                    quotation_id=quotation_id,
                    data_json=dict(body),
                )
                .returning(SALE_NOTES.c.id)
            ).scalar_one()
            record_lines(
                connection,
                tenant_id=tenant.id,
                establishment_id=establishment_id,
                products=sale_products(
                    lines, values["currency_type_id"], [False] * len(lines), "items.{index}.quantity"
                ),
                direction=-1,
                label=f"Nota de venta {series.number}-{number}",
                sale_note_id=note_id,
            )
        return SavedNote(note_id, f"{series.number}-{number}", external_id, filename, format_pdf)

    @staticmethod
    def require_ids(values: dict[str, Any], body: dict[str, Any], forced: bool) -> None:
        """A customer id and an item id per line, unless forced with the customer's and items' data."""
        reader = Reader()
        if values["customer_id"] is None and not (forced and body.get("datos_del_cliente_o_receptor")):
            reader.missing_field(
                "customer_id",
                "El campo customer_id es obligatorio (o force_create_if_not_exist con el cliente).",
            )
        for index, line in enumerate(values["items"]):
            if line["item_id"] is None and not (forced and line["item"]["internal_id"]):
                reader.missing_field(f"items.{index}.item_id")
        reader.raise_if_errors()

    @staticmethod
    def refuse_unsupported(body: Any) -> None:
        if not isinstance(body, dict):
            return
        present = [key for key in UNSUPPORTED if body.get(key) not in (None, 0, "0", [], {}, "")]
        if present:
            raise ServiceError(
                422,
                f"El bloque {present[0]} aún no está soportado en notas de venta.",
                "UNSUPPORTED_BLOCK",
                [FieldError(key, f"El bloque {key} aún no está soportado.") for key in present],
            )

    @staticmethod
    def resolve_establishment(
        connection: Connection, tenant: TenantInfo, caller: Caller, given: Decimal | None
    ) -> int:
        if given is None:
            return caller.establishment_id
        found = connection.scalar(
            select(ESTABLISHMENTS.c.id).where(
                ESTABLISHMENTS.c.tenant_id == tenant.id, ESTABLISHMENTS.c.id == int(given)
            )
        )
        if found is None:
            raise field_error(
                "establishment_id", f"No existe el establecimiento {given}.", "INVALID_ESTABLISHMENT"
            )
        return int(found)

    @staticmethod
    def resolve_customer(
        connection: Connection, tenant: TenantInfo, values: dict[str, Any], forced: bool
    ) -> int:
        given = values["customer_id"]
        if given is not None:
            found = connection.scalar(
                select(PERSONS.c.id).where(
                    PERSONS.c.tenant_id == tenant.id,
                    PERSONS.c.id == int(given),
                    PERSONS.c.type == "customers",
                )
            )
            if found is not None:
                return int(found)
            if not (forced and values["datos_del_cliente_o_receptor"]["numero_documento"]):
                raise field_error("customer_id", f"No existe el cliente {given}.", "CUSTOMER_NOT_FOUND")
        given_customer = values["datos_del_cliente_o_receptor"]
        party = Party(
            identity_type=given_customer["codigo_tipo_documento_identidad"],
            number=given_customer["numero_documento"],
            name=given_customer["apellidos_y_nombres_o_razon_social"],
            country=given_customer["codigo_pais"] or "PE",
            ubigeo=given_customer["ubigeo"],
            address=given_customer["direccion"],
            email=given_customer["correo_electronico"],
            phone=given_customer["telefono"],
            trade_name=given_customer["nombre_comercial"],
        )
        return upsert_document_customer(connection, tenant.id, party)

    @staticmethod
    def resolve_lines(
        connection: Connection, tenant: TenantInfo, entries: list[dict[str, Any]], forced: bool
    ) -> tuple[Line, ...]:
        lines = []
        for index, entry in enumerate(entries):
            embedded = entry["item"]
            product = None
            if entry["item_id"] is not None:
                product = connection.execute(
                    select(
                        ITEMS.c.internal_id, ITEMS.c.description, ITEMS.c.unit_type_id, ITEMS.c.item_code
                    ).where(ITEMS.c.tenant_id == tenant.id, ITEMS.c.id == int(entry["item_id"]))
                ).one_or_none()
                if product is None and not (forced and embedded["internal_id"]):
                    raise field_error(
                        f"items.{index}.item_id",
                        f"No existe el producto {entry['item_id']}.",
                        "ITEM_NOT_FOUND",
                    )
            if product is None:  # forced: found or created by its internal code when the note is stored
                if not embedded["description"]:
                    raise field_error(
                        f"items.{index}.item.description",
                        "El campo item.description es obligatorio para crear el producto.",
                        "MISSING_FIELDS",
                    )
                code, description, unit, sunat_code = (
                    embedded["internal_id"],
                    embedded["description"],
                    embedded["unit_type_id"] or "NIU",
                    "",
                )
            else:
                code, description, unit, sunat_code = product
            lines.append(
                Line(
                    index=index + 1,
                    description=description,
                    unit=unit,
                    quantity=entry["quantity"],
                    unit_value=entry["unit_value"],
                    price_type=entry["price_type_id"],
                    unit_price=entry["unit_price"],
                    affectation=entry["affectation_igv_type_id"],
                    igv_base=entry["total_base_igv"],
                    igv_percent=entry["percentage_igv"],
                    igv=entry["total_igv"],
                    taxes=entry["total_taxes"],
                    value=entry["total_value"],
                    total=entry["total"],
                    icbper=entry["total_plastic_bag_taxes"],
                    internal_code=code,
                    sunat_code=sunat_code or "",
                )
            )
        return tuple(lines)

    @staticmethod
    def header_totals(values: dict[str, Any], lines: tuple[Line, ...]) -> Totals:
        computed = sunat_totals.compute_totals(lines)
        amounts = {
            name: values[key] if values[key] is not None else getattr(computed, name)
            for name, (key, _spanish) in TOTAL_KEYS.items()
        }
        return Totals(**amounts, igv_free=computed.igv_free, subtotal=amounts["total"])

    @staticmethod
    def check_amounts(lines: tuple[Line, ...], totals: Totals, issue_date: dt.date) -> None:
        percents = ALLOWED_IGV_PERCENTS(issue_date)
        rate = icbper_rate(issue_date)
        found = []
        for index, line in enumerate(lines):
            found += sunat_totals.check_line(line, index, allowed_percents=percents, icbper_rate=rate)
        found += sunat_totals.check_totals(lines, totals)
        if found:
            errors = [FieldError(_line_paths(d.field), d.message) for d in found]
            raise validation_error(f"Los montos no cuadran: {found[0].message}", "TOTALS_MISMATCH", errors)

    # -- reading and printing ----------------------------------------------------------------------

    def find(
        self,
        connection: Connection,
        tenant: TenantInfo,
        *,
        note_id: int | None = None,
        external_id: str | None = None,
    ) -> Any:
        query = select(SALE_NOTES).where(SALE_NOTES.c.tenant_id == tenant.id)
        query = (
            query.where(SALE_NOTES.c.id == note_id)
            if note_id is not None
            else query.where(SALE_NOTES.c.external_id == external_id)
        )
        row = connection.execute(query).one_or_none()
        if row is None:
            raise not_found("La nota de venta asociada no existe.", "SALE_NOTE_NOT_FOUND")
        return row

    def pdf(self, tenant: TenantInfo, external_id: str, fmt: str | None) -> tuple[bytes, str]:
        """The printed sale note (A4 or the 80 mm receipt) and its file name."""
        if fmt is not None and fmt not in PDF_FORMATS:
            raise not_found(f"El formato {fmt} no existe.", "FORMAT_NOT_FOUND")
        with self.context.engine.connect() as connection:
            row = self.find(connection, tenant, external_id=external_id)
            customer = connection.execute(select(PERSONS).where(PERSONS.c.id == row.customer_id)).one()
        document = printable(tenant, row, party_of(customer))
        content = render_pdf(
            document,
            digest_value="",
            qr_text=f"{tenant.ruc}|{SALE_NOTE_TYPE}|{row.series}|{row.number}|{row.total:.2f}|{row.date_of_issue}|",
            fmt=fmt or row.format_pdf or "a4",
        )
        return content, f"{row.filename}.pdf"

    def rows(
        self,
        tenant: TenantInfo,
        text: str = "",
        start: dt.date | None = None,
        end: dt.date | None = None,
        *,
        details: bool = False,
    ) -> list[dict[str, Any]]:
        """``GET /api/sale-note/lists``: without dates the latest 50 (by series and number, as the real
        services), with dates every note issued between them (newest first); ``text`` filters by number,
        customer name or number. Each row says which document the note became (``documents``) and which
        quotation it came from; with ``details`` it carries its lines (``items``)."""
        number_full = SALE_NOTES.c.series + "-" + cast(SALE_NOTES.c.number, TextType)
        query = (
            select(
                SALE_NOTES,
                number_full.label("number_full"),
                PERSONS.c.name.label("customer_name"),
                PERSONS.c.number.label("customer_number"),
                PERSONS.c.email.label("customer_email"),
                PERSONS.c.telephone.label("customer_telephone"),
                USERS.c.name.label("user_name"),
                DOCUMENTS.c.external_id.label("document_external_id"),
                DOCUMENTS.c.document_type_id.label("document_type_id"),
                DOCUMENTS.c.series.label("document_series"),
                DOCUMENTS.c.number.label("document_number"),
                DOCUMENTS.c.state_type_id.label("document_state"),
                QUOTATIONS.c.prefix.label("quotation_prefix"),
                QUOTATIONS.c.number.label("quotation_number"),
            )
            .join(PERSONS, PERSONS.c.id == SALE_NOTES.c.customer_id)
            .join(USERS, USERS.c.id == SALE_NOTES.c.user_id)
            .outerjoin(DOCUMENTS, DOCUMENTS.c.id == SALE_NOTES.c.document_id)
            .outerjoin(QUOTATIONS, QUOTATIONS.c.id == SALE_NOTES.c.quotation_id)
            .where(SALE_NOTES.c.tenant_id == tenant.id)
        )
        if text:
            pattern = f"%{escape_like(text)}%"
            query = query.where(
                or_(
                    number_full.ilike(pattern, escape="\\"),
                    PERSONS.c.name.ilike(pattern, escape="\\"),
                    PERSONS.c.number.like(pattern, escape="\\"),
                )
            )
        if start is not None and end is not None:
            query = query.where(SALE_NOTES.c.date_of_issue.between(start, end)).order_by(
                SALE_NOTES.c.date_of_issue.desc(), SALE_NOTES.c.id.desc()
            )
        else:
            query = query.order_by(SALE_NOTES.c.series.desc(), SALE_NOTES.c.number.desc()).limit(LIST_SIZE)
        with self.context.engine.connect() as connection:
            found = connection.execute(query).all()
        return [note_row(row, details) for row in found]

    # -- converting --------------------------------------------------------------------------------

    def generate(self, tenant: TenantInfo, caller: Caller, note_id: int, body: Any) -> Issued:
        """``POST /api/sale-note/{id}/generate-cpe``: a factura or boleta of the note, issued not sent."""
        values = GENERATE_BODY.read_body(body)
        with self.context.writing() as connection:
            row = self.find(connection, tenant, note_id=note_id)
            if row.document_id is not None:
                done = connection.execute(
                    select(Document.series, Document.number).where(Document.id == row.document_id)
                ).one()
                made = f"{done.series}-{done.number}"
                raise conflict(
                    f"La nota de venta {row.series}-{row.number} ya generó el comprobante {made}.",
                    "SALE_NOTE_ALREADY_CONVERTED",
                )
            claimed = connection.execute(
                update(SALE_NOTES)
                .where(
                    SALE_NOTES.c.id == row.id,
                    SALE_NOTES.c.document_id.is_(None),
                    SALE_NOTES.c.converting.is_(False),
                )
                .values(converting=True)
            ).rowcount
            if not claimed:
                raise conflict(
                    f"La nota de venta {row.series}-{row.number} se está convirtiendo en otro pedido.",
                    "SALE_NOTE_ALREADY_CONVERTED",
                )
            customer = connection.execute(select(PERSONS).where(PERSONS.c.id == row.customer_id)).one()
        try:
            document_body = _document_body(row, customer, values, self.context.today())
            issued = self.documents.issue(tenant, caller, document_body, move_stock=False)
        except BaseException:
            with self.context.writing() as connection:
                connection.execute(
                    update(SALE_NOTES).where(SALE_NOTES.c.id == row.id).values(converting=False)
                )
            raise
        with self.context.writing() as connection:
            connection.execute(
                update(SALE_NOTES)
                .where(SALE_NOTES.c.id == row.id)
                .values(document_id=issued.document.id, converting=False)
            )
        return issued


#: The totals of a back-office list row (sale notes, quotations), as text with thousands separators.
LISTED_TOTALS = (
    "total_exportation",
    "total_free",
    "total_unaffected",
    "total_exonerated",
    "total_taxed",
    "total_igv",
    "total",
)


def listed_totals(row: Any) -> dict[str, str]:
    """The totals of a sale note's or quotation's list row, as the real services' ``number_format`` writes
    them (``"1,180.00"``)."""
    return {key: fmt2(getattr(row, key), grouped=True) for key in LISTED_TOTALS}


def _stamp(value: dt.datetime | None) -> str | None:
    return lima_stamp(value)


def note_row(row: Any, details: bool) -> dict[str, Any]:
    """A sale-note list row: the keys of the real services' ``SaleNoteCollection`` this service has."""
    documents = []
    if row.document_id is not None:
        documents.append(
            {
                "id": row.document_id,
                "number_full": f"{row.document_series}-{row.document_number}",
                "external_id": row.document_external_id,
                "document_type_id": row.document_type_id,
                "state_type_id": row.document_state,
            }
        )
    quotation = f"{row.quotation_prefix}-{row.quotation_number}" if row.quotation_id is not None else ""
    answer: dict[str, Any] = {
        "id": row.id,
        "soap_type_id": "01",
        "external_id": row.external_id,
        "date_of_issue": row.date_of_issue.isoformat(),
        "time_of_issue": row.time_of_issue.isoformat(),
        "identifier": row.filename,
        "series": row.series,
        "number": row.number,
        "full_number": row.number_full,
        "number_full": row.number_full,
        "customer_id": row.customer_id,
        "customer_name": row.customer_name,
        "customer_number": row.customer_number,
        "currency_type_id": row.currency_type_id,
        **listed_totals(row),
        "state_type_id": states.REGISTERED,
        "state_type_description": states.describe(states.REGISTERED),
        "documents": documents,
        "btn_generate": not documents,
        "changed": bool(documents),
        "quotation_id": row.quotation_id,
        "quotation_number_full": quotation,
        "user_name": row.user_name,
        "created_at": _stamp(row.created_at),
        "updated_at": _stamp(row.created_at),
        # keys of the real rows (SaleNote::getCollectionData) with what this service knows of them
        "exchange_rate_sale": f"{row.exchange_rate_sale or 1:.6f}".rstrip("0").rstrip("."),
        "filename": row.filename,
        "customer_email": row.customer_email or None,
        "customer_telephone": row.customer_telephone or None,
        "purchase_order": None,
        "license_plate": None,
        "total_discount": fmt2(0, grouped=True),
        "custom_fields_data": None,
    }
    if details:
        answer["items"] = list(row.lines or [])
    return answer


def claim_quotation(connection: Connection, tenant: TenantInfo, quotation_id: int) -> int:
    """Mark the tenant's quotation ``quotation_id`` converted (inside the note's transaction); 422 when it
    is not the tenant's, 409 when a sale note was already made from it. The conditional update locks the
    row, so of two concurrent conversions one waits and then finds it converted."""
    claimed = connection.execute(
        update(QUOTATIONS)
        .where(
            QUOTATIONS.c.tenant_id == tenant.id,
            QUOTATIONS.c.id == quotation_id,
            QUOTATIONS.c.changed.is_(False),
        )
        .values(changed=True)
    ).rowcount
    if claimed:
        return quotation_id
    found = connection.execute(
        select(QUOTATIONS.c.prefix, QUOTATIONS.c.number).where(
            QUOTATIONS.c.tenant_id == tenant.id, QUOTATIONS.c.id == quotation_id
        )
    ).one_or_none()
    if found is None:
        raise field_error("quotation_id", f"No existe la cotización {quotation_id}.", "QUOTATION_NOT_FOUND")
    made = connection.execute(
        select(SALE_NOTES.c.series, SALE_NOTES.c.number).where(SALE_NOTES.c.quotation_id == quotation_id)
    ).one_or_none()
    already = f" en la nota de venta {made.series}-{made.number}" if made is not None else ""
    raise conflict(
        f"La cotización {found.prefix}-{found.number} ya se convirtió{already}.",
        "QUOTATION_ALREADY_CONVERTED",
        "quotation_id",
    )


def line_json(line: Line) -> dict[str, Any]:
    return {
        "internal_id": line.internal_code,
        "description": line.description,
        "unit_type_id": line.unit,
        "item_code": line.sunat_code,
        "quantity": str(line.quantity),
        "unit_value": str(line.unit_value),
        "unit_price": str(line.unit_price),
        "price_type_id": line.price_type,
        "affectation_igv_type_id": line.affectation,
        "total_base_igv": str(line.igv_base),
        "percentage_igv": str(line.igv_percent),
        "total_igv": str(line.igv),
        "total_taxes": str(line.taxes),
        "total_value": str(line.value),
        "total": str(line.total),
        "total_plastic_bag_taxes": str(line.icbper),
    }


def stored_lines(row: Any) -> tuple[Line, ...]:
    return tuple(
        Line(
            index=index,
            description=line["description"],
            unit=line["unit_type_id"],
            quantity=Decimal(line["quantity"]),
            unit_value=Decimal(line["unit_value"]),
            price_type=line["price_type_id"],
            unit_price=Decimal(line["unit_price"]),
            affectation=line["affectation_igv_type_id"],
            igv_base=Decimal(line["total_base_igv"]),
            igv_percent=Decimal(line["percentage_igv"]),
            igv=Decimal(line["total_igv"]),
            taxes=Decimal(line["total_taxes"]),
            value=Decimal(line["total_value"]),
            total=Decimal(line["total"]),
            icbper=Decimal(line["total_plastic_bag_taxes"]),
            internal_code=line["internal_id"],
            sunat_code=line.get("item_code") or "",
        )
        for index, line in enumerate(row.lines, start=1)
    )


def party_of(person: Any) -> Party:
    return Party(
        identity_type=person.identity_document_type_id,
        number=person.number,
        name=person.name,
        country=person.country_id or "PE",
        ubigeo=person.district_id or "",
        address=person.address or "",
        email=person.email or "",
        phone=person.telephone or "",
        trade_name=person.trade_name or "",
    )


def printable(
    tenant: TenantInfo, row: Any, customer: Party, *, doc_type: str = SALE_NOTE_TYPE, series: str = ""
) -> SalesDocument:
    """A stored sale note (or quotation, ``doc_type`` COT) as a document the PDF renderer prints."""
    lines = stored_lines(row)
    totals = sunat_totals.compute_totals(lines)
    return SalesDocument(
        issuer=tenant.issuer,
        doc_type=doc_type,
        series=series or row.series,
        number=row.number,
        issue_date=row.date_of_issue,
        issue_time=row.time_of_issue,
        currency=row.currency_type_id,
        customer=customer,
        lines=lines,
        totals=Totals(
            export=row.total_exportation,
            taxed=row.total_taxed,
            unaffected=row.total_unaffected,
            exonerated=row.total_exonerated,
            free=row.total_free,
            igv=row.total_igv,
            igv_free=totals.igv_free,
            icbper=totals.icbper,
            taxes=row.total_taxes,
            value=row.total_value,
            subtotal=row.total,
            total=row.total,
        ),
        legends=(Legend("1000", amount_in_words(row.total, row.currency_type_id)),),
    )


def _document_body(row: Any, customer: Any, values: dict[str, Any], today: dt.date) -> dict[str, Any]:
    """The ``POST /api/documents`` body of a factura or boleta with the note's lines, customer and totals."""
    issue_date = values["fecha_de_emision"] or today
    body: dict[str, Any] = {
        "serie_documento": values["serie_documento"],
        "numero_documento": values["numero_documento"] or "#",
        "fecha_de_emision": issue_date.isoformat(),
        "hora_de_emision": (values["hora_de_emision"] or dt.time(12, 0)).strftime("%H:%M:%S"),
        "codigo_tipo_documento": values["codigo_tipo_documento"],
        "codigo_tipo_operacion": "0101",
        "codigo_tipo_moneda": row.currency_type_id,
        "fecha_de_vencimiento": (values["fecha_de_vencimiento"] or issue_date).isoformat(),
        "codigo_condicion_de_pago": "01",
        "datos_del_cliente_o_receptor": {
            "codigo_tipo_documento_identidad": customer.identity_document_type_id,
            "numero_documento": customer.number,
            "apellidos_y_nombres_o_razon_social": customer.name,
            "codigo_pais": customer.country_id or "PE",
            "ubigeo": customer.district_id or None,
            "direccion": customer.address or None,
            "correo_electronico": customer.email or None,
            "telefono": customer.telephone or None,
        },
        "totales": {
            "total_exportacion": fmt2(row.total_exportation),
            "total_operaciones_gravadas": fmt2(row.total_taxed),
            "total_operaciones_inafectas": fmt2(row.total_unaffected),
            "total_operaciones_exoneradas": fmt2(row.total_exonerated),
            "total_operaciones_gratuitas": fmt2(row.total_free),
            "total_igv": fmt2(row.total_igv),
            "total_impuestos": fmt2(row.total_taxes),
            "total_valor": fmt2(row.total_value),
            "total_venta": fmt2(row.total),
        },
        "items": [
            {
                "codigo_interno": line["internal_id"],
                "descripcion": line["description"],
                "codigo_producto_sunat": line.get("item_code") or None,
                "unidad_de_medida": line["unit_type_id"],
                "cantidad": line["quantity"],
                "valor_unitario": line["unit_value"],
                "codigo_tipo_precio": line["price_type_id"],
                "precio_unitario": line["unit_price"],
                "codigo_tipo_afectacion_igv": line["affectation_igv_type_id"],
                "total_base_igv": line["total_base_igv"],
                "porcentaje_igv": line["percentage_igv"],
                "total_igv": line["total_igv"],
                "total_impuestos_bolsa_plastica": line["total_plastic_bag_taxes"],
                "total_impuestos": line["total_taxes"],
                "total_valor_item": line["total_value"],
                "total_item": line["total"],
                "actualizar_descripcion": False,
            }
            for line in row.lines
        ],
        "acciones": {"enviar_xml_firmado": False, "formato_pdf": row.format_pdf or "a4"},
        "codigo_nota_venta": row.id,
    }
    return body
