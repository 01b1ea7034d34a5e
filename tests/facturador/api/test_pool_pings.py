"""Pooled PostgreSQL connections are pinged only after sitting idle (facturador.store.db.ping_when_idle):
a connection used again at once is not pinged (three of an issue's ~19 round trips were pings), and one
that died while idle is found by the ping and replaced. PostgreSQL only (CI's PostgreSQL run)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from facturador.store.db import Database, ping_when_idle
from tests.conftest import _fresh_postgres

POSTGRES = os.environ.get("FACTURADOR_TEST_DATABASE_URL")


@pytest.mark.skipif(not POSTGRES, reason="PostgreSQL only (FACTURADOR_TEST_DATABASE_URL)")
def test_only_an_idle_connection_is_pinged_and_a_dead_one_replaced(tmp_path: Path) -> None:
    assert POSTGRES is not None
    url, drop = _fresh_postgres(POSTGRES)
    db = Database(url, writer_lock=tmp_path / "lock", migrate=False)
    pings: list[bool] = []
    ping = db.engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(True)
        return ping(dbapi_connection)

    db.engine.dialect.do_ping = counted  # type: ignore[method-assign]
    try:
        with db.engine.connect() as connection:
            pid = connection.scalar(text("SELECT pg_backend_pid()"))
        for _ in range(5):  # used again at once: not pinged
            with db.engine.connect() as connection:
                assert connection.scalar(text("SELECT pg_backend_pid()")) == pid
        assert pings == []
        killer = create_engine(url, isolation_level="AUTOCOMMIT")  # the pooled connection dies while idle
        with killer.connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        killer.dispose()
        ping_when_idle(db.engine, idle_seconds=0)  # now every checkout finds it idle long enough
        with db.engine.connect() as connection:
            assert connection.scalar(text("SELECT 1")) == 1
        assert pings
    finally:
        db.dispose()
        drop()
