"""The accountant's portfolio: every company of the tenants file for one month, in one table.

For the chosen month, each company's row says how far its close has gone (register ready, SIRE proposal
compared, differences left, acceptance or replacement sent, preliminary register, month closed), what is
left to do (boletas not declared, facturas without a CDR, validity disagreements with SUNAT, the signing
certificate's days left, what the service stopped doing by itself) and the day SUNAT's cronograma sets for
the month's declaration by the last digit of its RUC (:mod:`sunat.cronograma`). Rows are sorted by that
day, soonest first. A company that cannot be reached (connection refused, wrong token, timeout) keeps its
row, saying so, and the others show; companies are asked concurrently (``workers`` at a time), each
finished row reported to ``progress``.

The SIRE close's progress comes from its own record (:func:`sire_close_record`: what ``facturador sire``
and Registro keep beside the closes file); other sources of it and of the validity sweep's disagreements
are registered (:func:`register_sire_source`, :func:`register_validity_source`) or given
(:class:`Sources`). Where no source knows, the row says «no disponible»; the month closed
(``connector.closes.MonthCloses``, whose ``sire`` source is SIRE's close) is always read.
``docs/portfolio.md`` tells the rules.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from analysis.alerts import facturas_without_cdr, undeclared_boletas
from analysis.register import Period
from analysis.sales import Sale, listed_sales
from connector.closes import MonthClose, MonthCloses
from connector.config import TenantConfig, TenantConfigError, load_tenants
from connector.errors import AuthenticationError, FacturadorError, NotFoundError, TransportError
from connector.sire import SireProgress as SireCloseRecord
from connector.sire import progress_path
from connector.store import closes_path
from sunat.calendar import peru_today
from sunat.cronograma import DueDate, ScheduleError, due_date
from sunat.deadlines import days_past

__all__ = [
    "DEFAULT_WORKERS",
    "NOT_AVAILABLE",
    "CloseState",
    "CompanyRow",
    "Pending",
    "Portfolio",
    "SireProgress",
    "Sources",
    "company_row",
    "portfolio",
    "register_sire_source",
    "sire_close_record",
    "register_validity_source",
]

#: Companies asked at once (each is one list of the month, its certificate and its attention list).
DEFAULT_WORKERS = 4
#: Seconds a company gets per request when the tenants file does not say (a dead host must not hold the
#: page for the connector's 30 s).
DEFAULT_TIMEOUT = 15.0
#: What a row shows where a source has nothing to say yet.
NOT_AVAILABLE = "no disponible"


@dataclass(frozen=True)
class SireProgress:
    """How far a month's close in SIRE has gone, as the SIRE close keeps it (a source gives it):
    the proposal compared with the books (and when), the differences left to explain, what was sent
    (``"aceptación"`` or ``"reemplazo"``, and when) and whether the preliminary register was generated."""

    proposal_compared: bool = False
    differences_left: int | None = None
    sent: str = ""
    sent_at: dt.datetime | None = None
    preliminary: bool = False


class SireSource(Protocol):
    """Gives a company's SIRE progress for a month, or ``None`` when it knows nothing of it."""

    def __call__(self, tenant: TenantConfig, period: Period) -> SireProgress | None: ...


class ValiditySource(Protocol):
    """Gives how many of a month's documents SUNAT's validity check disagrees on, or ``None`` when no
    sweep has run for it."""

    def __call__(self, tenant: TenantConfig, period: Period) -> int | None: ...


_SIRE_SOURCES: list[SireSource] = []
_VALIDITY_SOURCES: list[ValiditySource] = []


def register_sire_source(source: SireSource) -> None:
    """Make ``source`` answer every portfolio's SIRE progress (the SIRE close registers its record)."""
    if source not in _SIRE_SOURCES:
        _SIRE_SOURCES.append(source)


def register_validity_source(source: ValiditySource) -> None:
    """Make ``source`` answer every portfolio's validity disagreements (the validity sweep registers)."""
    if source not in _VALIDITY_SOURCES:
        _VALIDITY_SOURCES.append(source)


def sire_close_record(tenant: TenantConfig, period: Period) -> SireProgress | None:
    """The SIRE close's own record of ``period`` (``facturador sire`` and Registro keep it beside the
    tenant's closes file), or ``None`` when no close was started for it."""
    record = SireCloseRecord(progress_path(closes_path(tenant.base_url))).period(
        f"{period.year:04d}-{period.month:02d}"
    )
    if not record:
        return None
    compared = record.get("comparison") or {}
    decision = record.get("decision") or {}
    sent_at = decision.get("sent_at")
    return SireProgress(
        proposal_compared=bool(compared),
        differences_left=(
            sum(int(compared.get(key) or 0) for key in ("only_in_proposal", "only_ours", "different"))
            if compared
            else None
        ),
        sent=(
            {"accept": "aceptación", "replace": "reemplazo"}.get(decision.get("action", ""), "")
            if decision.get("ticket")
            else ""
        ),
        sent_at=dt.datetime.fromisoformat(sent_at) if sent_at else None,
        preliminary="closed" in record,
    )


@dataclass(frozen=True)
class Sources:
    """The optional sources a portfolio asks (by default, those registered)."""

    sire: tuple[SireSource, ...] = ()
    validity: tuple[ValiditySource, ...] = ()

    @classmethod
    def registered(cls) -> Sources:
        """The sources registered so far."""
        return cls((sire_close_record, *_SIRE_SOURCES), tuple(_VALIDITY_SOURCES))

    def sire_progress(self, tenant: TenantConfig, period: Period) -> SireProgress | None:
        """The first answer of the SIRE sources, or ``None``."""
        for source in self.sire:
            found = source(tenant, period)
            if found is not None:
                return found
        return None

    def disagreements(self, tenant: TenantConfig, period: Period) -> int | None:
        """The first answer of the validity sources, or ``None``."""
        for source in self.validity:
            found = source(tenant, period)
            if found is not None:
                return found
        return None


@dataclass(frozen=True)
class CloseState:
    """How far a company's month has gone towards its close."""

    month_ended: bool
    #: The month has ended and every document of it has SUNAT's answer (no boleta left to declare, no
    #: factura without a CDR): its register will not change.
    register_ready: bool
    closed: MonthClose | None
    #: ``None``: no SIRE source knows this month (not available).
    sire: SireProgress | None

    @property
    def step(self) -> str:
        """The furthest step reached, in Spanish."""
        if self.closed is not None:
            where = "en SIRE" if self.closed.source == "sire" else f"({self.closed.source})"
            return f"Cerrado {where} el {self.closed.closed_at:%d/%m/%Y}"
        sire = self.sire
        if sire is not None and sire.preliminary:
            return "Registro preliminar generado"
        if sire is not None and sire.sent:
            ending = "enviada" if sire.sent.endswith("ión") else "enviado"
            return f"{sire.sent.capitalize()} {ending}"
        if sire is not None and sire.proposal_compared:
            left = sire.differences_left
            return "Propuesta comparada" + (f" ({left} diferencias por explicar)" if left else "")
        if not self.month_ended:
            return "Mes en curso"
        return "Registro listo" if self.register_ready else "Registro pendiente"


@dataclass(frozen=True)
class Pending:
    """What is left to do for the month (``None``: the company does not tell it, or no source knows)."""

    boletas_undeclared: int
    #: Of those, how many are past the 7 days of the daily summary.
    boletas_late: int
    facturas_without_cdr: int
    validity_disagreements: int | None
    certificate_days_left: int | None
    #: Documents and summaries the service stopped handling by itself (this service only).
    needs_a_person: int | None

    @property
    def total(self) -> int:
        """The things to do that are counted (unknowns count 0)."""
        return (
            self.boletas_undeclared
            + self.facturas_without_cdr
            + (self.validity_disagreements or 0)
            + (self.needs_a_person or 0)
        )


@dataclass(frozen=True)
class CompanyRow:
    """One company of the portfolio. ``problem`` is empty when it answered; else ``unreachable``,
    ``unauthorized``, ``not_found``, ``config`` or ``error``, and ``message`` says what to do."""

    slug: str
    name: str
    base_url: str
    ruc: str
    due: DueDate | None
    due_note: str
    documents: int = 0
    close: CloseState | None = None
    pending: Pending | None = None
    problem: str = ""
    message: str = ""
    seconds: float = 0.0

    @property
    def reachable(self) -> bool:
        """Whether the company answered."""
        return not self.problem

    def days_left(self, today: dt.date) -> int | None:
        """Days to the due date (negative past it), or ``None`` when it is not known."""
        return None if self.due is None else self.due.days_left(today)

    def sort_key(self) -> tuple[Any, ...]:
        """What is due first: by due date (unknown last), more to do first, then by name."""
        pending = self.pending.total if self.pending is not None else 0
        return (self.due is None, self.due.date if self.due else dt.date.max, -pending, self.name.lower())


@dataclass(frozen=True)
class Portfolio:
    """Every company's row for ``period``, sorted by what is due first."""

    period: Period
    today: dt.date
    rows: list[CompanyRow]
    seconds: float = 0.0

    @property
    def unreachable(self) -> list[CompanyRow]:
        """The companies that did not answer."""
        return [row for row in self.rows if not row.reachable]

    def table(self) -> list[dict[str, Any]]:
        """One dict per company, Spanish headers (a page's table, the CLI's lines, a DataFrame)."""
        found = []
        for row in self.rows:
            pending = row.pending
            found.append(
                {
                    "Empresa": row.name,
                    "RUC": row.ruc or "—",
                    "Vence": row.due.date if row.due else None,
                    "Días": row.days_left(self.today),
                    "Cierre": row.close.step if row.close else "—",
                    "Boletas sin declarar": pending.boletas_undeclared if pending else None,
                    "Facturas sin CDR": pending.facturas_without_cdr if pending else None,
                    "Diferencias de validez": _known(pending.validity_disagreements) if pending else None,
                    "Certificado (días)": _known(pending.certificate_days_left) if pending else None,
                    "Conexión": "ok" if row.reachable else f"⚠ {row.message}",
                }
            )
        return found

    def lines(self) -> list[str]:
        """The table as text lines (``facturador portfolio``): a header, then a line per company; an
        unreachable company's line says why."""
        out = [
            f"{'Vence':<10}  {'Días':>4}  {'RUC':<11}  {'Empresa':<28}  {'Cierre':<34}  "
            f"{'Bol.':>4}  {'Sin CDR':>7}  {'Validez':>7}  {'Cert.':>5}"
        ]
        for row in self.rows:
            due = f"{row.due.date:%d/%m/%Y}" if row.due else "—"
            days = row.days_left(self.today)
            head = (
                f"{due:<10}  {'' if days is None else days:>4}  {row.ruc or '—':<11}  {row.name[:28]:<28}  "
            )
            if not row.reachable:
                out.append(head + f"⚠ {row.message}")
                continue
            assert row.close is not None and row.pending is not None
            pending = row.pending
            validity = "—" if pending.validity_disagreements is None else pending.validity_disagreements
            cert = "—" if pending.certificate_days_left is None else pending.certificate_days_left
            out.append(
                head + f"{row.close.step[:34]:<34}  {pending.boletas_undeclared:>4}  "
                f"{pending.facturas_without_cdr:>7}  {validity:>7}  {cert:>5}"
            )
            if row.due_note:
                out.append(f"{'':<42}({row.due_note})")
        return out

    def to_frame(self) -> Any:
        """:meth:`table` as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.table())


def _known(value: int | None) -> int | str:
    return NOT_AVAILABLE if value is None else value


def _ruc_of(rows: list[Any]) -> str:
    """The issuer's RUC from a list row's file name (``20100066603-01-F001-1``)."""
    for row in rows[:20]:
        head = str((row.get("filename") if isinstance(row, Mapping) else "") or "").split("-", 1)[0]
        if len(head) == 11 and head.isdigit():
            return head
    return ""


def _due(ruc: str, period: Period, good_taxpayer: bool) -> tuple[DueDate | None, str]:
    if not ruc:
        return None, 'sin RUC: póngalo en el archivo de empresas (ruc = "...")'
    try:
        return due_date(ruc, (period.year, period.month), good_taxpayer=good_taxpayer), ""
    except ScheduleError as exc:
        return None, str(exc)


class _Unanswered(Exception):
    """The company's ping failed: its reason and the sentence for people."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason, self.message = reason, message


def _problem(exc: Exception, tenant: TenantConfig) -> tuple[str, str]:
    if isinstance(exc, _Unanswered):
        return exc.reason, exc.message
    if isinstance(exc, TransportError):
        return "unreachable", f"No responde en {tenant.base_url}: {exc.message}"
    if isinstance(exc, AuthenticationError):
        return "unauthorized", f"El token no es válido (HTTP {exc.status}): revise el token de {tenant.slug}."
    if isinstance(exc, NotFoundError):
        return "not_found", f"No se encontró la empresa en {tenant.base_url} (HTTP 404): revise la URL base."
    if isinstance(exc, TenantConfigError):
        return "config", str(exc)
    if isinstance(exc, FacturadorError):
        return "error", f"El servicio respondió con error: {exc}"
    return "error", f"{type(exc).__name__}: {exc}"


def company_row(
    tenant: TenantConfig,
    period: Period | str | dt.date,
    *,
    today: dt.date | None = None,
    sources: Sources | None = None,
    timeout: float | None = None,
) -> CompanyRow:
    """One company's row for ``period`` (never raises for a company that cannot be reached: the row says
    so). ``timeout``: seconds per request (default: the tenants file's, else :data:`DEFAULT_TIMEOUT`)."""
    month = Period.of(period)
    today = today or peru_today()
    sources = sources if sources is not None else Sources.registered()
    started = time.perf_counter()
    ruc = tenant.ruc or ""
    try:
        seconds = timeout if timeout is not None else (tenant.timeout or DEFAULT_TIMEOUT)
        with tenant.client(cache=False, timeout=seconds) as client:
            status = client.ping()  # one bounded request, no retries: a dead host costs one timeout
            if not status.ok:
                raise _Unanswered(status.reason, status.message)
            listed = client.documents.list(month.start, month.end, fresh=True)
            sales: list[Sale] = [sale for sale in listed_sales(listed) if month.contains(sale.date)]
            ruc = ruc or _ruc_of(listed.rows)
            certificate = client.company.certificate()
            attention = client.company.attention()
    except (FacturadorError, TenantConfigError, _Unanswered) as exc:
        due, note = _due(ruc, month, tenant.good_taxpayer)
        problem, message = _problem(exc, tenant)
        return CompanyRow(
            tenant.slug,
            tenant.name,
            tenant.base_url,
            ruc,
            due,
            note,
            problem=problem,
            message=message,
            seconds=time.perf_counter() - started,
        )
    pending_days = undeclared_boletas(sales, today)
    boletas = sum(day.documents for day in pending_days)
    late = sum(day.documents for day in pending_days if days_past(day.deadline, today))
    without_cdr = facturas_without_cdr(sales, today).count
    ended = today > month.end
    close = CloseState(
        month_ended=ended,
        register_ready=ended and boletas == 0 and without_cdr == 0,
        closed=MonthCloses(closes_path(tenant.base_url)).record((month.year, month.month)),
        sire=sources.sire_progress(tenant, month),
    )
    pending = Pending(
        boletas_undeclared=boletas,
        boletas_late=late,
        facturas_without_cdr=without_cdr,
        validity_disagreements=sources.disagreements(tenant, month),
        certificate_days_left=certificate.days_left if certificate is not None else None,
        needs_a_person=len(attention) if attention is not None else None,
    )
    due, note = _due(ruc, month, tenant.good_taxpayer)
    return CompanyRow(
        tenant.slug,
        tenant.name,
        tenant.base_url,
        ruc,
        due,
        note,
        documents=len(sales),
        close=close,
        pending=pending,
        seconds=time.perf_counter() - started,
    )


Progress = Callable[[int, int, CompanyRow], None]


def portfolio(
    period: Period | str | dt.date,
    tenants: Mapping[str, TenantConfig] | Iterable[TenantConfig] | str | Path | None = None,
    *,
    today: dt.date | None = None,
    workers: int = DEFAULT_WORKERS,
    progress: Progress | None = None,
    sources: Sources | None = None,
    timeout: float | None = None,
) -> Portfolio:
    """Every company's row for ``period`` (``"2026-11"``), sorted by what is due first.

    :param tenants: the tenants (a mapping or an iterable of :class:`~connector.config.TenantConfig`), or
        the path of a tenants file; by default the tenants file (:func:`connector.config.load_tenants`).
    :param workers: companies asked at once (at least 1).
    :param progress: called as each company's row is made: ``(done, total, row)``.
    :param today: the day deadlines are read on (default: Lima's today).
    """
    month = Period.of(period)
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if tenants is None or isinstance(tenants, str | Path):
        tenants = load_tenants(tenants)
    chosen = list(tenants.values()) if isinstance(tenants, Mapping) else list(tenants)
    today = today or peru_today()
    sources = sources if sources is not None else Sources.registered()
    started = time.perf_counter()
    rows: list[CompanyRow] = []
    if chosen:
        with ThreadPoolExecutor(
            max_workers=min(workers, len(chosen)), thread_name_prefix="portfolio"
        ) as pool:
            futures = [
                pool.submit(company_row, tenant, month, today=today, sources=sources, timeout=timeout)
                for tenant in chosen
            ]
            for future in as_completed(futures):
                rows.append(future.result())
                if progress is not None:
                    progress(len(rows), len(chosen), rows[-1])
    rows.sort(key=CompanyRow.sort_key)
    return Portfolio(month, today, rows, time.perf_counter() - started)
