"""A sweep of a period's documents at SUNAT's validity API: every factura, boleta and note of the month
asked about once, at a bounded pace, the progress kept in a file so a rerun continues where the last one
stopped; then every disagreement between SUNAT and the books, the state the books should take, and for
boletas whose daily summary got no answer (98 forever, 0127, 2223) the corrective summary to send
(``docs/validity.md``).

:func:`run_sweep` is the engine, over any records of the books (:class:`SweptRecord`) and anything that
answers a :class:`~sunat.validity.ValidityQuery` (:class:`Asker`: the HTTP client
:class:`~sunat.validity_client.ValidityClient`, or the service's simulator in process). The analyst's
sweep over a tenant's API is :func:`connector.validity_sweep.sweep`; the service's scheduled one
:mod:`facturador.domain.validity_sweep`.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

from sunat.validity import CP_STATES, ValidityAnswer, ValidityQuery, agrees, proposed_state
from sunat.validity_client import QueryRefused, ValidityError

__all__ = [
    "DEFAULT_RATE",
    "CorrectiveLine",
    "Disagreement",
    "SweepReport",
    "SweptRecord",
    "corrective_summary",
    "month_bounds",
    "motivo",
    "render",
    "run_sweep",
]

#: Queries a second by default. SUNAT publishes no limit for this API (docs/validity.md); public clients
#: ask one document after another, and 2 a second sweeps a month of 3,000 documents in 25 minutes.
DEFAULT_RATE = 2.0
#: The document types swept (the API also knows 04, R1 and R7, which this project does not issue).
SWEPT_TYPES = ("01", "03", "07", "08")
#: Local states of a boleta sent in a summary that has no answer yet: declared (03), voiding (13).
IN_A_SUMMARY = ("03", "13")
CONDITIONS = {"1": "Adicionar", "2": "Modificar", "3": "Anulado"}


class SweptRecord(Protocol):
    """A document of the books as the sweep reads it (a :class:`connector.models.DocumentRecord` is one)."""

    @property
    def external_id(self) -> str: ...
    @property
    def number(self) -> str: ...
    @property
    def series(self) -> str: ...
    @property
    def correlative(self) -> int | None: ...
    @property
    def document_type_id(self) -> str: ...
    @property
    def date_of_issue(self) -> dt.date | None: ...
    @property
    def total(self) -> Decimal: ...
    @property
    def state_type_id(self) -> str: ...


class Asker(Protocol):
    """What answers SUNAT's validity query about one document, raising
    :class:`~sunat.validity_client.ValidityError`."""

    def check(self, query: ValidityQuery) -> ValidityAnswer: ...


@dataclass(frozen=True)
class Disagreement:
    """A document on which SUNAT and the books disagree, and the state the books should take."""

    external_id: str
    number: str
    doc_type: str
    date_of_issue: dt.date | None
    total: str
    local_state: str
    verdict: str
    sunat_state: str
    proposed_state: str
    observations: tuple[str, ...] = ()

    @property
    def sunat_description(self) -> str:
        return CP_STATES.get(self.sunat_state, self.sunat_state)

    @property
    def is_boleta(self) -> bool:
        return self.number[:1].upper() == "B"


@dataclass(frozen=True)
class CorrectiveLine:
    """A line of the proposed corrective summary: the boleta (or its note), its date (the summary's
    reference date) and the condition (catalog 19: 1 add, 3 void)."""

    external_id: str
    number: str
    doc_type: str
    date_of_issue: dt.date | None
    condition: str
    why: str


@dataclass
class SweepReport:
    """What a sweep found (see module doc); ``complete`` False when it stopped early (``stopped_by``)."""

    period: str
    total: int
    checked: int
    resumed: int
    asked: int
    elapsed: float
    disagreements: list[Disagreement] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    stopped_by: str = ""
    lost_summaries: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.checked == self.total and not self.stopped_by

    @property
    def throughput(self) -> float:
        """Documents asked a second in this run."""
        return self.asked / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def corrective(self) -> list[CorrectiveLine]:
        return corrective_summary(self.disagreements)


def month_bounds(period: str) -> tuple[dt.date, dt.date]:
    """The first and last day of ``YYYY-MM``; ValueError for anything else."""
    try:
        first = dt.datetime.strptime(period, "%Y-%m").date()
    except ValueError:
        raise ValueError(f"the period must be YYYY-MM, not {period!r}") from None
    following = (first.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return first, following - dt.timedelta(days=1)


def _read_progress(path: Path) -> dict[str, dict[str, Any]]:
    """The answers kept by earlier runs (a line cut by a crash is ignored)."""
    done: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return done
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("external_id"):
            done[str(entry["external_id"])] = entry
    return done


def run_sweep(
    records: list[Any],
    asker: Asker,
    ruc: str,
    period: str,
    *,
    progress: str | os.PathLike[str],
    rate: float = DEFAULT_RATE,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    stop_after: int | None = None,
    on_answer: Callable[[int, int], None] | None = None,
    lost_summaries: list[str] | None = None,
) -> SweepReport:
    """Ask ``asker`` about every one of ``records`` (:class:`SweptRecord`: facturas, boletas and notes
    of ``period``, issued by ``ruc``) not yet in ``progress`` (a JSON-lines file, appended after each
    answer), at most ``rate`` a second; ``stop_after`` stops after that many questions (as an
    interruption would). Credential, throttling and outage errors stop the sweep with its progress kept
    (``stopped_by``); a refused query is listed in ``errors`` and asked again next run."""
    if rate <= 0:
        raise ValueError("rate must be positive")
    month_bounds(period)
    records = [r for r in records if r.document_type_id in SWEPT_TYPES and r.date_of_issue is not None]
    path = Path(progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = _read_progress(path)
    resumed = sum(1 for r in records if r.external_id in done)
    report = SweepReport(period, len(records), resumed, resumed, 0, 0.0)
    report.lost_summaries = list(lost_summaries or [])
    started = clock()
    interval = 1.0 / rate
    next_slot = started
    with path.open("a", encoding="utf-8") as sink:
        for record in records:
            if record.external_id in done:
                continue
            if stop_after is not None and report.asked >= stop_after:
                report.stopped_by = "stop_after"
                break
            now = clock()
            if next_slot > now:
                sleep(next_slot - now)
            next_slot = max(next_slot, now) + interval
            query = ValidityQuery(
                ruc=ruc,
                doc_type=record.document_type_id,
                series=record.series,
                number=int(record.correlative or 0),
                issued=record.date_of_issue,
                amount=record.total,
            )
            try:
                answer = asker.check(query)
            except ValidityError as exc:
                if isinstance(exc, QueryRefused):
                    report.errors.append(f"{record.number}: {exc}")
                    continue
                report.stopped_by = f"{type(exc).__name__}: {exc}"
                break
            entry = {
                "external_id": record.external_id,
                "number": record.number,
                "state": answer.state,
                "verdict": answer.verdict,
                "observations": list(answer.observations),
                "checked_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            }
            sink.write(json.dumps(entry, ensure_ascii=False) + "\n")
            sink.flush()
            done[record.external_id] = entry
            report.asked += 1
            report.checked += 1
            if on_answer is not None:
                on_answer(report.checked, report.total)
    report.elapsed = clock() - started
    for record in records:
        kept = done.get(record.external_id)
        if kept is None or agrees(kept["verdict"], record.state_type_id):
            continue
        report.disagreements.append(
            Disagreement(
                external_id=record.external_id,
                number=record.number,
                doc_type=record.document_type_id,
                date_of_issue=record.date_of_issue,
                total=f"{record.total}",
                local_state=record.state_type_id,
                verdict=kept["verdict"],
                sunat_state=str(kept["state"]),
                proposed_state=proposed_state(kept["verdict"], record.state_type_id),
                observations=tuple(kept.get("observations") or ()),
            )
        )
    return report


def corrective_summary(disagreements: list[Disagreement]) -> list[CorrectiveLine]:
    """The lines of the corrective daily summary SUNAT's answers call for: boletas (and their notes)
    declared in a summary without an answer (03) that SUNAT lacks go again with condition 1; those whose
    voiding (13) SUNAT never took go with condition 3. Boletas SUNAT already has (or already voided) need
    no line: only their state is set (:func:`apply`)."""
    lines = []
    for d in disagreements:
        if not d.is_boleta or d.local_state not in IN_A_SUMMARY:
            continue
        if d.local_state == "03" and d.verdict == "not_found":
            lines.append(
                CorrectiveLine(d.external_id, d.number, d.doc_type, d.date_of_issue, "1", "SUNAT no la tiene")
            )
        elif d.local_state == "13" and d.verdict == "accepted":
            lines.append(
                CorrectiveLine(
                    d.external_id, d.number, d.doc_type, d.date_of_issue, "3", "SUNAT no registró la baja"
                )
            )
    return sorted(lines, key=lambda line: (line.date_of_issue or dt.date.min, line.number))


def motivo(disagreement: Disagreement, today: dt.date) -> str:
    """The reason kept in the document's audit record."""
    return (
        f"Consulta de validez SUNAT {today.isoformat()}: {disagreement.sunat_description} "
        f"(estadoCp {disagreement.sunat_state}); estado local {disagreement.local_state} -> "
        f"{disagreement.proposed_state}"
    )


def render(report: SweepReport) -> str:
    """The report as text for a terminal."""
    out = [
        f"Periodo {report.period}: {report.checked}/{report.total} documentos consultados "
        f"({report.resumed} de una corrida anterior, {report.asked} ahora, "
        f"{report.throughput:.1f} doc/s)."
    ]
    if report.stopped_by:
        out.append(f"Detenido: {report.stopped_by} — vuelva a ejecutar para continuar.")
    for error in report.errors:
        out.append(f"Consulta rechazada: {error}")
    if report.lost_summaries:
        out.append("Resúmenes sin respuesta de SUNAT: " + ", ".join(report.lost_summaries))
    if not report.disagreements:
        out.append("SUNAT y los libros coinciden en todo lo consultado.")
    else:
        out.append(f"{len(report.disagreements)} diferencias entre SUNAT y los libros:")
        for d in report.disagreements:
            out.append(
                f"  {d.number:<14} {d.date_of_issue}  {d.total:>10}  local {d.local_state}  "
                f"SUNAT {d.sunat_description} ({d.verdict})  -> {d.proposed_state}"
            )
    lines = report.corrective
    if lines:
        out.append("Resumen diario corrector propuesto (por fecha de emisión):")
        for line in lines:
            out.append(
                f"  {line.date_of_issue}  {line.number:<14} condición {line.condition} "
                f"({CONDITIONS[line.condition]}): {line.why}"
            )
    return "\n".join(out)
