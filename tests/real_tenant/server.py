"""The stand-in's HTTP side: Laravel's routing, authentication, rate limit and exception handler as the
three code bases apply them, in front of :class:`~tests.real_tenant.tenant.Tenant`.

* **Routes** (``routes/api.php``, ``modules/*/Routes/api.php``, ``routes/web.php``): a path a variant
  lacks answers the handler's 404 ``No se encontró la URL especificada`` before any middleware (no token
  needed, nothing counted); a known path with another method, 405.
* **Authentication** (``auth:api``, token driver: ``Authorization: Bearer``, ``?api_token=``): a wrong or
  missing token is 401 ``No se encuentra autenticado``; Pro9 redirects to ``/login`` (302) when the
  request does not ask for JSON (``app/Exceptions/Handler.php``).
* **Rate limit** (``'api' => ['throttle:60,1', ...]`` in ``app/Http/Kernel.php``): 60 requests a window
  of 60 seconds that starts with the first request, with ``X-RateLimit-Limit``/``-Remaining`` on every
  answer. Over the limit ``ThrottleRequestsException`` (code 0) reaches the handler's ``HttpException``
  branch, ``errorResponse('', '', $e)``, which builds a JSON response with status ``getCode()`` = 0;
  Symfony refuses it (``The HTTP status code "0" is not valid.``) and that exception is rendered again
  as HTTP 500 by ``Illuminate\\Routing\\Pipeline::handleException``: the limit arrives as a 500 whose
  message is Symfony's, without rate-limit headers and without ``Retry-After``.
* **Envelope**: every other exception is HTTP 500 ``{"success": false, "message"}`` (+ ``file`` and
  ``line`` in Tukifac and pro5); validation is 422 with ``message`` = ``{field: [...]}``. JSON is written
  as PHP's ``json_encode`` does (``\\/`` for slashes).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.real_tenant.tenant import Answer, Invalid, PhpError, Tenant
from tests.real_tenant.variants import Variant

TOKEN = "real-tenant-token-0123456789abcdefghijklmnopqrstuvwxyz0123456789"
THROTTLED = 'The HTTP status code "0" is not valid.'


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    match: re.Match[str]
    root: str


Handler = Callable[[Tenant, Request], Any]


@dataclass
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    api: bool = True
    #: Only these variants have the route (``None``: all three).
    variants: frozenset[str] | None = None


def _route(
    method: str, path: str, handler: Handler, *, api: bool = True, only: tuple[str, ...] | None = None
) -> Route:
    pattern = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", path) + "$")
    return Route(method, pattern, handler, api, frozenset(only) if only else None)


GRE = ("pro9", "tukifac")  # variants with the MobileApp module and GRE endpoints


def _download(t: Tenant, r: Request) -> tuple[int, bytes, str]:
    content, kind = t.file(r.match["model"], r.match["kind"], r.match["external_id"])
    return 200, content, kind


ROUTES: list[Route] = [
    # routes/api.php (Pro9, Tukifac, pro5)
    _route("POST", "/api/documents", lambda t, r: t.issue(r.body)),
    _route("GET", "/api/documents/lists", lambda t, r: t.list_rows(None, None, r.root)),
    _route(
        "GET",
        "/api/documents/lists/{start}/{end}",
        lambda t, r: t.list_rows(r.match["start"], r.match["end"], r.root),
    ),
    _route("POST", "/api/documents/send", lambda t, r: t.send(r.body)),
    _route("POST", "/api/documents/updatedocumentstatus", lambda t, r: t.update_status(r.body)),
    _route("POST", "/api/summaries", lambda t, r: t.summary(r.body)),
    _route("POST", "/api/summaries/status", lambda t, r: t.ticket_status("summary", r.body, r.root)),
    _route("POST", "/api/voided", lambda t, r: t.voided(r.body)),
    _route("POST", "/api/voided/status", lambda t, r: t.ticket_status("voided", r.body, r.root)),
    _route("POST", "/api/retentions", lambda t, r: t.store_withholding(r.body, "retention", r.root)),
    _route("POST", "/api/perceptions", lambda t, r: t.store_withholding(r.body, "perception", r.root)),
    _route("POST", "/api/dispatches", lambda t, r: t.store_guide(r.body, "09")),
    _route("POST", "/api/dispatches/send", lambda t, r: t.send_guide(r.body), only=GRE),
    _route("POST", "/api/dispatches/status_ticket", lambda t, r: t.guide_status(r.body, r.root), only=GRE),
    _route("POST", "/api/sale-note", lambda t, r: t.store_sale_note(r.body, r.root)),
    _route("GET", "/api/sale-note/series", lambda t, r: t.sale_note_series()),
    _route("GET", "/api/sale-note/lists", lambda t, r: t.sale_note_rows(r.query.get("input", ""), r.root)),
    _route(
        "POST", "/api/sale-note/{id}/generate-cpe", lambda t, r: t.generate_cpe(r.match["id"], r.body, r.root)
    ),
    _route("POST", "/api/item", lambda t, r: t.create_item(r.body)),
    _route("POST", "/api/items/{id}/update", lambda t, r: t.update_item(r.match["id"], r.body)),
    _route("POST", "/api/person", lambda t, r: t.save_person(r.body)),
    _route(
        "GET",
        "/api/document/search-items",
        lambda t, r: t.search_items(r.query.get("input", ""), r.query.get("limit")),
    ),
    _route(
        "GET", "/api/document/search-customers", lambda t, r: t.search_customers(r.query.get("input", ""))
    ),
    _route("GET", "/api/quotations/list", lambda t, r: t.quotation_rows(r.query.get("input", ""))),
    _route("POST", "/api/quotations", lambda t, r: t.store_quotation(r.body, r.root)),
    # modules/Purchase/Routes/api.php
    _route(
        "GET", "/api/purchases/search-suppliers", lambda t, r: t.search_suppliers(r.query.get("input", ""))
    ),
    # modules/Inventory/Routes/api.php
    _route("POST", "/api/inventory/transaction", lambda t, r: t.inventory(r.body)),
    # modules/Dispatch/Routes/api.php (Pro9, Tukifac)
    _route("POST", "/api/dispatch-carrier", lambda t, r: t.store_guide(r.body, "31"), only=GRE),
    # modules/MobileApp/Routes/api.php (Pro9, Tukifac)
    _route(
        "GET",
        "/api/persons/{type}/records",
        lambda t, r: t.person_records(
            r.match["type"], r.query.get("input", ""), int(r.query.get("page") or 1), r.root, r.path
        ),
        only=GRE,
    ),
    _route("POST", "/api/persons/update", lambda t, r: t.update_person(r.body), only=GRE),
    # routes/web.php: public downloads, outside the 'api' group (no token, no rate limit)
    _route("GET", "/downloads/{model}/{kind}/{external_id}", _download, api=False),
    _route("GET", "/downloads/{model}/{kind}/{external_id}/{format}", _download, api=False),
    _route(
        "GET",
        "/quotations/print/{external_id}/{format}",
        lambda t, r: (200, *t.file("quotation", "pdf", r.match["external_id"])),
        api=False,
    ),
]


@dataclass
class Window:
    """Laravel's ``RateLimiter`` for one key: a count and the end of the window its first hit opened."""

    count: int = 0
    ends: float = 0.0


@dataclass
class StandIn:
    """A running stand-in of one real tenant: its ``root`` URL, its :class:`Tenant` (seed and inspect
    it directly), the requests it received, and the rate limit (``limit`` per ``window`` seconds)."""

    variant: Variant
    tenant: Tenant
    limit: int = 60
    window: float = 60.0
    debug: bool = False
    root: str = ""
    hits: list[tuple[str, str]] = field(default_factory=list)
    throttled: int = 0
    _windows: dict[str, Window] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def token(self) -> str:
        return self.tenant.token

    def count(self, method: str, path: str) -> int:
        """How many requests reached ``path`` (without its query) with ``method``."""
        return sum(1 for m, p in self.hits if m == method and p.split("?", 1)[0] == path)

    def hit(self, key: str) -> tuple[bool, int]:
        """Count a request of ``key``: ``(allowed, remaining)``."""
        with self._lock:
            now = time.monotonic()
            window = self._windows.setdefault(key, Window())
            if now >= window.ends:
                window.count, window.ends = 0, now + self.window
            if window.count >= self.limit:
                self.throttled += 1
                return False, 0
            window.count += 1
            return True, self.limit - window.count

    def envelope(self, message: Any, file: str, line: int) -> dict[str, Any]:
        """``errorResponse``: ``file`` and ``line`` always in Tukifac/pro5, with APP_DEBUG in Pro9."""
        body: dict[str, Any] = {"success": False, "message": message}
        if self.variant.error_file_line or self.debug:
            body |= {"file": f"/var/www/html/{file}", "line": line}
        return body


def _php_json(body: Any) -> bytes:
    """``json_encode`` with Laravel's default flags: slashes escaped, non-ASCII as ``\\uXXXX``."""
    return json.dumps(body).replace("/", "\\/").encode()


def _expects_json(headers: dict[str, str]) -> bool:
    accept = headers.get("accept", "")
    first = accept.split(",")[0]
    return "/json" in first or "+json" in first


def _handler(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send(
            self, status: int, payload: bytes, content_type: str, headers: dict[str, str] | None = None
        ) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            payload = b"" if body is None else _php_json(body)
            self._send(status, payload, "application/json", headers)

        def _serve(self, method: str) -> None:
            parts = urlsplit(self.path)
            path, query = (
                parts.path,
                {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()},
            )
            headers = {k.lower(): v for k, v in self.headers.items()}
            length = int(headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            standin.hits.append((method, self.path))
            variant = standin.variant
            candidates = [
                r
                for r in ROUTES
                if r.pattern.match(path) and (r.variants is None or variant.name in r.variants)
            ]
            route = next((r for r in candidates if r.method == method), None)
            wants_json = _expects_json(headers)
            if route is None:
                if candidates:
                    body = standin.envelope(
                        "El método especificado en la petición no es válido",
                        "vendor/laravel/framework/src/Illuminate/Routing/AbstractRouteCollection.php",
                        117,
                    )
                    self._json(405, body)
                elif variant.redirect_without_json and not wants_json:
                    self._send(404, b"<!DOCTYPE html><title>Not Found</title>", "text/html; charset=UTF-8")
                else:
                    body = standin.envelope(
                        "No se encontró la URL especificada",
                        "vendor/laravel/framework/src/Illuminate/Routing/AbstractRouteCollection.php",
                        44,
                    )
                    self._json(404, body)
                return
            limit_headers: dict[str, str] = {}
            if route.api:
                bearer = headers.get("authorization", "")
                token = bearer[7:] if bearer.lower().startswith("bearer ") else query.get("api_token", "")
                if token != standin.token:
                    if variant.redirect_without_json and not wants_json:
                        self._send(
                            302, b"", "text/html; charset=UTF-8", {"Location": f"{standin.root}/login"}
                        )
                    else:
                        body = standin.envelope(
                            "No se encuentra autenticado",
                            "vendor/laravel/framework/src/Illuminate/Auth/Middleware/Authenticate.php",
                            82,
                        )
                        self._json(401, body)
                    return
                key = token if variant.throttle_by_user else self.client_address[0]
                allowed, remaining = standin.hit(key)
                if not allowed:
                    self._json(
                        500, standin.envelope(THROTTLED, "vendor/symfony/http-foundation/Response.php", 412)
                    )
                    return
                limit_headers = {
                    "X-RateLimit-Limit": str(standin.limit),
                    "X-RateLimit-Remaining": str(remaining),
                }
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {}
            request = Request(
                method,
                path,
                query,
                headers,
                body if isinstance(body, dict) else {},
                route.pattern.match(path),
                standin.root,
            )  # type: ignore[arg-type]
            try:
                with standin.tenant.lock:
                    result = route.handler(standin.tenant, request)
            except Answer as answer:
                self._json(answer.status, answer.body, limit_headers)
                return
            except Invalid as invalid:
                self._json(
                    422,
                    standin.envelope(
                        invalid.errors,
                        "vendor/laravel/framework/src/Illuminate/Foundation/Http/FormRequest.php",
                        126,
                    ),
                    limit_headers,
                )
                return
            except PhpError as error:
                self._json(500, standin.envelope(error.message, error.file, error.line), limit_headers)
                return
            if isinstance(result, tuple):
                status, content, content_type = result
                self._send(status, content, content_type, limit_headers)
            else:
                self._json(200, result, limit_headers)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

    return Handler


@contextmanager
def running(standin: StandIn) -> Iterator[StandIn]:
    """Serve ``standin`` on a free loopback port for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(standin))
    server.daemon_threads = True
    standin.root = f"http://127.0.0.1:{server.server_address[1]}"
    # shutdown() waits for the loop to look again: 0.05 s, not serve_forever's 0.5 s, after each test
    thread = threading.Thread(target=lambda: server.serve_forever(poll_interval=0.05), daemon=True)
    thread.start()
    try:
        yield standin
    finally:
        server.shutdown()
        server.server_close()


def stand_in(variant: Variant, *, limit: int = 60, window: float = 60.0) -> StandIn:
    """A stand-in of ``variant`` (not yet serving: see :func:`running`)."""
    return StandIn(variant, Tenant(variant, TOKEN), limit=limit, window=window)
