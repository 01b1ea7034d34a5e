"""Errors of the connector: one base class, one subclass per kind of failure, one function that maps.

Every failure of a call to a Facturador PRO service raises a :class:`FacturadorError`. The subclass says
what kind of failure it is; the attributes carry what the service said:

================================  ==========================================================
class                             when
================================  ==========================================================
:class:`AuthenticationError`      HTTP 401 / 403 (wrong or missing token, locked tenant)
:class:`ValidationError`          HTTP 400 / 422, HTTP 2xx with ``"success": false``, or a
                                  plugin's ``facturador_validate_payload`` found problems
                                  (then ``status`` is ``None``: nothing was sent)
:class:`NotFoundError`            HTTP 404
:class:`NotOfferedError`          HTTP 404 of a route the tenant's code base lacks (a
                                  ``NotFoundError`` whose message says what it does not offer)
:class:`ConflictError`            HTTP 409 (e.g. ``DUPLICATE_DOCUMENT``)
:class:`ServerError`              HTTP 5xx, or a 2xx answer that is not the JSON expected
:class:`OutcomeUnknownError`      HTTP 5xx to a call that issues something: it may exist
                                  (a ``ServerError`` that says how to check)
:class:`RateLimitError`           the tenant's rate limit refused the request again after the
                                  waits (a ``ServerError``: nothing was processed)
:class:`TransportError`           no HTTP answer: connection refused, DNS, timeout
:class:`FacturadorError`          any other status (405, 413, 429 after retries, ...)
================================  ==========================================================

Envelopes understood by :func:`error_from_response` :

* this project's service: ``{"success": false, "message", "error_code", "errors": [{"field", "message"}]}``;
* real tenants' business errors, **HTTP 500** ``{"success": false, "message": "La serie ingresada F001,
  es incorrecta."}`` (+ ``file``/``line`` in P5). They are mapped to :class:`ServerError` like any 500,
  with the service's message: a client cannot tell a business rule from a PHP crash by the status, and
  guessing from message texts would break silently when a tenant changes them. Read ``message``.
  Three texts are read, because the framework under every real tenant writes them, not the tenant:
  the rate limit's refusal (:func:`throttled`), a file not on disk (:func:`missing_file`) and a route
  that does not exist (:func:`missing_route`); see ``docs/real_tenants.md``;
* HTTP 200 with ``{"success": false, "message": ...}`` (login, dispatches, inventory) →
  :class:`ValidationError` with ``status == 200``;
* Laravel validation, HTTP 422 whose ``message`` is ``{"field": ["msg", ...]}`` → ``field_errors``;
* anything else (HTML error pages, empty bodies): the status decides the class and the message says
  ``HTTP <status>`` with the start of the body.

The token is never part of an error: messages and ``repr`` show the URL (which never carries it) and
what the service answered.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "AuthenticationError",
    "ConflictError",
    "FacturadorError",
    "FieldError",
    "NotFoundError",
    "NotOfferedError",
    "OutcomeUnknownError",
    "RateLimitError",
    "ServerError",
    "TransportError",
    "ValidationError",
    "error_from_response",
    "missing_file",
    "missing_route",
    "not_offered",
    "throttled",
]

#: How the real services' handler (and this service) say that a route does not exist.
MISSING_ROUTE_MESSAGE = "No se encontró la URL especificada"
#: What real tenants answer, as HTTP 500, for a file that is not on their disk (Flysystem 3 and 1).
_MISSING_FILE = ("Unable to retrieve the file_size", "Unable to read file", "File not found at path")
#: What a real tenant answers, as HTTP 500, when its rate limit refuses a request: Laravel's
#: ``ThrottleRequestsException`` has code 0 and the handler builds its JSON answer with that status, which
#: Symfony refuses with the second text (``app/Exceptions/Handler.php`` of Pro9, Tukifac, pro5); the
#: first is the exception's own message, should a tenant's handler show it.
THROTTLE_MESSAGES = frozenset({"Too Many Attempts.", 'The HTTP status code "0" is not valid.'})


@dataclass(frozen=True)
class FieldError:
    """A problem with one field: ``field`` is a dotted path of the request body (``items.0.cantidad``,
    ``detraccion.cuenta_bancaria``) or ``""`` when the problem concerns the whole request."""

    field: str
    message: str


class FacturadorError(Exception):
    """Base of every connector error.

    :param message: what went wrong, as the service said it (Spanish for service messages).
    :param status: the HTTP status, or ``None`` when there was no HTTP answer (transport errors,
        problems found by plugins before sending).
    :param error_code: the machine code of the service (``TOTALS_MISMATCH``, ``DUPLICATE_DOCUMENT`` ...)
        when it gives one, else ``None``.
    :param field_errors: problems per field.
    :param body: the parsed JSON body (or the text when it was not JSON), ``None`` without an answer.
    :param url: the URL that was called (never carries the token).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        error_code: str | None = None,
        field_errors: list[FieldError] | None = None,
        body: Any = None,
        url: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.error_code = error_code
        self.field_errors: list[FieldError] = list(field_errors or [])
        self.body = body
        self.url = url

    def __str__(self) -> str:
        parts = [self.message]
        if self.status is not None:
            parts.append(f"(HTTP {self.status}{', ' + self.error_code if self.error_code else ''})")
        elif self.error_code:
            parts.append(f"({self.error_code})")
        if self.field_errors:
            shown = "; ".join(
                f"{e.field}: {e.message}" if e.field else e.message for e in self.field_errors[:5]
            )
            more = f" (+{len(self.field_errors) - 5})" if len(self.field_errors) > 5 else ""
            parts.append(f"[{shown}{more}]")
        return " ".join(parts)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(message={self.message!r}, status={self.status!r}, "
            f"error_code={self.error_code!r}, url={self.url!r})"
        )

    def errors_for(self, field: str) -> list[str]:
        """Messages of the field errors whose path is ``field`` or starts with ``field.``."""
        return [e.message for e in self.field_errors if e.field == field or e.field.startswith(field + ".")]


class AuthenticationError(FacturadorError):
    """HTTP 401/403: the token is wrong or missing, or the tenant or user is locked."""


class ValidationError(FacturadorError):
    """The request was refused as invalid (400/422, or 2xx with ``success: false``), or plugins found
    problems before anything was sent (``status is None``)."""


class NotFoundError(FacturadorError):
    """HTTP 404: unknown document, unknown tenant or wrong URL."""


class NotOfferedError(NotFoundError):
    """The tenant has no such endpoint: its code base lacks the route (real tenants answer HTTP 404
    ``No se encontró la URL especificada``). ``message`` says in one sentence what it does not offer."""


class ConflictError(FacturadorError):
    """HTTP 409: the request clashes with stored data (a document number already registered)."""


class ServerError(FacturadorError):
    """HTTP 5xx, or an answer that is not what the endpoint returns (not JSON, no ``data``).

    Real Facturador PRO tenants answer business errors as HTTP 500 ``{"success": false, "message"}``:
    the message is kept, so ``str(error)`` shows it."""


class OutcomeUnknownError(ServerError):
    """An issuing call answered HTTP 5xx: real tenants answer their business refusals that way too, so
    the document may or may not exist. ``message`` starts with the service's words (also in
    ``reason``) and says how to check before issuing again."""

    def __init__(self, message: str, *, reason: str = "", **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.reason = reason


class RateLimitError(ServerError):
    """The tenant refused the request for its rate limit (60 a minute) even after waiting for the
    window to pass: nothing was processed; try again later."""


class TransportError(FacturadorError):
    """No HTTP answer: connection refused, DNS failure, TLS error or timeout.

    After a timeout on ``POST /api/documents`` the document may have been issued: check with
    ``client.documents.find(series, number)`` before sending it again (issuing is never retried)."""


_STATUS_CLASSES: dict[int, type[FacturadorError]] = {
    400: ValidationError,
    401: AuthenticationError,
    403: AuthenticationError,
    404: NotFoundError,
    409: ConflictError,
    422: ValidationError,
}


def _field_errors(value: Any) -> list[FieldError]:
    """Field errors from ``[{"field", "message"}]`` or Laravel's ``{"field": ["msg", ...]}``."""
    found: list[FieldError] = []
    if isinstance(value, Mapping):
        for name, messages in value.items():
            if isinstance(messages, list | tuple):
                found += [FieldError(str(name), str(m)) for m in messages]
            else:
                found.append(FieldError(str(name), str(messages)))
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, Mapping):
                found.append(FieldError(str(item.get("field") or ""), str(item.get("message") or "")))
            elif item is not None:
                found.append(FieldError("", str(item)))
    return found


def _snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_from_response(status: int, body: Any, url: str | None = None) -> FacturadorError | None:
    """The error an HTTP answer means, or ``None`` when it is a success.

    ``body`` is the parsed JSON (any type) or, when the answer was not JSON, its text. This is the only
    place that maps answers to error classes (see the module docstring for the envelopes).
    """
    envelope = body if isinstance(body, Mapping) else None
    failed_in_body = envelope is not None and envelope.get("success") is False
    if 200 <= status < 300 and not failed_in_body:
        return None

    message = ""
    error_code: str | None = None
    field_errors: list[FieldError] = []
    if envelope is not None:
        raw_message = envelope.get("message")
        if isinstance(raw_message, Mapping):  # Laravel ValidationException: {"field": ["msg"]}
            field_errors = _field_errors(raw_message)
        elif raw_message is not None:
            message = str(raw_message)
        field_errors += _field_errors(envelope.get("errors"))
        code = envelope.get("error_code") or envelope.get("message_code")
        error_code = str(code) if code else None
        if not message and field_errors:
            message = field_errors[0].message
    elif isinstance(body, str) and body.strip():
        message = f"HTTP {status}: {_snippet(body)}"
    if not message:
        message = f"HTTP {status}" + (" (success: false)" if failed_in_body else "")

    cls: type[FacturadorError]
    if 200 <= status < 300:
        cls = ValidationError
    elif status >= 500:
        cls = ServerError
    else:
        cls = _STATUS_CLASSES.get(status, FacturadorError)
    return cls(message, status=status, error_code=error_code, field_errors=field_errors, body=body, url=url)


def _message_of(body: Any) -> str:
    if isinstance(body, Mapping):
        message = body.get("message")
        return message.strip() if isinstance(message, str) else ""
    return body.strip() if isinstance(body, str) else ""


def throttled(status: int, body: Any) -> bool:
    """Whether an answer is the tenant's rate limit refusing the request (HTTP 429, or a real tenant's
    HTTP 500 with one of :data:`THROTTLE_MESSAGES`): the request was not processed."""
    return status == 429 or (status == 500 and _message_of(body) in THROTTLE_MESSAGES)


def missing_file(status: int, body: Any) -> bool:
    """Whether an answer to a download says the file is not there (real tenants: HTTP 500)."""
    return status == 500 and _message_of(body).startswith(_MISSING_FILE)


def missing_route(error: FacturadorError) -> bool:
    """Whether a 404 says the route itself does not exist (the tenant lacks the endpoint), not a record:
    the handler's :data:`MISSING_ROUTE_MESSAGE`, or a page that is not JSON."""
    if not isinstance(error, NotFoundError):
        return False
    return not isinstance(error.body, Mapping) or _message_of(error.body) == MISSING_ROUTE_MESSAGE


def not_offered(what: str, error: FacturadorError) -> NotOfferedError:
    """The :class:`NotOfferedError` of a missing route: "Esta empresa no ofrece ``what`` por su API."."""
    return NotOfferedError(
        f"Esta empresa no ofrece {what} por su API.", status=error.status, body=error.body, url=error.url
    )
