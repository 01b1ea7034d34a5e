"""The ASGI application: tenant routing, error envelopes and the routers of every endpoint family."""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from facturador.service.api import documents, downloads, summaries, voided
from facturador.service.api.common import TENANT_SCOPE_KEY
from facturador.service.config import Settings
from facturador.service.context import ServiceContext
from facturador.service.domain.documents import DocumentService
from facturador.service.domain.summaries import SummaryService
from facturador.service.errors import ServiceError

log = logging.getLogger("facturador.service")
PREFIX_RE = re.compile(r"^/t/([a-z0-9][a-z0-9-]*)(?=/|$)")


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


def _envelope(
    status: int, message: str, code: str, errors: list[dict[str, str]] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"success": False, "message": message, "error_code": code, "errors": errors or []}, status_code=status
    )


def create_app(context: ServiceContext) -> ASGIApp:
    """Build the application around a service context (database, data directory, caches)."""
    app = FastAPI(
        title="facturador-kit service",
        description="Multi-tenant Peruvian electronic invoicing API (Facturador PRO compatible) "
        "with a built-in SUNAT simulator. Each tenant is served at its host or at /t/{slug}.",
        version="0.1.0",
    )
    app.state.context = context
    app.state.documents = DocumentService(context)
    app.state.summaries = SummaryService(context)
    app.include_router(documents.router)
    app.include_router(summaries.router)
    app.include_router(voided.router)
    app.include_router(downloads.router)

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
        return _envelope(exc.status_code, message, code)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:  # pragma: no cover - bugs only
        log.exception("unexpected error", exc_info=exc)
        return _envelope(500, "Error interno del servidor.", "INTERNAL_ERROR")

    @app.get("/health", include_in_schema=False)
    def health() -> dict[str, Any]:
        return {"success": True}

    return TenantPrefix(app)


def app_from_env() -> ASGIApp:
    """Factory for ``uvicorn --factory`` workers: settings come from FACTURADOR_DATA_DIR / _DATABASE_URL."""
    return create_app(ServiceContext(Settings.resolve(), migrate=False))
