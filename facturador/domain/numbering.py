"""Correlatives per (tenant, document type, series): atomic, gap-free, on SQLite and PostgreSQL.

The counter lives on the series row. Taking a number is an ``UPDATE ... RETURNING`` issued as the first
write of the issuing transaction: PostgreSQL row-locks the series until commit, SQLite takes its write
lock, so concurrent requests queue on the series and a rollback gives the number back (no gaps).
A series ends at 99999999 (SUNAT's correlative has 8 digits): past it, a new series is needed.

Quotations (``COT-n``, a prefix chosen by the client, per establishment) are numbered the same way, on a
counter row of their own that the first quotation of a prefix creates (an upsert: a concurrent first
quotation waits on the new row and then advances it).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from facturador.store.direct import direct
from facturador.store.models import QUOTATION_COUNTERS, SERIES, Document

#: The last correlative of a series (``n..8``).
LAST_NUMBER = 99_999_999

NEXT_NUMBER = (
    update(SERIES)
    .where(SERIES.c.id == bindparam("series_id"), SERIES.c.last_number < LAST_NUMBER)
    .values(last_number=SERIES.c.last_number + 1)
    .returning(SERIES.c.last_number)
)


#: Keep the counter at the highest number used (SQLite's scalar max() is PostgreSQL's greatest()).
CLAIM_NUMBER = {
    dialect: update(SERIES)
    .where(SERIES.c.id == bindparam("series_id"))
    .values(last_number=highest(SERIES.c.last_number, bindparam("claimed")))
    for dialect, highest in (("sqlite", func.max), ("postgresql", func.greatest))
}


def take_next_number(connection: Connection, series_id: int) -> int | None:
    """Advance the series counter and return the new correlative (for ``"#"``); ``None`` when the series
    already used its last number."""
    try:
        return int(direct(NEXT_NUMBER, connection.dialect).scalar(connection, {"series_id": series_id}))
    except LookupError:
        return None


def claim_number(connection: Connection, series_id: int, number: int) -> None:
    """Reserve a number given by the client, keeping the counter at the highest number used."""
    statement = CLAIM_NUMBER[connection.dialect.name]
    direct(statement, connection.dialect).run(connection, {"series_id": series_id, "claimed": number})


def _next_quotation_number(insert: Any) -> Any:
    statement = insert(QUOTATION_COUNTERS).values(
        tenant_id=bindparam("tenant_id"),
        establishment_id=bindparam("establishment_id"),
        prefix=bindparam("prefix"),
        last_number=1,
    )
    return statement.on_conflict_do_update(
        index_elements=["tenant_id", "establishment_id", "prefix"],
        set_={"last_number": QUOTATION_COUNTERS.c.last_number + 1},
    ).returning(QUOTATION_COUNTERS.c.last_number)


NEXT_QUOTATION_NUMBER = {
    "postgresql": _next_quotation_number(postgresql_insert),
    "sqlite": _next_quotation_number(sqlite_insert),
}


def take_next_quotation_number(
    connection: Connection, tenant_id: int, establishment_id: int, prefix: str
) -> int:
    """Advance the counter of a quotation prefix in an establishment (creating it at 1) and return the new
    correlative; the row stays locked until the issuing transaction ends."""
    statement = NEXT_QUOTATION_NUMBER[connection.dialect.name]
    values = {"tenant_id": tenant_id, "establishment_id": establishment_id, "prefix": prefix}
    return int(connection.execute(statement, values).scalar_one())


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
