"""What a factura or boleta still carries after its notes: a credit note never takes it below zero.

The remaining amount of a document is its total, plus the totals of its debit notes, minus the totals
of its credit notes, counting the notes that stand (not rejected, not voided) and are in its currency.
A new credit note whose total is above that amount is refused with 422 naming the remaining amount.

Two notes against one document at once must not both pass: the check runs inside the issuing
transaction, after the affected document's row is locked (``FOR NO KEY UPDATE`` on PostgreSQL; SQLite
has one writer at a time), so the second note reads the first one's total once it committed.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import Connection, func, select

from facturador.domain import states
from facturador.errors import FieldError, validation_error
from facturador.store.models import DOCUMENTS

CREDIT_NOTE = "07"
DEBIT_NOTE = "08"
#: Notes in these states no longer change what their document carries.
NOT_STANDING = (states.REJECTED, states.VOIDED)
SYMBOLS = {"PEN": "S/", "USD": "US$"}


@dataclass(frozen=True)
class Balance:
    """A document's total, what its standing notes added and took, and what remains."""

    number: str
    currency: str
    total: Decimal
    debited: Decimal
    credited: Decimal

    @property
    def remaining(self) -> Decimal:
        return self.total + self.debited - self.credited


def money(currency: str, amount: Decimal) -> str:
    """``US$ 960.00``: the amount as the accountant reads it."""
    return f"{SYMBOLS.get(currency, currency)} {amount:,.2f}"


def balance(connection: Connection, document_id: int, *, lock: bool = False) -> Balance:
    """The :class:`Balance` of the document ``document_id``; ``lock`` holds its row until the commit."""
    head = select(
        DOCUMENTS.c.series, DOCUMENTS.c.number, DOCUMENTS.c.currency_type_id, DOCUMENTS.c.total
    ).where(DOCUMENTS.c.id == document_id)
    if lock:
        head = head.with_for_update(key_share=True)
    series, number, currency, total = connection.execute(head).one()
    sums = dict(
        connection.execute(
            select(DOCUMENTS.c.document_type_id, func.coalesce(func.sum(DOCUMENTS.c.total), 0))
            .where(
                DOCUMENTS.c.affected_document_id == document_id,
                DOCUMENTS.c.document_type_id.in_((CREDIT_NOTE, DEBIT_NOTE)),
                DOCUMENTS.c.currency_type_id == currency,
                DOCUMENTS.c.state_type_id.not_in(NOT_STANDING),
            )
            .group_by(DOCUMENTS.c.document_type_id)
        ).all()
    )
    return Balance(
        number=f"{series}-{number}",
        currency=currency,
        total=Decimal(total),
        debited=Decimal(sums.get(DEBIT_NOTE, 0)),
        credited=Decimal(sums.get(CREDIT_NOTE, 0)),
    )


def check_credit_note(connection: Connection, affected_id: int, currency: str, note_total: Decimal) -> None:
    """Refuse (422 ``CREDIT_NOTE_EXCEEDS_AFFECTED``) a credit note of ``note_total`` in ``currency`` that
    takes the document ``affected_id`` below zero; locks that document's row for the transaction."""
    found = balance(connection, affected_id, lock=True)
    if currency != found.currency or note_total <= found.remaining:
        return
    message = (
        f"La nota de crédito por {money(currency, note_total)} supera el saldo de {found.number}: "
        f"{money(currency, found.remaining)} (total {money(currency, found.total)}"
        + (f", notas de débito {money(currency, found.debited)}" if found.debited else "")
        + f", notas de crédito {money(currency, found.credited)})."
    )
    errors = [FieldError("documento_afectado", message)]
    raise validation_error(message, "CREDIT_NOTE_EXCEEDS_AFFECTED", errors)
