"""Opening the service's SQLite store must never drop the locks this process already holds on it.

Closing any descriptor of a SQLite file releases every POSIX lock the process holds on that file. When
``facturador serve`` ran its background sender beside a worker in one process, the worker's engine
opened and closed the database file while the sender's connection was open; the next ``facturador``
command then believed it was the last connection, checkpointed, deleted the WAL, and every later write of
the server went to a deleted file: documents answered 200 vanished at the next stop.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from sqlalchemy import text

from facturador.store.db import make_engine, private_file

CLOSE_LIKE_A_CLI = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1])
connection.execute("PRAGMA journal_mode=WAL")
print(connection.execute("select count(*) from notes").fetchone()[0])
connection.close()
"""


def test_a_second_engine_in_the_process_keeps_the_first_ones_wal(tmp_path: Path) -> None:
    database = tmp_path / "facturador.db"
    url = f"sqlite:///{database}"
    first = make_engine(url)  # the pending sender's engine
    with first.begin() as connection:
        connection.execute(text("create table notes (n integer)"))
        connection.execute(text("insert into notes values (1)"))
    live = first.connect()  # a connection the sender keeps open (reading locks on the file)
    live.execute(text("select count(*) from notes")).scalar_one()
    second = make_engine(url)  # a worker's engine started in the same process
    try:
        # another process (a CLI command) opens and closes the store beside the live server
        seen = subprocess.run(
            [sys.executable, "-c", CLOSE_LIKE_A_CLI, str(database)], capture_output=True, text=True
        )
        assert seen.returncode == 0, seen.stderr
        assert seen.stdout.strip() == "1"
        assert (tmp_path / "facturador.db-wal").exists(), "the CLI took itself for the last connection"
        with second.begin() as connection:
            connection.execute(text("insert into notes values (2)"))
    finally:
        live.close()
        first.dispose()
        second.dispose()
    reopened = make_engine(url)
    with reopened.connect() as connection:
        assert connection.execute(text("select count(*) from notes")).scalar_one() == 2
    reopened.dispose()


def test_the_store_and_its_wal_are_made_private_without_being_opened(tmp_path: Path) -> None:
    database = tmp_path / "facturador.db"
    private_file(database)
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
    for name in ("facturador.db", "facturador.db-wal", "facturador.db-shm"):
        (tmp_path / name).touch()
        os.chmod(tmp_path / name, 0o644)  # an operator loosened them
    private_file(database)
    for name in ("facturador.db", "facturador.db-wal", "facturador.db-shm"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name
    private_file(tmp_path / "missing" / "facturador.db")  # SQLite reports a missing folder itself
    assert not (tmp_path / "missing").exists()
