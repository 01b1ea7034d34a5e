"""The validity API's behaviour as plain Python (the HTTP face is :mod:`.app`).

- :meth:`ValiditySimulator.token`: ``POST /v1/clientesextranet/{client_id}/oauth2/token/`` with
  ``grant_type=client_credentials``, the scope of :data:`sunat.validity.SCOPE` and the client's id and
  secret; tokens are HMAC-signed and expire after ``token_ttl`` seconds (3600, as SUNAT's);
- :meth:`ValiditySimulator.check`: ``POST /v1/contribuyente/contribuyentes/{ruc}/validarcomprobante``:
  the bearer token, the client's rate (a token bucket: ``rate`` queries a second, a burst of one
  second's worth; over it HTTP 429 with ``Retry-After``), the body's fields (400), then the answer from
  the registry: accepted "1", voided "2", never received "0", rejected "0" with an observation saying so.

The registry keeps neither the date of issue nor the total, so ``fechaEmision`` and ``monto`` are checked
for their format only (SUNAT also compares them with the document).
"""

from __future__ import annotations

import hmac
import math
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from facturador.authority.bearer import TokenError, TokenRefused, issue_token, read_token
from facturador.authority.registry import Registry, RegistryKey
from sunat.validity import SCOPE, ValidityAnswer, ValidityQuery

__all__ = [
    "DEFAULT_RATE",
    "SIMULATOR_CLIENT_ID",
    "SIMULATOR_CLIENT_SECRET",
    "ApiError",
    "RateLimiter",
    "StaticClients",
    "TokenError",
    "ValiditySimulator",
]

#: The client credentials of the built-in simulator (public by design, like SUNAT's beta users).
SIMULATOR_CLIENT_ID = "facturador-validez-simulator"
SIMULATOR_CLIENT_SECRET = "facturador-validez-simulator-secret"
DEFAULT_TOKEN_TTL = 3600
#: Queries a second each client may make before the simulator answers 429 (``rate``).
DEFAULT_RATE = 20.0


class ApiError(Exception):
    """The query is refused: HTTP ``status``, a ``message`` and an ``error_code``; ``retry_after`` for
    429."""

    def __init__(self, status: int, message: str, error_code: str = "", retry_after: int | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.error_code = error_code or str(status)
        self.retry_after = retry_after

    def body(self) -> dict[str, Any]:
        return {"success": False, "message": self.message, "errorCode": self.error_code}

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)} if self.retry_after is not None else {}


@dataclass(frozen=True)
class StaticClients:
    """The API clients the simulator knows: client id -> secret."""

    clients: Mapping[str, str]

    def authenticate(self, client_id: str, client_secret: str) -> None:
        """Raise :class:`TokenError` 401 ``invalid_client`` unless the secret is the client's."""
        expected = self.clients.get(client_id)
        if expected is None or not hmac.compare_digest(expected.encode(), client_secret.encode()):
            raise TokenError(401, "invalid_client", "cliente no autorizado")


class RateLimiter:
    """A token bucket per key: ``rate`` a second, at most ``max(rate, 1)`` kept; thread-safe."""

    def __init__(self, rate: float | None, clock: Callable[[], float]):
        self.rate = rate
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when ``key`` may ask now (one token taken), else the seconds until it may."""
        if not self.rate:
            return 0.0
        capacity = max(self.rate, 1.0)
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (capacity, now))
            tokens = min(capacity, tokens + max(now - last, 0.0) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate


class ValiditySimulator:
    """See module doc. ``registry`` is SUNAT's memory of documents (the service's, or in memory);
    ``clients`` who may get a token; ``rate`` the queries a second per client (None: unlimited);
    ``clock`` epoch seconds (token expiry and the rate); ``outage`` answers 503 to every query."""

    def __init__(
        self,
        registry: Registry,
        clients: StaticClients | None = None,
        *,
        secret: bytes | None = None,
        token_ttl: int = DEFAULT_TOKEN_TTL,
        rate: float | None = DEFAULT_RATE,
        clock: Callable[[], float] = time.time,
        outage: bool = False,
    ) -> None:
        self.registry = registry
        self.clients = clients or StaticClients({SIMULATOR_CLIENT_ID: SIMULATOR_CLIENT_SECRET})
        self.secret = secret or secrets.token_bytes(32)
        self.token_ttl = token_ttl
        self.clock = clock
        self.limiter = RateLimiter(rate, clock)
        self.outage = outage
        #: Answers given (queries answered with data), for tests and benchmarks.
        self.answered = 0
        self._count_lock = threading.Lock()

    def token(self, client_id: str, form: Mapping[str, str]) -> dict[str, Any]:
        """Answer the token endpoint."""
        if form.get("grant_type") != "client_credentials":
            raise TokenError(400, "unsupported_grant_type", "grant_type debe ser client_credentials")
        if form.get("scope", SCOPE) != SCOPE:
            raise TokenError(400, "invalid_scope", "scope no valido")
        if form.get("client_id", client_id) != client_id:
            raise TokenError(401, "invalid_client", "cliente no autorizado")
        self.clients.authenticate(client_id, form.get("client_secret", ""))
        token = issue_token(self.secret, {"cid": client_id}, self.token_ttl, self.clock())
        return {"access_token": token, "token_type": "Bearer", "expires_in": self.token_ttl}

    def client_of(self, authorization: str | None) -> str:
        """The client id of a valid, unexpired bearer token; :class:`ApiError` 401 otherwise."""
        try:
            claims = read_token(self.secret, authorization, self.clock())
        except TokenRefused as refused:
            raise ApiError(401, refused.message, "401") from None
        return str(claims.get("cid") or "")

    def check(self, authorization: str | None, ruc: str, body: Any) -> dict[str, Any]:
        """Answer one query (see module doc); raises :class:`ApiError`."""
        client = self.client_of(authorization)
        if self.outage:
            raise ApiError(503, "Servicio no disponible, intente más tarde", "503")
        wait = self.limiter.take(client)
        if wait > 0:
            raise ApiError(
                429, "Se superó el límite de consultas; espere", "429", retry_after=math.ceil(wait)
            )
        if len(ruc) != 11 or not ruc.isdigit():
            raise ApiError(400, "El RUC de la ruta debe tener 11 dígitos", "0001")
        if not isinstance(body, Mapping):
            raise ApiError(400, "El cuerpo debe ser un objeto JSON", "0002")
        try:
            query = ValidityQuery.from_body(body)
        except ValueError as exc:
            raise ApiError(400, str(exc), "0003") from None
        answer = self.answer(query)
        with self._count_lock:
            self.answered += 1
        return answer.to_body()

    def answer(self, query: ValidityQuery) -> ValidityAnswer:
        """What SUNAT's memory says about ``query``'s document."""
        record = self.registry.lookup(RegistryKey(query.ruc, query.doc_type, query.series, query.number))
        if record is None:
            return ValidityAnswer("0", "00", "00", ("- El comprobante no ha sido informado a SUNAT.",))
        if record.status == "voided":
            return ValidityAnswer("2", "00", "00", ("- Comprobante de baja.",))
        if record.status == "rejected":
            note = f"- El comprobante fue rechazado por SUNAT (código {record.code})."
            return ValidityAnswer("0", "00", "00", (note,))
        return ValidityAnswer("1", "00", "00")
