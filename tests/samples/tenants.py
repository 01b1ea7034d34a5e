"""The tenants of the live test service (``tests/conftest.py`` creates them) and how to reach them.

``acme`` is the everyday issuer (test mode, contingency series 0001/0004, extra factura series F002 and
F900); ``other`` is a second company for isolation tests (reached by host too); ``strict`` answers as
SUNAT's production gateway does (``authority_mode`` strict: a bad customer RUC check digit is rejected).
Tests that need a tenant of their own use ``tests/shops.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ACME = "acme"
ACME_RUC = "20100066603"
ACME_NAME = "ACME PERU S.A.C."
ACME_TOKEN = "acme-token-0123456789-abcdefghijklmnop"
OTHER = "other"
OTHER_RUC = "20601030013"
OTHER_TOKEN = "other-token-0123456789-abcdefghijklmno"
STRICT = "strict"
STRICT_RUC = "20131312955"
STRICT_TOKEN = "strict-token-0123456789-abcdefghijklmn"


@dataclass(frozen=True)
class Tenant:
    """What ``create_tenant`` is given for one tenant: slug, RUC, name, token and the other details."""

    slug: str
    ruc: str
    name: str
    token: str
    details: dict[str, Any] = field(default_factory=dict)


TENANTS = (
    Tenant(
        ACME,
        ACME_RUC,
        ACME_NAME,
        ACME_TOKEN,
        {"trade_name": "Acme", "address": "Av. Arequipa 123, Lima", "ubigeo": "150101"},
    ),
    Tenant(OTHER, OTHER_RUC, "OTRA EMPRESA S.A.", OTHER_TOKEN, {"host": "otra.localhost"}),
    Tenant(
        STRICT, STRICT_RUC, "EMPRESA ESTRICTA S.A.", STRICT_TOKEN, {"overrides": {"authority_mode": "strict"}}
    ),
)

#: Series registered beyond each tenant's defaults: (tenant, document type, series, contingency).
SERIES = (
    (ACME, "01", "0001", True),
    (ACME, "03", "0004", True),
    (ACME, "01", "F002", False),
    (ACME, "01", "F900", False),
)
