"""Fixtures of the real-tenant tests: a seeded stand-in per variant, and a connector client of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from connector import Client
from tests.real_tenant.seed import seed
from tests.real_tenant.server import StandIn, running, stand_in
from tests.real_tenant.variants import VARIANTS


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes to the real home or loads installed plugins."""
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FACTURADOR_TENANTS", str(tmp_path / "missing-tenants.toml"))
    monkeypatch.delenv("FACTURADOR_LOAD_PLUGINS", raising=False)


@pytest.fixture(params=sorted(VARIANTS))
def real(request: pytest.FixtureRequest) -> Iterator[StandIn]:
    """A seeded stand-in of each variant, serving on loopback (limit: 60 requests a minute)."""
    standin = stand_in(VARIANTS[request.param], limit=1_000)
    standin.tenant.seeded = seed(standin.tenant)  # type: ignore[attr-defined]
    with running(standin):
        yield standin


@pytest.fixture
def real_client(real: StandIn) -> Iterator[Client]:
    """A connector client of :func:`real` (cache off: every call reaches the stand-in)."""
    with Client(real.root, real.token, cache=False, name="COMERCIAL REAL TENANT S.A.C.") as client:
        yield client


def seeded(standin: StandIn) -> dict[str, Any]:
    """What :func:`tests.real_tenant.seed.seed` made on ``standin``."""
    return standin.tenant.seeded  # type: ignore[attr-defined, no-any-return]
