"""The simulator's SOAP endpoint on the service's data: its taxpayers are the tenants, its memory the
service's database (registry, tickets, injected failures). See ``docs/going_live.md``."""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from facturador.authority.soap.app import SimulatorEndpoint, Taxpayer, create_soap_app
from facturador.authority.soap.protocol import BETA_SOL_PASSWORD, BETA_SOL_USER
from facturador.context import CACHE_SECONDS, ServiceContext
from facturador.store.faults import SqlFaultStore
from facturador.store.models import DEFAULT_SETTINGS, TENANTS

__all__ = ["SUNAT_MOUNT", "ServiceTaxpayers", "service_soap_app"]

#: Where ``facturador serve`` mounts the endpoint (``/sunat/ol-ti-itcpfegem-beta/billService``...).
SUNAT_MOUNT = "/sunat"


@dataclass(frozen=True)
class _Account:
    """A tenant of a RUC as the endpoint needs it: its settings and its SOL password (None: unset)."""

    settings: dict[str, Any]
    sol_user: str
    password: str | None


class ServiceTaxpayers:
    """The endpoint's :class:`~facturador.authority.soap.app.Taxpayers`: the service's tenants.

    A user name is the RUC followed by the SOL user. It signs in as a tenant of that RUC whose
    ``sol_user`` it is (letters compared without case, as SOL does) with that tenant's ``sol_password``
    secret; on the beta paths also as ``MODDATOS`` / ``moddatos`` (either case), for any RUC, as SUNAT's
    beta takes them. The simulator then follows that tenant's ``authority_*`` settings (the first tenant
    of the RUC for the beta user; the defaults for a RUC that is no tenant) and ``authority_ose``. The
    tenants of a RUC are read at most every few seconds per process.
    """

    def __init__(self, context: ServiceContext):
        self.context = context
        self._accounts: dict[str, tuple[float, list[_Account]]] = {}

    def accounts(self, ruc: str) -> list[_Account]:
        """The tenants of ``ruc``, oldest first (cached :data:`CACHE_SECONDS`)."""
        cached = self._accounts.get(ruc)
        if cached is not None and time.monotonic() - cached[0] < CACHE_SECONDS:
            return cached[1]
        with self.context.engine.connect() as connection:
            rows = connection.execute(
                select(TENANTS.c.id, TENANTS.c.settings).where(TENANTS.c.ruc == ruc).order_by(TENANTS.c.id)
            ).all()
        accounts = []
        for tenant_id, stored in rows:
            settings = {**DEFAULT_SETTINGS, **(stored or {})}
            sol_user = str(settings.get("sol_user") or "")
            password = self.context.tenant_secret(tenant_id, "sol_password") if sol_user else None
            accounts.append(_Account(settings, sol_user, password))
        self._accounts[ruc] = (time.monotonic(), accounts)
        return accounts

    def sign_in(self, ruc: str, user: str, password: str, *, beta: bool) -> Taxpayer | None:
        """The taxpayer these credentials open (see class doc), or None."""
        accounts = self.accounts(ruc)
        for account in accounts:
            if (
                account.sol_user
                and account.password is not None
                and account.sol_user.upper() == user.upper()
                and hmac.compare_digest(account.password.encode(), password.encode())
            ):
                return self.taxpayer(ruc, account.settings, beta=beta)
        if beta and user.upper() == BETA_SOL_USER and password.lower() == BETA_SOL_PASSWORD:
            return self.taxpayer(ruc, accounts[0].settings if accounts else DEFAULT_SETTINGS, beta=beta)
        return None

    def taxpayer(self, ruc: str, settings: dict[str, Any], *, beta: bool) -> Taxpayer:
        """The taxpayer answered by its simulator, as SUNAT's beta or production path answers."""
        simulator = self.context.simulator(ruc, settings)
        simulator.production = not beta
        return Taxpayer(ruc, simulator, ose=bool(settings.get("authority_ose")))


def service_soap_app(context: ServiceContext, *, ose: bool = False) -> SimulatorEndpoint:
    """The SOAP endpoint of a service (``ose``: every rejection answered with a CDR)."""
    return create_soap_app(ServiceTaxpayers(context), SqlFaultStore(context.db), ose=ose)
