"""A client of SUNAT's SIRE REST API for the sales register (RVIE), and the record of a close's progress.

Routes, parameters and answers follow SUNAT's «Manual de Servicios Web API SIRE Ventas» v29/v30 (see
``docs/sire.md`` for the sources and what changed since v22). Every route hangs from
``https://api-sire.sunat.gob.pe/v1/contribuyente/migeigv/libros``; the token comes from
``https://api-seguridad.sunat.gob.pe/v1/clientessol/{client_id}/oauth2/token/`` (password grant: the API
client id/secret the company creates in SOL, ``username`` = RUC + SOL user, its SOL password, scope
``https://api-sire.sunat.gob.pe``). Both bases are parameters, so the same code talks to the simulator
(``facturador sunat`` / ``facturador serve``) and to SUNAT.

:class:`SireClient` keeps the token until a minute before it expires, asks for a new one once when the
API answers 401, retries a throttled or unavailable API (429, 502, 503, 504, connection errors) a bounded
number of times, honouring ``Retry-After``, and raises a :class:`SireError` naming what to do for
everything else. Secrets are never logged nor shown in a ``repr``.

:class:`SireProgress` keeps, beside the tenant's month closes, what was asked and sent to SIRE and when
(tickets, files, their SHA-256, the TUS upload's address), so a rerun continues where it stopped.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import io
import os
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import requests

from connector.secrets import BACKEND_ENV, PASSPHRASE_ENV, SecretsError, SecretStore, open_secrets

__all__ = [
    "API_BASE",
    "BOOK_RVIE",
    "SCOPE",
    "TICKET_STATES",
    "TOKEN_BASE",
    "SireClient",
    "SireCredentialError",
    "SireCredentials",
    "SireError",
    "SirePeriod",
    "SirePeriodNotOpen",
    "SireProgress",
    "SireProposalError",
    "SireRejected",
    "SireTicket",
    "SireTicketTimeout",
    "SireUnavailable",
    "parse_proposal",
    "progress_path",
]

TOKEN_BASE = "https://api-seguridad.sunat.gob.pe/v1"
API_BASE = "https://api-sire.sunat.gob.pe/v1/contribuyente/migeigv/libros"
SCOPE = "https://api-sire.sunat.gob.pe"
#: The API's book code of the RVIE (the file names use 140400, PLE 140100).
BOOK_RVIE = "140000"
#: ``codOrigenEnvio``: 2 = API (since manual v22; 1 is the portal and answers 422).
ORIGIN_API = "2"
#: ``codProceso`` of the RVIE imports (Anexo I): 3 replaces the proposal, 4 adds CPs to the preliminar,
#: 6 adjustments of later periods; 10 is the proposal export, 2 the acceptance.
PROCESS_REPLACE = "3"
PROCESS_ADD = "4"
PROCESS_ADJUST = "6"
#: Adjustments of periods before SIRE (Anexo 5.1/5.2, file CC 04/05): not confirmed by a source read (the
#: manual's own examples send 87/88; docs/sire.md).
PROCESS_ADJUST_EARLIER = "7"
#: Where the imports go: those that change the proposal, and the later adjustments.
PROPOSAL_UPLOAD = "rvierce/receptorpropuesta/web/propuesta/upload"
ADJUSTMENTS_UPLOAD = "rvierce/receptorajustesposteriores/web/ajustesposteriores/upload"
#: ``codEstadoProceso`` of a ticket (manual Ventas v29, Anexo III): name, finished, with errors.
TICKET_STATES: dict[str, tuple[str, bool, bool]] = {
    "01": ("Cargado", False, False),
    "02": ("Validando archivo", False, False),
    "03": ("Procesado con errores", True, True),
    "04": ("Procesado sin errores", True, False),
    "05": ("En proceso", False, False),
    "06": ("Terminado", True, False),
}
#: Seconds before expiry a token is no longer used.
TOKEN_MARGIN = 60
#: Answers worth sending the same request again after a wait.
RETRY_STATUSES = frozenset({429, 502, 503, 504})
#: Longest wait honoured from ``Retry-After``.
MAX_RETRY_AFTER = 120.0
#: TUS chunk size (SUNAT's own Java client sends 5 MB chunks).
CHUNK = 5 * 1024 * 1024


# ------------------------------------------------------------------------------------------------ errors


class SireError(Exception):
    """SIRE refused or could not be reached: ``message`` says what happened, ``action`` what to do."""

    def __init__(self, message: str, action: str = "", *, code: str = "", status: int | None = None):
        super().__init__(f"{message}. {action}".strip() if action else message)
        self.message = message
        self.action = action
        self.code = code
        self.status = status


class SireCredentialError(SireError):
    """The token endpoint refused the credentials, or the API refused a fresh token."""


class SireUnavailable(SireError):
    """SIRE is down or throttling, and still was after the bounded retries."""


class SirePeriodNotOpen(SireError):
    """The period is not among those SIRE offers for the RVIE (not yet open, or already generated)."""


class SireRejected(SireError):
    """SIRE answered with a business error (422 ``{cod, msg, errors}``) or a ticket with errors."""


class SireProposalError(SireError):
    """The proposal file SUNAT gave cannot be read."""


class SireTicketTimeout(SireError):
    """A ticket still runs after the polls allowed: the progress keeps it, a rerun asks again."""


# ------------------------------------------------------------------------------------------- credentials


#: The environment variables of SIRE's credentials, and the names of the same in the analyst's secrets.
_ENV_NAMES = ("SIRE_CLIENT_ID", "SIRE_CLIENT_SECRET", "SIRE_SOL_USER", "SIRE_SOL_PASSWORD")
_SECRET_NAMES = ("sire_client_id", "sire_client_secret", "sol_user", "sol_password")


@dataclass(frozen=True)
class SireCredentials:
    """The company's SIRE credentials: the API client id/secret generated in SOL, its RUC, SOL user and SOL
    password. The secrets never appear in a ``repr``."""

    client_id: str
    client_secret: str = field(repr=False)
    ruc: str
    sol_user: str
    sol_password: str = field(repr=False)

    @classmethod
    def from_env(cls, ruc: str, environ: Mapping[str, str] | None = None) -> SireCredentials:
        """From ``SIRE_CLIENT_ID``, ``SIRE_CLIENT_SECRET``, ``SIRE_SOL_USER`` and ``SIRE_SOL_PASSWORD``;
        raises :class:`SireCredentialError` naming the variables that are missing."""
        env = os.environ if environ is None else environ
        names = _ENV_NAMES
        missing = [name for name in names if not env.get(name)]
        if missing:
            raise SireCredentialError(
                f"SIRE's credentials are missing: {', '.join(missing)}",
                "Set them in the environment (the API client id/secret are generated in SOL: Empresas » "
                "Credenciales de API SUNAT, URI «MIGE RCE y RVIE – SIRE»)",
            )
        values = [env[name] for name in names]
        return cls(values[0], values[1], ruc, values[2], values[3])

    @classmethod
    def for_tenant(
        cls,
        tenant: str,
        ruc: str,
        *,
        environ: Mapping[str, str] | None = None,
        secrets: SecretStore | None = None,
    ) -> SireCredentials:
        """The credentials of ``tenant``: from the environment when it names any ``SIRE_*`` variable
        (:meth:`from_env`), else from the analyst's secret store (:mod:`connector.secrets`:
        ``sire_client_id``, ``sire_client_secret``, ``sol_user``, ``sol_password`` of the tenant)."""
        env = os.environ if environ is None else environ
        if any(env.get(name) for name in _ENV_NAMES):
            return cls.from_env(ruc, env)
        try:
            store = (
                secrets
                if secrets is not None
                else open_secrets(env.get(BACKEND_ENV), passphrase=env.get(PASSPHRASE_ENV, ""))
            )
            values = [store.get(tenant, name) or "" for name in _SECRET_NAMES]
        except SecretsError as exc:
            raise SireCredentialError(
                f"SIRE's credentials of {tenant} are neither in the environment nor readable: {exc}",
                f"Set {', '.join(_ENV_NAMES)}, or keep them with «facturador secrets set {tenant} NAME» "
                f"({', '.join(_SECRET_NAMES)}) and give the secrets file's passphrase",
            ) from None
        missing = [name for name, value in zip(_SECRET_NAMES, values, strict=True) if not value]
        if missing:
            raise SireCredentialError(
                f"SIRE's credentials of {tenant} are missing from the secrets: {', '.join(missing)}",
                f"Keep them with «facturador secrets set {tenant} NAME», or set {', '.join(_ENV_NAMES)}",
            )
        return cls(values[0], values[1], ruc, values[2], values[3])

    @property
    def username(self) -> str:
        """The grant's ``username``: RUC and SOL user together."""
        return f"{self.ruc}{self.sol_user}"


# --------------------------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class SirePeriod:
    """A period SIRE offers for the RVIE: ``YYYYMM``, its state code and SUNAT's words for it."""

    period: str
    code: str
    state: str

    @property
    def open(self) -> bool:
        """Not yet presented (SUNAT writes «Presentado» once the register is generated)."""
        return "presentado" not in self.state.lower() or "no presentado" in self.state.lower()


@dataclass(frozen=True)
class SireTicket:
    """One ticket as ``consultaestadotickets`` lists it."""

    ticket: str
    period: str
    code: str
    state: str
    process: str
    files: tuple[dict[str, str], ...] = ()
    detail: str = ""

    @property
    def finished(self) -> bool:
        """SUNAT has finished it (with or without errors); an unknown code is not finished."""
        return TICKET_STATES.get(self.code, ("", False, False))[1]

    @property
    def failed(self) -> bool:
        """Finished with errors."""
        return TICKET_STATES.get(self.code, ("", False, False))[2]

    @property
    def label(self) -> str:
        """What a person reads: SUNAT's words and the code, e.g. ``Terminado (06)``."""
        name = self.state or TICKET_STATES.get(self.code, (f"estado {self.code} no documentado",))[0]
        return f"{name} ({self.code})"

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> SireTicket:
        files = tuple(
            {
                "name": str(item.get("nomArchivoReporte") or ""),
                # SUNAT spells the key both ways in its manuals and answers
                "type": str(item.get("codTipoArchivoReporte") or item.get("codTipoAchivoReporte") or ""),
            }
            for item in row.get("archivoReporte") or []
            if isinstance(item, Mapping)
        )
        detail = row.get("detalleTicket") or {}
        errors = detail.get("desError") if isinstance(detail, Mapping) else ""
        return cls(
            ticket=str(row.get("numTicket") or ""),
            period=str(row.get("perTributario") or ""),
            code=str(row.get("codEstadoProceso") or ""),
            state=str(row.get("desEstadoProceso") or ""),
            process=str(row.get("codProceso") or ""),
            files=files,
            detail=str(errors or ""),
        )


def _period_code(period: str) -> str:
    """``YYYYMM`` of ``YYYY-MM`` or ``YYYYMM``."""
    text = period.replace("-", "").strip()
    if len(text) != 6 or not text.isdigit() or not 1 <= int(text[4:]) <= 12:
        raise ValueError(f"a SIRE period is YYYYMM or YYYY-MM (got {period!r})")
    return text


# ---------------------------------------------------------------------------------------------- client


class SireClient:
    """SUNAT's SIRE API for the RVIE (see module doc).

    ``token_base`` / ``api_base``: where the token endpoint and the books API live (SUNAT's by default);
    ``clock`` gives epoch seconds (token expiry), ``sleep`` waits (both injectable for tests);
    ``retries``: how many times a throttled or unavailable request is sent again; ``timeout``: seconds
    per request; ``progress``: a callable told, in a sentence, what the client waits for.
    """

    def __init__(
        self,
        credentials: SireCredentials,
        *,
        token_base: str = TOKEN_BASE,
        api_base: str = API_BASE,
        session: requests.Session | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        retries: int = 3,
        timeout: float = 60.0,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.credentials = credentials
        self.token_base = token_base.rstrip("/")
        self.api_base = api_base.rstrip("/")
        self.session = session or requests.Session()
        self.clock = clock
        self.sleep = sleep
        self.retries = retries
        self.timeout = timeout
        self.progress = progress
        self._token: str | None = None
        self._expires = 0.0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SireClient({self.credentials!r}, api_base={self.api_base!r})"

    def close(self) -> None:
        """Close the HTTP session."""
        self.session.close()

    def __enter__(self) -> SireClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- transport ----------------------------------------------------------------------------------

    def _tell(self, sentence: str) -> None:
        if self.progress is not None:
            self.progress(sentence)

    def _send(self, method: str, url: str, **kwargs: Any) -> requests.Response:
        """One request, sent again after a wait while SIRE throttles or is unavailable."""
        for attempt in range(self.retries + 1):
            try:
                response = self.session.request(method, url, timeout=self.timeout, **kwargs)
            except (requests.ConnectionError, requests.Timeout) as exc:
                if attempt == self.retries:
                    raise SireUnavailable(
                        f"SIRE cannot be reached ({type(exc).__name__})",
                        "Check the connection and run the same command again later: it continues where "
                        "it stopped",
                    ) from None
                wait = min(2.0**attempt, MAX_RETRY_AFTER)
            else:
                if response.status_code not in RETRY_STATUSES:
                    return response
                if attempt == self.retries:
                    what = "is throttling the requests" if response.status_code == 429 else "is unavailable"
                    raise SireUnavailable(
                        f"SIRE {what} (HTTP {response.status_code}, {self.retries + 1} attempts)",
                        "Wait a few minutes and run the same command again: it continues where it stopped",
                        status=response.status_code,
                    )
                wait = _retry_after(response.headers.get("Retry-After"), attempt)
            self._tell(f"SIRE no responde, se reintenta en {wait:.0f} s")
            self.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def token(self, *, fresh: bool = False) -> str:
        """A bearer token, reused until :data:`TOKEN_MARGIN` seconds before it expires."""
        with self._lock:
            if not fresh and self._token is not None and self.clock() < self._expires - TOKEN_MARGIN:
                return self._token
            c = self.credentials
            response = self._send(
                "POST",
                f"{self.token_base}/clientessol/{c.client_id}/oauth2/token/",
                data={
                    "grant_type": "password",
                    "scope": SCOPE,
                    "client_id": c.client_id,
                    "client_secret": c.client_secret,
                    "username": c.username,
                    "password": c.sol_password,
                },
            )
            body = _json(response)
            if response.status_code != 200 or not isinstance(body, dict) or not body.get("access_token"):
                raise _token_error(response.status_code, body)
            self._token = str(body["access_token"])
            self._expires = self.clock() + float(body.get("expires_in") or 3600)
            return self._token

    def _api(self, method: str, path: str, *, raw: bool = False, **kwargs: Any) -> Any:
        """Call the books API; a 401 gets one fresh token, then is the credentials' fault."""
        url = f"{self.api_base}/{path.lstrip('/')}"
        for fresh in (False, True):
            headers = {**kwargs.pop("headers", {}), "Authorization": f"Bearer {self.token(fresh=fresh)}"}
            response = self._send(method, url, headers=headers, **kwargs)
            kwargs["headers"] = {k: v for k, v in headers.items() if k != "Authorization"}
            if response.status_code != 401:
                break
        else:
            raise SireCredentialError(
                "SIRE refused a fresh token (HTTP 401)",
                "Check that the API credentials include the SIRE URI («MIGE RCE y RVIE – SIRE») in SOL",
                status=401,
            )
        if response.status_code >= 400:
            raise _api_error(response, path)
        if raw:
            return response
        return _json(response)

    # -- operations ---------------------------------------------------------------------------------

    def periods(self) -> list[SirePeriod]:
        """The RVIE periods SIRE offers (service «consultar año y mes»), newest first."""
        body = self._api("GET", f"rvierce/padron/web/omisos/{BOOK_RVIE}/periodos")
        found = []
        for year in body if isinstance(body, list) else []:
            for item in year.get("lisPeriodos") or [] if isinstance(year, Mapping) else []:
                found.append(
                    SirePeriod(
                        str(item.get("perTributario") or ""),
                        str(item.get("codEstado") or ""),
                        str(item.get("desEstado") or ""),
                    )
                )
        return sorted(found, key=lambda p: p.period, reverse=True)

    def check_open(self, period: str) -> SirePeriod:
        """The period when SIRE offers it open; raises :class:`SirePeriodNotOpen` otherwise."""
        code = _period_code(period)
        found = {p.period: p for p in self.periods()}
        item = found.get(code)
        if item is None:
            raise SirePeriodNotOpen(
                f"SIRE does not offer the RVIE of {code} (it offers {', '.join(sorted(found)) or 'none'})",
                "SUNAT opens a month's proposal from the 2nd day of the next month: run it again then",
                code="periodo",
            )
        if not item.open:
            raise SirePeriodNotOpen(
                f"the RVIE of {code} is already {item.state.lower()} in SIRE",
                "Corrections of a generated period go as adjustments (ajustes posteriores), not a new close",
                code="presentado",
            )
        return item

    def request_proposal(self, period: str) -> str:
        """Ask for the proposal export (TXT); returns its ticket."""
        code = _period_code(period)
        body = self._api(
            "GET",
            f"rvie/propuesta/web/propuesta/{code}/exportapropuesta",
            params={"codTipoArchivo": "0", "codOrigenEnvio": ORIGIN_API},
        )
        return _ticket_of(body)

    def ticket(self, period: str, ticket: str) -> SireTicket:
        """The state of ``ticket`` of ``period`` (the listing needs the period: the number lacks it)."""
        code = _period_code(period)
        body = self._api(
            "GET",
            "rvierce/gestionprocesosmasivos/web/masivo/consultaestadotickets",
            params={
                "perIni": code,
                "perFin": code,
                "page": "1",
                "perPage": "20",
                "numTicket": ticket,
                "codLibro": BOOK_RVIE,
                "codOrigenEnvio": ORIGIN_API,
            },
        )
        for row in (body or {}).get("registros") or []:
            if str(row.get("numTicket")) == ticket:
                return SireTicket.of(row)
        raise SireRejected(
            f"SIRE does not list ticket {ticket} for {code}",
            "Ask again (run the command with --restart to ask for a new proposal)",
            code="ticket",
        )

    def tickets(self, period: str) -> list[SireTicket]:
        """Every ticket of ``period``."""
        code = _period_code(period)
        body = self._api(
            "GET",
            "rvierce/gestionprocesosmasivos/web/masivo/consultaestadotickets",
            params={
                "perIni": code,
                "perFin": code,
                "page": "1",
                "perPage": "100",
                "codLibro": BOOK_RVIE,
                "codOrigenEnvio": ORIGIN_API,
            },
        )
        return [SireTicket.of(row) for row in (body or {}).get("registros") or []]

    def wait(
        self,
        period: str,
        ticket: str,
        *,
        polls: int = 30,
        interval: float = 2.0,
        seen: Callable[[SireTicket], None] | None = None,
    ) -> SireTicket:
        """Poll ``ticket`` until it finishes, at most ``polls`` times ``interval`` seconds apart (doubling up
        to 30 s); ``seen`` is told every state. Raises :class:`SireTicketTimeout` when it still runs."""
        state = self.ticket(period, ticket)
        for poll in range(polls):
            if seen is not None:
                seen(state)
            if state.finished:
                return state
            if poll == polls - 1:
                break
            self.sleep(min(interval * 2 ** min(poll, 4), 30.0))
            state = self.ticket(period, ticket)
        raise SireTicketTimeout(
            f"ticket {ticket} is still «{state.label}» after {polls} polls",
            "Run the same command again later: it asks about this ticket, it does not send anything again",
            code=state.code,
        )

    def download(self, period: str, ticket: SireTicket) -> bytes:
        """The first file a finished ticket offers (``archivoreporte``)."""
        if not ticket.files:
            raise SireProposalError(
                f"ticket {ticket.ticket} offers no file", "Ask for the proposal again (--restart)"
            )
        item = ticket.files[0]
        response = self._api(
            "GET",
            "rvierce/gestionprocesosmasivos/web/masivo/archivoreporte",
            raw=True,
            params={
                "nomArchivoReporte": item["name"],
                "codTipoArchivoReporte": item["type"],
                "perTributario": _period_code(period),
                "codProceso": ticket.process,
                "numTicket": ticket.ticket,
                "codLibro": BOOK_RVIE,
            },
        )
        return bytes(response.content)

    def accept(self, period: str) -> str:
        """Accept the proposal as it is (``aceptapropuesta``); returns its ticket."""
        code = _period_code(period)
        body = self._api(
            "POST",
            f"rvie/propuesta/web/propuesta/{code}/aceptapropuesta",
            json={"codOrigenEnvio": ORIGIN_API},
        )
        return _ticket_of(body)

    def register_preliminary(self, period: str) -> str:
        """Register the preliminar (``registrapreliminar``); returns its ticket."""
        code = _period_code(period)
        body = self._api(
            "POST",
            f"rvierce/gestionlibro/web/registroslibros/{code}/registrapreliminar",
            json={"codLibro": BOOK_RVIE, "codOrigenEnvio": ORIGIN_API},
        )
        return _ticket_of(body)

    def summary(self, period: str, kind: str = "2") -> bytes:
        """The summary of the period (``resumencomprobantes``; ``kind`` 1 proposal, 2 preliminar), TXT."""
        code = _period_code(period)
        response = self._api(
            "GET",
            f"rvierce/resumen/web/resumencomprobantes/{code}/{kind}/0/exporta",
            raw=True,
            params={"codLibro": BOOK_RVIE},
        )
        return bytes(response.content)

    # -- TUS uploads --------------------------------------------------------------------------------

    def start_upload(
        self,
        period: str,
        name: str,
        data: bytes,
        process: str = PROCESS_REPLACE,
        route: str = PROPOSAL_UPLOAD,
    ) -> str:
        """Create a TUS 1.0.0 upload of the zip ``name`` (``POST …/receptorpropuesta/web/propuesta/upload``,
        or ``route``, with SUNAT's metadata); returns the upload's address (keep it: :meth:`resume_upload`
        uses it)."""
        code = _period_code(period)
        metadata = {
            "filename": name,
            "filetype": "application/zip",
            "perTributario": code,
            "codOrigenEnvio": ORIGIN_API,
            "codProceso": process,
            "codTipoCorrelativo": "01",
            "nomArchivoImportacion": name,
            "codLibro": BOOK_RVIE,
        }
        header = ",".join(
            f"{key} {base64.b64encode(value.encode()).decode()}" for key, value in metadata.items()
        )
        response = self._api(
            "POST",
            route,
            raw=True,
            headers={"Tus-Resumable": "1.0.0", "Upload-Length": str(len(data)), "Upload-Metadata": header},
        )
        location = response.headers.get("Location")
        if response.status_code != 201 or not location:
            raise SireRejected(f"SIRE did not open the upload of {name} (HTTP {response.status_code})")
        if location.startswith("/"):
            scheme, _, rest = self.api_base.partition("://")
            location = f"{scheme}://{rest.split('/', 1)[0]}{location}"
        return location

    def resume_upload(self, location: str, data: bytes) -> str | None:
        """Send what the upload at ``location`` still lacks (``HEAD`` for its offset, then ``PATCH`` chunks);
        returns the ticket SUNAT answers with the last chunk (``None`` when it gives none)."""
        head = self._upload_call("HEAD", location, {})
        offset = int(head.headers.get("Upload-Offset") or 0)
        ticket: str | None = None
        while offset < len(data):
            chunk = data[offset : offset + CHUNK]
            response = self._upload_call(
                "PATCH",
                location,
                {"Upload-Offset": str(offset), "Content-Type": "application/offset+octet-stream"},
                chunk,
            )
            offset = int(response.headers.get("Upload-Offset") or offset + len(chunk))
            body = _json(response) if response.content else None
            if isinstance(body, dict) and body.get("numTicket"):
                ticket = str(body["numTicket"])
            ticket = response.headers.get("numTicket") or ticket
        return ticket

    def _upload_call(
        self, method: str, location: str, headers: dict[str, str], body: bytes | None = None
    ) -> requests.Response:
        for fresh in (False, True):
            sent = {**headers, "Tus-Resumable": "1.0.0", "Authorization": f"Bearer {self.token(fresh=fresh)}"}
            response = self._send(method, location, headers=sent, data=body)
            if response.status_code != 401:
                break
        if response.status_code == 401:
            raise SireCredentialError("SIRE refused a fresh token during the upload (HTTP 401)")
        if response.status_code >= 400:
            raise _api_error(response, "upload")
        return response

    def upload(
        self,
        period: str,
        name: str,
        data: bytes,
        process: str = PROCESS_REPLACE,
        route: str = PROPOSAL_UPLOAD,
    ) -> str:
        """Upload a zip whole (create, then send it) and return its ticket, found in the listing by the file's
        name when the last answer carries none."""
        location = self.start_upload(period, name, data, process, route)
        return self.finish_upload(period, name, location, data)

    def finish_upload(self, period: str, name: str, location: str, data: bytes) -> str:
        """Send the rest of an upload and find its ticket."""
        ticket = self.resume_upload(location, data)
        return ticket or self.ticket_of_file(period, name)

    def ticket_of_process(self, period: str, process: str) -> str:
        """The newest ticket SIRE lists for ``period`` and ``codProceso`` (an acceptance or a preliminar sent
        by a run that stopped before it kept the ticket)."""
        found = [t for t in self.tickets(period) if t.process == process]
        if not found:
            raise SireRejected(f"SIRE lists no ticket of process {process} for {period}", "Run it again")
        return max(found, key=lambda t: t.ticket).ticket

    def ticket_of_file(self, period: str, name: str) -> str:
        """The ticket SIRE gave the import of the file ``name`` (the listing names each import's file)."""
        for item in self.tickets(period):
            if any(f["name"] == name for f in item.files) or item.detail == name:
                return item.ticket
        raise SireRejected(f"SIRE lists no ticket for the file {name}", "Run the command again in a minute")


def _retry_after(value: str | None, attempt: int) -> float:
    """Seconds to wait: ``Retry-After`` (seconds or an HTTP date) when given, else 1, 2, 4... s."""
    if value:
        try:
            return min(max(float(value), 0.0), MAX_RETRY_AFTER)
        except ValueError:
            from email.utils import parsedate_to_datetime

            try:
                moment = parsedate_to_datetime(value)
                return min(max((moment - dt.datetime.now(dt.UTC)).total_seconds(), 0.0), MAX_RETRY_AFTER)
            except (TypeError, ValueError):
                pass
    return min(2.0**attempt, MAX_RETRY_AFTER)


def _json(response: requests.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _ticket_of(body: Any) -> str:
    ticket = body.get("numTicket") if isinstance(body, dict) else None
    if not ticket:
        raise SireRejected("SIRE answered without a ticket (numTicket)", "Run the command again")
    return str(ticket)


def _token_error(status: int, body: Any) -> SireError:
    error = str(body.get("error") or "") if isinstance(body, dict) else ""
    if error == "invalid_client" or status == 401:
        return SireCredentialError(
            "SUNAT refused the API client id or secret (invalid_client)",
            "Check the client id/secret generated in SOL (Credenciales de API SUNAT) for this RUC",
            code=error,
            status=status,
        )
    if error == "invalid_grant":
        return SireCredentialError(
            "SUNAT refused the SOL user or password (invalid_grant)",
            "Check the SOL user and password (username is RUC + SOL user); a blocked SOL user is "
            "unblocked in SOL",
            code=error,
            status=status,
        )
    return SireError(
        f"SUNAT's token endpoint answered HTTP {status} ({error or 'no error code'})", code=error
    )


#: Codes of the 422 answers that mean the period cannot be worked (manual Ventas, errors).
_PERIOD_CODES = {"1006", "1007", "1067"}


def _api_error(response: requests.Response, path: str) -> SireError:
    """The :class:`SireError` of an API answer >= 400 (the code that matters is inside ``errors``)."""
    body = _json(response)
    codes: list[tuple[str, str]] = []
    if isinstance(body, dict):
        for item in body.get("errors") or []:
            if isinstance(item, Mapping):
                codes.append((str(item.get("cod") or ""), str(item.get("msg") or "")))
        if not codes:
            codes.append((str(body.get("cod") or ""), str(body.get("msg") or "")))
    status = response.status_code
    if not codes or not any(c or m for c, m in codes):
        if status >= 500:
            return SireUnavailable(
                f"SIRE answered HTTP {status} without a message for {path}",
                "SUNAT's gateway answers a route or parameter it does not know with a bare 500: check "
                "the manual version (docs/sire.md), or run again later",
                status=status,
            )
        return SireRejected(f"SIRE answered HTTP {status} for {path}", status=status)
    code, msg = codes[0]
    text = "; ".join(f"{c} {m}".strip() for c, m in codes)
    if code in _PERIOD_CODES:
        return SirePeriodNotOpen(
            f"SIRE refuses the period: {text}",
            "Choose a period SIRE offers (facturador sire --periods)",
            code=code,
        )
    return SireRejected(
        f"SIRE refused {path}: {text}", "Correct what SIRE says and run again", code=code, status=status
    )


# ------------------------------------------------------------------------------------------ the proposal


def parse_proposal(data: bytes) -> list[list[str]]:
    """The rows of SUNAT's proposal export (the ZIP it comes in, or its TXT): header skipped, 40 fields
    each. Raises :class:`SireProposalError` for a file that is not one."""
    text_bytes = data
    if data[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = [n for n in archive.namelist() if n.lower().endswith(".txt")]
                if not names:
                    raise SireProposalError("the proposal ZIP holds no TXT", "Ask for the proposal again")
                text_bytes = archive.read(names[0])
        except zipfile.BadZipFile as exc:
            raise SireProposalError(f"the proposal is a broken ZIP ({exc})", "Ask for it again") from None
    try:
        text = text_bytes.decode("utf-8")
    except UnicodeDecodeError:
        text = text_bytes.decode("latin-1")
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    rows = []
    for number, line in enumerate(lines, 1):
        fields = line.split("|")
        if fields and fields[-1] == "":
            fields = fields[:-1]
        if number == 1 and fields and not fields[0].strip().isdigit():
            continue  # the header row
        if len(fields) < 33 or not fields[0].strip().isdigit():
            raise SireProposalError(
                f"line {number} of the proposal is not an RVIE row ({len(fields)} fields): {line[:60]!r}",
                "Ask for the proposal again; if it repeats, download it in SOL and report the file",
            )
        rows.append(fields)
    return rows


# --------------------------------------------------------------------------------------------- progress


def progress_path(closes_file: str | Path) -> Path:
    """Where the SIRE progress of a tenant is kept: beside its closes file (``….sire.json``)."""
    path = Path(closes_file)
    name = path.name.removesuffix(".closes.json").removesuffix(".json")
    return path.with_name(f"{name}.sire.json")


class SireProgress:
    """What a tenant's SIRE closes asked and sent, by period, in a JSON file written whole::

    {"periods": {"2026-10": {"proposal": {"ticket": ..., "asked_at": ..., "state": ...},
                             "decision": {"action": "replace", "file": ..., "sha256": ...,
                                          "upload": ..., "ticket": ..., "sent_at": ...},
                             "preliminary": {...}, "events": [{"at": ..., "what": ...}]}}}
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._data: dict[str, Any] = {"periods": {}}
        if self.path is not None and self.path.is_file():
            try:
                self._data = orjson.loads(self.path.read_bytes())
            except orjson.JSONDecodeError as exc:
                raise ValueError(f"the SIRE progress file {self.path} cannot be read: {exc}") from exc

    def period(self, period: str) -> dict[str, Any]:
        """The record of ``period`` (``YYYY-MM``), empty when nothing was done."""
        return dict(self._data["periods"].get(period) or {})

    def update(self, period: str, step: str, values: Mapping[str, Any], event: str, at: dt.datetime) -> None:
        """Merge ``values`` into ``step`` of ``period``, log ``event`` at ``at``, and keep the file."""
        with self._lock:
            record = self._data["periods"].setdefault(period, {})
            record.setdefault(step, {}).update(values)
            record.setdefault("events", []).append({"at": at.isoformat(timespec="seconds"), "what": event})
            self._save()

    def forget(self, period: str, step: str) -> None:
        """Drop ``step`` of ``period`` (a restart)."""
        with self._lock:
            (self._data["periods"].get(period) or {}).pop(step, None)
            self._save()

    def events(self, period: str) -> list[dict[str, str]]:
        """What was done for ``period``, in order."""
        return list(self.period(period).get("events") or [])

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._data["periods"]))

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = orjson.dumps(self._data, option=orjson.OPT_INDENT_2)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()
