"""The authority's answer to a sent document, stored at once: the simulated authority's records of the
send, the document's state and response, its CDR.

On PostgreSQL it is one statement, run in autocommit (:meth:`~facturador.store.db.Database.writing_one`):
the records' upsert, the answer's compare-and-set on the document and the CDR written only when that
took, as data-modifying ``WITH`` parts of one ``SELECT``, which is atomic as a transaction is. The same
writes as BEGIN, three statements and COMMIT took five round trips, each of them CPU in psycopg and in a
PostgreSQL backend sharing the machine's cores with the service. SQLite, in process, runs them as three
statements in :meth:`~facturador.store.db.Database.writing_one`'s transaction.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import LargeBinary, bindparam, func, literal_column, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.engine import Connection
from sqlalchemy.sql import Select

from facturador.store.direct import direct
from facturador.store.models import (
    ARTIFACTS,
    DOCUMENTS,
    UPDATE_ANSWER,
    answer_parameters,
    replace_artifact,
    store_answer,
)
from facturador.store.registry import RECORD_COLUMNS, RECORDS, records_upsert, write_records

__all__ = ["store_sent_answer"]


def store_sent_answer(
    connection: Connection,
    records: Sequence[Mapping[str, object]],
    document_id: int,
    state: str,
    response: dict[str, Any],
    regularize: bool,
    retry_at: dt.datetime | None,
    *,
    read_state: str,
    cdr_zip: bytes | None,
) -> bool:
    """Write the authority's ``records`` of the send (:meth:`SqlRegistry.take`) and, when the document is
    still in ``read_state``, its answer (:func:`~facturador.store.models.store_answer`) and its CDR;
    whether the answer was stored (False: another send stored its own first, nor is this CDR kept)."""
    if connection.dialect.name != "postgresql":
        write_records(connection, records)
        stored = store_answer(
            connection, document_id, state, response, regularize, retry_at, read_state=read_state
        )
        if stored and cdr_zip is not None:
            replace_artifact(connection, document_id, "cdr", cdr_zip)
        return stored
    latest = _latest_by_key(records)
    values = answer_parameters(document_id, state, response, regularize, retry_at, read_state=read_state)
    for index, record in enumerate(latest):
        values.update({f"record_{index}_{name}": record[name] for name in RECORD_COLUMNS})
    if cdr_zip is not None:
        values["cdr"] = cdr_zip
    statement = direct(_answer_statement(len(latest), cdr_zip is not None), connection.dialect)
    return int(statement.scalar(connection, values)) == 1


def _latest_by_key(records: Sequence[Mapping[str, object]]) -> list[Mapping[str, object]]:
    """The last record of each registry key, in order: what upserting them one after the other leaves
    (one ``INSERT ... ON CONFLICT DO UPDATE`` may not touch a row twice)."""
    latest: dict[tuple[object, ...], Mapping[str, object]] = {}
    for record in records:
        key = tuple(record[name] for name in RECORD_COLUMNS[:4])
        latest.pop(key, None)
        latest[key] = record
    return list(latest.values())


@functools.cache
def _answer_statement(records: int, with_cdr: bool) -> Select[Any]:
    """PostgreSQL's one statement for ``records`` registry records, with or without a CDR; it selects
    how many documents took the answer (0 or 1). Built once per shape (``direct`` keys on it)."""
    answered = UPDATE_ANSWER.returning(DOCUMENTS.c.id).cte("answered")
    statement = select(func.count()).select_from(answered)
    if records:
        rows = [
            {name: bindparam(f"record_{index}_{name}", type_=RECORDS.c[name].type) for name in RECORD_COLUMNS}
            for index in range(records)
        ]
        statement = statement.add_cte(records_upsert(postgresql_insert(RECORDS).values(rows)).cte("records"))
    if with_cdr:
        cdr = postgresql_insert(ARTIFACTS).from_select(
            ["document_id", "kind", "content"],
            select(answered.c.id, literal_column("'cdr'"), bindparam("cdr", type_=LargeBinary())),
        )
        cdr = cdr.on_conflict_do_update(
            index_elements=["document_id", "kind"], set_={"content": cdr.excluded.content}
        )
        statement = statement.add_cte(cdr.cte("cdr"))
    return statement
