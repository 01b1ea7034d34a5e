"""The Alembic migrations build the schema the models declare, 0003 makes old unsent facturas owed, and
0008 folds the stored products and persons for search (and migrates where pg_trgm is refused).

Runs on a fresh SQLite file, or on a throw-away PostgreSQL database when FACTURADOR_TEST_DATABASE_URL is
set (as the rest of the suite)."""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import Connection, Engine, Table, column, create_engine, insert, select, table, text
from sqlalchemy.engine import make_url

from facturador.store.db import MIGRATIONS_DIR, make_engine
from facturador.store.models import (
    DOCUMENTS,
    ITEMS,
    PERSONS,
    TENANTS,
    Base,
    Document,
    Establishment,
    User,
    document_values,
    include_object,
)
from facturador.store.search import contains
from tests.conftest import _fresh_postgres

#: Columns added after revision 0002 (0003: idempotency and pending sending; 0004: payments).
NEW_COLUMNS = {"idempotency_key", "idempotency_hash", "send_attempts", "next_send_at", "payments"}
NEW_COLUMNS |= {"total_isc", "total_other_taxes"}  # 0008


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
        differences = _differences(connection)
    assert differences == []


def _differences(connection: Connection) -> list[object]:
    """What autogenerate finds between the database and the models (the dialect's own indexes only)."""
    options = {"include_object": include_object(connection.dialect.name)}
    return list(compare_metadata(MigrationContext.configure(connection, opts=options), Base.metadata))


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


def _legacy_insert(connection: Connection, model: Table, rows: list[dict[str, object]]) -> None:
    """Insert ``rows`` as a revision before 0008 would (no search_text), the model's defaults filling in."""
    columns = [c for c in model.c if c.name != "search_text" and c.server_default is None and c.name != "id"]
    legacy = table(model.name, *(column(c.name, c.type) for c in columns))
    for row in rows:
        values = {c.name: c.default.arg for c in columns if c.default is not None and c.default.is_scalar}
        values.update(
            {c.name: c.default.arg(None) for c in columns if c.default is not None and c.default.is_callable}
        )
        connection.execute(insert(legacy).values(**{**values, **row}))


def test_0008_folds_the_stored_products_and_persons(engine: Engine) -> None:
    _upgrade(engine, "0007")
    with engine.begin() as connection:
        connection.execute(
            insert(TENANTS).values(
                id=1,
                slug="t1",
                ruc="20100066603",
                name="T",
                trade_name="",
                address="",
                ubigeo="",
                settings={},
            )
        )
        _legacy_insert(
            connection, ITEMS, [{"tenant_id": 1, "internal_id": "CAF-Ñ", "description": "Café Ñandú"}]
        )
        _legacy_insert(
            connection,
            PERSONS,
            [
                {
                    "tenant_id": 1,
                    "type": "customers",
                    "identity_document_type_id": "1",
                    "number": "41000001",
                    "name": "Núñez Güere José",
                }
            ],
        )
    _upgrade(engine, "head")
    with engine.connect() as connection:
        assert connection.scalar(select(ITEMS.c.search_text)) == "cafe nandu\x1fcaf-n"
        assert connection.scalar(select(PERSONS.c.search_text)) == "41000001\x1fnunez guere jose"
        found = select(ITEMS.c.id).where(contains(ITEMS.c.search_text, "CAFÉ ÑANDU"))
        assert connection.scalar(found) is not None


@pytest.mark.skipif(
    not os.environ.get("FACTURADOR_TEST_DATABASE_URL"),
    reason="PostgreSQL: a role that may not create pg_trgm",
)
def test_0008_migrates_where_pg_trgm_is_refused() -> None:
    """A role without CREATE on the database cannot create the (trusted) extension: the migration still
    reaches head, with plain indexes of the models' names, and the search answers the same."""
    url, drop = _fresh_postgres(os.environ["FACTURADOR_TEST_DATABASE_URL"])
    role = f"facturador_plain_{uuid.uuid4().hex[:8]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"CREATE ROLE {role} LOGIN PASSWORD 'plain'"))
        connection.execute(text(f"GRANT ALL ON SCHEMA public TO {role}"))
    plain = create_engine(make_url(url).set(username=role, password="plain"))
    try:
        _upgrade(plain, "head")
        with plain.connect() as connection:
            assert connection.scalar(text("SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'")) == 0
            methods = dict(
                connection.execute(
                    text(
                        "SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam "
                        "WHERE c.relname LIKE 'ix_%search_text'"
                    )
                ).all()
            )
            assert methods == {"ix_items_search_text": "hash", "ix_persons_search_text": "hash"}
            differences = _differences(connection)
        assert differences == []
    finally:
        plain.dispose()
        admin.dispose()
        drop()
        cleanup = create_engine(os.environ["FACTURADOR_TEST_DATABASE_URL"], isolation_level="AUTOCOMMIT")
        with cleanup.connect() as connection:
            connection.execute(text(f"DROP ROLE IF EXISTS {role}"))
        cleanup.dispose()


def _ordered_indexes(connection: Connection) -> dict[str, str]:
    """The definitions of the persons' and items' ordered indexes, spaces and quotes dropped."""
    if connection.dialect.name == "postgresql":
        query = "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('persons', 'items')"
    else:
        query = (
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('persons', 'items')"
        )
    names = {"ix_persons_tenant_type_name", "ix_items_search", "ix_items_order"}
    return {
        name: "".join(sql.split()).replace('"', "").lower()
        for name, sql in connection.execute(text(query)).all()
        if name in names
    }


def test_0012_bounds_the_keys_of_the_ordered_indexes(engine: Engine) -> None:
    """No ordered index holds a whole name, description or folded text (a PostgreSQL btree entry cannot
    exceed 2,704 bytes): persons' holds name_key (computed by the database), items' the first 200 characters
    of the description; SQLite, without that limit, keeps search_text in the items' index. Downgrading
    restores 0011's indexes, and upgrading again builds 0012's."""
    _upgrade(engine, "head")
    with engine.connect() as connection:
        found = _ordered_indexes(connection)
    if engine.dialect.name == "postgresql":
        assert set(found) == {"ix_persons_tenant_type_name", "ix_items_order"}
        assert "(tenant_id,type,name_key,number)include(id)" in found["ix_persons_tenant_type_name"]
        assert "(tenant_id,active,substr((description)::text,1,200),id)" in found["ix_items_order"]
    else:
        assert set(found) == {"ix_persons_tenant_type_name", "ix_items_search"}
        assert found["ix_persons_tenant_type_name"].endswith("(tenant_id,type,name_key,number)")
        assert found["ix_items_search"].endswith("(tenant_id,active,substr(description,1,200),search_text)")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0011")
    with engine.connect() as connection:
        before = _ordered_indexes(connection)
    assert set(before) == {"ix_persons_tenant_type_name", "ix_items_search"}
    assert "substr" not in "".join(before.values()) and "name_key" not in "".join(before.values())
    _upgrade(engine, "head")
    with engine.connect() as connection:
        assert _ordered_indexes(connection) == found


def test_0020_starts_each_quotation_counter_at_its_highest_number(engine: Engine) -> None:
    """Quotations numbered before 0020 keep their numbers: the next one of a prefix follows the highest."""
    from facturador.domain.numbering import take_next_quotation_number
    from facturador.store.models import QUOTATIONS

    _upgrade(engine, "0019")
    with engine.begin() as connection:
        connection.execute(
            insert(TENANTS).values(
                id=1,
                slug="t1",
                ruc="20100066603",
                name="T",
                trade_name="",
                address="",
                ubigeo="",
                settings={},
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
        _legacy_insert(
            connection,
            PERSONS,
            [
                {
                    "tenant_id": 1,
                    "type": "customers",
                    "identity_document_type_id": "6",
                    "number": "1",
                    "name": "A",
                }
            ],
        )
        person = connection.execute(select(PERSONS.c.id)).scalar_one()
        common = {
            "tenant_id": 1,
            "establishment_id": 1,
            "user_id": 1,
            "date_of_issue": dt.date(2026, 12, 1),
            "time_of_issue": dt.time(10),
            "customer_id": person,
            "currency_type_id": "PEN",
            "lines": [],
            "data_json": {},
        }
        for prefix, number in (("COT", 1), ("COT", 7), ("PRE", 3)):
            _legacy_insert(
                connection,
                QUOTATIONS,
                [{**common, "external_id": str(uuid.uuid4()), "prefix": prefix, "number": number}],
            )
    _upgrade(engine, "head")
    with engine.begin() as connection:
        assert take_next_quotation_number(connection, 1, 1, "COT") == 8
        assert take_next_quotation_number(connection, 1, 1, "PRE") == 4
        assert take_next_quotation_number(connection, 1, 1, "NEW") == 1
        assert take_next_quotation_number(connection, 1, 1, "NEW") == 2
