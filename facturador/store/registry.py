"""The simulated authority's registry kept in the service database (so it survives restarts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import and_, bindparam, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from facturador.authority.registry import RegistryKey, RegistryRecord
from facturador.store.db import Database
from facturador.store.direct import direct
from facturador.store.models import AUTHORITY_RECORDS

RECORDS = AUTHORITY_RECORDS
_KEY = ("issuer_ruc", "document_type_id", "series", "number")
#: The columns of a record, its key first.
RECORD_COLUMNS = (*_KEY, "status", "digest", "code", "cdr_zip")
LOOKUP = select(RECORDS.c.status, RECORDS.c.digest, RECORDS.c.code, RECORDS.c.cdr_zip).where(
    and_(*(RECORDS.c[name] == bindparam(name) for name in _KEY))
)


def records_upsert(statement: Any) -> Any:
    """``statement`` (a dialect's ``INSERT INTO authority_records``) writing over the record of its key."""
    changes = {k: statement.excluded[k] for k in ("status", "digest", "code", "cdr_zip")}
    return statement.on_conflict_do_update(index_elements=list(_KEY), set_=changes)


UPSERT = {
    "postgresql": records_upsert(postgresql_insert(RECORDS)),
    "sqlite": records_upsert(sqlite_insert(RECORDS)),
}


def write_records(connection: Connection, records: Sequence[Mapping[str, object]]) -> None:
    """Upsert ``records`` (values of :data:`RECORD_COLUMNS`) one after the other, in ``connection``'s
    transaction."""
    statement = direct(UPSERT[connection.dialect.name], connection.dialect, RECORD_COLUMNS)
    for values in records:
        statement.run(connection, values)


class SqlRegistry:
    """A :class:`~facturador.authority.registry.Registry` over the ``authority_records`` table.

    With ``deferred=True`` records are kept until :meth:`flush` writes them in the caller's transaction:
    the service stores the authority's answer and the authority's memory of it in one commit.
    """

    def __init__(self, database: Database, *, deferred: bool = False):
        self.database = database
        self.deferred = deferred
        self._pending: list[dict[str, object]] = []

    @staticmethod
    def _key(key: RegistryKey) -> dict[str, str]:
        return dict(zip(_KEY, (key.ruc, key.doc_type, key.series, str(key.number)), strict=True))

    def lookup(self, key: RegistryKey) -> RegistryRecord | None:
        for values in reversed(self._pending):  # deferred records are visible to later lookups
            if self._key(key).items() <= values.items():
                return RegistryRecord(
                    status=values["status"],  # type: ignore[arg-type]
                    digest=str(values["digest"]),
                    code=str(values["code"]),
                    cdr_zip=values["cdr_zip"],  # type: ignore[arg-type]
                )
        with self.database.reading() as connection:
            cursor = direct(LOOKUP, connection.dialect).execute(connection, self._key(key))
            try:
                row = cursor.fetchone()
            finally:
                cursor.close()
        if row is None:
            return None
        status, digest, code, cdr_zip = row
        return RegistryRecord(
            status=status, digest=digest, code=code, cdr_zip=bytes(cdr_zip) if cdr_zip is not None else None
        )

    def record(self, key: RegistryKey, record: RegistryRecord) -> None:
        values: dict[str, object] = {
            **self._key(key),
            "status": record.status,
            "digest": record.digest,
            "code": record.code,
            "cdr_zip": record.cdr_zip,
        }
        if self.deferred:
            self._pending.append(values)
            return
        with self.database.writing() as connection:
            connection.execute(UPSERT[connection.dialect.name], values)

    def flush(self, connection: Connection) -> None:
        """Write the records collected in deferred mode inside the caller's transaction."""
        write_records(connection, self.take())

    def take(self) -> list[dict[str, object]]:
        """The records collected in deferred mode, in order, for the caller to write (none kept here)."""
        pending, self._pending = self._pending, []
        return pending
