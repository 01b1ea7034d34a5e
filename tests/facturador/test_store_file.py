"""A SQLite store that is not whole at start (another file in its place, or cut short by a copy or a
disk) stops ``facturador`` with an error naming the file and what to do; it never serves, migrates or
starts a new empty store over it. An empty file (an install that created it) is a new store."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from facturador.config import Settings
from facturador.context import ServiceContext


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
