"""What one real tenant holds and does, as the public Facturador PRO code does it (no HTTP here: see
``server.py``). Documents, summaries, voided communications, persons, products, sale notes, quotations,
guides and withholding receipts, with the rules and messages of the code each method cites.

Errors are raised as the real code raises them: :class:`PhpError` is any exception its handler turns
into HTTP 500 ``{"success": false, "message"}`` (business rules, PHP notices, SQL errors alike);
:class:`Invalid` is a Laravel ``ValidationException`` (HTTP 422, ``message`` maps fields to lists);
:class:`Answer` is an explicit answer a controller returns (HTTP 200 ``success: false``, an empty body).
"""

from __future__ import annotations

import datetime as dt
import io
import itertools
import threading
import uuid
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sunat.calendar import peru_now, peru_today
from sunat.money import to_decimal
from tests.real_tenant.variants import Variant

RUC = "20480316259"
COMPANY = "COMERCIAL REAL TENANT S.A.C."
WAREHOUSE = "Almacén Oficina Principal"
TWO = Decimal("0.01")

#: ``state_types`` as seeded by ``database/migrations/tenant/2018_01_00_000000_tenant_system_table.php``.
STATES = {
    "01": "Registrado",
    "03": "Enviado",
    "05": "Aceptado",
    "07": "Observado",
    "09": "Rechazado",
    "11": "Anulado",
    "13": "Por anular",
}
DOCUMENT_TYPES = {
    "01": "FACTURA ELECTRÓNICA",
    "03": "BOLETA DE VENTA ELECTRÓNICA",
    "07": "NOTA DE CRÉDITO",
    "08": "NOTA DE DÉBITO",
}
#: ``cat_identity_document_types``
#: (``database/migrations/tenant/2018_00_00_000000_tenant_catalogs_table.php``).
IDENTITY = {
    "0": "Doc.trib.no.dom.sin.ruc",
    "1": "DNI",
    "4": "CE",
    "6": "RUC",
    "7": "Pasaporte",
    "A": "Ced. Diplomática",
}


class PhpError(Exception):
    """An exception of the real code: ``app/Exceptions/Handler.php`` answers it as HTTP 500."""

    def __init__(self, message: str, file: str = "app/CoreFacturalo/Facturalo.php", line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line


class Invalid(Exception):
    """A Laravel ``ValidationException``: HTTP 422 with ``message`` = ``{field: [messages]}``."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(str(errors))
        self.errors = errors


class Answer(Exception):
    """A controller's own answer, returned as is (status and JSON body; ``None``: an empty body)."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.body = body


def _money(value: Any) -> Decimal:
    return to_decimal(value if value not in (None, "") else 0).quantize(TWO)


def _decimal_text(value: Decimal) -> str:
    """A ``decimal(12,2)`` column as PDO hands it to PHP: ``"118.00"``."""
    return f"{value:.2f}"


def number_format(value: Decimal) -> str:
    """PHP's ``number_format($n, 2)``: ``"1,234.50"``."""
    return f"{value:,.2f}"


def php_float(value: Decimal) -> float | int:
    """A column cast to ``float`` as ``json_encode`` writes it (``118.0`` -> ``118.0``, kept a float)."""
    return float(value)


@dataclass
class Person:
    id: int
    type: str
    identity_document_type_id: str
    number: str
    name: str
    country_id: str = "PE"
    address: str | None = None
    email: str | None = None
    telephone: str | None = None
    district_id: str | None = None
    trade_name: str | None = None
    enabled: bool = True

    def api_row(self) -> dict[str, Any]:
        """``Person::getApiRowResource`` (Pro9 ``app/Models/Tenant/Person.php``): no ``type`` key."""
        location = [self.district_id[:2], self.district_id[:4], self.district_id] if self.district_id else []
        return {
            "id": self.id,
            "description": f"{self.number} - {self.name}",
            "name": self.name,
            "number": self.number,
            "addresses": [],
            "identity_document_type_id": self.identity_document_type_id,
            "identity_document_type_code": self.identity_document_type_id,
            "address": self.address,
            "telephone": self.telephone,
            "country_id": self.country_id,
            "district_id": self.district_id,
            "email": self.email,
            "enabled": self.enabled,
            "selected": False,
            "identity_document_type_description": IDENTITY.get(self.identity_document_type_id, ""),
            "location_id": location,
        }

    def customer_json(self) -> dict[str, Any]:
        """``PersonInput::set``: the customer copied into a document or a sale note."""
        return {
            "name": self.name,
            "number": self.number,
            "identity_document_type_id": self.identity_document_type_id,
            "telephone": self.telephone,
            "email": self.email,
            "address": self.address,
        }


@dataclass
class Item:
    id: int
    internal_id: str | None
    description: str
    unit_type_id: str
    currency_type_id: str
    sale_unit_price: Decimal
    purchase_unit_price: Decimal = Decimal(0)
    affectation: str = "10"
    stock: Decimal = Decimal(0)
    stock_min: Decimal = Decimal(1)
    has_igv: bool = True
    active: bool = True

    def row(self, variant: Variant) -> dict[str, Any]:
        """A row of ``MobileController@searchItems`` (and the data of ``@item``)."""
        return {
            "id": self.id,
            "item_id": self.id,
            "name": None,
            "full_description": f"{self.internal_id} - {self.description}"
            if self.internal_id
            else self.description,
            "description": self.description,
            "currency_type_id": self.currency_type_id,
            "internal_id": self.internal_id,
            "item_code": "",
            "currency_type_symbol": "S/" if self.currency_type_id == "PEN" else "$",
            "sale_unit_price": number_format(self.sale_unit_price),
            "purchase_unit_price": _decimal_text(self.purchase_unit_price),
            "unit_type_id": self.unit_type_id,
            "sale_affectation_igv_type_id": self.affectation,
            "purchase_affectation_igv_type_id": self.affectation,
            "calculate_quantity": False,
            "has_igv": self.has_igv,
            "is_set": False,
            "aux_quantity": 1,
            "barcode": "",
            "stock": f"{self.stock:.4f}",
            "warehouses": [
                {"warehouse_description": WAREHOUSE, "stock": f"{self.stock:.4f}", "warehouse_id": 1}
            ],
            "item_unit_types": [],
        }


@dataclass
class Document:
    id: int
    external_id: str
    document_type_id: str
    group_id: str
    series: str
    number: int
    date_of_issue: dt.date
    time_of_issue: str
    date_of_due: dt.date | None
    person_id: int
    customer: dict[str, Any]
    currency: str
    exchange_rate: Decimal
    totals: dict[str, Decimal]
    state_type_id: str
    items: list[dict[str, Any]]
    created_at: dt.datetime
    updated_at: dt.datetime
    affected_id: int | None = None
    affected_data: dict[str, Any] | None = None
    note_type: str = ""
    note_code: str = ""
    has_cdr: bool = False
    cdr_code: str = ""
    cdr_description: str = ""
    sale_note_id: int | None = None

    @property
    def number_full(self) -> str:
        return f"{self.series}-{self.number}"

    @property
    def filename(self) -> str:
        return f"{RUC}-{self.document_type_id}-{self.series}-{self.number}"


@dataclass
class Ticket:
    """A summary (RC) or voided communication (RA) and its ticket."""

    id: int
    kind: str  # "summary" | "voided"
    external_id: str
    ticket: str
    identifier: str
    process: str
    document_ids: list[int]
    date_of_reference: dt.date
    state_type_id: str = "03"
    polls_in_process: int = 1


@dataclass
class SaleNote:
    id: int
    external_id: str
    series: str
    number: int
    prefix: str
    date_of_issue: dt.date
    time_of_issue: str
    customer_id: int
    customer: dict[str, Any]
    currency: str
    exchange_rate: Decimal
    totals: dict[str, Decimal]
    items: list[dict[str, Any]]
    created_at: dt.datetime
    document_ids: list[int] = field(default_factory=list)
    quotation_id: int | None = None

    @property
    def number_full(self) -> str:
        return f"{self.series}-{self.number}"


@dataclass
class Quotation:
    id: int
    external_id: str
    prefix: str
    date_of_issue: dt.date
    customer_id: int
    customer: dict[str, Any]
    currency: str
    totals: dict[str, Decimal]
    created_at: dt.datetime
    sale_note_ids: list[int] = field(default_factory=list)

    @property
    def number_full(self) -> str:
        return f"{self.prefix}-{self.id}"


@dataclass
class Guide:
    id: int
    external_id: str
    document_type_id: str
    series: str
    number: int
    date_of_issue: dt.date
    state_type_id: str = "01"
    ticket: str = ""
    polls_in_process: int = 1


TOTAL_KEYS = {
    "total_exportacion": "total_exportation",
    "total_operaciones_gravadas": "total_taxed",
    "total_operaciones_inafectas": "total_unaffected",
    "total_operaciones_exoneradas": "total_exonerated",
    "total_operaciones_gratuitas": "total_free",
    "total_igv": "total_igv",
    "total_impuestos": "total_taxes",
    "total_valor": "total_value",
    "total_venta": "total",
    "total_cargos": "total_charge",
}


class Tenant:
    """One company of one code base (``variant``), with its data; every method is one endpoint's work.
    A lock keeps the threaded server's requests one at a time, as the real database transactions do."""

    def __init__(self, variant: Variant, token: str) -> None:
        self.variant = variant
        self.token = token
        self.lock = threading.RLock()
        self._ids = itertools.count(1)
        self.restrict_receipt_date = True  # configurations.restrict_receipt_date (default true)
        self.shipping_time_days = 4  # configurations.shipping_time_days (default 4)
        #: series per document type (``series`` table of the user's establishment); 80 = sale notes.
        self.series: dict[str, list[tuple[int, str]]] = {
            "01": [(1, "F001")],
            "03": [(2, "B001")],
            "07": [(3, "FC01"), (4, "BC01")],
            "08": [(5, "FD01"), (6, "BD01")],
            "09": [(7, "T001")],
            "31": [(8, "V001")],
            "20": [(9, "R001")],
            "40": [(11, "P001")],
            "80": [(10, "NV01")],
        }
        self.documents: list[Document] = []
        self.tickets: list[Ticket] = []
        self.persons: list[Person] = []
        self.items: list[Item] = []
        self.sale_notes: list[SaleNote] = []
        self.quotations: list[Quotation] = []
        self.guides: list[Guide] = []
        self.withholdings: list[dict[str, Any]] = []
        self.kardex: list[dict[str, Any]] = []

    # -- helpers ----------------------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def undefined(
        self, key: str, file: str = "app/CoreFacturalo/Requests/Api/Transform/DocumentTransform.php"
    ) -> PhpError:
        """PHP's notice for a key the code reads without checking (turned into an exception)."""
        text = f'Undefined array key "{key}"' if self.variant.php8 else f"Undefined index: {key}"
        return PhpError(text, file)

    def need(
        self,
        mapping: Any,
        key: str,
        file: str = "app/CoreFacturalo/Requests/Api/Transform/DocumentTransform.php",
    ) -> Any:
        if not isinstance(mapping, Mapping) or key not in mapping:
            raise self.undefined(key, file)
        return mapping[key]

    @staticmethod
    def sql_null(column: str) -> PhpError:
        """MySQL strict mode refusing a NOT NULL column without a value (``SQLSTATE[HY000] 1364``)."""
        return PhpError(
            f"SQLSTATE[HY000]: General error: 1364 Field '{column}' doesn't have a default value",
            "vendor/laravel/framework/src/Illuminate/Database/Connection.php",
            760,
        )

    def series_number(self, document_type_id: str, series: str) -> bool:
        return any(number == series for _, number in self.series.get(document_type_id, []))

    def person(self, person_id: Any) -> Person | None:
        return next((p for p in self.persons if str(p.id) == str(person_id)), None)

    def item(self, item_id: Any) -> Item | None:
        return next((i for i in self.items if str(i.id) == str(item_id)), None)

    def document_by_external_id(self, external_id: str) -> Document | None:
        return next((d for d in self.documents if d.external_id == external_id), None)

    def add_person(self, person_type: str, identity: str, number: str, name: str, **more: Any) -> Person:
        person = Person(self.next_id(), person_type, identity, number, name, **more)
        self.persons.append(person)
        return person

    def add_item(self, internal_id: str | None, description: str, price: Decimal | str, **more: Any) -> Item:
        item = Item(
            self.next_id(),
            internal_id,
            description,
            more.pop("unit_type_id", "NIU"),
            more.pop("currency_type_id", "PEN"),
            _money(price),
            **more,
        )
        self.items.append(item)
        return item

    # -- documents (app/Http/Controllers/Tenant/Api/DocumentController.php) ---------------------------

    def upsert_customer(self, data: Mapping[str, Any]) -> Person:
        """``Functions::person`` (``app/CoreFacturalo/Requests/Api/Validation/Functions.php``): update or
        create the customer keyed by type ``customers``, identity type and number."""
        identity = str(
            self.need(
                data,
                "codigo_tipo_documento_identidad",
                "app/CoreFacturalo/Requests/Api/Transform/Common/PersonTransform.php",
            )
        )
        number = str(
            self.need(
                data,
                "numero_documento",
                "app/CoreFacturalo/Requests/Api/Transform/Common/PersonTransform.php",
            )
        )
        name = str(
            self.need(
                data,
                "apellidos_y_nombres_o_razon_social",
                "app/CoreFacturalo/Requests/Api/Transform/Common/PersonTransform.php",
            )
        )
        ubigeo = data.get("ubigeo")
        if identity == "6" and ubigeo:
            if len(str(ubigeo)) != 6:
                raise PhpError("El código ubigeo debe contener 6 dígitos")
        found = next(
            (
                p
                for p in self.persons
                if p.type == "customers" and p.identity_document_type_id == identity and p.number == number
            ),
            None,
        )
        values = {
            "name": name,
            "country_id": str(data.get("codigo_pais") or "PE"),
            "address": data.get("direccion"),
            "email": data.get("correo_electronico"),
            "telephone": data.get("telefono"),
            "district_id": ubigeo or None,
        }
        if found is None:
            return self.add_person("customers", identity, number, **values)
        for key, value in values.items():
            setattr(found, key, value)
        return found

    def issue(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``DocumentController@store`` behind ``input.request:document,api`` (Transform, Validation,
        Input): the document is saved, signed and, for facturas and their notes, sent (accepted here)."""
        series = str(self.need(body, "serie_documento"))
        raw_number = str(self.need(body, "numero_documento"))
        issue_date = dt.date.fromisoformat(str(self.need(body, "fecha_de_emision")))
        time_of_issue = str(self.need(body, "hora_de_emision"))
        document_type = str(self.need(body, "codigo_tipo_documento"))
        currency = str(self.need(body, "codigo_tipo_moneda"))
        customer = self.need(body, "datos_del_cliente_o_receptor")
        totals = self.need(body, "totales")
        items = self.need(body, "items")
        for key in (
            "total_operaciones_gravadas",
            "total_igv",
            "total_impuestos",
            "total_valor",
            "total_venta",
        ):
            self.need(totals, key)
        due: dt.date | None = None
        if document_type in ("01", "03"):
            self.need(body, "codigo_tipo_operacion")
            due = dt.date.fromisoformat(str(self.need(body, "fecha_de_vencimiento")))
        if not self.series_number(document_type, series):
            raise PhpError(
                f"La serie ingresada {series}, es incorrecta.",
                "app/CoreFacturalo/Requests/Api/Validation/Functions.php",
            )
        self.check_issue_date(issue_date)
        affected: Document | None = None
        affected_data: dict[str, Any] | None = None
        note_type = ""
        if document_type in ("07", "08"):
            self.need(body, "codigo_tipo_nota")
            self.need(body, "motivo_o_sustento_de_nota")
            reference = self.need(body, "documento_afectado")
            if "external_id" in reference:
                affected = self.document_by_external_id(str(reference["external_id"]))
                if affected is None:
                    raise PhpError(
                        f"No se encontró el documento con código externo {reference['external_id']}.",
                        "app/CoreFacturalo/Requests/Api/Validation/Functions.php",
                    )
            else:
                affected_data = dict(reference)
            note_type = "credit" if document_type == "07" else "debit"
        if affected is not None:
            group = affected.group_id
        elif affected_data is not None:
            group = "01" if str(affected_data.get("codigo_tipo_documento")) == "01" else "02"
        else:
            group = "01" if document_type == "01" else "02"
        number = self.next_number(document_type, series) if raw_number == "#" else int(raw_number)
        if raw_number != "#" and any(
            d.series == series and d.number == number and d.document_type_id == document_type
            for d in self.documents
        ):
            raise PhpError(
                f"El documento: {document_type} {series}-{number} ya se encuentra registrado.",
                "app/CoreFacturalo/Requests/Inputs/Functions.php",
            )
        person = self.upsert_customer(customer)
        now = peru_now().replace(tzinfo=None)
        document = Document(
            id=self.next_id(),
            external_id=str(uuid.uuid4()),
            document_type_id=document_type,
            group_id=group,
            series=series,
            number=number,
            date_of_issue=issue_date,
            time_of_issue=time_of_issue,
            date_of_due=due,
            person_id=person.id,
            customer=person.customer_json(),
            currency=currency,
            exchange_rate=to_decimal(body.get("factor_tipo_de_cambio") or 1).quantize(Decimal("0.001")),
            totals={internal: _money(totals.get(key)) for key, internal in TOTAL_KEYS.items()},
            state_type_id="01",
            items=[dict(item) for item in items],
            created_at=now,
            updated_at=now,
            affected_id=affected.id if affected else None,
            affected_data=affected_data,
            note_type=note_type,
            note_code=str(body.get("codigo_tipo_nota") or ""),
        )
        send = (body.get("acciones") or {}).get("enviar_xml_firmado", True) is not False
        self.documents.append(document)
        if group == "01" and send:  # group 02 waits for the daily summary (Facturalo::senderXmlSignedBill)
            self.accept(document)
        return self.issue_answer(document)

    def check_issue_date(self, issue_date: dt.date) -> None:
        """``Functions::validateDateOfIssue``: |days to today| must stay under ``shipping_time_days``."""
        if not self.restrict_receipt_date:
            return
        now = peru_now().replace(tzinfo=None)
        days = abs((now - dt.datetime.combine(issue_date, dt.time())).days)
        if self.shipping_time_days - days <= 0:
            raise PhpError(
                f"La fecha de emisión no puede ser menor a {self.shipping_time_days} día(s).",
                "app/CoreFacturalo/Requests/Api/Validation/Functions.php",
            )

    def next_number(self, document_type: str, series: str) -> int:
        """``Functions::newNumber`` (``app/Observers/DocumentObserver.php``): highest of the series + 1."""
        numbers = [
            d.number for d in self.documents if d.series == series and d.document_type_id == document_type
        ]
        return max(numbers, default=0) + 1

    def accept(self, document: Document) -> None:
        kind = {"01": "La Factura", "03": "La Boleta", "07": "La Nota de Credito", "08": "La Nota de Debito"}
        document.state_type_id = "05"
        document.has_cdr = True
        document.cdr_code = "0"
        document.cdr_description = (
            f"{kind[document.document_type_id]} numero {document.number_full}, ha sido aceptada"
        )
        document.updated_at = peru_now().replace(tzinfo=None)

    def issue_answer(self, document: Document, root: str = "") -> dict[str, Any]:
        sent = document.has_cdr
        data: dict[str, Any] = {
            "number": document.number_full,
            "filename": document.filename,
            "external_id": document.external_id,
            "state_type_id": document.state_type_id,
            "state_type_description": STATES[document.state_type_id],
            "number_to_letter": "",
            "hash": "s1Bk7pq+8c0aQn4gXq2W8mQ2xGk=",
            "qr": None if self.variant.document_answer_extras else "iVBORw0KGgo=",
        }
        if self.variant.document_answer_extras:
            data["id"] = document.id
            data["print_ticket"] = f"{root}/print/document/{document.external_id}/ticket"
        answer: dict[str, Any] = {"success": True, "data": data}
        if self.variant.document_answer_extras:
            answer["print"] = {"auto_printed": False, "print_order_id": None, "reason": "disabled"}
        answer["links"] = {
            "xml": f"{root}/downloads/document/xml/{document.external_id}",
            "pdf": f"{root}/downloads/document/pdf/{document.external_id}",
            "cdr": f"{root}/downloads/document/cdr/{document.external_id}" if sent else "",
        }
        answer["response"] = (
            {"code": document.cdr_code, "description": document.cdr_description, "notes": []} if sent else []
        )
        return answer

    def send(self, body: Mapping[str, Any]) -> dict[str, Any] | None:
        """``DocumentController@send``: without ``external_id`` the method returns nothing (an empty
        200); unknown or not of group 01 is an exception."""
        if "external_id" not in body:
            raise Answer(200, None)
        document = self.document_by_external_id(str(body["external_id"]))
        if document is None:
            raise PhpError(
                f"El documento con código externo {body['external_id']}, no se encuentra registrado."
            )
        if document.group_id != "01":
            raise PhpError(
                f"El tipo de documento {document.document_type_id} es inválido, no es posible enviar."
            )
        self.accept(document)
        return {
            "success": True,
            "data": {
                "number": document.number_full,
                "filename": document.filename,
                "external_id": document.external_id,
                "state_type_id": document.state_type_id,
                "state_type_description": STATES[document.state_type_id],
            },
            "links": {"cdr": f"/downloads/document/cdr/{document.external_id}"},
            "response": {"code": document.cdr_code, "description": document.cdr_description, "notes": []},
        }

    def update_status(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``DocumentController@updatestatus``: the key really is ``externail_id``."""
        document = self.document_by_external_id(str(body.get("externail_id") or ""))
        if document is None:
            raise PhpError(
                'Attempt to assign property "state_type_id" on null'
                if self.variant.php8
                else "Creating default object from empty value"
            )
        document.state_type_id = str(
            self.need(body, "state_type_id", "app/Http/Controllers/Tenant/Api/DocumentController.php")
        )
        document.updated_at = peru_now().replace(tzinfo=None)
        return {"success": True}

    def list_rows(self, start: str | None, end: str | None, root: str) -> dict[str, Any]:
        """``DocumentController@lists``: the latest 50 by issue date, or every document between the two
        path values (compared as text with the DATE column: ``Y-m-d``); rows of ``DocumentCollection``."""
        if start is None:
            chosen = sorted(self.documents, key=lambda d: d.date_of_issue, reverse=True)[:50]
        else:
            chosen = [d for d in self.documents if start <= d.date_of_issue.isoformat() <= str(end)]
            chosen.sort(key=lambda d: d.date_of_issue, reverse=True)
        return {"data": [self.list_row(d, root) for d in chosen]}

    def list_row(self, document: Document, root: str) -> dict[str, Any]:
        variant = self.variant
        fmt = "%d-%m-%Y" if variant.list_dates == "d-m-Y" else "%Y-%m-%d"
        customer = document.customer
        if variant.list_customer_from_person:
            person = self.person(document.person_id)
            customer = person.customer_json() if person else customer
        totals = {key: _decimal_text(value) for key, value in document.totals.items()}
        notes = None
        if document.document_type_id in ("01", "03"):
            notes = [
                {
                    "id": note.id,
                    "document_id": note.id,
                    "note_credit_type_id": note.note_code if note.note_type == "credit" else None,
                    "note_type_description": "NC" if note.note_type == "credit" else "ND",
                    "description": note.number_full,
                }
                for note in self.documents
                if note.affected_id == document.id
            ]
            if variant.name == "pro5":  # pro5 has no note_credit_type_id in the note entries
                for entry in notes:
                    entry.pop("note_credit_type_id")
        row: dict[str, Any] = {
            "id": document.id,
            "group_id": document.group_id,
            "soap_type_id": "01",
            "soap_type_description": "Demo",
            "date_of_issue": document.date_of_issue.strftime(fmt),
            "date_of_due": document.date_of_due.strftime(fmt) if document.date_of_due else None,
            "number": document.number_full,
            "customer_name": customer["name"],
            "customer_number": customer["number"],
            "customer_telephone": customer.get("telephone"),
            "currency_type_id": document.currency,
            "total_exportation": totals["total_exportation"],
            "total_free": totals["total_free"],
            "total_unaffected": totals["total_unaffected"],
            "total_exonerated": totals["total_exonerated"],
            "total_taxed": totals["total_taxed"],
            "total_igv": totals["total_igv"],
            "total": php_float(document.totals["total"]) if variant.total_as_float else totals["total"],
            "state_type_id": document.state_type_id,
            "state_type_description": STATES[document.state_type_id],
            "document_type_description": DOCUMENT_TYPES[document.document_type_id],
            "document_type_id": document.document_type_id,
            "has_xml": True,
            "has_pdf": True,
            "has_cdr": document.has_cdr and document.group_id == "01",
            "download_xml": f"{root}/downloads/document/xml/{document.external_id}",
            "download_pdf": f"{root}/downloads/document/pdf/{document.external_id}",
            "download_cdr": f"{root}/downloads/document/cdr/{document.external_id}",
            "btn_voided": document.state_type_id == "05",
            "btn_note": document.state_type_id == "05" and document.document_type_id in ("01", "03"),
            "send_server": False,
            "affected_document": None,  # DocumentCollection: $affected_document = null, never set
            "shipping_status": None,
            "sunat_shipping_status": None,
            "query_status": None,
            "created_at": document.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            "updated_at": document.updated_at.strftime("%Y-%m-%d %H:%M:%S"),
            "user_name": "Administrador",
            "user_email": "admin@empresa.pe",
            "user_id": 1,
            "external_id": document.external_id,
            "notes": notes,
            "sales_note": [],
            "balance": _decimal_text(document.totals["total"]),
            "guides": None,
            "message_regularize_shipping": None,
            "regularize_shipping": False,
            "purchase_order": None,
            "total_charge": totals["total_charge"],
        }
        if variant.list_exchange_rate:
            row["exchange_rate_sale"] = f"{document.exchange_rate:.3f}"
            row["filename"] = document.filename
            row["customer_email"] = customer.get("email")
        if variant.name == "pro9":
            row["customer_identity_document_type_description"] = IDENTITY.get(
                str(customer.get("identity_document_type_id")), ""
            )
        return row

    # -- summaries and voided (SummaryController, VoidedController, Facturalo::statusSummary) --------

    def _ticket(self, kind: str, process: str, documents: list[Document], day: dt.date) -> dict[str, Any]:
        today = peru_today()
        prefix = "RC" if kind == "summary" else "RA"
        same_day = sum(
            1 for t in self.tickets if t.kind == kind and t.identifier.startswith(f"{prefix}-{today:%Y%m%d}")
        )
        ticket = Ticket(
            id=self.next_id(),
            kind=kind,
            external_id=str(uuid.uuid4()),
            ticket=f"{1700000000000 + self.next_id()}",
            identifier=f"{prefix}-{today:%Y%m%d}-{same_day + 1}",
            process=process,
            document_ids=[d.id for d in documents],
            date_of_reference=day,
        )
        self.tickets.append(ticket)
        for document in documents:
            document.state_type_id = "13" if process == "3" else "03"
            document.updated_at = peru_now().replace(tzinfo=None)
        return {"success": True, "data": {"external_id": ticket.external_id, "ticket": ticket.ticket}}

    def voided_documents(self, rows: Any, day: str, group: str) -> list[Document]:
        """``Functions::voidedDocuments``: each external_id of that issue date and group, else an error."""
        if not rows:
            raise PhpError(
                "No se enviaron documentos para la anulación.",
                "app/CoreFacturalo/Requests/Api/Validation/Functions.php",
            )
        found = []
        for row in rows:
            external_id = str((row or {}).get("external_id") or "")
            document = self.document_by_external_id(external_id)
            if document is None or document.date_of_issue.isoformat() != day or document.group_id != group:
                raise PhpError(
                    f"El código externo {external_id} no fue encontrado o la fecha indica no corresponde "
                    "al documento.",
                    "app/CoreFacturalo/Requests/Api/Validation/Functions.php",
                )
            if "motivo_anulacion" not in row:
                raise self.sql_null("description")
            found.append(document)
        return found

    def summary(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``SummaryTransform`` + ``SummaryValidation``: process ``"3"`` (string) voids the listed
        boletas; otherwise every registered boleta of that day (group 02, state 01) is declared."""
        day = str(
            self.need(
                body,
                "fecha_de_emision_de_documentos",
                "app/CoreFacturalo/Requests/Api/Transform/SummaryTransform.php",
            )
        )
        process = self.need(
            body, "codigo_tipo_proceso", "app/CoreFacturalo/Requests/Api/Transform/SummaryTransform.php"
        )
        if process == "3":
            documents = self.voided_documents(body.get("documentos"), day, "02")
        else:
            documents = [
                d
                for d in self.documents
                if d.date_of_issue.isoformat() == day and d.group_id == "02" and d.state_type_id == "01"
            ]
            if not documents:
                raise PhpError(
                    f"No se encontraron documentos con fecha de emisión {day}.",
                    "app/CoreFacturalo/Requests/Api/Validation/SummaryValidation.php",
                )
        return self._ticket("summary", "3" if process == "3" else "1", documents, dt.date.fromisoformat(day))

    def voided(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``VoidedTransform``: Pro9/Tukifac ``Carbon::createFromFormat('d-m-Y', ...)``; pro5 as sent."""
        text = str(
            self.need(
                body,
                "fecha_de_emision_de_documentos",
                "app/CoreFacturalo/Requests/Api/Transform/VoidedTransform.php",
            )
        )
        if self.variant.voided_dates == "d-m-Y":
            day = parse_dmy(text)
        else:
            day = text
        documents = self.voided_documents(body.get("documentos"), day, "01")
        try:
            reference = dt.date.fromisoformat(day)
        except ValueError:
            reference = peru_today()
        return self._ticket("voided", "3", documents, reference)

    def ticket_status(self, kind: str, body: Mapping[str, Any], root: str) -> dict[str, Any]:
        """``SummaryController@status`` / ``VoidedController@status``: in process first (``Code: 98``,
        an exception: HTTP 500), then accepted."""
        relation = "resumen" if kind == "summary" else "anulación"
        external_id, number = body.get("external_id"), body.get("ticket")
        if external_id:
            ticket = next((t for t in self.tickets if t.kind == kind and t.external_id == external_id), None)
            if ticket is None:
                raise PhpError(
                    f"El código externo {external_id} es inválido, no se encontró {relation} relacionado"
                )
        elif number:
            ticket = next((t for t in self.tickets if t.kind == kind and t.ticket == str(number)), None)
            if ticket is None:
                raise PhpError(f"El ticket {number} es inválido, no se encontró {relation} relacionado")
        else:
            raise PhpError("Es requerido el código externo o ticket")
        if ticket.polls_in_process > 0:
            ticket.polls_in_process -= 1
            raise PhpError("Code: 98; Description: El procesamiento del comprobante aún no ha terminado")
        ticket.state_type_id = "05"
        for document in self.documents:
            if document.id in ticket.document_ids:
                document.state_type_id = "11" if ticket.process == "3" else "05"
                document.updated_at = peru_now().replace(tzinfo=None)
        label = "El Resumen diario" if kind == "summary" else "La Comunicación de baja"
        verb = "aceptado" if kind == "summary" else "aceptada"
        folder = "summary" if kind == "summary" else "voided"
        return {
            "success": True,
            "data": {"filename": f"{RUC}-{ticket.identifier}", "external_id": ticket.external_id},
            "links": {
                "xml": f"{root}/downloads/{folder}/xml/{ticket.external_id}",
                "cdr": f"{root}/downloads/{folder}/cdr/{ticket.external_id}",
            },
            "response": {
                "sent": True,
                "code": "0",
                "description": f"{label} {ticket.identifier}, ha sido {verb}",
                "notes": [],
                "is_accepted": True,
                "status_code": 0,
            },
        }

    # -- persons (MobileController@person, MobileApp PersonController) ------------------------------

    def person_rules(self, body: Mapping[str, Any], ignore_id: Any) -> None:
        """``app/Http/Requests/Tenant/PersonRequest.php``: number and name unique per type (ignoring the
        ``id`` of the body), identity type and country required. Messages of ``resources/lang/es``."""
        errors: dict[str, list[str]] = {}
        person_type = body.get("type")
        for key, label in (
            ("number", "número"),
            ("name", "nombre"),
            ("identity_document_type_id", "tipo de documento de identidad"),
            ("country_id", "país"),
        ):
            if body.get(key) in (None, ""):
                errors.setdefault(key, []).append(f"El campo {label} es obligatorio.")
        for key, label in (("number", "número"), ("name", "nombre")):
            value = body.get(key)
            if value and any(
                getattr(p, key) == value and p.type == person_type and str(p.id) != str(ignore_id)
                for p in self.persons
            ):
                errors.setdefault(key, []).append(f"El campo {label} ya ha sido registrado.")
        if errors:
            raise Invalid(errors)

    def save_person(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``MobileController@person``: ``new Person()`` filled with the body and saved. ``id`` is not
        fillable: a body with an ``id`` registers another person (the rules ignore that id)."""
        self.person_rules(body, body.get("id"))
        person = self.add_person(
            str(body.get("type") or "customers"),
            str(body["identity_document_type_id"]),
            str(body["number"]),
            str(body["name"]),
            country_id=str(body["country_id"]),
            address=body.get("address"),
            email=body.get("email"),
            telephone=body.get("telephone"),
            district_id=body.get("district_id"),
            trade_name=body.get("trade_name"),
        )
        row = person.api_row()
        return {
            "success": True,
            "msg": "Cliente registrado con éxito"
            if person.type == "customers"
            else "Proveedor registrado con éxito",
            "data": {
                key: row[key]
                for key in (
                    "id",
                    "description",
                    "name",
                    "number",
                    "identity_document_type_id",
                    "identity_document_type_code",
                    "address",
                    "email",
                    "telephone",
                    "country_id",
                    "district_id",
                    "selected",
                )
            },
        }

    def update_person(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``MobileApp PersonController@update``: found by ``id`` (``findOrFail``), a few fields written."""
        self.person_rules(body, body.get("id"))
        person = self.person(body.get("id"))
        if person is None:
            raise PhpError(f"No query results for model [App\\Models\\Tenant\\Person] {body.get('id')}")
        for key in (
            "identity_document_type_id",
            "number",
            "name",
            "trade_name",
            "address",
            "telephone",
            "email",
        ):
            if key in body:
                setattr(person, key, body[key])
        return {
            "success": True,
            "message": f"{'Cliente' if person.type == 'customers' else 'Proveedor'} actualizado",
        }

    def person_records(
        self, person_type: str, search: str, page: int, root: str, path: str
    ) -> dict[str, Any]:
        """``PersonController@records``: ``Person::whereFilterRecordsApi`` is ``name LIKE %input% OR
        (number LIKE %input% AND type = ?)`` (the OR binds first, so a name matches any type), by name,
        20 a page; the paginator's links carry only ``page`` (the controller never ``appends`` the query)."""
        needle = search.lower()
        matched = [
            p
            for p in self.persons
            if needle in p.name.lower() or (needle in p.number.lower() and p.type == person_type)
        ]
        matched.sort(key=lambda p: p.name)
        per_page = 20
        last_page = max(1, -(-len(matched) // per_page))
        rows = matched[(page - 1) * per_page : page * per_page]
        url = f"{root}{path}"
        return {
            "data": [p.api_row() for p in rows],
            "links": {
                "first": f"{url}?page=1",
                "last": f"{url}?page={last_page}",
                "prev": f"{url}?page={page - 1}" if page > 1 else None,
                "next": f"{url}?page={page + 1}" if page < last_page else None,
            },
            "meta": {
                "current_page": page,
                "from": (page - 1) * per_page + 1 if rows else None,
                "last_page": last_page,
                "path": url,
                "per_page": per_page,
                "to": (page - 1) * per_page + len(rows) if rows else None,
                "total": len(matched),
            },
        }

    def search_customers(self, search: str) -> dict[str, Any]:
        """``MobileController@searchCustomers``: ``name LIKE OR (number LIKE AND customers AND identity
        IN (1,4,6,7,0))``, every match."""
        needle = search.lower()
        rows = [
            p
            for p in self.persons
            if needle in p.name.lower() or (needle in p.number.lower() and p.type == "customers")
        ]
        rows.sort(key=lambda p: p.name)
        return {"success": True, "data": {"customers": [p.api_row() for p in rows]}}

    def search_suppliers(self, search: str) -> list[dict[str, Any]]:
        """``PurchaseController@searchSuppliers`` (``modules/Purchase``): ``number LIKE OR (name LIKE AND
        suppliers AND identity IN (...))`` — the mirror image of the customers' search; a bare array."""
        needle = search.lower()
        rows = [
            p
            for p in self.persons
            if needle in p.number.lower() or (needle in p.name.lower() and p.type == "suppliers")
        ]
        rows.sort(key=lambda p: p.name)
        return [
            {
                key: p.api_row()[key]
                for key in (
                    "id",
                    "description",
                    "name",
                    "number",
                    "identity_document_type_id",
                    "address",
                    "email",
                    "selected",
                )
            }
            for p in rows
        ]

    # -- items (MobileController@item, @updateItem, @searchItems; InventoryController) ---------------

    def create_item(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``modules/Item/Http/Requests/ItemRequest.php`` then ``MobileController@item``."""
        errors: dict[str, list[str]] = {}
        for key, label in (
            ("internal_id", "código interno"),
            ("description", "descripción"),
            ("unit_type_id", "unidad"),
            ("currency_type_id", "moneda"),
            ("sale_unit_price", "precio unitario venta"),
        ):
            if body.get(key) in (None, ""):
                errors.setdefault(key, []).append(f"El campo {label} es obligatorio.")
        if body.get("internal_id") and any(i.internal_id == body["internal_id"] for i in self.items):
            errors.setdefault("internal_id", []).append("El campo código interno ya ha sido registrado.")
        if body.get("sale_unit_price") not in (None, "") and _money(body["sale_unit_price"]) <= 0:
            errors.setdefault("sale_unit_price", []).append(
                "El precio unitario de venta debe ser mayor que 0."
            )
        if errors:
            raise Invalid(errors)
        item = self.add_item(
            str(body["internal_id"]),
            str(body["description"]),
            str(body["sale_unit_price"]),
            unit_type_id=str(body["unit_type_id"]),
            currency_type_id=str(body["currency_type_id"]),
            affectation=str(body.get("sale_affectation_igv_type_id") or "10"),
            stock=_money(body.get("stock") or 0),
            purchase_unit_price=_money(body.get("purchase_unit_price") or 0),
        )
        return {"success": True, "msg": "Producto registrado con éxito", "data": item.row(self.variant)}

    def update_item(self, item_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        item = self.item(item_id)
        if item is None:  # findOrFail: ModelNotFoundException is not mapped to 404 by the handler
            raise PhpError(f"No query results for model [App\\Models\\Tenant\\Item] {item_id}")
        item.internal_id = str(body.get("internal_id") or item.internal_id)
        item.description = str(body.get("description") or item.description)
        if body.get("sale_unit_price") not in (None, ""):
            item.sale_unit_price = _money(body["sale_unit_price"])
        return {"success": True, "msg": "Producto editado con éxito", "data": item.row(self.variant)}

    def search_items(self, search: str, limit: str | None) -> dict[str, Any]:
        needle = search.lower()
        found = [
            i
            for i in self.items
            if i.active
            and i.internal_id
            and (needle in i.description.lower() or needle in i.internal_id.lower())
        ]
        found.sort(key=lambda i: i.description)
        if limit and self.variant.search_items_limit:
            found = found[: int(limit)]
        return {"success": True, "data": {"items": [i.row(self.variant) for i in found]}}

    def inventory(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``InventoryController@store_transaction``: refusals are HTTP 200 ``success: false``."""
        item = next((i for i in self.items if i.internal_id == body.get("item_code")), None)
        if item is None:
            return {"success": False, "message": "No se encontró un producto con el codigo ingresado"}
        quantity = _money(body.get("quantity") or 0)
        if body.get("type") == "output":
            if quantity > item.stock:
                return {
                    "success": False,
                    "message": "La cantidad no puede ser mayor a la que se tiene en el almacén.",
                }
            item.stock -= quantity
            return {"success": True, "message": "Salida registrada correctamente"}
        item.stock += quantity
        return {"success": True, "message": "Ingreso registrado correctamente"}

    # -- sale notes (app/Http/Controllers/Tenant/Api/SaleNoteController.php) ------------------------

    def _sale_note_reads(self, items: list[Any], pdf_format: str) -> None:
        """What runs on each line's ``item`` (cast to a PHP object) inside the store's transaction, so
        a failure leaves nothing saved: ``SaleNoteItem::created`` in the Inventory module's
        ``InventoryKardexServiceProvider`` reads ``item->is_set`` (a set's stock leaves by its parts),
        then ``createPdf`` renders ``sale_note_{format}.blade.php``, which prints ``item->unit_type_id``
        and ``item->description``. A property the object lacks is PHP's "Undefined property" notice,
        turned into an exception: HTTP 500."""
        for line in items:
            item = line.get("item")
            if not isinstance(item, dict):
                raise PhpError("Trying to get property 'is_set' of non-object")
            if "is_set" not in item:
                raise PhpError(
                    "Undefined property: stdClass::$is_set",
                    "modules/Inventory/Providers/InventoryKardexServiceProvider.php",
                )
        view = f"app/CoreFacturalo/Templates/pdf/default/sale_note_{pdf_format}.blade.php"
        for line in items:
            for read in ("unit_type_id", "description"):
                if read not in line["item"]:
                    raise PhpError(
                        f"Undefined property: stdClass::${read} (View: /var/www/html/{view})",
                        "storage/framework/views/sale_note.php",
                    )

    def sale_note_series(self) -> list[dict[str, Any]]:
        """``@series``: a collection returned as is, so a bare JSON array."""
        rows = []
        for series_id, number in self.series["80"]:
            row: dict[str, Any] = {"id": series_id, "document_type_id": "80", "number": number}
            if self.variant.series_row_extras:
                row |= {"is_default": False, "establishment_id": 1}
            rows.append(row)
        return rows

    def store_sale_note(self, body: Mapping[str, Any], root: str) -> dict[str, Any]:
        """``@store`` and ``@mergeData``; then ``SaleNote::updateOrCreate`` (NOT NULL columns of
        ``2019_03_19_155345_tenant_sale_notes_table.php``: ``prefix``, ``exchange_rate_sale``, ...) and
        one ``SaleNoteItem`` per line (``2019_03_19_155546_tenant_sale_note_items_table.php``)."""
        variant = self.variant
        file = "app/Http/Controllers/Tenant/Api/SaleNoteController.php"
        if variant.sale_note_form_request:
            errors: dict[str, list[str]] = {}
            for key, label in (
                ("customer_id", "cliente"),
                ("exchange_rate_sale", "tipo de cambio"),
                ("currency_type_id", "moneda"),
                ("date_of_issue", "fecha de emisión"),
                ("series_id", "serie"),
            ):
                if body.get(key) in (None, ""):
                    errors.setdefault(key, []).append(f"El campo {label} es obligatorio.")
            if errors:
                raise Invalid(errors)
        items = list(body.get("items") or [])
        customer_id = body.get("customer_id")
        if body.get("force_create_if_not_exist"):
            data = body.get("datos_del_cliente_o_receptor") or {}
            person = self.person(customer_id)
            number = data.get("numero_documento")
            if person is not None and number != person.number:
                person = None
            if person is None:
                person = next((p for p in self.persons if p.number == number), None)
            if person is None and number:
                if not data.get("ubigeo"):  # district_id '' breaks persons_district_id_foreign
                    raise PhpError(
                        "SQLSTATE[23000]: Integrity constraint violation: 1452 Cannot add or update a child "
                        "row: a foreign key constraint fails (`tenancy`.`persons`, "
                        "CONSTRAINT `persons_district_id_foreign`)",
                        "vendor/laravel/framework/src/Illuminate/Database/Connection.php",
                    )
                person = self.add_person(
                    "customers",
                    str(data.get("codigo_tipo_documento_identidad") or "6"),
                    str(number),
                    str(data.get("apellidos_y_nombres_o_razon_social") or ""),
                    district_id=data["ubigeo"],
                )
            if person is None:
                raise PhpError(
                    'Attempt to read property "id" on null'
                    if variant.php8
                    else "Trying to get property 'id' of non-object",
                    file,
                )
            customer_id = person.id
            for index, line in enumerate(items):
                line = dict(line)
                if variant.sale_note_by_code == "full_item" or "full_item" in line:
                    full = self.need(line, "full_item", file)
                    found = next((i for i in self.items if i.description == full.get("description")), None)
                    if found is None:  # internal_id is unset from full_item before the look-up
                        found = self.add_item(
                            None, str(full.get("description") or ""), str(full.get("sale_unit_price") or 0)
                        )
                else:
                    code = self.need(line, "internal_id", file)
                    self.need(line, "unit_price", file)
                    self.need(line, "affectation_igv_type_id", file)
                    found = next((i for i in self.items if i.internal_id == code), None)
                    if found is None:
                        for column in ("description", "unit_type_id", "currency_type_id"):
                            if not line.get(column):
                                raise self.sql_null(column)
                        found = self.add_item(
                            str(code),
                            str(line["description"]),
                            str(line["unit_price"]),
                            unit_type_id=str(line["unit_type_id"]),
                            currency_type_id=str(line["currency_type_id"]),
                        )
                line["item_id"] = found.id
                line["item"] = {  # what @mergeData copies from the product it found or made
                    **dict(line.get("item") or {}),
                    "id": found.id,
                    "item_id": found.id,
                    "is_set": False,
                    "unit_type_id": found.unit_type_id,
                    "description": found.description,
                }
                items[index] = line
        series_id = body.get("series_id")
        series = next((number for sid, number in self.series["80"] if str(sid) == str(series_id)), None)
        if series is None:
            raise PhpError(
                'Attempt to read property "number" on null'
                if variant.php8
                else "Trying to get property 'number' of non-object",
                file,
            )
        person = self.person(customer_id)
        if person is None:
            raise PhpError(
                'Attempt to read property "name" on null'
                if variant.php8
                else "Trying to get property 'name' of non-object",
                "app/CoreFacturalo/Requests/Inputs/Common/PersonInput.php",
            )
        if variant.sale_note_requires_payments and "payments" not in body:
            raise self.undefined("payments", file)
        for column in (
            "prefix",
            "exchange_rate_sale",
            "currency_type_id",
            "date_of_issue",
            "time_of_issue",
            "total",
        ):
            if body.get(column) in (None, ""):
                raise self.sql_null(column)
        for line in items:
            for column in (
                "item_id",
                "item",
                "quantity",
                "unit_value",
                "affectation_igv_type_id",
                "total_base_igv",
                "percentage_igv",
                "total_igv",
                "total_taxes",
                "price_type_id",
                "unit_price",
                "total_value",
                "total",
            ):
                if line.get(column) in (None, ""):
                    raise self.sql_null(column)
            if self.item(line["item_id"]) is None:
                raise PhpError(
                    "SQLSTATE[23000]: Integrity constraint violation: 1452 Cannot add or update a child "
                    "row: a foreign key constraint fails (`sale_note_items_item_id_foreign`)"
                )
        self._sale_note_reads(items, str((body.get("actions") or {}).get("format_pdf") or "a4"))
        number = max((n.number for n in self.sale_notes if n.series == series), default=0) + 1
        note = SaleNote(
            id=self.next_id(),
            external_id=str(uuid.uuid4()),
            series=series,
            number=number,
            prefix=str(body["prefix"]),
            date_of_issue=dt.date.fromisoformat(str(body["date_of_issue"])),
            time_of_issue=str(body["time_of_issue"]),
            customer_id=person.id,
            customer=person.customer_json(),
            currency=str(body["currency_type_id"]),
            exchange_rate=_money(body["exchange_rate_sale"]),
            totals={
                key: _money(body.get(key))
                for key in (
                    "total_exportation",
                    "total_free",
                    "total_unaffected",
                    "total_exonerated",
                    "total_taxed",
                    "total_igv",
                    "total",
                )
            },
            items=items,
            created_at=peru_now().replace(tzinfo=None),
            quotation_id=body.get("quotation_id"),
        )
        self.sale_notes.append(note)
        for line in items:  # the stock leaves the warehouse (InventoryKardexServiceProvider)
            item = self.item(line["item_id"])
            if item is not None:
                item.stock -= _money(line["quantity"])
        if note.quotation_id is not None:
            quotation = next((q for q in self.quotations if str(q.id) == str(note.quotation_id)), None)
            if quotation is not None:
                quotation.sale_note_ids.append(note.id)
        data: dict[str, Any] = {"id": note.id, "number": note.number_full, "external_id": note.external_id}
        answer: dict[str, Any] = {"success": True, "data": data}
        if variant.sale_note_answer_extras:
            data["filename"] = f"{note.series}-{note.number}-{peru_today():%Y%m%d}"
            data["print_ticket"] = f"{root}/sale-notes/print/{note.external_id}/ticket"
            answer["links"] = {"pdf": f"{root}/downloads/salenote/sale_note/{note.external_id}"}
        return answer

    def sale_note_rows(self, search: str, root: str) -> dict[str, Any]:
        """``@lists``: Pro9/Tukifac the latest 20 (``created_at``) whose series or number contains
        ``input``, whatever else is asked; pro5 the first 50 by series and number, descending."""
        if self.variant.sale_note_list_filters:
            chosen = [n for n in self.sale_notes if search in n.series or search in str(n.number)]
            chosen.sort(key=lambda n: (n.created_at, n.id), reverse=True)
        else:
            chosen = sorted(self.sale_notes, key=lambda n: (n.series, n.number), reverse=True)
        chosen = chosen[: self.variant.sale_note_list_size]
        return {"data": [self.sale_note_row(n, root) for n in chosen]}

    def sale_note_row(self, note: SaleNote, root: str) -> dict[str, Any]:
        """``SaleNote::getCollectionData`` (``app/Models/Tenant/SaleNote.php``): amounts through
        ``number_format`` (``"1,234.50"``), ``documents`` with id and number only, and the model itself
        under ``sale_note`` (with its items)."""
        documents = [self.document_by_id(i) for i in note.document_ids]
        row: dict[str, Any] = {
            "id": note.id,
            "soap_type_id": "01",
            "external_id": note.external_id,
            "date_of_issue": note.date_of_issue.isoformat(),
            "time_of_issue": note.time_of_issue,
            "identifier": note.number_full,
            "full_number": note.number_full,
            "customer_name": note.customer["name"],
            "customer_number": note.customer["number"],
            "currency_type_id": note.currency,
            **{key: number_format(value) for key, value in note.totals.items()},
            "state_type_id": "01",
            "state_type_description": STATES["01"],
            "document_id": None,
            "documents": [{"id": d.id, "number_full": d.number_full} for d in documents if d is not None],
            "btn_generate": not note.document_ids,
            "changed": False,
            "created_at": note.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            "updated_at": note.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            "user_name": "Administrador",
            "quotation_number_full": self.quotation_number(note.quotation_id),
            "number_full": note.number_full,
            "print_a4": f"{root}/sale-notes/print/{note.external_id}/a4",
            "serie": note.series,
            "number": note.number,
            "sale_note": {
                "id": note.id,
                "customer_id": note.customer_id,
                "series": note.series,
                "number": note.number,
                "items": [
                    {
                        "item_id": line.get("item_id"),
                        "item": line.get("item"),
                        "quantity": str(line.get("quantity")),
                    }
                    for line in note.items
                ],
            },
        }
        if self.variant.list_exchange_rate:
            row["exchange_rate_sale"] = float(note.exchange_rate)
        return row

    def quotation_number(self, quotation_id: Any) -> str:
        quotation = next((q for q in self.quotations if str(q.id) == str(quotation_id)), None)
        return quotation.number_full if quotation else ""

    def document_by_id(self, document_id: int) -> Document | None:
        return next((d for d in self.documents if d.id == document_id), None)

    def generate_cpe(self, note_id: str, body: Mapping[str, Any], root: str) -> dict[str, Any]:
        """``@generateCPE``: the request's dates are copied as they come (``$request->fecha_de_emision``:
        null when absent, and ``documents.date_of_issue`` is NOT NULL); ``group_id`` is always ``01``
        (a boleta too), not sent; the note's external_id is reused; nothing stops a second document."""
        note = next((n for n in self.sale_notes if str(n.id) == str(note_id)), None)
        if note is None:
            raise Answer(500, {"success": False, "message": "La nota de venta asociada no existe."})
        for key, column in (("fecha_de_emision", "date_of_issue"), ("hora_de_emision", "time_of_issue")):
            if not body.get(key):
                raise PhpError(
                    f"SQLSTATE[23000]: Integrity constraint violation: 1048 Column '{column}' cannot be null",
                    "vendor/laravel/framework/src/Illuminate/Database/Connection.php",
                )
        if body.get("codigo_tipo_documento") in ("01", "03") and not body.get("fecha_de_vencimiento"):
            raise PhpError(
                "SQLSTATE[23000]: Integrity constraint violation: 1048 Column 'date_of_due' cannot be null",
                "vendor/laravel/framework/src/Illuminate/Database/Connection.php",
            )
        document_type = str(body.get("codigo_tipo_documento") or "")
        series = str(body.get("serie_documento") or "")
        raw = str(body.get("numero_documento") or "#")
        now = peru_now().replace(tzinfo=None)
        person = self.person(note.customer_id)
        document = Document(
            id=self.next_id(),
            external_id=note.external_id,
            document_type_id=document_type,
            group_id="01",
            series=series,
            number=self.next_number(document_type, series) if raw == "#" else int(raw),
            date_of_issue=dt.date.fromisoformat(str(body["fecha_de_emision"])),
            time_of_issue=str(body["hora_de_emision"]),
            date_of_due=dt.date.fromisoformat(str(body["fecha_de_vencimiento"])),
            person_id=note.customer_id,
            customer=person.customer_json() if person else note.customer,
            currency=note.currency,
            exchange_rate=note.exchange_rate,
            totals={**{key: Decimal(0) for key in TOTAL_KEYS.values()}, **note.totals},
            state_type_id="01",
            items=note.items,
            created_at=now,
            updated_at=now,
            sale_note_id=note.id,
        )
        self.documents.append(document)
        note.document_ids.append(document.id)
        answer = self.issue_answer(document, root)
        answer["data"] = {
            key: answer["data"][key]
            for key in (
                "number",
                "filename",
                "external_id",
                "state_type_id",
                "state_type_description",
                "number_to_letter",
                "hash",
                "qr",
            )
        }
        answer.pop("print", None)
        return answer

    # -- quotations (app/Http/Controllers/Tenant/Api/QuotationController.php) -------------------------

    def store_quotation(self, body: Mapping[str, Any], root: str) -> dict[str, Any]:
        """``@store``: ``QuotationControllerWeb::mergeData``, ``Quotation::create`` (``prefix``,
        ``exchange_rate_sale`` NOT NULL), one item per line (``item_id`` NOT NULL), then ``$data['payments']``
        read as is."""
        file = "app/Http/Controllers/Tenant/Api/QuotationController.php"
        person = self.person(body.get("customer_id"))
        if person is None:
            raise PhpError(
                'Attempt to read property "name" on null'
                if self.variant.php8
                else "Trying to get property 'name' of non-object",
                "app/CoreFacturalo/Requests/Inputs/Common/PersonInput.php",
            )
        for column in (
            "prefix",
            "exchange_rate_sale",
            "currency_type_id",
            "date_of_issue",
            "time_of_issue",
            "total",
        ):
            if body.get(column) in (None, ""):
                raise self.sql_null(column)
        for line in body.get("items") or []:
            if not line.get("item_id"):
                raise self.sql_null("item_id")
        if "payments" not in body:
            raise self.undefined("payments", file)
        quotation = Quotation(
            id=self.next_id(),
            external_id=str(uuid.uuid4()),
            prefix=str(body["prefix"]),
            date_of_issue=dt.date.fromisoformat(str(body["date_of_issue"])),
            customer_id=person.id,
            customer=person.customer_json(),
            currency=str(body["currency_type_id"]),
            totals={
                key: _money(body.get(key))
                for key in (
                    "total_exportation",
                    "total_free",
                    "total_unaffected",
                    "total_exonerated",
                    "total_taxed",
                    "total_igv",
                    "total",
                )
            },
            created_at=peru_now().replace(tzinfo=None),
        )
        self.quotations.append(quotation)
        data: dict[str, Any] = {
            "number_full": quotation.number_full,
            "external_id": quotation.external_id,
            "print_a4": f"{root}/quotations/print/{quotation.external_id}/a4",
        }
        if self.variant.document_answer_extras:  # Pro9/Tukifac answer the longer shape
            data = {
                "id": quotation.id,
                "state_type_id": "01",
                "state_type_description": STATES["01"],
                "number_full": quotation.number_full,
                "external_id": quotation.external_id,
                "filename": f"{quotation.number_full}-{peru_today():%Y%m%d}",
                "customer": {
                    "id": person.id,
                    "name": person.name,
                    "number": person.number,
                    "email": person.email,
                    "phone": person.telephone,
                },
                "total": float(quotation.totals["total"]),
                "print_a4": f"{root}/quotations/print/{quotation.external_id}/a4",
                "print_ticket": f"{root}/quotations/print/{quotation.external_id}/ticket",
            }
        return {"success": True, "data": data}

    def quotation_rows(self, search: str) -> dict[str, Any]:
        """``@list``: ``id LIKE %input%``, the latest 20 (``QuotationCollection``: ``number_format``)."""
        chosen = [q for q in self.quotations if search in str(q.id)]
        chosen.sort(key=lambda q: (q.created_at, q.id), reverse=True)
        rows = []
        for quotation in chosen[:20]:
            notes = [n for n in self.sale_notes if n.id in quotation.sale_note_ids]
            rows.append(
                {
                    "id": quotation.id,
                    "soap_type_id": "01",
                    "external_id": quotation.external_id,
                    "date_of_issue": quotation.date_of_issue.isoformat(),
                    "delivery_date": None,
                    "identifier": quotation.number_full,
                    "user_name": "Administrador",
                    "customer_name": quotation.customer["name"],
                    "customer_number": quotation.customer["number"],
                    "currency_type_id": quotation.currency,
                    **{key: number_format(value) for key, value in quotation.totals.items()},
                    "state_type_id": "01",
                    "state_type_description": STATES["01"],
                    "documents": [],
                    "sale_notes": [{"number_full": n.number_full} for n in notes],
                    "created_at": quotation.created_at.strftime("%Y-%m-%d %H:%M:%S"),
                    "updated_at": quotation.created_at.strftime("%Y-%m-%d %H:%M:%S"),
                }
            )
        return {"data": rows}

    # -- guides and withholding receipts ------------------------------------------------------------

    def store_guide(self, body: Mapping[str, Any], document_type: str) -> dict[str, Any]:
        """``DispatchController@store`` / ``DispatchCarrierController@store``: generated and signed, not
        sent (state 01). ``datos_del_emisor.codigo_del_domicilio_fiscal`` is read directly."""
        file = "app/CoreFacturalo/Requests/Api/Transform/DispatchTransform.php"
        series = str(self.need(body, "serie_documento", file))
        self.need(self.need(body, "datos_del_emisor", file), "codigo_del_domicilio_fiscal", file)
        if not self.series_number(document_type, series):
            raise PhpError(
                f"La serie ingresada {series}, es incorrecta.",
                "app/CoreFacturalo/Requests/Api/Validation/Functions.php",
            )
        numbers = [g.number for g in self.guides if g.series == series]
        guide = Guide(
            self.next_id(),
            str(uuid.uuid4()),
            document_type,
            series,
            max(numbers, default=0) + 1,
            dt.date.fromisoformat(str(self.need(body, "fecha_de_emision", file))),
        )
        self.guides.append(guide)
        return {
            "success": True,
            "data": {
                "number": f"{guide.series}-{guide.number}",
                "filename": f"{RUC}-{document_type}-{guide.series}-{guide.number}",
                "external_id": guide.external_id,
            },
        }

    def send_guide(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``ServiceDispatchController@send``: answers are HTTP 200, refusals with ``success: false``."""
        guide = next((g for g in self.guides if g.external_id == body.get("external_id")), None)
        if guide is None:
            return {"success": False, "message": "El external id es incorrecto"}
        guide.state_type_id = "03"
        guide.ticket = str(uuid.uuid4())
        return {
            "success": True,
            "message": f"Se obtuvo el nro. de ticket correctamente. Ticket: {guide.ticket}, "
            f"Fecha de recepción: {peru_now():%Y-%m-%d %H:%M:%S}, ID guia: {guide.id}",
        }

    def guide_status(self, body: Mapping[str, Any], root: str) -> dict[str, Any]:
        guide = next((g for g in self.guides if g.external_id == body.get("external_id")), None)
        if guide is None:
            return {"success": False, "message": "El external id es incorrecto"}
        message = "La guía aún está en proceso, vuelva a consultar."
        if guide.state_type_id == "03" and guide.polls_in_process > 0:
            guide.polls_in_process -= 1
        elif guide.state_type_id == "03":
            guide.state_type_id = "05"
            message = f"La Guia de Remision {guide.series}-{guide.number} ha sido aceptada"
        return {
            "success": True,
            "data": {
                "number": f"{guide.series}-{guide.number}",
                "filename": f"{RUC}-{guide.document_type_id}-{guide.series}-{guide.number}",
                "external_id": guide.external_id,
                "state_type_id": guide.state_type_id,
            },
            "links": {
                "xml": f"{root}/downloads/dispatch/xml/{guide.external_id}",
                "pdf": f"{root}/downloads/dispatch/pdf/{guide.external_id}",
                "cdr": f"{root}/downloads/dispatch/cdr/{guide.external_id}"
                if guide.state_type_id == "05"
                else None,
            },
            "message": message,
        }

    def store_withholding(self, body: Mapping[str, Any], kind: str, root: str) -> dict[str, Any]:
        """``RetentionController@store`` / ``PerceptionController@store``: always sent; accepted here."""
        file = f"app/CoreFacturalo/Requests/Api/Transform/{kind.capitalize()}Transform.php"
        series = str(self.need(body, "serie_documento", file))
        document_type = "20" if kind == "retention" else "40"
        if not self.series_number(document_type, series):
            raise PhpError(
                f"La serie ingresada {series}, es incorrecta.",
                "app/CoreFacturalo/Requests/Api/Validation/Functions.php",
            )
        number = sum(1 for w in self.withholdings if w["series"] == series) + 1
        external_id = str(uuid.uuid4())
        self.withholdings.append(
            {"series": series, "number": number, "external_id": external_id, "kind": kind}
        )
        return {
            "success": True,
            "data": {
                "number": f"{series}-{number}",
                "filename": f"{RUC}-{document_type}-{series}-{number}",
                "external_id": external_id,
            },
            "links": {
                "xml": f"{root}/downloads/{kind}/xml/{external_id}",
                "pdf": f"{root}/downloads/{kind}/pdf/{external_id}",
                "cdr": f"{root}/downloads/{kind}/cdr/{external_id}",
            },
            "response": {
                "code": "0",
                "description": f"El Comprobante numero {series}-{number}, ha sido aceptado",
                "notes": [],
            },
        }

    # -- files (app/Http/Controllers/Tenant/DownloadController.php@downloadExternal) ------------------

    def file(self, model: str, kind: str, external_id: str) -> tuple[bytes, str]:
        """The bytes and content type of a download; an unknown external_id or a file that is not on
        the disk is an exception (HTTP 500)."""
        if model == "document":
            document = self.document_by_external_id(external_id)
            if document is None:
                raise PhpError(
                    f"El código {external_id} es inválido, no se encontró documento relacionado",
                    "app/Http/Controllers/Tenant/DownloadController.php",
                )
            if kind == "xml":
                return document_xml(document, self).encode(), "application/xml"
            if kind == "pdf":
                return b"%PDF-1.4\n% " + document.number_full.encode() + b"\n%%EOF\n", "application/pdf"
            if kind == "cdr":
                if not document.has_cdr:
                    raise self.missing_file(f"cdr/R-{document.filename}.zip")
                return cdr_zip(document), "application/zip"
        if model in ("summary", "voided"):
            ticket = next((t for t in self.tickets if t.external_id == external_id), None)
            if ticket is None:
                raise PhpError(
                    f"El código {external_id} es inválido, no se encontró documento relacionado",
                    "app/Http/Controllers/Tenant/DownloadController.php",
                )
            if kind == "cdr" and ticket.state_type_id != "05":
                raise self.missing_file(f"cdr/R-{RUC}-{ticket.identifier}.zip")
            return (
                f"<SummaryDocuments><ID>{ticket.identifier}</ID></SummaryDocuments>".encode(),
                "application/xml",
            )
        if model == "salenote":
            note = next((n for n in self.sale_notes if n.external_id == external_id), None)
            if note is None:
                raise PhpError(
                    f"El código {external_id} es inválido, no se encontró documento relacionado",
                    "app/Http/Controllers/Tenant/DownloadController.php",
                )
            return b"%PDF-1.4\n% " + note.number_full.encode() + b"\n%%EOF\n", "application/pdf"
        if model == "quotation":
            quotation = next((q for q in self.quotations if q.external_id == external_id), None)
            if quotation is None:
                raise PhpError('Attempt to read property "filename" on null')
            return b"%PDF-1.4\n% " + quotation.number_full.encode() + b"\n%%EOF\n", "application/pdf"
        if model == "dispatch":
            guide = next((g for g in self.guides if g.external_id == external_id), None)
            if guide is None:
                raise PhpError(
                    f"El código {external_id} es inválido, no se encontró documento relacionado",
                    "app/Http/Controllers/Tenant/DownloadController.php",
                )
            return b"%PDF-1.4\n%%EOF\n", "application/pdf"
        raise PhpError(f'Class "App\\Models\\Tenant\\{model.capitalize()}" not found')

    def missing_file(self, path: str) -> PhpError:
        return PhpError(
            self.variant.missing_file_message.format(path=path), "vendor/league/flysystem/src/Filesystem.php"
        )


def parse_dmy(text: str) -> str:
    """``Carbon::createFromFormat('d-m-Y', $text)->format('Y-m-d')``; a ``Y-m-d`` text fails as PHP's
    date parser does (``InvalidFormatException``, an HTTP 500)."""
    parts = text.split("-")
    if len(parts) != 3 or len(parts[0]) > 2:
        raise PhpError(
            "The separation symbol could not be found\nTrailing data",
            "vendor/nesbot/carbon/src/Carbon/Traits/Creator.php",
            678,
        )
    day, month, year = (int(p) for p in parts)
    return dt.date(year, month, day).isoformat()


_UBL = (
    'xmlns="urn:oasis:names:specification:ubl:schema:xsd:{root}-2" '
    'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" '
    'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"'
)


def document_xml(document: Document, tenant: Tenant) -> str:
    """The signed XML's parts a client reads: issuer, number, and a note's ``BillingReference``."""
    root = {"07": "CreditNote", "08": "DebitNote"}.get(document.document_type_id, "Invoice")
    reference = ""
    affected = tenant.document_by_id(document.affected_id) if document.affected_id else None
    if affected is not None or document.affected_data:
        number = (
            affected.number_full
            if affected
            else (
                f"{document.affected_data['serie_documento']}-{document.affected_data['numero_documento']}"  # type: ignore[index]
            )
        )
        doc_type = (
            affected.document_type_id if affected else str(document.affected_data["codigo_tipo_documento"])
        )  # type: ignore[index]
        reference = (
            "<cac:BillingReference><cac:InvoiceDocumentReference>"
            f"<cbc:ID>{number}</cbc:ID><cbc:DocumentTypeCode>{doc_type}</cbc:DocumentTypeCode>"
            "</cac:InvoiceDocumentReference></cac:BillingReference>"
        )
    return (
        f'<?xml version="1.0" encoding="utf-8"?><{root} {_UBL.format(root=root)}>'
        f"<cbc:ID>{document.number_full}</cbc:ID><cbc:IssueDate>{document.date_of_issue.isoformat()}</cbc:IssueDate>"
        f"{reference}"
        "<cac:AccountingSupplierParty><cac:Party>"
        f'<cac:PartyIdentification><cbc:ID schemeID="6">{RUC}</cbc:ID></cac:PartyIdentification>'
        f"<cac:PartyLegalEntity><cbc:RegistrationName>{COMPANY}</cbc:RegistrationName></cac:PartyLegalEntity>"
        f"</cac:Party></cac:AccountingSupplierParty></{root}>"
    )


def cdr_zip(document: Document) -> bytes:
    """A CDR (``R-<filename>.zip`` with its ``ApplicationResponse``)."""
    xml = (
        '<?xml version="1.0" encoding="utf-8"?><ApplicationResponse '
        'xmlns="urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2" '
        'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" '
        'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">'
        "<cac:DocumentResponse><cac:Response>"
        f"<cbc:ResponseCode>{document.cdr_code}</cbc:ResponseCode><cbc:Description>{document.cdr_description}</cbc:Description>"
        f"</cac:Response><cac:DocumentReference><cbc:ID>{document.number_full}</cbc:ID></cac:DocumentReference>"
        "</cac:DocumentResponse></ApplicationResponse>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"R-{document.filename}.xml", xml)
    return buffer.getvalue()
