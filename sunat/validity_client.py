"""A client of SUNAT's *consulta integrada de validez de CPE* API (``docs/validity.md``).

:class:`ValidityClient` gets a ``client_credentials`` token (kept until a minute before it expires),
asks about one document at a time (:meth:`ValidityClient.check`) and says what went wrong with a typed
error: :class:`CredentialsRefused` (wrong client id or secret: nothing to retry), :class:`Throttled`
(SUNAT asked to wait longer than ``max_wait``), :class:`ValidityUnavailable` (no answer, or 5xx),
:class:`QueryRefused` (SUNAT refused the query's fields). A refused token (401) is renewed once; a 429 is
waited out, honouring ``Retry-After``, up to ``max_wait`` seconds in all for one check.

The same client talks to SUNAT (:data:`~sunat.validity.SUNAT_TOKEN_URL`, ``SUNAT_API_URL``) and to this
project's simulator (``facturador sunat`` / ``facturador serve``): only :class:`ValidityEndpoint`
changes. The secret is never logged nor shown in a ``repr``. It lives here, beside the API's format, so
the analyst's side (:mod:`connector.validity`) and the service (its scheduled sweep, its own routes) use
the one client.
"""

from __future__ import annotations

import email.utils
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests

from sunat.validity import QUERY_PATH, SCOPE, TOKEN_PATH, ValidityAnswer, ValidityQuery

__all__ = [
    "CredentialsRefused",
    "QueryRefused",
    "Throttled",
    "ValidityClient",
    "ValidityEndpoint",
    "ValidityError",
    "ValidityUnavailable",
]

logger = logging.getLogger(__name__)

#: Seconds before its expiry a token is renewed.
REFRESH_MARGIN = 60.0
#: The wait for a 429 without ``Retry-After``.
DEFAULT_RETRY_AFTER = 1.0


@dataclass(frozen=True)
class ValidityEndpoint:
    """Where and as whom to ask: the token host, the API host, the API credentials the company made in
    SOL (*Credenciales de API SUNAT*) and the company's RUC (who asks)."""

    token_url: str
    api_url: str
    client_id: str
    client_secret: str = field(repr=False)
    ruc: str


class ValidityError(Exception):
    """The validity API could not answer; ``what_to_do`` says what a person should do."""

    what_to_do = ""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(f"{message} {self.what_to_do}".strip())
        self.status = status


class CredentialsRefused(ValidityError):
    """SUNAT refused the client id or secret."""

    what_to_do = (
        "Revise el client id y el client secret de «Credenciales de API SUNAT» en SOL (la consulta "
        "integrada necesita una aplicación con ese alcance)."
    )


class Throttled(ValidityError):
    """SUNAT asked to wait longer than the client may (``retry_after`` seconds)."""

    what_to_do = "Vuelva a intentar más tarde: el barrido continúa donde se detuvo."

    def __init__(self, message: str, *, retry_after: float, status: int | None = 429) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


class ValidityUnavailable(ValidityError):
    """No answer, or SUNAT's API is down (5xx)."""

    what_to_do = "El servicio de SUNAT no responde; vuelva a intentar: el barrido continúa donde se detuvo."


class QueryRefused(ValidityError):
    """SUNAT refused the query's fields (4xx other than 401/429)."""

    what_to_do = "Revise los datos del comprobante consultado."


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` in seconds (a number of seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(moment.timestamp() - (time.time() if now is None else now), 0.0)


class ValidityClient:
    """See module doc. ``clock`` (monotonic seconds) and ``sleep`` are injectable for tests; ``max_wait``
    bounds the seconds one :meth:`check` waits on throttling."""

    def __init__(
        self,
        endpoint: ValidityEndpoint,
        *,
        timeout: float = 30.0,
        max_wait: float = 60.0,
        session: requests.Session | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self.max_wait = max_wait
        self.session = session or requests.Session()
        self.clock = clock
        self.sleep = sleep
        self._token: tuple[str, float] | None = None
        self._lock = threading.Lock()
        #: Counters: tokens asked, queries answered, throttled answers, seconds waited for them.
        self.stats = {"tokens": 0, "queries": 0, "throttled": 0, "waited": 0.0}

    def __enter__(self) -> ValidityClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP session."""
        self.session.close()

    # -- token --------------------------------------------------------------------------------------

    def token(self) -> str:
        """A valid access token (asked once, kept until :data:`REFRESH_MARGIN` before it expires)."""
        with self._lock:
            if self._token is not None and self._token[1] > self.clock():
                return self._token[0]
        endpoint = self.endpoint
        url = endpoint.token_url.rstrip("/") + TOKEN_PATH.format(client_id=endpoint.client_id)
        form = {
            "grant_type": "client_credentials",
            "scope": SCOPE,
            "client_id": endpoint.client_id,
            "client_secret": endpoint.client_secret,
        }
        response = self._request("POST", url, data=form)
        body = _json(response)
        if response.status_code in (400, 401, 403):
            said = body.get("error_description") or body.get("error") or response.status_code
            raise CredentialsRefused(
                f"SUNAT no dio el token: {said}.",
                status=response.status_code,
            )
        if response.status_code >= 500:
            raise ValidityUnavailable(
                f"SUNAT no dio el token (HTTP {response.status_code}).", status=response.status_code
            )
        token = body.get("access_token")
        if response.status_code != 200 or not isinstance(token, str) or not token:
            raise ValidityUnavailable(f"SUNAT dio una respuesta sin token (HTTP {response.status_code}).")
        expires_in = float(body.get("expires_in") or 0)
        with self._lock:
            self._token = (token, self.clock() + max(expires_in - REFRESH_MARGIN, 0.0))
            self.stats["tokens"] += 1
        logger.info("validity token for client %s, valid %.0f s", endpoint.client_id, expires_in)
        return token

    def forget_token(self) -> None:
        """Drop the kept token (after SUNAT refused it)."""
        with self._lock:
            self._token = None

    # -- one query ----------------------------------------------------------------------------------

    def check(self, query: ValidityQuery) -> ValidityAnswer:
        """SUNAT's answer about one document (see the module doc for the errors)."""
        url = self.endpoint.api_url.rstrip("/") + QUERY_PATH.format(ruc=self.endpoint.ruc)
        content = query.to_json()
        renewed = False
        waited = 0.0
        while True:
            headers = {"Authorization": f"Bearer {self.token()}", "Content-Type": "application/json"}
            response = self._request("POST", url, data=content, headers=headers)
            status = response.status_code
            if status == 401 and not renewed:
                renewed = True
                self.forget_token()
                continue
            if status == 429:
                self.stats["throttled"] += 1
                delay = retry_after_seconds(response.headers.get("Retry-After"))
                delay = DEFAULT_RETRY_AFTER if delay is None else delay
                if waited + delay > self.max_wait:
                    raise Throttled(
                        f"SUNAT limita las consultas: pide esperar {delay:.0f} s.", retry_after=delay
                    )
                self.sleep(delay)
                waited += delay
                self.stats["waited"] += delay
                continue
            body = _json(response)
            message = str(body.get("message") or body.get("msg") or response.reason or "")
            if status == 401:
                raise CredentialsRefused(f"SUNAT rechazó el token renovado: {message}.", status=status)
            if status >= 500:
                raise ValidityUnavailable(
                    f"SUNAT no pudo responder (HTTP {status}): {message}.", status=status
                )
            if status >= 400 or not body.get("success"):
                raise QueryRefused(
                    f"SUNAT no aceptó la consulta de {query.reference}: {message}.", status=status
                )
            try:
                answer = ValidityAnswer.from_body(body)
            except ValueError as exc:
                raise ValidityUnavailable(f"SUNAT respondió algo ilegible: {exc}.", status=status) from None
            self.stats["queries"] += 1
            return answer

    def _request(self, method: str, url: str, **kwargs: Any) -> requests.Response:
        try:
            return self.session.request(method, url, timeout=self.timeout, **kwargs)
        except requests.RequestException as exc:
            raise ValidityUnavailable(
                f"Sin respuesta de {url.split('?')[0]}: {type(exc).__name__}."
            ) from None


def _json(response: requests.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
