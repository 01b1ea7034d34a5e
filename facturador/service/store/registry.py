"""The simulated authority's registry kept in the service database (so it survives restarts)."""

from __future__ import annotations

from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session, sessionmaker

from facturador.service.authority.registry import RegistryKey, RegistryRecord
from facturador.service.store.models import AuthorityRecord


class SqlRegistry:
    """A :class:`~facturador.service.authority.registry.Registry` over the ``authority_records`` table."""

    def __init__(self, sessions: sessionmaker[Session]):
        self.sessions = sessions

    @staticmethod
    def _pk(key: RegistryKey) -> tuple[str, str, str, str]:
        return (key.ruc, key.doc_type, key.series, str(key.number))

    def lookup(self, key: RegistryKey) -> RegistryRecord | None:
        with self.sessions() as session:
            row = session.get(AuthorityRecord, self._pk(key))
            if row is None:
                return None
            return RegistryRecord(status=row.status, digest=row.digest, code=row.code, cdr_zip=row.cdr_zip)  # type: ignore[arg-type]

    def record(self, key: RegistryKey, record: RegistryRecord) -> None:
        ruc, doc_type, series, number = self._pk(key)
        values = {
            "issuer_ruc": ruc,
            "document_type_id": doc_type,
            "series": series,
            "number": number,
            "status": record.status,
            "digest": record.digest,
            "code": record.code,
            "cdr_zip": record.cdr_zip,
        }
        with self.sessions() as session, session.begin():
            insert = postgresql_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
            statement = insert(AuthorityRecord).values(values)
            changes = {k: statement.excluded[k] for k in ("status", "digest", "code", "cdr_zip")}
            session.execute(
                statement.on_conflict_do_update(
                    index_elements=["issuer_ruc", "document_type_id", "series", "number"], set_=changes
                )
            )
