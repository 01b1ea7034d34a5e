"""HTTP for one tenant: sessions, cache, retries, timeouts, and turning answers into data or errors.

Two ``requests`` sessions per :class:`Connection`, both with the tenant's headers:

* **reads** — a requests-cache :class:`~requests_cache.CachedSession` (or a plain session when the cache
  is off) for ``GET`` and for idempotent status polls. Its adapter retries connection errors, read
  errors and HTTP 429/502/503/504 with exponential backoff and jitter (urllib3 ``Retry``; ``GET`` and
  ``HEAD`` always, ``POST`` only through :meth:`Connection.poll`, which is only used for endpoints whose
  repetition changes nothing). Only ``GET`` answers with HTTP 200 are stored.
* **writes** — a plain session **without any retry** for issuing and other state-changing ``POST`` s
  (``/api/documents``, ``/send``, ``/updatedocumentstatus``): a fiscal document must never be sent twice
  by accident. After a :class:`~connector.errors.TransportError` on issuing, reconcile with
  ``client.documents.find(series, number)``.

The cache (:class:`CacheSettings`) is off unless the client asks for it (``Client(cache=True)``, or
settings); it is namespaced per base URL *and* token: requests-cache leaves the
``Authorization`` header out of its keys (and redacts it in what it stores), so two users of one
tenant must not share entries. Backends: SQLite (default) in ``<user cache dir>/facturador/http`` — or
``$FACTURADOR_CACHE_DIR`` — one file per (base URL, SHA-256 of the token), named with a hash so the
token cannot be read back; or ``memory``, private to the :class:`Connection`. Expiry is explicit for
every request: see :class:`CacheSettings`.

**Rate limits.** Real tenants let a user make 60 requests a minute (Laravel's ``throttle:60,1``): every
answer says ``X-RateLimit-Limit`` and ``X-RateLimit-Remaining``, and a request over the limit gets an
HTTP 500 that was not processed (:func:`connector.errors.throttled`). :class:`RateLimit` reads those
headers, waits for the window to pass before the budget runs out, and when a request was refused anyway
waits and sends it again, the same request (reads and issuing alike: the refusal comes before the
tenant's code runs), at most :data:`THROTTLE_RETRIES` times. The same headers tell a real tenant from
this project's service (:attr:`TenantProfile.laravel`). Long waits and walks are reported through
``progress`` (a callable taking a Spanish sentence).

**Transport.** Both sessions send through a ``requests`` transport adapter: by default the connector's
own (``HTTPAdapter`` with the read retries above, and one without any retry for writes). A
:class:`~connector.Client` given ``transport=`` (any ``requests.adapters.BaseAdapter``: a
:class:`~connector.transports.MockTransport` that answers by itself, a
:class:`~connector.transports.RecordingTransport`, your own with retries or a proxy) sends every request
through that one instead, as it is: connection-level retries are then its own business, while the
cache, the rate-limit waits and the mapping of answers to errors stay the connector's.

The token lives only in the sessions' headers: it is not logged, not stored by the cache, and not in
any exception or ``repr``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import math
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import requests
from requests.adapters import BaseAdapter, HTTPAdapter
from urllib3.util.retry import Retry

from connector.errors import (
    NotFoundError,
    OutcomeUnknownError,
    RateLimitError,
    ServerError,
    TransportError,
    error_from_response,
    missing_file,
    throttled,
)
from sunat.calendar import peru_today

_orjson: Any
try:  # a faster JSON parser when the service extra is installed (20,000-row lists)
    import orjson as _orjson
except ImportError:  # pragma: no cover - depends on the environment
    _orjson = None

__all__ = [
    "DOCUMENT_LISTS_TAG",
    "CacheSettings",
    "RateLimit",
    "TenantProfile",
    "Connection",
    "cache_directory",
]

logger = logging.getLogger("connector")

USER_AGENT = "facturador-kit-connector/0.1"
#: Statuses worth retrying for reads: rate limiting and proxies/gateways in front of a restarting server.
RETRY_STATUSES = frozenset({429, 502, 503, 504})
#: Tag of the cached document lists (:meth:`Connection.invalidate`): every call that changes documents'
#: states (issuing, sending, summaries, voided communications and their tickets) drops them.
DOCUMENT_LISTS_TAG = "documents.lists"
#: Times a request refused by the tenant's rate limit is sent again (each after the window passed).
THROTTLE_RETRIES = 3
#: Requests kept in reserve before the window's end is awaited (another tab of the same user may need one).
RATE_RESERVE = 1

Progress = Callable[[str], None]


@dataclass
class RateLimit:
    """A tenant's request budget as its answers state it (``X-RateLimit-Limit``/``-Remaining``) and the
    waits it imposes. The window opens with its first request and lasts ``window`` seconds (Laravel's
    ``RateLimiter``); the start is taken as the moment of the first request seen with a higher
    ``remaining`` than the one before (never earlier than the truth, so the waits are long enough)."""

    window: float = 60.0
    limit: int | None = None
    remaining: int | None = None
    started: float | None = None
    progress: Progress | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def before(self) -> None:
        """Wait for the next window when this one's budget is spent."""
        with self._lock:
            spent = self.limit is not None and self.remaining is not None and self.remaining <= RATE_RESERVE
        if spent:
            self._wait_for_window()

    def after(self, response: requests.Response, sent: float) -> None:
        """Read the budget an answer states (cached answers say nothing of now)."""
        if getattr(response, "from_cache", False):
            return
        limit, remaining = (
            _int_header(response, "X-RateLimit-Limit"),
            _int_header(response, "X-RateLimit-Remaining"),
        )
        if limit is None or remaining is None:
            return
        with self._lock:
            if self.remaining is None or remaining > self.remaining:
                self.started = sent
            self.limit, self.remaining = limit, remaining

    def refused(self) -> None:
        """The tenant refused a request for its limit: wait for the window to pass."""
        with self._lock:
            self.remaining = 0
        self._wait_for_window()

    def _wait_for_window(self) -> None:
        with self._lock:
            start = self.started if self.started is not None else self.clock()
            wait = start + self.window - self.clock() + 0.05
            limit = self.limit
        if wait > 0:
            if self.progress is not None:
                many = f"{limit} solicitudes" if limit else "un número limitado de solicitudes"
                per = "por minuto" if self.window == 60 else f"cada {self.window:g} s"
                self.progress(f"Esperando {math.ceil(wait)} s: la empresa atiende {many} {per}.")
            self.sleep(wait)
        with self._lock:
            self.remaining, self.started = None, None


def _int_header(response: requests.Response, name: str) -> int | None:
    value = response.headers.get(name)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


@dataclass
class TenantProfile:
    """What the connector learned of the tenant from its answers.

    ``laravel`` is True for a real Facturador PRO tenant (its answers carry Laravel's rate-limit headers;
    this project's service's do not), ``None`` before the first answer. ``list_dates`` is how its document
    lists write dates (``"d-m-Y"`` in Pro9 and Tukifac, ``"Y-m-d"`` in pro5 and this service);
    ``voided_dates`` how ``POST /api/voided`` read its date the last time it worked."""

    laravel: bool | None = None
    list_dates: str | None = None
    voided_dates: str | None = None


@dataclass(frozen=True)
class CacheSettings:
    """How a :class:`~connector.Client` caches its reads (``GET`` only, HTTP 200 only).

    :param backend: ``"sqlite"`` (default: survives restarts, shared by processes of the same user, e.g. a
        notebook and the dashboard) or ``"memory"`` (private to one client).
    :param directory: where the SQLite files go; default ``$FACTURADOR_CACHE_DIR`` or
        ``<user cache dir>/facturador/http`` (platformdirs).
    :param expire_after: seconds for the latest documents, ranges that reach today, PDFs and CDRs.
    :param closed_range_expire_after: seconds for date ranges that end before today (Lima): those rows
        change only by later voiding or summaries, so they may be kept longer.
    :param xml_expire_after: seconds for signed XML downloads (a signed XML never changes).
    """

    backend: Literal["sqlite", "memory"] = "sqlite"
    directory: str | Path | None = None
    expire_after: float = 60
    closed_range_expire_after: float = 900
    xml_expire_after: float = 86_400


def cache_directory(settings: CacheSettings) -> Path:
    """The directory of the SQLite cache files for ``settings``."""
    if settings.directory is not None:
        return Path(settings.directory)
    env = os.environ.get("FACTURADOR_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("facturador")) / "http"


def _read_retry() -> Retry:
    return Retry(
        total=4,
        connect=3,
        read=2,
        status=3,
        other=0,
        backoff_factor=0.25,
        backoff_max=4,
        backoff_jitter=0.1,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=frozenset({"GET", "HEAD", "POST"}),  # POST reaches this session only via poll()
        respect_retry_after_header=True,
        raise_on_status=False,
        raise_on_redirect=False,
    )


def _mount(session: requests.Session, adapter: BaseAdapter) -> None:
    session.mount("http://", adapter)
    session.mount("https://", adapter)


def _cache_file_name(base_url: str, token: str) -> str:
    readable = re.sub(r"[^A-Za-z0-9]+", "_", re.sub(r"^https?://", "", base_url)).strip("_")[:60]
    digest = hashlib.sha256(f"{base_url}\0{token}".encode()).hexdigest()[:20]
    return f"{readable}-{digest}"


def parse_json(content: bytes) -> Any:
    """Parse a JSON body (orjson when available)."""
    if _orjson is not None:
        return _orjson.loads(content)
    return json.loads(content)


def _body_of(response: requests.Response) -> Any:
    content = response.content
    if not content:
        return None
    try:
        return parse_json(content)
    except ValueError:
        return response.text


class Connection:
    """The HTTP side of one :class:`~connector.Client` (one tenant, one token): its two sessions, the
    cache, the rate limit, and the reading of answers into data or errors."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float,
        cache: CacheSettings | None,
        rate_window: float = 60.0,
        transport: BaseAdapter | None = None,
    ) -> None:
        if not base_url or not re.match(r"^https?://", base_url):
            raise ValueError(f"base_url must start with http:// or https:// (got {base_url!r})")
        if not token:
            raise ValueError("a token is required")
        self.base_url = base_url.rstrip("/")
        self.timeout = float(timeout)
        self.cache_settings = cache
        self._tagged: dict[str, set[str]] = {}
        self.rate = RateLimit(window=float(rate_window))
        self.profile = TenantProfile()
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        }
        self._reads = self._read_session(token, cache)
        self._reads.headers.update(headers)
        self._writes = requests.Session()
        self._writes.headers.update(headers)
        if transport is None:
            _mount(self._reads, HTTPAdapter(max_retries=_read_retry(), pool_maxsize=16))
            never = Retry(total=0, connect=0, read=0, redirect=0, status=0, raise_on_status=False)
            _mount(self._writes, HTTPAdapter(max_retries=never, pool_maxsize=16))
        else:
            _mount(self._reads, transport)
            _mount(self._writes, transport)

    def _read_session(self, token: str, cache: CacheSettings | None) -> requests.Session:
        self.cache_path: Path | None = None
        if cache is None:
            return requests.Session()
        from requests_cache import CachedSession

        common: dict[str, Any] = {
            "expire_after": cache.expire_after,
            "allowable_methods": ("GET",),
            "allowable_codes": (200,),
            "cache_control": False,
            "stale_if_error": False,
        }
        if cache.backend == "memory":
            return CachedSession(backend="memory", **common)
        if cache.backend != "sqlite":
            raise ValueError(f"unknown cache backend {cache.backend!r} (sqlite or memory)")
        directory = cache_directory(cache)
        directory.mkdir(parents=True, exist_ok=True)
        self.cache_path = directory / f"{_cache_file_name(self.base_url, token)}.sqlite"
        return CachedSession(str(self.cache_path), backend="sqlite", wal=True, **common)

    # -- public helpers -------------------------------------------------------------------------

    def url(self, path: str) -> str:
        """Absolute URL of ``path`` (``/api/...``) under the tenant's base URL."""
        return f"{self.base_url}/{path.lstrip('/')}"

    @property
    def progress(self) -> Progress | None:
        """Who hears of long waits and walks (a callable taking a Spanish sentence), or ``None``."""
        return self.rate.progress

    @progress.setter
    def progress(self, value: Progress | None) -> None:
        self.rate.progress = value

    def say(self, sentence: str) -> None:
        """Tell :attr:`progress` how a long walk goes."""
        if self.rate.progress is not None:
            self.rate.progress(sentence)

    def is_laravel(self) -> bool:
        """Whether the tenant is a real Facturador PRO (see :class:`TenantProfile`); asks its cheapest
        endpoint (the sale-note series) when no answer told yet."""
        if self.profile.laravel is None:
            self._send(self._writes, "GET", "/api/sale-note/series", timeout=None)
        return bool(self.profile.laravel)

    @property
    def cached(self) -> bool:
        """True when reads go through a cache."""
        return self.cache_settings is not None

    def range_expiry(self, last: dt.date) -> float | None:
        """Seconds a list of a date range ending on ``last`` stays cached: longer for a range closed before
        today in Lima (see :class:`CacheSettings`); ``None`` without a cache."""
        settings = self.cache_settings
        if settings is None:
            return None
        return settings.closed_range_expire_after if last < peru_today() else settings.expire_after

    @property
    def xml_expiry(self) -> float | None:
        """Seconds a signed XML stays cached (it never changes); ``None`` without a cache."""
        return self.cache_settings.xml_expire_after if self.cache_settings is not None else None

    def clear_cache(self) -> None:
        """Drop every cached answer of this tenant and token."""
        self._tagged.clear()
        cache = getattr(self._reads, "cache", None)
        if cache is not None:
            cache.clear()

    def invalidate(self, tag: str) -> None:
        """Drop the cached answers of the GETs made with ``tag`` (e.g. every document list after an
        issue): the next read of those URLs goes to the service."""
        urls = self._tagged.pop(tag, set())
        cache = getattr(self._reads, "cache", None)
        if cache is not None and urls:
            cache.delete(urls=sorted(urls))

    def close(self) -> None:
        """Close both sessions (and the cache database)."""
        self._reads.close()
        self._writes.close()

    # -- requests ---------------------------------------------------------------------------------

    def get(
        self,
        path: str,
        *,
        expire_after: float | None = None,
        fresh: bool = False,
        timeout: float | None = None,
        retry: bool = True,
        tag: str | None = None,
        keep: bool = True,
    ) -> requests.Response:
        """``GET`` through the cache (unless ``retry`` is False: then uncached, without retries and
        without waiting for the tenant's rate limit).

        ``expire_after`` (seconds) overrides the default expiry; ``fresh`` sends the request even when a
        cached answer exists, and stores the new one; ``tag`` files the URL for :meth:`invalidate`;
        ``keep=False`` sends it (with retries, patient) and stores nothing (a local store's pages)."""
        kwargs: dict[str, Any] = {}
        session = self._reads if retry else self._writes
        if session is self._reads and self.cached:
            if not keep:
                from requests_cache import DO_NOT_CACHE

                kwargs["expire_after"] = DO_NOT_CACHE
            elif expire_after is not None:
                kwargs["expire_after"] = expire_after
            if fresh:
                kwargs["force_refresh"] = True
            if tag is not None:
                self._tagged.setdefault(tag, set()).add(self.url(path))
        return self._send(session, "GET", path, timeout=timeout, patient=retry, **kwargs)

    def post(
        self,
        path: str,
        payload: Mapping[str, Any],
        *,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
        check: str | None = None,
    ) -> requests.Response:
        """``POST`` that changes state: never cached, and sent again only when the tenant's rate limit
        refused it unprocessed; ``headers`` are added to the tenant's (e.g. ``Idempotency-Key``).

        ``check`` marks a call that issues something: an HTTP 5xx answer (real tenants answer their
        refusals so, and a crash after saving looks the same) raises
        :class:`~connector.errors.OutcomeUnknownError`, whose message ends with ``check``: how to see
        whether it exists before issuing again."""
        extra: dict[str, Any] = {"headers": dict(headers)} if headers else {}
        response = self._send(self._writes, "POST", path, json=dict(payload), timeout=timeout, **extra)
        if check is not None and response.status_code >= 500:
            error = error_from_response(response.status_code, _body_of(response), response.url)
            assert error is not None
            raise OutcomeUnknownError(
                f"{error.message} — el servicio respondió HTTP {response.status_code} y pudo haberlo "
                f"registrado igual. {check}",
                status=response.status_code,
                body=error.body,
                url=response.url,
                reason=error.message,
            )
        return response

    def poll(
        self, path: str, payload: Mapping[str, Any], *, timeout: float | None = None
    ) -> requests.Response:
        """``POST`` whose repetition changes nothing (ticket status polls): retried like a
        read, not cached."""
        return self._send(self._reads, "POST", path, json=dict(payload), timeout=timeout)

    def _send(
        self,
        session: requests.Session,
        method: str,
        path: str,
        *,
        timeout: float | None,
        patient: bool = True,
        **kwargs: Any,
    ) -> requests.Response:
        """Send one request; a ``patient`` one waits out the tenant's rate limit (before the budget runs
        out, and after a refusal, up to :data:`THROTTLE_RETRIES` times); an impatient one (a connection
        check) raises :class:`RateLimitError` at the first refusal."""
        url = self.url(path)
        retries = THROTTLE_RETRIES if patient else 0
        for attempt in range(retries + 1):
            if patient:
                self.rate.before()
            response = self._request(session, method, path, url, timeout, **kwargs)
            if response.status_code not in (429, 500) or not throttled(
                response.status_code, _body_of(response)
            ):
                return response  # (a list's body is only parsed once, by its reader)
            if attempt == retries:
                break
            logger.info("%s %s refused by the rate limit; waiting for the next window", method, url)
            self.rate.refused()
        raise RateLimitError(
            "La empresa rechazó la solicitud sin procesarla, varias veces, por su límite de solicitudes "
            "por minuto (o porque la empresa está bloqueada): intente otra vez en unos minutos.",
            status=response.status_code,
            body=_body_of(response),
            url=url,
        )

    def _request(
        self,
        session: requests.Session,
        method: str,
        path: str,
        url: str,
        timeout: float | None,
        **kwargs: Any,
    ) -> requests.Response:
        started = time.perf_counter()
        sent = self.rate.clock()
        try:
            response = session.request(method, url, timeout=timeout or self.timeout, **kwargs)
        except requests.Timeout as exc:
            raise TransportError(_timeout_message(method, path, timeout or self.timeout), url=url) from exc
        except requests.RequestException as exc:
            raise TransportError(f"No se pudo conectar con el servicio ({_reason(exc)}).", url=url) from exc
        self.rate.after(response, sent)
        if (
            path.startswith("/api/")
            and not getattr(response, "from_cache", False)
            and not self.profile.laravel
        ):
            if "X-RateLimit-Limit" in response.headers:
                self.profile.laravel = True
            elif 200 <= response.status_code < 300:  # errors before the middleware carry no headers
                self.profile.laravel = False
        logger.debug(
            "%s %s -> %s in %.0f ms%s",
            method,
            url,
            response.status_code,
            (time.perf_counter() - started) * 1000,
            " (cache)" if getattr(response, "from_cache", False) else "",
        )
        return response

    # -- answers ----------------------------------------------------------------------------------

    @staticmethod
    def parse(response: requests.Response) -> Any:
        """The parsed body of a successful answer (any JSON type); raise the mapped error otherwise."""
        body = _body_of(response)
        error = error_from_response(response.status_code, body, response.url)
        if error is not None:
            raise error
        return body

    @staticmethod
    def body(response: requests.Response) -> Any:
        """The parsed body of any answer, without mapping it to an error: JSON (any type), the text when
        it is not JSON, ``None`` when empty. For endpoints whose non-2xx answers can mean something
        else than a failure (a ticket still in process answered as HTTP 500 by real tenants)."""
        return _body_of(response)

    @classmethod
    def json(cls, response: requests.Response) -> dict[str, Any]:
        """The JSON object of a successful answer; raise the mapped error otherwise."""
        body = cls.parse(response)
        if not isinstance(body, dict):
            raise ServerError(
                "La respuesta del servicio no es el objeto JSON esperado.",
                status=response.status_code,
                body=body,
                url=response.url,
            )
        return body

    @staticmethod
    def content(response: requests.Response) -> bytes:
        """The bytes of a successful download; raise the mapped error otherwise."""
        if 200 <= response.status_code < 300:
            return bytes(response.content)
        body = _body_of(response)
        if missing_file(response.status_code, body):  # real tenants answer a missing file as HTTP 500
            raise NotFoundError(
                "El servicio no tiene ese archivo (aún no existe).",
                status=response.status_code,
                body=body,
                url=response.url,
            )
        error = error_from_response(response.status_code, body, response.url)
        assert error is not None
        raise error


def _reason(exc: BaseException) -> str:
    """A short reason for a connection failure, without URLs' query strings or headers."""
    text = str(exc)
    for marker in ("Connection refused", "Name or service not known", "timed out", "Max retries exceeded"):
        if marker in text:
            return "conexión rechazada" if marker == "Connection refused" else marker
    return type(exc).__name__


def _timeout_message(method: str, path: str, timeout: float) -> str:
    message = f"El servicio no respondió en {timeout:g} s."
    if method == "POST" and path.rstrip("/").endswith("/api/documents"):
        message += (
            " El comprobante pudo haberse emitido: búsquelo con client.documents.find(serie, número)"
            " antes de volver a enviarlo."
        )
    return message
