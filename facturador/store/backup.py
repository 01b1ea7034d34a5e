"""A backup of a service's store taken while it serves: the SQLite database copied with SQLite's online
backup API (a consistent snapshot: WAL readers do not stop the writers, and the copy holds every
transaction committed before it began), and the data directory's own files beside it.

What is not copied: the secret key (``secret.key`` or ``FACTURADOR_SECRET_KEY``), unless asked for (it
opens every tenant's secrets and signing keys: keep it apart from the backups), and what a node makes
again (request metrics, locks, running services' addresses). A PostgreSQL database is backed up with
``pg_dump`` or by the server's own means (docs/deploying.md «Backups and restore»).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from facturador.config import SECRET_KEY_FILE, private_directory, write_private

#: What of the data directory a backup holds besides the database (when present).
DATA_DIRECTORY_ENTRIES = ("tenants", "authority", "tenants.toml")
MANIFEST = "backup.json"


class BackupError(Exception):
    """A backup that cannot be made (the destination is in use, the database cannot be read)."""


@dataclass(frozen=True)
class Backup:
    """What a backup holds."""

    destination: Path
    database: Path | None
    documents: int
    schema: str | None
    copied: tuple[str, ...]


def sqlite_path(database_url: str) -> Path | None:
    """The file of a SQLite database URL; None for another database (or an in-memory one)."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    return Path(url.database)


def back_up(data_dir: Path, database_url: str, destination: Path, *, with_secret_key: bool = False) -> Backup:
    """Back up the store of ``data_dir`` and ``database_url`` into ``destination`` (a new or empty folder,
    made 0700): ``facturador.db`` (SQLite only), the data directory's entries and ``backup.json``."""
    if destination.exists() and any(destination.iterdir()):
        raise BackupError(f"{destination} is not empty: back up into a new folder")
    private_directory(destination)
    source = sqlite_path(database_url)
    documents, schema, database = 0, None, None
    if source is not None:
        if not source.is_file():
            raise BackupError(f"no SQLite database at {source}")
        database = destination / "facturador.db"
        reading = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
        try:
            copy = sqlite3.connect(database)
            try:
                reading.backup(copy)  # one step: a snapshot of every committed transaction
                documents = copy.execute("SELECT count(*) FROM documents").fetchone()[0]
                found = copy.execute("SELECT version_num FROM alembic_version").fetchone()
                schema = found[0] if found else None
            finally:
                copy.close()
        except sqlite3.Error as exc:
            raise BackupError(f"could not back up {source}: {exc}") from exc
        finally:
            reading.close()
        database.chmod(0o600)
    copied = []
    for name in DATA_DIRECTORY_ENTRIES + ((SECRET_KEY_FILE,) if with_secret_key else ()):
        entry = data_dir / name
        if entry.is_dir():
            shutil.copytree(entry, destination / name, symlinks=True)
        elif entry.is_file():
            shutil.copy2(entry, destination / name)
        else:
            continue
        copied.append(name)
    manifest = {
        "taken_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "database": "sqlite" if source is not None else make_url(database_url).get_backend_name(),
        "schema": schema,
        "documents": documents,
        "data_directory": copied,
        "secret_key_included": with_secret_key and SECRET_KEY_FILE in copied,
    }
    write_private(destination / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return Backup(destination, database, documents, schema, tuple(copied))
