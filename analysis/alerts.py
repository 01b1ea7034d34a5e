"""What needs the accountant's attention today: boletas not declared, facturas without a CDR, rejected
documents to reissue, tickets still in process, voidings requested after SUNAT's deadline, documents
whose credit notes take more than they carry.

:func:`alerts` takes the :class:`~analysis.sales.Sale` objects of a range that reaches back as far as
the caller wants to look (the dashboard: a year) and, when the service lists them, its summaries and
voided communications (:class:`~connector.models.SummaryRecord`); real tenants have no such lists, so the
ticket alerts then say they could not be checked.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from analysis.sales import Sale
from connector.company import AttentionItem, CertificateStatus
from connector.models import SummaryRecord
from sunat.deadlines import (
    FACTURA_SENDING_DAYS,
    SUMMARY_DAYS,
    VOIDING_DAYS,
    days_past,
    factura_deadline,
    summary_deadline,
    voiding_deadline,
)

__all__ = [
    "ALERT_STATES",
    "LOOK_BACK_DAYS",
    "Alert",
    "PendingDay",
    "alerts",
    "needs_a_person",
    "over_credited",
    "situation",
    "undeclared_boletas",
    "undeclared_title",
]

#: The states the document alerts are about (registered, sent, rejected, being voided): a document in
#: another state raises none, so a page reads only these out of a year.
ALERT_STATES = frozenset({"01", "03", "09", "13"})
#: How far back the alerts (Inicio) and the boletas to declare (Resúmenes) look: a boleta never declared
#: is found up to a year after its issue.
LOOK_BACK_DAYS = 366

Severity = Literal["error", "warning", "info", "ok"]


@dataclass(frozen=True)
class Alert:
    """One kind of problem: how serious, a title, what to do, and the rows it is about (dicts for a
    table: keys are Spanish column headers)."""

    kind: str
    severity: Severity
    title: str
    action: str
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def count(self) -> int:
        """How many things it is about."""
        return len(self.rows)


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _document_row(sale: Sale) -> dict[str, Any]:
    return {
        "Número": sale.number,
        "Fecha": sale.date,
        "Cliente": sale.customer_name,
        "Moneda": sale.currency,
        "Total": sale.amounts.total,
    }


def situation(deadline: dt.date, today: dt.date) -> str:
    """A deadline read on ``today``: «Vencido hace 3 días», «Vence hoy», «Quedan 2 días»."""
    late = days_past(deadline, today)
    if late:
        return f"Vencido hace {_plural(late, 'día', 'días')}"
    left = (deadline - today).days
    return "Vence hoy" if left == 0 else f"Quedan {_plural(left, 'día', 'días')}"


@dataclass(frozen=True)
class PendingDay:
    """An issue date with boletas or boleta notes not yet declared in a daily summary."""

    day: dt.date
    boletas: int
    notes: int
    #: The documents' totals by currency (never added across currencies).
    totals: dict[str, Decimal]

    @property
    def documents(self) -> int:
        """Boletas and notes."""
        return self.boletas + self.notes

    @property
    def deadline(self) -> dt.date:
        """The last day SUNAT takes them in a summary without observation 4443."""
        return summary_deadline(self.day)


def undeclared_boletas(sales: Iterable[Sale], today: dt.date) -> list[PendingDay]:
    """The one rule of «boletas sin declarar» (Inicio and Resúmenes): boletas (03) and their notes (07, 08
    of a B series) still registered (01), issued before ``today`` (today's are declared at the day's
    close), by issue date, oldest first."""
    days: dict[dt.date, list[Sale]] = defaultdict(list)
    for sale in sales:
        boleta = sale.document_type == "03" or (
            sale.document_type in ("07", "08") and sale.series[:1].upper() == "B"
        )
        if boleta and sale.state == "01" and sale.date < today:
            days[sale.date].append(sale)
    found = []
    for day in sorted(days):
        totals: dict[str, Decimal] = defaultdict(Decimal)
        for sale in days[day]:
            totals[sale.currency] += sale.amounts.total
        boletas = sum(1 for sale in days[day] if sale.document_type == "03")
        found.append(PendingDay(day, boletas, len(days[day]) - boletas, dict(totals)))
    return found


def undeclared_title(pending: Sequence[PendingDay], today: dt.date) -> str:
    """How many boletas and notes of how many past days wait for a summary, and how many days are late."""
    count = sum(day.documents for day in pending)
    title = f"{_plural(count, 'boleta o nota sin declarar', 'boletas o notas sin declarar')} de " + _plural(
        len(pending), "día pasado", "días pasados"
    )
    late = sum(1 for day in pending if days_past(day.deadline, today))
    if late:
        title += f" ({_plural(late, 'día', 'días')} fuera del plazo de {SUMMARY_DAYS} días)"
    return title


def boletas_not_declared(sales: Iterable[Sale], today: dt.date) -> Alert:
    """Boletas and their notes of past days still registered (01): by day, with the deadline."""
    pending = undeclared_boletas(sales, today)
    if not pending:
        return Alert("boletas", "ok", "Todas las boletas de días pasados están declaradas.", "")
    rows = [
        {
            "Fecha de emisión": day.day,
            "Documentos": day.documents,
            "Plazo SUNAT": day.deadline,
            "Situación": situation(day.deadline, today),
        }
        for day in pending
    ]
    late = any(days_past(day.deadline, today) for day in pending)
    action = (
        f"Declárelas en un resumen diario (página Resúmenes). SUNAT las recibe hasta {SUMMARY_DAYS} días "
        "después de su emisión; después las acepta con la observación 4443."
    )
    return Alert("boletas", "error" if late else "warning", undeclared_title(pending, today), action, rows)


def facturas_without_cdr(sales: Iterable[Sale], today: dt.date) -> Alert:
    """Facturas and their notes that have no CDR: not sent, or the authority never answered; each with the
    last day SUNAT takes it."""
    found = [s for s in sales if s.series[:1].upper() == "F" and not s.has_cdr and s.state in ("01", "03")]
    if not found:
        return Alert("cdr", "ok", "Todas las facturas y sus notas tienen su CDR.", "")
    rows = []
    late = 0
    for sale in sorted(found, key=lambda s: (s.date, s.number)):
        deadline = factura_deadline(sale.date)
        late += bool(days_past(deadline, today))
        rows.append({**_document_row(sale), "Plazo SUNAT": deadline, "Situación": situation(deadline, today)})
    title = _plural(len(found), "factura o nota sin CDR", "facturas o notas sin CDR")
    if late:
        title += f" ({late} fuera del plazo de {FACTURA_SENDING_DAYS} días)"
    return Alert(
        "cdr",
        "error" if late else "warning",
        title,
        f"Envíelas a SUNAT (Documentos → Enviar a SUNAT): sin CDR no tienen validez ante SUNAT. SUNAT las "
        f"recibe hasta {FACTURA_SENDING_DAYS} días después de su emisión; después las rechaza (2108).",
        rows,
    )


def rejected(sales: Iterable[Sale]) -> Alert:
    """Documents the authority rejected: their numbers are used, they must be issued again."""
    found = sorted((s for s in sales if s.state == "09"), key=lambda s: (s.date, s.number))
    if not found:
        return Alert("rejected", "ok", "No hay documentos rechazados.", "")
    return Alert(
        "rejected",
        "error",
        _plural(len(found), "documento rechazado por SUNAT", "documentos rechazados por SUNAT"),
        "Un comprobante rechazado no tiene validez y no se anula: corrija el dato (vea el código de SUNAT en "
        "Buscar) y emita uno nuevo, con otro número.",
        [_document_row(s) for s in found],
    )


def tickets_in_process(records: Sequence[SummaryRecord] | None, today: dt.date) -> Alert:
    """Summaries and voided communications whose ticket SUNAT has not answered."""
    if records is None:
        return Alert(
            "tickets",
            "info",
            "Esta empresa no lista sus resúmenes ni comunicaciones de baja: no se revisaron sus tickets",
            "Consulte los tickets enviados desde la página Tickets.",
        )
    found = [r for r in records if r.processing]
    if not found:
        return Alert("tickets", "ok", "No hay tickets en proceso.", "")
    rows = [
        {
            "Identificador": r.identifier,
            "Ticket": r.ticket,
            "Generado": r.date_of_issue,
            "Documentos del": r.date_of_reference,
            "Documentos": r.documents,
        }
        for r in sorted(found, key=lambda r: (r.date_of_issue or today, r.identifier))
    ]
    return Alert(
        "tickets",
        "warning",
        _plural(len(found), "ticket en proceso", "tickets en proceso"),
        "Consúltelos en la página Tickets: sus documentos no cambian de estado hasta que SUNAT responda.",
        rows,
    )


def _voiding(record: SummaryRecord) -> bool:
    return record.summary_type == "RA" or record.process_type == "3"


def voided_late(records: Sequence[SummaryRecord] | None, sales: Iterable[Sale], today: dt.date) -> Alert:
    """Voidings asked more than :data:`~sunat.deadlines.VOIDING_DAYS` days after their documents' issue,
    and documents still being voided (13) past that deadline."""
    rows: list[dict[str, Any]] = []
    for record in records or ():
        if not _voiding(record) or record.date_of_issue is None or record.date_of_reference is None:
            continue
        if record.date_of_issue > voiding_deadline(record.date_of_reference):
            state = {"05": "Aceptada", "09": "Rechazada", "03": "En proceso"}.get(record.state_type_id, "")
            rows.append(
                {
                    "Referencia": record.identifier,
                    "Documentos del": record.date_of_reference,
                    "Pedida el": record.date_of_issue,
                    "Días después": (record.date_of_issue - record.date_of_reference).days,
                    "Situación": state,
                }
            )
    for sale in sales:
        if sale.state == "13" and today > voiding_deadline(sale.date):
            rows.append(
                {
                    "Referencia": sale.number,
                    "Documentos del": sale.date,
                    "Pedida el": None,
                    "Días después": (today - sale.date).days,
                    "Situación": "Por anular, fuera de plazo",
                }
            )
    if not rows:
        return Alert("voided_late", "ok", "No hay anulaciones fuera de plazo.", "")
    return Alert(
        "voided_late",
        "warning",
        _plural(len(rows), "anulación fuera de plazo", "anulaciones fuera de plazo"),
        f"SUNAT solo acepta anular hasta {VOIDING_DAYS} días después de la emisión (2957): pasado el plazo, "
        "emita una nota de crédito (tipo 01, anulación de la operación).",
        rows,
    )


def needs_a_person(items: Sequence[AttentionItem]) -> Alert:
    """Documents and summaries the service stopped sending or asking about by itself (SUNAT holds them
    but their answer cannot be had): a person settles each, as its reason says."""
    if not items:
        return Alert(
            "attention", "ok", "Nada espera una revisión: el servicio resuelve solo lo pendiente.", ""
        )
    rows = [
        {
            "Referencia": item.reference,
            "Fecha": item.date,
            "Código SUNAT": item.code,
            "Qué hacer": item.reason,
        }
        for item in items
    ]
    return Alert(
        "attention",
        "error",
        _plural(len(items), "comprobante o resumen requiere", "comprobantes o resúmenes requieren")
        + " una persona",
        "El servicio dejó de reenviarlos o de consultarlos: SUNAT ya los tiene pero no dio su respuesta. "
        "Vea en cada uno qué hacer.",
        rows,
    )


def over_credited(sales: Iterable[Sale]) -> Alert:
    """Facturas and boletas whose standing credit notes take more than their total plus their debit
    notes (in their currency): the service refuses such a note now, a real tenant may hold some."""
    originals: dict[str, Sale] = {}
    notes: dict[str, list[Sale]] = defaultdict(list)
    for sale in sales:
        if sale.document_type in ("01", "03"):
            originals[sale.number] = sale
        elif sale.document_type in ("07", "08") and sale.affected_number and sale.counted:
            notes[sale.affected_number].append(sale)
    rows = []
    for number, found in notes.items():
        original = originals.get(number)
        if original is None:
            continue
        same = [n for n in found if n.currency == original.currency]
        credited = sum((n.amounts.total for n in same if n.document_type == "07"), Decimal(0))
        debited = sum((n.amounts.total for n in same if n.document_type == "08"), Decimal(0))
        remaining = original.amounts.total + debited - credited
        if remaining < 0:
            rows.append(
                {
                    **_document_row(original),
                    "Notas de crédito": credited,
                    "Notas de débito": debited,
                    "Saldo": remaining,
                    "Notas": ", ".join(sorted(n.number for n in same if n.document_type == "07")),
                }
            )
    if not rows:
        return Alert("over_credited", "ok", "Ninguna nota de crédito supera el saldo de su documento.", "")
    rows.sort(key=lambda r: (r["Fecha"], r["Número"]))
    return Alert(
        "over_credited",
        "error",
        _plural(
            len(rows),
            "documento con notas de crédito por más de su total",
            "documentos con notas de crédito por más de su total",
        ),
        "Sus notas de crédito suman más que el total del documento y sus notas de débito: revise cuál sobra "
        "y emita una nota de débito que la corrija; las ventas del periodo quedan rebajadas de más.",
        rows,
    )


def certificate(status: CertificateStatus) -> Alert:
    """The signing certificate: SUNAT's last certificate error (2325-2328), an expired or soon expiring
    certificate, or a generated one while sending to SUNAT's production or an OSE."""
    action = (
        "Importe el certificado vigente de la empresa (facturador tenant certificate) y regístrelo en SUNAT "
        "Operaciones en Línea (SOL)."
    )
    if status.last_error is not None:
        error = status.last_error
        return Alert(
            "certificate",
            "error",
            f"SUNAT rechazó {error.get('number', '')} por el certificado ({error.get('code', '')}): "
            f"{error.get('description', '')}",
            action,
        )
    when = f"{status.not_after:%d/%m/%Y}" if status.not_after else ""
    if status.days_left is not None and status.days_left < 0:
        return Alert("certificate", "error", f"El certificado digital venció el {when}", action)
    if status.self_signed and status.sending in ("production", "ose"):
        return Alert(
            "certificate",
            "error",
            "Se firma con un certificado de prueba mientras se envía a producción",
            action,
        )
    if status.expires_soon and status.days_left is not None:
        return Alert(
            "certificate",
            "warning",
            f"El certificado digital vence en {_plural(status.days_left, 'día', 'días')} ({when})",
            "Renuévelo con su entidad certificadora e impórtelo antes de esa fecha.",
        )
    return Alert("certificate", "ok", f"El certificado digital está vigente hasta el {when}.", "")


def alerts(
    sales: Sequence[Sale],
    today: dt.date,
    records: Sequence[SummaryRecord] | None = None,
    certificate_status: CertificateStatus | None = None,
    attention: Sequence[AttentionItem] | None = None,
    noted: Sequence[Sale] | None = None,
) -> list[Alert]:
    """Every alert, the most serious first (those with nothing to report last). ``certificate_status``
    and ``attention`` are None for a tenant that does not tell them (a real tenant): no certificate or
    "needs a person" alert then. ``noted``: the notes of the range and the documents they modify
    (:func:`over_credited`; by default ``sales``)."""
    found = [
        boletas_not_declared(sales, today),
        facturas_without_cdr(sales, today),
        rejected(sales),
        tickets_in_process(records, today),
        voided_late(records, sales, today),
        over_credited(sales if noted is None else noted),
    ]
    if certificate_status is not None:
        found.append(certificate(certificate_status))
    if attention is not None:
        found.append(needs_a_person(attention))
    order = {"error": 0, "warning": 1, "info": 2, "ok": 3}
    return sorted(found, key=lambda a: order[a.severity])
