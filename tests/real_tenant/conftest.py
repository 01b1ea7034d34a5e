"""Fixtures of the real-tenant tests: nothing written to the real home, no installed plugins loaded.
Each test module starts the stand-ins it needs (``tests/real_tenant/server.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes to the real home or loads installed plugins."""
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))
    monkeypatch.setenv("FACTURADOR_TENANTS", str(tmp_path / "missing-tenants.toml"))
    monkeypatch.delenv("FACTURADOR_LOAD_PLUGINS", raising=False)
