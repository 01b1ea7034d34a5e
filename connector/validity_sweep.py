"""The analyst's sweep of a tenant's month at SUNAT's validity API (``docs/validity.md``): the documents
come from the tenant's API (this service or a real one), the answers from SUNAT (or the simulator), and
SUNAT's states go back through the hand-set-state route with a ``motivo``.

    from connector.validity import ValidityClient, ValidityEndpoint
    from connector.validity_sweep import apply, render, sweep
    with ValidityClient(endpoint) as validity:
        report = sweep(client, validity, "2026-11", progress="sweep-2026-11.jsonl")
    print(render(report))
    apply(client, report)   # each state set through updatedocumentstatus, with its motivo

The engine (pace, progress, disagreements, corrective summary) is :mod:`sunat.validity_sweep`.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable
from typing import Any

from sunat.validity_client import ValidityClient
from sunat.validity_sweep import (
    DEFAULT_RATE,
    CorrectiveLine,
    Disagreement,
    SweepReport,
    corrective_summary,
    month_bounds,
    motivo,
    render,
    run_sweep,
)

__all__ = [
    "DEFAULT_RATE",
    "CorrectiveLine",
    "Disagreement",
    "SweepReport",
    "apply",
    "corrective_summary",
    "month_bounds",
    "render",
    "sweep",
]


def sweep(
    client: Any,
    validity: ValidityClient,
    period: str,
    *,
    progress: str | os.PathLike[str],
    rate: float = DEFAULT_RATE,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    stop_after: int | None = None,
    on_answer: Callable[[int, int], None] | None = None,
) -> SweepReport:
    """Sweep ``period`` (YYYY-MM) of the tenant ``client`` (a :class:`connector.Client`) with ``validity``
    (its endpoint's RUC is the issuer's): see :func:`sunat.validity_sweep.run_sweep`. The summaries the
    service stopped asking about (``GET /api/company/attention``) are named in the report."""
    first, last = month_bounds(period)
    records = list(client.documents.list(first, last, fresh=True))
    items = client.company.attention()
    lost = [f"{i.reference} ({i.code})" for i in items or [] if i.kind == "summary"]
    return run_sweep(
        records,
        validity,
        validity.endpoint.ruc,
        period,
        progress=progress,
        rate=rate,
        clock=clock,
        sleep=sleep,
        stop_after=stop_after,
        on_answer=on_answer,
        lost_summaries=lost,
    )


def apply(client: Any, report: SweepReport, *, today: dt.date | None = None) -> list[Disagreement]:
    """Set each disagreeing document's state to SUNAT's (``POST /api/documents/updatedocumentstatus``
    with a ``motivo``: the service keeps it in the document's audit record). Boletas that go in the
    corrective summary are set to 01 (registered), so the next daily summary declares them; a voiding
    SUNAT never took leaves the boleta 05 to be voided again. Returns what was set."""
    from sunat.calendar import peru_today

    day = today or peru_today()
    applied = []
    for d in report.disagreements:
        if d.proposed_state == d.local_state:
            continue
        client.documents.update_status(d.external_id, d.proposed_state, reason=motivo(d, day))
        applied.append(d)
    return applied
