"""A month's sales register closed in SIRE (RVIE) through SUNAT's API, step by step, resumable.

:func:`close_register` runs the close of a :class:`~analysis.register.SalesRegister` with a
:class:`connector.sire.SireClient` (``docs/sire.md``):

1. the period must be one SIRE offers, not yet presented;
2. the proposal: asked (ticket), polled, downloaded, read (a malformed file is a clear error);
3. compared with the books both ways and field by field (:meth:`SalesRegister.compare_with_proposal`:
   documents SUNAT has and the books lack, the other way, and fields that differ);
4. with ``action``: ``"accept"`` the proposal, or ``"replace"`` it with the register's RVIE file (a TUS
   upload); the ticket followed to its end (an import with errors names them and is sent again on the
   next run);
5. the preliminar registered (ticket followed), its summary fetched;
6. the month recorded closed (source ``"sire"``) in the tenant's :class:`~connector.closes.MonthCloses`.

Every ticket, file sent (name, SHA-256, TUS address) and moment is kept in the tenant's
:class:`~connector.sire.SireProgress` as it happens: a rerun after an interruption asks about the tickets
it has instead of asking or sending again, and resumes an upload from SUNAT's offset. SUNAT's last step,
generating the register, is done by a person in SOL (RS 040-2022 art. 8.3): the close stops at the
registered preliminar.

:func:`sire_close` does the same from a tenant's client (the register built as ``facturador register``
builds it): what the CLI (``facturador sire``) and the dashboard call.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.register import ProposalComparison, SalesRegister, sales_register
from connector.closes import MonthClose, MonthCloses
from connector.sire import (
    ADJUSTMENTS_UPLOAD,
    PROCESS_ADJUST_EARLIER,
    SireClient,
    SireProgress,
    SireRejected,
    SireTicket,
    parse_proposal,
    progress_path,
    sha256,
)
from sunat.calendar import peru_now

__all__ = ["ACTIONS", "SireCloseReport", "close_register", "sire_close", "sire_urls"]

#: Where ``facturador sire`` finds SIRE when no ``--sire-url`` is given (SUNAT's own hosts otherwise).
SIRE_URL_ENV = "FACTURADOR_SIRE_URL"


def sire_urls(root: str | None) -> tuple[str, str]:
    """The token and books bases of a SIRE at ``root`` (the simulator's ``http://host:port/sire``, whose
    one application answers both), or SUNAT's own when ``root`` is empty."""
    from connector.sire import API_BASE, TOKEN_BASE

    if not root:
        return TOKEN_BASE, API_BASE
    base = root.rstrip("/")
    return f"{base}/v1", f"{base}/v1/contribuyente/migeigv/libros"


ACTIONS = ("accept", "replace")


@dataclass
class SireCloseReport:
    """How far a close went: the lines a person reads (each ticket's states), the comparison, the
    decision's and the preliminar's tickets, the preliminar's summary and the month's close."""

    period: str
    lines: list[str] = field(default_factory=list)
    proposal_rows: int = 0
    comparison: ProposalComparison | None = None
    action: str | None = None
    decision: SireTicket | None = None
    preliminary: SireTicket | None = None
    summary: str = ""
    closed: MonthClose | None = None
    events: list[dict[str, str]] = field(default_factory=list)

    @property
    def done(self) -> bool:
        """The month is closed in SIRE (its preliminar registered)."""
        return self.closed is not None and self.closed.source == "sire"


def _differences(comparison: ProposalComparison) -> list[str]:
    lines = [
        f"comparación: {comparison.common} en ambos, {len(comparison.only_in_proposal)} solo en SUNAT, "
        f"{len(comparison.only_ours)} solo en los libros, {len(comparison.differences)} con campos distintos"
    ]
    lines += [
        f"  solo en la propuesta de SUNAT (los libros no lo tienen): {key}"
        for key in comparison.only_in_proposal
    ]
    lines += [f"  solo en los libros (SUNAT no lo tiene): {key}" for key in comparison.only_ours]
    for item in comparison.differences:
        lines.append(
            f"  distinto en {item.get('comprobante')}, campo {item.get('campo')} ({item.get('nombre')}): "
            f"SUNAT {item.get('sunat')} / libros {item.get('nuestro')}"
        )
    return lines


def close_register(
    register: SalesRegister,
    sire: SireClient,
    *,
    action: str | None = None,
    progress: SireProgress,
    closes: MonthCloses | None = None,
    folder: str | Path | None = None,
    now: Callable[[], dt.datetime] = peru_now,
    restart: bool = False,
    adjustments: bool = False,
    polls: int = 30,
    interval: float = 2.0,
    tell: Callable[[str], None] | None = None,
) -> SireCloseReport:
    """Close ``register``'s month in SIRE (see module doc); stops after the comparison without ``action``.
    With ``adjustments``, the register's lines of earlier periods (states 8 and 9, Anexo 5.1) are sent too,
    before the month is recorded closed.

    ``progress`` keeps what was asked and sent; ``closes`` gets the ``"sire"`` close; ``folder`` receives
    the proposal, the file sent and the preliminar's summary; ``restart`` asks for a new proposal (and
    forgets an unsent decision); ``tell`` hears every line as it happens. Raises a
    :class:`connector.sire.SireError` naming what to do when SIRE refuses (the progress kept so far stays).
    """
    if action is not None and action not in ACTIONS:
        raise ValueError(f"action is one of {', '.join(ACTIONS)} (got {action!r})")
    key = f"{register.period.year:04d}-{register.period.month:02d}"
    code = register.period.code[:6]
    report = SireCloseReport(key, action=action)
    out = Path(folder) if folder is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)

    def say(line: str) -> None:
        report.lines.append(line)
        if tell is not None:
            tell(line)

    def log(step: str, values: dict[str, Any], event: str) -> None:
        progress.update(key, step, values, event, now())

    def seen(what: str) -> Callable[[SireTicket], None]:
        last: list[str] = []

        def show(ticket: SireTicket) -> None:
            if last[-1:] != [ticket.code]:
                say(f"ticket {ticket.ticket} ({what}): {ticket.label}")
                last.append(ticket.code)

        return show

    record = progress.period(key)
    if restart:
        for step in (
            ("proposal", "decision") if not record.get("decision", {}).get("ticket") else ("proposal",)
        ):
            progress.forget(key, step)
        record = progress.period(key)
    if record.get("closed"):
        report.closed = closes.record(key) if closes is not None else None
        say(f"{key} ya está cerrado en SIRE ({record['closed'].get('at', '')})")
        report.events = progress.events(key)
        return report
    decided = bool(record.get("decision", {}).get("ticket"))
    if not decided and not record.get("preliminary"):
        period = sire.check_open(code)
        say(f"periodo {code}: {period.state} en SIRE")

    # -- the proposal
    asked = record.get("proposal") or {}
    if not asked.get("ticket"):
        ticket_number = sire.request_proposal(code)
        log(
            "proposal",
            {"ticket": ticket_number, "asked_at": now().isoformat(timespec="seconds")},
            f"propuesta pedida: ticket {ticket_number}",
        )
        say(f"propuesta pedida: ticket {ticket_number}")
    else:
        ticket_number = asked["ticket"]
        say(f"propuesta ya pedida: ticket {ticket_number} (se consulta, no se pide otra)")
    state = sire.wait(code, ticket_number, polls=polls, interval=interval, seen=seen("propuesta"))
    if state.failed:
        progress.forget(key, "proposal")
        raise SireRejected(
            f"SUNAT could not export the proposal of {code}: {state.detail or state.label}",
            "Run the command again to ask for it again",
        )
    data = sire.download(code, state)
    rows = parse_proposal(data)
    report.proposal_rows = len(rows)
    log(
        "proposal",
        {"state": state.code, "file": state.files[0]["name"], "sha256": sha256(data), "rows": len(rows)},
        f"propuesta descargada: {len(rows)} comprobantes",
    )
    say(f"propuesta descargada: {state.files[0]['name']}, {len(rows)} comprobantes")
    if out is not None:
        (out / f"propuesta-RVIE-{code}.zip").write_bytes(data)

    # -- the comparison
    comparison = register.compare_with_proposal(data)
    report.comparison = comparison
    log(
        "comparison",
        {
            "only_in_proposal": len(comparison.only_in_proposal),
            "only_ours": len(comparison.only_ours),
            "different": len(comparison.differences),
            "at": now().isoformat(timespec="seconds"),
        },
        "propuesta comparada con los libros",
    )
    for line in _differences(comparison):
        say(line)
    if action is None:
        say("sin --accept ni --replace: nada se envió a SUNAT")
        report.events = progress.events(key)
        return report

    # -- the decision
    decision = record.get("decision") or {}
    if decision.get("action") and decision["action"] != action:
        if decision.get("ticket"):
            raise SireRejected(
                f"the proposal of {code} was already "
                f"{'accepted' if decision['action'] == 'accept' else 'replaced'} "
                f"(ticket {decision['ticket']})",
                f"Run it again with --{decision['action']} to follow that ticket",
            )
        progress.forget(key, "decision")
        decision = {}
    ticket_number = decision.get("ticket") or ""
    if ticket_number:
        say(f"{'aceptación' if action == 'accept' else 'reemplazo'} ya enviado: ticket {ticket_number}")
    elif action == "accept":
        if not comparison.matches:
            say("aviso: se acepta la propuesta aunque difiere de los libros (las diferencias quedan arriba)")
        try:
            ticket_number = sire.accept(code)
        except SireRejected as exc:
            if exc.code != "1008":  # «ya se encuentra en el módulo de preliminar»: sent by a stopped run
                raise
            ticket_number = sire.ticket_of_process(code, "2")
        log(
            "decision",
            {"action": "accept", "ticket": ticket_number, "sent_at": now().isoformat(timespec="seconds")},
            f"propuesta aceptada: ticket {ticket_number}",
        )
        say(f"propuesta aceptada: ticket {ticket_number}")
    else:
        data = register.sire_zip()
        name = register.sire_name[:-4] + ".zip"
        digest = sha256(data)
        location = decision.get("upload") if decision.get("sha256") == digest else None
        if location:
            say(f"reemplazo {name}: se reanuda la carga ya abierta")
        else:
            try:
                location = sire.start_upload(code, name, data)
            except SireRejected as exc:
                if exc.code != "1024":
                    raise
                location = None  # SUNAT already took this file: its ticket is in the listing
            log(
                "decision",
                {
                    "action": "replace",
                    "file": name,
                    "sha256": digest,
                    "bytes": len(data),
                    "upload": location,
                    "started_at": now().isoformat(timespec="seconds"),
                },
                f"reemplazo abierto: {name} ({len(data)} bytes, sha256 {digest[:12]}…)",
            )
        ticket_number = (
            sire.finish_upload(code, name, location, data) if location else sire.ticket_of_file(code, name)
        )
        log(
            "decision",
            {"ticket": ticket_number, "sent_at": now().isoformat(timespec="seconds")},
            f"reemplazo enviado: {name}, ticket {ticket_number}",
        )
        say(f"reemplazo enviado: {name} ({len(data)} bytes), ticket {ticket_number}")
        if out is not None:
            (out / name).write_bytes(data)
    result = sire.wait(
        code,
        ticket_number,
        polls=polls,
        interval=interval,
        seen=seen("aceptación" if action == "accept" else "reemplazo"),
    )
    log("decision", {"state": result.code}, f"ticket {ticket_number}: {result.label}")
    report.decision = result
    if result.failed:
        detail = result.detail
        if result.files:
            try:
                errors = sire.download(code, result)
                detail = detail + " — " + _first_text(errors)
            except Exception:  # noqa: BLE001 - the error report is a help, not the answer
                pass
        progress.forget(key, "decision")
        raise SireRejected(
            f"SUNAT processed the {'acceptance' if action == 'accept' else 'replacement'} of {code} "
            f"with errors: {detail}",
            "Correct the books (or the file) and run it again: a new file is sent",
            code=result.code,
        )

    # -- the preliminar
    pre = record.get("preliminary") or {}
    ticket_number = pre.get("ticket") or ""
    if not ticket_number:
        try:
            ticket_number = sire.register_preliminary(code)
        except SireRejected as exc:
            if exc.code != "1008":  # registered by a run that stopped before it kept the ticket
                raise
            ticket_number = sire.ticket_of_process(code, "5")
        log(
            "preliminary",
            {"ticket": ticket_number, "sent_at": now().isoformat(timespec="seconds")},
            f"preliminar registrado: ticket {ticket_number}",
        )
        say(f"preliminar registrado: ticket {ticket_number}")
    result = sire.wait(code, ticket_number, polls=polls, interval=interval, seen=seen("preliminar"))
    report.preliminary = result
    if result.failed:
        progress.forget(key, "preliminary")
        raise SireRejected(
            f"SUNAT could not register the preliminar of {code}: {result.detail or result.label}",
            "Run the command again",
        )
    summary = sire.summary(code, "2").decode("utf-8", errors="replace")
    report.summary = summary
    say("resumen del preliminar:")
    for line in summary.splitlines():
        say(f"  {line}")
    if out is not None:
        (out / f"resumen-preliminar-RVIE-{code}.txt").write_text(summary, encoding="utf-8")

    # -- the adjustments of earlier periods (states 8 and 9)
    if adjustments:
        _send_adjustments(register, sire, code, key, progress, record, out, now, polls, interval, say, seen)

    # -- the close
    how = "aceptada" if action == "accept" else "reemplazada"
    note = f"SIRE: propuesta {how}, preliminar ticket {ticket_number}"
    if closes is not None:
        report.closed = closes.close(key, now(), source="sire", note=note)
    log("closed", {"at": now().isoformat(timespec="seconds"), "note": note}, f"mes cerrado: {note}")
    say(f"{key} cerrado ({note})")
    report.events = progress.events(key)
    return report


def _send_adjustments(
    register: SalesRegister,
    sire: SireClient,
    code: str,
    key: str,
    progress: SireProgress,
    record: dict[str, Any],
    out: Path | None,
    now: Callable[[], dt.datetime],
    polls: int,
    interval: float,
    say: Callable[[str], None],
    seen: Callable[[str], Callable[[SireTicket], None]],
) -> None:
    """Upload the register's adjustment file (Anexo 5.1) and follow its ticket; kept in ``progress``."""
    lines = register.adjustment_rows()
    if not lines:
        say("sin líneas de periodos anteriores (estados 8 y 9): no hay ajustes que enviar")
        return
    sent = record.get("adjustments") or {}
    ticket_number = sent.get("ticket") or ""
    if not ticket_number:
        data = register.adjustment_zip()
        name = register.adjustment_name()[:-4] + ".zip"
        ticket_number = sire.upload(code, name, data, PROCESS_ADJUST_EARLIER, ADJUSTMENTS_UPLOAD)
        progress.update(
            key,
            "adjustments",
            {
                "file": name,
                "sha256": sha256(data),
                "lines": len(lines),
                "ticket": ticket_number,
                "sent_at": now().isoformat(timespec="seconds"),
            },
            f"ajustes enviados: {name} ({len(lines)} líneas), ticket {ticket_number}",
            now(),
        )
        say(f"ajustes de periodos anteriores enviados: {name} ({len(lines)} líneas), ticket {ticket_number}")
        if out is not None:
            (out / name).write_bytes(data)
    result = sire.wait(code, ticket_number, polls=polls, interval=interval, seen=seen("ajustes"))
    if result.failed:
        progress.forget(key, "adjustments")
        raise SireRejected(
            f"SUNAT processed the adjustments of {code} with errors: {result.detail or result.label}",
            "Correct them and run it again with --adjustments",
            code=result.code,
        )


def _first_text(data: bytes) -> str:
    """The text of a (zipped) error report, on one line."""
    import io
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            data = archive.read(archive.namelist()[0])
    except (zipfile.BadZipFile, IndexError):
        pass
    return " / ".join(data.decode("utf-8", errors="replace").splitlines()[1:4])


def sire_close(
    client: Any,
    period: str,
    sire: SireClient | Callable[[str], SireClient],
    *,
    closes_file: str | Path,
    action: str | None = None,
    folder: str | Path | None = None,
    restart: bool = False,
    adjustments: bool = False,
    now: Callable[[], dt.datetime] = peru_now,
    polls: int = 30,
    interval: float = 2.0,
    tell: Callable[[str], None] | None = None,
) -> SireCloseReport:
    """The close of ``period`` of a tenant's ``client`` (see :func:`close_register`): its register built as
    ``facturador register`` builds it, the progress kept beside its closes file ``closes_file``. ``sire``
    is a client, or a function making one for the register's RUC."""
    closes = MonthCloses(closes_file)
    register = sales_register(client, period, closes=closes)
    made = not isinstance(sire, SireClient)
    client_of_sire = sire(register.ruc) if not isinstance(sire, SireClient) else sire
    try:
        if register.ruc != client_of_sire.credentials.ruc:
            raise ValueError(
                f"the register is of RUC {register.ruc} but the SIRE credentials are of "
                f"{client_of_sire.credentials.ruc}"
            )
        return close_register(
            register,
            client_of_sire,
            action=action,
            progress=SireProgress(progress_path(closes_file)),
            closes=closes,
            folder=folder,
            now=now,
            restart=restart,
            adjustments=adjustments,
            polls=polls,
            interval=interval,
            tell=tell,
        )
    finally:
        if made:
            client_of_sire.close()
