"""A SQLite store that fills up while issuing answers 507 and stays whole; one that is not whole at
start (another file in its place, or cut short by a copy or a disk) stops ``facturador`` with an error
naming the file and what to do; it never serves, migrates or starts a new empty store over it. An empty
file (an install that created it) is a new store."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from facturador.config import Settings
from facturador.context import ServiceContext
from facturador.store.db import MAX_PAGES_ENV, NEW_STORE_ENV
from tests.nodes import new_tenant
from tests.samples.bodies import invoice_body
from tests.served import serve


def _run(settings: Settings, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "facturador.cli", *arguments],
        env={**os.environ, **settings.export()},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _whole_store(tmp_path: Path) -> tuple[Settings, Path]:
    settings = Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'data' / 'facturador.db'}"
    )
    Settings.resolve(settings.data_dir)
    context = ServiceContext(settings)  # creates the schema
    context.engine.dispose()  # the last connection checkpoints the WAL into the file
    path = settings.data_dir / "facturador.db"
    assert not path.with_name("facturador.db-wal").exists()
    return settings, path


@pytest.mark.slow(seconds=10)
@pytest.mark.parametrize("damage", ["another file", "truncated", "its last pages cut"])
def test_a_damaged_store_stops_the_service_with_a_clear_error(tmp_path: Path, damage: str) -> None:
    settings, path = _whole_store(tmp_path)
    if damage == "another file":
        path.write_bytes(b"PK\x03\x04" + os.urandom(8000))  # a zip copied over it, say
    else:
        size = path.stat().st_size
        with path.open("r+b") as file:
            file.truncate(size // 2 if damage == "truncated" else size - 8192)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    for command in (("tenant", "list"), ("serve", "--port", "1")):
        done = _run(settings, *command)
        assert done.returncode != 0, done.stdout
        assert str(path) in done.stderr, done.stderr
        assert "backup" in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert ("not a SQLite database" if damage == "another file" else "truncated") in done.stderr, (
            done.stderr
        )
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # left as it was, for whoever repairs it


def test_an_empty_file_is_a_new_store(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "facturador.db").touch()
    settings = Settings(data_dir=data, database_url=f"sqlite:///{data / 'facturador.db'}")
    done = _run(settings, "tenant", "list")
    assert done.returncode == 0, done.stderr


@pytest.mark.slow(seconds=35)
def test_a_full_store_answers_507_saves_nothing_half_and_opens_clean_afterwards(tmp_path: Path) -> None:
    """The store fills up while facturas are issued (SQLite capped at a few more pages than it holds,
    as a full disk would): the request that finds no room gets 507 STORAGE_FULL with Retry-After and
    leaves nothing behind, reads still answer, and once there is room again (restarted without the cap)
    the store checks whole and the next factura follows the last one answered."""
    settings = Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'data' / 'facturador.db'}"
    )
    Settings.resolve(settings.data_dir)
    tenant = new_tenant(settings, "llena")
    path = settings.data_dir / "facturador.db"
    with sqlite3.connect(path) as connection:
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
    answered: list[str] = []
    full = None
    env = {MAX_PAGES_ENV: str(pages + 40)}
    with serve(settings, tmp_path / "serve.log", "--send-pending-every", "0", env=env) as served:
        with served.client(tenant.slug, tenant.token) as client:
            for _ in range(400):
                response = client.post("/api/documents", json=invoice_body())
                if response.status_code != 200:
                    full = response
                    break
                answered.append(response.json()["data"]["number"])
            assert full is not None, f"{len(answered)} facturas fit in 40 pages"
            assert full.status_code == 507, full.text
            assert full.json()["error_code"] == "STORAGE_FULL" and full.headers["Retry-After"], full.text
            assert "no se guardó nada" in full.json()["message"]
            day = invoice_body()["fecha_de_emision"]
            listed = client.get(f"/api/documents/lists/{day}/{day}")
            assert listed.status_code == 200, listed.text
            assert sorted(row["number"] for row in listed.json()["data"]) == sorted(answered)
        assert "Traceback" not in served.output(), served.output()[-3000:]
    assert answered, "not one factura fit"
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = connection.execute("SELECT count(*) FROM documents").fetchone()[0]
        without_xml = connection.execute(
            "SELECT count(*) FROM documents d WHERE NOT EXISTS "
            "(SELECT 1 FROM artifacts a WHERE a.document_id = d.id AND a.kind = 'xml')"
        ).fetchone()[0]
    assert stored == len(answered) and without_xml == 0
    with serve(settings, tmp_path / "again.log", "--send-pending-every", "0") as served:
        with served.client(tenant.slug, tenant.token) as client:
            following = client.post("/api/documents", json=invoice_body())
            assert following.status_code == 200, following.text
    last = max(int(number.split("-")[1]) for number in answered)
    assert following.json()["data"]["number"] == f"F001-{last + 1}"


@pytest.mark.slow(seconds=10)
@pytest.mark.parametrize("lost", ["deleted", "emptied"])
def test_a_lost_store_beside_tenants_keys_stops_the_service(tmp_path: Path, lost: str) -> None:
    """The store file deleted (or emptied) while the tenants' keys remain: ``facturador`` stops with an
    error naming the file and what to do, and makes no new empty store; ``serve --new-store`` (or
    FACTURADOR_NEW_STORE=1) starts one on purpose."""
    settings, path = _whole_store(tmp_path)
    new_tenant(settings, "perdida")
    ServiceContext(settings).engine.dispose()
    for name in ("facturador.db-wal", "facturador.db-shm"):
        path.with_name(name).unlink(missing_ok=True)
    if lost == "deleted":
        path.unlink()
    else:
        path.write_bytes(b"")
    for command in (("tenant", "list"), ("serve", "--port", "1")):
        done = _run(settings, *command)
        assert done.returncode != 0, done.stdout
        assert str(path) in done.stderr and "perdida" in done.stderr, done.stderr
        assert "backup" in done.stderr and "--new-store" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
    assert path.exists() == (lost == "emptied") and (not path.exists() or path.stat().st_size == 0)
    done = subprocess.run(
        [sys.executable, "-m", "facturador.cli", "tenant", "list"],
        env={**os.environ, **settings.export(), NEW_STORE_ENV: "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert path.stat().st_size > 0  # the new, empty store, made on purpose
