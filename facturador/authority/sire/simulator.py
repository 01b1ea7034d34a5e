"""SUNAT's SIRE API for the sales register (RVIE) as plain Python: tokens, periods, the proposal, tickets,
acceptance, TUS uploads of a replacement, the preliminar and its summary.

The HTTP face is :mod:`facturador.authority.sire.app`. What it answers follows SUNAT's «Manual de
Servicios Web API SIRE Ventas» v29/v30 (``docs/sire.md``):

- tokens: the ``password`` grant with scope ``https://api-sire.sunat.gob.pe`` (HMAC-signed, carrying the
  RUC, expiring after ``token_ttl`` seconds of ``clock``);
- periods: every month from ``first_period`` to the month before today (SUNAT opens a proposal from the
  2nd day of the next month), each «No Presentado» until its preliminar is registered;
- the proposal: the rows ``source(ruc, period)`` gives (what SUNAT received), changed by the
  :class:`Mismatch` of that RUC and period (a document SUNAT has and the books lack, one it lacks, a
  different amount), exported as SUNAT's 40-column TXT with its header, zipped;
- tickets: ``AAAA`` + ``03`` + 8 digits, «En proceso» (05) for ``ticket_delay`` seconds, then
  «Terminado» (06) or, for an import with errors, «Procesado con errores» (03) with an error report;
- imports: TUS 1.0.0 (``POST`` creates, ``HEAD`` tells the offset, ``PATCH`` appends), the zip named as
  tabla 6 wants (``LE`` RUC period ``00140400 02`` …); a name sent before answers 1024.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import fcntl
import io
import json
import os
import re
import secrets
import threading
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from facturador.authority.bearer import TokenRefused, issue_token, read_token
from facturador.authority.gre.simulator import BetaCredentials, Credentials, TokenError
from sunat.calendar import peru_today

__all__ = [
    "BOOK",
    "HEADER",
    "SCOPE",
    "SIMULATOR_CLIENT_ID",
    "SIMULATOR_CLIENT_SECRET",
    "Mismatch",
    "SireApiError",
    "SireSimulator",
    "TokenError",
]

SCOPE = "https://api-sire.sunat.gob.pe"
BOOK = "140000"
SIMULATOR_CLIENT_ID = "facturador-sire-simulator"
SIMULATOR_CLIENT_SECRET = "facturador-sire-simulator-secret"
DEFAULT_TOKEN_TTL = 3600
DEFAULT_TICKET_DELAY = 1.0
#: The header of SUNAT's proposal export (40 columns).
HEADER = (
    "Ruc|Razon Social|Periodo|CAR SUNAT|Fecha de emisión|Fecha Vcto/Pago|Tipo CP/Doc.|Serie del CDP|"
    "Nro CP o Doc. Nro Inicial (Rango)|Nro Final (Rango)|Tipo Doc Identidad|Nro Doc Identidad|"
    "Apellidos Nombres/ Razón Social|Valor Facturado Exportación|BI Gravada|Dscto BI|IGV / IPM|"
    "Dscto IGV / IPM|Mto Exonerado|Mto Inafecto|ISC|BI Grav IVAP|IVAP|ICBPER|Otros Tributos|Total CP|"
    "Moneda|Tipo Cambio|Fecha Emisión Doc Modificado|Tipo CP Modificado|Serie CP Modificado|"
    "Nro CP Modificado|ID Proyecto Operadores Atribución|Tipo de Nota|Est. Comp|Valor FOB Embarcado|"
    "Valor OP Gratuitas|Tipo Operación|DAM / CP|CLU"
)
STATES = {
    "03": "Procesado con errores",
    "05": "En proceso",
    "06": "Terminado",
}
PROCESSES = {
    "10": "Exportar propuesta",
    "2": "Aceptar propuesta",
    "3": "Reemplazar propuesta",
    "4": "Importar comprobantes",
    "5": "Registrar preliminar",
    "6": "Ajustes posteriores",
    "7": "Ajustes de periodos anteriores",
}
_REPLACEMENT = re.compile(r"^LE(\d{11})(\d{6})00140400(02)[01][01][12]2\.zip$")
#: Adjustments: CC 03 (periods generated in SIRE), 04/05 (before SIRE, Anexo 5.1/5.2), a sequence NN.
_ADJUSTMENT = re.compile(r"^LE(\d{11})(\d{6})00140400(0[345])[01][01][12]2\d{2}\.zip$")
_TOTAL = 25  # index of field 26 (Total CP)


class SireApiError(Exception):
    """The API refuses: ``status`` and SUNAT's ``cod`` / ``msg`` (422 codes live inside ``errors``)."""

    def __init__(self, status: int, code: str, msg: str, *, retry_after: float | None = None) -> None:
        super().__init__(f"{code}: {msg}")
        self.status = status
        self.code = code
        self.msg = msg
        self.retry_after = retry_after

    def body(self) -> dict[str, Any]:
        return {"cod": str(self.status), "msg": self.msg, "errors": [{"cod": self.code, "msg": self.msg}]}


@dataclass
class Mismatch:
    """What SUNAT's proposal of a RUC and period differs in from what it received, as real life brings:
    ``extra`` rows SUNAT has and the books lack (40 fields each, or 33), ``missing`` documents
    (``"01-F001-3"``) SUNAT lacks, ``totals`` a different total (``"01-F001-2": "150.00"``, the base and IGV
    recomputed at 18%); ``throttle``: the next N API requests answer 429; ``down``: the next N answer 503;
    ``reject_imports``: imports of this period end with errors."""

    extra: list[list[str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    totals: dict[str, str] = field(default_factory=dict)
    throttle: int = 0
    down: int = 0
    reject_imports: bool = False

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Mismatch:
        """From JSON: ``extra`` rows as lists or pipe-separated lines."""
        extra = [
            row.split("|") if isinstance(row, str) else [str(v) for v in row]
            for row in value.get("extra") or []
        ]
        return cls(
            extra=extra,
            missing=[str(v) for v in value.get("missing") or []],
            totals={str(k): str(v) for k, v in (value.get("totals") or {}).items()},
            throttle=int(value.get("throttle") or 0),
            down=int(value.get("down") or 0),
            reject_imports=bool(value.get("reject_imports")),
        )


@dataclass
class _Ticket:
    number: str
    ruc: str
    period: str
    process: str
    ready_at: float
    failed: bool = False
    detail: str = ""
    files: list[tuple[str, str, bytes]] = field(default_factory=list)
    source_file: str = ""


@dataclass
class _Upload:
    ruc: str
    length: int
    metadata: dict[str, str]
    adjustments: bool = False
    data: bytearray = field(default_factory=bytearray)
    ticket: str = ""


@dataclass
class _Book:
    """One RUC's RVIE of one period at SUNAT."""

    proposal: list[list[str]] | None = None
    preliminary: list[list[str]] | None = None  # accepted or replaced
    how: str = ""  # "aceptada" / "reemplazada"
    registered: bool = False
    files: set[str] = field(default_factory=set)
    adjustments: list[list[str]] = field(default_factory=list)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _key(row: Sequence[str]) -> str:
    """``type-series-number`` of a row (number without leading zeros)."""
    return f"{row[6]}-{row[7]}-{int(row[8]) if row[8].strip().isdigit() else row[8]}"


def _money(text: str) -> Decimal:
    try:
        return Decimal(text or "0")
    except InvalidOperation:
        return Decimal(0)


class SireSimulator:
    """SUNAT's SIRE RVIE API behaviour (see module doc).

    ``source(ruc, period)`` gives the 33- or 40-field rows SUNAT received for a RUC and ``YYYYMM``;
    ``mismatches(ruc, period)`` the :class:`Mismatch` to apply (none by default; it may keep state, e.g.
    count down ``throttle``); ``credentials`` decides who gets a token; ``clock`` gives epoch seconds;
    ``today`` the Lima date (which periods are open); ``first_period`` the oldest period offered.
    """

    def __init__(
        self,
        source: Callable[[str, str], list[list[str]]],
        credentials: Credentials | None = None,
        *,
        mismatches: Callable[[str, str], Mismatch | None] | None = None,
        secret: bytes | None = None,
        token_ttl: int = DEFAULT_TOKEN_TTL,
        ticket_delay: float = DEFAULT_TICKET_DELAY,
        clock: Callable[[], float] = time.time,
        today: Callable[[], date] = peru_today,
        first_period: str = "202301",
        state: Path | None = None,
    ) -> None:
        self.source = source
        self.credentials = credentials or BetaCredentials({SIMULATOR_CLIENT_ID: SIMULATOR_CLIENT_SECRET})
        self.mismatches = mismatches or (lambda _ruc, _period: None)
        self.secret = secret or secrets.token_bytes(32)
        self.token_ttl = token_ttl
        self.ticket_delay = ticket_delay
        self.clock = clock
        self.today = today
        self.first_period = first_period
        self._lock = threading.RLock()
        self._books: dict[tuple[str, str], _Book] = {}
        self._tickets: dict[str, _Ticket] = {}
        self._uploads: dict[str, _Upload] = {}
        self._counter = 0
        #: The file every process of a service keeps the books, tickets and uploads in (None: this
        #: process's memory only); :meth:`shared` reads it before a request and writes it after.
        self.state = state

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        """Serve one request on the state the service's processes share: under a file lock, the books,
        tickets and uploads read from :attr:`state` before and written back after (a service with
        several workers answers a ticket asked by one on another)."""
        with self._lock:
            if self.state is None:
                yield
                return
            self.state.parent.mkdir(parents=True, exist_ok=True)
            with open(self.state.with_name(self.state.name + ".lock"), "a+b") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                try:
                    self._load()
                    yield
                finally:
                    self._save()
                    fcntl.flock(lock, fcntl.LOCK_UN)

    def _load(self) -> None:
        assert self.state is not None
        if not self.state.is_file():
            return
        data = json.loads(self.state.read_text(encoding="utf-8"))
        self._counter = int(data["counter"])
        self._books = {
            tuple(key.split("|", 1)): _Book(  # type: ignore[misc]
                book["proposal"],
                book["preliminary"],
                book["how"],
                book["registered"],
                set(book["files"]),
                book["adjustments"],
            )
            for key, book in data["books"].items()
        }
        self._tickets = {
            number: _Ticket(
                **{
                    **ticket,
                    "files": [(name, kind, _unb64(content)) for name, kind, content in ticket["files"]],
                }
            )
            for number, ticket in data["tickets"].items()
        }
        self._uploads = {
            upload_id: _Upload(**{**upload, "data": bytearray(_unb64(upload["data"]))})
            for upload_id, upload in data["uploads"].items()
        }

    def _save(self) -> None:
        assert self.state is not None
        data = {
            "counter": self._counter,
            "books": {
                f"{ruc}|{period}": {**dataclasses.asdict(book), "files": sorted(book.files)}
                for (ruc, period), book in self._books.items()
            },
            "tickets": {
                number: {
                    **dataclasses.asdict(ticket),
                    "files": [[name, kind, _b64(content)] for name, kind, content in ticket.files],
                }
                for number, ticket in self._tickets.items()
            },
            "uploads": {
                upload_id: {**dataclasses.asdict(upload), "data": _b64(bytes(upload.data))}
                for upload_id, upload in self._uploads.items()
            },
        }
        temporary = self.state.with_name(self.state.name + ".tmp")
        temporary.write_text(json.dumps(data), encoding="utf-8")
        os.replace(temporary, self.state)

    # -- tokens ---------------------------------------------------------------------------------------

    def token(self, client_id: str, form: Mapping[str, str]) -> dict[str, Any]:
        """``POST /v1/clientessol/{client_id}/oauth2/token/``."""
        if form.get("grant_type") != "password":
            raise TokenError(400, "unsupported_grant_type", "grant_type debe ser password")
        if form.get("scope", SCOPE) != SCOPE:
            raise TokenError(400, "invalid_scope", "scope no valido")
        if form.get("client_id", client_id) != client_id:
            raise TokenError(401, "invalid_client", "cliente no autorizado")
        ruc = self.credentials.authenticate(
            client_id, form.get("client_secret", ""), form.get("username", ""), form.get("password", "")
        )
        token = issue_token(self.secret, {"ruc": ruc, "scope": "sire"}, self.token_ttl, self.clock())
        return {"access_token": token, "token_type": "JWT", "expires_in": self.token_ttl}

    def taxpayer(self, authorization: str | None) -> str:
        """The RUC of a valid, unexpired SIRE token; :class:`SireApiError` 401 otherwise."""
        try:
            claims = read_token(self.secret, authorization, self.clock())
        except TokenRefused as refused:
            raise SireApiError(401, "401", refused.message) from None
        if claims.get("scope") != "sire":
            raise SireApiError(401, "401", "No autorizado: el token no es del SIRE")
        return str(claims["ruc"])

    def gate(self, ruc: str, period: str | None) -> None:
        """Injected throttling or outage for this RUC (and period, or any period when ``None``)."""
        for key in (period, "*") if period else ("*",):
            found = self.mismatches(ruc, key) if key else None
            if found is None:
                continue
            if found.throttle > 0:
                found.throttle -= 1
                raise SireApiError(
                    429, "429", "Demasiadas solicitudes, intente en unos segundos", retry_after=1
                )
            if found.down > 0:
                found.down -= 1
                raise SireApiError(503, "503", "Servicio no disponible", retry_after=1)

    # -- periods --------------------------------------------------------------------------------------

    def _open_periods(self) -> list[str]:
        today = self.today()
        last_year, last_month = (today.year, today.month - 1) if today.month > 1 else (today.year - 1, 12)
        if today.day < 2:  # the proposal of last month appears on the 2nd
            last_year, last_month = (last_year, last_month - 1) if last_month > 1 else (last_year - 1, 12)
        year, month = int(self.first_period[:4]), int(self.first_period[4:])
        found = []
        while (year, month) <= (last_year, last_month):
            found.append(f"{year:04d}{month:02d}")
            year, month = (year, month + 1) if month < 12 else (year + 1, 1)
        return found

    def periods(self, ruc: str, book: str) -> list[dict[str, Any]]:
        """``GET rvierce/padron/web/omisos/{codLibro}/periodos``: by year, newest first."""
        if book != BOOK:
            raise SireApiError(422, "1161", "codLibro no permitido o no valido")
        years: dict[str, list[dict[str, str]]] = {}
        with self._lock:
            for period in reversed(self._open_periods()):
                registered = self._books.get((ruc, period), _Book()).registered
                years.setdefault(period[:4], []).append(
                    {
                        "perTributario": period,
                        "codEstado": "02" if registered else "01",
                        "desEstado": "Presentado" if registered else "No Presentado",
                    }
                )
        return [
            {"numEjercicio": year, "desEstado": "Activo", "lisPeriodos": items}
            for year, items in years.items()
        ]

    def _check_period(self, period: str) -> None:
        if not re.fullmatch(r"\d{6}", period) or not 1 <= int(period[4:]) <= 12:
            raise SireApiError(422, "1006", "perTributario con formato distinto de yyyymm")
        if period not in self._open_periods():
            raise SireApiError(422, "1007", "El periodo de búsqueda no debe ser mayor a la fecha actual")

    # -- the proposal ---------------------------------------------------------------------------------

    def proposal_rows(self, ruc: str, period: str) -> list[list[str]]:
        """The proposal of ``ruc`` for ``period``: what SUNAT received, with the injected mismatches."""
        rows = [self._forty(list(row), ruc, period) for row in self.source(ruc, period)]
        found = self.mismatches(ruc, period)
        if found is not None:
            missing = set(found.missing)
            rows = [row for row in rows if _key(row) not in missing]
            for row in rows:
                total = found.totals.get(_key(row))
                if total is not None:
                    amount = Decimal(total)
                    base = (amount / Decimal("1.18")).quantize(Decimal("0.01"))
                    row[14], row[16], row[_TOTAL] = f"{base:.2f}", f"{amount - base:.2f}", f"{amount:.2f}"
            rows += [self._forty(list(row), ruc, period) for row in found.extra]
        return rows

    @staticmethod
    def _forty(row: list[str], ruc: str, period: str) -> list[str]:
        """A row of the export: 40 fields, the CAR filled, the rate 1.000 for soles (as SUNAT writes)."""
        row = (row + [""] * 40)[:40]
        row[0], row[2] = row[0] or ruc, row[2] or period
        number = row[8].lstrip("0") or "0"
        row[8] = number
        row[3] = f"{row[0][-11:]:0>11}{row[6]:0>2}{row[7]:0>4}{number:0>10}"
        if row[26] == "PEN" and not row[27]:
            row[27] = "1.000"
        row[34] = row[34] or "1"
        return row

    def request_proposal(self, ruc: str, period: str, query: Mapping[str, str]) -> dict[str, str]:
        """``GET rvie/propuesta/web/propuesta/{per}/exportapropuesta?codTipoArchivo=0``: a ticket."""
        self._check_period(period)
        if query.get("codTipoArchivo") not in ("0", "1", "2"):
            raise SireApiError(422, "1059", "codTipoArchivo no permitido")
        rows = self.proposal_rows(ruc, period)
        with self._lock:
            book = self._books.setdefault((ruc, period), _Book())
            book.proposal = rows
            text = "\r\n".join([HEADER, *("|".join(row) + "|" for row in rows)]) + "\r\n"
            name = f"LE{ruc}{period}001404000{1 if rows else 0}1112.txt"  # not confirmed by SUNAT
            ticket = self._ticket(ruc, period, "10")
            ticket.files.append((f"{ticket.number}_{name[:-4]}.zip", "01", _zip(name, text.encode("utf-8"))))
        return {"numTicket": ticket.number}

    # -- tickets --------------------------------------------------------------------------------------

    def _ticket(self, ruc: str, period: str, process: str) -> _Ticket:
        self._counter += 1
        number = f"{self.today().year}03{self._counter:08d}"
        ticket = _Ticket(number, ruc, period, process, self.clock() + self.ticket_delay)
        self._tickets[number] = ticket
        return ticket

    def tickets(self, ruc: str, query: Mapping[str, str]) -> dict[str, Any]:
        """``GET rvierce/gestionprocesosmasivos/web/masivo/consultaestadotickets``."""
        start, end = query.get("perIni", ""), query.get("perFin", "")
        if not re.fullmatch(r"\d{6}", start) or not re.fullmatch(r"\d{6}", end):
            raise SireApiError(422, "1067", "perIni o perFin vacío o con formato inválido")
        wanted = query.get("numTicket")
        now = self.clock()
        with self._lock:
            found = [
                t
                for t in self._tickets.values()
                if t.ruc == ruc and start <= t.period <= end and (not wanted or t.number == wanted)
            ]
            rows = []
            for t in found:
                done = now >= t.ready_at
                code = ("03" if t.failed else "06") if done else "05"
                row: dict[str, Any] = {
                    "numTicket": t.number,
                    "perTributario": t.period,
                    "codProceso": t.process,
                    "desProceso": PROCESSES.get(t.process, t.process),
                    "codEstadoProceso": code,
                    "desEstadoProceso": STATES[code],
                    "detalleTicket": {
                        "numTicket": t.number,
                        "nomArchivoImportacion": t.source_file,
                        "desError": t.detail if done else "",
                    },
                    "archivoReporte": [
                        {"codTipoAchivoReporte": kind, "nomArchivoReporte": name, "nomArchivoContenido": name}
                        for name, kind, _data in (t.files if done else [])
                    ],
                }
                if t.source_file and not row["archivoReporte"]:
                    row["archivoReporte"] = [
                        {"nomArchivoReporte": t.source_file, "codTipoAchivoReporte": "00"}
                    ]
                rows.append(row)
        per_page = int(query.get("perPage") or 20)
        return {
            "paginacion": {"page": 1, "perPage": per_page, "totalRegistros": len(rows)},
            "registros": rows[:per_page],
        }

    def report_file(self, ruc: str, query: Mapping[str, str]) -> tuple[str, bytes]:
        """``GET …/archivoreporte``: the file of a finished ticket (the v24+ parameters are required)."""
        for name in ("nomArchivoReporte", "perTributario", "codProceso", "numTicket", "codLibro"):
            if not query.get(name):
                raise SireApiError(422, "1140" if name == "codLibro" else "1044", f"{name} es obligatorio")
        with self._lock:
            ticket = self._tickets.get(query["numTicket"])
            if ticket is None or ticket.ruc != ruc or self.clock() < ticket.ready_at:
                raise SireApiError(422, "1070", "No existe el archivo solicitado")
            for name, _kind, data in ticket.files:
                if name == query["nomArchivoReporte"]:
                    return name, data
        raise SireApiError(422, "1070", "No existe el archivo solicitado")

    # -- decisions ------------------------------------------------------------------------------------

    def accept(self, ruc: str, period: str) -> dict[str, str]:
        """``POST rvie/propuesta/web/propuesta/{per}/aceptapropuesta``."""
        self._check_period(period)
        with self._lock:
            book = self._books.setdefault((ruc, period), _Book())
            if book.registered:
                raise SireApiError(422, "1009", "El registro electrónico ya ha sido generado.")
            if book.preliminary is not None:
                raise SireApiError(
                    422, "1008", "El registro electrónico ya se encuentra en el módulo de preliminar."
                )
            book.preliminary = book.proposal if book.proposal is not None else self.proposal_rows(ruc, period)
            book.how = "aceptada"
            return {"numTicket": self._ticket(ruc, period, "2").number}

    def register_preliminary(self, ruc: str, period: str) -> dict[str, str]:
        """``POST rvierce/gestionlibro/web/registroslibros/{per}/registrapreliminar``."""
        self._check_period(period)
        with self._lock:
            book = self._books.setdefault((ruc, period), _Book())
            if book.preliminary is None:
                raise SireApiError(
                    422,
                    "2293",
                    "Para registrar el preliminar primero hay que aceptar o reemplazar la propuesta",
                )
            if book.registered:
                raise SireApiError(
                    422, "1008", "El registro electrónico ya se encuentra en el módulo de preliminar."
                )
            book.registered = True
            return {"numTicket": self._ticket(ruc, period, "5").number}

    def summary(self, ruc: str, period: str, kind: str, book_code: str) -> bytes:
        """``GET rvierce/resumen/web/resumencomprobantes/{per}/{tipo}/0/exporta?codLibro=140000``: totals by
        document type of the proposal (1) or the preliminar (2), TXT."""
        self._check_period(period)
        if book_code != BOOK:
            raise SireApiError(422, "1161", "codLibro no permitido o no valido")
        with self._lock:
            book = self._books.get((ruc, period), _Book())
            rows = book.proposal if kind == "1" else book.preliminary
        if rows is None:
            raise SireApiError(422, "1518", "No existen documentos para exportar")
        totals: dict[str, list[Decimal]] = {}
        for row in rows:
            line = totals.setdefault(row[6], [Decimal(0)] * 4)
            line[0] += 1
            line[1] += _money(row[14]) + _money(row[15])
            line[2] += _money(row[16]) + _money(row[17])
            line[3] += _money(row[_TOTAL])
        lines = ["Tipo CP|Cantidad|BI Gravada|IGV / IPM|Total CP"]
        lines += [f"{k}|{v[0]}|{v[1]:.2f}|{v[2]:.2f}|{v[3]:.2f}" for k, v in sorted(totals.items())]
        return ("\r\n".join(lines) + "\r\n").encode("utf-8")

    # -- TUS ------------------------------------------------------------------------------------------

    def create_upload(self, ruc: str, headers: Mapping[str, str], *, adjustments: bool = False) -> str:
        """``POST …/receptorpropuesta/web/propuesta/upload`` (TUS creation), or with ``adjustments``
        ``…/receptorajustesposteriores/web/ajustesposteriores/upload``: the upload's id."""
        if headers.get("tus-resumable") != "1.0.0":
            raise SireApiError(412, "412", "Tus-Resumable 1.0.0 es obligatorio")
        try:
            length = int(headers.get("upload-length") or "")
        except ValueError:
            raise SireApiError(400, "400", "Upload-Length es obligatorio") from None
        metadata: dict[str, str] = {}
        for item in (headers.get("upload-metadata") or "").split(","):
            key, _, value = item.strip().partition(" ")
            if key:
                try:
                    metadata[key] = base64.b64decode(value, validate=True).decode() if value else ""
                except (binascii.Error, ValueError, UnicodeDecodeError):
                    raise SireApiError(400, "400", f"Upload-Metadata {key} no es base64") from None
        for key in ("perTributario", "codOrigenEnvio", "codProceso", "nomArchivoImportacion", "codLibro"):
            if not metadata.get(key):
                raise SireApiError(422, "1044", f"falta {key} en la metadata")
        if metadata["codLibro"] != BOOK:
            raise SireApiError(422, "1161", "codLibro no permitido o no valido")
        self._check_period(metadata["perTributario"])
        name = metadata["nomArchivoImportacion"]
        if not name.lower().endswith(".zip"):
            raise SireApiError(422, "1348", "La extensión del archivo debe ser .zip")
        match = (_ADJUSTMENT if adjustments else _REPLACEMENT).match(name)
        if match is None or match.group(1) != ruc or match.group(2) != metadata["perTributario"]:
            raise SireApiError(
                422, "1044", f"Error en la posición-descripción del nombre del archivo plano {name}"
            )
        with self._lock:
            book = self._books.setdefault((ruc, metadata["perTributario"]), _Book())
            if name in book.files:
                raise SireApiError(422, "1024", f"El archivo {name} fue previamente enviado")
            if book.registered and not adjustments:
                raise SireApiError(422, "1009", "El registro electrónico ya ha sido generado.")
            upload_id = uuid.uuid4().hex
            self._uploads[upload_id] = _Upload(ruc, length, metadata, adjustments)
        return upload_id

    def upload_offset(self, ruc: str, upload_id: str) -> tuple[int, int]:
        """``HEAD`` of an upload: its offset and length."""
        with self._lock:
            upload = self._uploads.get(upload_id)
            if upload is None or upload.ruc != ruc:
                raise SireApiError(404, "404", "La carga no existe")
            return len(upload.data), upload.length

    def append(self, ruc: str, upload_id: str, offset: int, chunk: bytes) -> tuple[int, str]:
        """``PATCH`` of an upload: the new offset, and the ticket once the file is whole."""
        with self._lock:
            upload = self._uploads.get(upload_id)
            if upload is None or upload.ruc != ruc:
                raise SireApiError(404, "404", "La carga no existe")
            if offset != len(upload.data):
                raise SireApiError(409, "409", f"Upload-Offset {offset} no coincide con {len(upload.data)}")
            if len(upload.data) + len(chunk) > upload.length:
                raise SireApiError(413, "413", "El archivo supera Upload-Length")
            upload.data += chunk
            if len(upload.data) == upload.length and not upload.ticket:
                upload.ticket = self._import(upload)
            return len(upload.data), upload.ticket

    def _import(self, upload: _Upload) -> str:
        """A whole replacement file: checked, then the proposal replaced (or the ticket ends with errors)."""
        meta = upload.metadata
        period, name = meta["perTributario"], meta["nomArchivoImportacion"]
        book = self._books.setdefault((upload.ruc, period), _Book())
        ticket = self._ticket(upload.ruc, period, meta["codProceso"])
        ticket.source_file = name
        errors = []
        rows: list[list[str]] = []
        try:
            with zipfile.ZipFile(io.BytesIO(bytes(upload.data))) as archive:
                entries = archive.namelist()
                if entries != [name[:-4] + ".TXT"] and entries != [name[:-4] + ".txt"]:
                    errors.append(f"1044|El zip debe contener solo {name[:-4]}.TXT")
                else:
                    text = archive.read(entries[0]).decode("utf-8", errors="replace")
                    for number, line in enumerate(text.splitlines(), 1):
                        if not line.strip():
                            continue
                        fields = line.split("|")
                        if fields[-1] == "":
                            fields = fields[:-1]
                        if upload.adjustments:  # Anexo 5.1 (14.1 fields) or 5.2 (14.2), state 8 or 9
                            if len(fields) not in (26, 35) or fields[-1] not in ("8", "9"):
                                errors.append(f"453|Fila {number}: no cumple con la estructura de ajustes")
                            else:
                                rows.append(fields)
                            continue
                        if len(fields) != 33 or fields[0] != upload.ruc or fields[2] != period:
                            errors.append(
                                f"453|Fila {number}: no cumple con la estructura ({len(fields)} campos)"
                            )
                            continue
                        rows.append(self._forty(fields, upload.ruc, period))
        except zipfile.BadZipFile:
            errors.append("1044|El archivo no es un zip valido")
        found = self.mismatches(upload.ruc, period)
        if found is not None and found.reject_imports:
            errors.append("110|El total del comprobante no coincide con la suma de sus montos")
        if errors:
            ticket.failed = True
            ticket.detail = f"{len(errors)} error(es): {errors[0].split('|', 1)[1]}"
            report = "\r\n".join(["Nro|Código|Descripción", *(f"{i}|{e}" for i, e in enumerate(errors, 1))])
            ticket.files.append((f"{ticket.number}_errores.zip", "02", _zip("errores.txt", report.encode())))
        elif upload.adjustments:
            book.files.add(name)
            book.adjustments += rows
        else:
            book.files.add(name)  # a name taken is a name spent (1024); one with errors may be sent again
            book.preliminary = rows
            book.how = "reemplazada"
        return ticket.number


def _zip(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return buffer.getvalue()
