"""The service's log lines, tokens redacted (:func:`redact_tokens`): one access line per request, each
request's id carried into every line logged while it is answered, and a JSON form (``--log-format json``
or ``FACTURADOR_LOG_FORMAT=json``), one object a line, for a log collector.

The request id is the client's ``X-Request-ID`` when it sends a usable one (up to 128 letters, digits
and ``._:-``; a proxy's id is kept so lines can be followed across it), else a new one; it goes back in
the answer's ``X-Request-ID``. It is kept in a context variable, which the threads that run a request's
synchronous code inherit (anyio copies the context), so the lines of the domain code carry it too.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import re
import time
import uuid
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: A token in a query string (real clients send ``?api_token=``): its value never reaches a log.
TOKEN_IN_QUERY_RE = re.compile(r"(?i)([?&](?:api_token|token)=)[^&\s\"]*")


#: A path segment shaped like a tenant token: 20 characters or more (the shortest a tenant may set) of
#: what a URL carries unescaped (generated tokens are ``secrets.token_urlsafe``).
TOKEN_IN_PATH_RE = re.compile(r"(?<=/)[A-Za-z0-9._~%-]{20,}(?=[/?#\s\"]|$)")
#: Long path segments that are not tokens and that an operator needs: a UUID (a document's external_id),
#: a SUNAT file name (the issuer's RUC first), a number (a ticket, an id).
NOT_A_TOKEN_RE = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|\d{11}-[A-Z0-9-]+(?:\.[a-z]{3})?|\d+"
)


SLUG_SEGMENT_RE = re.compile(r"[a-z0-9][a-z0-9-]*")


def _token_in_path(match: re.Match[str]) -> str:
    segment, start, text = match.group(0), match.start(), match.string
    at_path_start = start == 3 or (start > 3 and text[start - 4] in " \"'")
    slug = text[start - 3 : start] == "/t/" and at_path_start and SLUG_SEGMENT_RE.fullmatch(segment)
    if slug or NOT_A_TOKEN_RE.fullmatch(segment):
        return segment
    return "[redacted]"


def redact_tokens(text: str) -> str:
    """``text`` with the value of every ``api_token=``/``token=`` query parameter replaced, and every path
    segment shaped like a tenant token (a client that put its token in the URL's path) too."""
    return TOKEN_IN_PATH_RE.sub(_token_in_path, TOKEN_IN_QUERY_RE.sub(r"\1[redacted]", text))


class RedactTokens(logging.Filter):
    """A log filter that redacts tokens in URLs (:func:`redact_tokens`) in a record's message and
    arguments (uvicorn's access log prints each request's path with its query string)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact_tokens(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact_tokens(a) if isinstance(a, str) else a for a in record.args)
        return True


LOG_FORMAT_ENV = "FACTURADOR_LOG_FORMAT"
LOG_FORMATS = ("text", "json")
#: The logger of the access lines (one per request, at INFO whatever --log-level says of the others).
ACCESS_LOGGER = "facturador.access"
REQUEST_ID_HEADER = "X-Request-ID"
#: The probes of load balancers and Prometheus (every few seconds): logged only when they do not answer 200.
PROBES = frozenset({"/health", "/livez", "/ready", "/readyz", "/metrics"})
USABLE_ID_RE = re.compile(r"[A-Za-z0-9._:-]{1,128}")

#: The id of the request being answered ("-" outside any request: the worker, start-up).
request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
#: What a record carries besides the standard attributes (the access line's fields), for the JSON form.
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {
    "message",
    "asctime",
    "request_id",
    "color_message",
}


class RequestIdFilter(logging.Filter):
    """Put the current request's id on every record (``%(request_id)s``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO), level, logger, message, request_id, the record's extra
    fields (the access line's method, path, status, duration_ms) and the exception's traceback, if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", request_id.get()),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["traceback"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def log_format(chosen: str | None = None) -> str:
    """``chosen``, else ``FACTURADOR_LOG_FORMAT``, else ``text``; ValueError for another value."""
    import os

    value = (chosen or os.environ.get(LOG_FORMAT_ENV) or "text").strip().lower()
    if value not in LOG_FORMATS:
        raise ValueError(f"{LOG_FORMAT_ENV} must be one of {', '.join(LOG_FORMATS)} (got {value!r})")
    return value


def formatter_config(fmt: str) -> dict[str, Any]:
    """The ``logging.config`` entry of the formatter of ``fmt`` (text or json)."""
    if fmt == "json":
        return {"()": f"{__name__}.JsonFormatter"}
    return {"format": TEXT_FORMAT}


def stderr_handler(fmt: str) -> logging.Handler:
    """A handler to stderr in ``fmt``, with the request id and the tokens' redaction."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(RequestIdFilter())
    handler.addFilter(RedactTokens())
    return handler


class AccessLog:
    """The outermost layer: takes or makes the request id, returns it in ``X-Request-ID``, and logs one
    line per request once it is answered: method, path (query included, tokens redacted), status,
    duration in ms and request id. A request whose answer never started is logged with status 500; a
    probe (:data:`PROBES`) answered 200 is not logged."""

    def __init__(self, app: ASGIApp):
        self.app = app
        self.log = logging.getLogger(ACCESS_LOGGER)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1").strip()
        current = sent if USABLE_ID_RE.fullmatch(sent) else uuid.uuid4().hex
        token = request_id.set(current)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"]
                message = {**message, "headers": [*headers, (b"x-request-id", current.encode("latin-1"))]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            self.access_line(scope, status, started)
            request_id.reset(token)

    def access_line(self, scope: Scope, status: int, started: float) -> None:
        if status == 200 and scope.get("path") in PROBES:
            return
        query = scope.get("query_string", b"").decode("latin-1")
        path = redact_tokens(scope.get("path", "") + (f"?{query}" if query else ""))
        duration = round((time.perf_counter() - started) * 1000, 1)
        method = scope.get("method", "")
        self.log.info(
            "%s %s %s %.1f ms",
            method,
            path,
            status,
            duration,
            extra={"method": method, "path": path, "status": status, "duration_ms": duration},
        )
