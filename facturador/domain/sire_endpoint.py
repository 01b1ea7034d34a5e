"""The SIRE RVIE simulator on the service's data: its proposal is what the service holds for the RUC
(every factura, boleta and note of the RUC's tenants that SUNAT accepted, observed or voided), its users the
tenants' SOL users (and ``<RUC>MODDATOS`` / ``MODDATOS``), its mismatches those written in
``<data>/authority/sire-mismatches.json`` (see :func:`mismatches_file`, ``docs/sire.md``).

The simulator keeps its tickets and imports in the memory of one process (``facturador serve`` with
several workers would each have their own): it simulates one close at a time, not a fleet.
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
import threading
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import and_, select
from starlette.types import ASGIApp, Receive, Scope, Send

from facturador.authority.gre.simulator import TokenError
from facturador.authority.sire.app import create_sire_app
from facturador.authority.sire.simulator import (
    SIMULATOR_CLIENT_ID,
    SIMULATOR_CLIENT_SECRET,
    Mismatch,
    SireSimulator,
)
from facturador.config import private_directory
from facturador.context import ServiceContext
from facturador.domain.sunat_endpoint import ServiceTaxpayers
from facturador.store.models import DOCUMENTS, TENANTS

__all__ = ["SIRE_MOUNT", "SireMount", "mismatches_file", "service_sire_app", "service_sire_simulator"]

#: Where ``facturador serve`` and ``facturador sunat`` serve the SIRE API.
SIRE_MOUNT = "/sire"
#: Document states SUNAT knows: accepted, observed, voided, voiding asked.
KNOWN_STATES = ("05", "07", "11", "13")
VOIDED = "11"
ZERO = Decimal("0.00")


def mismatches_file(context: ServiceContext) -> Path:
    """``{"<RUC>": {"<YYYYMM>" or "*": {extra, missing, totals, throttle, down, reject_imports}}}``."""
    return context.settings.authority_dir / "sire-mismatches.json"


class _Credentials:
    """The simulator's client id/secret, then a tenant's SOL user (or the beta user) of that RUC."""

    def __init__(self, context: ServiceContext) -> None:
        self.taxpayers = ServiceTaxpayers(context)

    def authenticate(self, client_id: str, client_secret: str, username: str, password: str) -> str:
        if client_id != SIMULATOR_CLIENT_ID or not secrets.compare_digest(
            client_secret.encode(), SIMULATOR_CLIENT_SECRET.encode()
        ):
            raise TokenError(401, "invalid_client", "cliente no autorizado")
        ruc, user = username[:11], username[11:]
        if not user or self.taxpayers.sign_in(ruc, user, password, beta=True) is None:
            raise TokenError(400, "invalid_grant", "Usuario o contraseña incorrectos")
        return ruc


class _Mismatches:
    """The mismatches file, read again when it changes; the counters (throttle, down) live in memory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: float | None = None
        self._found: dict[tuple[str, str], Mismatch] = {}
        self._lock = threading.Lock()

    def __call__(self, ruc: str, period: str) -> Mismatch | None:
        with self._lock:
            try:
                stamp = self.path.stat().st_mtime_ns
            except FileNotFoundError:
                self._stamp, self._found = None, {}
                return None
            if stamp != self._stamp:
                try:
                    data = orjson.loads(self.path.read_bytes())
                    self._found = {
                        (str(r), str(p)): Mismatch.of(value)
                        for r, periods in data.items()
                        for p, value in periods.items()
                    }
                except (orjson.JSONDecodeError, AttributeError, TypeError, ValueError):
                    self._found = {}  # a file being written: no mismatch until it is whole
                self._stamp = stamp
            return self._found.get((ruc, period))


def _amount(value: Any, rate: Decimal | None, sign: int) -> Decimal:
    amount = Decimal(value or 0)
    if rate is not None:
        amount = (amount * rate).quantize(Decimal("0.01"))
    return amount * sign


def _text(value: Decimal) -> str:
    return "0.00" if not value else f"{value.quantize(Decimal('0.01')):f}"


def document_rows(context: ServiceContext) -> Callable[[str, str], list[list[str]]]:
    """``source(ruc, period)`` of the simulator: the Anexo-3 rows of what SUNAT received (see module doc)."""
    affected = DOCUMENTS.alias("affected")

    def source(ruc: str, period: str) -> list[list[str]]:
        year, month = int(period[:4]), int(period[4:])
        first = dt.date(year, month, 1)
        after = dt.date(year + month // 12, month % 12 + 1, 1)
        d = DOCUMENTS.c
        query = (
            select(
                TENANTS.c.name,
                d.date_of_issue,
                d.document_type_id,
                d.series,
                d.number,
                d.customer_identity_type,
                d.customer_number,
                d.customer_name,
                d.currency_type_id,
                d.exchange_rate_sale,
                d.total_exportation,
                d.total_taxed,
                d.total_igv,
                d.total_exonerated,
                d.total_unaffected,
                d.total_plastic_bag_taxes,
                d.total,
                d.state_type_id,
                d.affected_document,
                affected.c.date_of_issue.label("affected_date"),
            )
            .select_from(
                DOCUMENTS.join(TENANTS, TENANTS.c.id == d.tenant_id).outerjoin(
                    affected, affected.c.id == d.affected_document_id
                )
            )
            .where(
                and_(
                    TENANTS.c.ruc == ruc,
                    d.date_of_issue >= first,
                    d.date_of_issue < after,
                    d.state_type_id.in_(KNOWN_STATES),
                    d.document_type_id.in_(("01", "03", "07", "08")),
                )
            )
            .order_by(d.date_of_issue, d.document_type_id, d.series, d.number)
        )
        with context.engine.connect() as connection:
            found = connection.execute(query).all()
        rows = []
        for r in found:
            sign = -1 if r.document_type_id == "07" else 1
            rate = Decimal(r.exchange_rate_sale) if r.currency_type_id != "PEN" else None
            kind, number = (r.customer_identity_type or "").strip(), (r.customer_number or "").strip()
            if kind == "-" or number in ("", "-"):
                kind, number = "", ""
            ref = r.affected_document or {}
            reference = ["", "", "", ""]
            if r.document_type_id in ("07", "08") and ref:
                when = r.affected_date
                reference = [
                    f"{when:%d/%m/%Y}" if when else "",
                    str(ref.get("document_type_id") or ""),
                    str(ref.get("series") or ""),
                    str(int(ref["number"]))
                    if str(ref.get("number") or "").isdigit()
                    else str(ref.get("number") or ""),
                ]
            money = [ZERO] * 13
            if r.state_type_id != VOIDED:
                export, taxed, igv, exonerated, unaffected, icbper = (
                    _amount(v, rate, sign)
                    for v in (
                        r.total_exportation,
                        r.total_taxed,
                        r.total_igv,
                        r.total_exonerated,
                        r.total_unaffected,
                        r.total_plastic_bag_taxes,
                    )
                )
                total_raw = Decimal(r.total or 0) - sum(
                    Decimal(v or 0)
                    for v in (
                        r.total_exportation,
                        r.total_taxed,
                        r.total_igv,
                        r.total_exonerated,
                        r.total_unaffected,
                        r.total_plastic_bag_taxes,
                    )
                )
                other = _amount(total_raw, rate, sign)
                total = export + taxed + igv + exonerated + unaffected + icbper + other
                earlier = sign == -1 and r.affected_date is not None and r.affected_date < first
                if earlier:  # a credit note on an earlier month's document: the discount columns
                    money = [
                        export,
                        ZERO,
                        taxed,
                        ZERO,
                        igv,
                        exonerated,
                        unaffected,
                        ZERO,
                        ZERO,
                        ZERO,
                        icbper,
                        other,
                        total,
                    ]
                else:
                    money = [
                        export,
                        taxed,
                        ZERO,
                        igv,
                        ZERO,
                        exonerated,
                        unaffected,
                        ZERO,
                        ZERO,
                        ZERO,
                        icbper,
                        other,
                        total,
                    ]
            rows.append(
                [
                    ruc,
                    r.name or "",
                    period,
                    "",
                    f"{r.date_of_issue:%d/%m/%Y}",
                    "",
                    r.document_type_id,
                    r.series,
                    str(r.number),
                    "",
                    kind,
                    number,
                    r.customer_name or "",
                    *(_text(m) for m in money),
                    r.currency_type_id or "PEN",
                    f"{rate.quantize(Decimal('0.001')):f}" if rate is not None else "",
                    *reference,
                    "",
                ]
            )
        return rows

    return source


def _token_secret(context: ServiceContext) -> bytes:
    """The SIRE simulator's token key, in the data directory (tokens survive a restart)."""
    path = private_directory(context.settings.authority_dir) / "sire-token-secret"
    if not path.exists():
        aside = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
        aside.write_bytes(secrets.token_bytes(32))
        aside.chmod(0o600)
        try:
            os.link(aside, path)
        except FileExistsError:
            pass
        finally:
            aside.unlink()
    return path.read_bytes()


def service_sire_simulator(context: ServiceContext) -> SireSimulator:
    """The SIRE simulator of a service (see module doc), timed by the context's ``clock`` and ``today``;
    tickets stay «En proceso» for the ``FACTURADOR_SIRE_TICKET_DELAY`` seconds (1 by default)."""
    return SireSimulator(
        document_rows(context),
        _Credentials(context),
        mismatches=_Mismatches(mismatches_file(context)),
        secret=_token_secret(context),
        ticket_delay=float(os.environ.get("FACTURADOR_SIRE_TICKET_DELAY", "1")),
        clock=context.clock,
        today=context.today,
        state=context.settings.authority_dir / "sire-state.json",  # shared by the service's workers
    )


def service_sire_app(context: ServiceContext) -> ASGIApp:
    """The SIRE API of a service, as an ASGI application."""
    return create_sire_app(service_sire_simulator(context))


class SireMount:
    """Serve ``sire`` at :data:`SIRE_MOUNT` in front of ``app`` (``facturador sunat``'s SOAP endpoint)."""

    def __init__(self, app: ASGIApp, sire: ASGIApp) -> None:
        self.app = app
        self.sire = sire

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == SIRE_MOUNT or path.startswith(SIRE_MOUNT + "/")):
            scope = {**scope, "root_path": scope.get("root_path", "") + SIRE_MOUNT}
            await self.sire(scope, receive, send)
        else:
            await self.app(scope, receive, send)
