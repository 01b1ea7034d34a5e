"""The SOAP endpoint's injected failures kept in the service database (every worker process sees them)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import delete, or_, select, update

from facturador.authority.soap.injection import Fault, check_fault
from facturador.store.db import Database
from facturador.store.models import SUNAT_FAULTS

FAULTS = SUNAT_FAULTS


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _fault(row: Any) -> Fault:
    return Fault(
        kind=row.kind,
        ruc=row.ruc,
        operation=row.operation,
        code=row.code,
        seconds=row.seconds,
        remaining=row.remaining,
        until=row.until,
        id=row.id,
    )


class SqlFaultStore:
    """A :class:`~facturador.authority.soap.injection.FaultStore` over the ``sunat_faults`` table."""

    def __init__(self, database: Database):
        self.database = database

    def add(self, fault: Fault) -> Fault:
        """Keep a new injection (checked first: ValueError names what is wrong); returns it with its id."""
        check_fault(fault)
        with self.database.writing() as connection:
            new_id = connection.execute(
                FAULTS.insert().returning(FAULTS.c.id),
                {
                    "kind": fault.kind,
                    "ruc": fault.ruc,
                    "operation": fault.operation,
                    "code": fault.code,
                    "seconds": fault.seconds,
                    "remaining": fault.remaining,
                    "until": fault.until,
                },
            ).scalar_one()
        return Fault(**{**fault.__dict__, "id": new_id})

    def active(self, ruc: str | None = None) -> list[Fault]:
        """The injections that still apply (of ``ruc``, and those of every RUC, when given), oldest first."""
        query = select(FAULTS).where(
            or_(FAULTS.c.remaining.is_(None), FAULTS.c.remaining > 0),
            or_(FAULTS.c.until.is_(None), FAULTS.c.until > _utc_now()),
        )
        if ruc is not None:
            query = query.where(or_(FAULTS.c.ruc == ruc, FAULTS.c.ruc.is_(None)))
        with self.database.engine.connect() as connection:
            return [_fault(row) for row in connection.execute(query.order_by(FAULTS.c.id))]

    def clear(self, ruc: str | None = None) -> int:
        """Remove the injections of ``ruc`` (every injection when None); returns how many went."""
        statement = delete(FAULTS)
        if ruc is not None:
            statement = statement.where(FAULTS.c.ruc == ruc)
        with self.database.writing() as connection:
            return connection.execute(statement).rowcount

    def take(self, ruc: str, operation: str) -> Fault | None:
        """The oldest injection that applies to ``operation`` of ``ruc``, its count lowered by one (a
        conditional update: two workers never take the same last count); None when none applies."""
        query = (
            select(FAULTS)
            .where(
                or_(FAULTS.c.ruc == ruc, FAULTS.c.ruc.is_(None)),
                or_(FAULTS.c.operation == operation, FAULTS.c.operation == ""),
                or_(FAULTS.c.remaining.is_(None), FAULTS.c.remaining > 0),
                or_(FAULTS.c.until.is_(None), FAULTS.c.until > _utc_now()),
            )
            .order_by(FAULTS.c.id)
            .limit(8)
        )
        with self.database.engine.connect() as connection:
            candidates = [_fault(row) for row in connection.execute(query)]
        for fault in candidates:
            if fault.remaining is None:
                return fault
            with self.database.writing() as connection:
                taken = connection.execute(
                    update(FAULTS)
                    .where(FAULTS.c.id == fault.id, FAULTS.c.remaining > 0)
                    .values(remaining=FAULTS.c.remaining - 1)
                ).rowcount
            if taken:
                return Fault(**{**fault.__dict__, "remaining": fault.remaining - 1})
        return None
