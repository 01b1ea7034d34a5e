"""The validity API simulator as an ASGI application (Starlette), mountable in the service or served
alone: ``POST /v1/clientesextranet/{client_id}/oauth2/token/`` and ``POST
/v1/contribuyente/contribuyentes/{ruc}/validarcomprobante`` (:mod:`.simulator` says what they answer).

Errors: the token endpoint ``{error, error_description}`` (400/401); the query ``{success: false, message,
errorCode}`` with 400 (fields), 401 (token), 429 (rate, with ``Retry-After``), 503 (outage), 500 for a
simulator bug.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from facturador.authority.validity.simulator import ApiError, TokenError, ValiditySimulator
from sunat.validity import QUERY_PATH, TOKEN_PATH

__all__ = ["MAX_BODY_BYTES", "create_validity_app"]

logger = logging.getLogger(__name__)

#: The largest query body taken (one document's fields are ~150 bytes).
MAX_BODY_BYTES = 16 * 1024


def create_validity_app(simulator: ValiditySimulator, *, threads: int = 8) -> Starlette:
    """The ASGI application answering the validity API with ``simulator`` (its blocking work, the
    registry's lookups, on worker threads of its own)."""
    limiter = anyio.CapacityLimiter(threads)

    async def run(function: Callable[..., Any], *args: Any) -> Any:
        return await anyio.to_thread.run_sync(lambda: function(*args), limiter=limiter)

    async def token(request: Request) -> JSONResponse:
        try:
            form = await request.form()
        except Exception:  # noqa: BLE001 - a body that is not a form
            return JSONResponse(
                {"error": "invalid_request", "error_description": "formulario no valido"}, 400
            )
        fields = {key: value for key, value in form.items() if isinstance(value, str)}
        try:
            answer = simulator.token(request.path_params["client_id"], fields)
        except TokenError as exc:
            return JSONResponse(exc.body(), exc.status)
        return JSONResponse(answer)

    async def check(request: Request) -> JSONResponse:
        try:
            raw = await request.body()
            if len(raw) > MAX_BODY_BYTES:
                raise ApiError(413, "El cuerpo supera el tamaño permitido", "0004")
            try:
                body: Any = json.loads(raw or b"null")
            except ValueError:
                body = None
            answer = await run(
                simulator.check, request.headers.get("authorization"), request.path_params["ruc"], body
            )
        except ApiError as exc:
            return JSONResponse(exc.body(), exc.status, headers=exc.headers())
        except Exception:  # pragma: no cover - bugs only
            logger.exception("validity simulator failed")
            return JSONResponse({"success": False, "message": "Error interno", "errorCode": "500"}, 500)
        return JSONResponse(answer)

    token_path = TOKEN_PATH.format(client_id="{client_id}")
    app = Starlette(
        routes=[
            Route(token_path, token, methods=["POST"]),
            Route(token_path.rstrip("/"), token, methods=["POST"]),
            Route(QUERY_PATH.format(ruc="{ruc}"), check, methods=["POST"]),
        ]
    )
    app.state.simulator = simulator
    return app
