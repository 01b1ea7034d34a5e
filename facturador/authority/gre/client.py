"""The gateway the service sends dispatch guides through: SUNAT's GRE REST API spoken over HTTP.

:class:`GreClient` gets an OAuth2 token (``password`` grant, cached until a minute before it expires),
posts the zipped guide with its SHA-256 and asks for its ticket. The same client talks to the built-in
simulator (:mod:`facturador.authority.gre.app`) and to SUNAT (``https://api-seguridad.sunat.gob.pe`` and
``https://api-cpe.sunat.gob.pe``): only :class:`GreEndpoint` changes.
"""

from __future__ import annotations

import base64
import hashlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import requests

from facturador.authority.gre.simulator import SCOPE

__all__ = ["GreClient", "GreClientError", "GreEndpoint", "GreGateway", "GreReceipt", "GreTicket"]

#: SUNAT's hosts for the GRE API (``docs/sunat_domain.md``, transport).
SUNAT_TOKEN_URL = "https://api-seguridad.sunat.gob.pe"
SUNAT_API_URL = "https://api-cpe.sunat.gob.pe"
_REFRESH_MARGIN = 60.0


@dataclass(frozen=True)
class GreEndpoint:
    """Where and as whom to talk to a GRE API: the token host, the API host and the credentials
    (client id and secret from SUNAT's SOL menu, ``username`` = RUC + SOL user, its password)."""

    token_url: str
    api_url: str
    client_id: str
    client_secret: str = field(repr=False)
    username: str
    password: str = field(repr=False)


class GreClientError(Exception):
    """The GRE API could not be used: ``kind`` is "token" (credentials refused), "api" (SUNAT answered
    an error: ``code`` and ``message`` are its ``cod``/``msg``), or "transport" (no answer)."""

    def __init__(self, kind: str, code: str, message: str) -> None:
        super().__init__(f"{kind} {code}: {message}")
        self.kind = kind
        self.code = code
        self.message = message


@dataclass(frozen=True)
class GreReceipt:
    """SUNAT took the guide: its ticket (``numTicket``) and reception time (``fecRecepcion``)."""

    ticket: str
    received_at: str


@dataclass(frozen=True)
class GreTicket:
    """A ticket's state: ``code`` "98" (in process), "0" (accepted) or "99" (rejected), the CDR zip when
    one was generated and SUNAT's error (``error_code``/``error_message``) for 99."""

    code: str
    cdr_zip: bytes | None = None
    error_code: str = ""
    error_message: str = ""

    @property
    def in_process(self) -> bool:
        return self.code.lstrip("0") == "98"


class GreGateway(Protocol):
    """What the dispatch domain needs from the GRE API."""

    def send(self, filename: str, zip_bytes: bytes) -> GreReceipt:
        """Send a zipped guide (``filename`` without extension); raises :class:`GreClientError`."""
        ...

    def status(self, ticket: str) -> GreTicket:
        """The state of a ticket; raises :class:`GreClientError`."""
        ...


_TOKENS: dict[tuple[str, str, str, str], tuple[str, float]] = {}
_TOKENS_LOCK = threading.Lock()


class GreClient:
    """A :class:`GreGateway` over HTTP (``requests``); tokens are cached per endpoint and user."""

    def __init__(
        self, endpoint: GreEndpoint, *, timeout: float = 30.0, session: requests.Session | None = None
    ):
        self.endpoint = endpoint
        self.timeout = timeout
        self.session = session or requests.Session()

    @property
    def cache_key(self) -> tuple[str, str, str, str]:
        """Tokens are cached per host, client, user and a digest of the secrets (new credentials, new
        token)."""
        endpoint = self.endpoint
        secrets = hashlib.sha256(f"{endpoint.client_secret}\n{endpoint.password}".encode()).hexdigest()
        return (endpoint.token_url, endpoint.client_id, endpoint.username, secrets)

    def token(self) -> str:
        """A valid access token (cached until a minute before it expires)."""
        endpoint = self.endpoint
        key = self.cache_key
        with _TOKENS_LOCK:
            cached = _TOKENS.get(key)
        if cached is not None and cached[1] > time.time():
            return cached[0]
        url = f"{endpoint.token_url.rstrip('/')}/v1/clientessol/{endpoint.client_id}/oauth2/token/"
        form = {
            "grant_type": "password",
            "scope": SCOPE,
            "client_id": endpoint.client_id,
            "client_secret": endpoint.client_secret,
            "username": endpoint.username,
            "password": endpoint.password,
        }
        body = self._call("token", "POST", url, data=form)
        token = body.get("access_token")
        if not isinstance(token, str) or not token:
            raise GreClientError("token", "0", "Error al obtener token - respuesta sin access_token")
        expires_in = float(body.get("expires_in") or 0)
        with _TOKENS_LOCK:
            _TOKENS[key] = (token, time.time() + max(expires_in - _REFRESH_MARGIN, 0))
        return token

    def forget_token(self) -> None:
        """Drop the cached token (after the API refused it)."""
        with _TOKENS_LOCK:
            _TOKENS.pop(self.cache_key, None)

    def send(self, filename: str, zip_bytes: bytes) -> GreReceipt:
        """``POST .../comprobantes/{filename}`` with the base64 zip and its SHA-256."""
        payload = {
            "archivo": {
                "nomArchivo": f"{filename}.zip",
                "arcGreZip": base64.b64encode(zip_bytes).decode(),
                "hashZip": hashlib.sha256(zip_bytes).hexdigest(),
            }
        }
        url = f"{self._api()}/{filename}"
        body = self._authorized("POST", url, json=payload)
        ticket = body.get("numTicket")
        if not isinstance(ticket, str) or not ticket:
            raise GreClientError("api", "0", "No se obtuvo el ticket correctamente")
        return GreReceipt(ticket=ticket, received_at=str(body.get("fecRecepcion") or ""))

    def status(self, ticket: str) -> GreTicket:
        """``GET .../comprobantes/envios/{ticket}``."""
        body = self._authorized("GET", f"{self._api()}/envios/{ticket}")
        code = str(body.get("codRespuesta") or "")
        cdr = body.get("arcCdr")
        raw_error = body.get("error")
        error: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
        return GreTicket(
            code=code,
            cdr_zip=base64.b64decode(cdr) if isinstance(cdr, str) and cdr else None,
            error_code=str(error.get("numError") or ""),
            error_message=str(error.get("desError") or ""),
        )

    # -- plumbing ---------------------------------------------------------------------------------

    def _api(self) -> str:
        return f"{self.endpoint.api_url.rstrip('/')}/v1/contribuyente/gem/comprobantes"

    def _authorized(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        """Call the API with the token; a refused token is renewed once."""
        for attempt in (1, 2):
            headers = {"Authorization": f"Bearer {self.token()}"}
            try:
                return self._call("api", method, url, headers=headers, **kwargs)
            except GreClientError as exc:
                if exc.code != "401" or attempt == 2:
                    raise
                self.forget_token()
        raise AssertionError("unreachable")  # pragma: no cover

    def _call(self, kind: str, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = self.session.request(method, url, timeout=self.timeout, **kwargs)
        except requests.RequestException as exc:
            raise GreClientError("transport", "0", f"{type(exc).__name__}: {exc}") from exc
        try:
            body = response.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        if response.status_code >= 400:
            if kind == "token":
                raise GreClientError(
                    "token",
                    "0",
                    f"Error al obtener token - error_description: {body.get('error_description', '')} "
                    f"error: {body.get('error', response.status_code)}",
                )
            code = str(body.get("cod") or response.status_code)
            raise GreClientError("api", code, str(body.get("msg") or response.reason))
        return body
