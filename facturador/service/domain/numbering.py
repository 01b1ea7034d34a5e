"""Correlatives per (tenant, document type, series): atomic, gap-free, on SQLite and PostgreSQL.

The counter lives on the series row. Taking a number is an ``UPDATE ... RETURNING`` issued as the first
write of the issuing transaction: PostgreSQL row-locks the series until commit, SQLite takes its write
lock, so concurrent requests queue on the series and a rollback gives the number back (no gaps).
"""

from __future__ import annotations

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from facturador.service.store.models import SERIES, Document

NEXT_NUMBER = (
    update(SERIES)
    .where(SERIES.c.id == bindparam("series_id"))
    .values(last_number=SERIES.c.last_number + 1)
    .returning(SERIES.c.last_number)
)


def take_next_number(connection: Connection, series_id: int) -> int:
    """Advance the series counter and return the new correlative (for ``"#"``)."""
    return int(connection.execute(NEXT_NUMBER, {"series_id": series_id}).scalar_one())


def claim_number(connection: Connection, series_id: int, number: int) -> None:
    """Reserve a number given by the client, keeping the counter at the highest number used."""
    highest = func.max if connection.dialect.name == "sqlite" else func.greatest
    connection.execute(
        update(SERIES)
        .where(SERIES.c.id == series_id)
        .values(last_number=highest(SERIES.c.last_number, number))
    )


def number_in_use(session: Session, tenant_id: int, doc_type: str, series: str, number: int) -> bool:
    return (
        session.scalar(
            select(Document.id).where(
                Document.tenant_id == tenant_id,
                Document.document_type_id == doc_type,
                Document.series == series,
                Document.number == number,
            )
        )
        is not None
    )
