"""What an operator watches, read from the database: whether the schema is at the migrations' head (a
node's readiness) and what the service owes (documents pending and when SUNAT's deadline falls, tickets
still in process, jobs in hand), for ``/ready``, ``/metrics`` and ``facturador jobs``.

Everything here is read at the moment it is asked: the database is the one truth every node and every
worker process shares, so any node answers the same figures."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field

from sqlalchemy import Engine, func, select

from facturador.store.db import MIGRATIONS_DIR, Database
from facturador.store.jobs import JobQueue
from facturador.store.models import DOCUMENTS, OTHER_DOCUMENTS, SUMMARIES, TENANTS
from sunat.calendar import LIMA
from sunat.deadlines import factura_deadline

#: The state of a document registered and not yet answered by SUNAT.
REGISTERED = "01"


@functools.cache
def head_revision() -> str:
    """The newest revision of the service's migrations."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    known_revisions()  # read with it, at start
    return head


@functools.cache
def known_revisions() -> frozenset[str]:
    """Every revision of this release's migrations: a schema at another one was migrated by a newer
    release (its migrations are backward compatible: this release's nodes keep serving on it)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return frozenset(script.revision for script in ScriptDirectory.from_config(config).walk_revisions())


def schema_revision(engine: Engine) -> str | None:
    """The revision the database's schema is at (None: never migrated). Raises what the driver raises
    when the database cannot be reached."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


@dataclass(frozen=True)
class OwedDocument:
    """A document registered and not yet accepted or rejected: when it was issued (its SUNAT deadline
    follows from that), since when it is owed and when the next sending is due (naive UTC)."""

    tenant: str
    number: str
    document_type: str
    date_of_issue: dt.date
    created_at: dt.datetime
    next_send_at: dt.datetime
    attempts: int
    last_code: str | None

    @property
    def deadline(self) -> dt.date:
        """The last day SUNAT takes it (Lima's calendar)."""
        return factura_deadline(self.date_of_issue)


@dataclass(frozen=True)
class OwedTicket:
    """A summary or voided communication whose ticket SUNAT has not answered yet (times naive UTC)."""

    tenant: str
    identifier: str
    ticket: str
    created_at: dt.datetime
    next_poll_at: dt.datetime
    attempts: int
    error: str | None


@dataclass(frozen=True)
class Owed:
    """What the service owes SUNAT, and the background work in hand, at one moment."""

    documents: list[OwedDocument]
    tickets: list[OwedTicket]
    jobs: dict[str, dict[str, int]]
    by_state: dict[tuple[str, str], int] = field(default_factory=dict)
    answers: dict[str, int] = field(default_factory=dict)

    def past_deadline(self, today: dt.date) -> list[OwedDocument]:
        """The pending documents whose last day for SUNAT is before ``today`` (Lima)."""
        return [document for document in self.documents if document.deadline < today]


def naive_utc(moment: dt.datetime) -> dt.datetime:
    """``moment`` as naive UTC (PostgreSQL gives ``created_at`` aware, SQLite naive UTC)."""
    return moment.astimezone(dt.UTC).replace(tzinfo=None) if moment.tzinfo else moment


def lima_today(now: dt.datetime) -> dt.date:
    """The date in Lima at ``now`` (naive UTC)."""
    return now.replace(tzinfo=dt.UTC).astimezone(LIMA).date()


def owed(database: Database, now: dt.datetime, *, counts: bool = False) -> Owed:
    """What is owed at ``now`` (naive UTC): the pending documents of both families (oldest first), the
    tickets in process and the job queue's counts; with ``counts`` also the documents by type and state
    and SUNAT's answers by code (one grouped query each)."""
    engine = database.engine
    documents: list[OwedDocument] = []
    for table in (DOCUMENTS, OTHER_DOCUMENTS):
        query = (
            select(
                TENANTS.c.slug,
                table.c.series,
                table.c.number,
                table.c.document_type_id,
                table.c.date_of_issue,
                table.c.created_at,
                table.c.next_send_at,
                table.c.send_attempts,
                table.c.response["code"].as_string().label("code"),
            )
            .join(TENANTS, TENANTS.c.id == table.c.tenant_id)
            .where(table.c.next_send_at.is_not(None), table.c.state_type_id == REGISTERED)
        )
        with engine.connect() as connection:
            documents += [
                OwedDocument(
                    tenant=row.slug,
                    number=f"{row.series}-{row.number}",
                    document_type=row.document_type_id,
                    date_of_issue=row.date_of_issue,
                    created_at=naive_utc(row.created_at),
                    next_send_at=row.next_send_at,
                    attempts=row.send_attempts,
                    last_code=row.code,
                )
                for row in connection.execute(query)
            ]
    tickets_query = (
        select(
            TENANTS.c.slug,
            SUMMARIES.c.identifier,
            SUMMARIES.c.ticket,
            SUMMARIES.c.created_at,
            SUMMARIES.c.next_poll_at,
            SUMMARIES.c.poll_attempts,
            SUMMARIES.c.poll_error,
        )
        .join(TENANTS, TENANTS.c.id == SUMMARIES.c.tenant_id)
        .where(SUMMARIES.c.next_poll_at.is_not(None))
    )
    by_state: dict[tuple[str, str], int] = {}
    answers: dict[str, int] = {}
    with engine.connect() as connection:
        tickets = [
            OwedTicket(
                tenant=row.slug,
                identifier=row.identifier,
                ticket=row.ticket,
                created_at=naive_utc(row.created_at),
                next_poll_at=row.next_poll_at,
                attempts=row.poll_attempts,
                error=row.poll_error,
            )
            for row in connection.execute(tickets_query)
        ]
        if counts:
            for table in (DOCUMENTS, OTHER_DOCUMENTS):
                grouped = select(table.c.document_type_id, table.c.state_type_id, func.count()).group_by(
                    table.c.document_type_id, table.c.state_type_id
                )
                for kind, state, count in connection.execute(grouped):
                    by_state[(kind, state)] = by_state.get((kind, state), 0) + count
                code = table.c.response["code"].as_string()
                for answer, count in connection.execute(
                    select(code, func.count()).where(code.is_not(None)).group_by(code)
                ):
                    answers[str(answer)] = answers.get(str(answer), 0) + count
    jobs = JobQueue(database).status(now)
    documents.sort(key=lambda document: (document.created_at, document.number))
    tickets.sort(key=lambda ticket: (ticket.created_at, ticket.identifier))
    return Owed(documents, tickets, jobs, by_state, answers)
