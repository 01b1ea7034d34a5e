"""Fixtures of the connector tests: clients of the live service, a cache in a temporary directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from connector import CacheSettings, Client
from tests.conftest import LiveService
from tests.connector.standin import standin  # noqa: F401  (fixture)
from tests.samples.tenants import ACME, ACME_TOKEN


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes to the real home or loads installed plugins."""
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))
    monkeypatch.setenv("FACTURADOR_TENANTS", str(tmp_path / "missing-tenants.toml"))
    monkeypatch.delenv("FACTURADOR_LOAD_PLUGINS", raising=False)


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "client-cache"


@pytest.fixture
def client(live: LiveService, cache_dir: Path) -> Iterator[Client]:
    """A client of tenant ``acme`` with its SQLite cache in a temporary directory."""
    with Client(
        live.base_url(ACME), ACME_TOKEN, cache=CacheSettings(directory=cache_dir), name="ACME PERU S.A.C."
    ) as c:
        yield c
