"""Daily summaries (RC) and voided communications (RA): declaring boletas, voiding documents, tickets.

Sending (``POST /api/summaries``, ``POST /api/voided``) runs in one write transaction: the tenant row is
locked (PostgreSQL; SQLite has one writer at a time), the documents are chosen and checked, each summary
(at most 500 lines) gets the next ``RC|RA-YYYYMMDD-n`` of the tenant and day, is built, signed and sent
to the authority (``sendSummary``), and the summary with its ticket, its documents and their new states
(03 declared, 13 being voided) are stored together with the authority's ticket. Bad input or an
authority that refuses the file rolls everything back: nothing changes.

``status`` asks the authority for the ticket (``getStatus``) under a lock on the summary row, so the
ticket's answer and the state changes it brings are committed once:

====================  ============  ==============================  ==================================
summary               ticket        summary state                   documents
====================  ============  ==============================  ==================================
RC process 1          98            03 (unchanged)                  03 (unchanged)
RC process 1          0             05                              05
RC process 1          99            09                              01 (can be declared again)
RC process 3 / RA     98            03 (unchanged)                  13 (unchanged)
RC process 3 / RA     0             05                              11
RC process 3 / RA     99            09                              back to their state before (05/07)
====================  ============  ==============================  ==================================

(The real services set 11 on a rejected voided communication too; going back is what SUNAT's answer
means.) Once answered, a summary's status is served from the database without asking again.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

from sqlalchemy import Column, Table, func, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from facturador.authority.gateway import AuthorityError, AuthorityGateway
from facturador.authority.packaging import zip_document
from facturador.context import Caller, ServiceContext, TenantInfo
from facturador.domain import states
from facturador.domain.document_schema import EXTERNAL_ID
from facturador.domain.documents import Download
from facturador.domain.fields import Code, Date, List, Object, Text
from facturador.domain.reader import Reader
from facturador.domain.send_policy import utc_now
from facturador.errors import FieldError, ServiceError, field_error, not_found
from facturador.store.models import (
    DOCUMENTS,
    OTHER_DOCUMENT_REVERSALS,
    OTHER_DOCUMENTS,
    SUMMARIES,
    SUMMARY_DOCUMENTS,
    TENANTS,
)
from facturador.ubl.invoice import SignedXml
from facturador.ubl.summaries import (
    ADD,
    VOID,
    DailySummary,
    SummaryLine,
    VoidedCommunication,
    VoidedLine,
    sign_summary,
)

#: The files of a summary or voided communication (``/downloads/{summary|voided}/{kind}/...``).
FILE_KINDS = ("xml", "cdr")
#: A result row of a Core query (columns read as attributes).
DbRow = Any
RC, RA, RR = "RC", "RA", "RR"
DECLARE, CANCEL = "1", "3"  # codigo_tipo_proceso
#: Lines of one summary; more documents make more summaries (the real services take 500 per summary).
MAX_LINES = 500
#: Documents that can be voided: accepted, with or without observations.
VOIDABLE = (states.ACCEPTED, states.OBSERVED)
BOLETA_GROUP, FACTURA_GROUP = "02", "01"
DATE_FIELD = "fecha_de_emision_de_documentos"
#: Our extension: when a summary of a past day is generated (``restrict_receipt_date`` off only).
GENERATED_FIELD = "fecha_de_generacion"
IN_PROCESS_MESSAGE = "Code: 98; Description: El procesamiento del comprobante aún no ha terminado"
NO_DOCUMENTS_TO_VOID = "No se enviaron documentos para la anulación."
#: Not-found messages of the status endpoints, by summary type.
_RELATED = {
    RC: "no se encontró resumen relacionado",
    RA: "no se encontró anulación relacionada",
    "RR": "no se encontró reversión relacionada",
}

#: The reason of a voided line: SUNAT's rules (VoidReasonDescription, an..100) take up to 100 characters.
VOID_REASON = Text("Motivo de la baja.", max_length=100)
#: A summary's ticket as SUNAT gives it (the column holds 32 characters).
TICKET = Text("El ticket que dio SUNAT.", max_length=32)


def _void_entry(name: str, reason_required: bool) -> Object:
    return Object(
        name=name,
        description="Un documento a anular, por su external_id.",
        fields={
            "external_id": EXTERNAL_ID.but(required=True),
            "motivo_anulacion": VOID_REASON.but(required=reason_required),
        },
    )


def _documents(entry: Object, description: str) -> List:
    return List(
        description,
        item=entry,
        max_items=MAX_LINES,
        max_message="Se pueden anular a lo más {max} documentos por envío.",
    )


SUMMARY_BODY = Object(
    name="SummaryBody",
    description="Un resumen diario: informa (1) las boletas del día o anula (3) las listadas.",
    required=True,
    fields={
        DATE_FIELD: Date("Fecha de emisión de los documentos.", required=True),
        "codigo_tipo_proceso": Code(
            "1 informar boletas, 3 anular boletas.",
            required=True,
            codes={DECLARE, CANCEL},
            message="El campo {path} debe ser 1 (informar boletas) o 3 (anular boletas).",
        ),
        "documentos": _documents(
            _void_entry("SummaryVoidEntry", reason_required=False), "Con el proceso 3: las boletas a anular."
        ),
        GENERATED_FIELD: Date(
            "Nuestra extensión: la fecha en que se genera y envía el resumen (por defecto, hoy). Solo donde "
            "el servicio acepta documentos con fechas pasadas (restrict_receipt_date apagado, como al "
            "sembrar una historia): entre la fecha de los documentos y hoy."
        ),
    },
)
VOIDED_BODY = Object(
    name="VoidedBody",
    description="Una comunicación de baja de facturas y sus notas aceptadas.",
    required=True,
    fields={
        DATE_FIELD: Date("Fecha de emisión de los documentos.", required=True, day_first=True),
        "documentos": _documents(
            _void_entry("VoidedEntry", reason_required=True), "Los documentos a anular."
        ),
    },
)
TICKET_QUERY = Object(
    name="TicketQuery",
    description="Un resumen o comunicación de baja, por su external_id o su ticket.",
    required=True,
    fields={"external_id": EXTERNAL_ID, "ticket": TICKET},
    one_of_keys=("external_id", "ticket"),
    one_of_message="Es requerido el código externo o ticket",
)

_DOCUMENT_COLUMNS = (
    "id",
    "external_id",
    "group_id",
    "document_type_id",
    "series",
    "number",
    "date_of_issue",
    "state_type_id",
    "currency_type_id",
    "customer_identity_type",
    "customer_number",
    "total_taxed",
    "total_exonerated",
    "total_unaffected",
    "total_exportation",
    "total_free",
    "total_igv",
    "total_plastic_bag_taxes",
    "total_isc",
    "total_other_taxes",
    "total",
    "affected_document",
)
_DOCUMENT_QUERY = select(*(DOCUMENTS.c[name] for name in _DOCUMENT_COLUMNS))
_SUMMARY_COLUMNS = (
    SUMMARIES.c.id,
    SUMMARIES.c.external_id,
    SUMMARIES.c.summary_type,
    SUMMARIES.c.process_type,
    SUMMARIES.c.identifier,
    SUMMARIES.c.filename,
    SUMMARIES.c.ticket,
    SUMMARIES.c.state_type_id,
    SUMMARIES.c.response,
)


@dataclass(frozen=True)
class SentSummary:
    """A summary or voided communication stored after the authority gave its ticket."""

    external_id: str
    ticket: str
    identifier: str  # RC-YYYYMMDD-n / RA-YYYYMMDD-n
    filename: str  # RUC-RC-YYYYMMDD-n
    documents: int


@dataclass(frozen=True)
class _Prepared:
    """A summary numbered, signed and stored, not sent yet."""

    id: int
    external_id: str
    identifier: str
    filename: str
    xml: bytes
    documents: int


@dataclass(frozen=True)
class TicketAnswer:
    """What ``status`` found: the summary, and the authority's answer once its ticket was processed.

    ``response`` (None while ``in_process``) holds ``code``, ``description``, ``notes`` and
    ``status_code`` (0 or 99) of the CDR.
    """

    external_id: str
    filename: str
    ticket: str
    identifier: str
    state_type_id: str
    in_process: bool
    response: dict[str, Any] | None

    @property
    def accepted(self) -> bool:
        return self.response is not None and self.response.get("status_code") == 0


@dataclass(frozen=True)
class _VoidItem:
    index: int
    external_id: str
    reason: str


#: Chooses the documents of a summary inside the write transaction: ``(row, reason)`` pairs.
_Chooser = Callable[[Connection], list[tuple[DbRow, str]]]


def insert_summary(
    connection: Connection,
    *,
    tenant_id: int,
    external_id: str,
    user_id: int | None,
    summary_type: str,
    process_type: str,
    sequence: int,
    identifier: str,
    signed: SignedXml,
    issued: dt.date,
    reference: dt.date,
    **scheduling: Any,
) -> int:
    """Store a signed daily summary, voided communication or reversion, registered and not sent yet (no
    ticket), and return its id; ``scheduling`` sets the poller's columns (``next_poll_at``...)."""
    return connection.execute(
        SUMMARIES.insert().returning(SUMMARIES.c.id),
        {
            "tenant_id": tenant_id,
            "external_id": external_id,
            "user_id": user_id,
            "summary_type": summary_type,
            "process_type": process_type,
            "identifier": identifier,
            "sequence": sequence,
            "filename": signed.filename,
            "date_of_issue": issued,
            "date_of_reference": reference,
            "state_type_id": states.REGISTERED,
            "ticket": "",
            "hash": signed.digest_value,
            "response": None,
            "xml": signed.xml,
            **scheduling,
        },
    ).scalar_one()


class SummaryService:
    """Daily summaries and voided communications of a tenant, and their tickets."""

    def __init__(self, context: ServiceContext):
        self.context = context

    # -- sending -----------------------------------------------------------------------------------

    def summarize(self, tenant: TenantInfo, caller: Caller, body: Mapping[str, Any]) -> list[SentSummary]:
        """``POST /api/summaries``: process "1" declares the day's registered boletas and boleta notes,
        process "3" voids the listed ones (accepted or observed, of that issue date)."""
        reader = Reader()
        values = SUMMARY_BODY.read(reader, body, "")
        day, process = values[DATE_FIELD], values["codigo_tipo_proceso"]
        items = _void_items(reader, body, values["documentos"]) if process == CANCEL else []
        reader.raise_if_errors()
        assert day is not None
        generated = self._generated_on(tenant, day, values[GENERATED_FIELD])
        if process == DECLARE:
            return self._send(
                tenant, caller, RC, DECLARE, day, lambda c: self._registered(c, tenant, day), generated
            )
        return self._send(
            tenant,
            caller,
            RC,
            CANCEL,
            day,
            lambda c: self._voidable(c, tenant, day, items, BOLETA_GROUP),
            generated,
        )

    def _generated_on(self, tenant: TenantInfo, day: dt.date, given: dt.date | None) -> dt.date:
        """The summary's generation date: today, or the ``fecha_de_generacion`` given where the tenant
        takes documents dated in the past, between the documents' date and today (422 naming it else)."""
        today = self.context.today()
        if given is None or given == today:
            return today
        if tenant.settings.get("restrict_receipt_date", True):
            message = (
                f"El campo {GENERATED_FIELD} solo se acepta donde el servicio recibe documentos con fechas "
                "pasadas (restrict_receipt_date apagado); el resumen se genera hoy."
            )
        elif given > today:
            message = f"El campo {GENERATED_FIELD} no puede ser posterior a hoy ({today:%d/%m/%Y})."
        elif given < day:
            message = (
                f"El campo {GENERATED_FIELD} no puede ser anterior a la fecha de los documentos "
                f"({day:%d/%m/%Y})."
            )
        else:
            return given
        raise field_error(GENERATED_FIELD, message, "INVALID_FIELDS")

    def void(self, tenant: TenantInfo, caller: Caller, body: Mapping[str, Any]) -> list[SentSummary]:
        """``POST /api/voided``: a voided communication of the listed facturas and factura notes
        (accepted or observed, of that issue date, given as Y-m-d or d-m-Y)."""
        reader = Reader()
        values = VOIDED_BODY.read(reader, body, "")
        day = values[DATE_FIELD]
        items = _void_items(reader, body, values["documentos"])
        reader.raise_if_errors()
        assert day is not None
        return self._send(
            tenant, caller, RA, CANCEL, day, lambda c: self._voidable(c, tenant, day, items, FACTURA_GROUP)
        )

    @staticmethod
    def _registered(connection: Connection, tenant: TenantInfo, day: dt.date) -> list[tuple[DbRow, str]]:
        """The tenant's boletas and boleta notes of ``day`` still registered (01), oldest first."""
        rows = connection.execute(
            _DOCUMENT_QUERY.where(
                DOCUMENTS.c.tenant_id == tenant.id,
                DOCUMENTS.c.group_id == BOLETA_GROUP,
                DOCUMENTS.c.date_of_issue == day,
                DOCUMENTS.c.state_type_id == states.REGISTERED,
            ).order_by(DOCUMENTS.c.id)
        ).all()
        if not rows:
            message = f"No se encontraron documentos con fecha de emisión {day.isoformat()}."
            raise ServiceError(422, message, "NO_DOCUMENTS", [FieldError(DATE_FIELD, message)])
        return [(row, "") for row in rows]

    @staticmethod
    def _voidable(
        connection: Connection, tenant: TenantInfo, day: dt.date, items: Sequence[_VoidItem], group: str
    ) -> list[tuple[DbRow, str]]:
        """The listed documents, each of this tenant, ``day``, ``group`` and accepted; else 422."""
        ids = [item.external_id for item in items]
        rows = {
            row.external_id: row
            for row in connection.execute(
                _DOCUMENT_QUERY.where(DOCUMENTS.c.tenant_id == tenant.id, DOCUMENTS.c.external_id.in_(ids))
            )
        }
        missing: list[FieldError] = []
        not_voidable: list[FieldError] = []
        first_missing = ""
        chosen: list[tuple[DbRow, str]] = []
        for item in items:
            path = f"documentos.{item.index}.external_id"
            row = rows.get(item.external_id)
            problem = _mismatch(row, day, group)
            if problem:
                first_missing = first_missing or item.external_id
                missing.append(FieldError(path, problem))
                continue
            assert row is not None
            if row.state_type_id not in VOIDABLE:
                not_voidable.append(
                    FieldError(
                        path,
                        f"El documento {row.series}-{row.number} está en estado "
                        f"{states.describe(row.state_type_id)}: solo se anulan documentos aceptados u "
                        "observados.",
                    )
                )
                continue
            chosen.append((row, item.reason))
        if missing:
            message = (
                f"El código externo {first_missing} no fue encontrado o la fecha indicada no corresponde "
                "al documento."
            )
            raise ServiceError(422, message, "DOCUMENT_NOT_FOUND", missing + not_voidable)
        if not_voidable:
            raise ServiceError(422, not_voidable[0].message, "DOCUMENT_NOT_VOIDABLE", not_voidable)
        return chosen

    def _send(
        self,
        tenant: TenantInfo,
        caller: Caller,
        summary_type: str,
        process: str,
        day: dt.date,
        choose: _Chooser,
        generated: dt.date | None = None,
    ) -> list[SentSummary]:
        """Choose, number, build, sign and store the summaries (generated ``generated``, by default
        today) with their documents' new states (one transaction), then send each (no transaction open:
        SUNAT may take seconds) and keep its ticket; returns them in order. See the module doc for what a
        refusal or a lost answer leaves."""
        identity = self.context.identity(tenant)
        today = generated or self.context.today()
        new_state = states.SENT if process == DECLARE else states.CANCELING
        prepared: list[_Prepared] = []
        try:
            with self.context.writing() as connection:
                # one sender per tenant at a time: numbering and the choice of documents stay consistent
                # (PostgreSQL FOR NO KEY UPDATE: issuing documents, whose foreign key only takes a key-share
                # lock on the tenant, is not blocked)
                connection.execute(
                    select(TENANTS.c.id).where(TENANTS.c.id == tenant.id).with_for_update(key_share=True)
                )
                chosen = choose(connection)
                sequence = _next_sequence(connection, tenant, summary_type, today)
                for start in range(0, len(chosen), MAX_LINES):
                    chunk = chosen[start : start + MAX_LINES]
                    identifier = f"{summary_type}-{today:%Y%m%d}-{sequence}"
                    document = _build(tenant, summary_type, process, identifier, day, today, chunk)
                    signed = sign_summary(document, identity)
                    external_id = str(uuid.uuid4())
                    summary_id = insert_summary(
                        connection,
                        tenant_id=tenant.id,
                        external_id=external_id,
                        user_id=caller.user_id,
                        summary_type=summary_type,
                        process_type=process,
                        sequence=sequence,
                        identifier=identifier,
                        signed=signed,
                        issued=today,
                        reference=day,
                    )
                    connection.execute(
                        SUMMARY_DOCUMENTS.insert(),
                        [
                            {
                                "summary_id": summary_id,
                                "document_id": row.id,
                                "line": line,
                                "previous_state": row.state_type_id,
                                "reason": reason,
                            }
                            for line, (row, reason) in enumerate(chunk, start=1)
                        ],
                    )
                    _move(connection, [row for row, _reason in chunk], new_state)
                    prepared.append(
                        _Prepared(
                            summary_id, external_id, identifier, signed.filename, signed.xml, len(chunk)
                        )
                    )
                    sequence += 1
        except IntegrityError as exc:  # another process numbered or took the same documents meanwhile
            raise _concurrent_change() from exc
        gateway = self.context.gateway(tenant)
        sent: list[SentSummary] = []
        for index, summary in enumerate(prepared):
            try:
                ticket = gateway.send_summary(summary.filename, zip_document(summary.filename, summary.xml))
            except AuthorityError as exc:
                if may_have_arrived(exc.code):  # SUNAT may hold it: kept, sent again (the poller, a status)
                    for later in prepared[index + 1 :]:
                        self.withdraw(later.id)
                    self.plan_poll(summary.id, 0, poll_delay(1), str(exc))
                    raise _lost_answer(exc, summary) from exc
                for unsent in prepared[index:]:
                    self.withdraw(unsent.id)
                raise _authority_error(exc) from exc
            self.keep_ticket(summary.id, ticket)
            sent.append(
                SentSummary(
                    summary.external_id, ticket, summary.identifier, summary.filename, summary.documents
                )
            )
        return sent

    def keep_ticket(self, summary_id: int, ticket: str) -> None:
        """The summary was taken: its ticket, state 03 (sent)."""
        with self.context.writing() as connection:
            connection.execute(
                update(SUMMARIES)
                .where(SUMMARIES.c.id == summary_id, SUMMARIES.c.ticket == "")
                .values(
                    ticket=ticket,
                    state_type_id=states.SENT,
                    poll_attempts=0,
                    next_poll_at=utc_now() + poll_delay(1),
                )
            )

    def withdraw(self, summary_id: int, summary_type: str = RC) -> None:
        """SUNAT did not take the summary, voided communication or reversion (or it was never sent): as
        if it had not been made; its documents go back to the state they had."""
        links, documents, document_id = _linked(summary_type)
        with self.context.writing() as connection:
            for link in connection.execute(
                select(document_id.label("document_id"), links.c.previous_state).where(
                    links.c.summary_id == summary_id
                )
            ).all():
                connection.execute(
                    update(documents)
                    .where(documents.c.id == link.document_id)
                    .values(state_type_id=link.previous_state)
                )
            connection.execute(links.delete().where(links.c.summary_id == summary_id))
            connection.execute(
                SUMMARIES.delete().where(SUMMARIES.c.id == summary_id, SUMMARIES.c.ticket == "")
            )

    # -- tickets -----------------------------------------------------------------------------------

    def status(self, tenant: TenantInfo, summary_type: str, body: Mapping[str, Any]) -> TicketAnswer:
        """``POST /api/summaries/status`` and ``/api/voided/status``: the ticket's answer, found by the
        summary's ``external_id`` or its ``ticket``; the first processed answer moves the states."""
        values = TICKET_QUERY.read_body(body)
        external_id, ticket = values["external_id"], values["ticket"]
        if external_id:
            condition = SUMMARIES.c.external_id == external_id
            missing = not_found(
                f"El código externo {external_id} es inválido, {_RELATED[summary_type]}",
                f"{'SUMMARY' if summary_type == RC else 'VOIDED'}_NOT_FOUND",
                "external_id",
            )
        else:
            condition = SUMMARIES.c.ticket == ticket
            missing = not_found(
                f"El ticket {ticket} es inválido, {_RELATED[summary_type]}",
                f"{'SUMMARY' if summary_type == RC else 'VOIDED'}_NOT_FOUND",
                "ticket",
            )
        query = select(*_SUMMARY_COLUMNS).where(
            SUMMARIES.c.tenant_id == tenant.id, SUMMARIES.c.summary_type == summary_type, condition
        )
        with self.context.engine.connect() as connection:
            row = connection.execute(query.order_by(SUMMARIES.c.id).limit(1)).first()
        if row is None:
            raise missing
        if (row.response or {}).get("replaced_by"):  # a corrective summary carries its documents now
            raise _replaced(row)
        if row.state_type_id not in (states.SENT, states.REGISTERED):  # answered before: served as stored
            return _answer(row, row.state_type_id, row.response)
        gateway = self.context.gateway(tenant)
        if not row.ticket:  # its answer was lost when it was sent: send the same file again
            try:
                row = self._send_again(row, gateway)
            except AuthorityError as exc:
                if not (
                    exc.code in ALREADY_PRESENTED and (row.summary_type, row.process_type) == (RC, DECLARE)
                ):
                    raise _authority_error(exc) from exc
                raise _replaced(self._correct(tenant, row, exc)) from exc  # SUNAT holds it; ticket lost
        try:
            status = gateway.get_status(row.ticket)
        except AuthorityError as exc:
            raise _authority_error(exc) from exc
        if status.in_process or status.response is None:
            return _answer(row, row.state_type_id, None)
        answer = status.response
        response = {
            "code": answer.code,
            "description": answer.description,
            "notes": list(answer.notes),
            "status_code": int(status.status_code),
        }
        state = states.ACCEPTED if status.accepted else states.REJECTED
        # a corrective summary rejected because its boletas were informed before (2282) proves that the
        # summary it replaced was processed: its boletas are declared
        proves = "" if status.accepted or answer.code != ALREADY_INFORMED else self._replaced_by(tenant, row)
        if proves:
            response["proves"] = proves
        with self.context.writing() as connection:
            # the first answer read moves the states; a concurrent query that got there first wins
            current = connection.execute(
                select(*_SUMMARY_COLUMNS).where(SUMMARIES.c.id == row.id).with_for_update(key_share=True)
            ).one()
            if current.state_type_id != states.SENT:
                return _answer(current, current.state_type_id, current.response)
            connection.execute(
                update(SUMMARIES)
                .where(SUMMARIES.c.id == row.id)
                .values(state_type_id=state, response=response, cdr_zip=answer.cdr_zip, next_poll_at=None)
            )
            if row.summary_type == RR:
                _settle_reversed(connection, row.id, status.accepted)
            else:
                _settle_documents(connection, row.id, row.process_type, status.accepted or bool(proves))
            if proves:
                lost = connection.execute(
                    select(SUMMARIES.c.id, SUMMARIES.c.response).where(
                        SUMMARIES.c.tenant_id == tenant.id,
                        SUMMARIES.c.summary_type == RC,
                        SUMMARIES.c.identifier == proves,
                    )
                ).one()
                connection.execute(
                    update(SUMMARIES)
                    .where(SUMMARIES.c.id == lost.id)
                    .values(
                        state_type_id=states.ACCEPTED,
                        response={**(lost.response or {}), "proved_by": row.identifier},
                    )
                )
        return _answer(row, state, response)

    def _correct(self, tenant: TenantInfo, row: DbRow, refused: AuthorityError) -> DbRow:
        """A daily summary whose first answer was lost and that SUNAT says it already holds (2223; its
        ticket cannot be had, nor its boletas' CDRs: getStatusCdr answers only facturas and their notes):
        its boletas go in a corrective summary with the next correlative of today, asked about by the
        poller at once. Its answer settles them: 0, they were not declared and now are; 2282 ("Existe
        documento ya informado anteriormente"), the lost summary was processed and declared them (see
        :meth:`status`). The lost summary keeps its file and says what replaced it. Returns its row."""
        identity = self.context.identity(tenant)
        today = self.context.today()
        with self.context.writing() as connection:
            connection.execute(
                select(TENANTS.c.id).where(TENANTS.c.id == tenant.id).with_for_update(key_share=True)
            )
            lost = connection.execute(
                select(*_SUMMARY_COLUMNS, SUMMARIES.c.date_of_reference, SUMMARIES.c.user_id)
                .where(SUMMARIES.c.id == row.id)
                .with_for_update(key_share=True)
            ).one()
            if (lost.response or {}).get("replaced_by"):  # another process corrected it meanwhile
                return lost
            links = connection.execute(
                select(SUMMARY_DOCUMENTS)
                .where(SUMMARY_DOCUMENTS.c.summary_id == row.id)
                .order_by(SUMMARY_DOCUMENTS.c.line)
            ).all()
            documents = {
                document.id: document
                for document in connection.execute(
                    _DOCUMENT_QUERY.where(DOCUMENTS.c.id.in_([link.document_id for link in links]))
                )
            }
            sequence = _next_sequence(connection, tenant, RC, today)
            identifier = f"{RC}-{today:%Y%m%d}-{sequence}"
            chunk = [(documents[link.document_id], link.reason) for link in links]
            built = _build(tenant, RC, row.process_type, identifier, lost.date_of_reference, today, chunk)
            signed = sign_summary(built, identity)
            corrective_id = insert_summary(
                connection,
                tenant_id=tenant.id,
                external_id=str(uuid.uuid4()),
                user_id=lost.user_id,
                summary_type=RC,
                process_type=row.process_type,
                sequence=sequence,
                identifier=identifier,
                signed=signed,
                issued=today,
                reference=lost.date_of_reference,
                poll_attempts=0,
                next_poll_at=utc_now(),  # sent by the poller's next pass
            )
            connection.execute(
                SUMMARY_DOCUMENTS.insert(),
                [
                    {
                        "summary_id": corrective_id,
                        "document_id": link.document_id,
                        "line": link.line,
                        "previous_state": link.previous_state,
                        "reason": link.reason,
                    }
                    for link in links
                ],
            )
            response = {"code": refused.code, "description": refused.description, "replaced_by": identifier}
            connection.execute(
                update(SUMMARIES)
                .where(SUMMARIES.c.id == row.id)
                .values(response=response, next_poll_at=None, poll_error=None)
            )
            return connection.execute(select(*_SUMMARY_COLUMNS).where(SUMMARIES.c.id == row.id)).one()

    def _replaced_by(self, tenant: TenantInfo, corrective: DbRow) -> str:
        """The identifier of the lost daily summary ``corrective`` replaced ("" when it replaced none)."""
        if corrective.summary_type != RC:
            return ""
        with self.context.engine.connect() as connection:
            rows = connection.execute(
                select(SUMMARIES.c.identifier, SUMMARIES.c.response).where(
                    SUMMARIES.c.tenant_id == tenant.id,
                    SUMMARIES.c.summary_type == RC,
                    SUMMARIES.c.state_type_id == states.REGISTERED,
                    SUMMARIES.c.ticket == "",
                    SUMMARIES.c.response.is_not(None),
                )
            ).all()
        return next(
            (r.identifier for r in rows if (r.response or {}).get("replaced_by") == corrective.identifier), ""
        )

    # -- the background poller ---------------------------------------------------------------------

    def due_for_polling(self, now: dt.datetime, tenant_slug: str | None = None) -> list[tuple[str, int]]:
        """``(tenant slug, summary id)`` of the summaries whose ticket (or whose sending, when its answer
        was lost) is due to be asked about again, the longest due first."""
        query = (
            select(TENANTS.c.slug, SUMMARIES.c.id)
            .join(TENANTS, TENANTS.c.id == SUMMARIES.c.tenant_id)
            .where(
                SUMMARIES.c.next_poll_at.is_not(None),
                SUMMARIES.c.next_poll_at <= now,
                SUMMARIES.c.state_type_id.in_((states.SENT, states.REGISTERED)),
            )
            .order_by(SUMMARIES.c.next_poll_at, SUMMARIES.c.id)
        )
        if tenant_slug is not None:
            query = query.where(TENANTS.c.slug == tenant_slug)
        with self.context.engine.connect() as connection:
            return [(row.slug, row.id) for row in connection.execute(query)]

    def poll(self, tenant: TenantInfo, summary_id: int) -> TicketAnswer | None:
        """Ask about one summary's ticket (sending it again first when its answer was lost), as
        ``POST .../status`` does, and plan the next question: doubling waits from
        :data:`POLL_SECONDS` while SUNAT answers 98 or cannot be reached, none once it answered, and
        none after 0125-0127 (SUNAT does not know the ticket: reported, never asked again). A summary
        sent again that SUNAT says it already has (2223, 2324, 0402: the ticket of its first sending is
        lost), or still unanswered after :data:`MAX_POLL_ATTEMPTS` questions, is not asked about again:
        its ``poll_error`` starts with :data:`NEEDS_A_PERSON` (see :func:`needs_a_person`). Returns the
        answer, or None when another process changed the summary first."""
        with self.context.engine.connect() as connection:
            row = connection.execute(
                select(SUMMARIES.c.external_id, SUMMARIES.c.summary_type, SUMMARIES.c.poll_attempts).where(
                    SUMMARIES.c.id == summary_id, SUMMARIES.c.tenant_id == tenant.id
                )
            ).first()
        if row is None:
            return None
        attempts = (row.poll_attempts or 0) + 1
        try:
            answer = self.status(tenant, row.summary_type, {"external_id": row.external_id})
        except ServiceError as exc:
            if exc.error_code == REPLACED:  # its corrective summary is asked about instead
                self.plan_poll(summary_id, attempts, None, None)
            elif exc.message.startswith(UNKNOWN_TICKET):
                self.plan_poll(summary_id, attempts, None, exc.message)
            elif already_presented(exc.message):
                self.plan_poll(summary_id, attempts, None, NEEDS_A_PERSON + PRESENTED_BEFORE + exc.message)
            elif attempts >= MAX_POLL_ATTEMPTS:
                self.plan_poll(
                    summary_id, attempts, None, NEEDS_A_PERSON + _unanswered(attempts) + exc.message
                )
            else:
                self.plan_poll(summary_id, attempts, poll_delay(attempts + 1), exc.message)
            raise
        if not answer.in_process:
            self.plan_poll(summary_id, attempts, None, None)
        elif attempts >= MAX_POLL_ATTEMPTS:
            self.plan_poll(summary_id, attempts, None, NEEDS_A_PERSON + _unanswered(attempts) + "98")
        else:
            self.plan_poll(summary_id, attempts, poll_delay(attempts + 1), None)
        return answer

    def plan_poll(
        self, summary_id: int, attempts: int, delay: dt.timedelta | None, error: str | None
    ) -> None:
        """When the poller asks about the summary next (``delay`` None: never), and the last error."""
        values: dict[str, Any] = {
            "poll_attempts": attempts,
            "next_poll_at": None if delay is None else utc_now() + delay,
        }
        if error is not None:
            values["poll_error"] = error[:500]
        with self.context.writing() as connection:
            connection.execute(
                update(SUMMARIES)
                .where(
                    SUMMARIES.c.id == summary_id,
                    SUMMARIES.c.state_type_id.in_((states.SENT, states.REGISTERED)),
                )
                .values(**values)
            )

    def _send_again(self, row: DbRow, gateway: AuthorityGateway) -> DbRow:
        """Send a summary whose first sending got no answer (its stored signed file, unchanged) and keep
        the ticket; raises :class:`AuthorityError` while SUNAT still cannot be reached or refuses it."""
        with self.context.engine.connect() as connection:
            xml = connection.execute(select(SUMMARIES.c.xml).where(SUMMARIES.c.id == row.id)).scalar_one()
        send = cast(Any, gateway).send_other_summary if row.summary_type == "RR" else gateway.send_summary
        ticket = send(row.filename, zip_document(row.filename, xml))
        self.keep_ticket(row.id, ticket)
        with self.context.engine.connect() as connection:
            return connection.execute(select(*_SUMMARY_COLUMNS).where(SUMMARIES.c.id == row.id)).one()

    # -- files -------------------------------------------------------------------------------------

    def list_rows(
        self,
        tenant: TenantInfo,
        summary_type: str,
        start: dt.date | None = None,
        end: dt.date | None = None,
        *,
        family: str | None = None,
    ) -> list[dict[str, Any]]:
        """The tenant's summaries (RC), voided communications (RA) or reversions (RR) generated between
        two dates (inclusive), newest first; without dates the latest 100. Each row counts its documents.
        ``family`` (reversions only: 20 retentions, 40 perceptions) keeps those of one family."""
        table, lines = SUMMARIES, SUMMARY_DOCUMENTS
        documents = (
            select(func.count()).where(lines.c.summary_id == table.c.id).scalar_subquery().label("documents")
        )
        if summary_type == "RR":
            reversals = OTHER_DOCUMENT_REVERSALS
            documents = (
                select(func.count())
                .where(reversals.c.summary_id == table.c.id)
                .scalar_subquery()
                .label("documents")
            )
        query = select(
            table.c.id,
            table.c.external_id,
            table.c.summary_type,
            table.c.process_type,
            table.c.identifier,
            table.c.filename,
            table.c.ticket,
            table.c.date_of_issue,
            table.c.date_of_reference,
            table.c.state_type_id,
            table.c.response,
            (table.c.cdr_zip.is_not(None)).label("has_cdr"),
            table.c.created_at,
            documents,
        ).where(table.c.tenant_id == tenant.id, table.c.summary_type == summary_type)
        if family is not None:
            reversals, others = OTHER_DOCUMENT_REVERSALS, OTHER_DOCUMENTS
            query = query.where(
                select(reversals.c.summary_id)
                .join(others, others.c.id == reversals.c.other_document_id)
                .where(reversals.c.summary_id == table.c.id, others.c.document_type_id == family)
                .exists()
            )
        if start is not None and end is not None:
            query = query.where(table.c.date_of_issue.between(start, end))
        query = query.order_by(table.c.date_of_issue.desc(), table.c.id.desc())
        if start is None:
            query = query.limit(100)
        with self.context.engine.connect() as connection:
            return [dict(row._mapping) for row in connection.execute(query)]

    def download(self, tenant: TenantInfo, summary_type: str, kind: str, external_id: str) -> Download:
        """The signed XML (``RUC-RC-YYYYMMDD-n.xml``) or the CDR (``R-RUC-RC-YYYYMMDD-n.zip``)."""
        if kind not in FILE_KINDS:
            raise not_found(f"El tipo de archivo {kind} no existe.", "FILE_TYPE_NOT_FOUND")
        column = SUMMARIES.c.xml if kind == "xml" else SUMMARIES.c.cdr_zip
        with self.context.engine.connect() as connection:
            row = connection.execute(
                select(SUMMARIES.c.identifier, SUMMARIES.c.filename, column.label("content")).where(
                    SUMMARIES.c.tenant_id == tenant.id,
                    SUMMARIES.c.summary_type == summary_type,
                    SUMMARIES.c.external_id == external_id,
                )
            ).first()
        if row is None:
            what = "El resumen" if summary_type == RC else "La comunicación de baja"
            raise not_found(
                f"{what} con código externo {external_id}, no se encuentra registrado.",
                f"{'SUMMARY' if summary_type == RC else 'VOIDED'}_NOT_FOUND",
            )
        if kind == "xml":
            return Download(row.content, f"{row.filename}.xml", "application/xml")
        if row.content is None:
            raise not_found(f"{row.identifier} aún no tiene CDR: consulte su ticket.", "CDR_NOT_FOUND")
        return Download(row.content, f"R-{row.filename}.zip", "application/zip")


# ----------------------------------------------------------------------------------------------------
# Helpers


def _void_items(reader: Reader, body: Mapping[str, Any], entries: list[Mapping[str, Any]]) -> list[_VoidItem]:
    """``documentos[{external_id, motivo_anulacion}]`` as read: none is the real 422 "No se enviaron
    documentos para la anulación."; the same document twice is refused."""
    raw = body.get("documentos") if isinstance(body, Mapping) else None
    if raw is None or raw == []:
        if not reader.errors:  # the real message, when nothing else is wrong
            raise ServiceError(
                422, NO_DOCUMENTS_TO_VOID, "NO_DOCUMENTS", [FieldError("documentos", NO_DOCUMENTS_TO_VOID)]
            )
        reader.error("documentos", NO_DOCUMENTS_TO_VOID)
        return []
    items: list[_VoidItem] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        external_id = entry["external_id"]
        if not external_id:
            continue
        if external_id in seen:
            reader.error(
                f"documentos.{index}.external_id",
                f"El código externo {external_id} está repetido (también en documentos.{seen[external_id]}).",
            )
            continue
        seen[external_id] = index
        items.append(_VoidItem(index, external_id, entry["motivo_anulacion"]))
    return items


def _mismatch(row: DbRow | None, day: dt.date, group: str) -> str:
    """Why a listed document cannot be in this summary (empty when it can, state aside)."""
    if row is None:
        return "No existe un documento con ese código externo."
    number = f"{row.series}-{row.number}"
    if row.date_of_issue != day:
        return f"El documento {number} se emitió el {row.date_of_issue.isoformat()}, no el {day.isoformat()}."
    if row.group_id != group:
        if group == BOLETA_GROUP:
            return (
                f"El documento {number} es una factura o una nota de factura: se anula con una comunicación "
                "de baja (POST /api/voided)."
            )
        return (
            f"El documento {number} es una boleta o una nota de boleta: se anula con un resumen diario "
            "(POST /api/summaries, codigo_tipo_proceso 3)."
        )
    return ""


def _next_sequence(connection: Connection, tenant: TenantInfo, summary_type: str, today: dt.date) -> int:
    last = connection.execute(
        select(func.max(SUMMARIES.c.sequence)).where(
            SUMMARIES.c.tenant_id == tenant.id,
            SUMMARIES.c.summary_type == summary_type,
            SUMMARIES.c.date_of_issue == today,
        )
    ).scalar()
    return int(last or 0) + 1


def _build(
    tenant: TenantInfo,
    summary_type: str,
    process: str,
    identifier: str,
    day: dt.date,
    today: dt.date,
    chunk: Sequence[tuple[DbRow, str]],
) -> DailySummary | VoidedCommunication:
    if summary_type == RA:
        return VoidedCommunication(
            issuer=tenant.issuer,
            identifier=identifier,
            reference_date=day,
            issue_date=today,
            lines=tuple(
                VoidedLine(row.document_type_id, row.series, row.number, reason) for row, reason in chunk
            ),
        )
    condition = ADD if process == DECLARE else VOID
    return DailySummary(
        issuer=tenant.issuer,
        identifier=identifier,
        reference_date=day,
        issue_date=today,
        lines=tuple(_summary_line(row, condition) for row, _reason in chunk),
    )


def _summary_line(row: DbRow, condition: str) -> SummaryLine:
    affected = row.affected_document or {}
    reference_id = f"{affected['series']}-{affected['number']}" if affected else ""

    def money(value: Decimal | None) -> Decimal:
        return Decimal(value or 0)

    return SummaryLine(
        doc_type=row.document_type_id,
        document_id=f"{row.series}-{row.number}",
        condition=condition,
        currency=row.currency_type_id,
        total=money(row.total),
        taxed=money(row.total_taxed),
        exonerated=money(row.total_exonerated),
        unaffected=money(row.total_unaffected),
        export=money(row.total_exportation),
        free=money(row.total_free),
        igv=money(row.total_igv),
        icbper=money(row.total_plastic_bag_taxes),
        isc=money(row.total_isc),
        other=money(row.total_other_taxes),
        customer_type=row.customer_identity_type or "",
        customer_number=row.customer_number or "",
        reference_type=affected.get("document_type_id", "") if affected else "",
        reference_id=reference_id,
    )


#: The first wait before a summary's ticket is asked about in the background; it doubles up to
#: :data:`MAX_POLL_SECONDS` while SUNAT answers 98 (in process) or cannot be reached.
POLL_SECONDS = 10.0
MAX_POLL_SECONDS = 1800.0
#: How a status error starts when SUNAT does not know the ticket (0125-0127): never asked again.
UNKNOWN_TICKET = "Code: 012"
#: How many times the poller asks about one summary before it leaves it to a person: with waits doubling
#: from 10 s to 30 minutes, about 11 hours (SUNAT's tickets that stay 98 for hours are known to clients).
MAX_POLL_ATTEMPTS = 30
#: SUNAT's codes for a summary file it already holds, answered to a summary sent again after the answer
#: to its first sending was lost: 2223 (RC), 2324 (RA, RR), 0402. That first ticket cannot be asked for:
#: no service gives it, and getStatusCdr answers only facturas and their notes (thegreenter/demo#32).
ALREADY_PRESENTED = ("2223", "2324", "0402")
#: SUNAT's 2282 "Existe documento ya informado anteriormente": a summary line adds a boleta it knows.
ALREADY_INFORMED = "2282"
#: The error code of a status query about a daily summary replaced by a corrective one.
REPLACED = "SUMMARY_REPLACED"
#: How the ``poll_error`` of a summary the poller stopped asking about starts.
NEEDS_A_PERSON = "Requiere revisión: "
PRESENTED_BEFORE = (
    "SUNAT ya tiene este archivo y el ticket de su primer envío se perdió. Consulte una de sus boletas en "
    "SUNAT (Consulta de validez del CPE): si figura, el resumen fue procesado; si no, declárelas en un "
    "resumen nuevo. "
)


def already_presented(message: str) -> bool:
    """Whether a status error (``Code: c; Description: d``) is SUNAT saying it already holds the file."""
    return any(message.startswith(f"Code: {code};") for code in ALREADY_PRESENTED)


def _unanswered(attempts: int) -> str:
    return f"SUNAT no respondió el ticket tras {attempts} consultas; la última: "


def needs_a_person(state: str, next_poll_at: dt.datetime | None, poll_error: str | None) -> bool:
    """Whether a summary waits for a person: not settled (01/03), the poller no longer asks about it,
    and it says why (an unknown ticket, a file SUNAT already had, a ticket never answered)."""
    return state in (states.REGISTERED, states.SENT) and next_poll_at is None and bool(poll_error)


def poll_delay(attempts: int) -> dt.timedelta:
    """The wait before the ``attempts``-th background question about a ticket."""
    return dt.timedelta(seconds=min(POLL_SECONDS * 2 ** min(max(attempts - 1, 0), 20), MAX_POLL_SECONDS))


def _linked(summary_type: str) -> tuple[Table, Table, Column[Any]]:
    """The table linking a summary to its documents, the documents' table and the link's column that
    names a document: reversions link retentions and perceptions, the others facturas and boletas."""
    if summary_type == RR:
        return OTHER_DOCUMENT_REVERSALS, OTHER_DOCUMENTS, OTHER_DOCUMENT_REVERSALS.c.other_document_id
    return SUMMARY_DOCUMENTS, DOCUMENTS, SUMMARY_DOCUMENTS.c.document_id


def _settle_reversed(connection: Connection, summary_id: int, accepted: bool) -> None:
    """A reversion's documents once SUNAT answered its ticket: 11 (accepted) or the state they had
    (rejected); only documents still in 13 move."""
    links = connection.execute(
        select(OTHER_DOCUMENT_REVERSALS.c.other_document_id, OTHER_DOCUMENT_REVERSALS.c.previous_state).where(
            OTHER_DOCUMENT_REVERSALS.c.summary_id == summary_id
        )
    ).all()
    for link in links:
        connection.execute(
            update(OTHER_DOCUMENTS)
            .where(
                OTHER_DOCUMENTS.c.id == link.other_document_id,
                OTHER_DOCUMENTS.c.state_type_id == states.CANCELING,
            )
            .values(state_type_id=states.VOIDED if accepted else link.previous_state)
        )


def may_have_arrived(code: str) -> bool:
    """Whether a sending that failed with ``code`` may still have reached SUNAT: no SUNAT code came back
    (a time-out or a cut answer; codes of our own that are not digits), except a connection that was
    never made and HTTP 401/502/503/504 without SOAP (see :mod:`facturador.authority.soap.client`)."""
    return not code.isdigit() and code not in ("CONNECTION", "HTTP-401", "HTTP-502", "HTTP-503", "HTTP-504")


def _lost_answer(exc: AuthorityError, summary: _Prepared) -> ServiceError:
    """502 for a summary that may have reached SUNAT: it is kept, and sent again when its status is
    asked for (``external_id``)."""
    return ServiceError(
        502,
        f"{exc}. El resumen {summary.identifier} quedó registrado (external_id {summary.external_id}) y se "
        "volverá a enviar al consultar su estado.",
        "AUTHORITY_EXCEPTION",
    )


def _replaced(row: DbRow) -> ServiceError:
    """409 for a daily summary replaced by a corrective one (see :meth:`SummaryService._correct`)."""
    response = row.response or {}
    proved = (
        f" SUNAT probó que procesó este resumen ({response['proved_by']}: 2282)."
        if response.get("proved_by")
        else ""
    )
    return ServiceError(
        409,
        f"El resumen {row.identifier} ya estaba en SUNAT ({response.get('code')}) y el ticket de su envío se "
        f"perdió: sus documentos van en el resumen {response.get('replaced_by')}; consulte ese.{proved}",
        REPLACED,
    )


def _authority_error(exc: AuthorityError) -> ServiceError:
    """The authority refused or could not answer: 502 with the real services' ``Code: c; Description: d``."""
    return ServiceError(502, str(exc), "AUTHORITY_EXCEPTION")


def _concurrent_change() -> ServiceError:
    return ServiceError(
        409,
        "Otro envío cambió los mismos documentos al mismo tiempo; intente nuevamente.",
        "CONCURRENT_CHANGE",
    )


def _move(connection: Connection, rows: Iterable[DbRow], new_state: str) -> None:
    """Move the chosen documents to ``new_state`` if nobody changed them since they were read."""
    by_state: dict[str, list[int]] = {}
    for row in rows:
        by_state.setdefault(row.state_type_id, []).append(row.id)
    for state, ids in by_state.items():
        result = connection.execute(
            update(DOCUMENTS)
            .where(DOCUMENTS.c.id.in_(ids), DOCUMENTS.c.state_type_id == state)
            .values(state_type_id=new_state)
        )
        if result.rowcount != len(ids):
            raise _concurrent_change()


def _settle_documents(connection: Connection, summary_id: int, process: str, accepted: bool) -> None:
    """The documents' states after the ticket's answer (see the module's table)."""
    links = connection.execute(
        select(SUMMARY_DOCUMENTS.c.document_id, SUMMARY_DOCUMENTS.c.previous_state).where(
            SUMMARY_DOCUMENTS.c.summary_id == summary_id
        )
    ).all()
    ids = [link.document_id for link in links]
    if accepted:
        final = states.ACCEPTED if process == DECLARE else states.VOIDED
        connection.execute(update(DOCUMENTS).where(DOCUMENTS.c.id.in_(ids)).values(state_type_id=final))
        return
    if process == DECLARE:
        connection.execute(
            update(DOCUMENTS)
            .where(DOCUMENTS.c.id.in_(ids), DOCUMENTS.c.state_type_id == states.SENT)
            .values(state_type_id=states.REGISTERED)
        )
        return
    by_previous: dict[str, list[int]] = {}
    for link in links:
        by_previous.setdefault(link.previous_state, []).append(link.document_id)
    for previous, document_ids in by_previous.items():
        connection.execute(
            update(DOCUMENTS)
            .where(DOCUMENTS.c.id.in_(document_ids), DOCUMENTS.c.state_type_id == states.CANCELING)
            .values(state_type_id=previous)
        )


def _answer(row: DbRow, state: str, response: dict[str, Any] | None) -> TicketAnswer:
    return TicketAnswer(
        external_id=row.external_id,
        filename=row.filename,
        ticket=row.ticket,
        identifier=row.identifier,
        state_type_id=state,
        in_process=response is None,
        response=response,
    )
