"""Endpoints for load balancers, orchestrators and Prometheus: liveness (``/health``, ``/livez``: the
process answers; no database), readiness (``/ready``, ``/readyz``: the database answers and its schema is
at the migrations' head; 503 with the reason otherwise) and ``/metrics``.

Metrics come from two places. Requests (by route template and status, with latency histograms) are
counted in the process that served them; with several worker processes (``--workers N``) each writes them
to ``PROMETHEUS_MULTIPROC_DIR`` (``facturador serve`` sets it) and a scrape adds every process up. What
the service owes (documents by state, pending sends, tickets, jobs, SUNAT's answers) is read from the
database at each scrape: it is the truth every node and process shares, so every node reports the same
figures (aggregate them across nodes with ``max``, not ``sum``)."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import time
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from facturador.context import ServiceContext
from facturador.store.db import UNAVAILABLE
from facturador.store.jobs import JobQueue
from facturador.store.operations import head_revision, known_revisions, lima_today, owed, schema_revision

router = APIRouter(include_in_schema=False)

#: Where each worker process writes its request metrics, for a scrape to add them up.
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

#: The request metrics of this process (or, in multiprocess mode, of every process through the files).
REQUESTS_REGISTRY = CollectorRegistry(auto_describe=True)
REQUESTS = Counter(
    "facturador_http_requests",
    "HTTP requests answered, by method, route template and status.",
    ("method", "route", "status"),
    registry=REQUESTS_REGISTRY,
)
LATENCY = Histogram(
    "facturador_http_request_duration_seconds",
    "Seconds from a request's arrival to the end of its answer, by method and route template.",
    ("method", "route"),
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 180),
    registry=REQUESTS_REGISTRY,
)


@router.get("/health")
@router.get("/livez")
def live() -> dict[str, Any]:
    """Liveness: the process answers (the database is not asked: a database outage is no reason to
    restart a node)."""
    return {"success": True, "status": "alive"}


@router.get("/ready")
@router.get("/readyz")
def ready(request: Request) -> JSONResponse:
    """Readiness: 200 when the database answers and its schema is at the migrations' head, or past it (a
    newer release migrated it, during a rolling upgrade: its migrations keep this release working), else
    503 with the reason (take the node out of rotation until it is ready again)."""
    context: ServiceContext = request.app.state.context
    head = head_revision()
    try:
        current = schema_revision(context.engine)
    except UNAVAILABLE as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return _not_ready("DATABASE_UNAVAILABLE", f"the database does not answer: {reason}", head, None)
    if current != head and (current is None or current in known_revisions()):  # behind this release's
        return _not_ready(
            "SCHEMA_NOT_AT_HEAD",
            f"the schema is at revision {current or 'none'}, the migrations' head is {head}: "
            "run `facturador migrate`",
            head,
            current,
        )
    return JSONResponse({"success": True, "status": "ready", "database": "ok", "schema": current})


def _not_ready(code: str, reason: str, head: str, current: str | None) -> JSONResponse:
    return JSONResponse(
        {
            "success": False,
            "status": "not ready",
            "error_code": code,
            "message": reason,
            "schema": current,
            "head": head,
        },
        status_code=503,
    )


@router.get("/metrics")
def metrics(request: Request) -> Response:
    """The Prometheus exposition of the request metrics and of what the service owes."""
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get(MULTIPROC_ENV):
        MultiProcessCollector(registry)
    else:
        registry.register(_Requests())
    registry.register(OwedCollector(request.app.state.context))
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


class _Requests:
    """This process's request metrics, for a scrape's registry."""

    def collect(self) -> Iterator[Metric]:
        yield from REQUESTS_REGISTRY.collect()


class OwedCollector:
    """Gauges read from the database at each scrape (see the module's docstring)."""

    def __init__(self, context: ServiceContext):
        self.context = context

    def collect(self) -> Iterator[Metric]:
        now = dt.datetime.fromtimestamp(self.context.clock(), dt.UTC).replace(tzinfo=None)
        up = GaugeMetricFamily("facturador_database_up", "1 when the database answered this scrape.")
        try:
            found = owed(self.context.db, now, counts=True)
        except UNAVAILABLE:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        expiries = CounterMetricFamily(
            "facturador_job_lease_expiries",
            "Jobs taken again because their worker's lease ran out (it died or hung), by kind.",
            labels=("kind",),
        )
        with contextlib.suppress(*UNAVAILABLE):
            for kind, count in sorted(JobQueue(self.context.db).lease_expiries().items()):
                expiries.add_metric([kind], count)
        yield expiries
        documents = GaugeMetricFamily(
            "facturador_documents", "Documents by type and state.", labels=("document_type", "state")
        )
        for (kind, state), count in sorted(found.by_state.items()):
            documents.add_metric([kind, state], count)
        yield documents
        yield _gauge(
            "facturador_pending_documents", "Documents registered and owed to SUNAT.", len(found.documents)
        )
        yield _gauge(
            "facturador_pending_oldest_age_seconds",
            "Seconds since the oldest pending document was issued (0: none pending).",
            _age(now, [document.created_at for document in found.documents]),
        )
        yield _gauge(
            "facturador_pending_past_deadline",
            "Pending documents past SUNAT's sending deadline (their issue date plus its days, Lima).",
            len(found.past_deadline(lima_today(now))),
        )
        yield _gauge(
            "facturador_tickets_owed", "Tickets of summaries SUNAT has not answered.", len(found.tickets)
        )
        yield _gauge(
            "facturador_ticket_oldest_age_seconds",
            "Seconds since the oldest owed ticket's summary was sent (0: none owed).",
            _age(now, [ticket.created_at for ticket in found.tickets]),
        )
        jobs = GaugeMetricFamily(
            "facturador_jobs",
            "Background jobs by kind and state (queued, leased, expired).",
            labels=("kind", "state"),
        )
        for kind, counts in sorted(found.jobs.items()):
            for state, count in counts.items():
                jobs.add_metric([kind, state], count)
        yield jobs
        answers = GaugeMetricFamily(
            "facturador_sunat_answers", "Documents by the code of SUNAT's last answer.", labels=("code",)
        )
        for code, count in sorted(found.answers.items()):
            answers.add_metric([code], count)
        yield answers


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    gauge = GaugeMetricFamily(name, documentation)
    gauge.add_metric([], value)
    return gauge


def _age(now: dt.datetime, moments: list[dt.datetime]) -> float:
    return max((now - min(moments)).total_seconds(), 0.0) if moments else 0.0


class RequestMetrics:
    """Count each HTTP request by method, route template (never the raw path: no tokens, slugs or ids in
    a label) and status, and time it.

    The labelled children are kept per label set: ``labels()`` locks, checks and hashes its values at
    each call, which was half of the metrics' cost per request (16 of 32 µs in multiprocess mode)."""

    def __init__(self, app: ASGIApp):
        self.app = app
        self._counters: dict[tuple[str, str, int], Any] = {}
        self._timers: dict[tuple[str, str], Any] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            elapsed = time.perf_counter() - started
            route = route_template(scope)
            method = scope.get("method", "")
            key = (method, route, status)
            counter = self._counters.get(key)
            if counter is None:  # the label sets are bounded: route templates, methods and statuses
                counter = self._counters[key] = REQUESTS.labels(method, route, str(status))
            timer = self._timers.get((method, route))
            if timer is None:
                timer = self._timers[(method, route)] = LATENCY.labels(method, route)
            counter.inc()
            timer.observe(elapsed)


def route_template(scope: Scope) -> str:
    """The template of the route that served ``scope`` (``/api/documents/{external_id}``), prefixed with
    ``/t/{slug}`` when the tenant was named in the path; ``unmatched`` when no route took it."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if not isinstance(path, str):
        return "unmatched"
    return ("/t/{slug}" if scope.get("root_path", "").startswith("/t/") else "") + path
