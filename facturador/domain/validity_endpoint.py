"""The validity API simulator on the service's data: SUNAT's memory is the service's authority registry
(``authority_records``: facturas and notes sent one by one, boletas declared or voided in summaries), its
token key sits in the data directory (every worker signs alike) and its rate is
``FACTURADOR_VALIDITY_RATE`` queries a second per client (default 20; 0 for none). See
``docs/validity.md``."""

from __future__ import annotations

import os
import secrets
import threading

from starlette.types import ASGIApp, Receive, Scope, Send

from facturador.authority.validity.simulator import DEFAULT_RATE, ValiditySimulator
from facturador.config import private_directory
from facturador.context import ServiceContext
from facturador.store.registry import SqlRegistry

__all__ = [
    "RATE_VARIABLE",
    "VALIDITY_MOUNT",
    "WithValidity",
    "service_validity_simulator",
    "simulator_rate",
    "standalone_app",
]

#: Where ``facturador serve`` mounts the API (``/validez/v1/contribuyente/contribuyentes/...``).
VALIDITY_MOUNT = "/validez"
RATE_VARIABLE = "FACTURADOR_VALIDITY_RATE"


def simulator_rate() -> float | None:
    """The simulator's rate from :data:`RATE_VARIABLE` (None: unlimited); a bad value is refused."""
    text = os.environ.get(RATE_VARIABLE, "").strip()
    if not text:
        return DEFAULT_RATE
    try:
        rate = float(text)
    except ValueError:
        raise ValueError(f"{RATE_VARIABLE} must be a number of queries a second, not {text!r}") from None
    if rate < 0:
        raise ValueError(f"{RATE_VARIABLE} must not be negative")
    return rate or None


def _token_secret(context: ServiceContext) -> bytes:
    """The token key, created whole or not at all (written aside, then linked into place)."""
    path = private_directory(context.settings.authority_dir) / "validity-token-secret"
    if not path.exists():
        aside = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
        aside.write_bytes(secrets.token_bytes(32))
        aside.chmod(0o600)
        try:
            os.link(aside, path)
        except FileExistsError:  # another worker created it first
            pass
        finally:
            aside.unlink()
    return path.read_bytes()


def service_validity_simulator(
    context: ServiceContext, *, rate: float | None | str = "env"
) -> ValiditySimulator:
    """The simulator of a service (``rate`` "env": read :data:`RATE_VARIABLE`)."""
    return ValiditySimulator(
        SqlRegistry(context.db),
        secret=_token_secret(context),
        rate=simulator_rate() if rate == "env" else rate,  # type: ignore[arg-type]
        clock=context.clock,
    )


class WithValidity:
    """``facturador sunat``'s application: the validity API's paths (``/v1/...``) to ``validity``, the
    rest (SOAP services, WSDLs, lifespan) to ``soap``."""

    def __init__(self, soap: ASGIApp, validity: ASGIApp):
        self.soap = soap
        self.validity = validity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path", "").startswith("/v1/"):
            await self.validity(scope, receive, send)
        else:
            await self.soap(scope, receive, send)


def standalone_app(context: ServiceContext, *, ose: bool = False) -> WithValidity:
    """SUNAT's SOAP services and its validity API, on the service's data (``facturador sunat``)."""
    from facturador.authority.validity.app import create_validity_app
    from facturador.domain.sunat_endpoint import service_soap_app

    return WithValidity(
        service_soap_app(context, ose=ose), create_validity_app(service_validity_simulator(context))
    )
