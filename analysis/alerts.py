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
from connector.company import CertificateStatus
from connector.models import SummaryRecord
from sunat.calendar import SENDING_DAYS, sending_deadline

__all__ = ["ALERT_STATES", "Alert", "alerts", "over_credited"]

#: The states the document alerts are about (registered, sent, rejected, being voided): a document in
#: another state raises none, so a page reads only these out of a year.
ALERT_STATES = frozenset({"01", "03", "09", "13"})

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


def boletas_not_declared(sales: Iterable[Sale], today: dt.date) -> Alert:
    """Boletas and their notes of past days still registered (01): by day, with the deadline."""
    days: dict[dt.date, list[Sale]] = defaultdict(list)
    for sale in sales:
        if sale.series[:1].upper() == "B" and sale.state == "01" and sale.date < today:
            days[sale.date].append(sale)
    rows = []
    late = 0
    for day in sorted(days):
        deadline = sending_deadline(day)
        overdue = today > deadline
        late += overdue
        rows.append(
            {
                "Fecha de emisión": day,
                "Documentos": len(days[day]),
                "Plazo SUNAT": deadline,
                "Situación": f"Vencido hace {(today - deadline).days} días"
                if overdue
                else f"Quedan {(deadline - today).days} días",
            }
        )
    count = sum(len(v) for v in days.values())
    if not rows:
        return Alert("boletas", "ok", "Todas las boletas de días pasados están declaradas.", "")
    title = f"{_plural(count, 'boleta o nota sin declarar', 'boletas o notas sin declarar')} de " + _plural(
        len(rows), "día pasado", "días pasados"
    )
    if late:
        title += f" ({_plural(late, 'día', 'días')} fuera del plazo de {SENDING_DAYS} días)"
    action = (
        f"Declárelas en un resumen diario (página Resúmenes). SUNAT las recibe hasta {SENDING_DAYS} días "
        "después de su emisión; después las acepta con la observación 4443."
    )
    return Alert("boletas", "error" if late else "warning", title, action, rows)


def facturas_without_cdr(sales: Iterable[Sale]) -> Alert:
    """Facturas and their notes that have no CDR: not sent, or the authority never answered."""
    found = [s for s in sales if s.series[:1].upper() == "F" and not s.has_cdr and s.state in ("01", "03")]
    if not found:
        return Alert("cdr", "ok", "Todas las facturas y sus notas tienen su CDR.", "")
    rows = [_document_row(s) for s in sorted(found, key=lambda s: (s.date, s.number))]
    return Alert(
        "cdr",
        "warning",
        _plural(len(found), "factura o nota sin CDR", "facturas o notas sin CDR"),
        "Envíelas a SUNAT (Documentos → Enviar a SUNAT): sin CDR no tienen validez ante SUNAT.",
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
    """Voidings asked more than :data:`~sunat.calendar.SENDING_DAYS` days after their documents' issue,
    and documents still being voided (13) past that deadline."""
    rows: list[dict[str, Any]] = []
    for record in records or ():
        if not _voiding(record) or record.date_of_issue is None or record.date_of_reference is None:
            continue
        if record.date_of_issue > sending_deadline(record.date_of_reference):
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
        if sale.state == "13" and today > sending_deadline(sale.date):
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
        f"SUNAT solo acepta anular hasta {SENDING_DAYS} días después de la emisión (2957): pasado el plazo, "
        "emita una nota de crédito (tipo 01, anulación de la operación).",
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
    noted: Sequence[Sale] | None = None,
) -> list[Alert]:
    """Every alert, the most serious first (those with nothing to report last). ``certificate_status``
    is None for a tenant that does not tell it (a real tenant): no certificate alert then. ``noted``:
    the notes of the range and the documents they modify (:func:`over_credited`; by default ``sales``)."""
    found = [
        boletas_not_declared(sales, today),
        facturas_without_cdr(sales),
        rejected(sales),
        tickets_in_process(records, today),
        voided_late(records, sales, today),
        over_credited(sales if noted is None else noted),
    ]
    if certificate_status is not None:
        found.append(certificate(certificate_status))
    order = {"error": 0, "warning": 1, "info": 2, "ok": 3}
    return sorted(found, key=lambda a: order[a.severity])
