"""``client.company``: what our service tells a tenant about its own sending (its signing certificate and
SUNAT's last certificate error). Real Facturador PRO tenants have no such endpoint: the calls answer
``None`` there, and callers show nothing."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from connector.errors import NotFoundError
from connector.http import Connection

__all__ = ["AttentionItem", "CertificateStatus", "CompanyResource", "ExchangeRate"]

#: Days before expiry from which the certificate deserves a warning.
EXPIRY_WARNING_DAYS = 30


@dataclass(frozen=True)
class CertificateStatus:
    """The certificate a tenant signs with and SUNAT's latest certificate error (2325-2328) of the last
    30 days, as ``GET /api/company/certificate`` tells."""

    sending: str
    subject: str | None
    not_after: dt.date | None
    days_left: int | None
    self_signed: bool
    last_error: dict[str, Any] | None

    @property
    def expires_soon(self) -> bool:
        """Whether it expires within :data:`EXPIRY_WARNING_DAYS` days (or has expired)."""
        return self.days_left is not None and self.days_left <= EXPIRY_WARNING_DAYS


@dataclass(frozen=True)
class AttentionItem:
    """A document or summary the service stopped sending or asking about by itself, for a person to
    settle (``GET /api/company/attention``): ``kind`` ``document`` or ``summary``, its ``reference``
    (F001-7, RC-20261205-1), ``date`` (of issue or generation), SUNAT's last ``code`` and the ``reason``."""

    kind: str
    reference: str
    date: dt.date | None
    code: str
    reason: str


@dataclass(frozen=True)
class ExchangeRate:
    """SUNAT's exchange rate that applies to ``date`` (soles per dollar), published on ``published``."""

    date: dt.date
    published: dt.date
    purchase: Decimal
    sale: Decimal


class CompanyResource:
    """The tenant's own settings as our service exposes them (see module doc)."""

    def __init__(self, http: Connection, host: Any = None):
        self._http = http

    def exchange_rate(self, day: dt.date) -> ExchangeRate | None:
        """SUNAT's rate of ``day`` (or the last published before it) from ``GET /api/services/exchange/
        {date}`` (real PRO's Services module has the same route); None when the tenant has none (real PRO
        answers purchase and sale 1 then) or no such route."""
        try:
            response = self._http.get(f"/api/services/exchange/{day.isoformat()}", retry=False)
            body = Connection.json(response)
        except NotFoundError:
            return None
        try:
            purchase, sale = Decimal(str(body.get("purchase"))), Decimal(str(body.get("sale")))
            published = dt.date.fromisoformat(str(body.get("date_sunat") or body.get("date") or day))
        except (InvalidOperation, ValueError):
            return None
        if sale <= 1 and purchase <= 1:  # real PRO's answer when it found nothing
            return None
        return ExchangeRate(day, published, purchase, sale)

    def attention(self) -> list[AttentionItem] | None:
        """What waits for a person, or None when the tenant does not tell it (a real tenant)."""
        try:
            response = self._http.get("/api/company/attention", retry=False)
            data = Connection.json(response).get("data") or []
        except NotFoundError:
            return None
        return [
            AttentionItem(
                kind=str(item.get("kind") or ""),
                reference=str(item.get("reference") or ""),
                date=dt.date.fromisoformat(item["date"]) if item.get("date") else None,
                code=str(item.get("code") or ""),
                reason=str(item.get("reason") or ""),
            )
            for item in data
            if isinstance(item, dict)
        ]

    def certificate(self) -> CertificateStatus | None:
        """The certificate status, or None when the tenant does not expose it (a real tenant)."""
        try:
            response = self._http.get("/api/company/certificate", retry=False)
            data = Connection.json(response).get("data") or {}
        except NotFoundError:
            return None
        certificate = data.get("certificate") or {}
        not_after = certificate.get("not_after")
        return CertificateStatus(
            sending=str(data.get("sending") or ""),
            subject=certificate.get("subject"),
            not_after=dt.date.fromisoformat(not_after) if not_after else None,
            days_left=certificate.get("days_left"),
            self_signed=bool(certificate.get("self_signed")),
            last_error=data.get("last_certificate_error"),
        )
