"""Correlatives per (tenant, document type, series): atomic, gap-free, on SQLite and PostgreSQL.

The counter lives on the series row. Taking a number is an ``UPDATE ... RETURNING`` issued as the first
write of the issuing transaction: PostgreSQL row-locks the series until commit, SQLite takes its write
lock, so concurrent requests queue on the series and a rollback gives the number back (no gaps).
"""

from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from facturador.service.store.models import Document, Series


def take_next_number(session: Session, series_id: int) -> int:
    """Advance the series counter and return the new correlative (for ``"#"``)."""
    table = Series.__table__
    number = (
        session.connection()
        .execute(
            update(table)
            .where(table.c.id == series_id)
            .values(last_number=table.c.last_number + 1)
            .returning(table.c.last_number)
        )
        .scalar_one()
    )
    return int(number)


def claim_number(session: Session, series_id: int, number: int) -> None:
    """Reserve a number given by the client, keeping the counter at the highest number used."""
    session.execute(
        update(Series)
        .where(Series.id == series_id)
        .values(
            last_number=func.max(Series.last_number, number)
            if _is_sqlite(session)
            else func.greatest(Series.last_number, number)
        )
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


def _is_sqlite(session: Session) -> bool:
    return session.get_bind().dialect.name == "sqlite"
