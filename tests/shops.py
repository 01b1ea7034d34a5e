"""Tenants of their own for tests that declare or void documents.

A daily summary takes *every* registered boleta of a day of its tenant, so tests that declare (and those
that void, which change states others may read) work on a fresh tenant of the live service instead of
the shared ``acme``: nothing they do shows up in another test's lists.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx

from connector import Client
from facturador.domain.tenants import create_tenant, set_secret
from sunat.identity import ruc_check_digit
from tests.conftest import LiveService


@dataclass(frozen=True)
class Shop:
    """A tenant created for some tests: its slug, RUC, token and base URL on the live service."""

    live: LiveService
    slug: str
    ruc: str
    token: str

    @property
    def base_url(self) -> str:
        return self.live.base_url(self.slug)

    def client(self, **options: Any) -> Client:
        """A connector client of this tenant (no cache unless ``cache=`` says otherwise)."""
        options.setdefault("cache", False)
        return Client(self.base_url, self.token, name=f"{self.slug.upper()} S.A.C.", **options)

    def http(self) -> httpx.Client:
        """An HTTP client of this tenant on the live service (JSON, its token)."""
        return self.live.client(self.slug, self.token)

    def set(self, **settings: Any) -> None:
        """Change the tenant's settings (e.g. ``authority_ticket_delay``)."""
        self.live.set_tenant(self.slug, **settings)

    def set_secret(self, name: str, value: str | None) -> None:
        """Keep (or, with None, forget) one of the tenant's secrets, e.g. ``sol_password``."""
        context = self.live.context
        with context.session() as session, session.begin():
            set_secret(session, context.vault, self.slug, name, value)


def new_shop(live: LiveService, prefix: str, **settings: Any) -> Shop:
    """A fresh tenant ``<prefix>-<random>`` with a random valid RUC; tickets are processed at once
    (``authority_ticket_delay`` 0) unless ``settings`` say otherwise."""
    suffix = uuid.uuid4().hex[:6]
    first10 = "20" + str(uuid.uuid4().int % 10**8).zfill(8)
    ruc = first10 + str(ruc_check_digit(first10))
    slug = f"{prefix}-{suffix}"
    token = f"{slug}-token-0123456789-abcdefghij"
    with live.context.session() as session, session.begin():
        create_tenant(
            session,
            live.settings,
            slug,
            ruc=ruc,
            name=f"{prefix.upper()} S.A.C.",
            address="Av. Los Próceres 100, Lima",
            ubigeo="150101",
            token=token,
            overrides={"authority_ticket_delay": 0.0, **settings},
        )
    return Shop(live, slug, ruc, token)
