"""The simulated authority's tickets kept in the service database (so a restart loses none)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import Table, select
from sqlalchemy.engine import Connection

from facturador.authority.tickets import TicketRecord
from facturador.store.db import Database
from facturador.store.models import AUTHORITY_TICKETS

TICKETS = AUTHORITY_TICKETS
_NAMES = (
    "ticket",
    "issuer_ruc",
    "filename",
    "received_at",
    "ready_at",
    "zip_content",
    "status_code",
    "cdr_zip",
)


def _record(row: Any) -> TicketRecord:
    """A ticket record from a row of ``authority_tickets``."""
    return TicketRecord(
        ticket=row.ticket,
        issuer_ruc=row.issuer_ruc,
        filename=row.filename,
        received_at=row.received_at,
        ready_at=row.ready_at,
        zip_bytes=row.zip_content,
        status_code=row.status_code,
        cdr_zip=row.cdr_zip,
    )


class SqlTicketStore:
    """A :class:`~facturador.authority.tickets.TicketStore` over the ``authority_tickets`` table.

    With ``deferred=True`` new tickets and results are kept until :meth:`flush` writes them in the
    caller's transaction (as :class:`~facturador.store.registry.SqlRegistry` does): the service
    stores a summary with its ticket, or a ticket's answer with the states it moves, in one commit.
    Deferred changes are visible to this store's own lookups. ``table`` is ``authority_tickets`` (summaries)
    or a table of the same columns (``gre_tickets``, the GRE API's).
    """

    def __init__(self, database: Database, *, deferred: bool = False, table: Table = TICKETS):
        self.database = database
        self.deferred = deferred
        self.table = table
        self._columns = tuple(table.c[name] for name in _NAMES)
        self._added: dict[str, TicketRecord] = {}
        self._completed: dict[str, tuple[str, bytes]] = {}

    def add(self, record: TicketRecord) -> None:
        """Store a new ticket."""
        if self.deferred:
            self._added[record.ticket] = record
            return
        with self.database.writing() as connection:
            self._insert(connection, record)

    def get(self, ticket: str) -> TicketRecord | None:
        """The record of ``ticket`` (with deferred changes applied), or None."""
        record = self._added.get(ticket)
        if record is None:
            with self.database.engine.connect() as connection:
                row = connection.execute(select(*self._columns).where(self.table.c.ticket == ticket)).first()
            record = _record(row) if row is not None else None
        if record is not None and ticket in self._completed:
            status_code, cdr_zip = self._completed[ticket]
            record = replace(record, status_code=status_code, cdr_zip=cdr_zip)
        return record

    def find(self, issuer_ruc: str, filename: str) -> TicketRecord | None:
        """The ticket of ``filename`` received from ``issuer_ruc``, or None."""
        for record in self._added.values():
            if record.issuer_ruc == issuer_ruc and record.filename == filename:
                return record
        with self.database.engine.connect() as connection:
            ticket = connection.execute(
                select(self.table.c.ticket)
                .where(self.table.c.issuer_ruc == issuer_ruc, self.table.c.filename == filename)
                .order_by(self.table.c.received_at.desc())
                .limit(1)
            ).scalar()
        return self.get(ticket) if ticket is not None else None

    def complete(self, ticket: str, status_code: str, cdr_zip: bytes) -> None:
        """Record the result of ``ticket``."""
        if self.deferred:
            self._completed[ticket] = (status_code, cdr_zip)
            return
        with self.database.writing() as connection:
            self._update(connection, ticket, status_code, cdr_zip)

    def flush(self, connection: Connection) -> None:
        """Write the changes collected in deferred mode inside the caller's transaction."""
        for record in self._added.values():
            self._insert(connection, record)
        for ticket, (status_code, cdr_zip) in self._completed.items():
            self._update(connection, ticket, status_code, cdr_zip)
        self._added.clear()
        self._completed.clear()

    def _insert(self, connection: Connection, record: TicketRecord) -> None:
        connection.execute(
            self.table.insert(),
            {
                "ticket": record.ticket,
                "issuer_ruc": record.issuer_ruc,
                "filename": record.filename,
                "received_at": record.received_at,
                "ready_at": record.ready_at,
                "zip_content": record.zip_bytes,
                "status_code": record.status_code,
                "cdr_zip": record.cdr_zip,
            },
        )

    def _update(self, connection: Connection, ticket: str, status_code: str, cdr_zip: bytes) -> None:
        connection.execute(
            self.table.update()
            .where(self.table.c.ticket == ticket)
            .values(status_code=status_code, cdr_zip=cdr_zip)
        )
