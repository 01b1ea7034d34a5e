"""The Alembic migrations build the schema the models declare, and 0003 makes old unsent facturas owed.

Runs on a fresh SQLite file, or on a throw-away PostgreSQL database when FACTURADOR_TEST_DATABASE_URL is
set (as the rest of the suite)."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import Engine, column, create_engine, insert, select, table

from facturador.store.db import MIGRATIONS_DIR, make_engine
from facturador.store.models import DOCUMENTS, TENANTS, Base, Document, Establishment, User, document_values
from tests.conftest import _fresh_postgres

#: Columns added after revision 0002 (0003: idempotency and pending sending; 0004: payments).
NEW_COLUMNS = {"idempotency_key", "idempotency_hash", "send_attempts", "next_send_at", "payments"}


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    drop = None
    if os.environ.get("FACTURADOR_TEST_DATABASE_URL"):
        url, drop = _fresh_postgres(os.environ["FACTURADOR_TEST_DATABASE_URL"])
        engine = create_engine(url)
    else:
        engine = make_engine(f"sqlite:///{tmp_path / 'migrations.db'}")
    yield engine
    engine.dispose()
    if drop is not None:
        drop()


def _upgrade(engine: Engine, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def test_migrations_build_what_the_models_declare(engine: Engine) -> None:
    _upgrade(engine, "head")
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []


def _document(tenant_id: int, number: int, group: str, state: str, send: bool) -> dict[str, object]:
    return {
        "tenant_id": tenant_id,
        "external_id": f"00000000-0000-4000-8000-{number:012d}",
        "establishment_id": 1,
        "user_id": 1,
        "group_id": group,
        "document_type_id": "01" if group == "01" else "03",
        "series": "F001" if group == "01" else "B001",
        "number": number,
        "filename": f"20100066603-01-F001-{number}",
        "date_of_issue": dt.date(2026, 11, 20),
        "time_of_issue": dt.time(10, 0),
        "currency_type_id": "PEN",
        "customer_identity_type": "6",
        "customer_number": "20487654320",
        "customer_name": "CLIENTE",
        "state_type_id": state,
        "send_xml_signed": send,
    }


def test_0003_makes_unsent_facturas_of_sending_tenants_due(engine: Engine) -> None:
    _upgrade(engine, "0002")
    with engine.begin() as connection:
        for tenant_id, send_auto in ((1, None), (2, False)):
            settings = {} if send_auto is None else {"send_auto": send_auto}
            connection.execute(
                insert(TENANTS).values(
                    id=tenant_id,
                    slug=f"t{tenant_id}",
                    ruc="20100066603",
                    name="T",
                    trade_name="",
                    address="",
                    ubigeo="",
                    settings=settings,
                )
            )
        connection.execute(
            insert(Establishment.__table__).values(
                id=1, tenant_id=1, code="0000", description="Oficina", address="", ubigeo=""
            )
        )
        connection.execute(
            insert(User.__table__).values(
                id=1, tenant_id=1, establishment_id=1, name="u", email="", token_hash="h"
            )
        )
        rows = [
            _document(1, 1, "01", "01", True),  # owed: a factura left registered
            _document(1, 2, "01", "05", True),  # accepted
            _document(1, 3, "01", "01", False),  # the client sends it (enviar_xml_firmado false)
            _document(1, 4, "02", "01", True),  # a boleta: daily summaries
            _document(2, 5, "01", "01", True),  # its tenant does not send automatically
        ]
        for row in rows:
            values = {k: v for k, v in document_values(Document(**row)).items() if k not in NEW_COLUMNS}
            legacy = table("documents", *(column(k, DOCUMENTS.c[k].type) for k in values))
            connection.execute(insert(legacy).values(**values))
    before = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(seconds=5)
    _upgrade(engine, "head")
    with engine.connect() as connection:
        due = dict(connection.execute(select(DOCUMENTS.c.number, DOCUMENTS.c.next_send_at)).all())
        attempts = set(connection.execute(select(DOCUMENTS.c.send_attempts)).scalars())
    assert due[2] is None and due[3] is None and due[4] is None and due[5] is None
    assert due[1] is not None and before <= due[1] <= before + dt.timedelta(minutes=1)
    assert attempts == {0}
