"""The service's own validity sweep, scheduled through the job queue when a tenant asks for it
(``validity_sweep_day``, ``docs/validity.md``).

From that day of each month (Lima) the background worker sweeps the month before: a job of kind
:data:`VALIDATE` per tenant owing one, each job asking at most :data:`SLICE` documents (at the tenant's
``validity_sweep_rate``) so that sends and ticket polls are not held up; the progress file makes the next
job continue. SUNAT answers with the tenant's credentials (``validity_client_id`` and the secret
``validity_client_secret``); a tenant on the built-in simulator without them is answered by the simulator
in process; any other tenant is not swept (its report says why). The report
(``<data>/validity/<slug>-<period>.report.json``) feeds ``GET /api/company/attention``: every
disagreement whose document still has the state the sweep saw, and a sweep that stopped (bad
credentials...), for a person to settle (``facturador validate SLUG PERIOD --apply`` sets SUNAT's states
with a motivo).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import select

from facturador.authority.validity.simulator import ValiditySimulator
from facturador.context import ServiceContext
from facturador.store.models import DEFAULT_SETTINGS, DOCUMENTS, TENANTS
from facturador.store.registry import SqlRegistry
from sunat.validity import SUNAT_API_URL, SUNAT_TOKEN_URL, ValidityAnswer, ValidityQuery
from sunat.validity_client import ValidityClient, ValidityEndpoint
from sunat.validity_sweep import (
    CONDITIONS,
    DEFAULT_RATE,
    SweepReport,
    corrective_summary,
    month_bounds,
    run_sweep,
)

__all__ = [
    "SLICE",
    "VALIDATE",
    "period_due",
    "report_path",
    "run_scheduled_sweep",
    "tenants_owing_sweeps",
    "validity_attention",
]

log = logging.getLogger(__name__)

#: The job kind.
VALIDATE = "validate"
#: Documents asked per job (30 s at 2 a second); the next job continues.
SLICE = 60
#: Seconds before a sweep that stopped (credentials, SUNAT down, throttled) is tried again.
RETRY_SECONDS = 3600


@dataclass(frozen=True)
class BookRecord:
    """A document of the service's books as the sweep reads it."""

    external_id: str
    series: str
    correlative: int | None
    document_type_id: str
    date_of_issue: dt.date | None
    total: Decimal
    state_type_id: str

    @property
    def number(self) -> str:
        return f"{self.series}-{self.correlative}"


class InProcessSimulator:
    """The service's simulator answering in process (no HTTP, no rate): an asker for tenants on it."""

    def __init__(self, simulator: ValiditySimulator):
        self.simulator = simulator

    def check(self, query: ValidityQuery) -> ValidityAnswer:
        return self.simulator.answer(query)


def validity_dir(context: ServiceContext) -> Path:
    return Path(context.settings.data_dir) / "validity"


def report_path(context: ServiceContext, slug: str, period: str) -> Path:
    """Where a tenant's sweep of ``period`` keeps its report (its progress beside it, ``.jsonl``)."""
    return validity_dir(context) / f"{slug}-{period}.report.json"


def period_due(settings: dict[str, Any] | None, today: dt.date) -> str | None:
    """The month a tenant of these settings has swept on ``today`` (the month before, from its
    ``validity_sweep_day``), or None."""
    day = int((settings or {}).get("validity_sweep_day") or 0)
    if not 1 <= day <= 28 or today.day < day:
        return None
    return (today.replace(day=1) - dt.timedelta(days=1)).strftime("%Y-%m")


def _read_report(path: Path) -> dict[str, Any] | None:
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return body if isinstance(body, dict) else None


def tenants_owing_sweeps(
    context: ServiceContext, today: dt.date | None = None, now: float | None = None
) -> list[int]:
    """Ids of the tenants whose sweep of the month before is due and not finished (nor waiting to be
    tried again after it stopped)."""
    day = today or context.today()
    moment = time.time() if now is None else now
    with context.engine.connect() as connection:
        rows = connection.execute(select(TENANTS.c.id, TENANTS.c.slug, TENANTS.c.settings)).all()
    owing = []
    for row in rows:
        period = period_due(row.settings, day)
        if period is None:
            continue
        report = _read_report(report_path(context, row.slug, period))
        if report is None or (not report.get("complete") and float(report.get("next_try") or 0) <= moment):
            owing.append(row.id)
    return owing


def _books(context: ServiceContext, tenant_id: int, period: str) -> list[BookRecord]:
    first, last = month_bounds(period)
    columns = (
        DOCUMENTS.c.external_id,
        DOCUMENTS.c.series,
        DOCUMENTS.c.number,
        DOCUMENTS.c.document_type_id,
        DOCUMENTS.c.date_of_issue,
        DOCUMENTS.c.total,
        DOCUMENTS.c.state_type_id,
    )
    with context.engine.connect() as connection:
        rows = connection.execute(
            select(*columns)
            .where(
                DOCUMENTS.c.tenant_id == tenant_id,
                DOCUMENTS.c.date_of_issue >= first,
                DOCUMENTS.c.date_of_issue <= last,
            )
            .order_by(DOCUMENTS.c.date_of_issue, DOCUMENTS.c.id)
        ).all()
    return [BookRecord(*row) for row in rows]


def validity_asker(context: ServiceContext, tenant_id: int, ruc: str, settings: dict[str, Any]) -> Any:
    """SUNAT with the tenant's credentials, the simulator in process, or None (see module doc)."""
    client_id = str(settings.get("validity_client_id") or "")
    if client_id:
        secret = context.tenant_secret(tenant_id, "validity_client_secret") or ""
        api = str(settings.get("validity_api_url") or SUNAT_API_URL)
        token = str(settings.get("validity_token_url") or settings.get("validity_api_url") or SUNAT_TOKEN_URL)
        return ValidityClient(ValidityEndpoint(token, api, client_id, secret, ruc))
    if settings.get("sunat_sending", "simulator") == "simulator":
        return InProcessSimulator(ValiditySimulator(SqlRegistry(context.db), rate=None))
    return None


def run_scheduled_sweep(
    context: ServiceContext,
    tenant_id: int,
    *,
    today: dt.date | None = None,
    sleep: Callable[[float], None] = time.sleep,
    slice_size: int = SLICE,
) -> SweepReport | None:
    """One job: the next slice of the tenant's due sweep; its report written. None when none is due."""
    with context.engine.connect() as connection:
        row = connection.execute(
            select(TENANTS.c.slug, TENANTS.c.ruc, TENANTS.c.settings).where(TENANTS.c.id == tenant_id)
        ).first()
    if row is None:
        return None
    settings = {**DEFAULT_SETTINGS, **(row.settings or {})}
    period = period_due(settings, today or context.today())
    if period is None:
        return None
    path = report_path(context, row.slug, period)
    path.parent.mkdir(parents=True, exist_ok=True)
    asker = validity_asker(context, tenant_id, row.ruc, settings)
    if asker is None:
        report = SweepReport(period, 0, 0, 0, 0, 0.0, stopped_by="sin credenciales de la API de validez")
    else:
        rate = float(settings.get("validity_sweep_rate") or 0) or DEFAULT_RATE
        report = run_sweep(
            _books(context, tenant_id, period),
            asker,
            row.ruc,
            period,
            progress=path.with_suffix("").with_suffix(".jsonl"),
            rate=rate,
            sleep=sleep,
            stop_after=slice_size,
        )
        if isinstance(asker, ValidityClient):
            asker.close()
    stopped = report.stopped_by and report.stopped_by != "stop_after"
    body = {
        "period": period,
        "complete": report.complete,
        "checked": report.checked,
        "total": report.total,
        "stopped_by": report.stopped_by if stopped else "",
        "next_try": time.time() + RETRY_SECONDS if stopped else 0,
        "updated_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "disagreements": [_jsonable(dataclasses.asdict(d)) for d in report.disagreements],
        "corrective": [
            _jsonable(dataclasses.asdict(line)) for line in corrective_summary(report.disagreements)
        ],
    }
    aside = path.with_name(f".{path.name}.{os.getpid()}")
    aside.write_text(json.dumps(body, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(aside, path)
    log.info("validity sweep of %s %s: %s/%s checked", row.slug, period, report.checked, report.total)
    return report


def _jsonable(values: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (v.isoformat() if isinstance(v, dt.date) else list(v) if isinstance(v, tuple) else v)
        for k, v in values.items()
    }


def validity_attention(context: ServiceContext, tenant_id: int) -> list[dict[str, Any]]:
    """Attention items of the tenant's sweep reports: each disagreement whose document still has the
    state the sweep saw, and each sweep that stopped."""
    with context.engine.connect() as connection:
        slug = connection.execute(select(TENANTS.c.slug).where(TENANTS.c.id == tenant_id)).scalar()
        if slug is None or not validity_dir(context).is_dir():
            return []
        reports = [
            (path, body)
            for path in sorted(validity_dir(context).glob(f"{slug}-*.report.json"))
            if path.name[len(slug) + 1 : -len(".report.json")].count("-") == 1
            and (body := _read_report(path)) is not None
        ]
        items: list[dict[str, Any]] = []
        for _path, body in reports:
            period = str(body.get("period") or "")
            if body.get("stopped_by"):
                items.append(
                    {
                        "kind": "validity",
                        "reference": f"validez {period}",
                        "date": f"{period}-01",
                        "code": "",
                        "reason": f"El barrido de validez se detuvo: {body['stopped_by']}",
                    }
                )
            found = [d for d in body.get("disagreements") or [] if isinstance(d, dict)]
            if not found:
                continue
            current = dict(
                connection.execute(
                    select(DOCUMENTS.c.external_id, DOCUMENTS.c.state_type_id).where(
                        DOCUMENTS.c.tenant_id == tenant_id,
                        DOCUMENTS.c.external_id.in_([str(d.get("external_id")) for d in found]),
                    )
                ).all()
            )
            corrective = {
                str(line.get("external_id")): str(line.get("condition"))
                for line in body.get("corrective") or []
                if isinstance(line, dict)
            }
            for d in found:
                if current.get(str(d.get("external_id"))) != d.get("local_state"):
                    continue  # settled since
                condition = corrective.get(str(d.get("external_id")))
                summary = (
                    f"; va en el resumen diario corrector con condición {condition} "
                    f"({CONDITIONS.get(condition, condition)})"
                    if condition
                    else ""
                )
                items.append(
                    {
                        "kind": "validity",
                        "reference": str(d.get("number")),
                        "date": str(d.get("date_of_issue") or f"{period}-01"),
                        "code": str(d.get("sunat_state")),
                        "reason": (
                            f"SUNAT: {d.get('verdict')}; libros: {d.get('local_state')}; propuesto "
                            f"{d.get('proposed_state')}{summary} "
                            f"(facturador validate {slug} {period} --apply)"
                        ),
                    }
                )
    return items
