"""The ASGI application: tenant routing, the request body limit, error envelopes, the OpenAPI contract and
the routers of every endpoint family."""

from __future__ import annotations

import copy
import logging
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from facturador.api import (
    company,
    contract,
    dispatches,
    documents,
    downloads,
    email,
    inventory,
    items,
    operations,
    other_documents,
    persons,
    quotations,
    sale_notes,
    services,
    summaries,
    voided,
)
from facturador.api.common import CLIENT_CLOSED_REQUEST, TENANT_SCOPE_KEY, checked_path
from facturador.api.heavy import GIL_SWITCH_SECONDS, HeavyWork
from facturador.authority.gre.app import create_gre_app
from facturador.authority.soap.app import RemembersTransport
from facturador.authority.validity.app import create_validity_app
from facturador.config import Settings
from facturador.context import ServiceContext
from facturador.domain.dispatches import GRE_MOUNT, DispatchService, service_gre_simulator
from facturador.domain.documents import DocumentService
from facturador.domain.email_delivery import EmailDeliveries
from facturador.domain.fields import check_path_parameters
from facturador.domain.inventory import InventoryService
from facturador.domain.items import ItemService
from facturador.domain.other_documents import OtherDocumentService
from facturador.domain.persons import PersonService
from facturador.domain.quotations import QuotationService
from facturador.domain.sale_notes import SaleNoteService
from facturador.domain.sire_endpoint import SIRE_MOUNT, service_sire_app
from facturador.domain.summaries import SummaryService
from facturador.domain.sunat_endpoint import SUNAT_MOUNT, service_soap_app
from facturador.domain.validity_endpoint import VALIDITY_MOUNT, service_validity_simulator
from facturador.errors import ServiceError
from facturador.logs import AccessLog, redact_tokens
from facturador.store.db import (
    RETRY_AFTER_SECONDS,
    UNAVAILABLE,
    request_writes,
    storage_full,
    watch_request_writes,
)
from facturador.store.operations import head_revision

log = logging.getLogger("facturador")
PREFIX_RE = re.compile(r"^/t/([a-z0-9][a-z0-9-]*)(?=/|$)")


def log_config(level: str = "warning", fmt: str = "text", access: bool = True) -> dict[str, Any]:
    """uvicorn's logging configuration in ``fmt`` (``text`` or ``json``, :mod:`facturador.logs`), every
    handler with :class:`~facturador.logs.RedactTokens` and the request id (each worker process applies
    it); the service's own ``facturador`` logger writes at ``level`` through uvicorn's handler, and its
    access lines (``facturador.access``, one per request, instead of uvicorn's) at INFO unless ``access``
    is false."""
    from uvicorn.config import LOGGING_CONFIG

    from facturador.logs import ACCESS_LOGGER, formatter_config

    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {
        "redact_tokens": {"()": "facturador.logs.RedactTokens"},
        "request_id": {"()": "facturador.logs.RequestIdFilter"},
    }
    config["formatters"] = {"default": formatter_config(fmt), "access": formatter_config(fmt)}
    for handler in config["handlers"].values():
        handler["filters"] = ["redact_tokens", "request_id"]
    config["loggers"]["facturador"] = {"handlers": ["default"], "level": level.upper(), "propagate": False}
    config["loggers"][ACCESS_LOGGER] = {
        "handlers": ["default"],
        "level": "INFO" if access else "WARNING",
        "propagate": False,
    }
    return config


class KeepConnection:
    """Keeps the keep-alive connection of a request that failed once its error was answered in full.

    Starlette answers an unexpected error with the 500 of the ``Exception`` handler and raises it again;
    uvicorn, seeing an exception after the answer started, closes the socket, so the client's next
    request on that connection was reset (``ConnectionResetError``). An error whose answer was sent in
    full stops here (the handler logged it); one raised before or during the answer still reaches the
    server, which answers 500 with ``Connection: close`` or ends a half-sent answer. It also starts
    watching the request's writes, which the 503 of a database gone midway reads.
    """

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        answered = False

        async def watched(message: Message) -> None:
            nonlocal answered
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                answered = True

        watch_request_writes()  # for the 503 of a database gone midway (see database_unavailable)
        try:
            await self.app(scope, receive, watched)
        except Exception:
            if not answered:
                raise


class TenantPrefix:
    """Serve ``/t/{slug}/...`` as the tenant's base URL: the prefix becomes the ASGI ``root_path``."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            match = PREFIX_RE.match(scope["path"])
            if match:
                scope = dict(scope)
                scope["root_path"] = scope.get("root_path", "") + match.group(0)
                scope[TENANT_SCOPE_KEY] = match.group(1)
        await self.app(scope, receive, send)


class TrustedHost:
    """Links and redirects name a host the service trusts, never whatever a client sent.

    Starlette builds every absolute URL (the links of an answer, the ``Location`` of a redirect) from the
    ``Host`` header. It is kept when it names the address the connection reached (``127.0.0.1:8000``,
    and ``localhost`` on a loopback address), a host of ``FACTURADOR_ALLOWED_HOSTS`` (the names a proxy in
    front answers on) or the configured host of the tenant asked for; otherwise it is replaced, before
    anything reads it (the outermost layer: the SOAP simulator's WSDL names its address too), by that
    tenant's host or else the address the connection reached. A tenant served
    by its host keeps being found by it (its host is trusted); an unknown host still finds no tenant."""

    def __init__(self, app: ASGIApp, context: ServiceContext):
        self.app = app
        self.context = context
        self.allowed = frozenset(split_host(host)[0] for host in context.settings.allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            sent = next((value for key, value in scope["headers"] if key == b"host"), b"")
            try:
                trusted = self.trusted(scope, sent.decode("latin-1").strip().lower())
            except UNAVAILABLE as exc:  # the tenant of a Host is read before any route: the routes' 503
                await (await database_unavailable(None, exc))(scope, receive, send)
                return
            if trusted.encode("latin-1") != sent:
                headers = [(key, value) for key, value in scope["headers"] if key != b"host"]
                scope = {**scope, "headers": [(b"host", trusted.encode("latin-1")), *headers]}
        await self.app(scope, receive, send)

    def trusted(self, scope: Scope, sent: str) -> str:
        """The Host to keep: ``sent`` when trusted, else the tenant's host or the server's address."""
        name, port = split_host(sent)
        server = scope.get("server")
        own = authority(server, scope.get("scheme", "http")) if server and server[1] else "localhost"
        if sent == own or name in self.allowed:
            return sent
        if server and server[0] in LOOPBACK and name == "localhost" and port in (None, server[1]):
            return sent
        prefix = PREFIX_RE.match(scope.get("path", ""))
        tenant = self.context.tenant_by_slug(prefix.group(1)) if prefix else self.context.tenant_by_host(name)
        host = tenant.host if tenant is not None else None
        if host and name == host.lower():
            return sent
        return host or own


def split_host(value: str) -> tuple[str, int | None]:
    """The name and port of a ``Host`` value (``[::1]:8000`` -> ``("::1", 8000)``)."""
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        name, colon, port = value.rpartition(":")
        if not colon:
            name, port = value, ""
    return name, int(port) if port.isdigit() else None


def authority(server: tuple[str, int], scheme: str) -> str:
    """``host:port`` of a server address, the port left out when it is the scheme's default."""
    host, port = server
    name = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}.get(scheme)
    return name if port == default else f"{name}:{port}"


class SunatMount:
    """Serve the simulator's SOAP endpoint at ``/sunat`` (``/sunat/ol-ti-itcpfegem-beta/billService``...),
    before the service's own layers: SOAP clients get SUNAT's faults rather than the API's JSON errors,
    and the endpoint gets the server's own connection (to inject a reset or a cut answer)."""

    def __init__(self, app: ASGIApp, endpoint: ASGIApp):
        self.app = app
        self.endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == SUNAT_MOUNT or path.startswith(SUNAT_MOUNT + "/")):
            scope = {**scope, "root_path": scope.get("root_path", "") + SUNAT_MOUNT}
            await self.endpoint(scope, receive, send)
        else:
            await self.app(scope, receive, send)


class BodyLimit:
    """Refuse a request body over ``max_bytes`` with 413: at once when ``Content-Length`` says so, else
    as soon as the bytes received pass the limit (chunked bodies), so no body is ever buffered whole."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self.too_large()(scope, receive, send)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise ServiceError(413, self.message(), "BODY_TOO_LARGE")
            return message

        await self.app(scope, limited, send)

    def message(self) -> str:
        return f"El cuerpo de la petición supera el límite de {self.max_bytes} bytes."

    def too_large(self) -> JSONResponse:
        return _envelope(413, self.message(), "BODY_TOO_LARGE", headers={"Connection": "close"})


#: Loopback clients: the dashboard or the demo on the same machine (``remote`` compression skips them).
LOOPBACK = ("127.0.0.1", "::1", "localhost")
#: Answers smaller than this go as they are.
COMPRESS_FROM_BYTES = 1024
#: Compressed already (PDFs, CDR zips, the QR's PNG) or streamed.
NOT_COMPRESSED = (
    "application/pdf",
    "application/zip",
    "application/gzip",
    "application/x-gzip",
    "image/*",
    "text/event-stream",
)


class Compression:
    """gzip, at level 1 (fast: a 31 MB list shrinks ~10x in ~0.2 s of CPU), for clients that send
    ``Accept-Encoding: gzip``, as ``settings.compression`` says: ``remote`` (the default) skips loopback
    clients, ``always`` compresses for every client, ``never`` for none."""

    def __init__(self, app: ASGIApp, mode: str):
        self.app = app
        self.mode = mode
        self.gzip = GZipMiddleware(
            app,
            minimum_size=COMPRESS_FROM_BYTES,
            compresslevel=1,
            exclude_content_types=NOT_COMPRESSED,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        local = client is not None and client[0] in LOOPBACK
        if scope["type"] != "http" or self.mode == "never" or (self.mode == "remote" and local):
            await self.app(scope, receive, send)
        else:
            await self.gzip(scope, receive, send)


def _envelope(
    status: int,
    message: str,
    code: str,
    errors: list[dict[str, str]] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(
        {"success": False, "message": message, "error_code": code, "errors": errors or []},
        status_code=status,
        headers=headers,
    )


#: The 503 of a request the database failed before it wrote anything: its transaction rolled back.
NOTHING_SAVED = (
    "La base de datos del servicio no responde en este momento; no se guardó nada. "
    f"Reintente en {RETRY_AFTER_SECONDS} segundos."
)
#: The 507 of a request the database could not store for want of space: it rolled back.
STORAGE_FULL = (
    "El almacenamiento del servicio está lleno; no se guardó nada. Avise al administrador del servicio "
    "para que libere espacio, y reintente luego."
)
#: The wait a client is told to leave when the store is full (freeing space takes a person).
STORAGE_RETRY_SECONDS = 60
#: The 503 of a request the database failed after (or while) committing a write: what it made may exist.
MAYBE_SAVED = (
    "La base de datos del servicio dejó de responder mientras se atendía la petición: lo que emitía "
    "puede haberse guardado. Búsquelo antes de emitirlo de nuevo; una factura, boleta o nota enviada con "
    f"Idempotency-Key puede reintentarse en {RETRY_AFTER_SECONDS} segundos con la misma clave (se le "
    "devolverá el documento si existe)."
)


async def database_unavailable(request: Request | None, exc: Exception) -> JSONResponse:
    """503 for a database that cannot serve now (``UNAVAILABLE``), with Retry-After. It says "nothing
    was saved" only when it is so (no write of the request committed, none was committing); otherwise
    that the document may exist, to be asked for again with the same Idempotency-Key."""
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    writes = request_writes()
    if storage_full(exc) and not (writes is not None and writes.may_have_saved):
        log.error("the database's storage is full, nothing was saved: %s", reason)
        return _envelope(
            507, STORAGE_FULL, "STORAGE_FULL", headers={"Retry-After": str(STORAGE_RETRY_SECONDS)}
        )
    message = NOTHING_SAVED
    if writes is not None and writes.may_have_saved:
        message = MAYBE_SAVED
        where = f"{request.method} {redact_tokens(request.url.path)}" if request is not None else "a request"
        log.warning("database unavailable after %s wrote (its client does not know): %s", where, reason)
    else:
        log.warning("database unavailable: %s", reason)
    return _envelope(503, message, "DATABASE_UNAVAILABLE", headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def create_app(context: ServiceContext) -> ASGIApp:
    """Build the application around a service context (database, data directory, caches)."""
    app = FastAPI(
        title=TITLE,
        description=DESCRIPTION,
        version=VERSION,
        openapi_url=None,  # served below, with the server URL of the tenant that asks
        docs_url=None,
        redoc_url=None,
        dependencies=[Depends(checked_path)],  # every path parameter of every route, one check
    )
    app.state.context = context
    app.state.heavy = HeavyWork(context.settings.data_dir / "locks")
    app.state.documents = DocumentService(context)
    app.state.summaries = SummaryService(context)
    app.state.other_documents = OtherDocumentService(context)
    head_revision()  # the migrations' head read once, at start, not during the first readiness probe
    app.include_router(documents.router)
    app.include_router(summaries.router)
    app.include_router(voided.router)
    app.include_router(downloads.router)
    app.include_router(other_documents.router)
    app.include_router(company.router)
    # the commercial back office
    app.state.persons = PersonService(context)
    app.include_router(persons.router)
    app.state.items = ItemService(context)
    app.include_router(items.router)
    app.include_router(services.router)  # real PRO's look-ups and mobile tables
    app.state.inventory = InventoryService(context)
    app.include_router(inventory.router)
    app.state.sale_notes = SaleNoteService(context, app.state.documents)
    app.include_router(sale_notes.router)
    app.state.quotations = QuotationService(context, app.state.sale_notes)
    app.include_router(quotations.router)
    app.state.dispatches = DispatchService(context)
    app.include_router(dispatches.router)
    app.state.email = EmailDeliveries(context)
    app.include_router(email.router)
    # /health, /livez, /ready, /readyz, /metrics: last, so an API request is not matched against them first
    app.include_router(operations.router)
    gre = create_gre_app(service_gre_simulator(context), check_path=check_path_parameters)
    app.mount(GRE_MOUNT, gre)  # SUNAT's GRE API, simulated, its path parameters checked as the API's
    # SUNAT's validity API (consulta integrada de validez de CPE), simulated on the service's registry
    app.mount(VALIDITY_MOUNT, create_validity_app(service_validity_simulator(context)))
    app.mount(SIRE_MOUNT, service_sire_app(context))  # SUNAT's SIRE RVIE API, simulated

    @app.exception_handler(ServiceError)
    async def service_error(_request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def request_validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"field": ".".join(str(p) for p in e.get("loc", ())[1:]), "message": str(e.get("msg", ""))}
            for e in exc.errors()
        ]
        return _envelope(422, "La petición no es válida.", "INVALID_REQUEST", errors)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        messages = {
            404: ("No se encontró la URL especificada", "NOT_FOUND"),
            405: ("El método especificado en la petición no es válido", "METHOD_NOT_ALLOWED"),
        }
        message, code = messages.get(exc.status_code, (str(exc.detail), "HTTP_ERROR"))
        return _envelope(exc.status_code, message, code, headers=exc.headers)  # 405 keeps its Allow

    @app.exception_handler(ClientDisconnect)
    async def client_left(request: Request, _exc: ClientDisconnect) -> Response:
        """A client that aborts its upload is normal: one line, no traceback, an answer nobody reads."""
        log.warning("%s %s: the client left before its body arrived", request.method, request.url.path)
        return Response(status_code=CLIENT_CLOSED_REQUEST)

    for unavailable in UNAVAILABLE:
        app.add_exception_handler(unavailable, database_unavailable)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:  # pragma: no cover - bugs only
        log.exception("unexpected error", exc_info=exc)
        return _envelope(500, "Error interno del servidor.", "INTERNAL_ERROR")

    @app.get("/openapi.json", include_in_schema=False)
    def openapi(request: Request) -> JSONResponse:
        return JSONResponse(
            {**openapi_document(app), "servers": [{"url": request.scope.get("root_path") or "/"}]}
        )

    app.mount(DOCS_ASSETS, StaticFiles(directory=docs_assets_folder()), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}/openapi.json",
            title=TITLE,
            swagger_js_url=f"{root}{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png",
        )

    limited = BodyLimit(app, context.settings.max_body_bytes)
    service = TenantPrefix(Compression(operations.RequestMetrics(limited), context.settings.compression))
    soap = SunatMount(KeepConnection(service), service_soap_app(context))  # SUNAT's SOAP services, simulated
    # the access log before anything reads Host (the request id first); outermost, the connection's
    # transport kept for the simulated SUNAT, which cuts connections on purpose (``reset``)
    return RemembersTransport(AccessLog(TrustedHost(soap, context)))


#: Where the docs page's script, style sheet and icon are served: from the package, never a CDN (a machine
#: without internet would get a blank page).
DOCS_ASSETS = "/docs/assets"


def docs_assets_folder() -> Path:
    """The Swagger UI files (``swagger-ui-bundle.js``, ``swagger-ui.css``, ``favicon.png``) that the
    ``fastapi-offline`` package ships."""
    import fastapi_offline

    return Path(fastapi_offline.__file__).resolve().parent / "static"


TITLE = "facturador-kit service"
VERSION = "0.1.0"
DESCRIPTION = (
    "Multi-tenant Peruvian electronic invoicing API (Facturador PRO compatible) with a built-in SUNAT "
    "simulator. Each tenant is served at its host or at /t/{slug}. Every error answers "
    '{"success": false, "message", "error_code", "errors": [{"field", "message"}]}; request bodies are '
    "JSON objects up to the configured size (FACTURADOR_MAX_BODY_BYTES, 5 MiB by default)."
)


def openapi_document(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI document of the routes, with the declared bodies and responses as components and the
    security schemes (built once per application)."""
    if app.openapi_schema is None:
        document = get_openapi(title=TITLE, version=VERSION, description=DESCRIPTION, routes=app.routes)
        components = document.setdefault("components", {})
        components.setdefault("schemas", {}).update(contract.COMPONENTS)
        components["securitySchemes"] = contract.SECURITY_SCHEMES
        app.openapi_schema = document
    return app.openapi_schema


def app_from_env() -> ASGIApp:
    """Factory for ``uvicorn --factory`` workers: settings come from FACTURADOR_DATA_DIR / _DATABASE_URL.
    The worker hands the GIL over every :data:`~facturador.api.heavy.GIL_SWITCH_SECONDS`."""
    sys.setswitchinterval(GIL_SWITCH_SECONDS)
    return create_app(ServiceContext(Settings.resolve(), migrate=False))
