"""Documents e-mailed to customers through the tenant's SMTP server, by the job queue, with retries.

A *delivery* (a row of ``email_deliveries``) is one message to one or more addresses: a document's PDF,
signed XML and, once SUNAT answered, its CDR (``R-<file>.zip``); a sale note's PDF. It is queued by
``acciones.enviar_email`` on issue, ``POST /api/document/email`` or ``POST /api/sale-note/email`` (real
PRO's ``{"id", "email"}``), and sent by the background worker (job kind ``email``). A transient failure
(the server unreachable or cut, a 4xx answer) is tried again after ``email_retry_seconds``, doubling, up
to ``email_max_attempts``; a refusal (5xx: unknown mailbox, relay denied, authentication refused) or a
TLS/certificate error is recorded as failed at once. ``docs/email.md`` has the settings and the states.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import smtplib
import ssl
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection

from facturador.context import ServiceContext, TenantInfo
from facturador.domain import states
from facturador.domain.documents import DocumentService, Download, PdfToRender
from facturador.domain.email_records import (
    ADDRESS_RE,
    FAILED,
    QUEUED,
    SENT,
    check_smtp_changes,
    deliveries_of,
    lima,
)
from facturador.domain.fields import MAX_RECORD_ID, Number, Object, Text
from facturador.errors import ServiceError, field_error, not_found
from facturador.store.jobs import EMAIL, JobQueue
from facturador.store.models import DOCUMENTS, EMAIL_DELIVERIES, PERSONS, SALE_NOTES, TENANTS
from sunat.catalogs import DOCUMENT_TYPES

log = logging.getLogger("facturador.email")

DOCUMENT, SALE_NOTE = "document", "sale_note"
#: The most addresses one request may name (real PRO takes a list separated by commas or semicolons).
MAX_ADDRESSES = 10
MAX_RETRY_SECONDS = 3600.0
#: What a request without SMTP settings is told (real PRO logs "No hay configuración de correo").
NOT_CONFIGURED = (
    "La empresa no tiene configurado su servidor de correo (SMTP): configúrelo con "
    "'facturador tenant smtp {slug} --host ... --from ...' (docs/email.md)."
)
#: The wording of a document's type in a message (catalog 01, as a customer reads it).
TYPE_NAMES = {
    "01": "FACTURA ELECTRÓNICA",
    "03": "BOLETA DE VENTA ELECTRÓNICA",
    "07": "NOTA DE CRÉDITO ELECTRÓNICA",
    "08": "NOTA DE DÉBITO ELECTRÓNICA",
}
CURRENCY_SIGNS = {"PEN": "S/", "USD": "US$", "EUR": "€"}


#: ``POST /api/document/email`` and ``/api/sale-note/email``: real PRO's body.
EMAIL_BODY = Object(
    name="EmailBody",
    description="El comprobante (su id) y los correos a los que se envía.",
    required=True,
    fields={
        "id": Number(
            "El id del documento (o de la nota de venta), como lo dan la emisión y las listas.",
            required=True,
            integer_digits=10,
            decimals=0,
            minimum="positive",
            maximum=MAX_RECORD_ID,
            absent=None,
            example=1,
        ),
        "email": Text(
            "Correos separados por comas o punto y coma (como real PRO); si se omite, el del cliente.",
            max_length=2000,
            example="cliente@example.com",
        ),
    },
)


def utc_now() -> dt.datetime:
    """Now in UTC, naive (as the job queue schedules)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


# -- settings ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SmtpSettings:
    """A tenant's SMTP server (its password comes from the tenant's secret ``smtp_password``)."""

    host: str
    port: int
    tls: str
    user: str
    password: str | None
    sender: str
    sender_name: str
    cafile: str = ""
    timeout: float = 30.0

    def describe(self) -> str:
        """One line for operators, without the password."""
        who = f"{self.user} (password {'set' if self.password else 'not set'})" if self.user else "no login"
        return (
            f"{self.host}:{self.port} tls={self.tls} {who} from {formataddr((self.sender_name, self.sender))}"
        )


def smtp_settings(tenant: TenantInfo, password: str | None) -> SmtpSettings | None:
    """The tenant's SMTP settings, or None when it has no host or sender address."""
    options = tenant.settings
    host, sender = str(options.get("smtp_host") or ""), str(options.get("smtp_from") or "")
    if not host or not sender:
        return None
    return SmtpSettings(
        host=host,
        port=int(options.get("smtp_port") or 587),
        tls=str(options.get("smtp_tls") or "starttls"),
        user=str(options.get("smtp_user") or ""),
        password=password,
        sender=sender,
        sender_name=str(options.get("smtp_from_name") or "") or tenant.name,
        cafile=str(options.get("smtp_cafile") or ""),
        timeout=float(options.get("smtp_timeout") or 30.0),
    )


def parse_addresses(text: Any, field_name: str = "email") -> list[str]:
    """The addresses of ``text`` (separated by commas, semicolons or spaces, as real PRO reads them);
    422 naming ``field_name`` when one is not an address or there are too many."""
    if not isinstance(text, str):
        raise field_error(field_name, f"El campo {field_name} debe ser un texto con correos electrónicos.")
    found = [part for part in re.split(r"[,;\s]+", text) if part]
    bad = [part for part in found if len(part) > 254 or not ADDRESS_RE.match(part)]
    if bad:
        raise field_error(
            field_name, f"El correo electrónico {bad[0][:100]} no es válido.", "INVALID_EMAIL_ADDRESS"
        )
    if len(found) > MAX_ADDRESSES:
        raise field_error(
            field_name, f"Se admiten como máximo {MAX_ADDRESSES} correos por envío.", "TOO_MANY_ADDRESSES"
        )
    return list(dict.fromkeys(found))


# -- the message ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    media_type: str


@dataclass(frozen=True)
class Letter:
    """What a delivery sends: subject, text and attachments (the addresses are the delivery's)."""

    subject: str
    text: str
    attachments: tuple[Attachment, ...]


def money(amount: Any, currency: str) -> str:
    return f"{CURRENCY_SIGNS.get(currency, currency)} {float(amount or 0):,.2f}"


def document_letter(tenant: TenantInfo, row: Any, files: Iterable[Attachment]) -> Letter:
    """The message of a document (a row of ``documents``) as a Peruvian company sends it."""
    type_name = TYPE_NAMES.get(row.document_type_id, DOCUMENT_TYPES.get(row.document_type_id, "").upper())
    number = f"{row.series}-{row.number}"
    attachments = tuple(files)
    has_cdr = any(item.filename.startswith("R-") for item in attachments)
    lines = [
        f"Estimado(a) {row.customer_name}:",
        "",
        f"{tenant.name} (RUC {tenant.ruc}) le envía su {type_name} {number}, emitida el "
        f"{row.date_of_issue:%d/%m/%Y} por un total de {money(row.total, row.currency_type_id)}.",
        "",
        "Adjuntamos:",
        f"- {row.filename}.pdf: la representación impresa del comprobante.",
        f"- {row.filename}.xml: el comprobante electrónico firmado.",
    ]
    if has_cdr:
        lines.append(f"- R-{row.filename}.zip: la Constancia de Recepción (CDR) de SUNAT.")
    lines += [
        "",
        f"Estado ante SUNAT: {states.describe(row.state_type_id)}.",
        "Puede verificar su validez en la consulta de comprobantes electrónicos de SUNAT "
        "(https://e-consulta.sunat.gob.pe/ol-ti-itconsvalicpe/ConsValiCpe.htm).",
        "",
        "Atentamente,",
        tenant.name,
        "",
        "Este correo fue enviado automáticamente; por favor no lo responda.",
    ]
    return Letter(f"{type_name} {number} - {tenant.name}", "\n".join(lines), attachments)


def sale_note_letter(tenant: TenantInfo, row: Any, customer_name: str, pdf: Attachment) -> Letter:
    """The message of a sale note (not a tax document: its PDF only, as real PRO sends it)."""
    number = f"{row.series}-{row.number}"
    text = "\n".join(
        [
            f"Estimado(a) {customer_name}:",
            "",
            f"{tenant.name} (RUC {tenant.ruc}) le envía su NOTA DE VENTA {number} del "
            f"{row.date_of_issue:%d/%m/%Y} por un total de {money(row.total, row.currency_type_id)}.",
            "",
            f"Adjuntamos {pdf.filename}. La nota de venta no es un comprobante de pago electrónico.",
            "",
            "Atentamente,",
            tenant.name,
        ]
    )
    return Letter(f"NOTA DE VENTA {number} - {tenant.name}", text, (pdf,))


def compose(settings: SmtpSettings, addresses: list[str], letter: Letter, when: dt.datetime) -> EmailMessage:
    """The MIME message of ``letter`` from the tenant's sender to ``addresses``."""
    message = EmailMessage()
    message["Subject"] = letter.subject
    message["From"] = formataddr((settings.sender_name, settings.sender))
    message["To"] = ", ".join(addresses)
    message["Date"] = formatdate(when.replace(tzinfo=dt.UTC).timestamp(), localtime=False)
    message["Message-ID"] = make_msgid(domain=settings.sender.rpartition("@")[2] or None)
    message.set_content(letter.text)
    for item in letter.attachments:
        main, _, sub = item.media_type.partition("/")
        message.add_attachment(item.content, maintype=main, subtype=sub, filename=item.filename)
    return message


# -- sending ----------------------------------------------------------------------------------------


class Transient(Exception):
    """A failure worth another attempt: the server unreachable or cut, or a 4xx answer."""


class Refused(Exception):
    """A failure another attempt would repeat: a 5xx answer, a bad certificate, TLS not offered."""


def _answer(code: int, text: bytes | str) -> str:
    said = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    return f"{code} {said}".strip()


def smtp_send(settings: SmtpSettings, message: EmailMessage, addresses: list[str]) -> dict[str, str]:
    """Send ``message`` through the tenant's server; the addresses it refused (when others took it),
    with the server's answer. Raises :class:`Transient` or :class:`Refused`."""
    context = ssl.create_default_context(cafile=settings.cafile or None)
    client: smtplib.SMTP | None = None
    try:
        if settings.tls == "ssl":
            client = smtplib.SMTP_SSL(settings.host, settings.port, timeout=settings.timeout, context=context)
        else:
            client = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
            client.ehlo()
            if settings.tls == "starttls":
                client.starttls(context=context)
                client.ehlo()
        if settings.user:
            client.login(settings.user, settings.password or "")
        refused = client.send_message(message, from_addr=settings.sender, to_addrs=addresses)
        return {address: _answer(code, text) for address, (code, text) in refused.items()}
    except smtplib.SMTPRecipientsRefused as exc:  # every address refused
        answers = [_answer(code, text) for _, (code, text) in exc.recipients.items()]
        codes = [code for code, _ in exc.recipients.values()]
        detail = "; ".join(
            f"{address}: {answer}" for address, answer in zip(exc.recipients, answers, strict=True)
        )
        if all(400 <= code < 500 for code in codes):
            raise Transient(f"destinatario rechazado por ahora: {detail}") from None
        raise Refused(f"destinatario rechazado: {detail}") from None
    except smtplib.SMTPResponseException as exc:
        answer = _answer(exc.smtp_code, exc.smtp_error)
        if 400 <= exc.smtp_code < 500:
            raise Transient(f"el servidor de correo respondió {answer}") from None
        raise Refused(f"el servidor de correo respondió {answer}") from None
    except smtplib.SMTPNotSupportedError as exc:
        raise Refused(f"el servidor de correo no ofrece lo pedido: {exc}") from None
    except ssl.SSLError as exc:  # a certificate not trusted, a wrong TLS mode: the same next time
        raise Refused(f"TLS con {settings.host}:{settings.port} falló: {exc}") from None
    except (TimeoutError, smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError, OSError) as exc:
        raise Transient(f"no se pudo conectar a {settings.host}:{settings.port}: {exc}") from None
    except smtplib.SMTPException as exc:
        raise Transient(f"error SMTP: {exc}") from None
    finally:
        if client is not None:
            try:
                client.quit()
            except (smtplib.SMTPException, OSError):
                client.close()


# -- deliveries -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Delivery:
    id: int
    state: str
    address: str


class EmailDeliveries:
    """Queues, sends and shows a tenant's deliveries (see module doc)."""

    def __init__(self, context: ServiceContext):
        self.context = context

    def now(self) -> dt.datetime:
        """The service clock's time, naive UTC (recorded times; the injected clock in tests)."""
        return dt.datetime.fromtimestamp(self.context.clock(), dt.UTC).replace(tzinfo=None)

    def configured(self, tenant: TenantInfo) -> SmtpSettings | None:
        return smtp_settings(tenant, self.context.tenant_secret(tenant.id, "smtp_password"))

    # -- queueing ----------------------------------------------------------------------------------

    def request(self, tenant: TenantInfo, kind: str, body: Any) -> Delivery:
        """``POST /api/document/email`` (``kind`` document) or ``/api/sale-note/email`` (sale_note): the
        body's ``id`` (the document's or sale note's) and ``email`` (else the customer's), queued."""
        values = EMAIL_BODY.read_body(body)
        target = int(values["id"])
        given = values["email"]
        with self.context.engine.connect() as connection:
            customer_email = (
                self._document_email(connection, tenant, target)
                if kind == DOCUMENT
                else self._sale_note_email(connection, tenant, target)
            )
        if given is None or (isinstance(given, str) and not given.strip()):
            if not customer_email:
                raise field_error(
                    "email",
                    "El campo email es obligatorio: el cliente no tiene correo electrónico registrado.",
                    "EMAIL_REQUIRED",
                )
            given = customer_email
        addresses = parse_addresses(given)
        if self.configured(tenant) is None:
            raise ServiceError(409, NOT_CONFIGURED.format(slug=tenant.slug), "SMTP_NOT_CONFIGURED")
        return self.queue(tenant, kind, target, addresses)

    def _document_email(self, connection: Connection, tenant: TenantInfo, document_id: int) -> str:
        row = connection.execute(
            select(DOCUMENTS.c.customer).where(
                DOCUMENTS.c.id == document_id, DOCUMENTS.c.tenant_id == tenant.id
            )
        ).first()
        if row is None:
            raise not_found(f"El documento con id {document_id} no existe.", field_name="id")
        return str((row.customer or {}).get("email") or "")

    def _sale_note_email(self, connection: Connection, tenant: TenantInfo, note_id: int) -> str:
        row = connection.execute(
            select(PERSONS.c.email)
            .select_from(SALE_NOTES.outerjoin(PERSONS, PERSONS.c.id == SALE_NOTES.c.customer_id))
            .where(SALE_NOTES.c.id == note_id, SALE_NOTES.c.tenant_id == tenant.id)
        ).first()
        if row is None:
            raise not_found("La nota de venta asociada no existe.", "SALE_NOTE_NOT_FOUND", "id")
        return str(row.email or "")

    def after_issue(self, tenant: TenantInfo, document_id: int, customer_email: str) -> Delivery:
        """``acciones.enviar_email`` of an issued document: queued to the customer's address; recorded
        failed at once (the document stays issued) when there is no address or no SMTP server."""
        error = None
        addresses: list[str] = []
        try:
            addresses = parse_addresses(
                customer_email or "", "datos_del_cliente_o_receptor.correo_electronico"
            )
        except ServiceError as exc:
            error = exc.message
        if not addresses and error is None:
            error = (
                "El cliente no tiene correo electrónico (datos_del_cliente_o_receptor.correo_electronico)."
            )
        if error is None and self.configured(tenant) is None:
            error = NOT_CONFIGURED.format(slug=tenant.slug)
        return self.queue(tenant, DOCUMENT, document_id, addresses, failed=error)

    def queue(
        self,
        tenant: TenantInfo,
        kind: str,
        target_id: int,
        addresses: list[str],
        *,
        failed: str | None = None,
    ) -> Delivery:
        """Record a delivery and make its job (or record it failed with ``failed``)."""
        now = self.now()
        state, address = (FAILED if failed else QUEUED), ", ".join(addresses)[:1000]
        values: dict[str, Any] = {
            "tenant_id": tenant.id,
            "kind": kind,
            "target_id": target_id,
            "address": address,
            "state": state,
            "attempts": 0,
            "last_error": failed[:500] if failed else None,
            "created_at": now,
            "updated_at": now,
            "next_attempt_at": None if failed else utc_now(),
        }
        with self.context.writing() as connection:
            delivery_id = connection.execute(
                insert(EMAIL_DELIVERIES).returning(EMAIL_DELIVERIES.c.id), values
            ).scalar_one()
        if not failed:
            JobQueue(self.context.db).enqueue(EMAIL, [delivery_id])
        else:
            log.warning("e-mail of %s %s not queued: %s", kind, target_id, failed)
        return Delivery(delivery_id, state, address)

    # -- sending (the worker's job) ----------------------------------------------------------------

    def deliver(self, delivery_id: int) -> str | None:
        """Make one attempt of a queued delivery that is due; its new state (None: nothing owed)."""
        with self.context.engine.connect() as connection:
            row = connection.execute(
                select(EMAIL_DELIVERIES).where(EMAIL_DELIVERIES.c.id == delivery_id)
            ).first()
            if row is None or row.state != QUEUED:
                return None
            if row.next_attempt_at is not None and row.next_attempt_at > utc_now():
                return None  # a retry not due yet (the queue enqueues it again when it is)
            slug = connection.execute(select(TENANTS.c.slug).where(TENANTS.c.id == row.tenant_id)).scalar()
        tenant = self.context.tenant_by_slug(slug) if slug else None
        if tenant is None:
            return None
        settings = self.configured(tenant)
        attempts = row.attempts + 1
        addresses = [part.strip() for part in row.address.split(",") if part.strip()]
        if settings is None:
            return self._record(row.id, FAILED, attempts, NOT_CONFIGURED.format(slug=tenant.slug))
        try:
            letter = self._letter(tenant, row.kind, row.target_id)
            message = compose(settings, addresses, letter, self.now())
            refused = smtp_send(settings, message, addresses)
        except Transient as exc:
            limit = int(tenant.settings.get("email_max_attempts") or 5)
            if attempts >= limit:
                return self._record(row.id, FAILED, attempts, f"{exc} (intento {attempts} de {limit})")
            base = float(tenant.settings.get("email_retry_seconds", 60.0))
            wait = min(base * 2 ** (attempts - 1), MAX_RETRY_SECONDS)
            due = utc_now() + dt.timedelta(seconds=wait)
            return self._record(row.id, QUEUED, attempts, str(exc), next_attempt_at=due)
        except Refused as exc:
            return self._record(row.id, FAILED, attempts, str(exc))
        except ServiceError as exc:  # the document or sale note is gone
            return self._record(row.id, FAILED, attempts, exc.message)
        note = "; ".join(f"rechazado {address}: {answer}" for address, answer in refused.items()) or None
        log.info("e-mailed %s %s to %s", row.kind, row.target_id, row.address)
        return self._record(row.id, SENT, attempts, note, sent=True)

    def _record(
        self,
        delivery_id: int,
        state: str,
        attempts: int,
        error: str | None,
        *,
        next_attempt_at: dt.datetime | None = None,
        sent: bool = False,
    ) -> str:
        now = self.now()
        values: dict[str, Any] = {
            "state": state,
            "attempts": attempts,
            "last_error": error[:500] if error else None,
            "updated_at": now,
            "next_attempt_at": next_attempt_at,
        }
        if sent:
            values["sent_at"] = now
        with self.context.writing() as connection:
            connection.execute(
                update(EMAIL_DELIVERIES).where(EMAIL_DELIVERIES.c.id == delivery_id).values(**values)
            )
        if state != SENT:
            log.warning("e-mail delivery %s: %s after %s attempt(s): %s", delivery_id, state, attempts, error)
        return state

    def _letter(self, tenant: TenantInfo, kind: str, target_id: int) -> Letter:
        from facturador.domain.sale_notes import SaleNoteService

        documents = DocumentService(self.context)
        with self.context.engine.connect() as connection:
            table = DOCUMENTS if kind == DOCUMENT else SALE_NOTES
            row = connection.execute(
                select(table).where(table.c.id == target_id, table.c.tenant_id == tenant.id)
            ).first()
            if row is None:
                raise not_found(f"El comprobante {target_id} ya no existe.")
            customer_name = ""
            if kind == SALE_NOTE:
                customer_name = str(
                    connection.execute(select(PERSONS.c.name).where(PERSONS.c.id == row.customer_id)).scalar()
                    or ""
                )
        if kind == SALE_NOTE:
            content, filename = SaleNoteService(self.context, documents).pdf(tenant, row.external_id, None)
            return sale_note_letter(
                tenant, row, customer_name, Attachment(filename, content, "application/pdf")
            )
        files = []
        for file_kind in ("pdf", "xml", "cdr"):
            try:
                found = documents.download(tenant, file_kind, row.external_id)
            except ServiceError:
                if file_kind == "cdr":  # SUNAT has not answered (or a boleta declared in a summary)
                    continue
                raise
            if isinstance(found, PdfToRender):
                found = Download(found.render(lambda: False), found.filename, "application/pdf")
            files.append(Attachment(found.filename, found.content, found.media_type))
        return document_letter(tenant, row, files)

    # -- showing -----------------------------------------------------------------------------------

    def of_target(self, tenant: TenantInfo, kind: str, target_id: int) -> list[dict[str, Any]]:
        with self.context.engine.connect() as connection:
            return deliveries_of(connection, tenant.id, kind, [target_id]).get(target_id, [])

    def of_document(self, tenant: TenantInfo, external_id: str) -> list[dict[str, Any]]:
        """The deliveries of the tenant's document ``external_id`` (404 for an unknown one)."""
        with self.context.engine.connect() as connection:
            document_id = connection.execute(
                select(DOCUMENTS.c.id).where(
                    DOCUMENTS.c.tenant_id == tenant.id, DOCUMENTS.c.external_id == external_id
                )
            ).scalar()
        if document_id is None:
            raise not_found(
                f"El documento con código externo {external_id}, no se encuentra registrado.",
                field_name="external_id",
            )
        return self.of_target(tenant, DOCUMENT, int(document_id))


def deliveries_listing(connection: Connection, limit: int = 20) -> list[Any]:
    """The latest deliveries of every tenant, for ``facturador jobs``."""
    query = (
        select(EMAIL_DELIVERIES, TENANTS.c.slug)
        .join(TENANTS, TENANTS.c.id == EMAIL_DELIVERIES.c.tenant_id)
        .order_by(EMAIL_DELIVERIES.c.id.desc())
        .limit(max(limit, 0))
    )
    return list(connection.execute(query))


def enqueue_due(context: ServiceContext, now: dt.datetime | None = None) -> int:
    """Make a job of every queued delivery due at ``now`` (a retry whose wait is over)."""
    due = select(EMAIL_DELIVERIES.c.id).where(
        EMAIL_DELIVERIES.c.state == QUEUED, EMAIL_DELIVERIES.c.next_attempt_at <= (now or utc_now())
    )
    with context.engine.connect() as connection:
        ids = list(connection.execute(due).scalars())
    return JobQueue(context.db).enqueue(EMAIL, ids)


def configure_smtp(
    context: ServiceContext, slug: str, changes: dict[str, Any], password: str | None, *, clear_password: bool
) -> str:
    """Set tenant ``slug``'s SMTP settings (``changes``: smtp_* keys, None for unchanged) and password
    (kept encrypted as the secret ``smtp_password``); a line describing the result, without the
    password. Raises ValueError saying what is wrong."""
    from facturador.domain.tenants import TenantError, set_secret, update_settings

    checked = check_smtp_changes(changes)
    try:
        with context.session() as session, session.begin():
            if checked:
                update_settings(session, slug, checked)
            if password is not None or clear_password:
                kept = None if clear_password else password
                set_secret(session, context.vault, slug, "smtp_password", kept)
    except TenantError as exc:
        raise ValueError(str(exc)) from None
    context._tenants.clear()
    tenant = context.tenant_by_slug(slug)
    assert tenant is not None
    found = smtp_settings(tenant, context.tenant_secret(tenant.id, "smtp_password"))
    if found is None:
        return f"{slug}: no SMTP server yet (it takes --host and --from)."
    return f"{slug}: e-mails go through {found.describe()}."


def describe_deliveries(context: ServiceContext, limit: int = 20) -> list[str]:
    """``facturador jobs``' lines about e-mail: counts per state, then the latest deliveries."""
    with context.engine.connect() as connection:
        rows = deliveries_listing(connection, limit)
        counts: dict[str, int] = dict(
            connection.execute(
                select(EMAIL_DELIVERIES.c.state, func.count()).group_by(EMAIL_DELIVERIES.c.state)
            ).all()
        )
    if not counts:
        return []
    lines = [
        "E-mail deliveries: "
        + ", ".join(f"{counts.get(state, 0)} {state}" for state in (QUEUED, SENT, FAILED))
        + " (latest first, times in Lima)"
    ]
    for row in rows:
        when = lima(row.sent_at or row.updated_at)
        error = f"  {row.last_error}" if row.last_error else ""
        retry = row.next_attempt_at if row.state == QUEUED else None
        due = f", next attempt {lima(retry)}" if retry else ""
        lines.append(
            f"  #{row.id} {row.kind} {row.target_id} ({row.slug}) to {row.address}: {row.state} at {when}, "
            f"{row.attempts} attempt(s){due}{error}"
        )
    return lines


__all__ = [
    "EmailDeliveries",
    "SmtpSettings",
    "check_smtp_changes",
    "configure_smtp",
    "describe_deliveries",
    "deliveries_listing",
    "enqueue_due",
    "parse_addresses",
    "smtp_settings",
]
