"""Quotations (cotizaciones; ``docs/facturador_pro_api.md``): ``POST /api/quotations`` and
``GET /api/quotations/list``.

A quotation takes the internal keys of a sale note (customer and items by id, or forced with their data;
amounts checked with ``sunat.totals``; see :mod:`facturador.domain.sale_notes`) plus its own: ``prefix``
(``COT``), ``description``, ``delivery_date``, ``date_of_due``. It is numbered ``COT-n`` with a
correlative per establishment, moves no stock and is printed in A4 (or as an 80 mm receipt).
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from sqlalchemy import Text as TextType
from sqlalchemy import cast, or_, select

from facturador.context import Caller, ServiceContext, TenantInfo
from facturador.domain import states
from facturador.domain.fields import Date, Object, Text
from facturador.domain.items import escape_like
from facturador.domain.numbering import take_next_quotation_number
from facturador.domain.sale_notes import (
    SALE_NOTE_BODY,
    SaleNoteService,
    line_json,
    listed_totals,
    party_of,
    printable,
)
from facturador.errors import not_found
from facturador.render.pdf import render_pdf
from facturador.store.models import PERSONS, QUOTATIONS, SALE_NOTES, USERS
from sunat.calendar import lima_stamp

PDF_FORMATS = ("a4", "ticket")
LIST_SIZE = 20
QUOTATION_BODY = Object(
    name="QuotationBody",
    description="Una cotización (claves internas del servicio real).",
    required=True,
    fields={
        "prefix": Text(
            "Prefijo (COT si se omite).",
            max_length=10,
            pattern="^([A-Za-z]{1,10})?$",
            pattern_message="El campo {path} debe tener solo letras.",
            upper=True,
        ),
        **{
            key: declared
            for key, declared in SALE_NOTE_BODY.fields.items()
            if key not in ("series_id", "quotation_id")
        },
        "date_of_due": Date("Válida hasta."),
        "delivery_date": Date("Fecha de entrega."),
        "description": Text("Descripción u observaciones.", max_length=500),
    },
)


class QuotationService:
    """Issues, lists and prints a tenant's quotations."""

    def __init__(self, context: ServiceContext, checks: SaleNoteService):
        self.context = context
        self.checks = checks

    def issue(self, tenant: TenantInfo, caller: Caller, body: Any) -> dict[str, Any]:
        """``POST /api/quotations``: the stored quotation's answer data."""
        checks = self.checks
        checks.refuse_unsupported(body)
        values = QUOTATION_BODY.read_body(body)
        forced = values["force_create_if_not_exist"]
        checks.require_ids(values, body, forced)
        prefix = values["prefix"] or "COT"
        with self.context.writing() as connection:
            establishment_id = checks.resolve_establishment(
                connection, tenant, caller, values["establishment_id"]
            )
            customer_id = checks.resolve_customer(connection, tenant, values, forced)
            lines = checks.resolve_lines(connection, tenant, values["items"], forced)
            totals = checks.header_totals(values, lines)
            checks.check_amounts(lines, totals, values["date_of_issue"])
            number = take_next_quotation_number(connection, tenant.id, establishment_id, prefix)
            external_id = str(uuid.uuid4())
            quotation_id = connection.execute(
                QUOTATIONS.insert()
                .values(
                    tenant_id=tenant.id,
                    external_id=external_id,
                    establishment_id=establishment_id,
                    user_id=caller.user_id,
                    prefix=prefix,
                    number=number,
                    date_of_issue=values["date_of_issue"],
                    time_of_issue=values["time_of_issue"],
                    date_of_due=values["date_of_due"],
                    delivery_date=values["delivery_date"],
                    customer_id=customer_id,
                    currency_type_id=values["currency_type_id"],
                    exchange_rate_sale=values["exchange_rate_sale"] or 1,
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
                    description=values["description"],
                    state_type_id=states.REGISTERED,
                    data_json=dict(body),
                )
                .returning(QUOTATIONS.c.id)
            ).scalar_one()
            customer = connection.execute(select(PERSONS).where(PERSONS.c.id == customer_id)).one()
        number_full = f"{prefix}-{number}"
        return {
            "id": quotation_id,
            "state_type_id": states.REGISTERED,
            "state_type_description": states.describe(states.REGISTERED),
            "number_full": number_full,
            "external_id": external_id,
            "filename": f"{number_full}-{values['date_of_issue']:%Y%m%d}",
            "customer": {
                "id": customer.id,
                "name": customer.name,
                "number": customer.number,
                "email": customer.email or None,
                "phone": customer.telephone or None,
            },
            "total": float(totals.total),
        }

    def rows(
        self, tenant: TenantInfo, text: str, start: dt.date | None = None, end: dt.date | None = None
    ) -> list[dict[str, Any]]:
        """``GET /api/quotations/list``: the latest 20, filtered by number, customer name or number; with
        dates (this service's extension) every quotation issued between them. Each row says whether it
        was converted (``changed``) and into which sale note (``sale_notes``), and carries its lines
        (``items``) so that a client can make the note."""
        number_full = QUOTATIONS.c.prefix + "-" + cast(QUOTATIONS.c.number, TextType)
        query = (
            select(
                QUOTATIONS,
                number_full.label("identifier"),
                PERSONS.c.name.label("customer_name"),
                PERSONS.c.number.label("customer_number"),
                USERS.c.name.label("user_name"),
                SALE_NOTES.c.id.label("sale_note_id"),
                SALE_NOTES.c.series.label("sale_note_series"),
                SALE_NOTES.c.number.label("sale_note_number"),
                SALE_NOTES.c.external_id.label("sale_note_external_id"),
            )
            .join(PERSONS, PERSONS.c.id == QUOTATIONS.c.customer_id)
            .join(USERS, USERS.c.id == QUOTATIONS.c.user_id)
            .outerjoin(SALE_NOTES, SALE_NOTES.c.quotation_id == QUOTATIONS.c.id)
            .where(QUOTATIONS.c.tenant_id == tenant.id)
        )
        if start is not None and end is not None:
            query = query.where(QUOTATIONS.c.date_of_issue.between(start, end))
        if text:
            pattern = f"%{escape_like(text)}%"
            query = query.where(
                or_(
                    number_full.ilike(pattern, escape="\\"),
                    PERSONS.c.name.ilike(pattern, escape="\\"),
                    PERSONS.c.number.like(pattern, escape="\\"),
                )
            )
        with self.context.engine.connect() as connection:
            ordered = query.order_by(QUOTATIONS.c.id.desc())
            found = connection.execute(ordered if start is not None else ordered.limit(LIST_SIZE)).all()
        return [
            {
                "id": row.id,
                "soap_type_id": "01",
                "external_id": row.external_id,
                "date_of_issue": row.date_of_issue.isoformat(),
                "time_of_issue": row.time_of_issue.isoformat(),
                "delivery_date": row.delivery_date.isoformat() if row.delivery_date else None,
                "date_of_due": row.date_of_due.isoformat() if row.date_of_due else None,
                "identifier": row.identifier,
                "number_full": row.identifier,
                "user_name": row.user_name,
                "customer_id": row.customer_id,
                "customer_name": row.customer_name,
                "customer_number": row.customer_number,
                "currency_type_id": row.currency_type_id,
                **listed_totals(row),
                "state_type_id": row.state_type_id,
                "state_type_description": states.describe(row.state_type_id),
                "description": row.description,
                "documents": [],
                "sale_notes": [
                    {
                        "id": row.sale_note_id,
                        "number_full": f"{row.sale_note_series}-{row.sale_note_number}",
                        "external_id": row.sale_note_external_id,
                    }
                ]
                if row.sale_note_id is not None
                else [],
                "changed": bool(row.changed),
                # keys of the real rows (QuotationCollection): no contracts nor sale opportunities here
                "btn_generate": row.sale_note_id is None and not row.changed,
                "btn_generate_cnt": True,
                "btn_options": row.sale_note_id is None and not row.changed and row.state_type_id != "11",
                "external_id_contract": None,
                "contract_number_full": None,
                "sale_opportunity": None,
                "sale_opportunity_number_full": None,
                "referential_information": None,
                "items": list(row.lines or []),
                "created_at": lima_stamp(row.created_at),
                "updated_at": lima_stamp(row.updated_at),
            }
            for row in found
        ]

    def pdf(self, tenant: TenantInfo, external_id: str, fmt: str) -> tuple[bytes, str]:
        """The printed quotation and its file name; 404 for an unknown one or format."""
        if fmt not in PDF_FORMATS:
            raise not_found(f"El formato {fmt} no existe.", "FORMAT_NOT_FOUND")
        with self.context.engine.connect() as connection:
            row = connection.execute(
                select(QUOTATIONS).where(
                    QUOTATIONS.c.tenant_id == tenant.id, QUOTATIONS.c.external_id == external_id
                )
            ).one_or_none()
            if row is None:
                raise not_found("La cotización no existe.", "QUOTATION_NOT_FOUND")
            customer = connection.execute(select(PERSONS).where(PERSONS.c.id == row.customer_id)).one()
        document = printable(tenant, row, party_of(customer), doc_type="COT", series=row.prefix)
        content = render_pdf(
            document,
            digest_value="",
            qr_text=f"{tenant.ruc}|COT|{row.prefix}|{row.number}|{row.total:.2f}|{row.date_of_issue}|",
            fmt=fmt,
        )
        return content, f"{row.prefix}-{row.number}-{row.date_of_issue:%Y%m%d}.pdf"
