"""Transports a :class:`~connector.Client` can send through (``Client(..., transport=...)``).

A transport is a ``requests`` transport adapter (``requests.adapters.BaseAdapter``): it takes each
prepared request and returns the response, below the connector's cache, rate-limit waits and error
mapping (as httpx's ``transport=``). Any adapter works — one with its own retries, a proxy, a client
certificate —; two come with the connector:

* :class:`MockTransport` answers every request itself, from a function: the connector's behaviour
  against answers you choose, without a server::

      def tenant(request):
          return Answer(200, json={"data": []})

      client = Client("https://empresa.example.pe", "token", transport=MockTransport(tenant))

* :class:`RecordingTransport` sends through another transport (the connector's default without
  retries, unless given) and keeps every exchange, the token left out::

      recorder = RecordingTransport()
      client = Client(base_url, token, transport=recorder)
      client.documents.latest()
      recorder.exchanges[0].method, recorder.exchanges[0].url, recorder.exchanges[0].status
"""

from __future__ import annotations

import io
import json as jsonlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

import requests
from requests.adapters import BaseAdapter, HTTPAdapter
from urllib3 import HTTPResponse

__all__ = ["Answer", "Exchange", "MockTransport", "RecordingTransport"]

#: What a recorded request's ``Authorization`` header is replaced with.
REDACTED = "[redacted]"


@dataclass(frozen=True)
class Answer:
    """A response :class:`MockTransport` gives: the status, and ``json`` (sent as JSON) or ``content``
    (bytes or text, as is), with ``headers``."""

    status: int = 200
    json: Any = None
    content: bytes | str = b""
    headers: Mapping[str, str] = field(default_factory=dict)

    def body(self) -> bytes:
        """The bytes of the body."""
        if self.json is not None:
            return jsonlib.dumps(self.json).encode()
        return self.content.encode() if isinstance(self.content, str) else bytes(self.content)


Handler = Callable[[requests.PreparedRequest], Answer]


class MockTransport(HTTPAdapter):
    """A transport whose ``handler(request)`` answers every request (an :class:`Answer`); what the
    handler raises (``requests.ConnectionError``, ``requests.Timeout`` ...) is what the request raised."""

    def __init__(self, handler: Handler) -> None:
        super().__init__()
        self.handler = handler

    def send(self, request: requests.PreparedRequest, **options: Any) -> requests.Response:  # type: ignore[override]
        """The handler's answer to ``request`` (``options``: the session's timeout, verify ...: unused)."""
        answer = self.handler(request)
        headers = dict(answer.headers)
        if answer.json is not None:
            headers.setdefault("Content-Type", "application/json")
        body = answer.body()
        headers.setdefault("Content-Length", str(len(body)))
        raw = HTTPResponse(
            body=io.BytesIO(body),
            headers=headers,
            status=answer.status,
            reason=_reason(answer.status),
            preload_content=False,
            decode_content=False,
            request_method=request.method,
            request_url=request.url,
        )
        return self.build_response(request, raw)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


@dataclass(frozen=True)
class Exchange:
    """One request a :class:`RecordingTransport` sent and what came back (``status`` ``None`` and
    ``error`` set when no answer came); ``headers`` are the request's, its ``Authorization`` redacted."""

    method: str
    url: str
    headers: dict[str, str]
    sent: bytes
    status: int | None
    received: bytes = b""
    error: str = ""

    def sent_json(self) -> Any:
        """The request's JSON body (``None`` without one)."""
        return jsonlib.loads(self.sent) if self.sent else None


class RecordingTransport(BaseAdapter):
    """A transport that sends through ``inner`` (default: a plain ``HTTPAdapter``, without retries) and
    records every exchange in :attr:`exchanges`, in order."""

    def __init__(self, inner: BaseAdapter | None = None) -> None:
        super().__init__()
        self.inner = inner if inner is not None else HTTPAdapter()
        self.exchanges: list[Exchange] = []

    def send(self, request: requests.PreparedRequest, **options: Any) -> requests.Response:  # type: ignore[override]
        """Send ``request`` through :attr:`inner` (with the session's ``options``) and record it."""
        headers = {
            key: REDACTED if key.lower() == "authorization" else _text(value)
            for key, value in request.headers.items()
        }
        body = request.body or b""
        sent = body.encode() if isinstance(body, str) else body if isinstance(body, bytes) else b"(a stream)"
        method, url = str(request.method), str(request.url)
        try:
            response = self.inner.send(request, **options)
        except requests.RequestException as exc:
            self.exchanges.append(Exchange(method, url, headers, sent, None, error=type(exc).__name__))
            raise
        self.exchanges.append(Exchange(method, url, headers, sent, response.status_code, response.content))
        return response

    def close(self) -> None:
        """Close :attr:`inner`."""
        self.inner.close()


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value
